// SPDX-License-Identifier: LGPL-2.1
/*
 * KernelShark 2.x plugin: merged kernel + deferred user stacks.
 *
 * The records (Documentation/contract.md): right after an event that
 * asks, ftrace:user_stack_cookie (cookie, flags, the event's kernel
 * stack); later, once per (instance, cookie), ftrace:user_stack_deferred
 * (cookie, tgid, flags, depth, user frames).
 *
 * Shaped as KernelShark's sched_events plugin:
 *  - loading: one event handler per record type puts the entry and its
 *    cookie into a kshark_data_container (the records of one CPU after
 *    another, as libkshark loads them);
 *  - the second pass, at the first draw (kshark_unwind_join(), given the
 *    graph's entries): the records of the two containers, in time order,
 *    read once more (the join needs their frames for its checks) and fed
 *    to libustack's join, the one ustack and the libtraceevent
 *    plugin use; the asking event of each cookie record found among the
 *    entries before it on its CPU;
 *  - the draw handler (unwind_view.cpp) marks the asking events.
 * Per request 64 bytes, no frames: the frames are read from the records
 * when a stack is shown.  The GUI part gets the view as structures
 * (unwind_stack.h).  The host workaround of this file, the Info column
 * (KernelShark has no API for it), is the shim near the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdarg.h>
#include <pthread.h>
#include <unistd.h>
#include <libgen.h>

#include <libkshark.h>
#include <libkshark-plugin.h>
#include <libkshark-tepdata.h>
#include <trace-cmd.h>
#include <event-parse.h>
#include <ustack.h>
#include "ustack-file.h"

#include "unwind_stack.h"

#define US_MAX_FRAMES	512
#define US_NONE		(-1)

/* One request, as the join delivered it: where its records are. */
struct us_req {
	int64_t		ts;		/* the asking event's (or its cookie
					 * record's) time stamp */
	int64_t		ev_off;		/* the asking event; -1: not seen */
	int64_t		cookie_off;	/* its cookie record (kernel frames) */
	int64_t		stack_off;	/* its user_stack_deferred; -1: none */
	int		ev_id;		/* the asking event's id, or -1 */
	int		pid;
	int		tgid;		/* the user stack's, else pid */
	int		cpu;
	int		next;		/* next request of the same user
					 * stack, in delivery order; -1 */
	uint64_t	cookie;
	unsigned char	status;		/* enum ustack_status */
	unsigned char	unwinder;	/* USTACK_UNWINDER_* */
};

/* offset -> index: open addressing, key -1 is a free slot */
struct us_slot {
	int64_t		off;
	int		idx;
};

struct us_table {
	struct us_slot	*s;
	size_t		n;		/* a power of 2 */
	size_t		used;
};

struct plugin_unwind_ctx {
	struct kshark_data_stream	*stream;
	struct tep_handle		*tep;
	int				cookie_id;
	int				deferred_id;
	int				kstack_id;
	/* filled by the event handlers: (entry, cookie) */
	struct kshark_data_container	*cookies;
	struct kshark_data_container	*stacks;
	/* the execs and the registrar's lines, for the names (maps_ids[]:
	 * sched_process_exec, sys_exit_execve, ftrace:print; -1 absent) */
	struct kshark_data_container	*maps_recs;
	int				maps_ids[3];
	int				handlers;	/* registered */
	size_t				n_loaded;	/* handler calls */
	int64_t				first_off;	/* the first one's */
	/* the second pass */
	int				joined;
	struct kshark_entry		**data;	/* during the pass only */
	size_t				n_data;
	struct us_table			cookie_at;	/* offset -> cookies[] */
	struct us_req			*reqs;
	int				n_reqs;
	int				cap_reqs;
	/*
	 * The offsets of asking events and cookie records map to their
	 * request, that of a user_stack_deferred to the first request it
	 * completes (the others follow through us_req.next).
	 */
	struct us_table			req_at;
	int				failed;		/* out of memory */
	unsigned int			damaged;	/* records skipped */
	const char			*note;		/* why inactive */
	struct kshark_unwind_mark	*marks;
	size_t				n_marks;
	/* the user frames' names (libustack), made when first needed */
	pthread_mutex_t			syms_lock;
	int				syms_tried;
	struct ustack_file		*file;
	struct ustack_syms		*syms;
	char				*syms_note;
	stream_get_str_func		orig_get_info;
};

static void plugin_unwind_free(struct plugin_unwind_ctx *ctx);

KS_DEFINE_PLUGIN_CONTEXT(struct plugin_unwind_ctx, plugin_unwind_free);

static int n_contexts;	/* to free the context array with the last */

static void plugin_unwind_free(struct plugin_unwind_ctx *ctx)
{
	if (!ctx)
		return;
	kshark_free_data_container(ctx->cookies);
	kshark_free_data_container(ctx->stacks);
	kshark_free_data_container(ctx->maps_recs);
	free(ctx->reqs);
	free(ctx->req_at.s);
	free(ctx->cookie_at.s);
	free(ctx->marks);
	ustack_syms_free(ctx->syms);
	ustack_file_close(ctx->file);
	free(ctx->syms_note);
	pthread_mutex_destroy(&ctx->syms_lock);
	free(ctx);
}

/* ------------------------------------------------------------------ */
/* Loading: the event handlers. */

/* Forget what was loaded and joined: KernelShark loads the entries again. */
static void ctx_reset(struct plugin_unwind_ctx *ctx)
{
	kshark_free_data_container(ctx->cookies);
	kshark_free_data_container(ctx->stacks);
	kshark_free_data_container(ctx->maps_recs);
	ctx->cookies = kshark_init_data_container();
	ctx->stacks = kshark_init_data_container();
	ctx->maps_recs = kshark_init_data_container();
	free(ctx->reqs);
	free(ctx->req_at.s);
	free(ctx->cookie_at.s);
	free(ctx->marks);
	ctx->reqs = NULL;
	ctx->n_reqs = ctx->cap_reqs = 0;
	memset(&ctx->req_at, 0, sizeof(ctx->req_at));
	memset(&ctx->cookie_at, 0, sizeof(ctx->cookie_at));
	ctx->marks = NULL;
	ctx->n_marks = 0;
	ctx->n_loaded = 0;
	ctx->joined = ctx->failed = 0;
	ctx->damaged = 0;
	if (!ctx->cookies || !ctx->stacks || !ctx->maps_recs)
		ctx->note = "The deferred stacks of this trace could not be read (out of memory)";
}

/* The context of a record being loaded, NULL when it is not used */
static struct plugin_unwind_ctx *loading(struct kshark_data_stream *stream,
					 struct kshark_entry *entry)
{
	struct plugin_unwind_ctx *ctx = __get_context(stream->stream_id);

