// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of plugin_unwind_deferred through libtraceevent alone, the
 * way any libtraceevent reader (perf, rtla) loads it: the event formats
 * (../lib/data/formats/, the text of contract.md) are parsed with
 * tep_parse_event, records are built by hand, the plugin is loaded with
 * tep_load_plugins (from TRACEEVENT_PLUGIN_DIR; system plugins off) and
 * each record is printed with tep_print_event.
 *
 * The expected text is contract.md's (the records' fields) and
 * plugin.md's (how they print); what trace-cmd cannot show is here: the
 * handlers of other events left as they were, the same text whatever the
 * order of the records, flag bits, records cut short, unloading.
 *
 * Usage: tep_harness FORMATS_DIR      prints TAP-like lines, exit 1 on
 *                                     failure
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

#include <event-parse.h>
#include <trace-seq.h>

#define ID_KSTACK	4
#define ID_ENTER	195	/* lib/data/formats/syscalls_sys_enter_getppid */
#define ID_EXIT		194
#define ID_COOKIE	21	/* lib/data/formats/ftrace_user_stack_cookie */
#define ID_DEFER	22	/* lib/data/formats/ftrace_user_stack_deferred */
#define ID_OLD_COOKIE	1500	/* the pre-release unwind:* records */
#define ID_OLD_DEFER	1501

#define COOKIE_NO_USER_STACK	0x1
#define DEFERRED_TRUNCATED	0x1
#define DEFERRED_LATE		0x2
#define DEFERRED_UNWIND_FP	0x4
#define DEFERRED_UNWIND_SFRAME	0x8

static const char *fmt_dir;
static int failures, passes;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		passes++;
	else
		failures++;
}

static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	char *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", fmt_dir, name);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		fprintf(stderr, "read %s failed\n", path);
		exit(2);
	}
	fclose(f);
	*len = n;
	return buf;
}

/* The pre-release unwind:* formats, which the plugin no longer reads. */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char old_cookie_fmt[] =
	"name: user_stack_cookie\nID: 1500\nformat:\n" COMMON_FIELDS
	"\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"cookie=0x%llx\", REC->cookie\n";

static void parse_fmt(struct tep_handle *tep, const char *file,
		      const char *sys)
{
	size_t len;
	char *buf = slurp(file, &len);

	if (tep_parse_event(tep, buf, len, sys)) {
		fprintf(stderr, "cannot parse %s\n", file);
		exit(2);
	}
	free(buf);
}

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81100000 T ftrace_syscall_enter\n"
	"ffffffff81200000 T syscall_trace_enter\n"
	"ffffffff81300000 T do_syscall_64\n"
	"ffffffff81400000 T entry_SYSCALL_64_after_hwframe\n"
	"ffffffff81500000 T _etext\n";

static struct tep_handle *alloc_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		exit(2);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_flag(tep, TEP_DISABLE_SYS_PLUGINS);
	return tep;
}

static void parse_formats(struct tep_handle *tep)
{
	parse_fmt(tep, "ftrace_kernel_stack", "ftrace");
	parse_fmt(tep, "ftrace_user_stack_cookie", "ftrace");
	parse_fmt(tep, "ftrace_user_stack_deferred", "ftrace");
	parse_fmt(tep, "syscalls_sys_enter_getppid", "syscalls");
	parse_fmt(tep, "syscalls_sys_exit_getppid", "syscalls");
	tep_parse_kallsyms(tep, kallsyms);
}

/* formats first, then plugins: the plugin sees every record */
static struct tep_handle *new_tep(void)
{
	struct tep_handle *tep = alloc_tep();

	parse_formats(tep);
	return tep;
}

/* Records: a little-endian byte builder. */
struct rec {
	struct tep_record	r;
	unsigned char		buf[512];
};

static unsigned long long next_offset = 4096;

static void put(struct rec *x, int at, unsigned long long v, int size)
{
	int i;

	for (i = 0; i < size; i++)
		x->buf[at + i] = v >> (8 * i);
}

