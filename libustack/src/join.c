// SPDX-License-Identifier: LGPL-2.1
/*
 * The join: each event that asked for stacks, with its kernel stack and
 * its deferred user stack.
 *
 * Per CPU, the kernel writes an event, then ftrace:user_stack_cookie
 * with the event's common_pid, which carries the cookie and the event's
 * kernel stack (Documentation/contract.md, "The records").  An interrupt
 * may nest a complete event/cookie group in between, so each CPU keeps a
 * short stack of "open" events: a cookie attaches to the newest open
 * event of the same task that does not have one yet.  A plain
 * ftrace:kernel_stack (the stacktrace trigger or option, a kernel thread)
 * attaches the same way, to an event that then gets no cookie: the
 * kernel frames of an event with a cookie are the cookie record's.
 *
 * An event with a cookie waits in the pending table, keyed by
 * (pid, cookie), for ftrace:user_stack_deferred, which may come on any
 * CPU and much later, unless the cookie record says that none will come
 * (NO_USER_STACK): then it is delivered as lost at once.  The user stack
 * answers the cookies of its common_pid, its pid field (the pid of the
 * entry's first request) and its tgid: a thread that is not the group
 * leader takes the leader's pid when it execs, in the middle of the
 * entry, so one cookie can be recorded under both
 * (Documentation/contract.md, "The join").  A trace without the field:
 * common_pid alone.  The user stack
 * is then kept per task for the rest of that kernel entry, for requests
 * made after it was delivered (late requests get no second user stack
 * from the kernel) and for a user stack seen before its cookie (merge
 * order across CPUs is only as good as the clocks).  A task's next
 * cookie ends its previous entry.
 *
 * Memory is bounded by the pending cookies and events (limits, oldest
 * evicted first and delivered as never arrived), by USTACK_JOIN_MAX_OPEN
 * open events per CPU, and by the number of tasks whose last entry is
 * cached.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"
#include "unwind-record.h"

#define MAX_CPUS	65536

struct held {
	struct held		*next;
	struct held		*onext;		/* pending, by record offset */
	unsigned long long	ts;
	unsigned long long	cookie;
	unsigned long long	offset;		/* of the record held */
	unsigned long long	cookie_offset;	/* of its cookie record */
	struct tep_event	*event;
	unsigned long long	*kframes;
	void			*data;
	int			size;
	int			cpu;
	int			pid;
	int			nr_k;
	bool			has_k;
	bool			has_c;
	bool			unseen;		/* a cookie record alone */
};

struct pending {
	struct pending		*hnext;
	struct pending		*prev;		/* age list, oldest first */
	struct pending		*next;
	unsigned long long	cookie;
	int			pid;
	unsigned int		nr;
	struct held		*head;
	struct held		**tail;
};

/* A user stack of one kernel entry of a task. */
struct entry {
	bool			valid;
	bool			used;
	int			tgid;
	int			first_pid;	/* the record's pid field, or 0 */
	unsigned int		flags;		/* the record's */
	unsigned int		depth;
	int			nr;
	unsigned long long	cookie;
	unsigned long long	seq;
	unsigned long long	offset;		/* of the user stack record */
	unsigned long long	*frames;
};

#define TASK_ENTRIES	4

struct task {
	struct task		*hnext;
	struct task		*prev;		/* LRU list, oldest first */
	struct task		*next;
	int			pid;
	struct entry		ent[TASK_ENTRIES];
};

/* A cookie whose user stack is kept under pid (entry_other_pid()) */
struct recent {
	unsigned long long	cookie;
	int			pid;
};

#define RECENT_COOKIES	256

struct cpu_open {
	int			nr;
	struct held		*ev[USTACK_JOIN_MAX_OPEN];
};

/* The fields the join reads, in the order of the lists below */
enum { KS_SIZE, KS_CALLER };
enum { CK_COOKIE, CK_FLAGS, CK_KERNEL };
enum { US_COOKIE, US_TGID, US_FLAGS, US_DEPTH, US_FRAMES };
#define MAX_FIELDS	5

static const char *const kstack_fields[] = { "size", "caller", NULL };
static const char *const cookie_fields[] = {
	"cookie", "flags", "kernel", NULL
};
static const char *const ustack_fields[] = {
	"cookie", "tgid", "flags", "depth", "frames", NULL
};

struct field_set {
	int			id;
	struct tep_event	*event;
	struct tep_format_field	*f[MAX_FIELDS];
};

struct ustack_join {
	ustack_join_cb		cb;
	void			*cb_data;
	struct tep_handle	*tep;
	char			*instance;
	unsigned int		flags;
	int			stopped;

	struct field_set	kstack;		/* ftrace:kernel_stack */
	struct field_set	cookie;		/* ftrace:user_stack_cookie */
	struct field_set	ustack;		/* ftrace:user_stack_deferred */
	/* its pid field (the entry's first request), or NULL: common_pid */
	struct tep_format_field	*ustack_pid;
	/* the pid each recent cookie's user stack is kept under */
	struct recent		recent[RECENT_COOKIES];

	size_t			max_cookies;
	size_t			max_events;
	size_t			max_tasks;

	struct pending		**ptab;
	size_t			pbuckets;
	struct pending		*pold;		/* oldest pending */
	struct pending		*pnew;		/* newest pending */
	/* the pending events by (cpu, offset), for ustack_join_holds() */
	struct held		**otab;
	size_t			obuckets;

	struct task		**ttab;
	size_t			tbuckets;
	size_t			ntasks;
	unsigned long long	seq;
	struct task		*told;
	struct task		*tnew;

	struct cpu_open		*cpus;
	int			nr_cpus;

	struct ustack_join_stats stats;
};

/**
 * ustack_status_name - the name of a join status
 * @status: a status of struct ustack_event
 *
 * Returns "complete", "truncated", "empty", "never-arrived", "no-cookie"
 * or "lost" (as the ustack tool and trace-cmd report print them), or
 * "unknown" for another value; never NULL.
 */
const char *ustack_status_name(enum ustack_status status)
{
	switch (status) {
	case USTACK_COMPLETE:
		return "complete";
	case USTACK_TRUNCATED:
		return "truncated";
	case USTACK_EMPTY:
		return "empty";
	case USTACK_NEVER_ARRIVED:
		return "never-arrived";
	case USTACK_NO_COOKIE:
		return "no-cookie";
	case USTACK_LOST:
		return "lost";
	}
	return "unknown";
}

/**
 * ustack_unwinder_name - the name of the user unwinders that took a stack
 * @unwinder: USTACK_UNWINDER_* bits (ustack_event.unwinder)
 *
 * Returns "sframe", "sframe+fp", "fp", or "" when no bit is set; never
 * NULL.
 */
