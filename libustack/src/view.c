// SPDX-License-Identifier: LGPL-2.1
/*
 * What a viewer keeps to show the stacks of a record its user selects
 * (the KernelShark plugin): the records of deferred stacks and those
 * that change the maps, given in any order with the host's handle of
 * each; their requests (ustack_index(3)); the symbols, made at the first
 * frame named; the block of a request, of a selected record, and the
 * call tree of a time range or a task.  ustack_view(3).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <trace-seq.h>

#include "ustack-local.h"

/* the frames of one stack that are shown */
#define VIEW_MAX_FRAMES	512

/* the records that change the maps (ustack_syms_add_record()) */
static const char *const map_events[][2] = {
	{ "sched", "sched_process_exec" }, { "syscalls", "sys_exit_execve" },
	{ "ftrace", "print" },
};
#define NR_MAP_EVENTS	(sizeof(map_events) / sizeof(map_events[0]))

struct kept {
	unsigned long long	ts;
	unsigned long long	offset;
	void			*ref;
	int			cpu;
	bool			ours;	/* one of the two records */
};

struct by_ref {
	const void		*ref;
	size_t			i;	/* its request */
};

struct ustack_view {
	struct tep_handle		*tep;
	ustack_view_read_func		read;
	ustack_view_release_func	release;
	ustack_view_syms_func		syms_func;
	void				*data;
	int				ids[2 + NR_MAP_EVENTS];
	struct kept			*kept;
	size_t				nr_kept, alloc_kept;
	struct ustack_index		*index;
	struct ustack_view_request	*reqs;
	size_t				nr_reqs;
	struct by_ref			*refs;	/* NULL: to be made */
	size_t				nr_refs;
	unsigned long long		damaged;	/* not kept */
	bool				built, syms_tried;
	struct ustack_syms		*syms;
	char				*log;	/* the library's messages */
};

/**
 * ustack_view_alloc - a viewer's requests and stacks
 * @tep: the trace's event formats
 * @read: gives the record at an offset (as the host gave it in
 *	  tep_record.offset), or NULL when it cannot be read
 * @release: frees a record of @read
 * @data: for @read, @release and the function of ustack_view_set_syms_func()
 *
 * Returns the view, or NULL with errno set: EINVAL, ENOMEM, or as
 * ustack_index_alloc() (ENOENT: @tep has not the records' formats;
 * ENOTSUP: the pre-release ones).
 */
struct ustack_view *ustack_view_alloc(struct tep_handle *tep,
				      ustack_view_read_func read,
				      ustack_view_release_func release,
				      void *data)
{
	struct ustack_view *view;
	struct tep_event *ev;
	size_t i;

	if (!tep || !read || !release) {
		errno = EINVAL;
		return NULL;
	}
	view = calloc(1, sizeof(*view));
	if (!view)
		return NULL;
	*view = (struct ustack_view){ .tep = tep, .read = read,
				      .release = release, .data = data };
	for (i = 0; i < 2 + NR_MAP_EVENTS; i++) {
		ev = i < 2 ? tep_find_event_by_name(tep, USTACK_RECORD_SYSTEM,
				i ? USTACK_RECORD_STACK : USTACK_RECORD_COOKIE) :
		     tep_find_event_by_name(tep, map_events[i - 2][0],
					    map_events[i - 2][1]);
		view->ids[i] = ev ? ev->id : -1;
	}
	view->index = ustack_index_alloc(tep);
	if (!view->index) {
		ustack_view_free(view);
		return NULL;
	}
	return view;
}

/**
 * ustack_view_free - free a view, its requests and its symbols
 * @view: the view, or NULL
 */
void ustack_view_free(struct ustack_view *view)
{
	if (!view)
		return;
	free(view->kept);
	free(view->reqs);
	free(view->refs);
	ustack_index_free(view->index);
	ustack_syms_free(view->syms);
	free(view->log);
	free(view);
}

/**
 * ustack_view_set_syms_func - the host's sources of names
 * @view: the view
 * @func: called once, with the symbols the view makes at the first frame
 *	  it names (the trace's kallsyms and the execs and loads of the
 *	  records given already in), to add the host's: search
 *	  directories, the trace's directory, the maps a trace.dat saved;
 *	  non-zero: no names
 *
 * Returns 0, or -1 with errno EINVAL.
 */
