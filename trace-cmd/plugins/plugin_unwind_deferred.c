// SPDX-License-Identifier: LGPL-2.1
/*
 * libtraceevent plugin for deferred user space stack traces.
 *
 * The kernel writes, right after each event that asks for a deferred user
 * stack, on the event's CPU and with its common_pid:
 *
 *   ftrace:user_stack_cookie     u64 cookie; unsigned int flags;
 *                                __data_loc unsigned long[] kernel;
 *
 * (the kernel stack of the event, empty when none was asked for; flags
 * bit 0: no user stack will follow for it), and later, possibly on
 * another CPU, exactly one per (instance, cookie):
 *
 *   ftrace:user_stack_deferred   u64 cookie; int tgid; unsigned int flags;
 *                                unsigned int depth;
 *                                __data_loc unsigned long[] frames;
 *
 * (flags bit 0: truncated, bit 1: late, bit 2: frames by frame
 * pointers, bit 3: frames by SFrame; depth: the frames the unwinder
 * found).  Documentation/contract.md, section 2, is the reference.
 * The unwinder is shown only when SFrame took part (" [sframe]",
 * " [sframe+fp]"): no mark is frame pointers, or a kernel that does not
 * say.
 *
 * This plugin prints both records readably and, for a reader that goes
 * front to back (trace-cmd report), prints at each user_stack_deferred
 * the stacks of every event that asked for that cookie, in the layout of
 * trace-cmd report with our series: a line naming the event, its kernel
 * stack (from its cookie record), then its user stack, named from the
 * maps saved in the trace file (see get_syms()).
 *
 * How the event before a cookie is seen: libtraceevent calls a plugin
 * only for the events it registered a handler for.  To learn the name of
 * the event that asked, the plugin wraps the print handler of every event
 * of the tep handle (the wrapper notes the record, then calls the handler
 * that was there before, or lets libtraceevent print the event as usual).
 * A reader that parses the formats before it loads plugins gets the
 * wrappers at once.  libtracecmd (trace-cmd, KernelShark) loads plugins
 * before it reads the formats, so the wrapping happens at the first call
 * of one of this plugin's own handlers: the records printed before that
 * are not seen.  For a cookie record whose CPU had no record seen before
 * it (those, or records after lost events), the plugin then looks at the
 * cookie's own ring-buffer sub-buffer, which libtracecmd keeps in memory
 * for each record it returns, for the event just before it.
 *
 * The join itself is libustack's (libustack/src/join.c, linked
 * in statically, its symbols hidden): every record this plugin sees goes
 * to ustack_join_add_record(), and the events it delivers while a record
 * is fed are printed with that record.  Matching is by (pid, cookie),
 * never by CPU order.  Memory is bounded by the join's limits: at most
 * max_pending cookies and max_events asking events wait; the oldest
 * cookies are evicted first and the eviction is printed.
 *
 * The pre-release unwind:user_stack_cookie and unwind:user_stack_deferred
 * records are not read: the first one says so in one line.
 *
 * Options (trace-cmd report -O unwind_deferred:NAME=VALUE):
 *   merge        print merged stacks (default 1)
 *   max_pending  cookies kept while waiting for their user stack (4096)
 *   max_events   asking events kept for those cookies (65536)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <trace-seq.h>
#include <event-utils.h>
#include <kbuffer.h>

#include "ustack.h"

#define UD_ALIAS		"unwind_deferred"
#define UD_MAX_EVENT_FRAMES	512	/* kernel frames printed per cookie */
#define UD_MAX_CPUS		65536
#define UD_MAX_SUBBUF_EVENTS	65536	/* bound of a sub-buffer walk */

#define UD_PRERELEASE_MSG \
	"[unwind_deferred: pre-release unwind:* record format: record the trace again]"

struct tep_plugin_option TEP_PLUGIN_OPTIONS[] = {
	{
		.name = "merge",
		.plugin_alias = UD_ALIAS,
		.description =
		"Print at each user_stack_deferred the merged stacks (kernel frames then user frames) of the events that asked",
		.set = 1,
	},
	{
		.name = "max_pending",
		.plugin_alias = UD_ALIAS,
		.description =
		"Cookies kept while waiting for their user stack (oldest evicted first)",
		.value = "4096",
	},
	{
		.name = "max_events",
		.plugin_alias = UD_ALIAS,
		.description =
		"Asking events kept for pending cookies (oldest cookies evicted first)",
		.value = "65536",
	},
	{
		.name = "file",
		.plugin_alias = UD_ALIAS,
		.description =
		"The trace.dat whose saved maps name the user frames (default: the one trace file this process has open)",
		.value = "",	/* a value, not a boolean, for libtraceevent */
	},
	{
		.name = "symdir",
		.plugin_alias = UD_ALIAS,
		.description =
		"A directory searched for the traced binaries (besides the trace file's own)",
		.value = "",
	},
	{
		.name = NULL,
	}
};