const char *ustack_unwinder_name(unsigned int unwinder)
{
	if (unwinder & USTACK_UNWINDER_SFRAME)
		return unwinder & USTACK_UNWINDER_FP ? "sframe+fp" : "sframe";
	if (unwinder & USTACK_UNWINDER_FP)
		return "fp";
	return "";
}

static inline size_t hash_key(int pid, unsigned long long cookie)
{
	unsigned long long h = cookie * 0x9E3779B97F4A7C15ULL;

	h ^= (unsigned int)pid * 0xC2B2AE3D27D4EB4FULL;
	return (size_t)(h ^ (h >> 29));
}

struct ustack_join *ustack_join_alloc_raw(ustack_join_cb cb, void *data)
{
	struct ustack_join *join;

	join = calloc(1, sizeof(*join));
	if (!join)
		return NULL;
	join->cb = cb;
	join->cb_data = data;
	join->max_cookies = USTACK_DEFAULT_MAX_COOKIES;
	join->max_events = USTACK_DEFAULT_MAX_EVENTS;
	join->max_tasks = USTACK_DEFAULT_MAX_TASKS;
	join->kstack.id = -1;
	join->cookie.id = -1;
	join->ustack.id = -1;
	join->pbuckets = 1024;
	join->ptab = calloc(join->pbuckets, sizeof(*join->ptab));
	join->tbuckets = 1024;
	join->ttab = calloc(join->tbuckets, sizeof(*join->ttab));
	join->obuckets = 1024;
	join->otab = calloc(join->obuckets, sizeof(*join->otab));
	join->instance = strdup("");
	if (!join->ptab || !join->ttab || !join->otab || !join->instance) {
		ustack_join_free(join);
		errno = ENOMEM;
		return NULL;
	}
	return join;
}

static int find_set(struct tep_handle *tep, struct field_set *set,
		    const char *sys, const char *name,
		    const char *const *fields)
{
	struct tep_event *event;
	int i;

	event = tep_find_event_by_name(tep, sys, name);
	if (!event)
		return 0;	/* not recorded: nothing will ask */
	for (i = 0; i < MAX_FIELDS && fields[i]; i++) {
		set->f[i] = tep_find_field(event, fields[i]);
		if (!set->f[i]) {
			ustack_err("unknown event format: %s:%s has no field '%s'",
				   sys, name, fields[i]);
			errno = EINVAL;
			return -1;
		}
	}
	set->event = event;
	set->id = event->id;
	return 0;
}

static bool is_dynamic(const struct tep_format_field *f)
{
	return f->flags & TEP_FIELD_IS_DYNAMIC;
}

/* The fields found have the types the decoding needs. */
static bool formats_known(const struct ustack_join *join)
{
	const struct field_set *c = &join->cookie, *u = &join->ustack;

	if (c->id >= 0 && (c->f[CK_COOKIE]->size != 8 ||
			   !is_dynamic(c->f[CK_KERNEL])))
		return false;
	if (u->id >= 0 && (u->f[US_COOKIE]->size != 8 ||
			   !is_dynamic(u->f[US_FRAMES])))
		return false;
	return join->kstack.id < 0 ||
	       (join->kstack.f[KS_CALLER]->flags & TEP_FIELD_IS_ARRAY);
}

