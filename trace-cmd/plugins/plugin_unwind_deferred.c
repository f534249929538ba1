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
 * (flags bit 0: truncated, bit 1: late; depth: the frames the unwinder
 * found).  Documentation/contract.md, section 2, is the reference.
 *
 * This plugin prints both records readably and, for a reader that goes
 * front to back (trace-cmd report), prints at each user_stack_deferred
 * the merged stack of every event that asked for that cookie: the event's
 * name, its kernel frames (from its cookie record), then the user frames.
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
 * Matching is by (pid, cookie), never by CPU order.  Memory is bounded:
 * at most max_pending cookies and max_frames kernel frames are kept; the
 * oldest cookies are evicted first and the eviction is printed.
 *
 * The pre-release unwind:user_stack_cookie and unwind:user_stack_deferred
 * records are not read: the first one says so in one line.
 *
 * Options (trace-cmd report -O unwind_deferred:NAME=VALUE):
 *   merge        print merged stacks (default 1)
 *   max_pending  cookies kept while waiting for their user stack (4096)
 *   max_frames   kernel frames kept for those cookies (262144)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>

#include <event-parse.h>
#include <trace-seq.h>
#include <event-utils.h>
#include <kbuffer.h>

#include "unwind_record.h"

#define UD_ALIAS		"unwind_deferred"
#define UD_MAX_EVENT_FRAMES	512	/* kernel frames kept per event */
#define UD_MAX_COOKIE_EVENTS	64	/* asking events kept per cookie */
#define UD_MAX_CPUS		65536
#define UD_HASH_BITS		12
#define UD_HASH_SIZE		(1 << UD_HASH_BITS)
#define UD_NO_EVENT		(-1)
#define UD_DONE_MAX		256	/* completed cookies kept */
#define UD_MAX_SUBBUF_EVENTS	65536	/* bound of a sub-buffer walk */

/* user_stack_cookie flags */
#define UD_COOKIE_NO_USER_STACK	0x1
/* user_stack_deferred flags */
#define UD_DEFERRED_TRUNCATED	0x1
#define UD_DEFERRED_LATE	0x2
/* a kernel frame that is the ftrace trampoline mark, not an address */
#define UD_FTRACE_TRAMPOLINE	0x7fffffffULL

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
		.name = "max_frames",
		.plugin_alias = UD_ALIAS,
		.description =
		"Kernel frames kept for pending cookies (oldest cookies evicted first)",
		.value = "262144",
	},
	{
		.name = NULL,
	}
};

static struct tep_plugin_option *opt_merge = &TEP_PLUGIN_OPTIONS[0];
static struct tep_plugin_option *opt_max_pending = &TEP_PLUGIN_OPTIONS[1];
static struct tep_plugin_option *opt_max_frames = &TEP_PLUGIN_OPTIONS[2];

enum ud_role {
	UD_OTHER,	/* an event that may ask */
	UD_KSTACK,	/* ftrace:kernel_stack: never asks, may sit between */
	UD_COOKIE,
	UD_DEFERRED,
	UD_PRERELEASE,	/* unwind:user_stack_cookie, unwind:user_stack_deferred */
	UD_UNKNOWN,	/* a record of no known event */
};

/* One event that asked for the user stack of a cookie. */
struct ud_asker {
	int			event_id;	/* UD_NO_EVENT: not seen */
	int			cpu;
	int			nr;		/* kernel frames */
	unsigned long long	ts;
	unsigned long long	*frames;
};

/* A cookie waiting for its user_stack_deferred. */
struct ud_pending {
	struct ud_pending	*hnext;
	struct ud_pending	*older;
	struct ud_pending	*newer;
	unsigned long long	cookie;
	int			pid;
	int			nr;
	int			dropped;
	struct ud_asker		askers[UD_MAX_COOKIE_EVENTS];
};

/* The user stack of a user_stack_deferred record. */
struct ud_ustack {
	const unsigned long long	*frames;
	int				nr;
	int				truncated;
	unsigned int			depth;
};