static struct tep_plugin_option *opt_merge = &TEP_PLUGIN_OPTIONS[0];
static struct tep_plugin_option *opt_max_pending = &TEP_PLUGIN_OPTIONS[1];
static struct tep_plugin_option *opt_max_events = &TEP_PLUGIN_OPTIONS[2];
static struct tep_plugin_option *opt_file = &TEP_PLUGIN_OPTIONS[3];
static struct tep_plugin_option *opt_symdir = &TEP_PLUGIN_OPTIONS[4];

enum ud_role {
	UD_OTHER,	/* an event that may ask */
	UD_KSTACK,	/* ftrace:kernel_stack: never asks, may sit between */
	UD_COOKIE,
	UD_DEFERRED,
	UD_PRERELEASE,	/* unwind:user_stack_cookie, unwind:user_stack_deferred */
	UD_UNKNOWN,	/* a record of no known event */
};

/* An event the join delivered while one record was fed: a copy. */
struct ud_del {
	int			event_id;	/* -1: not seen */
	int			cpu;
	int			pid;
	int			tgid;		/* -1: no user stack came */
	unsigned long long	ts;
	unsigned long long	cookie;
	enum ustack_status	status;
	unsigned int		flags;
	unsigned int		depth;
	unsigned int		unwinder;	/* USTACK_UNWINDER_* */
	int			nr_k;
	int			nr_u;
	unsigned long long	*frames;	/* nr_k kernel, then nr_u user */
};

/* What was last seen on one CPU. */
struct ud_cpu {
	unsigned long long	last_ts;
	int			seen;
	/* the record before the current one was seen */
	int			prev_known;
};

struct ud_state;

/* The wrapper put around an event's handler. */
struct ud_wrap {
	struct ud_wrap		*next;
	struct ud_state		*st;
	struct tep_event	*event;
	enum ud_role		role;
	tep_event_handler_func	orig;
	void			*orig_ctx;
};

/* libtracecmd's tracecmd_record_page(), when the process has it */
typedef void *(*ud_record_page_func)(void *handle, struct tep_record *record);

/* Per tep handle. */
struct ud_state {
	struct ud_state		*next;
	struct tep_handle	*tep;
	int			scanned;
	/* loaded before the formats were parsed (libtracecmd) */
	int			late;
	ud_record_page_func	record_page;
	int			prerelease_said;
	struct ud_wrap		*wraps;
	struct ud_cpu		**cpus;
	int			nr_cpus;
	/* libustack's join; join_failed: the formats are not its */
	struct ustack_join	*join;
	int			join_failed;
	/* what the join delivered while the current record was fed */
	struct ud_del		*dels;
	int			nr_dels;
	int			max_dels;
	int			del_err;
	unsigned long		evicted;
	unsigned long		resets;
	/* the last record seen, to ignore it when printed again */
	int			have_last;
	int			last_cpu;
	unsigned long long	last_offset;
	unsigned long long	last_ts;
	/* the names of user frames: the trace file's maps, its binaries */
	int			syms_tried;
	struct ustack_file	*file;
	struct ustack_syms	*syms;
	/* the trace file opened last when this handle was made */
	char			*own_file;
	/* the report option that hides records (--cpu, -F, -I, -S), the
	 * stack records shown, and whether they are counted (count_hidden()) */
	const char		*hiding;
	unsigned long long	stack_records;
	int			hidden_counted;
};

static struct ud_state *states;

static int ud_first(struct trace_seq *s, struct tep_record *record,
		    struct tep_event *event, void *context);

/*
 * Two copies of this plugin may be found (the system directory and
 * TRACEEVENT_PLUGIN_DIR).  libtraceevent loads plugins RTLD_GLOBAL, so a
 * copy finds the first one's claim function and asks it.  Only the first
 * copy loaded for a tep handle does any work.
 */
int unwind_deferred_plugin_claim(struct tep_handle *tep, int claim);

int unwind_deferred_plugin_claim(struct tep_handle *tep, int claim)
{
	struct ud_state *st;

	for (st = states; st; st = st->next)
		if (st->tep == tep)
			return 1;
	if (!claim)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->tep = tep;
	st->next = states;
	states = st;
	return 0;
}

static struct ud_state *find_state(struct tep_handle *tep)
{
	struct ud_state *st;

	for (st = states; st; st = st->next)
		if (st->tep == tep)
			return st;
	return NULL;
}

static unsigned long opt_ulong(struct tep_plugin_option *op,
			       unsigned long def, unsigned long min)
{
	unsigned long v;
	char *end;

	if (!op->value)
		return def;
	v = strtoul(op->value, &end, 0);
	if (end == op->value || *end)
		return def;
	return v < min ? min : v;
}

static enum ud_role event_role(struct tep_event *event)
{
	if (!event || !event->system || !event->name)
		return UD_UNKNOWN;
	if (!strcmp(event->system, USTACK_RECORD_SYSTEM)) {
		if (!strcmp(event->name, "kernel_stack"))
			return UD_KSTACK;
		if (!strcmp(event->name, USTACK_RECORD_COOKIE))
			return UD_COOKIE;
		if (!strcmp(event->name, USTACK_RECORD_STACK))
			return UD_DEFERRED;
	}
	if (!strcmp(event->system, "unwind") &&
	    (!strcmp(event->name, USTACK_RECORD_COOKIE) ||
	     !strcmp(event->name, USTACK_RECORD_STACK)))
		return UD_PRERELEASE;
	return UD_OTHER;
}