static int find_formats(struct ustack_join *join)
{
	struct tep_handle *tep = join->tep;

	if (unwind_rec_prerelease(tep)) {
		ustack_err(UNWIND_REC_PRERELEASE_MSG);
		errno = ENOTSUP;
		return -1;
	}
	if (find_set(tep, &join->kstack, "ftrace", "kernel_stack",
		     kstack_fields) ||
	    find_set(tep, &join->cookie, USTACK_RECORD_SYSTEM, USTACK_RECORD_COOKIE,
		     cookie_fields) ||
	    find_set(tep, &join->ustack, USTACK_RECORD_SYSTEM,
		     USTACK_RECORD_STACK, ustack_fields))
		return -1;
	/* optional: traces of kernels before it do not have it */
	if (join->ustack.event)
		join->ustack_pid = tep_find_field(join->ustack.event, "pid");
	if (!formats_known(join)) {
		ustack_err("unknown event format: unexpected field types in the user_stack or kernel_stack events");
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/**
 * ustack_join_alloc - a join of events with their kernel and user stacks
 * @tep: the event formats of the records that will be fed
 * @cb: called with each event, once it has its stacks or never will
 * @data: passed to @cb
 *
 * Records are fed with ustack_join_add_record(), each CPU's in order; the
 * join pairs each event with its kernel stack and, by (task, cookie),
 * with its user stack, whichever CPU that comes on, within the limits of
 * ustack_join_set_limits().  @cb returns 0 to go on, non-zero to stop.
 *
 * Returns the join (ustack_join_free() frees it), or NULL with errno set:
 * EINVAL for a bad argument or event formats the join does not know,
 * ENOTSUP for the formats of a pre-release trace (unwind:user_stack_*
 * records), ENOMEM.
 */
struct ustack_join *ustack_join_alloc(struct tep_handle *tep,
				      ustack_join_cb cb, void *data)
{
	struct ustack_join *join;
	int err;

	if (!tep || !cb) {
		errno = EINVAL;
		return NULL;
	}
	join = ustack_join_alloc_raw(cb, data);
	if (!join)
		return NULL;
	join->tep = tep;
	if (find_formats(join)) {
		err = errno;
		ustack_join_free(join);
		errno = err;
		return NULL;
	}
	return join;
}

/**
 * ustack_join_set_limits - bound the memory of a join
 * @join: the join
 * @max_cookies: user stacks awaited at once (default 65536)
 * @max_events: events waiting for their user stack (default 1 << 20)
 * @max_tasks: tasks whose last entry is kept (default 4096)
 *
 * Past a limit the oldest is delivered as USTACK_NEVER_ARRIVED with
 * USTACK_EV_EVICTED (or dropped, for tasks).  A zero leaves that limit as
 * it is.
 *
 * Returns 0, or -1 with errno EINVAL for a NULL @join.
 */
int ustack_join_set_limits(struct ustack_join *join, size_t max_cookies,
			   size_t max_events, size_t max_tasks)
{
	if (!join) {
		errno = EINVAL;
		return -1;
	}
	if (max_cookies)
		join->max_cookies = max_cookies;
	if (max_events)
		join->max_events = max_events;
	if (max_tasks)
		join->max_tasks = max_tasks;
	return 0;
}

/**
 * ustack_join_set_flags - choose what else a join delivers
 * @join: the join
 * @flags: USTACK_JOIN_ALL_EVENTS (events without kernel stack or cookie
 *	too, as USTACK_NO_COOKIE), USTACK_JOIN_UNSEEN_EVENTS (a cookie
 *	record whose asking event is not in the stream, as an event of its
 *	own with USTACK_EV_UNSEEN), or 0
 *
 * Returns 0, or -1 with errno EINVAL for a NULL @join or an unknown flag.
 */
int ustack_join_set_flags(struct ustack_join *join, unsigned int flags)
{
	if (!join ||
	    (flags & ~(USTACK_JOIN_ALL_EVENTS | USTACK_JOIN_UNSEEN_EVENTS))) {
		errno = EINVAL;
		return -1;
	}
	join->flags = flags;
	return 0;
}

/**
 * ustack_join_set_instance - name the instance a join's events come from
 * @join: the join
 * @name: the name put in ustack_event.instance; NULL or "" for the top
 *        instance
 *
 * Returns 0, or -1 with errno set: EINVAL for a NULL @join, ENOMEM.
 */
int ustack_join_set_instance(struct ustack_join *join, const char *name)
{
	char *s;

	if (!join) {
		errno = EINVAL;
		return -1;
	}
	s = strdup(name ? name : "");
	if (!s)
		return -1;
	free(join->instance);
	join->instance = s;
	return 0;
}

int ustack_join_stopped(struct ustack_join *join)
{
	return join->stopped;
}

/**
 * ustack_join_get_stats - the counts of a join
 * @join: the join
 * @stats: filled with the counts: records fed, deliveries by status,
 *	late requests, early and orphan user stacks, pending and peak
 *	cookies and events, and signs of a damaged trace (bad frames,
 *	malformed records)
 *
 * Returns 0, or -1 with errno EINVAL for a NULL argument.
 */
int ustack_join_get_stats(struct ustack_join *join,
			  struct ustack_join_stats *stats)
{
	if (!join || !stats) {
		errno = EINVAL;
		return -1;
	}
	*stats = join->stats;
	return 0;
}

static void held_free(struct held *h)
{
	if (!h)
		return;
	free(h->kframes);
	free(h->data);
	free(h);
}

static void count_delivery(struct ustack_join_stats *st,
			   enum ustack_status status, unsigned int flags)
{
	st->delivered++;
	switch (status) {
	case USTACK_COMPLETE:
		st->complete++;
		break;
	case USTACK_TRUNCATED:
		st->truncated++;
		break;
	case USTACK_EMPTY:
		st->empty++;
		break;
	case USTACK_NEVER_ARRIVED:
		st->never_arrived++;
		break;
	case USTACK_NO_COOKIE:
		st->no_cookie++;
		break;
	case USTACK_LOST:
		st->lost++;
		break;
	}
	if (flags & USTACK_EV_EVICTED)
		st->evicted++;
	if (flags & USTACK_EV_LATE)
		st->late++;
}

/*
 * Hand one event to the user and free it.  Events are still freed after a
 * callback asked to stop, they are just not delivered.
 */
static void deliver(struct ustack_join *join, struct held *h,
		    enum ustack_status status, const struct entry *t,
		    unsigned int flags)
{
	struct tep_record rec;
	struct ustack_event ev;
	int ret;

	count_delivery(&join->stats, status, flags);
	if (join->stopped)
		goto out;

	memset(&rec, 0, sizeof(rec));
	rec.ts = h->ts;
	rec.offset = h->offset;
	rec.cpu = h->cpu;
	rec.size = h->size;
	rec.record_size = h->size;
	rec.data = h->data;
	rec.ref_count = 1;

	memset(&ev, 0, sizeof(ev));
	ev.instance = join->instance;
	ev.tep = join->tep;
	ev.event = h->event;
	ev.record = &rec;
	ev.ts = h->ts;
	ev.cpu = h->cpu;
	ev.pid = h->pid;
	ev.tgid = t ? t->tgid : -1;
	ev.cookie = h->has_c ? h->cookie : 0;
	ev.status = status;
	ev.flags = flags | (h->unseen ? USTACK_EV_UNSEEN : 0);
	ev.nr_kernel = h->nr_k;
	ev.kernel = h->kframes;
	if (t) {
		ev.nr_user = t->nr;
		ev.user = t->frames;
		ev.depth = t->depth;
		ev.stack_offset = t->offset;
		ev.unwinder = unwind_rec_unwinder(t->flags);
	}
	if (h->has_c)
		ev.cookie_offset = h->cookie_offset;
	ret = join->cb(&ev, join->cb_data);
	if (ret)
		join->stopped = ret;
out:
	held_free(h);
}

static enum ustack_status entry_status(const struct entry *t)
{
	if (t->flags & USTACK_STACK_TRUNCATED)
		return USTACK_TRUNCATED;
	if (!t->nr)
		return USTACK_EMPTY;
	return USTACK_COMPLETE;
}

/* The kernel answered from the task's cache: a late request. */
static unsigned int entry_flags(const struct entry *t)
{
	return t->flags & USTACK_STACK_LATE ? USTACK_EV_LATE : 0;
}

/* ---- pending table ---- */

static inline size_t off_hash(int cpu, unsigned long long offset)
{
	return hash_key(cpu, offset);
}

static struct held **off_slot(struct ustack_join *join, int cpu,
			      unsigned long long offset)
{
	return &join->otab[off_hash(cpu, offset) & (join->obuckets - 1)];
}

static void off_grow(struct ustack_join *join)
{
	struct held **tab, *h, *n;
	size_t nb = join->obuckets * 2;
	size_t i, b;

	tab = calloc(nb, sizeof(*tab));
	if (!tab)
		return;		/* keep the longer chains */
	for (i = 0; i < join->obuckets; i++) {
		for (h = join->otab[i]; h; h = n) {
			n = h->onext;
			b = off_hash(h->cpu, h->offset) & (nb - 1);
			h->onext = tab[b];
			tab[b] = h;
		}
	}
	free(join->otab);
	join->otab = tab;
	join->obuckets = nb;
}

static void off_add(struct ustack_join *join, struct held *h)
{
	struct held **hp = off_slot(join, h->cpu, h->offset);

	h->onext = *hp;
	*hp = h;
	if (join->stats.pending_events > join->obuckets * 2)
		off_grow(join);
}

static void off_del(struct ustack_join *join, struct held *h)
{
	struct held **hp = off_slot(join, h->cpu, h->offset);

	for (; *hp; hp = &(*hp)->onext) {
		if (*hp == h) {
			*hp = h->onext;
			return;
		}
	}
}

static struct pending **pending_slot(struct ustack_join *join, int pid,
				     unsigned long long cookie)
{
	struct pending **pp;

	pp = &join->ptab[hash_key(pid, cookie) & (join->pbuckets - 1)];
	while (*pp && ((*pp)->pid != pid || (*pp)->cookie != cookie))
		pp = &(*pp)->hnext;
	return pp;
}

static void pending_grow(struct ustack_join *join)
{
	struct pending **tab, *p, *n;
	size_t nb = join->pbuckets * 2;
	size_t i, b;

	tab = calloc(nb, sizeof(*tab));
	if (!tab)
		return;		/* keep the longer chains */
	for (i = 0; i < join->pbuckets; i++) {
		for (p = join->ptab[i]; p; p = n) {
			n = p->hnext;
			b = hash_key(p->pid, p->cookie) & (nb - 1);
			p->hnext = tab[b];
			tab[b] = p;
		}
	}
	free(join->ptab);
	join->ptab = tab;
	join->pbuckets = nb;
}

/* Unlink p from the table and the age list; the caller frees it. */
static void pending_unlink(struct ustack_join *join, struct pending *p)
{
	struct pending **pp = pending_slot(join, p->pid, p->cookie);

	if (*pp == p)
		*pp = p->hnext;
	if (p->prev)
		p->prev->next = p->next;
	else
		join->pold = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		join->pnew = p->prev;
	join->stats.pending_cookies--;
	join->stats.pending_events -= p->nr;
}

static void pending_deliver(struct ustack_join *join, struct pending *p,
			    enum ustack_status status, const struct entry *t,
			    unsigned int flags)
{
	struct held *h, *n;

	pending_unlink(join, p);
	for (h = p->head; h; h = n) {
		n = h->next;
		off_del(join, h);
		deliver(join, h, status, t, flags);
	}
	free(p);
}

static void evict_over_limit(struct ustack_join *join)
{
	while (join->pold &&
	       (join->stats.pending_cookies > join->max_cookies ||
		join->stats.pending_events > join->max_events))
		pending_deliver(join, join->pold, USTACK_NEVER_ARRIVED, NULL,
				USTACK_EV_EVICTED);
}

static int pending_add(struct ustack_join *join, struct held *h)
{
	struct pending **pp, *p;

	pp = pending_slot(join, h->pid, h->cookie);
	p = *pp;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -1;
		p->pid = h->pid;
		p->cookie = h->cookie;
		p->tail = &p->head;
		*pp = p;
		p->prev = join->pnew;
		if (join->pnew)
			join->pnew->next = p;
		else
			join->pold = p;
		join->pnew = p;
		join->stats.pending_cookies++;
		if (join->stats.pending_cookies > join->stats.peak_cookies)
			join->stats.peak_cookies = join->stats.pending_cookies;
		if (join->stats.pending_cookies > join->pbuckets * 2)
			pending_grow(join);
	}
	h->next = NULL;
	*p->tail = h;
	p->tail = &h->next;
	p->nr++;
	join->stats.pending_events++;
	if (join->stats.pending_events > join->stats.peak_events)
		join->stats.peak_events = join->stats.pending_events;
	off_add(join, h);
	evict_over_limit(join);
	return 0;
}

/* ---- per-task cache of the current entry's user stack ---- */

static struct task **task_slot(struct ustack_join *join, int pid)
{
	struct task **tp;

	tp = &join->ttab[hash_key(pid, 0) & (join->tbuckets - 1)];
	while (*tp && (*tp)->pid != pid)
		tp = &(*tp)->hnext;
	return tp;
}

static void task_lru_unlink(struct ustack_join *join, struct task *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		join->told = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		join->tnew = t->prev;
	t->prev = t->next = NULL;
}

static void task_lru_touch(struct ustack_join *join, struct task *t)
{
	if (join->tnew == t)
		return;
	task_lru_unlink(join, t);
	t->prev = join->tnew;
	if (join->tnew)
		join->tnew->next = t;
	else
		join->told = t;
	join->tnew = t;
}

static void entry_drop(struct ustack_join *join, struct entry *e)
{
	if (e->valid && !e->used)
		join->stats.orphan_stacks++;
	free(e->frames);
	memset(e, 0, sizeof(*e));
}

static void task_remove(struct ustack_join *join, struct task *t)
{
	struct task **tp = task_slot(join, t->pid);
	int i;

	if (*tp == t)
		*tp = t->hnext;
	task_lru_unlink(join, t);
	for (i = 0; i < TASK_ENTRIES; i++)
		entry_drop(join, &t->ent[i]);
	free(t);
	join->ntasks--;
}

static void task_grow(struct ustack_join *join)
{
	struct task **tab, *t, *n;
	size_t nb = join->tbuckets * 2;
	size_t i, b;

	tab = calloc(nb, sizeof(*tab));
	if (!tab)
		return;
	for (i = 0; i < join->tbuckets; i++) {
		for (t = join->ttab[i]; t; t = n) {
			n = t->hnext;
			b = hash_key(t->pid, 0) & (nb - 1);
			t->hnext = tab[b];
			tab[b] = t;
		}
	}
	free(join->ttab);
	join->ttab = tab;
	join->tbuckets = nb;
}

static struct task *task_get(struct ustack_join *join, int pid, bool create)
{
	struct task **tp = task_slot(join, pid);
	struct task *t = *tp;

	if (t || !create)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	*tp = t;
	t->prev = join->tnew;
	if (join->tnew)
		join->tnew->next = t;
	else
		join->told = t;
	join->tnew = t;
	join->ntasks++;
	if (join->ntasks > join->tbuckets * 2)
		task_grow(join);
	while (join->ntasks > join->max_tasks && join->told != t)
		task_remove(join, join->told);
	return t;
}

/* ---- per-CPU open events ---- */

static struct cpu_open *cpu_get(struct ustack_join *join, int cpu)
{
	struct cpu_open *c;
	int n;

	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= join->nr_cpus) {
		n = cpu + 1 > 2 * join->nr_cpus ? cpu + 1 : 2 * join->nr_cpus;
		c = realloc(join->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + join->nr_cpus, 0,
		       (n - join->nr_cpus) * sizeof(*c));
		join->cpus = c;
		join->nr_cpus = n;
	}
	return &join->cpus[cpu];
}