/*
 * A cookie whose user stack was printed, kept for a request that comes
 * after it in the same kernel entry (the kernel answers such a late
 * request with the stack it already wrote; its cookie record then comes
 * after the user_stack_deferred).
 */
struct ud_done {
	struct ud_done		*hnext;
	unsigned long long	cookie;
	int			pid;
	int			nr;
	int			truncated;
	unsigned int		depth;
	unsigned long long	ts;	/* of the user_stack_deferred */
	unsigned long long	*frames;
};

/* What was last seen on one CPU. */
struct ud_cpu {
	unsigned long long	last_ts;
	int			seen;
	/* the record before the current one was seen */
	int			prev_known;
	/*
	 * The last ordinary event, while it may still be the one that asks
	 * (only kernel_stack records of its task came after it).
	 */
	int			ev_valid;
	int			ev_id;
	int			ev_pid;
	unsigned long long	ev_ts;
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
	struct ud_pending	*hash[UD_HASH_SIZE];
	struct ud_pending	*oldest;
	struct ud_pending	*newest;
	struct ud_done		*done_hash[UD_HASH_SIZE];
	struct ud_done		*done_ring[UD_DONE_MAX];
	int			done_next;
	unsigned long		nr_pending;
	unsigned long		nr_frames;
	unsigned long		evicted;
	unsigned long		resets;
	/* the last record seen, to ignore it when printed again */
	int			have_last;
	int			last_cpu;
	unsigned long long	last_offset;
	unsigned long long	last_ts;
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
	if (!strcmp(event->system, "ftrace")) {
		if (!strcmp(event->name, "kernel_stack"))
			return UD_KSTACK;
		if (!strcmp(event->name, "user_stack_cookie"))
			return UD_COOKIE;
		if (!strcmp(event->name, "user_stack_deferred"))
			return UD_DEFERRED;
	}
	if (!strcmp(event->system, "unwind") &&
	    (!strcmp(event->name, "user_stack_cookie") ||
	     !strcmp(event->name, "user_stack_deferred")))
		return UD_PRERELEASE;
	return UD_OTHER;
}

/* ------------------------------------------------------------------ */
/* Pending cookies. */

static unsigned int hash_key(int pid, unsigned long long cookie)
{
	unsigned long long h = cookie ^ ((unsigned long long)pid << 32);

	h *= 0x9e3779b97f4a7c15ULL;
	return h >> (64 - UD_HASH_BITS);
}

static struct ud_pending **find_slot(struct ud_state *st, int pid,
				     unsigned long long cookie)
{
	struct ud_pending **p = &st->hash[hash_key(pid, cookie)];

	for (; *p; p = &(*p)->hnext)
		if ((*p)->pid == pid && (*p)->cookie == cookie)
			break;
	return p;
}

static void free_pending(struct ud_state *st, struct ud_pending *pd)
{
	int i;

	for (i = 0; i < pd->nr; i++) {
		st->nr_frames -= pd->askers[i].nr;
		free(pd->askers[i].frames);
	}
	free(pd);
}

/* Unlink from the hash and the age list and free. */
static void drop_pending(struct ud_state *st, struct ud_pending *pd)
{
	struct ud_pending **p = find_slot(st, pd->pid, pd->cookie);

	if (*p == pd)
		*p = pd->hnext;
	if (pd->older)
		pd->older->newer = pd->newer;
	else
		st->oldest = pd->newer;
	if (pd->newer)
		pd->newer->older = pd->older;
	else
		st->newest = pd->older;
	st->nr_pending--;
	free_pending(st, pd);
}

static void drop_all_pending(struct ud_state *st)
{
	while (st->oldest)
		drop_pending(st, st->oldest);
}

/* Evict the oldest cookies (never @keep) until within the limits. */
static void evict(struct ud_state *st, struct trace_seq *s,
		  struct ud_pending *keep)
{
	unsigned long max_pending = opt_ulong(opt_max_pending, 4096, 1);
	unsigned long max_frames = opt_ulong(opt_max_frames, 262144, 0);
	struct ud_pending *pd;