/* ------------------------------------------------------------------ */
/* The join. */

static void dels_clear(struct ud_state *st)
{
	int i;

	for (i = 0; i < st->nr_dels; i++)
		free(st->dels[i].frames);
	st->nr_dels = 0;
	st->del_err = 0;
}

/* The join's callback: keep a copy, printed with the record being fed. */
static int ud_deliver(const struct ustack_event *ev, void *data)
{
	struct ud_state *st = data;
	struct ud_del *d;
	int n;

	/* a kernel_stack without cookie is not this plugin's to print */
	if (ev->status == USTACK_NO_COOKIE)
		return 0;
	if (st->nr_dels == st->max_dels) {
		n = st->max_dels ? 2 * st->max_dels : 16;
		d = realloc(st->dels, n * sizeof(*d));
		if (!d) {
			st->del_err = 1;
			return 0;
		}
		st->dels = d;
		st->max_dels = n;
	}
	d = &st->dels[st->nr_dels];
	memset(d, 0, sizeof(*d));
	n = ev->nr_kernel + ev->nr_user;
	if (n) {
		d->frames = malloc(n * sizeof(*d->frames));
		if (!d->frames) {
			st->del_err = 1;
			return 0;
		}
		if (ev->nr_kernel)
			memcpy(d->frames, ev->kernel,
			       ev->nr_kernel * sizeof(*d->frames));
		if (ev->nr_user)
			memcpy(d->frames + ev->nr_kernel, ev->user,
			       ev->nr_user * sizeof(*d->frames));
	}
	d->event_id = ev->event && !(ev->flags & USTACK_EV_UNSEEN) ?
		ev->event->id : -1;
	d->cpu = ev->cpu;
	d->pid = ev->pid;
	d->tgid = ev->tgid;
	d->ts = ev->ts;
	d->cookie = ev->cookie;
	d->status = ev->status;
	d->flags = ev->flags;
	d->depth = ev->depth;
	d->unwinder = ev->unwinder;
	d->nr_k = ev->nr_kernel;
	d->nr_u = ev->nr_user;
	st->nr_dels++;
	return 0;
}

/* The join of this handle, made when the formats are there. */
static struct ustack_join *get_join(struct ud_state *st)
{
	unsigned long max_pending = opt_ulong(opt_max_pending, 4096, 1);
	unsigned long max_events = opt_ulong(opt_max_events, 65536, 1);

	if (st->join || st->join_failed)
		return st->join;
	/* pre-release records: said once on the report, nothing to join */
	if (ustack_record_prerelease(st->tep)) {
		st->join_failed = 1;
		return NULL;
	}
	st->join = ustack_join_alloc(st->tep, ud_deliver, st);
	if (!st->join || ustack_join_set_flags(st->join,
					       USTACK_JOIN_UNSEEN_EVENTS)) {
		ustack_join_free(st->join);
		st->join = NULL;
		st->join_failed = 1;
		return NULL;
	}
	ustack_join_set_limits(st->join, max_pending, max_events, 0);
	return st->join;
}

/* Feed one record; what it completes is in st->dels. */
static void feed(struct ud_state *st, struct tep_record *record)
{
	struct ustack_join *join = get_join(st);

	dels_clear(st);
	if (join)
		ustack_join_add_record(join, record);
}

static struct ud_cpu *get_cpu(struct ud_state *st, int cpu)
{
	struct ud_cpu **n;
	int nr;

	if (cpu < 0 || cpu >= UD_MAX_CPUS)
		return NULL;
	if (cpu >= st->nr_cpus) {
		nr = cpu + 1;
		n = realloc(st->cpus, nr * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + st->nr_cpus, 0, (nr - st->nr_cpus) * sizeof(*n));
		st->cpus = n;
		st->nr_cpus = nr;
	}
	if (!st->cpus[cpu]) {
		st->cpus[cpu] = calloc(1, sizeof(struct ud_cpu));
		if (!st->cpus[cpu])
			return NULL;
	}
	return st->cpus[cpu];
}

/* Forget everything: the records are not being read front to back. */
static void reset_state(struct ud_state *st)
{
	int i;

	ustack_join_free(st->join);
	st->join = NULL;
	dels_clear(st);
	for (i = 0; i < st->nr_cpus; i++) {
		free(st->cpus[i]);
		st->cpus[i] = NULL;
	}
	st->resets++;
}

/*
 * The event just before @record in its ring-buffer sub-buffer, for a
 * cookie record whose CPU had no record seen before it.  Only for the
 * records of libtracecmd, which loads plugins before it reads the formats
 * (st->late) and keeps the sub-buffer of each record it returns in memory
 * (tracecmd_record_page()).  The walk must reach @record's own data, or
 * nothing is taken from it.  When an event of @record's task is just
 * before it (kernel_stack records of that task may sit between), that
 * event is fed to the join first, so that the cookie finds it.
 */
