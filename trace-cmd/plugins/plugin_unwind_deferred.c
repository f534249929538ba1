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
 *
 * This plugin prints both records readably and, for a reader that goes
 * front to back (trace-cmd report), prints at each user_stack_deferred
 * the stacks of every event that asked for that cookie: a line naming
 * the event, then its block as libustack's ustack_event_print() prints
 * it (the series' report's layout), its user frames named from the maps
 * saved in the trace file.  The join is libustack's (linked in
 * statically, its symbols hidden); the plugin keeps no pending table.
 *
 * How it is written: as libtraceevent's own plugins (plugin_function.c):
 * this file holds the options, a handler per record it prints,
 * registered with tep_register_event_handler(), and the loader and
 * unloader.  A print plugin sees one record at a time, of its own
 * events, and is not told its file; the merged, named stacks that stock
 * trace-cmd users get need more than that API gives, and every such
 * workaround is in plugin_unwind_deferred_host.c, one commented section
 * each, saying why and which host API would remove it.  The series'
 * trace-cmd report prints the stacks itself and never calls these
 * handlers (TEP_EVENT_FL_NOHANDLE).
 *
 * The pre-release unwind:user_stack_cookie and unwind:user_stack_deferred
 * records are not read: the first one says so in one line.
 *
 * Options (trace-cmd report -O unwind_deferred:NAME=VALUE):
 *   merge        print merged stacks (default 1)
 *   max_pending  cookies kept while waiting for their user stack (4096)
 *   max_events   asking events kept for those cookies (65536)
 *   file         the trace file whose maps name user frames
 *   symdir       a directory searched for the traced binaries
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>
#include <event-utils.h>

#include "plugin_unwind_deferred.h"

#define UD_MAX_EVENT_FRAMES	512	/* kernel frames printed per cookie */
#define UD_MAX_CPUS		65536

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
		"The trace.dat whose saved maps name the user frames (default: the trace file opened last when the plugin was loaded)",
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

/* What was last seen on one CPU. */
struct ud_cpu {
	unsigned long long	last_ts;
	int			seen;
	/* the record before the current one was seen */
	int			prev_known;
};

struct ud_state *ud_states;

struct ud_state *ud_find_state(struct tep_handle *tep)
{
	struct ud_state *st;

