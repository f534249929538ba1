// SPDX-License-Identifier: LGPL-2.1
/*
 * A look-ahead for a host that prints a trace in time order (trace-cmd
 * report): the user stack of an event comes later in the trace than the
 * event, so the host reads the trace a second time, ahead of what it
 * prints, and gives each record to the look-ahead, only as far as the
 * event being printed needs: past the record that follows it on its CPU
 * (where its cookie is), and then until the join no longer holds it.
 * What is kept is what the join holds and the stacks delivered between
 * the two read positions, never the trace.
 *
 * A task that stays in the kernel (a thread parked in futex or epoll)
 * would have the look-ahead read to the end for its event, keeping the
 * stacks of every event on the way.  So it reads at most a window of
 * records past the event it waits for.  An event not settled by then is
 * looked up in an index: a join of its own over a first pass of the
 * host's (ustack_ahead_index_record()), that keeps the stacks of the
 * events settled more than half a window after them (never, for a task
 * that did not come back).  Time stays linear, and memory grows with the
 * requests that wait that long, not with the events in between.
 * ustack_ahead(3).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

/* the stacks kept are swept of those passed when they grow to this */
#define SWEEP_MIN	1024
/* The positions the look-ahead passed: RING samples, a window apart */
#define RING		64

/* The stacks of one event, delivered by a join */
struct result {
	struct result		*next;
	unsigned long long	offset;		/* the event's record */
	struct ustack_event	ev;
	unsigned long long	frames[];	/* kernel, then user */
};

/* Stacks by the offset of their event's record */
struct result_table {
	struct result		**tab;
	size_t			nbuckets;	/* a power of two */
	size_t			nr;
};

/*
 * Where a reader was, per CPU, every (window / RING) records, for the
 * last RING samples: an event that the oldest sample had passed was read
 * about a window ago.
 */
struct ring {
	unsigned long long	*fed;		/* RING x nr_cpus offsets */
	unsigned long long	*last;		/* per CPU: last offset read */
	unsigned long long	n;		/* records read */
	unsigned long long	step;
	int			nr_cpus;
};

struct ustack_ahead {
	struct tep_handle	*tep;
	struct ustack_join	*join;
	ustack_ahead_read_func	read;
	ustack_ahead_release_func release;
	void			*data;
	unsigned long long	window;
	int			nr_cpus;
	bool			eof;
	bool			failed;		/* stacks lost: not said yet */
	int			last_cpu;	/* of the last record read */
	int			last_pid;
	unsigned long long	*shown;		/* per CPU: last offset asked */
	struct ring		ring;
	struct result_table	results;
	size_t			sweep_at;
	struct result		*given;		/* by the last call */
	/* the index: its join while it is fed, then the stacks it kept */
	struct ustack_join	*index_join;
	struct ring		index_ring;
	struct result_table	index;
	bool			index_fed;
	bool			index_stopped;	/* at a damaged record */
	bool			index_failed;	/* not said yet */
};

static inline size_t result_hash(const struct result_table *t,
				 unsigned long long offset)
{
	return (size_t)((offset * 0x9E3779B97F4A7C15ULL) >> 20) &
		(t->nbuckets - 1);
}

static int table_init(struct result_table *t)
{
	t->nbuckets = 1024;
	t->nr = 0;
	t->tab = calloc(t->nbuckets, sizeof(*t->tab));
	return t->tab ? 0 : -1;
}

static void table_grow(struct result_table *t)
{
	struct result_table n = { .nbuckets = t->nbuckets * 2, .nr = t->nr };
	struct result *res, *next;
	size_t i, h;

	n.tab = calloc(n.nbuckets, sizeof(*n.tab));
	if (!n.tab)
		return;		/* keep the longer chains */
	for (i = 0; i < t->nbuckets; i++) {
		for (res = t->tab[i]; res; res = next) {
			next = res->next;
			h = result_hash(&n, res->offset);
			res->next = n.tab[h];
			n.tab[h] = res;
		}
	}
	free(t->tab);
	*t = n;
}

static void table_add(struct result_table *t, struct result *res)
{
	size_t h = result_hash(t, res->offset);

	res->next = t->tab[h];
	t->tab[h] = res;
	if (++t->nr > t->nbuckets * 2)
		table_grow(t);
}

static struct result *table_take(struct result_table *t, int cpu,
				 unsigned long long offset)
{
	struct result **p, *res;

	if (!t->tab)
		return NULL;
	for (p = &t->tab[result_hash(t, offset)]; (res = *p); p = &res->next) {
		if (res->offset == offset && res->ev.cpu == cpu) {
			*p = res->next;
			t->nr--;
			return res;
		}
	}
	return NULL;
}

