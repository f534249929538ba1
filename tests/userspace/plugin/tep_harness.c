// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of plugin_unwind_deferred through libtraceevent alone: the
 * event formats (../lib/data/formats/) are parsed with tep_parse_event, records are
 * built by hand, the plugin is loaded with tep_load_plugins (from
 * TRACEEVENT_PLUGIN_DIR; system plugins off) and each record is printed
 * with tep_print_event, the way a reader such as trace-cmd does.
 *
 * This covers what trace-cmd cannot show: a reader that parses the
 * formats before loading plugins (the plugin then sees every event from
 * the first one), a record printed twice, records read out of order (a
 * GUI), plugin options set through the libtraceevent API, unloading, and
 * two handles at once.
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

static const char old_defer_fmt[] =
	"name: user_stack_deferred\nID: 1501\nformat:\n" COMMON_FIELDS
	"\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int tgid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int truncated;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] frames;\toffset:24;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"cookie=0x%llx tgid=%d nr=%u%s frames={%s}\", REC->cookie, "
	"REC->tgid, __get_dynamic_array_len(frames) / sizeof(unsigned long), "
	"REC->truncated ? \" (truncated)\" : \"\", "
	"__print_array(__get_dynamic_array(frames), "
	"__get_dynamic_array_len(frames) / sizeof(unsigned long), "
	"sizeof(unsigned long))\n";

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