	for (st = ud_states; st; st = st->next)
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

enum ud_role ud_event_role(struct tep_event *event)
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
	else
		path = ud_host_trace_file(st);
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

/* ------------------------------------------------------------------ */
/* The join. */

/* A cookie the join evicted to stay within its limits: one note */
static void note_eviction(struct ud_state *st, const struct ustack_event *ev)
{
	unsigned long max_pending = opt_ulong(opt_max_pending, 4096, 1);
	unsigned long max_events = opt_ulong(opt_max_events, 65536, 1);
	struct ustack_join_stats js;
	int cookies;

	if (st->noted_pid == ev->pid && st->noted_cookie == ev->cookie)
		return;		/* the cookie's other events */
	st->noted_pid = ev->pid;
	st->noted_cookie = ev->cookie;
	st->evicted++;
	if (!st->collect || ustack_join_get_stats(st->join, &js))
		return;
	/* the cookie is out of the counts: at the limit if it was the one */
	cookies = js.pending_cookies >= max_pending;
	trace_seq_printf(&st->notes,
		" [unwind_deferred: evicted cookie 0x%llx of pid %d: %s=%lu reached]",
		ev->cookie, ev->pid, cookies ? "max_pending" : "max_events",
		cookies ? max_pending : max_events);
}

/*
 * The join's callback: an event whose stacks are complete (or lost) is
 * printed at once into st->blocks, in the layout of trace-cmd report
 * with the series: a line naming the event (it was printed before: the
 * user stack comes after it), then its stacks as libustack prints them.
 * The record being fed prints them after its own line.
 */
static int ud_deliver(const struct ustack_event *ev, void *data)
{
	struct ud_state *st = data;
	struct trace_seq *s = &st->blocks;

	/* a kernel_stack without cookie is not this plugin's to print */
	if (ev->status == USTACK_NO_COOKIE)
		return 0;
	if (ev->flags & USTACK_EV_EVICTED) {
		note_eviction(st, ev);
		return 0;
	}
	if (!st->collect)
		return 0;
	if (!st->nr_blocks++)
		st->first_status = ev->status;
	trace_seq_printf(s, " %s [%03d] ",
			 ev->event && !(ev->flags & USTACK_EV_UNSEEN) ?
			 ev->event->name : "(event not seen)", ev->cpu);
	print_ts(s, st->tep, ev->ts);
	trace_seq_putc(s, '\n');
	ustack_event_print(s, ev, ev->nr_user ? get_syms(st) : NULL, 0);
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

/*
 * Feed one record.  @collect: keep the blocks of what it completes and
 * the notes of its evictions, printed with the record.
 */
static void feed(struct ud_state *st, struct tep_record *record, int collect)
{
	struct ustack_join *join = get_join(st);

	trace_seq_reset(&st->blocks);
	trace_seq_reset(&st->notes);
	st->nr_blocks = 0;
	st->noted_pid = -1;
	st->collect = collect;
	/* the library's one feeder: the page check, then the join */
	if (join)
		ustack_feed_record(join, NULL, NULL, record);
	st->collect = 0;
}

/* The blocks of the events the last record completed */
static void put_blocks(struct ud_state *st, struct trace_seq *s)
{
	trace_seq_terminate(&st->blocks);
	if (st->blocks.state != TRACE_SEQ__GOOD)
		trace_seq_puts(s, " [unwind_deferred: out of memory]\n");
	else
		trace_seq_puts(s, st->blocks.buffer);
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
	for (i = 0; i < st->nr_cpus; i++) {
		free(st->cpus[i]);
		st->cpus[i] = NULL;
	}
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
	if (c->seen && record->ts < c->last_ts) {
		/* not front to back (e.g. a GUI): start over */
		reset_state(st);
		c = get_cpu(st, record->cpu);
		if (!c)
			return NULL;
	}
	/* lost records before this one on this CPU: not known */
	c->prev_known = c->seen && !record->missed_events;
	c->seen = 1;
	c->last_ts = record->ts;
	return c;
}

/* A record of another event (plugin_unwind_deferred_host.c, 3) */
void ud_note_record(struct ud_state *st, struct tep_record *record)
{
	if (track(st, record))
		feed(st, record, 0);
}

/* The event found just before a cookie (plugin_unwind_deferred_host.c, 4) */
void ud_feed_asker(struct ud_state *st, struct tep_record *record)
{
	feed(st, record, 0);
}

/* ------------------------------------------------------------------ */
/* The handlers. */

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

static int cookie_handler(struct trace_seq *s, struct tep_record *record,
			  struct tep_event *event, void *context)
{
	unsigned long long frames[UD_MAX_EVENT_FRAMES];
	struct ud_state *st = context;
	struct ustack_record rec;
	struct ud_cpu *c;
	int i, nr;

	ud_host_seen(st);
	c = track(st, record);
	st->stack_records++;
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
	if (c) {
		if (!c->prev_known)
			ud_host_asker(st, record);
		feed(st, record, 1);
		trace_seq_terminate(&st->notes);
		trace_seq_puts(s, st->notes.buffer);
	}
	if (c && st->nr_blocks && opt_merge->set) {
		/*
		 * Complete at once: no user stack will come, or it came
		 * already (a late request in the same kernel entry)
		 */
		if (!(rec.flags & USTACK_COOKIE_NO_USER_STACK) &&
		    st->first_status != USTACK_LOST)
			trace_seq_puts(s, " (after its user stack)");
		trace_seq_printf(s, " events=%d\n", st->nr_blocks);
		put_blocks(st, s);
		return 0;
	}
	trace_seq_putc(s, '\n');
	for (i = 0; i < nr; i++)
		print_kframe(s, event->tep, frames[i]);
	return 0;
}

static int deferred_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct ud_state *st = context;
	struct ustack_event ev = { .tep = event->tep };
	unsigned long long *ufr = NULL;
	struct ustack_record rec;
	int nr, n = 0, truncated;
	struct ud_cpu *c;

	ud_host_seen(st);
	c = track(st, record);
	st->stack_records++;
	if (ustack_record_parse(event, record, &rec, NULL, 0) < 0) {
		trace_seq_puts(s, "[unwind_deferred: no cookie field] ");
		return 1;
	}
	if (c) {
		feed(st, record, 1);
		n = st->nr_blocks;
	}
	if (rec.nr < 0) {
		/* the join skipped it: what waited for it stays pending */
		trace_seq_printf(s,
			"cookie=0x%llx tgid=%d [unwind_deferred: bad or missing frames array]",
			rec.cookie, rec.tgid);
		return 0;
	}
	nr = rec.nr;
	if (nr) {
		ufr = malloc(nr * sizeof(*ufr));
		if (!ufr) {
			trace_seq_printf(s, "cookie=0x%llx [unwind_deferred: out of memory]",
					 rec.cookie);
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
	/* no mark: frame pointers, or a kernel that does not say */
	if (rec.unwinder & USTACK_UNWINDER_SFRAME)
		trace_seq_printf(s, " [%s]", ustack_unwinder_name(rec.unwinder));

	if (n && opt_merge->set) {
		trace_seq_printf(s, " events=%d\n", n);
		put_blocks(st, s);
	} else {
		trace_seq_putc(s, '\n');
		if (opt_merge->set && c && !st->join_failed && ud_host_hiding(st))
			trace_seq_printf(s,
				" (no event shown for this cookie: report %s may hide its cookie record)\n",
				ud_host_hiding(st));
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
	free(ufr);
	return 0;
}

/* unwind:* records of the pre-release format: say so, once */
static int prerelease_handler(struct trace_seq *s,
			      struct tep_record *record __maybe_unused,
			      struct tep_event *event __maybe_unused,
			      void *context)
{
	struct ud_state *st = context;

	if (st->prerelease_said)
		return 1;	/* the event's own print format */
	st->prerelease_said = 1;
	trace_seq_puts(s, UD_PRERELEASE_MSG);
	return 0;
}

static const struct {
	const char		*system;
	const char		*name;
	tep_event_handler_func	handler;
} ud_events[] = {
	{ "ftrace", "user_stack_cookie", cookie_handler },
	{ "ftrace", "user_stack_deferred", deferred_handler },
	{ "unwind", "user_stack_cookie", prerelease_handler },
	{ "unwind", "user_stack_deferred", prerelease_handler },
};

#define UD_NR_EVENTS	(sizeof(ud_events) / sizeof(ud_events[0]))

static void free_state(struct ud_state *st)
{
	int c;

	ud_host_unload(st);
	ustack_join_free(st->join);
	ustack_syms_free(st->syms);
	ustack_file_close(st->file);
	trace_seq_destroy(&st->blocks);
	trace_seq_destroy(&st->notes);
	for (c = 0; c < st->nr_cpus; c++)
		free(st->cpus[c]);
	free(st->cpus);
	free(st);
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	struct ud_state *st;
	unsigned int i;

	if (ud_find_state(tep) || ud_host_other_copy(tep))
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->tep = tep;
	trace_seq_init(&st->blocks);
	trace_seq_init(&st->notes);
	if (ud_host_load(st)) {
		free_state(st);
		return -1;
	}
	st->next = ud_states;
	ud_states = st;

	for (i = 0; i < UD_NR_EVENTS; i++)
		tep_register_event_handler(tep, -1, ud_events[i].system,
					   ud_events[i].name,
					   ud_events[i].handler, st);
	tep_plugin_add_options(UD_ALIAS, TEP_PLUGIN_OPTIONS);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	struct ud_state **p, *st;
	unsigned int i;

	for (p = &ud_states; *p; p = &(*p)->next)
		if ((*p)->tep == tep)
			break;
	st = *p;
	if (!st)
		return;
	*p = st->next;

	for (i = 0; i < UD_NR_EVENTS; i++)
		tep_unregister_event_handler(tep, -1, ud_events[i].system,
					     ud_events[i].name,
					     ud_events[i].handler, st);
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);
	free_state(st);
}