static void table_free(struct result_table *t)
{
	struct result *res;
	size_t i;

	for (i = 0; t->tab && i < t->nbuckets; i++) {
		while ((res = t->tab[i])) {
			t->tab[i] = res->next;
			free(res);
		}
	}
	free(t->tab);
	t->tab = NULL;
	t->nr = 0;
}

static int ring_init(struct ring *ring, int nr_cpus, unsigned long long window)
{
	ring->nr_cpus = nr_cpus > 0 ? nr_cpus : 1;
	ring->step = window / RING ? window / RING : 1;
	ring->n = 0;
	ring->fed = calloc((size_t)RING * ring->nr_cpus, sizeof(*ring->fed));
	ring->last = calloc(ring->nr_cpus, sizeof(*ring->last));
	return ring->fed && ring->last ? 0 : -1;
}

static void ring_free(struct ring *ring)
{
	free(ring->fed);
	free(ring->last);
	ring->fed = ring->last = NULL;
}

/* One more record was read */
static void ring_note(struct ring *ring, const struct tep_record *record)
{
	if (record->cpu >= 0 && record->cpu < ring->nr_cpus)
		ring->last[record->cpu] = record->offset;
	if (++ring->n % ring->step)
		return;
	memcpy(ring->fed + (ring->n / ring->step % RING) * ring->nr_cpus,
	       ring->last, ring->nr_cpus * sizeof(*ring->last));
}

/*
 * Was the record at @offset of @cpu read at least a window ago?  Offsets
 * only grow along a CPU.
 */
static bool ring_past(const struct ring *ring, int cpu,
		      unsigned long long offset)
{
	unsigned long long last = ring->n / ring->step;

	if (last < RING || cpu < 0 || cpu >= ring->nr_cpus)
		return false;
	/* the oldest sample kept */
	return ring->fed[(last + 1) % RING * ring->nr_cpus + cpu] >= offset;
}

static struct result *make_result(const struct ustack_event *ev)
{
	int nr = ev->nr_kernel + ev->nr_user;
	struct result *res;

	res = malloc(sizeof(*res) + nr * sizeof(res->frames[0]));
	if (!res)
		return NULL;
	res->offset = ev->record->offset;
	res->ev = *ev;
	res->ev.instance = NULL;
	res->ev.record = NULL;
	if (ev->nr_kernel)
		memcpy(res->frames, ev->kernel,
		       ev->nr_kernel * sizeof(res->frames[0]));
	if (ev->nr_user)
		memcpy(res->frames + ev->nr_kernel, ev->user,
		       ev->nr_user * sizeof(res->frames[0]));
	res->ev.kernel = res->frames;
	res->ev.user = res->frames + ev->nr_kernel;
	return res;
}

/* The join's callback: keep the stacks until the event is asked for */
static int keep_result(const struct ustack_event *ev, void *data)
{
	struct ustack_ahead *ahead = data;
	struct result *res = make_result(ev);

	if (res)
		table_add(&ahead->results, res);
	else
		ahead->failed = true;
	return 0;
}

/* The index's callback: keep what was settled late */
static int keep_late(const struct ustack_event *ev, void *data)
{
	struct ustack_ahead *ahead = data;
	struct result *res;

	if (!ring_past(&ahead->index_ring, ev->cpu, ev->record->offset))
		return 0;
	res = make_result(ev);
	if (res)
		table_add(&ahead->index, res);
	else
		ahead->index_failed = true;
	return 0;
}

/**
 * ustack_ahead_alloc - read ahead for a host that prints in time order
 * @tep: the event formats of the records the host reads ahead
 * @nr_cpus: the CPUs of the trace (or of its buffer)
 * @window: how many records to read at most past an event
 * @read: gives the next record of the host's second handle
 * @release: gives a record back to the host
 * @data: passed to @read and @release
 *
 * @read returns 1 with a record (its offset and CPU set, as libtracecmd
 * reads them) in time order across CPUs, 0 at the end of the trace (what
 * still waits is settled as never arrived), or -1 to stop there (a
 * damaged record: what waits stays unsettled).  Each record it gives
 * goes to a join (USTACK_JOIN_UNSEEN_EVENTS), then back to @release.
 *
 * Returns the look-ahead, or NULL with errno set: EINVAL, ENOMEM, or as
 * ustack_join_alloc() (ENOENT, ENOTSUP).
 */