int ustack_view_set_syms_func(struct ustack_view *view,
			      ustack_view_syms_func func)
{
	if (!view) {
		errno = EINVAL;
		return -1;
	}
	view->syms_func = func;
	return 0;
}

/**
 * ustack_view_reset - forget the records given (the host loads again)
 * @view: the view
 *
 * The records, the requests and the damage counted go; the symbols, once
 * made, stay.
 *
 * Returns 0, or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_view_reset(struct ustack_view *view)
{
	if (!view) {
		errno = EINVAL;
		return -1;
	}
	free(view->kept);
	free(view->reqs);
	free(view->refs);
	view->kept = NULL;
	view->reqs = NULL;
	view->refs = NULL;
	view->nr_kept = view->alloc_kept = view->nr_reqs = view->nr_refs = 0;
	view->damaged = 0;
	if (!view->built)
		return 0;
	view->built = false;
	ustack_index_free(view->index);
	view->index = ustack_index_alloc(view->tep);
	return view->index ? 0 : -1;
}

/**
 * ustack_view_add_record - give a view a record, in any order
 * @view: the view
 * @record: a record of the trace, with its offset
 * @ref: the host's handle of it (given back in the requests)
 *
 * Keeps where the two records of deferred stacks are, and those of
 * the events that change the maps (sched_process_exec,
 * sys_exit_execve, ftrace:print); the others are not taken.
 *
 * Returns 1 when kept, 0 when not taken, or -1 with errno set: EBADMSG
 * for one of the two records at odds with its format (counted as damage,
 * ustack_view_damaged()), EINVAL, EBUSY (after ustack_view_build()),
 * ENOMEM.
 */
int ustack_view_add_record(struct ustack_view *view, struct tep_record *record,
			   void *ref)
{
	struct ustack_record rec;
	struct tep_event *ev;
	struct kept *k;
	size_t i, n;
	int type;

	if (!view || !record) {
		errno = EINVAL;
		return -1;
	}
	if (view->built) {
		errno = EBUSY;
		return -1;
	}
	type = tep_data_type(view->tep, record);
	for (i = 0; i < 2 + NR_MAP_EVENTS && view->ids[i] != type; i++)
		;
	if (type < 0 || i == 2 + NR_MAP_EVENTS)
		return 0;
	ev = i < 2 ? tep_find_event(view->tep, type) : NULL;
	if (i < 2 && (!ev || ustack_record_parse(ev, record, &rec, NULL, 0) < 0)) {
		view->damaged++;
		errno = EBADMSG;
		return -1;
	}
	if (view->nr_kept == view->alloc_kept) {
		n = view->alloc_kept * 2 + 256;
		k = realloc(view->kept, n * sizeof(*k));
		if (!k)
			return -1;
		view->kept = k;
		view->alloc_kept = n;
	}
	view->kept[view->nr_kept++] = (struct kept){
		.ts = record->ts, .offset = record->offset, .ref = ref,
		.cpu = record->cpu, .ours = i < 2,
	};
	return 1;
}