static void subbuf_asker(struct ud_state *st, struct tep_handle *tep,
			 struct tep_record *record)
{
	unsigned long long t, rec_t = 0, ev_t = 0;
	int cand = 0, cand_pid = 0, found = 0, n, pid;
	struct tep_record r, ask;
	void *page, *data, *cand_data = NULL;
	int cand_size = 0;
	struct tep_event *ev;
	struct kbuffer *kbuf;

	if (!st->late || !st->record_page || !record->priv || !record->data)
		return;
	page = st->record_page(NULL, record);
	if (!page)
		return;
	kbuf = tep_kbuffer(tep);
	if (!kbuf)
		return;
	if (tep_is_old_format(tep))
		kbuffer_set_old_format(kbuf);
	if (kbuffer_load_subbuffer(kbuf, page) < 0)
		goto out;
	memset(&r, 0, sizeof(r));
	data = kbuffer_read_event(kbuf, &t);
	for (n = 0; data && n < UD_MAX_SUBBUF_EVENTS; n++) {
		if (data == record->data) {
			found = 1;
			rec_t = t;
			break;
		}
		r.data = data;
		r.size = kbuffer_event_size(kbuf);
		ev = r.size >= 8 ? tep_find_event(tep, tep_data_type(tep, &r)) :
			NULL;
		switch (event_role(ev)) {
		case UD_OTHER:
			cand = 1;
			cand_pid = tep_data_pid(tep, &r);
			cand_data = data;
			cand_size = r.size;
			ev_t = t;
			break;
		case UD_KSTACK:
			if (cand && tep_data_pid(tep, &r) != cand_pid)
				cand = 0;
			break;
		default:
			cand = 0;
			break;
		}
		data = kbuffer_next_event(kbuf, &t);
	}
	pid = tep_data_pid(tep, record);
	if (found && cand && cand_pid == pid) {
		memset(&ask, 0, sizeof(ask));
		ask.data = cand_data;
		ask.size = cand_size;
		ask.record_size = cand_size;
		ask.cpu = record->cpu;
		/* record->ts is the reader's time (offsets, clocks): keep the gap */
		ask.ts = record->ts - (rec_t >= ev_t ? rec_t - ev_t : 0);
		ask.ref_count = 1;
		feed(st, &ask);
	}
out:
	kbuffer_free(kbuf);
}

/*
 * Note one record in the per-CPU state.  Returns the CPU state, or NULL
 * when the record is not part of a front-to-back read (seen again, or
 * out of order), in which case it is not fed to the join.
 */
static struct ud_cpu *track(struct ud_state *st, struct tep_record *record)
{
	struct ud_cpu *c = get_cpu(st, record->cpu);

	if (!c)
		return NULL;
	if (st->have_last && record->cpu == st->last_cpu &&
	    record->offset == st->last_offset && record->ts == st->last_ts)
		return NULL;	/* the same record printed again */
	st->have_last = 1;
	st->last_cpu = record->cpu;
	st->last_offset = record->offset;
	st->last_ts = record->ts;
	if (c->seen) {
		if (record->ts < c->last_ts) {
			/* not front to back (e.g. a GUI): start over */
			reset_state(st);
			c = get_cpu(st, record->cpu);
			if (!c)
				return NULL;
		}
	}
	/* lost records before this one on this CPU: not known */
	c->prev_known = c->seen && !record->missed_events;
	c->seen = 1;
	c->last_ts = record->ts;
	return c;
}

/* ------------------------------------------------------------------ */
/* Printing. */

/* A kernel frame of a cookie record, as kernel_stack prints them */
static void print_kframe(struct trace_seq *s, struct tep_handle *tep,
			 unsigned long long addr)
{
	const char *func = tep_find_function(tep, addr);

	if (addr == USTACK_FTRACE_TRAMPOLINE)
		trace_seq_printf(s, "=> %s (%llx)\n", USTACK_TRAMPOLINE_TEXT,
				 addr);
	else if (func)
		trace_seq_printf(s, "=> %s (%llx)\n", func, addr);
	else
		trace_seq_printf(s, "=> %llx\n", addr);
}

/*
 * The one trace file this process has open (trace-cmd report keeps the
 * file it reads open), found by trace-cmd's magic at its start.  NULL
 * when there is none, or more than one (report -i A -i B).
 */
static char *find_trace_file(void)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				      'i', 'n', 'g' };
	char link[64], path[PATH_MAX], head[sizeof(magic)];
	char *found = NULL;
	struct dirent *de;
	struct stat st;
	ssize_t n;
	DIR *dir;
	int fd;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return NULL;
	while ((de = readdir(dir))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd == dirfd(dir))
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    pread(fd, head, sizeof(head), 0) != sizeof(head) ||
		    memcmp(head, magic, sizeof(magic)))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		if (found && strcmp(found, path)) {
			free(found);	/* two trace files: which one? */
			found = NULL;
			break;
		}
		if (!found)
			found = strdup(path);
	}
	closedir(dir);
	return found;
}