struct ustack_ahead *ustack_ahead_alloc(struct tep_handle *tep, int nr_cpus,
					unsigned long long window,
					ustack_ahead_read_func read,
					ustack_ahead_release_func release,
					void *data)
{
	struct ustack_ahead *ahead;

	if (!tep || nr_cpus < 0 || window < 2 || !read || !release) {
		errno = EINVAL;
		return NULL;
	}
	ahead = calloc(1, sizeof(*ahead));
	if (!ahead)
		return NULL;
	ahead->tep = tep;
	ahead->read = read;
	ahead->release = release;
	ahead->data = data;
	ahead->window = window;
	ahead->nr_cpus = nr_cpus;
	ahead->sweep_at = SWEEP_MIN;
	ahead->shown = calloc(nr_cpus ? nr_cpus : 1, sizeof(*ahead->shown));
	ahead->join = ustack_join_alloc(tep, keep_result, ahead);
	if (!ahead->shown || !ahead->join || table_init(&ahead->results) ||
	    ring_init(&ahead->ring, nr_cpus, window) ||
	    /* a request whose event is not in the trace: at its cookie */
	    ustack_join_set_flags(ahead->join, USTACK_JOIN_UNSEEN_EVENTS)) {
		ustack_ahead_free(ahead);
		return NULL;
	}
	return ahead;
}

/**
 * ustack_ahead_free - free a look-ahead and the stacks it kept
 * @ahead: the look-ahead, or NULL
 */
void ustack_ahead_free(struct ustack_ahead *ahead)
{
	if (!ahead)
		return;
	ustack_join_free(ahead->join);
	ustack_join_free(ahead->index_join);
	table_free(&ahead->results);
	table_free(&ahead->index);
	ring_free(&ahead->ring);
	ring_free(&ahead->index_ring);
	free(ahead->given);
	free(ahead->shown);
	free(ahead);
}

/**
 * ustack_ahead_index_record - give the index one record of a first pass
 * @ahead: the look-ahead
 * @record: the next record, in the order @read will give them
 *
 * Before the first ustack_ahead_get(), the host may read its records
 * once and give each here, then call ustack_ahead_index_flush(): the
 * events that the look-ahead gives up on (@window records past them)
 * then get their stacks from this index.  The index stops at a record
 * outside its page.
 *
 * Returns 0, or -1 with errno set: EINVAL, EBADMSG (a damaged record:
 * the index ends before it), ENOMEM (the index is not used).
 */
int ustack_ahead_index_record(struct ustack_ahead *ahead,
			      struct tep_record *record)
{
	struct ustack_join *join;

	if (!ahead || !record || ahead->index_fed) {
		errno = EINVAL;
		return -1;
	}
	if (ahead->index_failed) {
		errno = ENOMEM;
		return -1;
	}
	if (ahead->index_stopped)
		return 0;
	if (!ahead->index_join) {
		join = ustack_join_alloc(ahead->tep, keep_late, ahead);
		ahead->index_join = join;
		if (!join || table_init(&ahead->index) ||
		    ring_init(&ahead->index_ring, ahead->nr_cpus,
			      ahead->window / 2) ||
		    ustack_join_set_flags(join, USTACK_JOIN_UNSEEN_EVENTS)) {
			ahead->index_failed = true;
			errno = ENOMEM;
			return -1;
		}
	}
	if (ustack_record_check(ahead->tep, record)) {
		ahead->index_stopped = true;
		return -1;	/* EBADMSG */
	}
	ring_note(&ahead->index_ring, record);
	return ustack_feed_record(ahead->index_join, NULL, NULL, record) < 0 ?
	       -1 : 0;
}

/**
 * ustack_ahead_index_flush - end the first pass
 * @ahead: the look-ahead
 *
 * Settles what the index's join holds; its join is freed, the stacks
 * it kept stay until asked for.
 *
 * Returns 0, or -1 with errno EINVAL.
 */
int ustack_ahead_index_flush(struct ustack_ahead *ahead)
{
	if (!ahead) {
		errno = EINVAL;
		return -1;
	}
	if (ahead->index_join && !ahead->index_failed)
		ustack_join_flush(ahead->index_join);
	ustack_join_free(ahead->index_join);
	ahead->index_join = NULL;
	ring_free(&ahead->index_ring);
	ahead->index_fed = true;
	return 0;
}

/* Read one more record into the join */
static void feed_one(struct ustack_ahead *ahead)
{
	struct tep_record *record = NULL;
	int ret;

	ret = ahead->read(ahead->data, &record);
	if (ret <= 0 || !record) {
		/* at damage, what the join holds is not shown as never
		 * arrived: the stacks may be in the damaged part */
		if (ret == 0)
			ustack_join_flush(ahead->join);
		ahead->eof = true;
		return;
	}
	ring_note(&ahead->ring, record);
	ahead->last_cpu = record->cpu;
	ahead->last_pid = tep_data_pid(ahead->tep, record);
	ustack_feed_record(ahead->join, NULL, NULL, record);
	ahead->release(ahead->data, record);
}