/* The order libtracecmd merges CPUs in */
static int kept_cmp(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int offset_cmp(const void *a, const void *b)
{
	const struct kept *x = *(struct kept *const *)a;
	const struct kept *y = *(struct kept *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The host's handle of the kept record at @offset */
static void *ref_at(struct kept **by_off, size_t n, unsigned long long offset)
{
	struct kept key = { .offset = offset }, *k = &key, **found;

	found = offset ? bsearch(&k, by_off, n, sizeof(*by_off), offset_cmp) : NULL;
	return found ? (*found)->ref : NULL;
}

/**
 * ustack_view_build - the requests of the records given
 * @view: the view
 *
 * Reads the two records again in the trace's order (libtracecmd's merge
 * of the CPUs) and gives them to an index (ustack_index(3)): each
 * request, with the handles of its records; its event is not seen
 * (USTACK_EV_UNSEEN) until ustack_view_set_event().
 *
 * Returns 0, or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_view_build(struct ustack_view *view)
{
	const struct ustack_request *r;
	struct kept **by_off = NULL;
	struct tep_record *rec;
	size_t i, n, nr = 0;
	int err = 0;

	if (!view) {
		errno = EINVAL;
		return -1;
	}
	if (view->built)
		return 0;
	qsort(view->kept, view->nr_kept, sizeof(*view->kept), kept_cmp);
	/* damaged records count, and the pass goes on */
	for (i = 0; !err && i < view->nr_kept; i++) {
		if (!view->kept[i].ours)
			continue;
		rec = view->read(view->data, view->kept[i].offset);
		err = ustack_index_add_record(view->index, rec) && errno == ENOMEM;
		if (rec)
			view->release(view->data, rec);
	}
	/* the user stacks that never came */
	err = err || ustack_index_flush(view->index);
	r = err ? NULL : ustack_index_requests(view->index, &nr);
	by_off = err ? NULL : malloc((view->nr_kept + 1) * sizeof(*by_off));
	view->reqs = by_off ? calloc(nr + 1, sizeof(*view->reqs)) : NULL;
	if (!view->reqs) {
		free(by_off);
		errno = ENOMEM;
		return -1;
	}
	for (i = n = 0; i < view->nr_kept; i++)
		if (view->kept[i].ours)
			by_off[n++] = &view->kept[i];
	qsort(by_off, n, sizeof(*by_off), offset_cmp);
	for (i = 0; i < nr; i++) {
		view->reqs[i] = (struct ustack_view_request){
			.request = r[i], .ts = r[i].ts, .cpu = r[i].cpu, .type = -1,
			.cookie = ref_at(by_off, n, r[i].cookie_offset),
			.stack = ref_at(by_off, n, r[i].stack_offset),
		};
		/* fed alone, every cookie record is an event not seen */
		view->reqs[i].request.flags |= USTACK_EV_UNSEEN;
	}
	free(by_off);
	view->nr_reqs = nr;
	view->built = true;
	return 0;
}

/**
 * ustack_view_requests - the requests of a view
 * @view: the view
 * @nr: set to their number
 *
 * Valid until ustack_view_reset() or ustack_view_free().
 *
 * Returns the array (NULL when empty or not built), or NULL with errno
 * EINVAL.
 */
const struct ustack_view_request *ustack_view_requests(struct ustack_view *view,
						       size_t *nr)
{
	if (!view || !nr) {
		if (nr)
			*nr = 0;
		errno = EINVAL;
		return NULL;
	}
	*nr = view->nr_reqs;
	return view->nr_reqs ? view->reqs : NULL;
}

/**
 * ustack_view_set_event - the event that asked for a request
 * @view: the view
 * @i: the request
 * @type: the event's id
 * @ts: its time
 * @cpu: its CPU
 * @ref: the host's handle of it
 *
 * The host finds it among its records (ustack_record_find_event()).
 *
 * Returns 0, or -1 with errno EINVAL.
 */
int ustack_view_set_event(struct ustack_view *view, size_t i, int type,
			  unsigned long long ts, int cpu, void *ref)
{
	struct ustack_view_request *q;

	if (!view || i >= view->nr_reqs || !ref) {
		errno = EINVAL;
		return -1;
	}
	q = &view->reqs[i];
	q->event = ref;
	q->type = type;
	q->ts = ts;
	q->cpu = cpu;
	q->request.flags &= ~USTACK_EV_UNSEEN;
	free(view->refs);
	view->refs = NULL;
	return 0;
}

/**
 * ustack_view_damaged - how many records of deferred stacks are damaged
 * @view: the view
 *
 * Those ustack_view_add_record() did not take, and those the index
 * could not read (ustack_index_damaged()).
 *
 * Returns their number, or -1 with errno EINVAL.
 */
long long ustack_view_damaged(struct ustack_view *view)
{
	if (!view) {
		errno = EINVAL;
		return -1;
	}
	return view->damaged + ustack_index_damaged(view->index);
}

/* the library's messages while the view names frames: kept */
static void capture(struct ustack_view *view, bool on)
{
	ustack_log_capture(on ? &view->log : NULL);
}

static struct ustack_syms *get_syms(struct ustack_view *view)
{
	struct tep_record *r;
	size_t i;
	int err;

	if (view->syms_tried)
		return view->syms;
	view->syms_tried = true;
	view->syms = ustack_syms_alloc();
	err = !view->syms || ustack_syms_set_tep(view->syms, view->tep) ||
	      (view->syms_func && view->syms_func(view->data, view->syms));
	for (i = 0; !err && i < view->nr_kept; i++) {
		if (view->kept[i].ours)
			continue;
		r = view->read(view->data, view->kept[i].offset);
		err = r && ustack_feed_record(NULL, view->syms, view->tep, r) < 0 &&
		      errno == ENOMEM;
		if (r)
			view->release(view->data, r);
	}
	if (err) {
		ustack_syms_free(view->syms);
		view->syms = NULL;
	}
	return view->syms;
}

/* request @q as an event, its frames in @kf and @uf */
static void req_event(struct ustack_view *view,
		      const struct ustack_view_request *q,
		      struct ustack_event *ev, unsigned long long *kf,
		      unsigned long long *uf)
{
	const struct ustack_request *r = &q->request;
	struct tep_record *c = view->read(view->data, r->cookie_offset);
	struct tep_record *u = r->stack_offset ?
		view->read(view->data, r->stack_offset) : NULL;

	*ev = (struct ustack_event){
		.instance = "", .tep = view->tep, .ts = q->ts, .cpu = q->cpu,
		.event = q->event ? tep_find_event(view->tep, q->type) : NULL,
		.pid = r->pid, .tgid = r->tgid, .status = r->status,
		.flags = r->flags, .unwinder = r->unwinder, .kernel = kf,
		.user = uf, .cookie_offset = r->cookie_offset,
		.stack_offset = r->stack_offset,
	};
	if (c)
		ustack_event_parse(ev, c, u, kf, uf, VIEW_MAX_FRAMES);
	if (c)
		view->release(view->data, c);
	if (u)
		view->release(view->data, u);
}

/**
 * ustack_view_print - the block of one request
 * @view: the view, built
 * @s: where it goes
 * @i: the request
 * @flags: USTACK_PRINT_RAW (no names) or 0
 *
 * A line with its event's name ("(event not seen)" without one), task,
 * CPU and cookie, one with its time in seconds, then its stacks as
 * ustack_event_print() prints them, named with the view's symbols.
 *
 * Returns 0, or -1 with errno set (EINVAL).
 */
int ustack_view_print(struct ustack_view *view, struct trace_seq *s, size_t i,
		      unsigned int flags)
{
	unsigned long long kf[VIEW_MAX_FRAMES], uf[VIEW_MAX_FRAMES];
	struct ustack_event ev;
	int ret;

	if (!view || !s || i >= view->nr_reqs || (flags & ~USTACK_PRINT_RAW)) {
		errno = EINVAL;
		return -1;
	}
	req_event(view, &view->reqs[i], &ev, kf, uf);
	trace_seq_printf(s, "%s pid=%d cpu=%d cookie=0x%llx\ntime %.6f\n",
			 ev.event ? ev.event->name : "(event not seen)", ev.pid,
			 ev.cpu, ev.cookie, ev.ts * 1e-9);
	capture(view, true);
	ret = ustack_event_print(s, &ev, flags & USTACK_PRINT_RAW ? NULL :
				 get_syms(view), flags);
	capture(view, false);
	return ret;
}

static int ref_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct by_ref *)a)->ref;
	uintptr_t y = (uintptr_t)((const struct by_ref *)b)->ref;

	return x < y ? -1 : x > y;
}