	if (!ctx)
		return NULL;
	/*
	 * A new load of the same stream without a new plugin context (an
	 * advanced filter makes KernelShark 2.2 reload): the old entries
	 * are gone.  Loads go in the same order, so it begins with the same
	 * record.
	 */
	if (ctx->joined || (ctx->n_loaded && entry->offset == ctx->first_off))
		ctx_reset(ctx);
	if (ctx->note)
		return NULL;
	if (!ctx->n_loaded++)
		ctx->first_off = entry->offset;
	return ctx;
}

static void collect(struct kshark_data_stream *stream, void *rec,
		    struct kshark_entry *entry, int deferred)
{
	struct plugin_unwind_ctx *ctx = loading(stream, entry);
	struct tep_record *r = rec;
	struct ustack_record ur;
	struct tep_event *ev;

	if (!ctx)
		return;
	ev = tep_find_event(ctx->tep, deferred ? ctx->deferred_id :
			    ctx->cookie_id);
	if (!ev || ustack_record_parse(ev, r, &ur, NULL, 0) < 0) {
		ctx->damaged++;
		return;
	}
	if (kshark_data_container_append(deferred ? ctx->stacks :
					 ctx->cookies, entry, ur.cookie) < 0)
		ctx->failed = 1;
}

static void cookie_action(struct kshark_data_stream *stream, void *rec,
			  struct kshark_entry *entry)
{
	collect(stream, rec, entry, 0);
}

static void deferred_action(struct kshark_data_stream *stream, void *rec,
			    struct kshark_entry *entry)
{
	collect(stream, rec, entry, 1);
}

/*
 * An exec or a trace_marker line: kept, to be fed to the symbols
 * (ustack_feed_record()) when they are made, so that a frame is named in
 * the maps of its time from the stream's own loading, not a second read
 * of the file.
 */
static void maps_action(struct kshark_data_stream *stream, void *rec,
			struct kshark_entry *entry)
{
	struct plugin_unwind_ctx *ctx = loading(stream, entry);

	(void)rec;
	if (ctx && kshark_data_container_append(ctx->maps_recs, entry, 0) < 0)
		ctx->failed = 1;
}

/* ------------------------------------------------------------------ */
/* Tables of offsets. */

static size_t off_hash(int64_t off, size_t n)
{
	return (((uint64_t)off * 0x9e3779b97f4a7c15ULL) >> 20) & (n - 1);
}

static struct us_slot *slot_find(const struct us_table *t, int64_t off)
{
	size_t i;

	if (!t->n || off < 0)
		return NULL;
	for (i = off_hash(off, t->n); t->s[i].off >= 0; i = (i + 1) & (t->n - 1))
		if (t->s[i].off == off)
			return &t->s[i];
	return NULL;
}

static int slots_grow(struct us_table *t)
{
	size_t n = t->n ? t->n * 2 : 1024, i, j;
	struct us_slot *s = malloc(n * sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; i < n; i++)
		s[i].off = US_NONE;
	for (i = 0; i < t->n; i++) {
		if (t->s[i].off < 0)
			continue;
		for (j = off_hash(t->s[i].off, n); s[j].off >= 0;
		     j = (j + 1) & (n - 1))
			;
		s[j] = t->s[i];
	}
	free(t->s);
	t->s = s;
	t->n = n;
	return 0;
}

/* Map off to idx, unless it is mapped already: then return that slot. */
static struct us_slot *slot_add(struct plugin_unwind_ctx *ctx,
				struct us_table *t, int64_t off, int idx)
{
	struct us_slot *sl = slot_find(t, off);
	size_t i;

	if (sl || off < 0)
		return sl;
	if ((t->used + 1) * 2 > t->n && slots_grow(t) < 0) {
		ctx->failed = 1;
		return NULL;
	}
	for (i = off_hash(off, t->n); t->s[i].off >= 0; i = (i + 1) & (t->n - 1))
		;
	t->s[i].off = off;
	t->s[i].idx = idx;
	t->used++;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Records. */

/* The record at @off; caller holds the input mutex. */
static struct tep_record *read_at(struct plugin_unwind_ctx *ctx, int64_t off)
{
	struct tracecmd_input *in = kshark_get_tep_input(ctx->stream);