/* The stacks of an event the look-ahead gave up waiting for */
static struct result *index_result(struct ustack_ahead *ahead, int cpu,
				   unsigned long long offset)
{
	if (ahead->index_failed) {
		ahead->index_failed = false;
		ustack_warn("cannot index the user stacks: the stacks of events whose task stayed in the kernel for long are not shown");
	}
	return table_take(&ahead->index, cpu, offset);
}

/*
 * The stacks of @record, once the look-ahead has read far enough to know
 * them, or NULL when it asked for none.  Its cookie or kernel stack, if
 * it has one, is the record after it on its CPU: read up to that, or to
 * where its task shows up on another CPU (it moved on; this CPU may stay
 * quiet for long).  Then read on while the join still holds it: until
 * the user stack comes, or until later events of its CPU settle an
 * event that has only its kernel stack.
 */
static struct result *wait_result(struct ustack_ahead *ahead,
				  struct tep_record *record)
{
	unsigned long long *fed = ahead->ring.last;
	int cpu = record->cpu;
	struct result *res;
	int held, pid;

	if (cpu < 0 || cpu >= ahead->nr_cpus)
		return NULL;
	pid = tep_data_pid(ahead->tep, record);
	ahead->shown[cpu] = record->offset;
	while (!ahead->eof && fed[cpu] <= record->offset) {
		if (ring_past(&ahead->ring, cpu, record->offset))
			return index_result(ahead, cpu, record->offset);
		feed_one(ahead);
		if (pid > 0 && ahead->last_pid == pid &&
		    ahead->last_cpu != cpu && fed[cpu] >= record->offset)
			break;
	}
	res = table_take(&ahead->results, cpu, record->offset);
	if (res || ahead->eof)
		return res;
	/*
	 * Only the records of its CPU change how an open event is held;
	 * a pending one leaves the join only through keep_result().
	 */
	held = ustack_join_holds(ahead->join, cpu, record->offset);
	while (held >= USTACK_HELD_KERNEL) {
		if (ring_past(&ahead->ring, cpu, record->offset))
			return index_result(ahead, cpu, record->offset);
		feed_one(ahead);
		res = table_take(&ahead->results, cpu, record->offset);
		if (res || ahead->eof)
			return res;
		if (held != USTACK_HELD_PENDING && ahead->last_cpu == cpu)
			held = ustack_join_holds(ahead->join, cpu,
						 record->offset);
	}
	return NULL;
}

/*
 * Drop the stacks of events that were passed without being asked for
 * (a host's filter): offsets only grow along a CPU.
 */
static void sweep_results(struct ustack_ahead *ahead)
{
	struct result_table *t = &ahead->results;
	struct result **p, *res;
	size_t i;

	for (i = 0; i < t->nbuckets; i++) {
		p = &t->tab[i];
		while ((res = *p)) {
			if (res->ev.cpu >= 0 && res->ev.cpu < ahead->nr_cpus &&
			    res->offset < ahead->shown[res->ev.cpu]) {
				*p = res->next;
				free(res);
				t->nr--;
				continue;
			}
			p = &res->next;
		}
	}
	ahead->sweep_at = t->nr * 2 > SWEEP_MIN ? t->nr * 2 : SWEEP_MIN;
}

/**
 * ustack_ahead_get - the stacks of an event the host prints
 * @ahead: the look-ahead
 * @record: the event's record, read by the host's other handle (its
 *	    offset and CPU as @read gives them), in time order; or a
 *	    cookie record, whose request may have no event in the trace
 * @ev: where the stacks go
 *
 * Reads ahead as far as the event needs (see ustack_ahead(3)).  Asked
 * again for the same record, gives the same stacks.  *@ev is the event
 * as the join delivered it (USTACK_EV_UNSEEN for a request found at its
 * cookie record), with its record and instance NULL; it stays valid
 * until the next call.
 *
 * Returns 1 and sets *@ev, 0 when the event has no stacks (it asked for
 * none, or they are not known), or -1 with errno EINVAL.
 */
int ustack_ahead_get(struct ustack_ahead *ahead, struct tep_record *record,
		     const struct ustack_event **ev)
{
	struct result *res;

	if (!ahead || !record || !ev) {
		errno = EINVAL;
		return -1;
	}
	*ev = NULL;
	res = ahead->given;
	if (res && res->offset == record->offset && res->ev.cpu == record->cpu) {
		*ev = &res->ev;
		return 1;
	}
	free(res);
	ahead->given = res = wait_result(ahead, record);
	if (ahead->results.nr >= ahead->sweep_at)
		sweep_results(ahead);
	if (ahead->failed) {
		ahead->failed = false;
		ustack_warn("out of memory: some user stacks are not shown");
	}
	if (!res)
		return 0;
	*ev = &res->ev;
	return 1;
}