/*
 * The trace file with the highest descriptor: when libtracecmd loads the
 * plugins for a handle, the file it has just opened (report -i A -i B
 * opens A, loads the plugins for it, then B).
 */
static char *newest_trace_file(void)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				      'i', 'n', 'g' };
	char link[64], path[PATH_MAX], head[sizeof(magic)];
	char *found = NULL;
	struct dirent *de;
	struct stat st;
	int best = -1;
	ssize_t n;
	DIR *dir;
	int fd;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return NULL;
	while ((de = readdir(dir))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd == dirfd(dir) || fd <= best)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    pread(fd, head, sizeof(head), 0) != sizeof(head) ||
		    memcmp(head, magic, sizeof(magic)))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		free(found);
		found = strdup(path);
		best = fd;
	}
	closedir(dir);
	return found;
}

/*
 * trace-cmd report --cpu, -F, -I and -S show only some records, and a
 * plugin is called only for the records shown: the ones that complete a
 * stack (its cookie record, the user stack on another CPU) may not be.
 * The option, when this process is such a report; NULL otherwise.
 */
static const char *report_hiding_option(void)
{
	static const char *const opts[] = { "--cpu", "-F", "-I", "-S" };
	char buf[8192];
	const char *arg, *found = NULL;
	ssize_t n;
	int fd, i, report = 0;

	fd = open("/proc/self/cmdline", O_RDONLY);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (arg = buf; arg < buf + n; arg += strlen(arg) + 1) {
		if (!strcmp(arg, "report"))
			report = 1;
		for (i = 0; report && !found && i < 4; i++) {
			size_t len = strlen(opts[i]);

			/* --cpu 0, --cpu=0, -F filter, -Ffilter */
			if (!strncmp(arg, opts[i], len) &&
			    (!arg[len] || arg[len] == '=' || i == 1))
				found = opts[i];
		}
	}
	return found;
}

/*
 * What a report option that hides records (--cpu, -F, -I, -S) kept from
 * this report, said once on stderr at the end, when it is known (issue 20
 * item 6).  The plugin does not read the hidden records itself (that
 * would be a second look-ahead beside the series' report: decisions.md),
 * so it says what it could not show and what shows it:
 * - no stack record was shown (-F without the stack records): the filter
 *   took them out, and adding them to -F shows the stacks, at the user
 *   stack records, as without -F;
 * - else the events shown that asked for a user stack and are still
 *   waiting for it when the report ends: their user stack record was
 *   hidden (--cpu: it landed on another CPU), or never recorded (a task
 *   that never went back to user space), which the plugin cannot tell.
 * Each handle adds its counts at unload; the line is printed at exit
 * (report -F may exit without unloading).
 */
static struct {
	const char		*option;
	unsigned long long	stack_records;
	unsigned long long	waiting;
	int			said;
} hidden;

static void count_hidden(struct ud_state *st)
{
	struct ustack_join_stats js;

	if (!st->hiding || st->hidden_counted ||
	    !tep_find_event_by_name(st->tep, USTACK_RECORD_SYSTEM,
				    USTACK_RECORD_COOKIE))
		return;
	st->hidden_counted = 1;
	hidden.option = st->hiding;
	hidden.stack_records += st->stack_records;
	if (st->join && !ustack_join_get_stats(st->join, &js))
		hidden.waiting += js.pending_events;
}

static void say_hidden_at_exit(void)
{
	struct ud_state *st;

	for (st = states; st; st = st->next)
		count_hidden(st);
	if (!hidden.option || hidden.said)
		return;
	hidden.said = 1;
	if (!hidden.stack_records && !strcmp(hidden.option, "-F"))
		fprintf(stderr,
			"unwind_deferred: report -F filtered out the stack records (%s, %s): add -F %s -F %s to see them, or use ustack or the series' trace-cmd report\n",
			USTACK_RECORD_COOKIE, USTACK_RECORD_STACK,
			USTACK_RECORD_COOKIE, USTACK_RECORD_STACK);
	else if (hidden.waiting)
		fprintf(stderr,
			"unwind_deferred: report %s: %llu events shown here asked for a user stack that this report does not show (filtered out by %s, or never recorded); ustack or the series' trace-cmd report shows them\n",
			hidden.option, hidden.waiting, hidden.option);
}

/*
 * The symbols of the user frames: libustack's, from the maps saved
 * in the trace file and the binaries next to it (or under symdir), the
 * same lookup as the ustack tool and the series' trace-cmd report.  When
 * they cannot be had, one line on stderr says why, and the user frames
 * are printed as addresses.
 */
static struct ustack_syms *get_syms(struct ud_state *st)
{
	char *path = NULL;