static struct rec *mk(int id, int pid, int cpu, unsigned long long ts,
		      int size)
{
	struct rec *x = calloc(1, sizeof(*x));

	if (!x)
		exit(2);
	put(x, 0, id, 2);
	put(x, 4, pid, 4);
	x->r.data = x->buf;
	x->r.size = size;
	x->r.cpu = cpu;
	x->r.ts = ts;
	x->r.offset = next_offset;
	next_offset += 64;
	return x;
}

static struct rec *mk_enter(int pid, int cpu, unsigned long long ts)
{
	struct rec *x = mk(ID_ENTER, pid, cpu, ts, 12);

	put(x, 8, 110, 4);
	return x;
}

static const unsigned long long kframes[] = {
	0xffffffff81100042ULL, 0xffffffff81200123ULL,
	0xffffffff81300077ULL, 0xffffffff81400046ULL,
};

static struct rec *mk_kstack(int pid, int cpu, unsigned long long ts)
{
	struct rec *x = mk(ID_KSTACK, pid, cpu, ts, 16 + 4 * 8);
	int i;

	put(x, 8, 4, 4);
	for (i = 0; i < 4; i++)
		put(x, 16 + 8 * i, kframes[i], 8);
	return x;
}

/* a cookie record carrying the first @nk of kframes[] */
static struct rec *mk_cookie_k(int pid, int cpu, unsigned long long ts,
			       unsigned long long cookie, int nk,
			       unsigned int flags)
{
	struct rec *x = mk(ID_COOKIE, pid, cpu, ts, 24 + nk * 8);
	int i;

	put(x, 8, cookie, 8);
	put(x, 16, flags, 4);
	put(x, 20, 24 | ((nk * 8) << 16), 4);
	for (i = 0; i < nk; i++)
		put(x, 24 + 8 * i, kframes[i], 8);
	return x;
}

static struct rec *mk_cookie(int pid, int cpu, unsigned long long ts,
			     unsigned long long cookie)
{
	return mk_cookie_k(pid, cpu, ts, cookie, 4, 0);
}

static struct rec *mk_defer_f(int pid, int cpu, unsigned long long ts,
			      unsigned long long cookie, int nr,
			      unsigned int flags, unsigned int depth)
{
	struct rec *x = mk(ID_DEFER, pid, cpu, ts, 40 + nr * 8);
	int i;

	/* cookie @8, pid @16, tgid @20, flags @24, depth @28, frames @32 */
	put(x, 8, cookie, 8);
	put(x, 16, pid, 4);
	put(x, 20, pid, 4);
	put(x, 24, flags, 4);
	put(x, 28, depth, 4);
	put(x, 32, 40 | ((nr * 8) << 16), 4);
	for (i = 0; i < nr; i++)
		put(x, 40 + 8 * i, 0x401000 + 0x100 * i, 8);
	return x;
}

static struct rec *mk_defer(int pid, int cpu, unsigned long long ts,
			    unsigned long long cookie, int nr)
{
	return mk_defer_f(pid, cpu, ts, cookie, nr, 0, nr);
}