static int by_ref_cmp(const void *a, const void *b)
{
	const struct by_ref *x = a, *y = b;

	return ref_cmp(a, b) ?: (x->i < y->i ? -1 : x->i > y->i);
}

/* every handle of a request's records, by handle, then request */
static int make_refs(struct ustack_view *view)
{
	const struct ustack_view_request *q;
	size_t i, n = 0;

	view->refs = malloc((3 * view->nr_reqs + 1) * sizeof(*view->refs));
	if (!view->refs)
		return -1;
	for (i = 0; i < view->nr_reqs; i++) {
		q = &view->reqs[i];
		if (q->event)
			view->refs[n++] = (struct by_ref){ q->event, i };
		if (q->cookie)
			view->refs[n++] = (struct by_ref){ q->cookie, i };
		if (q->stack)
			view->refs[n++] = (struct by_ref){ q->stack, i };
	}
	qsort(view->refs, n, sizeof(*view->refs), by_ref_cmp);
	view->nr_refs = n;
	return 0;
}

/**
 * ustack_view_print_selected - what a viewer shows for a selected record
 * @view: the view
 * @s: where it goes
 * @ref: the host's handle of the record
 * @links: where the handles of the records to go to from there go
 * @max: how many fit (and how many requests a user stack lists)
 * @flags: USTACK_PRINT_RAW (no names) or 0
 *
 * Once built: the block (ustack_view_print()) of each request of the
 * record (the event that asked, its cookie record, or its user stack,
 * whose first @max requests are listed after "This user stack
 * completes:"), or a line saying it asked for none.  Then a line with
 * the damage counted, and the library's messages while the view named
 * frames (where a binary was not found, say).  A link goes from an
 * event to its user stack, from a user stack to its events.
 *
 * Returns the number of links, or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_view_print_selected(struct ustack_view *view, struct trace_seq *s,
			       const void *ref, void **links, int max,
			       unsigned int flags)
{
	const struct ustack_view_request *q;
	struct by_ref key = { ref, 0 }, *b;
	int n = 0, nr = 0, shown = 0;
	long long damaged;
	void *to;

	if (!view || !s || !ref || max < 0 || (max && !links)) {
		errno = EINVAL;
		return -1;
	}
	if (view->built && !view->refs && make_refs(view))
		return -1;
	b = view->built ? bsearch(&key, view->refs, view->nr_refs,
				  sizeof(*b), ref_cmp) : NULL;
	/* the first of that handle */
	while (b && b > view->refs && b[-1].ref == ref)
		b--;
	for (; b && b < view->refs + view->nr_refs && b->ref == ref; b++) {
		q = &view->reqs[b->i];
		if (ref == q->stack && nr++ >= max)
			continue;	/* the first ones; select the others */
		if (ref == q->stack && nr == 1)
			trace_seq_puts(s, "This user stack completes:\n");
		ustack_view_print(view, s, b->i, flags);
		shown++;
		/* the user stack's record; from there, the events' */
		to = ref != q->stack ? q->stack : q->event ? q->event : q->cookie;
		if (to && n < max)
			links[n++] = to;
	}
	if (view->built && !shown)
		trace_seq_puts(s, "This event did not ask for a deferred user stack\n");
	damaged = ustack_view_damaged(view);
	if (damaged > 0)
		trace_seq_printf(s, "Damaged file: %lld records of the deferred stacks could not be read\n",
				 damaged);
	if (view->log)
		trace_seq_puts(s, view->log);
	return n;
}