	return in && off >= 0 ? tracecmd_read_at(in, off, NULL) : NULL;
}

/* ------------------------------------------------------------------ */
/* The second pass. */

static int entry_cmp(const void *a, const void *b)
{
	const struct kshark_entry *x = (*(struct kshark_data_field_int64 **)a)->entry;
	const struct kshark_entry *y = (*(struct kshark_data_field_int64 **)b)->entry;

	/* the order libtracecmd merges CPUs in, as ustack reads them */
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int rec_pid(struct plugin_unwind_ctx *ctx, const struct kshark_entry *e)
{
	struct tep_record *r = read_at(ctx, e->offset);
	int pid = r ? tep_data_pid(ctx->tep, r) : -1;

	tracecmd_free_record(r);
	return pid;
}

/*
 * The event that asked for the request of cookie record @c: before it on
 * its CPU, the newest event of its task not taken by another cookie
 * record, among the last USTACK_JOIN_MAX_OPEN events (what the join takes
 * when it reads every record).  The pids are the records': plugins may
 * change an entry's (sched_events does).  Caller holds the input mutex.
 */
static const struct kshark_entry *asking_entry(struct plugin_unwind_ctx *ctx,
					       const struct kshark_entry *c,
					       int pid)
{
	ssize_t i = kshark_find_entry_by_time(c->ts, ctx->data, 0,
					      ctx->n_data - 1);
	const struct kshark_entry *e;
	int taken = 0, seen = 0;

	for (; i >= 0 && (size_t)i < ctx->n_data && ctx->data[i] != c &&
	       ctx->data[i]->ts == c->ts; i++)
		;
	if (i < 0 || (size_t)i >= ctx->n_data || ctx->data[i] != c)
		return NULL;
	while (--i >= 0 && seen < USTACK_JOIN_MAX_OPEN) {
		e = ctx->data[i];
		if (e->stream_id != c->stream_id || e->cpu != c->cpu ||
		    e->event_id == ctx->deferred_id ||
		    e->event_id == ctx->kstack_id || e->event_id < 0)
			continue;
		if (rec_pid(ctx, e) != pid)
			continue;
		if (e->event_id == ctx->cookie_id)
			taken++;
		else if (taken)
			taken--;
		else
			return e;
		seen += e->event_id != ctx->cookie_id;
	}
	return NULL;
}

static int note_request(const struct ustack_event *ev, void *data)
{
	struct plugin_unwind_ctx *ctx = data;
	const struct kshark_entry *c, *a = NULL;
	struct us_slot *sl;
	struct us_req *r;
	int n = ctx->n_reqs, i;

	/* a kernel stack without a cookie (a kernel thread): not ours */
	if (ev->status == USTACK_NO_COOKIE || !ev->cookie_offset)
		return 0;
	sl = slot_find(&ctx->cookie_at, ev->cookie_offset);
	if (!sl)
		return 0;
	c = ctx->cookies->data[sl->idx]->entry;
	if (n == ctx->cap_reqs) {
		int cap = ctx->cap_reqs ? ctx->cap_reqs * 2 : 256;

		r = realloc(ctx->reqs, cap * sizeof(*r));
		if (!r) {
			ctx->failed = 1;
			return 1;	/* stop: show what we have */
		}
		ctx->reqs = r;
		ctx->cap_reqs = cap;
	}
	a = asking_entry(ctx, c, ev->pid);
	r = &ctx->reqs[n];
	r->ts = a ? a->ts : c->ts;
	r->ev_off = a ? a->offset : US_NONE;
	r->ev_id = a ? a->event_id : -1;
	r->cookie_off = ev->cookie_offset;
	r->stack_off = ev->stack_offset ? (int64_t)ev->stack_offset : US_NONE;
	r->pid = ev->pid;
	r->tgid = ev->tgid >= 0 ? ev->tgid : ev->pid;
	r->cpu = ev->cpu;
	r->next = -1;
	r->cookie = ev->cookie;
	r->status = ev->status;
	r->unwinder = ev->unwinder;
	ctx->n_reqs++;

	slot_add(ctx, &ctx->req_at, r->ev_off, n);
	slot_add(ctx, &ctx->req_at, r->cookie_off, n);
	sl = slot_add(ctx, &ctx->req_at, r->stack_off, n);
	if (sl) {
		/* the user stack completes others too: append */
		for (i = sl->idx; ctx->reqs[i].next >= 0; i = ctx->reqs[i].next)
			;
		ctx->reqs[i].next = n;
	}
	return ctx->failed;
}

static int mark_cmp(const void *a, const void *b)
{
	const struct kshark_unwind_mark *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void build_marks(struct plugin_unwind_ctx *ctx)
{
	int i;

	if (!ctx->n_reqs)
		return;
	ctx->marks = malloc(ctx->n_reqs * sizeof(*ctx->marks));
	if (!ctx->marks)
		return;
	for (i = 0; i < ctx->n_reqs; i++) {
		ctx->marks[i].ts = ctx->reqs[i].ts;
		ctx->marks[i].pid = ctx->reqs[i].pid;
		ctx->marks[i].cpu = ctx->reqs[i].cpu;
	}
	ctx->n_marks = ctx->n_reqs;
	qsort(ctx->marks, ctx->n_marks, sizeof(*ctx->marks), mark_cmp);
}

/* Feed the record of @e to the join; non-zero: stop. */
static int feed(struct plugin_unwind_ctx *ctx, struct ustack_join *join,
		const struct kshark_entry *e)
{
	struct tep_record *r = read_at(ctx, e->offset);
	int ret;

	/* outside its page, or not even a header: damage, and go on */
	ret = ustack_feed_record(join, NULL, ctx->tep, r);
	if (ret < 0 && errno != ENOMEM)
		ctx->damaged++;
	tracecmd_free_record(r);
	return ret > 0;
}

int kshark_unwind_join(int sd, struct kshark_entry **data, size_t n)
{
	struct plugin_unwind_ctx *ctx = __get_context(sd);
	struct kshark_data_container *cs, *ss;
	struct ustack_join_stats st;
	struct ustack_join *join;
	ssize_t i = 0, j = 0;
	int stop = 0;

	if (!ctx || ctx->joined || ctx->note || !data || !n)
		return 0;
	ctx->joined = 1;
	cs = ctx->cookies;
	ss = ctx->stacks;
	qsort(cs->data, cs->size, sizeof(*cs->data), entry_cmp);
	qsort(ss->data, ss->size, sizeof(*ss->data), entry_cmp);
	for (i = 0; i < cs->size; i++)
		slot_add(ctx, &ctx->cookie_at, cs->data[i]->entry->offset, i);
	join = ustack_join_alloc(ctx->tep, note_request, ctx);
	if (!join || ctx->failed) {
		ustack_join_free(join);
		ctx->note = "The deferred stacks of this trace could not be read (out of memory)";
		return 1;
	}
	/* a cookie record whose event is not before it: delivered too */
	ustack_join_set_flags(join, USTACK_JOIN_UNSEEN_EVENTS);
	ctx->data = data;
	ctx->n_data = n;
	pthread_mutex_lock(&ctx->stream->input_mutex);
	for (i = 0; !stop && (i < cs->size || j < ss->size);) {
		if (j >= ss->size ||
		    (i < cs->size && entry_cmp(&cs->data[i], &ss->data[j]) < 0))
			stop = feed(ctx, join, cs->data[i++]->entry);
		else
			stop = feed(ctx, join, ss->data[j++]->entry);
	}
	ustack_join_flush(join);	/* the user stacks that never came */
	pthread_mutex_unlock(&ctx->stream->input_mutex);
	ctx->data = NULL;
	ctx->n_data = 0;
	/* records the join refused: at odds with their format */
	if (!ustack_join_get_stats(join, &st))
		ctx->damaged += st.malformed;
	ustack_join_free(join);
	if (ctx->failed)
		fprintf(stderr, "unwind_stack: out of memory: %d requests kept\n",
			ctx->n_reqs);
	build_marks(ctx);
	return 1;
}

const struct kshark_unwind_mark *kshark_unwind_marks(int sd, size_t *n)
{
	struct plugin_unwind_ctx *ctx = __get_context(sd);

	*n = ctx && ctx->joined ? ctx->n_marks : 0;
	return *n ? ctx->marks : NULL;
}

/* The request of entry @e (asking event or cookie record), or NULL. */
static const struct us_req *entry_req(struct plugin_unwind_ctx *ctx,
				      const struct kshark_entry *e)
{
	struct us_slot *sl = slot_find(&ctx->req_at, e->offset);

	return sl ? &ctx->reqs[sl->idx] : NULL;
}

/* The first request completed by the user_stack_deferred @e, or -1. */
static int first_completed(struct plugin_unwind_ctx *ctx,
			   const struct kshark_entry *e)
{
	struct us_slot *sl = slot_find(&ctx->req_at, e->offset);

	return sl && ctx->reqs[sl->idx].stack_off == e->offset ? sl->idx : -1;
}

/* ------------------------------------------------------------------ */
/* Frames, read from the records when shown. */

struct frames {
	unsigned long long	a[US_MAX_FRAMES];
	int			nr;		/* -1: unreadable */
	int			truncated;
	unsigned long long	depth;
	unsigned long long	ts;
	int			cpu;
};

/*
 * The kernel frames of the cookie record at @off, or the user frames of
 * the user_stack_deferred at @off (@kernel 0).
 */
static void read_frames(struct plugin_unwind_ctx *ctx, int64_t off,
			int kernel, struct frames *f, int max)
{
	struct ustack_record rec;
	struct tep_record *r;
	struct tep_event *ev;
	int n = -1;

	f->nr = -1;
	f->truncated = 0;
	f->depth = 0;
	pthread_mutex_lock(&ctx->stream->input_mutex);
	r = read_at(ctx, off);
	ev = r ? tep_find_event(ctx->tep, tep_data_type(ctx->tep, r)) : NULL;
	if (ev && ev->id == (kernel ? ctx->cookie_id : ctx->deferred_id))
		n = ustack_record_parse(ev, r, &rec, f->a, max);
	if (n >= 0) {
		f->nr = rec.nr < 0 ? -1 : n;
		if (!kernel) {
			f->truncated = !!(rec.flags & USTACK_STACK_TRUNCATED);
			f->depth = rec.depth;
		}
	}
	if (r) {
		f->ts = r->ts;
		f->cpu = r->cpu;
	}
	tracecmd_free_record(r);
	pthread_mutex_unlock(&ctx->stream->input_mutex);
}

/*
 * The unwinder of a request's user stack, shown only when SFrame took
 * part ("sframe", "sframe+fp"); NULL for frame pointers alone, or a
 * kernel that does not say.
 */
static const char *sframe_word(const struct us_req *q)
{
	return q->unwinder & USTACK_UNWINDER_SFRAME ?
		ustack_unwinder_name(q->unwinder) : NULL;
}

static const char *event_name(struct plugin_unwind_ctx *ctx, int id)
{
	struct tep_event *ev = id >= 0 ? tep_find_event(ctx->tep, id) : NULL;

	return ev ? ev->name : "(event not in the trace)";
}

/*
 * The symbols of the stream's user frames, from the maps that
 * trace-cmd record --proc-map saved in the file and the binaries (at
 * their recorded paths or next to the trace file; KSHARK_UNWIND_SYMDIR
 * adds a directory), made when first needed.  Caller holds syms_lock.
 */
static struct ustack_syms *get_syms(struct plugin_unwind_ctx *ctx)
{
	const char *path = ctx->stream->file;
	const char *dir = getenv("KSHARK_UNWIND_SYMDIR");
	struct kshark_data_container *m = ctx->maps_recs;
	struct tracecmd_input *top;
	struct tep_record *r;
	char *pdir = NULL;
	ssize_t i;
	int err = 0;

	if (ctx->syms_tried)
		return ctx->syms;
	ctx->syms_tried = 1;
	/* KernelShark opened the file already: no probe in a child */
	if (path)
		ctx->file = ustack_file_open_probed(path);
	if (ctx->file)
		ctx->syms = ustack_syms_alloc();
	top = ctx->file ? ustack_file_handle(ctx->file) : NULL;
	if (!ctx->syms || !top)
		goto fail;
	if (tracecmd_buffer_instances(top) > 0 || !m) {
		/* the execs of every buffer, as the ustack tool takes them */
		err = ustack_syms_set_file(ctx->syms, ctx->file);
	} else {
		/* the maps the file saved, its directory, and the execs
		 * and loads from this stream's own loading, in time order */
		pdir = strdup(path);
		err = !pdir || ustack_syms_set_tep(ctx->syms, ctx->tep) ||
		      ustack_syms_add_trace_dir(ctx->syms, dirname(pdir)) ||
		      ustack_syms_set_tracecmd(ctx->syms, top);
		free(pdir);
		qsort(m->data, m->size, sizeof(*m->data), entry_cmp);
		pthread_mutex_lock(&ctx->stream->input_mutex);
		for (i = 0; !err && i < m->size; i++) {
			r = read_at(ctx, m->data[i]->entry->offset);
			/* a damaged record is not read; the others count */
			if (r && ustack_feed_record(NULL, ctx->syms, ctx->tep,
						    r) < 0 && errno == ENOMEM)
				err = 1;
			tracecmd_free_record(r);
		}
		pthread_mutex_unlock(&ctx->stream->input_mutex);
	}
	if (err || (dir && *dir && ustack_syms_add_search_dir(ctx->syms, dir)))
		goto fail;
	return ctx->syms;
fail:
	if (asprintf(&ctx->syms_note,
		     "User frames not named: cannot read the process maps saved in %s",
		     path ? path : "the trace file") < 0)
		ctx->syms_note = NULL;
	ustack_syms_free(ctx->syms);
	ustack_file_close(ctx->file);
	ctx->syms = NULL;
	ctx->file = NULL;
	return NULL;
}

/* The cookie of the user_stack_deferred at off (for one nobody asked). */
static int deferred_cookie(struct plugin_unwind_ctx *ctx, int64_t off,
			   unsigned long long *cookie)
{
	struct ustack_record rec;
	struct tep_record *r;
	struct tep_event *ev;
	int ok = 0;

	pthread_mutex_lock(&ctx->stream->input_mutex);
	r = read_at(ctx, off);
	if (r) {
		ev = tep_find_event(ctx->tep, tep_data_type(ctx->tep, r));
		ok = ev && ustack_record_parse(ev, r, &rec, NULL, 0) >= 0;
		*cookie = rec.cookie;
		tracecmd_free_record(r);
	}
	pthread_mutex_unlock(&ctx->stream->input_mutex);
	return ok ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Text: frames as libustack prints them, the merged stack. */

/*
 * Frame @a as libustack prints it (USTACK_PRINT_* @flags), user
 * frames named with @syms: the text of @seq, valid until its next use.
 */
static const char *frame_str(struct plugin_unwind_ctx *ctx,
			     struct trace_seq *seq, struct ustack_syms *syms,
			     int pid, unsigned long long a, unsigned int flags)
{
	trace_seq_reset(seq);
	ustack_frame_print(seq, syms, ctx->tep, pid, a, flags);
	trace_seq_terminate(seq);
	return seq->buffer;
}

/* The text of @seq as a string of its own, NULL when empty or failed */
static char *seq_take(struct trace_seq *seq)
{
	char *out = NULL;

	trace_seq_terminate(seq);
	if (seq->len && seq->state == TRACE_SEQ__GOOD)
		out = strdup(seq->buffer);
	trace_seq_destroy(seq);
	return out;
}

#ifdef KSHARK_UNWIND_TESTING
/* for the comparison of readers (kshark_stack, the test build only) */
static void req_text(struct plugin_unwind_ctx *ctx, const struct us_req *q,
		     struct trace_seq *b)
{
	struct trace_seq seq;
	const char *name;
	struct frames f;
	int i;

	trace_seq_printf(b, "%s pid=%d cpu=%d cookie=0x%llx\n",
			 q->ev_id >= 0 ? event_name(ctx, q->ev_id) :
			 "(event not seen)",
			 q->pid, q->cpu, (unsigned long long)q->cookie);
	read_frames(ctx, q->cookie_off, 1, &f, US_MAX_FRAMES);
	trace_seq_init(&seq);
	for (i = 0; i < f.nr; i++) {
		name = frame_str(ctx, &seq, NULL, 0, f.a[i],
				 USTACK_PRINT_KERNEL);
		if (strncmp(name, "0x", 2))
			trace_seq_printf(b, "=> %s (%llx)\n", name, f.a[i]);
		else
			trace_seq_printf(b, "=> %s\n", name);
	}
	trace_seq_destroy(&seq);
	if (f.nr <= 0)
		trace_seq_puts(b, "   (no kernel stack recorded)\n");
	if (q->stack_off < 0) {
		trace_seq_puts(b, q->status == USTACK_LOST ?
			       "   (user stack lost: none will follow)\n" :
			       "   (user stack never arrived)\n");
		return;
	}
	read_frames(ctx, q->stack_off, 0, &f, US_MAX_FRAMES);
	for (i = 0; i < f.nr; i++)
		trace_seq_printf(b, "=> 0x%llx (user)\n", f.a[i]);
	if (f.nr < 0)
		trace_seq_puts(b, "   (bad user stack record)\n");
	else if (f.nr == 0)
		trace_seq_puts(b, "   (no user frames: unwind failed)\n");
	else if (f.truncated)
		trace_seq_printf(b, "   (user stack cut short: %llu frames found)\n",
				 f.depth);
	if (f.nr > 0 && sframe_word(q))
		trace_seq_printf(b, "   (user stack: %s)\n", sframe_word(q));
}

char *kshark_unwind_stack_text(const struct kshark_entry *e)
{
	struct plugin_unwind_ctx *ctx = e ? __get_context(e->stream_id) : NULL;
	const struct us_req *q;
	struct trace_seq b;
	unsigned long long c;
	int i;

	if (!ctx || !ctx->joined)
		return NULL;
	trace_seq_init(&b);
	if (e->event_id == ctx->deferred_id) {
		/* the requests it completes, in the order of delivery */
		for (i = first_completed(ctx, e); i >= 0; i = ctx->reqs[i].next)
			req_text(ctx, &ctx->reqs[i], &b);
		if (first_completed(ctx, e) < 0 &&
		    !deferred_cookie(ctx, e->offset, &c))
			trace_seq_printf(&b, "cookie 0x%llx: no event recorded its cookie\n",
					 c);
	} else if ((q = entry_req(ctx, e))) {
		req_text(ctx, q, &b);
	}
	return seq_take(&b);
}
#endif

/* ------------------------------------------------------------------ */
/* The stack view (kshark_unwind_stack_view()), as structures. */

#define MAX_MISSING	8

struct vline_tmp {
	enum kshark_unwind_kind	kind;
	int64_t			target;
	char			*text;
};

struct view {
	struct vline_tmp	*l;
	size_t			n, cap;
	size_t			bytes;		/* of the texts, with NULs */
	int			err;
	const char		*missing[MAX_MISSING];	/* files named nothing */
	int			n_missing;
	int			no_map;
};

static void vline(struct view *v, enum kshark_unwind_kind kind,
		  int64_t target, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void vline(struct view *v, enum kshark_unwind_kind kind,
		  int64_t target, const char *fmt, ...)
{
	struct vline_tmp *l;
	va_list ap;
	char *t;
	int n;

	if (v->err)
		return;
	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n < 0) {
		v->err = 1;
		return;
	}
	if (v->n == v->cap) {
		l = realloc(v->l, (v->cap * 2 + 16) * sizeof(*l));
		if (!l) {
			free(t);
			v->err = 1;
			return;
		}
		v->l = l;
		v->cap = v->cap * 2 + 16;
	}
	v->l[v->n].kind = kind;
	v->l[v->n].target = kind == KSHARK_UNWIND_LINK ? target : US_NONE;
	v->l[v->n++].text = t;
	v->bytes += n + 1;
}

/* The lines in one block: the structure, then the texts. */
static struct kshark_unwind_view *view_pack(struct view *v, int sd)
{
	struct kshark_unwind_view *out = NULL;
	size_t i, head = sizeof(*out) + v->n * sizeof(out->line[0]);
	char *p;

	if (!v->err)
		out = malloc(head + v->bytes);
	if (out) {
		out->stream_id = sd;
		out->n = v->n;
		p = (char *)out + head;
		for (i = 0; i < v->n; i++) {
			out->line[i].kind = v->l[i].kind;
			out->line[i].target = v->l[i].target;
			out->line[i].text = strcpy(p, v->l[i].text);
			p += strlen(p) + 1;
		}
	}
	for (i = 0; i < v->n; i++)
		free(v->l[i].text);
	free(v->l);
	return out;
}

/* Is @file where the symbol lookup looks: next to the trace, or there? */
static int binary_found(struct plugin_unwind_ctx *ctx, const char *file)
{
	char *t, *f, *p = NULL;
	int ok;

	if (!access(file, R_OK))
		return 1;
	if (!ctx->stream->file)
		return 0;
	t = strdup(ctx->stream->file);
	f = strdup(file);
	if (t && f && asprintf(&p, "%s/%s", dirname(t), basename(f)) < 0)
		p = NULL;
	ok = p && !access(p, R_OK);
	free(p);
	free(t);
	free(f);
	return ok;
}

/* one user frame, named; caller holds syms_lock */
static void view_uframe(struct plugin_unwind_ctx *ctx, struct view *v,
			struct ustack_syms *syms, int tgid,
			unsigned long long a)
{
	char *text, *line, *next;
	struct ustack_sym sym;
	struct trace_seq seq;
	int i;

	/* the inlined functions first, one line each, then the frame */
	trace_seq_init(&seq);
	text = (char *)frame_str(ctx, &seq, syms, tgid, a, USTACK_PRINT_LINES);
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		vline(v, next ? KSHARK_UNWIND_INLINED : KSHARK_UNWIND_UFRAME,
		      -1, "%s", line);
	}
	trace_seq_destroy(&seq);
	if (!syms || ustack_syms_resolve(syms, tgid, a, &sym))
		return;
	if (!sym.file) {
		v->no_map = 1;
		return;
	}
	if (sym.name)
		return;
	for (i = 0; i < v->n_missing; i++)
		if (!strcmp(v->missing[i], sym.file))
			return;
	if (v->n_missing < MAX_MISSING)
		v->missing[v->n_missing++] = strdup(sym.file);
}

static void view_missing(struct plugin_unwind_ctx *ctx, struct view *v)
{
	int i;

	if (v->no_map)
		vline(v, KSHARK_UNWIND_WARN, -1, "Some user frames are in no saved process map: record with trace-cmd record --proc-map");
	for (i = 0; i < v->n_missing; i++) {
		if (!v->missing[i])
			continue;
		if (binary_found(ctx, v->missing[i]))
			vline(v, KSHARK_UNWIND_WARN, -1, "No symbols in %s (stripped, or another build than the one traced)",
			      v->missing[i]);
		else
			vline(v, KSHARK_UNWIND_WARN, -1, "Binary missing: %s is neither at that path nor next to the trace file (KSHARK_UNWIND_SYMDIR=DIR to look elsewhere)",
			      v->missing[i]);
		free((char *)v->missing[i]);
		v->missing[i] = NULL;
	}
	v->n_missing = 0;
	v->no_map = 0;
}

/*
 * The time stamp as KernelShark's table shows it (KsUtils' Ts2String:
 * the seconds as a double, rounded to 6 decimals), so that the view's
 * header names the same time as the row it belongs to; cutting to the
 * microsecond differed from the row for half the events.
 */
static void ts_str(char *buf, size_t size, unsigned long long ts)
{
	snprintf(buf, size, "%.6f", ts * 1e-9);
}

/* one request's merged stack, named */
static void req_view(struct plugin_unwind_ctx *ctx, const struct us_req *q,
		     struct view *v)
{
	struct ustack_syms *syms;
	struct trace_seq seq;
	struct frames f;
	char t[64];
	int i;

	ts_str(t, sizeof(t), q->ts);
	vline(v, KSHARK_UNWIND_TITLE, -1, "%s  pid %d  CPU %d  %s",
	      event_name(ctx, q->ev_id), q->pid, q->cpu, t);
	vline(v, KSHARK_UNWIND_INFO, -1, "cookie 0x%llx",
	      (unsigned long long)q->cookie);
	if (q->ev_off < 0)
		vline(v, KSHARK_UNWIND_WARN, -1, "The event that asked is not in the trace (filtered out): only its cookie record is");

	read_frames(ctx, q->cookie_off, 1, &f, US_MAX_FRAMES);
	vline(v, KSHARK_UNWIND_SECTION, -1, "Kernel stack (%d frame%s)",
	      f.nr > 0 ? f.nr : 0, f.nr == 1 ? "" : "s");
	trace_seq_init(&seq);
	for (i = 0; i < f.nr; i++)
		vline(v, KSHARK_UNWIND_KFRAME, -1, "%s",
		      frame_str(ctx, &seq, NULL, 0, f.a[i],
				USTACK_PRINT_KERNEL));
	trace_seq_destroy(&seq);
	if (f.nr <= 0)
		vline(v, KSHARK_UNWIND_WARN, -1, "No kernel stack recorded");

	if (q->stack_off < 0) {
		vline(v, KSHARK_UNWIND_SECTION, -1, "User stack");
		if (q->status == USTACK_LOST)
			vline(v, KSHARK_UNWIND_WARN, -1, "User stack lost: the kernel could not ask for it, none will follow");
		else
			vline(v, KSHARK_UNWIND_WARN, -1, "User stack missing: it never arrived (the task did not return to user space before tracing stopped, or events were lost)");
		return;
	}
	read_frames(ctx, q->stack_off, 0, &f, US_MAX_FRAMES);
	ts_str(t, sizeof(t), f.ts);
	vline(v, KSHARK_UNWIND_LINK, q->stack_off,
	      "User stack (%d frame%s)%s%s%s: in the user_stack_deferred row at %s, CPU %d (click to go there)",
	      f.nr > 0 ? f.nr : 0, f.nr == 1 ? "" : "s",
	      f.nr > 0 && sframe_word(q) ? " [" : "",
	      f.nr > 0 && sframe_word(q) ? sframe_word(q) : "",
	      f.nr > 0 && sframe_word(q) ? "]" : "", t, f.cpu);
	if (f.nr < 0) {
		vline(v, KSHARK_UNWIND_WARN, -1, "Bad user stack record (damaged file)");
		return;
	}
	if (f.nr == 0)
		vline(v, KSHARK_UNWIND_WARN, -1, "No user frames: the unwind failed");
	if (f.truncated)
		vline(v, KSHARK_UNWIND_WARN, -1, "User stack truncated: %d of %llu frames kept",
		      f.nr, f.depth);
	pthread_mutex_lock(&ctx->syms_lock);
	syms = get_syms(ctx);
	if (!syms && ctx->syms_note)
		vline(v, KSHARK_UNWIND_WARN, -1, "%s", ctx->syms_note);
	/* the maps of the event's time: before an exec, the old image's */
	if (syms)
		ustack_syms_set_time(syms, q->ts);
	for (i = 0; i < f.nr; i++)
		view_uframe(ctx, v, syms, q->tgid, f.a[i]);
	view_missing(ctx, v);
	pthread_mutex_unlock(&ctx->syms_lock);
}

#define VIEW_MAX_REQS	16

/* the view of a user_stack_deferred: the events it completes */
static void deferred_view(struct plugin_unwind_ctx *ctx,
			  const struct kshark_entry *e, struct view *v)
{
	int first = first_completed(ctx, e), i, n = 0;
	unsigned long long c;
	char t[64];

	for (i = first; i >= 0; i = ctx->reqs[i].next)
		n++;
	if (!n && !deferred_cookie(ctx, e->offset, &c))
		vline(v, KSHARK_UNWIND_WARN, -1, "This user stack (cookie 0x%llx) completes no event: no event recorded its cookie",
		      c);
	else if (!n)
		vline(v, KSHARK_UNWIND_WARN, -1, "Bad user stack record (damaged file)");
	else
		vline(v, KSHARK_UNWIND_INFO, -1, "This user stack completes %d event%s:",
		      n, n == 1 ? "" : "s");
	for (i = first; i >= 0; i = ctx->reqs[i].next) {
		const struct us_req *q = &ctx->reqs[i];

		ts_str(t, sizeof(t), q->ts);
		vline(v, KSHARK_UNWIND_LINK, q->ev_off >= 0 ? q->ev_off :
		      q->cookie_off, "%s  pid %d  CPU %d  %s (click to go there)",
		      event_name(ctx, q->ev_id), q->pid, q->cpu, t);
	}
	for (i = first, n = 0; i >= 0 && n < VIEW_MAX_REQS;
	     i = ctx->reqs[i].next, n++)
		req_view(ctx, &ctx->reqs[i], v);
	if (i >= 0)
		vline(v, KSHARK_UNWIND_INFO, -1, "(the stacks of the other events: select them)");
}

struct kshark_unwind_view *kshark_unwind_stack_view(const struct kshark_entry *e)
{
	struct plugin_unwind_ctx *ctx = e ? __get_context(e->stream_id) : NULL;
	const struct us_req *q;
	struct view v = { 0 };
	char t[64];

	if (!e)
		vline(&v, KSHARK_UNWIND_WARN, -1, "No event selected");
	else if (!ctx)
		vline(&v, KSHARK_UNWIND_WARN, -1, "The unwind_stack plugin is not active for this trace");
	else if (ctx->note)
		vline(&v, KSHARK_UNWIND_WARN, -1, "%s", ctx->note);
	else if (!ctx->joined)
		vline(&v, KSHARK_UNWIND_WARN, -1, "The graph is not drawn yet: select the event again");
	else if (e->event_id == ctx->deferred_id)
		deferred_view(ctx, e, &v);
	else if ((q = entry_req(ctx, e))) {
		if (e->event_id == ctx->cookie_id && q->ev_off >= 0) {
			ts_str(t, sizeof(t), q->ts);
			vline(&v, KSHARK_UNWIND_LINK, q->ev_off,
			      "The cookie record of %s at %s (click to go there)",
			      event_name(ctx, q->ev_id), t);
		}
		req_view(ctx, q, &v);
	} else {
		vline(&v, KSHARK_UNWIND_INFO, -1, "%s", ctx->damaged ?
		      "This event did not ask for a deferred user stack, or its records are damaged" :
		      "This event did not ask for a deferred user stack");
	}
	if (ctx && ctx->damaged)
		vline(&v, KSHARK_UNWIND_WARN, -1, "Damaged file: %u record%s of the deferred stacks could not be read and were skipped",
		      ctx->damaged, ctx->damaged == 1 ? "" : "s");
	return view_pack(&v, e ? e->stream_id : -1);
}

/* ------------------------------------------------------------------ */
/*
 * The shim: the Info column.  KernelShark has no API for a plugin to add
 * to an entry's info text (the list's "Info" column and the graph's
 * tooltip): that text is the stream's get_info(), so the plugin wraps it
 * for the streams it is loaded for and puts the original back when
 * unloaded.  It appends the innermost user function only
 * ("[ustack: work_inner]"); the whole stack is in the view.  Nothing
 * else in the plugin touches the stream's interface.
 */

static char *short_info(struct plugin_unwind_ctx *ctx,
			const struct kshark_entry *e)
{
	const struct us_req *q = entry_req(ctx, e);
	struct ustack_syms *syms;
	struct ustack_sym sym;
	struct frames f;
	char *out = NULL, name[512];
	int i, n = 0;

	if (e->event_id == ctx->deferred_id) {
		for (i = first_completed(ctx, e); i >= 0; i = ctx->reqs[i].next)
			n++;
		if (asprintf(&out, " [completes %d event%s]", n,
			     n == 1 ? "" : "s") < 0)
			out = NULL;
		return out;
	}
	if (!q)
		return NULL;
	if (q->stack_off < 0)
		return strdup(q->status == USTACK_LOST ? " [user stack lost]" :
			      " [user stack never arrived]");
	read_frames(ctx, q->stack_off, 0, &f, 1);
	if (f.nr < 0)
		return strdup(" [bad user stack record]");
	if (f.nr == 0)
		return strdup(" [no user frames]");
	pthread_mutex_lock(&ctx->syms_lock);
	syms = get_syms(ctx);
	if (syms)
		ustack_syms_set_time(syms, q->ts);
	if (syms && !ustack_syms_resolve(syms, q->tgid, f.a[0], &sym) &&
	    sym.name)
		snprintf(name, sizeof(name), "%s", sym.name);
	else if (!syms || ustack_syms_format(syms, q->tgid, f.a[0], name,
					     sizeof(name)) < 0)
		snprintf(name, sizeof(name), "0x%llx", f.a[0]);
	pthread_mutex_unlock(&ctx->syms_lock);
	if (asprintf(&out, " [ustack: %s%s%s%s]", name,
		     f.truncated ? ", cut short" : "", sframe_word(q) ? ", " : "",
		     sframe_word(q) ? sframe_word(q) : "") < 0)
		out = NULL;
	return out;
}

/*
 * The row of one of the two records: what it holds, in the words of the
 * libtraceevent plugin's unmerged print.  Not that print itself: it
 * merges front to back, and KernelShark asks for rows in any order.
 */
static char *record_info(struct plugin_unwind_ctx *ctx,
			 const struct kshark_entry *e)
{
	int cookie_rec = e->event_id == ctx->cookie_id, ok;
	struct ustack_record rec;
	struct tep_record *r;
	struct tep_event *ev;
	struct trace_seq b;

	pthread_mutex_lock(&ctx->stream->input_mutex);
	r = read_at(ctx, e->offset);
	ev = r ? tep_find_event(ctx->tep, tep_data_type(ctx->tep, r)) : NULL;
	ok = ev && ustack_record_parse(ev, r, &rec, NULL, 0) >= 0;
	tracecmd_free_record(r);
	pthread_mutex_unlock(&ctx->stream->input_mutex);
	if (!ok)
		return NULL;
	trace_seq_init(&b);
	if (cookie_rec) {
		trace_seq_printf(&b, "cookie=0x%llx kernel=%d", rec.cookie,
				 rec.nr < 0 ? 0 : rec.nr);
		if (rec.nr < 0)
			trace_seq_puts(&b, " [bad or missing kernel array]");
		if (rec.flags & USTACK_COOKIE_NO_USER_STACK)
			trace_seq_puts(&b, " (no user stack)");
	} else if (rec.nr < 0) {
		trace_seq_printf(&b, "cookie=0x%llx tgid=%d [bad or missing frames array]",
				 rec.cookie, rec.tgid);
	} else {
		trace_seq_printf(&b, "cookie=0x%llx tgid=%d nr=%d", rec.cookie,
				 rec.tgid, rec.nr);
		if ((rec.flags & USTACK_STACK_TRUNCATED) ||
		    rec.depth != (unsigned)rec.nr)
			trace_seq_printf(&b, " depth=%llu", rec.depth);
		if (rec.flags & USTACK_STACK_TRUNCATED)
			trace_seq_puts(&b, " (truncated)");
		if (rec.flags & USTACK_STACK_LATE)
			trace_seq_puts(&b, " (late)");
		if (!rec.nr)
			trace_seq_puts(&b, " empty (user unwind failed)");
		if (rec.unwinder & USTACK_UNWINDER_SFRAME)
			trace_seq_printf(&b, " [%s]",
					 ustack_unwinder_name(rec.unwinder));
	}
	return seq_take(&b);
}

static char *plugin_unwind_get_info(struct kshark_data_stream *stream,
				    const struct kshark_entry *e)
{
	struct plugin_unwind_ctx *ctx = __get_context(stream->stream_id);
	char *info = NULL, *extra, *both;

	if (!ctx || !ctx->orig_get_info)
		return NULL;
	if (ctx->joined && (e->event_id == ctx->cookie_id ||
			    e->event_id == ctx->deferred_id))
		info = record_info(ctx, e);
	if (!info)
		info = ctx->orig_get_info(stream, e);
	if (!ctx->joined || e->event_id < 0 ||
	    (e->event_id != ctx->deferred_id && !entry_req(ctx, e)))
		return info;
	extra = short_info(ctx, e);
	if (!extra)
		return info;
	if (asprintf(&both, "%s%s", info ? info : "", extra) < 0)
		both = NULL;
	free(extra);
	if (!both)
		return info;
	free(info);
	return both;
}

static void shim_install(struct kshark_data_stream *stream,
			 struct plugin_unwind_ctx *ctx)
{
	struct kshark_generic_stream_interface *iface = stream->interface;

	if (iface && iface->type == KS_GENERIC_DATA_INTERFACE &&
	    iface->get_info != plugin_unwind_get_info) {
		ctx->orig_get_info = iface->get_info;
		iface->get_info = plugin_unwind_get_info;
	}
}

static void shim_remove(struct kshark_data_stream *stream,
			struct plugin_unwind_ctx *ctx)
{
	struct kshark_generic_stream_interface *iface = stream->interface;

	if (iface && iface->get_info == plugin_unwind_get_info)
		iface->get_info = ctx->orig_get_info;
}

/* ------------------------------------------------------------------ */

/* The join knows the records' formats (it says which field it misses). */
static int formats_known(struct plugin_unwind_ctx *ctx)
{
	struct ustack_join *join = ustack_join_alloc(ctx->tep, note_request,
						     ctx);

	ustack_join_free(join);
	return join != NULL;
}

/* the records that change a process's maps (ustack_syms_add_record()) */
static const char *const maps_events[3] = {
	"sched/sched_process_exec", "syscalls/sys_exit_execve", "ftrace/print",
};

__attribute__((visibility("default")))
int KSHARK_PLOT_PLUGIN_INITIALIZER(struct kshark_data_stream *stream)
{
	struct plugin_unwind_ctx *ctx;
	int i;

	if (!kshark_is_tep(stream))
		return 0;
	ctx = __init(stream->stream_id);
	if (!ctx)
		return 0;
	n_contexts++;
	ctx->stream = stream;
	pthread_mutex_init(&ctx->syms_lock, NULL);
	ctx->tep = kshark_get_tep(stream);
	ctx->cookie_id = kshark_find_event_id(stream, USTACK_RECORD_SYSTEM "/"
					      USTACK_RECORD_COOKIE);
	ctx->deferred_id = kshark_find_event_id(stream, USTACK_RECORD_SYSTEM "/"
						USTACK_RECORD_STACK);
	ctx->kstack_id = kshark_find_event_id(stream, "ftrace/kernel_stack");
	/* the draw handler also lets the GUI part find the entries */
	kshark_register_draw_handler(stream, kshark_unwind_draw);
	/* without the records the context stays: the view says why */
	if (ustack_record_prerelease(ctx->tep) &&
	    (ctx->cookie_id < 0 || ctx->deferred_id < 0)) {
		fprintf(stderr, "unwind_stack: %s: pre-release unwind:* record format: record the trace again\n",
			stream->file ? stream->file : "trace");
		ctx->note = "This trace has the pre-release unwind:* records: record it again";
		return 1;
	}
	if (!ctx->tep || ctx->cookie_id < 0 || ctx->deferred_id < 0) {
		ctx->note = "No deferred user stacks in this trace: it has no ftrace:user_stack_cookie / user_stack_deferred records (record with -R stacktrace:defer or -T -O userstacktrace_defer)";
		return 1;
	}
	if (!formats_known(ctx)) {
		ctx->note = "The deferred stack records of this trace have a format this plugin does not know (a newer kernel?)";
		return 1;
	}
	ctx->cookies = kshark_init_data_container();
	ctx->stacks = kshark_init_data_container();
	ctx->maps_recs = kshark_init_data_container();
	if (!ctx->cookies || !ctx->stacks || !ctx->maps_recs) {
		ctx->note = "The deferred stacks of this trace could not be read (out of memory)";
		return 1;
	}
	kshark_register_event_handler(stream, ctx->cookie_id, cookie_action);
	kshark_register_event_handler(stream, ctx->deferred_id,
				      deferred_action);
	for (i = 0; i < 3; i++) {
		ctx->maps_ids[i] = kshark_find_event_id(stream, maps_events[i]);
		if (ctx->maps_ids[i] >= 0)
			kshark_register_event_handler(stream, ctx->maps_ids[i],
						      maps_action);
	}
	ctx->handlers = 1;
	shim_install(stream, ctx);
	return 1;
}

__attribute__((visibility("default")))
int KSHARK_PLOT_PLUGIN_DEINITIALIZER(struct kshark_data_stream *stream)
{
	struct plugin_unwind_ctx *ctx = __get_context(stream->stream_id);
	int i;

	if (!ctx)
		return 0;
	shim_remove(stream, ctx);
	if (ctx->handlers) {
		kshark_unregister_event_handler(stream, ctx->cookie_id,
						cookie_action);
		kshark_unregister_event_handler(stream, ctx->deferred_id,
						deferred_action);
		for (i = 0; i < 3; i++)
			if (ctx->maps_ids[i] >= 0)
				kshark_unregister_event_handler(stream,
						ctx->maps_ids[i], maps_action);
	}
	kshark_unregister_draw_handler(stream, kshark_unwind_draw);
	__close(stream->stream_id);
	if (--n_contexts == 0)
		__close(KS_PLUGIN_CONTEXT_FREE);
	return 1;
}