/* Print one record's info into a string (malloc'ed). */
static char *info(struct tep_handle *tep, struct rec *x)
{
	struct trace_seq s;
	char *out;

	trace_seq_init(&s);
	tep_print_event(tep, &s, &x->r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	out = strdup(s.buffer);
	trace_seq_destroy(&s);
	return out;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* enter and its cookie on @cpu at @ts for @pid: 2 records */
static void entry(struct rec **r, int pid, int cpu, unsigned long long ts,
		  unsigned long long cookie)
{
	r[0] = mk_enter(pid, cpu, ts);
	r[1] = mk_cookie(pid, cpu, ts + 20, cookie);
}

static void free_recs(struct rec **r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(r[i]);
}

static char *print_all(struct tep_handle *tep, struct rec **r, int n)
{
	size_t len = 1;
	char *all = calloc(1, 1), *one, *p;
	int i;

	for (i = 0; i < n; i++) {
		one = info(tep, r[i]);
		len += strlen(one) + 1;
		p = realloc(all, len);
		if (!p)
			exit(2);
		all = p;
		strcat(all, one);
		strcat(all, "\n");
		free(one);
	}
	return all;
}


static int custom_handler(struct trace_seq *s, struct tep_record *record,
			  struct tep_event *event, void *context)
{
	(void)record;
	(void)event;
	(void)context;
	trace_seq_puts(s, "custom");
	return 0;
}

#define MAX_EVENTS	64

/* The handler and context of every event, to compare */
static int snapshot(struct tep_handle *tep, void **h, void **c)
{
	int i, n = tep_get_events_count(tep);

	for (i = 0; i < n && i < MAX_EVENTS; i++) {
		struct tep_event *e = tep_get_event(tep, i);

		h[i] = e ? (void *)e->handler : NULL;
		c[i] = e ? e->context : NULL;
	}
	return n;
}

static int is_ours(struct tep_event *e)
{
	return !strcmp(e->system, "ftrace") &&
	       (!strcmp(e->name, "user_stack_cookie") ||
		!strcmp(e->name, "user_stack_deferred"));
}

/*
 * Only the plugin's own events get its handlers: the others keep theirs
 * (a handler registered before, or none) after loading and after printing
 * every kind of record; with the plugin loaded before the formats
 * (libtracecmd's order) or after them.
 */
static void test_other_handlers(int plugins_first)
{
	void *h0[MAX_EVENTS], *c0[MAX_EVENTS], *h1[MAX_EVENTS], *c1[MAX_EVENTS];
	struct tep_handle *tep = alloc_tep();
	struct tep_plugin_list *pl = NULL;
	struct rec *r[5];
	int i, n, same = 1, ours = 0;
	char *out;

	if (plugins_first)
		pl = tep_load_plugins(tep);
	parse_formats(tep);
	tep_register_event_handler(tep, -1, "syscalls", "sys_enter_getppid",
				   custom_handler, NULL);
	n = snapshot(tep, h0, c0);
	if (!plugins_first)
		pl = tep_load_plugins(tep);
	r[0] = mk_enter(100, 0, 1000);
	r[1] = mk_kstack(100, 0, 1010);
	r[2] = mk_cookie(100, 0, 1020, 0xa1);
	r[3] = mk(ID_EXIT, 100, 0, 1030, 24);
	r[4] = mk_defer(100, 1, 2000, 0xa1, 2);
	out = print_all(tep, r, 5);
	snapshot(tep, h1, c1);
	for (i = 0; i < n && i < MAX_EVENTS; i++) {
		struct tep_event *e = tep_get_event(tep, i);

		if (is_ours(e))
			ours += e->handler != NULL;
		else if (h0[i] != h1[i] || c0[i] != c1[i])
			same = 0;
	}
	result(pl != NULL && ours == 2,
	       "plugin loaded %s the formats: handlers on its 2 records",
	       plugins_first ? "before" : "after");
	result(same && !strncmp(out, "custom\n", 7),
	       "plugin loaded %s the formats: every other event keeps its handler, after printing",
	       plugins_first ? "before" : "after");
	if (failures)
		fputs(out, stdout);
	free(out);
	free_recs(r, 5);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

/* Each record on its own: the text of contract.md's fields */
static void test_records(void)
{
	struct tep_handle *tep = alloc_tep();
	struct tep_plugin_list *pl;
	struct rec *r[9];
	char *out;

	parse_formats(tep);
	pl = tep_load_plugins(tep);
	r[0] = mk_cookie(100, 0, 1000, 0xc1);
	r[1] = mk_defer(100, 1, 2000, 0xc1, 3);
	r[2] = mk_cookie_k(100, 0, 1010, 0xb1, 2, COOKIE_NO_USER_STACK);
	r[3] = mk_defer_f(100, 0, 2100, 0xb2, 2, DEFERRED_TRUNCATED, 9);
	/* late, reserved bits set */
	r[4] = mk_defer_f(100, 0, 3100, 0xb3, 1, DEFERRED_LATE | 0xf0, 1);
	r[5] = mk_cookie_k(100, 0, 3200, 0xb4, 0, 0xfe);
	r[6] = mk_defer_f(100, 0, 3300, 0xb5, 0, 0, 0);
	r[7] = mk_defer_f(100, 0, 3400, 0xb6, 1, DEFERRED_UNWIND_SFRAME, 1);
	r[8] = mk_defer_f(100, 0, 3500, 0xb7, 1,
			  DEFERRED_UNWIND_SFRAME | DEFERRED_UNWIND_FP, 1);
	out = print_all(tep, r, 9);
	result(strstr(out, "cookie=0xc1 kernel=4\n"
			   "=> ftrace_syscall_enter+0x42 (ffffffff81100042)\n"
			   "=> syscall_trace_enter+0x123 (ffffffff81200123)\n"
			   "=> do_syscall_64+0x77 (ffffffff81300077)\n"
			   "=> entry_SYSCALL_64_after_hwframe+0x46 (ffffffff81400046)\n") != NULL,
	       "cookie record: cookie, kernel=N, kernel frames named +offset from kallsyms");
	result(strstr(out, "cookie=0xc1 tgid=100 nr=3\n=> 0x401000\n=> 0x401100\n=> 0x401200\n") != NULL,
	       "user_stack_deferred: cookie, tgid, nr, user frames in hex, innermost first");
	result(strstr(out, "cookie=0xb1 kernel=2 (no user stack)\n=> ftrace_syscall_enter+0x42") != NULL,
	       "NO_USER_STACK flag decoded");
	result(strstr(out, "cookie=0xb2 tgid=100 nr=2 depth=9 (truncated)\n") != NULL,
	       "TRUNCATED flag and depth");
	result(strstr(out, "cookie=0xb3 tgid=100 nr=1 (late)\n=> 0x401000\n") != NULL,
	       "LATE flag; reserved bits ignored");
	result(strstr(out, "cookie=0xb4 kernel=0\n") != NULL,
	       "a cookie without kernel stack: kernel=0, no frame; reserved bits ignored");
	result(strstr(out, "cookie=0xb5 tgid=100 nr=0 empty (user unwind failed)\n") != NULL,
	       "an empty user stack says so");
	result(strstr(out, "cookie=0xb6 tgid=100 nr=1 [sframe]\n") &&
	       strstr(out, "cookie=0xb7 tgid=100 nr=1 [sframe+fp]\n"),
	       "unwinder marks when SFrame took part, none for frame pointers");
	result(count(out, "=> ") == 4 + 3 + 2 + 2 + 1 + 1 + 1,
	       "every frame printed once");
	if (failures)
		fputs(out, stdout);
	free(out);
	free_recs(r, 9);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

/* No state: a record prints the same whatever was printed before */
static void test_any_order(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *r[4];
	char *a[4], *b[4];
	int i, same = 1;

	entry(r, 100, 0, 1000, 0xd1);
	r[2] = mk_defer(100, 1, 2000, 0xd1, 2);
	r[3] = mk_cookie(100, 0, 3000, 0xd1);	/* after its user stack */
	for (i = 0; i < 4; i++)
		a[i] = info(tep, r[i]);
	for (i = 3; i >= 0; i--)
		b[i] = info(tep, r[i]);
	for (i = 0; i < 4; i++) {
		char *again = info(tep, r[i]);

		same &= !strcmp(a[i], b[i]) && !strcmp(a[i], again);
		free(again);
		free(a[i]);
		free(b[i]);
	}
	result(same, "each record prints the same front to back, back to front, twice");
	free_recs(r, 4);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

/* The trampoline mark, and addresses kallsyms does not have */
static void test_trampoline(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *x = mk_cookie_k(100, 0, 1000, 0xe1, 2, 0);
	char *out;

	put(x, 24, 0x7fffffffULL, 8);
	put(x, 32, 0xffffffff80000010ULL, 8);
	out = info(tep, x);
	result(strstr(out, "\n=> [ftrace trampoline] (7fffffff)\n=> ffffffff80000010") != NULL,
	       "trampoline mark named, an address below kallsyms in hex (%s)", out);
	free(out);
	free(x);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

/* Records shorter than their format: markers, no read past the end */
static void test_bounds(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *c = mk_cookie(100, 0, 1000, 0xf1);
	struct rec *d = mk_defer(100, 0, 1100, 0xf1, 3);
	struct rec *e = mk_defer(100, 0, 1100, 0xf2, 1);
	char *o1, *o2, *o3;

	c->r.size = 30;		/* inside the kernel array */
	d->r.size = 50;		/* inside the frames array */
	e->r.size = 12;		/* inside the cookie */
	o1 = info(tep, c);
	o2 = info(tep, d);
	o3 = info(tep, e);
	result(strstr(o1, "cookie=0xf1 kernel=0 [unwind_deferred: bad or missing kernel array]") &&
	       !strstr(o1, "=>"), "a cookie record cut inside its kernel array: marker (%s)", o1);
	result(strstr(o2, "cookie=0xf1 tgid=100 [unwind_deferred: bad or missing frames array]") &&
	       !strstr(o2, "=>"), "a user stack cut inside its frames: marker (%s)", o2);
	result(strstr(o3, "[unwind_deferred: no cookie field]") != NULL,
	       "a record cut inside its cookie: marker, then its print format (%s)", o3);
	free(o1);
	free(o2);
	free(o3);
	free(c);
	free(d);
	free(e);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

/* Unloaded: the records print by their formats again */
static void test_unload(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *x = mk_cookie(100, 0, 1000, 0x71);
	char *with, *without;

	with = info(tep, x);
	tep_unload_plugins(pl, tep);
	without = info(tep, x);
	result(strstr(with, "kernel=4\n") && strstr(without, "flags=0x0 kernel=ftrace_syscall_enter,"),
	       "unloaded: the print format again (%s)", without);
	free(with);
	free(without);
	free(x);
	tep_free(tep);
}

/* Pre-release unwind:* records: their print formats, one warning */
static void test_prerelease(void)
{
	struct tep_handle *tep = alloc_tep();
	struct tep_plugin_list *pl;
	struct rec *x;
	char *out;

	if (tep_parse_event(tep, old_cookie_fmt, sizeof(old_cookie_fmt) - 1, "unwind"))
		exit(2);
	pl = tep_load_plugins(tep);
	x = mk(ID_OLD_COOKIE, 100, 0, 1000, 16);
	put(x, 8, 0x81, 8);
	out = info(tep, x);
	result(!strcmp(out, "cookie=0x81"),
	       "pre-release cookie record: its print format (%s)", out);
	free(out);
	free(x);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

/*
 * Without the plugin (a stock reader) the cookie record's print format
 * names its kernel frames, as libtraceevent prints kernel_stack's: the
 * format as the kernel writes it, the names from kallsyms above
 */
static void test_stock_print_fmt(void)
{
	struct tep_handle *tep = new_tep();
	struct rec *x = mk_cookie(100, 0, 1000, 0x61);
	char *out = info(tep, x);

	result(strstr(out, "kernel=ftrace_syscall_enter,syscall_trace_enter,"
			   "do_syscall_64,entry_SYSCALL_64_after_hwframe,"
			   "0x0,0x0,0x0,0x0") != NULL,
	       "no plugin: the cookie's print format names its kernel frames (%s)",
	       out);
	free(out);
	free(x);
	x = mk_cookie_k(100, 0, 1000, 0x62, 0, 0);
	out = info(tep, x);
	result(strstr(out, "kernel=0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0") != NULL,
	       "no plugin: a cookie without a kernel stack prints no frame (%s)",
	       out);
	free(out);
	free(x);
	tep_free(tep);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FORMATS_DIR\n", argv[0]);
		return 2;
	}
	fmt_dir = argv[1];
	test_other_handlers(0);
	test_other_handlers(1);
	test_records();
	test_any_order();
	test_trampoline();
	test_bounds();
	test_unload();
	test_prerelease();
	test_stock_print_fmt();
	printf("harness: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