static void test_front_to_back(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *r[6];
	char *out;

	entry(r, 100, 0, 1000, 0xc1);
	entry(r + 2, 101, 1, 1005, 0xc2);
	r[4] = mk_defer(101, 0, 2000, 0xc2, 3);
	r[5] = mk_defer(100, 1, 2100, 0xc1, 2);
	out = print_all(tep, r, 6);
	result(pl != NULL, "plugin loaded from TRACEEVENT_PLUGIN_DIR");
	result(count(out, "events=1") == 2,
	       "two cookies across CPUs merged by (pid, cookie)");
	result(count(out, "\n sys_enter_getppid [00") == 2 &&
	       !strstr(out, "not seen"),
	       "formats parsed before loading: the first events are seen");
	result(count(out, "=> do_syscall_64+0x77 (ffffffff81300077)") == 2 &&
	       count(out, "\n => 0x4") == 5,
	       "kernel frames (from the cookie records) resolved, user frames listed");
	result(strstr(out, " <user stack>\n => 0x401000\n => 0x401100\n => 0x401200\n")
	       != NULL, "user frames in order, innermost first");
	result(strstr(out, "cookie=0xc1 kernel=4\n=> ftrace_syscall_enter (ffffffff81100042)\n")
	       != NULL,
	       "a cookie record prints its cookie and kernel frames as kernel_stack does");
	result(strstr(out, "cookie=0xc2 tgid=101 nr=3 events=1\n") != NULL,
	       "a user_stack_deferred prints cookie, tgid and nr (no depth when complete)");
	if (failures)
		fputs(out, stdout);
	free(out);
	free_recs(r, 6);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

static void test_kstack_between(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *r[7];
	char *out;

	/* -T and the trigger: kernel_stack between the event and its cookie */
	r[0] = mk_enter(100, 0, 1000);
	r[1] = mk_kstack(100, 0, 1010);
	r[2] = mk_cookie(100, 0, 1020, 0xa1);
	/*
	 * a kernel_stack of another task between: it never attaches to the
	 * event (the join's rule: the newest open event of the same task)
	 */
	r[3] = mk_enter(100, 0, 1100);
	r[4] = mk_kstack(200, 0, 1110);
	r[5] = mk_cookie(100, 0, 1120, 0xa1);
	r[6] = mk_defer(100, 0, 2000, 0xa1, 1);
	out = print_all(tep, r, 7);
	result(strstr(out, "events=2\n sys_enter_getppid [000] ") &&
	       count(out, "\n sys_enter_getppid [000] ") == 2 &&
	       !strstr(out, "not seen"),
	       "a kernel_stack between event and cookie is skipped, of its task or another");
	if (failures)
		fputs(out, stdout);
	free(out);
	free_recs(r, 7);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

static void test_flags(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *r[10];
	char *out;

	/* NO_USER_STACK: shown lost at once, nothing left pending */
	r[0] = mk_enter(100, 0, 1000);
	r[1] = mk_cookie_k(100, 0, 1010, 0xb1, 4, COOKIE_NO_USER_STACK);
	/* truncated: 2 of 9 frames kept */
	r[2] = mk_enter(100, 0, 2000);
	r[3] = mk_cookie(100, 0, 2010, 0xb2);
	r[4] = mk_defer_f(100, 0, 2100, 0xb2, 2, DEFERRED_TRUNCATED, 9);
	/* late, and reserved bits set */
	r[5] = mk_enter(100, 0, 3000);
	r[6] = mk_cookie_k(100, 0, 3010, 0xb3, 4, 0xfe);
	r[7] = mk_defer_f(100, 0, 3100, 0xb3, 1, DEFERRED_LATE | 0xf0, 1);
	/* no kernel stack asked for (the option without stacktrace) */
	r[8] = mk_cookie_k(100, 0, 3200, 0xb4, 0, 0);
	r[9] = mk_defer(100, 0, 3300, 0xb4, 1);
	out = print_all(tep, r, 10);
	result(strstr(out, "cookie=0xb1 kernel=4 (no user stack) events=1\n sys_enter_getppid [000] ") &&
	       strstr(out, "\n <user stack> lost\n") &&
	       !strstr(out, "0xb1 tgid"),
	       "NO_USER_STACK: the stack is shown lost at the cookie");
	result(strstr(out, "cookie=0xb2 tgid=100 nr=2 depth=9 (truncated) events=1\n") &&
	       strstr(out, "\n <user stack> truncated (9 frames found)\n"),
	       "TRUNCATED: depth and (truncated) in the header, cut short in the block");
	result(strstr(out, "cookie=0xb3 kernel=4\n") &&
	       strstr(out, "cookie=0xb3 tgid=100 nr=1 (late) events=1\n"),
	       "LATE is shown; reserved flag bits are ignored");
	result(strstr(out, "cookie=0xb4 kernel=0\n") &&
	       strstr(out, "\n (event not seen) [000] 0.000003\n <user stack>\n"),
	       "a cookie without kernel frames: its block has no <kernel stack>");
	if (failures)
		fputs(out, stdout);
	free(out);
	free_recs(r, 10);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

static void test_trampoline(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *r[3];
	char *out;

	r[0] = mk_enter(100, 0, 1000);
	r[1] = mk_cookie_k(100, 0, 1010, 0xd1, 2, 0);
	put(r[1], 24 + 8, 0x7fffffff, 8);	/* second frame: the mark */
	r[2] = mk_defer(100, 0, 2000, 0xd1, 1);
	out = print_all(tep, r, 3);
	result(strstr(out, "=> [ftrace trampoline] (7fffffff)\n") &&
	       count(out, "[ftrace trampoline]") == 2,
	       "the ftrace trampoline mark (0x7fffffff) is named, not looked up");
	if (failures)
		fputs(out, stdout);
	free(out);
	free_recs(r, 3);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

static void test_twice_and_reorder(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *r[3];
	char *a, *b;

	entry(r, 100, 0, 1000, 0xd1);
	r[2] = mk_defer(100, 0, 2000, 0xd1, 2);

	/* each record printed twice in a row (a reader that re-prints) */
	free(info(tep, r[0]));
	free(info(tep, r[0]));
	free(info(tep, r[1]));
	free(info(tep, r[1]));
	a = info(tep, r[2]);
	result(strstr(a, "events=1") != NULL,
	       "a record printed twice counts once");
	free(a);

	/* printed again as the last record of its CPU: no merge twice */
	a = info(tep, r[2]);
	result(strstr(a, "nr=2") && !strstr(a, "events="),
	       "a user stack printed again is not merged again");
	free(a);
	free_recs(r, 3);

	/* out of order (a GUI): the user stack first, then its cookie */
	entry(r, 100, 0, 3000, 0xd2);
	r[2] = mk_defer(100, 1, 5000, 0xd2, 2);
	a = info(tep, r[2]);
	result(strstr(a, "no pending event") != NULL,
	       "a user stack read before its cookie is not merged");
	free(a);
	free(info(tep, r[0]));
	/*
	 * the join keeps a user stack read before its cookie (clocks of
	 * CPUs differ) and merges it when the cookie comes
	 */
	a = info(tep, r[1]);
	b = info(tep, r[2]);
	result(strstr(a, "(after its user stack) events=1") != NULL &&
	       !strstr(b, "events="),
	       "a user stack read before its cookie is merged at the cookie, once");
	free(a);
	free(b);
	free_recs(r, 3);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

static void test_option_and_unload(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct tep_event *ks;
	const char *ustack_want;
	struct rec *r[3];
	char *out;

	entry(r, 100, 0, 1000, 0xe1);
	r[2] = mk_defer(100, 0, 2000, 0xe1, 2);

	tep_plugin_add_option("unwind_deferred:merge", "0");
	out = print_all(tep, r, 3);
	result(!strstr(out, "<user stack>") &&
	       strstr(out, "nr=2\n => 0x401000\n => 0x401100") != NULL,
	       "unwind_deferred:merge=0 prints the user stack alone");
	free(out);
	tep_plugin_add_option("unwind_deferred:merge", "1");

	tep_unload_plugins(pl, tep);
	ks = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
	result(ks && ks->handler == NULL,
	       "unloading restores the handlers it wrapped");
	/*
	 * Without the plugin, libtraceevent prints the records with their
	 * print formats: the kernel frames named, the user frames as the
	 * libtraceevent's __print_array() prints them (decimal before 1.8)
	 */
	ustack_want = "cookie=0xe1 pid=100 tgid=100 flags=0x0 depth=2 frames=";
	out = info(tep, r[1]);
	result(strcmp(out, "cookie=0xe1 flags=0x0 kernel=ftrace_syscall_enter,"
		      "syscall_trace_enter,do_syscall_64,"
		      "entry_SYSCALL_64_after_hwframe,0x0,0x0,0x0,0x0") == 0,
	       "after unloading a cookie prints with its own format (\"%s\")",
	       out);
	free(out);
	out = info(tep, r[2]);
	result(strncmp(out, ustack_want, strlen(ustack_want)) == 0,
	       "after unloading a user stack prints with its own format (\"%s\")",
	       out);
	free(out);
	free_recs(r, 3);
	tep_free(tep);
}

static void test_two_handles(void)
{
	struct tep_handle *t1 = new_tep(), *t2 = new_tep();
	struct tep_plugin_list *p1 = tep_load_plugins(t1);
	struct tep_plugin_list *p2 = tep_load_plugins(t2);
	struct rec *r[3];
	char *a, *b;

	entry(r, 100, 0, 1000, 0xf1);
	r[2] = mk_defer(100, 0, 2000, 0xf1, 1);
	free(info(t1, r[0]));
	free(info(t1, r[1]));
	b = info(t2, r[2]);
	a = info(t1, r[2]);
	result(strstr(a, "events=1") && strstr(b, "no pending event"),
	       "two handles keep separate state");
	free(a);
	free(b);
	free_recs(r, 3);
	tep_unload_plugins(p2, t2);
	tep_unload_plugins(p1, t1);
	tep_free(t2);
	tep_free(t1);
}

/*
 * A reader that loads plugins before it parses the formats, as
 * libtracecmd does: the wrappers go in at the first record of this
 * plugin's own events.  Without libtracecmd's sub-buffers (records built
 * here) the event printed before that is not seen; the ones after are.
 */
static void test_loaded_first(void)
{
	struct tep_handle *tep = alloc_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *r[5];
	char *out;

	parse_formats(tep);
	entry(r, 100, 0, 1000, 0x71);
	entry(r + 2, 100, 0, 2000, 0x71);
	r[4] = mk_defer(100, 0, 3000, 0x71, 1);
	r[1]->r.priv = r[1];	/* not a libtracecmd record: not looked at */
	out = print_all(tep, r, 5);
	result(strstr(out, "events=2\n (event not seen) [000] ") &&
	       count(out, "\n sys_enter_getppid [000] ") == 1,
	       "loaded before the formats, no libtracecmd: wrapped at the first cookie");
	if (failures)
		fputs(out, stdout);
	free(out);
	free_recs(r, 5);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

static void test_prerelease(void)
{
	struct tep_handle *tep = alloc_tep();
	struct tep_plugin_list *pl;
	struct rec *r[5];
	char *out;

	parse_fmt(tep, "ftrace_kernel_stack", "ftrace");
	parse_fmt(tep, "syscalls_sys_enter_getppid", "syscalls");
	if (tep_parse_event(tep, old_cookie_fmt, strlen(old_cookie_fmt),
			    "unwind") ||
	    tep_parse_event(tep, old_defer_fmt, strlen(old_defer_fmt),
			    "unwind")) {
		fprintf(stderr, "cannot parse the pre-release formats\n");
		exit(2);
	}
	tep_parse_kallsyms(tep, kallsyms);
	pl = tep_load_plugins(tep);

	r[0] = mk_enter(100, 0, 1000);
	r[1] = mk_kstack(100, 0, 1010);
	r[2] = mk(ID_OLD_COOKIE, 100, 0, 1020, 16);
	put(r[2], 8, 0x61, 8);
	r[3] = mk(ID_OLD_DEFER, 100, 0, 2000, 28 + 8);
	put(r[3], 8, 0x61, 8);
	put(r[3], 16, 100, 4);
	put(r[3], 24, 28 | (8 << 16), 4);
	put(r[3], 28, 0x401000, 8);
	r[4] = mk(ID_OLD_COOKIE, 100, 0, 3000, 16);
	put(r[4], 8, 0x62, 8);
	out = print_all(tep, r, 5);
	result(count(out, "[unwind_deferred: pre-release unwind:* record format: record the trace again]") == 1 &&
	       !strstr(out, "[event") && !strstr(out, "events="),
	       "pre-release unwind:* records: one line, nothing merged");
	if (failures)
		fputs(out, stdout);
	free(out);
	free_recs(r, 5);
	tep_unload_plugins(pl, tep);
	tep_free(tep);
}

static void test_bounds(void)
{
	struct tep_handle *tep = new_tep();
	struct tep_plugin_list *pl = tep_load_plugins(tep);
	struct rec *r[2 * 10 + 1];
	char *out;
	int i;

	tep_plugin_add_option("unwind_deferred:max_pending", "3");
	for (i = 0; i < 10; i++)
		entry(r + 2 * i, 100 + i, 0, 1000 + 100 * i, 0x100 + i);
	r[20] = mk_defer(109, 1, 5000, 0x109, 1);
	out = print_all(tep, r, 21);
	result(count(out, "evicted cookie") == 7 &&
	       strstr(out, "max_pending=3 reached") &&
	       strstr(out, "events=1"),
	       "max_pending=3: the 7 oldest of 10 cookies evicted, newest kept");
	free(out);
	tep_plugin_add_option("unwind_deferred:max_pending", "4096");

	/* a record shorter than its format: no read past the end */
	r[0]->r.size = 10;
	r[1]->r.size = 9;
	r[3]->r.size = 22;
	r[20]->r.size = 20;
	out = print_all(tep, r, 4);
	result(strstr(out, "[unwind_deferred: bad or missing kernel array]") != NULL,
	       "a cookie record cut inside its kernel array gives an error marker");
	free(out);
	out = info(tep, r[20]);
	result(strstr(out, "[unwind_deferred:") != NULL,
	       "short records give an error marker");
	free(out);
	free_recs(r, 21);
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
	test_front_to_back();
	test_kstack_between();
	test_flags();
	test_trampoline();
	test_twice_and_reorder();
	test_option_and_unload();
	test_two_handles();
	test_loaded_first();
	test_prerelease();
	test_bounds();
	test_stock_print_fmt();
	printf("harness: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