/**
 * ustack_view_tree - the call tree of the stacks of a time range
 * @view: the view, built
 * @s: where it goes
 * @from: the first time (ns) of the events taken
 * @to: the last
 * @pid: the task whose events are taken; -1: all
 * @flags: USTACK_PRINT_RAW (no names) or 0
 *
 * The events' stacks (their cookie records' where not seen) go to a
 * tree (ustack_tree(3)), once each, printed as ustack --tree prints it.
 *
 * Returns the number of stacks in the tree (0: none, and nothing
 * printed), or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_view_tree(struct ustack_view *view, struct trace_seq *s,
		     unsigned long long from, unsigned long long to, int pid,
		     unsigned int flags)
{
	unsigned long long kf[VIEW_MAX_FRAMES], uf[VIEW_MAX_FRAMES];
	const struct ustack_view_request *q;
	struct ustack_tree *t;
	struct ustack_event ev;
	int n = 0, ret = 0;
	size_t i;

	if (!view || !s || !view->built || (flags & ~USTACK_PRINT_RAW)) {
		errno = EINVAL;
		return -1;
	}
	t = ustack_tree_alloc(0);
	if (!t)
		return -1;
	for (i = 0; i < view->nr_reqs; i++) {
		q = &view->reqs[i];
		if (q->ts < from || q->ts > to || (pid >= 0 && q->request.pid != pid))
			continue;
		req_event(view, q, &ev, kf, uf);
		capture(view, true);
		n += !ustack_tree_add_event(t, &ev, flags & USTACK_PRINT_RAW ?
					    NULL : get_syms(view), 1);
		capture(view, false);
	}
	if (n)
		ret = ustack_tree_print(s, t);
	ustack_tree_free(t);
	return ret < 0 ? -1 : n;
}