	while (st->oldest && st->oldest != keep &&
	       (st->nr_pending > max_pending || st->nr_frames > max_frames)) {
		pd = st->oldest;
		if (s)
			trace_seq_printf(s,
				" [unwind_deferred: evicted cookie 0x%llx of pid %d: %s=%lu reached]",
				pd->cookie, pd->pid,
				st->nr_pending > max_pending ?
				"max_pending" : "max_frames",
				st->nr_pending > max_pending ?
				max_pending : max_frames);
		st->evicted++;
		drop_pending(st, pd);
	}
}

static struct ud_done *done_find(struct ud_state *st, int pid,
				 unsigned long long cookie)
{
	struct ud_done *d;

	for (d = st->done_hash[hash_key(pid, cookie)]; d; d = d->hnext)
		if (d->pid == pid && d->cookie == cookie)
			return d;
	return NULL;
}

static void done_drop(struct ud_state *st, struct ud_done *d)
{
	struct ud_done **p = &st->done_hash[hash_key(d->pid, d->cookie)];

	for (; *p; p = &(*p)->hnext)
		if (*p == d) {
			*p = d->hnext;
			break;
		}
	free(d->frames);
	free(d);
}

/* Keep @frames (taken over) as the user stack of (pid, cookie). */
static void done_add(struct ud_state *st, int pid, unsigned long long cookie,
		     unsigned long long ts, unsigned long long *frames,
		     const struct ud_ustack *u)
{
	struct ud_done *d = calloc(1, sizeof(*d));
	unsigned int h = hash_key(pid, cookie);

	if (!d) {
		free(frames);
		return;
	}
	if (st->done_ring[st->done_next])
		done_drop(st, st->done_ring[st->done_next]);
	d->pid = pid;
	d->cookie = cookie;
	d->nr = u->nr;
	d->truncated = u->truncated;
	d->depth = u->depth;
	d->ts = ts;
	d->frames = frames;
	d->hnext = st->done_hash[h];
	st->done_hash[h] = d;
	st->done_ring[st->done_next] = d;
	st->done_next = (st->done_next + 1) % UD_DONE_MAX;
}

static void done_drop_all(struct ud_state *st)
{
	int i;

	for (i = 0; i < UD_DONE_MAX; i++) {
		if (st->done_ring[i])
			done_drop(st, st->done_ring[i]);
		st->done_ring[i] = NULL;
	}
	st->done_next = 0;
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
		st->cpus[cpu]->ev_id = UD_NO_EVENT;
	}
	return st->cpus[cpu];
}