static void open_remove(struct cpu_open *c, int i)
{
	memmove(&c->ev[i], &c->ev[i + 1], (c->nr - i - 1) * sizeof(c->ev[0]));
	c->nr--;
}

/* An open event that will get no cookie any more. */
static void open_finish(struct ustack_join *join, struct held *h)
{
	if (h->has_k || (join->flags & USTACK_JOIN_ALL_EVENTS))
		deliver(join, h, USTACK_NO_COOKIE, NULL, 0);
	else
		held_free(h);
}

/* A held event made of in, with a copy of its record. */
static struct held *held_new(const struct ustack_input *in)
{
	struct held *h;

	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	if (in->size > 0 && in->data) {
		h->data = malloc(in->size);
		if (!h->data) {
			free(h);
			return NULL;
		}
		memcpy(h->data, in->data, in->size);
		h->size = in->size;
	}
	h->ts = in->ts;
	h->offset = in->offset;
	h->cpu = in->cpu;
	h->pid = in->pid;
	h->event = in->event;
	return h;
}

static int feed_event(struct ustack_join *join, const struct ustack_input *in)
{
	struct cpu_open *c = cpu_get(join, in->cpu);
	struct held *h;

	if (!c) {
		errno = in->cpu < 0 ? EINVAL : ENOMEM;
		return -1;
	}
	h = held_new(in);
	if (!h)
		return -1;
	if (c->nr == USTACK_JOIN_MAX_OPEN) {
		struct held *old = c->ev[0];

		open_remove(c, 0);
		open_finish(join, old);
	}
	c->ev[c->nr++] = h;
	return 0;
}