	if (st->syms_tried)
		return st->syms;
	st->syms_tried = 1;
	if (opt_file->value && *opt_file->value)
		path = strdup(opt_file->value);
	else if (st->own_file)
		path = strdup(st->own_file);
	else
		path = find_trace_file();
	if (!path) {
		fprintf(stderr,
			"unwind_deferred: user frames not named: which trace file? use -O unwind_deferred:file=PATH\n");
		return NULL;
	}
	st->file = ustack_file_open(path);
	st->syms = ustack_syms_alloc();
	if (!st->file || !st->syms || ustack_syms_set_file(st->syms, st->file) ||
	    (opt_symdir->value && *opt_symdir->value &&
	     ustack_syms_add_search_dir(st->syms, opt_symdir->value))) {
		fprintf(stderr,
			"unwind_deferred: user frames not named: cannot read the maps of %s\n",
			path);
		ustack_syms_free(st->syms);
		ustack_file_close(st->file);
		st->syms = NULL;
		st->file = NULL;
	}
	free(path);
	return st->syms;
}

/*
 * Which user unwinder took the stack, only when SFrame took part: no mark
 * is frame pointers, or a kernel that does not say.
 */
static void put_unwinder(struct trace_seq *s, unsigned int unwinder)
{
	if (unwinder & USTACK_UNWINDER_SFRAME)
		trace_seq_printf(s, " [%s]", ustack_unwinder_name(unwinder));
}

/*
 * A time stamp as report prints it on the event's own line: libtraceevent
 * rounds to the microsecond ("%6.1000d"), or prints nanoseconds when
 * report was asked for them (-t: TEP_NSEC_OUTPUT).
 */
static void print_ts(struct trace_seq *s, struct tep_handle *tep,
		     unsigned long long ts)
{
	unsigned long long us;

	if (tep_test_flag(tep, TEP_NSEC_OUTPUT)) {
		trace_seq_printf(s, "%llu.%09llu", ts / 1000000000ULL,
				 ts % 1000000000ULL);
		return;
	}
	us = (ts + 500) / 1000;
	trace_seq_printf(s, "%llu.%06llu", us / 1000000ULL, us % 1000000ULL);
}

/*
 * One delivered event, in the layout of trace-cmd report with the
 * series: a line naming the event (it was printed before: the user stack
 * comes after it), then its stacks, as libustack prints them.
 */
static void print_del(struct ud_state *st, struct trace_seq *s,
		      const struct ud_del *d, struct ustack_syms *syms)
{
	struct tep_handle *tep = st->tep;
	struct ustack_event ev = {
		.tep		= tep,
		.ts		= d->ts,	/* the maps of that time */
		.tgid		= d->tgid,
		.status		= d->status,
		.nr_kernel	= d->nr_k,
		.kernel		= d->frames,
		.nr_user	= d->nr_u,
		.user		= d->frames + d->nr_k,
		.depth		= d->depth,
		.unwinder	= d->unwinder,
	};
	struct tep_event *event;

	event = d->event_id < 0 ? NULL : tep_find_event(tep, d->event_id);
	trace_seq_printf(s, " %s [%03d] ",
			 event ? event->name : "(event not seen)", d->cpu);
	print_ts(s, tep, d->ts);
	trace_seq_putc(s, '\n');
	ustack_event_print(s, &ev, syms, 0);
}

/* The events the join delivered, but for evictions; how many printed. */
static int print_dels(struct ud_state *st, struct trace_seq *s)
{
	struct ustack_syms *syms = NULL;
	int i, n = 0;

	for (i = 0; i < st->nr_dels && !syms; i++)
		if (st->dels[i].nr_u)
			syms = get_syms(st);
	for (i = 0; i < st->nr_dels; i++) {
		if (st->dels[i].flags & USTACK_EV_EVICTED)
			continue;
		print_del(st, s, &st->dels[i], syms);
		n++;
	}
	if (st->del_err)
		trace_seq_puts(s, " [unwind_deferred: out of memory]\n");
	return n;
}

static int count_dels(struct ud_state *st)
{
	int i, n = 0;

	for (i = 0; i < st->nr_dels; i++)
		if (!(st->dels[i].flags & USTACK_EV_EVICTED))
			n++;
	return n;
}

/* The cookies the join evicted to stay within its limits, one note each */
static void print_evictions(struct ud_state *st, struct trace_seq *s)
{
	unsigned long max_pending = opt_ulong(opt_max_pending, 4096, 1);
	unsigned long max_events = opt_ulong(opt_max_events, 65536, 1);
	struct ustack_join_stats js;
	const struct ud_del *d, *prev = NULL;
	int i, cookies;

	if (!st->join || ustack_join_get_stats(st->join, &js))
		return;
	cookies = js.pending_cookies >= max_pending;
	for (i = 0; i < st->nr_dels; i++) {
		d = &st->dels[i];
		if (!(d->flags & USTACK_EV_EVICTED))
			continue;
		if (prev && prev->pid == d->pid && prev->cookie == d->cookie)
			continue;
		prev = d;
		st->evicted++;
		trace_seq_printf(s,
			" [unwind_deferred: evicted cookie 0x%llx of pid %d: %s=%lu reached]",
			d->cookie, d->pid,
			cookies ? "max_pending" : "max_events",
			cookies ? max_pending : max_events);
	}
}

static int print_cookie(struct ud_state *st, struct trace_seq *s,
			struct tep_record *record, struct tep_event *event,
			struct ud_cpu *c)
{
	unsigned long long frames[UD_MAX_EVENT_FRAMES];
	struct tep_handle *tep = event->tep;
	struct ustack_record rec;
	int i, nr, n;