/* Forget everything: the records are not being read front to back. */
static void reset_state(struct ud_state *st)
{
	int i;

	drop_all_pending(st);
	done_drop_all(st);
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
 * nothing is taken from it.  Returns 0 and the event's id and time when
 * an event of @pid is just before @record (kernel_stack records of that
 * task may sit between).
 */
static int subbuf_asker(struct ud_state *st, struct tep_handle *tep,
			struct tep_record *record, int pid, int *id,
			unsigned long long *ts)
{
	unsigned long long t, rec_t = 0, ev_t = 0;
	int cand = 0, cand_id = 0, cand_pid = 0, found = 0, n;
	struct tep_record r;
	struct tep_event *ev;
	struct kbuffer *kbuf;
	void *page, *data;

	if (!st->late || !st->record_page || !record->priv || !record->data)
		return -1;
	page = st->record_page(NULL, record);
	if (!page)
		return -1;
	kbuf = tep_kbuffer(tep);
	if (!kbuf)
		return -1;
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
			cand_id = ev->id;
			cand_pid = tep_data_pid(tep, &r);
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
out:
	kbuffer_free(kbuf);
	if (!found || !cand || cand_pid != pid)
		return -1;
	*id = cand_id;
	/* record->ts is the reader's time (offsets, clocks): keep the gap */
	*ts = record->ts - (rec_t >= ev_t ? rec_t - ev_t : 0);
	return 0;
}

/* The event that asked for the cookie record @record of @pid. */
static void find_asker(struct ud_state *st, struct ud_cpu *c,
		       struct tep_handle *tep, struct tep_record *record,
		       int pid, struct ud_asker *a)
{
	a->event_id = UD_NO_EVENT;
	a->cpu = record->cpu;
	a->ts = record->ts;
	if (!c)
		return;
	if (c->ev_valid && c->ev_pid == pid) {
		a->event_id = c->ev_id;
		a->ts = c->ev_ts;
	} else if (!c->prev_known) {
		subbuf_asker(st, tep, record, pid, &a->event_id, &a->ts);
	}
}

/*
 * Note one record in the per-CPU state.  Returns the CPU state, or NULL
 * when the record is not part of a front-to-back read (seen again, or
 * out of order), in which case nothing is tracked for it.
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
	if (!c->prev_known)
		c->ev_valid = 0;
	c->seen = 1;
	c->last_ts = record->ts;
	return c;
}

/* ------------------------------------------------------------------ */
/* Printing. */

/* A kernel frame in a merged stack: name+offset (address) */
static void print_kaddr(struct trace_seq *s, struct tep_handle *tep,
			unsigned long long addr)
{
	const char *func = tep_find_function(tep, addr);

	if (addr == UD_FTRACE_TRAMPOLINE)
		trace_seq_printf(s, "=> [ftrace trampoline] (%llx)\n", addr);
	else if (func)
		trace_seq_printf(s, "=> %s+0x%llx (%llx)\n", func,
				 addr - tep_find_function_address(tep, addr),
				 addr);
	else
		trace_seq_printf(s, "=> 0x%llx\n", addr);
}

/* A kernel frame of a cookie record, as kernel_stack prints them */
static void print_kframe(struct trace_seq *s, struct tep_handle *tep,
			 unsigned long long addr)
{
	const char *func = tep_find_function(tep, addr);

	if (addr == UD_FTRACE_TRAMPOLINE)
		trace_seq_printf(s, "=> [ftrace trampoline] (%llx)\n", addr);
	else if (func)
		trace_seq_printf(s, "=> %s (%llx)\n", func, addr);
	else
		trace_seq_printf(s, "=> %llx\n", addr);
}

static void print_user_frames(struct trace_seq *s,
			      const unsigned long long *fr, int nr,
			      const char *suffix)
{
	int i;

	for (i = 0; i < nr; i++)
		trace_seq_printf(s, "=> 0x%llx%s\n", fr[i], suffix);
}

/*
 * One asking event (@i of @n): name, kernel frames, user frames; @u NULL
 * when no user stack will come.
 */
static void print_asker(struct trace_seq *s, struct tep_handle *tep,
			struct ud_asker *a, int i, int n,
			const struct ud_ustack *u)
{
	struct tep_event *ev;
	int j;

	ev = a->event_id == UD_NO_EVENT ? NULL :
		tep_find_event(tep, a->event_id);
	trace_seq_printf(s, " [event %d/%d] %s cpu=%d ts=%llu.%06llu",
			 i + 1, n, ev ? ev->name : "(event not seen)",
			 a->cpu, a->ts / 1000000000ULL,
			 (a->ts % 1000000000ULL) / 1000);
	if (!a->nr)
		trace_seq_puts(s, " (no kernel stack recorded)");
	trace_seq_putc(s, '\n');
	for (j = 0; j < a->nr; j++)
		print_kaddr(s, tep, a->frames[j]);
	if (!u) {
		trace_seq_puts(s, "   (user stack lost: none will follow)\n");
		return;
	}
	print_user_frames(s, u->frames, u->nr, " (user)");
	if (!u->nr)
		trace_seq_puts(s, "   (no user frames: unwind failed)\n");
	else if (u->truncated)
		trace_seq_printf(s, "   (user stack cut short: %u frames found)\n",
				 u->depth);
}

static void print_merged(struct trace_seq *s, struct tep_handle *tep,
			 struct ud_pending *pd, const struct ud_ustack *u)
{
	int i;

	for (i = 0; i < pd->nr; i++)
		print_asker(s, tep, &pd->askers[i], i, pd->nr, u);
	if (pd->dropped)
		trace_seq_printf(s,
			" [unwind_deferred: %d more events of this cookie not kept]\n",
			pd->dropped);
}

/* A cookie record whose asker goes on the pending list of its cookie. */
static void note_pending(struct ud_state *st, struct trace_seq *s, int pid,
			 unsigned long long cookie, struct ud_asker *a)
{
	struct ud_pending **slot, *pd;

	slot = find_slot(st, pid, cookie);
	pd = *slot;
	if (!pd) {
		pd = calloc(1, sizeof(*pd));
		if (!pd) {
			free(a->frames);
			return;
		}
		pd->pid = pid;
		pd->cookie = cookie;
		*slot = pd;
		pd->older = st->newest;
		if (st->newest)
			st->newest->newer = pd;
		else
			st->oldest = pd;
		st->newest = pd;
		st->nr_pending++;
	}
	if (pd->nr >= UD_MAX_COOKIE_EVENTS) {
		pd->dropped++;
		free(a->frames);
		return;
	}
	pd->askers[pd->nr++] = *a;
	st->nr_frames += a->nr;
	evict(st, s, pd);
}

static int print_cookie(struct ud_state *st, struct trace_seq *s,
			struct tep_record *record, struct tep_event *event,
			struct ud_cpu *c)
{
	unsigned long long frames[UD_MAX_EVENT_FRAMES];
	struct tep_handle *tep = event->tep;
	int pid = tep_data_pid(tep, record);
	unsigned long long cookie, flags = 0;
	struct unwind_rec_span sp;
	struct ud_asker a;
	struct ud_ustack u;
	struct ud_done *d;
	int i, nr = 0, bad;

	if (unwind_rec_field(event, record, "cookie", &cookie)) {
		trace_seq_puts(s, "[unwind_deferred: no cookie field] ");
		return 1;	/* and the event's own print format */
	}
	unwind_rec_field(event, record, "flags", &flags);
	bad = unwind_rec_dynamic(tep, record, tep_find_field(event, "kernel"),
				 &sp);
	if (!bad)
		nr = unwind_rec_copy(tep, &sp, frames, UD_MAX_EVENT_FRAMES);

	trace_seq_printf(s, "cookie=0x%llx kernel=%d", cookie, nr);
	if (bad)
		trace_seq_puts(s, " [unwind_deferred: bad or missing kernel array]");
	if (flags & UD_COOKIE_NO_USER_STACK)
		trace_seq_puts(s, " (no user stack)");

	memset(&a, 0, sizeof(a));
	find_asker(st, c, tep, record, pid, &a);
	a.nr = nr;
	a.frames = frames;

	if (c && opt_merge->set && (flags & UD_COOKIE_NO_USER_STACK)) {
		/* none will come: show it as lost now */
		trace_seq_puts(s, " events=1\n");
		print_asker(s, tep, &a, 0, 1, NULL);
		return 0;
	}

	/* a late request: its user stack was printed already */
	d = c ? done_find(st, pid, cookie) : NULL;
	if (d && record->ts >= d->ts && !*find_slot(st, pid, cookie)) {
		if (opt_merge->set) {
			u.frames = d->frames;
			u.nr = d->nr;
			u.truncated = d->truncated;
			u.depth = d->depth;
			trace_seq_puts(s, " (after its user stack) events=1\n");
			print_asker(s, tep, &a, 0, 1, &u);
			return 0;
		}
		c = NULL;	/* nothing to wait for */
	}

	if (c && !(flags & UD_COOKIE_NO_USER_STACK)) {
		/* wait for the user stack (an eviction is said on this line) */
		a.frames = NULL;
		a.nr = 0;
		if (nr) {
			a.frames = malloc(nr * sizeof(*a.frames));
			if (a.frames) {
				memcpy(a.frames, frames, nr * sizeof(*a.frames));
				a.nr = nr;
			}
		}
		note_pending(st, s, pid, cookie, &a);
	}
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
	unsigned long long cookie, tgid = 0, flags = 0, depth = 0;
	struct ud_pending **slot, *pd = NULL;
	int pid = tep_data_pid(tep, record);
	unsigned long long *ufr = NULL;
	struct unwind_rec_span sp;
	struct ud_ustack u;
	int nr;

	if (unwind_rec_field(event, record, "cookie", &cookie)) {
		trace_seq_puts(s, "[unwind_deferred: no cookie field] ");
		return 1;
	}
	unwind_rec_field(event, record, "tgid", &tgid);
	unwind_rec_field(event, record, "flags", &flags);
	if (unwind_rec_dynamic(tep, record, tep_find_field(event, "frames"),
			       &sp)) {
		trace_seq_printf(s,
			"cookie=0x%llx tgid=%d [unwind_deferred: bad or missing frames array]",
			cookie, (int)tgid);
		/* still resolves the cookie: drop what was pending */
		if (c) {
			slot = find_slot(st, pid, cookie);
			if (*slot)
				drop_pending(st, *slot);
		}
		return 0;
	}
	nr = sp.nr;
	if (unwind_rec_field(event, record, "depth", &depth))
		depth = nr;
	if (nr) {
		ufr = malloc(nr * sizeof(*ufr));
		if (!ufr) {
			trace_seq_printf(s, "cookie=0x%llx [unwind_deferred: out of memory]",
					 cookie);
			return 0;
		}
		unwind_rec_copy(tep, &sp, ufr, nr);
	}
	u.frames = ufr;
	u.nr = nr;
	u.truncated = !!(flags & UD_DEFERRED_TRUNCATED);
	u.depth = depth;

	trace_seq_printf(s, "cookie=0x%llx tgid=%d nr=%d", cookie,
			 (int)tgid, nr);
	if (u.truncated || depth != (unsigned long long)nr)
		trace_seq_printf(s, " depth=%llu", depth);
	if (u.truncated)
		trace_seq_puts(s, " (truncated)");
	if (flags & UD_DEFERRED_LATE)
		trace_seq_puts(s, " (late)");
	if (!nr)
		trace_seq_puts(s, " empty (user unwind failed)");

	if (c) {
		slot = find_slot(st, pid, cookie);
		pd = *slot;
	}
	if (pd && opt_merge->set) {
		trace_seq_printf(s, " events=%d\n", pd->nr);
		print_merged(s, tep, pd, &u);
	} else {
		trace_seq_putc(s, '\n');
		if (opt_merge->set && c)
			trace_seq_printf(s,
				" (no pending event for this cookie: its cookie record was not seen%s)\n",
				st->evicted ? ", was overwritten, or was evicted" :
				" or was overwritten");
		print_user_frames(s, ufr, nr, "");
	}
	if (pd)
		drop_pending(st, pd);
	if (c)
		done_add(st, pid, cookie, record->ts, ufr, &u);
	else
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
	int pid = tep_data_pid(event->tep, record);
	int ret;

	switch (w->role) {
	case UD_OTHER:
	case UD_UNKNOWN:
		if (c) {
			c->ev_valid = 1;
			c->ev_ts = record->ts;
			c->ev_id = event->id;
			c->ev_pid = pid;
		}
		break;
	case UD_KSTACK:
		/* the stacktrace option's stack, between event and cookie */
		if (c && c->ev_valid && c->ev_pid != pid)
			c->ev_valid = 0;
		break;
	case UD_COOKIE:
		ret = print_cookie(st, s, record, event, c);
		if (c)
			c->ev_valid = 0;
		return ret;
	case UD_DEFERRED:
		ret = print_deferred(st, s, record, event, c);
		if (c)
			c->ev_valid = 0;
		return ret;
	case UD_PRERELEASE:
		if (c)
			c->ev_valid = 0;
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

	unwrap_all(st);
	for (i = 0; i < sizeof(ud_events) / sizeof(ud_events[0]); i++)
		tep_unregister_event_handler(tep, -1, ud_events[i][0],
					     ud_events[i][1], ud_first, st);
	tep_plugin_remove_options(TEP_PLUGIN_OPTIONS);

	drop_all_pending(st);
	done_drop_all(st);
	for (c = 0; c < st->nr_cpus; c++)
		free(st->cpus[c]);
	free(st->cpus);
	free(st);
}