/*
 * The open event of in->pid on in->cpu that a kernel stack (or, with
 * for_cookie, a cookie record) belongs to: the newest one still lacking
 * it.  Its index is stored in *idx.  None: the record is counted as stray.
 */
static struct held *open_lookup(struct ustack_join *join,
				const struct ustack_input *in, bool for_cookie,
				struct cpu_open **cp, int *idx)
{
	struct cpu_open *c = cpu_get(join, in->cpu);
	int i;

	for (i = c ? c->nr - 1 : -1; i >= 0; i--) {
		struct held *h = c->ev[i];

		if (h->pid != in->pid || h->has_c)
			continue;
		if (!for_cookie && h->has_k)
			continue;
		*cp = c;
		*idx = i;
		return h;
	}
	if (c)
		join->stats.stray++;
	return NULL;
}

/* The kernel frames of h are these (a copy), whatever it had before. */
static int held_set_kernel(struct held *h, const struct ustack_input *in)
{
	free(h->kframes);
	h->kframes = NULL;
	h->nr_k = 0;
	h->has_k = true;
	if (in->nr <= 0)
		return 0;
	h->kframes = malloc(in->nr * sizeof(*h->kframes));
	if (!h->kframes)
		return -1;
	memcpy(h->kframes, in->frames, in->nr * sizeof(*h->kframes));
	h->nr_k = in->nr;
	return 0;
}

static int feed_kstack(struct ustack_join *join, const struct ustack_input *in)
{
	struct cpu_open *c;
	struct held *h;
	int i;

	h = open_lookup(join, in, false, &c, &i);
	if (!h)
		return 0;
	return held_set_kernel(h, in);
}

static struct entry *entry_find(struct task *t, unsigned long long cookie)
{
	int i;

	for (i = 0; t && i < TASK_ENTRIES; i++)
		if (t->ent[i].valid && t->ent[i].cookie == cookie)
			return &t->ent[i];
	return NULL;
}

/*
 * The kept user stack of in->cookie under another pid that answers the
 * cookie record in: the stack's pid field or tgid is in->pid (a thread
 * that is not the group leader asked, then execed and took the leader's
 * pid, its tgid).  Cookies are unique, so the stack is found by cookie,
 * through the last pid each cookie's stack was kept under.
 */
static struct entry *entry_other_pid(struct ustack_join *join,
				     const struct ustack_input *in,
				     struct task **tp)
{
	const struct recent *r;
	struct entry *e;

	r = &join->recent[hash_key(0, in->cookie) & (RECENT_COOKIES - 1)];
	if (r->cookie != in->cookie || r->pid == in->pid)
		return NULL;
	*tp = task_get(join, r->pid, false);
	e = entry_find(*tp, in->cookie);
	if (!e || !e->first_pid ||
	    (e->first_pid != in->pid && e->tgid != in->pid))
		return NULL;
	return e;
}

static int feed_cookie(struct ustack_join *join, const struct ustack_input *in)
{
	struct cpu_open *c;
	struct entry *e;
	struct task *t;
	struct held *h;
	int i;

	h = open_lookup(join, in, true, &c, &i);
	if (h) {
		open_remove(c, i);
	} else if (join->flags & USTACK_JOIN_UNSEEN_EVENTS) {
		/* the request is here, the event that made it is not */
		h = held_new(in);
		if (!h)
			return -1;
		h->event = NULL;
		h->unseen = true;
	} else {
		return 0;
	}
	h->has_c = true;
	h->cookie = in->cookie;
	h->cookie_offset = in->offset;
	/* the cookie record carries the kernel stack of its event */
	if (held_set_kernel(h, in) < 0) {
		held_free(h);
		return -1;
	}

	t = task_get(join, in->pid, false);
	e = entry_find(t, in->cookie);
	if (!e)
		e = entry_other_pid(join, in, &t);
	if (e) {
		/* A late request, or the user stack came first. */
		if (!e->used)
			join->stats.early_stacks++;
		deliver(join, h, entry_status(e), e,
			(e->used ? USTACK_EV_LATE : 0) | entry_flags(e));
		e->used = true;
		task_lru_touch(join, t);
		return 0;
	}
	/* the kernel says no user stack will come for it */
	if (in->flags & USTACK_COOKIE_NO_USER_STACK) {
		deliver(join, h, USTACK_LOST, NULL, 0);
		return 0;
	}
	if (pending_add(join, h) < 0) {
		held_free(h);
		return -1;
	}
	return 0;
}

/*
 * The user stack answers its cookie under its common_pid and, from a kernel
 * that writes the field, under its pid (the entry's first request) and its
 * tgid (the pid a thread that is not the leader takes when it execs).
 */
static int feed_ustack(struct ustack_join *join, const struct ustack_input *in)
{
	int pids[3] = { in->pid, in->first_pid, in->tgid };
	struct pending **pp;
	struct recent *r;
	struct entry *e;
	struct task *t;
	int i;

	t = task_get(join, in->pid, true);
	if (!t)
		return -1;
	e = entry_find(t, in->cookie);
	if (!e) {
		/* a free slot, else the oldest entry of the task */
		e = &t->ent[0];
		for (i = 0; i < TASK_ENTRIES; i++) {
			if (!t->ent[i].valid) {
				e = &t->ent[i];
				break;
			}
			if (t->ent[i].seq < e->seq)
				e = &t->ent[i];
		}
	}
	entry_drop(join, e);
	e->cookie = in->cookie;
	e->tgid = in->tgid;
	e->first_pid = in->first_pid;
	e->flags = in->flags;
	e->depth = in->depth;
	e->seq = ++join->seq;
	e->offset = in->offset;
	if (in->nr > 0) {
		e->frames = malloc(in->nr * sizeof(*e->frames));
		if (!e->frames)
			return -1;
		memcpy(e->frames, in->frames, in->nr * sizeof(*e->frames));
		e->nr = in->nr;
	}
	e->valid = true;
	task_lru_touch(join, t);
	r = &join->recent[hash_key(0, in->cookie) & (RECENT_COOKIES - 1)];
	r->cookie = in->cookie;
	r->pid = in->pid;

	for (i = 0; i < (in->first_pid ? 3 : 1); i++) {
		if (pids[i] <= 0 || (i && pids[i] == in->pid) ||
		    (i == 2 && pids[2] == pids[1]))
			continue;
		pp = pending_slot(join, pids[i], in->cookie);
		if (*pp) {
			e->used = true;
			pending_deliver(join, *pp, entry_status(e),
					e, entry_flags(e));
		}
	}
	return 0;
}