	nr = ustack_record_parse(event, record, &rec, frames,
				 UD_MAX_EVENT_FRAMES);
	if (nr < 0) {
		trace_seq_puts(s, "[unwind_deferred: no cookie field] ");
		return 1;	/* and the event's own print format */
	}

	trace_seq_printf(s, "cookie=0x%llx kernel=%d", rec.cookie, nr);
	if (rec.nr < 0)
		trace_seq_puts(s, " [unwind_deferred: bad or missing kernel array]");
	if (rec.flags & USTACK_COOKIE_NO_USER_STACK)
		trace_seq_puts(s, " (no user stack)");
	if (!c)
		goto frames;

	if (!c->prev_known)
		subbuf_asker(st, tep, record);
	feed(st, record);
	print_evictions(st, s);
	n = count_dels(st);
	if (n && opt_merge->set) {
		/*
		 * Complete at once: no user stack will come, or it came
		 * already (a late request in the same kernel entry)
		 */
		if (!(rec.flags & USTACK_COOKIE_NO_USER_STACK) &&
		    st->dels[0].status != USTACK_LOST)
			trace_seq_puts(s, " (after its user stack)");
		trace_seq_printf(s, " events=%d\n", n);
		print_dels(st, s);
		dels_clear(st);
		return 0;
	}
	dels_clear(st);
frames:
	trace_seq_putc(s, '\n');
	for (i = 0; i < nr; i++)
		print_kframe(s, tep, frames[i]);
	return 0;
}

static int print_deferred(struct ud_state *st, struct trace_seq *s,
			  struct tep_record *record, struct tep_event *event,
			  struct ud_cpu *c)
{
	struct tep_handle *tep = event->tep;
	struct ustack_event ev = { .tep = tep };
	unsigned long long *ufr = NULL;
	struct ustack_record rec;
	int nr, n = 0, truncated;

	if (ustack_record_parse(event, record, &rec, NULL, 0) < 0) {
		trace_seq_puts(s, "[unwind_deferred: no cookie field] ");
		return 1;
	}
	if (c)
		feed(st, record);
	if (rec.nr < 0) {
		/* the join skipped it: what waited for it stays pending */
		trace_seq_printf(s,
			"cookie=0x%llx tgid=%d [unwind_deferred: bad or missing frames array]",
			rec.cookie, rec.tgid);
		dels_clear(st);
		return 0;
	}
	nr = rec.nr;
	if (nr) {
		ufr = malloc(nr * sizeof(*ufr));
		if (!ufr) {
			trace_seq_printf(s, "cookie=0x%llx [unwind_deferred: out of memory]",
					 rec.cookie);
			dels_clear(st);
			return 0;
		}
		ustack_record_parse(event, record, &rec, ufr, nr);
	}
	truncated = !!(rec.flags & USTACK_STACK_TRUNCATED);

	trace_seq_printf(s, "cookie=0x%llx tgid=%d nr=%d", rec.cookie,
			 rec.tgid, nr);
	if (truncated || rec.depth != (unsigned long long)nr)
		trace_seq_printf(s, " depth=%llu", rec.depth);
	if (truncated)
		trace_seq_puts(s, " (truncated)");
	if (rec.flags & USTACK_STACK_LATE)
		trace_seq_puts(s, " (late)");
	if (!nr)
		trace_seq_puts(s, " empty (user unwind failed)");
	put_unwinder(s, rec.unwinder);

	if (c)
		n = count_dels(st);
	if (n && opt_merge->set) {
		trace_seq_printf(s, " events=%d\n", n);
		print_dels(st, s);
	} else {
		trace_seq_putc(s, '\n');
		if (opt_merge->set && c && !st->join_failed && st->hiding)
			trace_seq_printf(s,
				" (no event shown for this cookie: report %s may hide its cookie record)\n",
				st->hiding);
		else if (opt_merge->set && c && !st->join_failed)
			trace_seq_printf(s,
				" (no pending event for this cookie: its cookie record was not seen%s)\n",
				st->evicted ? ", was overwritten, or was evicted" :
				" or was overwritten");
		/* named as in the merged stacks (plugin.md), merge=0 too,
		 * in the maps of the stack's time (before an exec, the
		 * kernel writes it before the exec) */
		ev.ts = record->ts;
		ev.tgid = rec.tgid;
		ev.nr_user = nr;
		ev.user = ufr;
		if (nr)
			ustack_event_print(s, &ev, get_syms(st),
					   USTACK_PRINT_FRAMES);
	}
	dels_clear(st);
	free(ufr);
	return 0;
}