int ustack_join_feed(struct ustack_join *join, const struct ustack_input *in)
{
	if (!join || !in) {
		errno = EINVAL;
		return -1;
	}
	join->stats.records++;
	switch (in->type) {
	case USTACK_IN_EVENT:
		return feed_event(join, in);
	case USTACK_IN_KSTACK:
		return feed_kstack(join, in);
	case USTACK_IN_COOKIE:
		return feed_cookie(join, in);
	case USTACK_IN_USTACK:
		return feed_ustack(join, in);
	}
	errno = EINVAL;
	return -1;
}

/* ---- decoding records ---- */

/*
 * Where a return address can be, on x86-64: kernel text and modules live
 * in the top 2 GiB, user code below the 47-bit user address limit (a
 * process must ask for mappings above it even where 5-level paging
 * allows them), and the first page is never mapped.  Frames outside are
 * damage, not code.  Except a user frame of 0: the 7.3 frame-pointer
 * walker records a saved return address of 0 as it is (seen in 32-bit
 * tasks, recorded in tests/fixtures/orphan-stacks.dat), so 0 is the
 * kernel's, not damage.
 *
 * On s390x kernel and user space are separate address spaces, with
 * addresses that overlap (the kernel's text near 0x3ffe0000000, user
 * libraries and stacks near 0x3ff80000000), and user space reaches up to
 * the last page (TASK_SIZE_MAX is -PAGE_SIZE): the side says nothing of
 * the address, but an instruction address is even.
 */
#define KERNEL_TEXT_START	0xffffffff80000000ULL
#define USER_ADDR_END		0x0000800000000000ULL
#define FIRST_ADDR		0x1000ULL
#define S390X_ADDR_END		0xfffffffffffff000ULL

/**
 * ustack_frame_plausible - whether an address can be a return address
 * @addr: the frame
 * @kernel: USTACK_FRAME_KERNEL for a kernel frame, USTACK_FRAME_USER for a
 *	 user frame, or'd with USTACK_FRAME_S390X for s390x's rules
 *	 (ustack_frame_arch())
 *
 * On x86-64 a kernel frame lies in the kernel's upper half (the ftrace
 * trampoline marker USTACK_FTRACE_TRAMPOLINE too), a user frame below the
 * 47-bit end of user space and above the first pages, or is 0 (the 7.3
 * walker's end mark).  Readers count the other frames as damage.
 *
 * Returns 1 when @addr is plausible, 0 when it is not.
 */
int ustack_frame_plausible(unsigned long long addr, int kernel)
{
	if (kernel & USTACK_FRAME_S390X) {
		if (!(kernel & USTACK_FRAME_KERNEL) && !addr)
			return 1;
		if ((kernel & USTACK_FRAME_KERNEL) && addr == USTACK_FTRACE_TRAMPOLINE)
			return 1;
		return addr >= FIRST_ADDR && addr < S390X_ADDR_END && !(addr & 1);
	}
	if (kernel)
		return (addr >= KERNEL_TEXT_START && addr != ~0ULL) ||
		       addr == USTACK_FTRACE_TRAMPOLINE;
	return !addr || (addr >= FIRST_ADDR && addr < USER_ADDR_END);
}

/* pid_max can be at most 4M (PID_MAX_LIMIT) */
#define PID_LIMIT		(4 * 1024 * 1024)

static void count_bad_frames(struct ustack_join *join,
			     const unsigned long long *frames, int nr,
			     int kernel)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (ustack_frame_plausible(frames[i], kernel | ustack_frame_arch(join->tep)))
			continue;
		if (kernel)
			join->stats.bad_kernel_frames++;
		else
			join->stats.bad_user_frames++;
	}
}

/*
 * The size of a kernel_stack disagrees with its record: more entries than
 * the record holds, or addresses after the last one.  The kernel sizes the
 * record to the entries (up to 4 bytes of padding); older kernels fill a
 * fixed array with 0 or end it with ULONG_MAX, which are no addresses.
 */
static bool kstack_size_damaged(struct ustack_join *join,
				struct tep_record *record,
				const struct unwind_rec_span *sp,
				unsigned long long size)
{
	struct unwind_rec_span all = *sp;
	unsigned long long addr, end;
	int room, off = join->kstack.f[KS_CALLER]->offset;

	if (off < 0 || off > record->size)
		return false;
	room = (record->size - off) / sp->esize;
	if (size > (unsigned long long)room)
		return true;
	end = sp->esize == 4 ? 0xffffffffULL : ~0ULL;
	all.nr = room;
	for (; (int)size < room; size++) {
		addr = unwind_rec_addr(join->tep, &all, size);
		if (addr && addr != end)
			return true;
	}
	return false;
}

/*
 * The frames of a __data_loc array f are not where the kernel puts them:
 * right after the fixed fields (f, the data_loc, is the last of them) and
 * last in the record, which the ring buffer pads to 4 bytes (8 on some
 * architectures).  No frames: then only no room for any may be left.
 */
static bool frames_misplaced(struct tep_record *record,
			     const struct tep_format_field *f,
			     const struct unwind_rec_span *sp)
{
	long long fixed = f->offset + f->size;
	long long start = sp->data - (const char *)record->data;
	long long end = start + (long long)sp->nr * sp->esize;

	if (!sp->nr)
		return record->size - fixed >= 8;
	return start < fixed || record->size - end >= 8;
}

/*
 * The user stack's values cannot be the kernel's: no such process id, or
 * a depth at odds with the frames (more than them exactly when
 * truncated, and a truncated stack has frames).
 */
static bool ustack_implausible(const struct ustack_input *in,
			       unsigned long long tgid)
{
	if (!tgid || tgid >= PID_LIMIT)
		return true;
	if (in->flags & USTACK_STACK_TRUNCATED)
		return !in->nr || in->depth <= (unsigned int)in->nr;
	return in->depth != (unsigned int)in->nr;
}

static int decode_kstack(struct ustack_join *join, struct tep_record *record,
			 struct ustack_input *in, struct unwind_rec_span *sp)
{
	struct tep_format_field **f = join->kstack.f;
	unsigned long long size;

	in->type = USTACK_IN_KSTACK;
	if (unwind_rec_kstack(join->tep, record, f[KS_SIZE], f[KS_CALLER], sp))
		return -1;
	if (!unwind_rec_num(join->tep, record, f[KS_SIZE], &size) &&
	    kstack_size_damaged(join, record, sp, size))
		join->stats.malformed++;
	return 0;
}

static int decode_cookie(struct ustack_join *join, struct tep_record *record,
			 struct ustack_input *in, struct unwind_rec_span *sp)
{
	struct tep_format_field **f = join->cookie.f;
	unsigned long long flags;

	in->type = USTACK_IN_COOKIE;
	if (unwind_rec_num(join->tep, record, f[CK_COOKIE], &in->cookie) ||
	    unwind_rec_num(join->tep, record, f[CK_FLAGS], &flags) ||
	    unwind_rec_dynamic(join->tep, record, f[CK_KERNEL], sp))
		return -1;
	in->flags = (unsigned int)flags;
	/* the request itself, for USTACK_JOIN_UNSEEN_EVENTS */
	in->data = record->data;
	in->size = record->size;
	if (frames_misplaced(record, f[CK_KERNEL], sp))
		join->stats.malformed++;
	return 0;
}

static int decode_ustack(struct ustack_join *join, struct tep_record *record,
			 struct ustack_input *in, struct unwind_rec_span *sp)
{
	struct tep_format_field **f = join->ustack.f;
	unsigned long long tgid, flags, depth, pid;

	in->type = USTACK_IN_USTACK;
	if (unwind_rec_num(join->tep, record, f[US_COOKIE], &in->cookie) ||
	    unwind_rec_num(join->tep, record, f[US_TGID], &tgid) ||
	    unwind_rec_num(join->tep, record, f[US_FLAGS], &flags) ||
	    unwind_rec_num(join->tep, record, f[US_DEPTH], &depth) ||
	    unwind_rec_dynamic(join->tep, record, f[US_FRAMES], sp))
		return -1;
	in->tgid = (int)tgid;
	in->flags = (unsigned int)flags;
	in->depth = (unsigned int)depth;
	in->nr = sp->nr;
	if (ustack_implausible(in, tgid) ||
	    frames_misplaced(record, f[US_FRAMES], sp))
		join->stats.malformed++;
	if (join->ustack_pid &&
	    !unwind_rec_num(join->tep, record, join->ustack_pid, &pid)) {
		if (pid && pid < PID_LIMIT)
			in->first_pid = (int)pid;
		else
			join->stats.malformed++;
	}
	return 0;
}

static void decode_event(struct ustack_join *join, struct tep_record *record,
			 struct ustack_input *in, int type)
{
	in->type = USTACK_IN_EVENT;
	in->event = tep_find_event(join->tep, type);
	/*
	 * An id no format has: a damaged header (when the user stack formats
	 * are missing, their records are these; the readers warn about that
	 * on their own).
	 */
	if (!in->event && join->ustack.id >= 0)
		join->stats.malformed++;
	in->data = record->data;
	in->size = record->size;
}

static bool is_type(const struct field_set *set, int type)
{
	return set->id >= 0 && type == set->id;
}

/*
 * Decode a record into in, and the span of its frames into sp (none for
 * an event).  -1: too short for its format, or its frames lie outside.
 */
static int decode(struct ustack_join *join, struct tep_record *record,
		  struct ustack_input *in, struct unwind_rec_span *sp)
{
	int type = tep_data_type(join->tep, record);

	memset(in, 0, sizeof(*in));
	memset(sp, 0, sizeof(*sp));
	in->cpu = record->cpu;
	in->ts = record->ts;
	in->offset = record->offset;
	in->pid = tep_data_pid(join->tep, record);
	if (is_type(&join->kstack, type))
		return decode_kstack(join, record, in, sp);
	if (is_type(&join->cookie, type))
		return decode_cookie(join, record, in, sp);
	if (is_type(&join->ustack, type))
		return decode_ustack(join, record, in, sp);
	decode_event(join, record, in, type);
	return 0;
}

/* The addresses of a span, in buf when they fit, else in new memory. */
static unsigned long long *read_frames(struct ustack_join *join,
				       const struct unwind_rec_span *sp,
				       unsigned long long *buf, int nbuf)
{
	unsigned long long *out = buf;

	if (sp->nr > nbuf) {
		out = malloc(sp->nr * sizeof(*out));
		if (!out)
			return NULL;
	}
	unwind_rec_copy(join->tep, sp, out, sp->nr);
	return out;
}

#define STACK_BUF	128

static bool record_too_long(struct ustack_join *join,
			    struct tep_record *record)
{
	int sb = tep_get_sub_buffer_size(join->tep);

	return sb > 0 && (record->size > sb || record->record_size > sb);
}

/**
 * ustack_join_add_record - feed one record to a join
 * @join: the join
 * @record: a record of the stream, in its CPU's order (the join copies
 *	 what it keeps)
 *
 * Events, kernel_stack records, user_stack_cookie and
 * user_stack_deferred records all go in; events are delivered to the
 * join's callback once their stacks are known.  A record too short for
 * its format, or longer than a ring-buffer page, is counted (malformed)
 * and skipped.
 *
 * Returns 0, the non-zero value of a callback that stopped the join (then
 * every later call returns it too), or -1 with errno set (EINVAL for a bad
 * argument, ENOMEM).
 */
int ustack_join_add_record(struct ustack_join *join, struct tep_record *record)
{
	unsigned long long fbuf[STACK_BUF];
	unsigned long long *frames = fbuf;
	struct unwind_rec_span sp;
	struct ustack_input in;
	int ret;

	if (!join || !record || !join->tep || !record->data ||
	    record->size < 8) {
		errno = EINVAL;
		return -1;
	}
	if (join->stopped)
		return join->stopped;
	/*
	 * No record is longer than a ring-buffer sub-buffer: one that says
	 * so is damage (a corrupt length word), and the join would copy it.
	 */
	if (record_too_long(join, record)) {
		join->stats.records++;
		join->stats.malformed++;
		return 0;
	}

	if (decode(join, record, &in, &sp) < 0) {
		/* A record too short for its format: count it and go on. */
		join->stats.records++;
		join->stats.malformed++;
		return 0;
	}
	if (in.type != USTACK_IN_EVENT) {
		frames = read_frames(join, &sp, fbuf, STACK_BUF);
		if (!frames)
			return -1;
		count_bad_frames(join, frames, sp.nr,
				 in.type != USTACK_IN_USTACK);
		in.nr = sp.nr;
		in.frames = frames;
	}
	ret = ustack_join_feed(join, &in);
	if (frames != fbuf)
		free(frames);
	if (ret < 0)
		return ret;
	return join->stopped;
}