/* unwind:* records of the pre-release format: say so, once */
static int print_prerelease(struct ud_state *st, struct trace_seq *s)
{
	if (st->prerelease_said)
		return 1;	/* the event's own print format */
	st->prerelease_said = 1;
	trace_seq_puts(s, UD_PRERELEASE_MSG);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Wrapping the handlers of all events. */

static int ud_wrap(struct trace_seq *s, struct tep_record *record,
		   struct tep_event *event, void *context)
{
	struct ud_wrap *w = context;
	struct ud_state *st = w->st;
	struct ud_cpu *c = track(st, record);

	switch (w->role) {
	case UD_OTHER:
	case UD_UNKNOWN:
	case UD_KSTACK:
		/* an event that may ask, or the stacktrace option's stack */
		if (c) {
			feed(st, record);
			dels_clear(st);
		}
		break;
	case UD_COOKIE:
		st->stack_records++;
		return print_cookie(st, s, record, event, c);
	case UD_DEFERRED:
		st->stack_records++;
		return print_deferred(st, s, record, event, c);
	case UD_PRERELEASE:
		return print_prerelease(st, s);
	}
	if (w->orig && w->orig != ud_first)
		return w->orig(s, record, event, w->orig_ctx);
	return 1;	/* libtraceevent prints it as usual */
}

/* Put the wrapper around every event's handler (once per handle). */
static void wrap_all(struct ud_state *st)
{
	struct tep_event *event;
	struct ud_wrap *w;
	int i, n;

	n = tep_get_events_count(st->tep);
	for (i = 0; i < n; i++) {
		event = tep_get_event(st->tep, i);
		if (!event || event->handler == ud_wrap)
			continue;
		w = calloc(1, sizeof(*w));
		if (!w)
			return;
		w->st = st;
		w->event = event;
		w->role = event_role(event);
		w->orig = event->handler;
		w->orig_ctx = event->context;
		w->next = st->wraps;
		st->wraps = w;
		event->handler = ud_wrap;
		event->context = w;
	}
	st->scanned = 1;
}

static void unwrap_all(struct ud_state *st)
{
	struct ud_wrap *w;

	while ((w = st->wraps)) {
		st->wraps = w->next;
		if (w->event->handler == ud_wrap && w->event->context == w) {
			w->event->handler = w->orig;
			w->event->context = w->orig_ctx;
		}
		free(w);
	}
}

/*
 * The handler registered for the events this plugin knows.  Its first
 * call wraps every event; then the record goes to the wrapper.
 */
static int ud_first(struct trace_seq *s, struct tep_record *record,
		    struct tep_event *event, void *context)
{
	struct ud_state *st = context;

	if (!st->scanned)
		wrap_all(st);
	if (event->handler == ud_wrap)
		return ud_wrap(s, record, event, event->context);
	return 1;
}

static const char *const ud_events[][2] = {
	{ "ftrace", "user_stack_cookie" },
	{ "ftrace", "user_stack_deferred" },
	{ "unwind", "user_stack_cookie" },	/* pre-release */
	{ "unwind", "user_stack_deferred" },	/* pre-release */
};

typedef int (*ud_claim_func)(struct tep_handle *tep, int claim);

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	ud_claim_func claim;
	struct ud_state *st;
	unsigned int i;

	/* the first copy of this plugin loaded owns the handle */
	claim = (ud_claim_func)dlsym(RTLD_DEFAULT,
				     "unwind_deferred_plugin_claim");
	if (claim && claim != unwind_deferred_plugin_claim) {
		if (claim(tep, 0)) {
			tep_warning("unwind_deferred: another copy of the plugin is loaded; this one is not used\n");
			return 0;
		}
	}
	if (unwind_deferred_plugin_claim(tep, 1))
		return 0;
	st = find_state(tep);
	if (!st)
		return -1;
	st->own_file = newest_trace_file();
	st->hiding = report_hiding_option();
	if (st->hiding) {
		static int registered;

		if (!registered++)
			atexit(say_hidden_at_exit);
	}

	for (i = 0; i < sizeof(ud_events) / sizeof(ud_events[0]); i++)
		tep_register_event_handler(tep, -1, ud_events[i][0],
					   ud_events[i][1], ud_first, st);
	tep_plugin_add_options(UD_ALIAS, TEP_PLUGIN_OPTIONS);

	/* formats already parsed (not libtracecmd): wrap now */
	if (tep_get_events_count(tep) > 0) {
		wrap_all(st);
	} else {
		st->late = 1;
		st->record_page = (ud_record_page_func)
			dlsym(RTLD_DEFAULT, "tracecmd_record_page");
	}
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	struct ud_state **p, *st;
	unsigned int i;
	int c;

	for (p = &states; *p; p = &(*p)->next)
		if ((*p)->tep == tep)
			break;
	st = *p;
	if (!st)
		return;
	*p = st->next;

	count_hidden(st);
	unwrap_all(st);
	for (i = 0; i < sizeof(ud_events) / sizeof(ud_events[0]); i++)
		tep_unregister_event_handler(tep, -1, ud_events[i][0],
					     ud_events[i][1], ud_first, st);
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);

	ustack_join_free(st->join);
	ustack_syms_free(st->syms);
	ustack_file_close(st->file);
	free(st->own_file);
	dels_clear(st);
	free(st->dels);
	for (c = 0; c < st->nr_cpus; c++)
		free(st->cpus[c]);
	free(st->cpus);
	free(st);
}