/**
 * ustack_join_add_file_record - feed a record read from a trace.dat file
 * @join: the join
 * @record: a record as libtracecmd read it (with its file offset), in
 *	    time order across CPUs
 *
 * What every reader of a file does with each record it reads: check that
 * it lies inside its ring-buffer page (ustack_record_check()), then feed
 * it (ustack_join_add_record()).  A record that does not fit is not fed:
 * reading its fields would read past its page.  The time order is the
 * reader's: libtracecmd's merge of the CPUs (tracecmd_iterate_events(),
 * tracecmd_read_next_data()), or entries sorted by time, CPU and offset.
 *
 * Returns what ustack_join_add_record() returns, or -1 with errno EBADMSG
 * for a record outside its page (what the reader does next is its own:
 * stop, or count it as damage and go on).
 */
int ustack_join_add_file_record(struct ustack_join *join,
				struct tep_record *record)
{
	if (!join) {
		errno = EINVAL;
		return -1;
	}
	return ustack_feed_record(join, NULL, NULL, record);
}

/**
 * ustack_feed_record - give the library one record of a trace
 * @join: the join to feed, or NULL (a pass for the maps alone)
 * @syms: the symbols told of the record's exec or load, or NULL
 * @tep: the event formats of the record's stream; NULL: @join's
 * @record: a record in time order across CPUs (libtracecmd's merge, or
 *	    entries sorted by time, CPU and offset), with its file offset
 *	    when read from a file
 *
 * The one way every reader hands a record to the library, from its own
 * read loop: the record is checked against its ring-buffer page
 * (ustack_record_check()), then given to @syms (ustack_syms_add_record():
 * the execs and the registrar's load lines) and to @join
 * (ustack_join_add_record()).  A reader that names frames after its join
 * (the maps of a frame's time need the execs after it) reads its trace
 * twice through this function: @syms alone, then @join alone.
 *
 * Returns what ustack_join_add_record() returns (0 without @join), or -1
 * with errno set: EINVAL for a bad argument, EBADMSG for a record outside
 * its page (nothing taken; the reader stops, or counts the damage and
 * goes on), ENOMEM.
 */
int ustack_feed_record(struct ustack_join *join, struct ustack_syms *syms,
		       struct tep_handle *tep, struct tep_record *record)
{
	if (!tep && join)
		tep = join->tep;
	if (!tep || !record || (!join && !syms)) {
		errno = EINVAL;
		return -1;
	}
	if (ustack_record_check(tep, record))
		return -1;	/* errno EBADMSG */
	if (syms && ustack_syms_add_record(syms, tep, record) < 0)
		return -1;
	return join ? ustack_join_add_record(join, record) : 0;
}

/**
 * ustack_join_holds - how a join holds the event of a record
 * @join: the join
 * @cpu: the CPU of the event's record
 * @offset: the record's offset (tep_record.offset)
 *
 * An event is open with nothing attached yet (its cookie or kernel stack
 * may still follow on its CPU), open with its kernel stack (delivered when
 * the next events of its CPU push it out), or pending, waiting for its
 * user stack.  A reader that prints in time order (trace-cmd report)
 * reads ahead while the event it shows is held.  Pending events are found
 * by their offset in a table of their own: however many tasks wait, an
 * answer costs the same.
 *
 * Returns USTACK_HELD_OPEN, USTACK_HELD_KERNEL, USTACK_HELD_PENDING, 0
 * when the join does not hold it (delivered, dropped, never seen), or -1
 * with errno EINVAL for a NULL @join.
 */
int ustack_join_holds(struct ustack_join *join, int cpu,
		      unsigned long long offset)
{
	struct cpu_open *c;
	struct held *h;
	int i;

	if (!join) {
		errno = EINVAL;
		return -1;
	}
	c = cpu >= 0 && cpu < join->nr_cpus ? &join->cpus[cpu] : NULL;
	for (i = 0; c && i < c->nr; i++)
		if (c->ev[i]->offset == offset)
			return c->ev[i]->has_k ? USTACK_HELD_KERNEL :
				USTACK_HELD_OPEN;
	for (h = *off_slot(join, cpu, offset); h; h = h->onext)
		if (h->offset == offset && h->cpu == cpu)
			return USTACK_HELD_PENDING;
	return 0;
}

/* ---- end ---- */

/**
 * ustack_join_flush - deliver everything a join still holds
 * @join: the join
 *
 * For the end of the stream: open events are delivered with what they
 * have, and events still waiting for their user stack as
 * USTACK_NEVER_ARRIVED.
 *
 * Returns 0, the non-zero value of a callback that stopped the join, or
 * -1 with errno EINVAL for a NULL @join.
 */
int ustack_join_flush(struct ustack_join *join)
{
	int cpu;

	if (!join) {
		errno = EINVAL;
		return -1;
	}
	for (cpu = 0; cpu < join->nr_cpus; cpu++) {
		struct cpu_open *c = &join->cpus[cpu];

		while (c->nr) {
			struct held *h = c->ev[0];

			open_remove(c, 0);
			open_finish(join, h);
		}
	}
	while (join->pold)
		pending_deliver(join, join->pold, USTACK_NEVER_ARRIVED,
				NULL, 0);
	while (join->told)
		task_remove(join, join->told);
	return join->stopped;
}

/**
 * ustack_join_free - free a join
 * @join: the join, or NULL
 *
 * Events still held are dropped, not delivered: call ustack_join_flush()
 * first to have them.
 */
void ustack_join_free(struct ustack_join *join)
{
	struct pending *p, *pn;
	struct held *h, *hn;
	int cpu, i;

	if (!join)
		return;
	for (cpu = 0; cpu < join->nr_cpus; cpu++)
		for (i = 0; i < join->cpus[cpu].nr; i++)
			held_free(join->cpus[cpu].ev[i]);
	free(join->cpus);
	for (p = join->pold; p; p = pn) {
		pn = p->next;
		for (h = p->head; h; h = hn) {
			hn = h->next;
			held_free(h);
		}
		free(p);
	}
	while (join->told)
		task_remove(join, join->told);
	free(join->ptab);
	free(join->ttab);
	free(join->otab);
	free(join->instance);
	free(join);
}
