// SPDX-License-Identifier: LGPL-2.1
/*
 * KernelShark 2.x plugin: merged kernel + deferred user stacks.
 *
 * The records (Documentation/contract.md, section 2): right after an
 * event that asks, ftrace:user_stack_cookie (cookie, flags, the event's
 * kernel stack); later, once per (instance, cookie),
 * ftrace:user_stack_deferred (cookie, tgid, flags, depth, user frames).
 *
 * The (pid, cookie) join is libtracefs-ext's (src/join.c, linked in from
 * libustack-join.a with its symbols hidden), the one ustack and the
 * libtraceevent plugin use.  libkshark hands a plugin the records one
 * CPU at a time, not in time order, so the plugin does not join them as
 * they are loaded: when it is initialised for a stream, it reads the
 * stream's records once, all CPUs merged in time order, through the join,
 * and keeps per request only where its records are (the offsets of the
 * asking event, its cookie record and its user_stack_deferred, which
 * KernelShark entries carry too) and its status.  No frames are kept:
 *  - the merged stack of an entry is appended to its info text (the
 *    "Info" column of the list and the graph's tooltip) as
 *    "[stack: k0 < k1 ... | u0 < u1 ...]", the frames read from the
 *    cookie record and the user_stack_deferred when shown;
 *  - kshark_unwind_stack_text() returns it as text, one frame per line,
 *    for any entry (asking event, its cookie record, or a
 *    user_stack_deferred, which lists every event it completes).
 *
 * The unwinder of a user stack (the join's ev->unwinder, from the
 * record's UNWIND_FP and UNWIND_SFRAME flags) is shown only when SFrame
 * took part: "[sframe]" or "[sframe+fp]" on the view's user stack line,
 * ", sframe" in the Info column, "(user stack: sframe)" in the text of
 * kshark_unwind_stack_text(); no mark is frame pointers, or a kernel
 * that does not say.
 *
 * A trace of the pre-release series (unwind:* records) is not read: the
 * plugin says so on stderr and stays out of the way.
 *
 * The libtraceevent plugin (plugin_unwind_deferred) merges for readers
 * that go front to back; in KernelShark this plugin does it, so it turns
 * that plugin's merged output off (unwind_deferred:merge=0).
 */
#define _GNU_SOURCE
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
#include <tracefs-ext.h>

#include "unwind_stack.h"
#include "unwind_record.h"

#define US_MAX_FRAMES	512

#define US_DEFERRED_TRUNCATED	0x1	/* user_stack_deferred flags */
#define US_FTRACE_TRAMPOLINE	0x7fffffffULL

#define US_NONE		(-1)

/*
 * One request, as the join delivered it: where its records are, and what
 * it needs to be shown.  64 bytes, no frames.
 */
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
	unsigned char	unwinder;	/* USTACK_UNWINDER_* (1.6) */
};

/* offset -> request: open addressing, key -1 is a free slot */
struct us_slot {
	int64_t		off;
	int		req;
};

struct plugin_unwind_ctx {
	struct kshark_data_stream	*stream;
	struct tep_handle		*tep;
	int				cookie_id;
	int				deferred_id;
	struct us_req			*reqs;
	int				n_reqs;
	int				cap_reqs;
	/*
	 * The offsets of asking events and cookie records map to their
	 * request, that of a user_stack_deferred to the first request it
	 * completes (the others follow through us_req.next).
	 */
	struct us_slot			*slots;
	size_t				n_slots;	/* a power of 2 */
	size_t				used_slots;
	int				failed;		/* out of memory */
	stream_get_str_func		orig_get_info;
	/* the stream has the records (else: note says why not) */
	int				active;
	unsigned int			damaged;	/* records skipped */
	const char			*note;
	/* the graph's marks: asking events sorted by time, built once */
	struct kshark_unwind_mark	*marks;
	size_t				n_marks;
	/* the user frames' names (libtracefs-ext), made when first needed */
	pthread_mutex_t			syms_lock;
	int				syms_tried;
	struct ustack_file		*file;
	struct ustack_syms		*syms;
	char				*syms_note;
};

static void plugin_unwind_free(struct plugin_unwind_ctx *ctx);

KS_DEFINE_PLUGIN_CONTEXT(struct plugin_unwind_ctx, plugin_unwind_free);

static int n_contexts;	/* to free the context array with the last */

static void plugin_unwind_free(struct plugin_unwind_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->reqs);
	free(ctx->slots);
	free(ctx->marks);
	ustack_syms_free(ctx->syms);
	ustack_file_close(ctx->file);
	free(ctx->syms_note);
	pthread_mutex_destroy(&ctx->syms_lock);
	free(ctx);
}

/*
 * libtracefs-ext's messages (an unknown record format) name this plugin.
 * Hidden: the libtraceevent plugin, loaded RTLD_GLOBAL in the same
 * process, has its own.
 */
__attribute__((visibility("hidden")))
int ustack_vprint(enum tep_loglevel level, const char *fmt, va_list ap)
{
	(void)level;
	fprintf(stderr, "unwind_stack: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fields, with bounds checks. */

/* The addresses of a __data_loc array field ("kernel" or "frames"). */
static int array_frames(struct tep_event *ev, struct tep_record *r,
			const char *field, unsigned long long *out, int max)
{
	struct unwind_rec_span sp;

	if (unwind_rec_dynamic(ev->tep, r, tep_find_field(ev, field), &sp))
		return -1;
	return unwind_rec_copy(ev->tep, &sp, out, max);
}

static struct tep_event *rec_event(struct tep_handle *tep,
				   struct tep_record *r)
{
	return tep_find_event(tep, tep_data_type(tep, r));
}

/* ------------------------------------------------------------------ */
/* The table of offsets. */

static size_t off_hash(int64_t off, size_t n)
{
	return (((uint64_t)off * 0x9e3779b97f4a7c15ULL) >> 20) & (n - 1);
}

static struct us_slot *slot_find(struct plugin_unwind_ctx *ctx, int64_t off)
{
	size_t i;

	if (!ctx->n_slots || off < 0)
		return NULL;
	for (i = off_hash(off, ctx->n_slots); ctx->slots[i].off >= 0;
	     i = (i + 1) & (ctx->n_slots - 1))
		if (ctx->slots[i].off == off)
			return &ctx->slots[i];
	return NULL;
}

static int slots_grow(struct plugin_unwind_ctx *ctx)
{
	size_t n = ctx->n_slots ? ctx->n_slots * 2 : 1024, i, j;
	struct us_slot *t = malloc(n * sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < n; i++)
		t[i].off = US_NONE;
	for (i = 0; i < ctx->n_slots; i++) {
		if (ctx->slots[i].off < 0)
			continue;
		for (j = off_hash(ctx->slots[i].off, n); t[j].off >= 0;
		     j = (j + 1) & (n - 1))
			;
		t[j] = ctx->slots[i];
	}
	free(ctx->slots);
	ctx->slots = t;
	ctx->n_slots = n;
	return 0;
}

/* Map off to request req, unless it is mapped already: then return it. */
static struct us_slot *slot_add(struct plugin_unwind_ctx *ctx, int64_t off,
				int req)
{
	struct us_slot *sl = slot_find(ctx, off);
	size_t i;

	if (sl || off < 0)
		return sl;
	if ((ctx->used_slots + 1) * 2 > ctx->n_slots && slots_grow(ctx) < 0) {
		ctx->failed = 1;
		return NULL;
	}
	for (i = off_hash(off, ctx->n_slots); ctx->slots[i].off >= 0;
	     i = (i + 1) & (ctx->n_slots - 1))
		;
	ctx->slots[i].off = off;
	ctx->slots[i].req = req;
	ctx->used_slots++;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Loading: the stream's records in time order, through the join. */

static int note_request(const struct ustack_event *ev, void *data)
{
	struct plugin_unwind_ctx *ctx = data;
	struct us_slot *sl;
	struct us_req *r;
	int n = ctx->n_reqs, i;

	/* a kernel stack without a cookie (a kernel thread): not ours */
	if (ev->status == USTACK_NO_COOKIE || !ev->cookie_offset)
		return 0;
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
	r = &ctx->reqs[n];
	r->ts = ev->ts;
	r->ev_off = (ev->flags & USTACK_EV_UNSEEN) ? US_NONE :
		    (int64_t)ev->record->offset;
	r->cookie_off = ev->cookie_offset;
	r->stack_off = ev->stack_offset ? (int64_t)ev->stack_offset : US_NONE;
	r->ev_id = ev->event ? ev->event->id : -1;
	r->pid = ev->pid;
	r->tgid = ev->tgid >= 0 ? ev->tgid : ev->pid;
	r->cpu = ev->cpu;
	r->next = -1;
	r->cookie = ev->cookie;
	r->status = ev->status;
	r->unwinder = ev->unwinder;
	ctx->n_reqs++;

	slot_add(ctx, r->ev_off, n);
	slot_add(ctx, r->cookie_off, n);
	sl = slot_add(ctx, r->stack_off, n);
	if (sl) {
		/* the user stack completes others too: append */
		for (i = sl->req; ctx->reqs[i].next >= 0; i = ctx->reqs[i].next)
			;
		ctx->reqs[i].next = n;
	}
	return ctx->failed;
}

/*
 * A record must lie inside its ring-buffer page: libtraceevent's kbuffer
 * takes the length word of a damaged page as it is (as in
 * libtracefs-ext's file source).  Such a record is not fed to the join.
 */
static int record_in_page(struct tep_handle *tep, struct tep_record *r)
{
	long long sb = tep_get_sub_buffer_size(tep);
	long long len = r->record_size > r->size ? r->record_size : r->size;

	if (r->size < 8 || r->record_size < 0 || !r->data)
		return 0;
	if (sb <= 0)
		return 1;
	return len <= sb && (long long)(r->offset % sb) + len <= sb;
}

/*
 * Read the stream's records, all CPUs merged in time order (the order
 * the join needs: a user stack may come on any CPU), and feed them to a
 * join.  libkshark reads each CPU from its first record when it loads
 * the entries, so the handle's position does not matter afterwards.
 */
static int join_stream(struct plugin_unwind_ctx *ctx)
{
	struct tracecmd_input *in = kshark_get_tep_input(ctx->stream);
	struct ustack_join_stats st;
	struct tep_record **next;
	struct ustack_join *join;
	int cpus, cpu, best, stop = 0;

	if (!in)
		return -1;
	join = ustack_join_alloc(ctx->tep, note_request, ctx);
	if (!join)
		return -1;
	ustack_join_set_flags(join, USTACK_JOIN_UNSEEN_EVENTS);
	cpus = ctx->stream->n_cpus;
	next = calloc(cpus > 0 ? cpus : 1, sizeof(*next));
	if (!next) {
		ustack_join_free(join);
		return -1;
	}
	for (cpu = 0; cpu < cpus; cpu++)
		next[cpu] = tracecmd_read_cpu_first(in, cpu);
	for (;;) {
		best = -1;
		for (cpu = 0; cpu < cpus; cpu++)
			if (next[cpu] && (best < 0 ||
					  next[cpu]->ts < next[best]->ts))
				best = cpu;
		if (best < 0)
			break;
		if (stop)
			;
		else if (record_in_page(ctx->tep, next[best]))
			stop = ustack_join_add_record(join, next[best]) > 0;
		else
			ctx->damaged++;
		tracecmd_free_record(next[best]);
		next[best] = stop ? NULL : tracecmd_read_data(in, best);
	}
	for (cpu = 0; cpu < cpus; cpu++)
		tracecmd_free_record(next[cpu]);
	free(next);
	ustack_join_flush(join);	/* the user stacks that never came */
	/* records the join refused: at odds with their format */
	if (!ustack_join_get_stats(join, &st))
		ctx->damaged += st.malformed;
	ustack_join_free(join);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Building the text. */

struct buf {
	char	*s;
	size_t	len;
	size_t	cap;
	int	err;
};

static void bprintf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	if (b->err)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL,
			      b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->err = 1;
			return;
		}
		if (b->s && b->len + n < b->cap) {
			b->len += n;
			return;
		}
		b->cap = (b->cap + n + 1) * 2;
		p = realloc(b->s, b->cap);
		if (!p) {
			b->err = 1;
			return;
		}
		b->s = p;
	}
}

/*
 * Read the frames of the record at @off (caller holds the mutex): the
 * kernel frames of a cookie record, or the user frames of a
 * user_stack_deferred (and whether they were cut short, and how deep the
 * stack was).
 */
static int read_frames_at(struct plugin_unwind_ctx *ctx, int64_t off,
			  int kernel, unsigned long long *out, int max,
			  int *truncated, unsigned long long *depth,
			  unsigned long long *ts, int *cpu)
{
	struct tracecmd_input *in = kshark_get_tep_input(ctx->stream);
	struct tep_record *r;
	struct tep_event *ev;
	unsigned long long f = 0;
	int nr = -1;

	if (!in || off < 0)
		return -1;
	r = tracecmd_read_at(in, off, NULL);
	if (!r)
		return -1;
	if (ts)
		*ts = r->ts;
	if (cpu)
		*cpu = r->cpu;
	ev = rec_event(ctx->tep, r);
	if (ev && kernel && ev->id == ctx->cookie_id) {
		nr = array_frames(ev, r, "kernel", out, max);
	} else if (ev && !kernel && ev->id == ctx->deferred_id) {
		nr = array_frames(ev, r, "frames", out, max);
		if (truncated && !unwind_rec_field(ev, r, "flags", &f))
			*truncated = !!(f & US_DEFERRED_TRUNCATED);
		if (depth && unwind_rec_field(ev, r, "depth", depth))
			*depth = nr;
	}
	tracecmd_free_record(r);
	return nr;
}

static int read_frames(struct plugin_unwind_ctx *ctx, int64_t off,
		       int kernel, unsigned long long *out, int max,
		       int *truncated, unsigned long long *depth)
{
	return read_frames_at(ctx, off, kernel, out, max, truncated, depth,
			      NULL, NULL);
}

static void kframe(struct buf *b, struct tep_handle *tep,
		   unsigned long long a, int oneline)
{
	const char *f = tep_find_function(tep, a);

	if (a == US_FTRACE_TRAMPOLINE) {
		bprintf(b, oneline ? "[ftrace trampoline] < " :
			"=> [ftrace trampoline] (7fffffff)\n");
	} else if (oneline) {
		if (f)
			bprintf(b, "%s+0x%llx < ", f,
				a - tep_find_function_address(tep, a));
		else
			bprintf(b, "0x%llx < ", a);
	} else if (f) {
		bprintf(b, "=> %s+0x%llx (%llx)\n", f,
			a - tep_find_function_address(tep, a), a);
	} else {
		bprintf(b, "=> 0x%llx\n", a);
	}
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

/* one request's merged stack */
static void req_text(struct plugin_unwind_ctx *ctx, const struct us_req *q,
		     struct buf *b, int oneline)
{
	unsigned long long fr[US_MAX_FRAMES];
	struct tep_event *ev = q->ev_id >= 0 ?
		tep_find_event(ctx->tep, q->ev_id) : NULL;
	unsigned long long depth = 0;
	int i, nr, trunc = 0;

	if (!oneline)
		bprintf(b, "%s pid=%d cpu=%d cookie=0x%llx\n",
			ev ? ev->name : "(event not seen)", q->pid, q->cpu,
			(unsigned long long)q->cookie);
	else
		bprintf(b, " [stack: ");

	pthread_mutex_lock(&ctx->stream->input_mutex);
	nr = read_frames(ctx, q->cookie_off, 1, fr, US_MAX_FRAMES, NULL, NULL);
	for (i = 0; i < nr; i++)
		kframe(b, ctx->tep, fr[i], oneline);
	if (nr <= 0 && !oneline)
		bprintf(b, "   (no kernel stack recorded)\n");
	nr = q->stack_off >= 0 ? read_frames(ctx, q->stack_off, 0, fr,
					     US_MAX_FRAMES, &trunc, &depth) : -1;
	pthread_mutex_unlock(&ctx->stream->input_mutex);

	if (oneline) {
		if (b->len >= 3 && !strcmp(b->s + b->len - 3, " < "))
			b->len -= 3;
		bprintf(b, " |");
	}
	for (i = 0; i < nr; i++) {
		if (oneline)
			bprintf(b, "%s0x%llx", i ? " < " : " ", fr[i]);
		else
			bprintf(b, "=> 0x%llx (user)\n", fr[i]);
	}
	if (q->stack_off < 0 && q->status == USTACK_LOST)
		bprintf(b, oneline ? " user stack lost" :
			"   (user stack lost: none will follow)\n");
	else if (q->stack_off < 0)
		bprintf(b, oneline ? " user stack never arrived" :
			"   (user stack never arrived)\n");
	else if (nr < 0)
		bprintf(b, oneline ? " bad user stack record" :
			"   (bad user stack record)\n");
	else if (nr == 0)
		bprintf(b, oneline ? " no user frames (unwind failed)" :
			"   (no user frames: unwind failed)\n");
	else if (trunc && oneline)
		bprintf(b, " (cut short)");
	else if (trunc)
		bprintf(b, "   (user stack cut short: %llu frames found)\n",
			depth);
	if (q->stack_off >= 0 && nr > 0 && sframe_word(q))
		bprintf(b, oneline ? " [%s]" : "   (user stack: %s)\n",
			sframe_word(q));
	if (oneline)
		bprintf(b, "]");
}

/* The cookie of the user_stack_deferred at off (for one nobody asked). */
static int deferred_cookie(struct plugin_unwind_ctx *ctx, int64_t off,
			   unsigned long long *cookie)
{
	struct tep_record *r;
	struct tep_event *ev;
	int ok = 0;

	pthread_mutex_lock(&ctx->stream->input_mutex);
	r = tracecmd_read_at(kshark_get_tep_input(ctx->stream), off, NULL);
	if (r) {
		ev = rec_event(ctx->tep, r);
		ok = ev && !unwind_rec_field(ev, r, "cookie", cookie);
		tracecmd_free_record(r);
	}
	pthread_mutex_unlock(&ctx->stream->input_mutex);
	return ok ? 0 : -1;
}

static char *entry_text(struct plugin_unwind_ctx *ctx,
			const struct kshark_entry *e, int oneline)
{
	struct us_slot *sl = slot_find(ctx, e->offset);
	struct buf b = { 0 };
	unsigned long long c;
	int i, n = 0;

	if (e->event_id == ctx->deferred_id) {
		/* the requests it completes, in the order of delivery */
		i = sl && ctx->reqs[sl->req].stack_off == e->offset ?
			sl->req : -1;
		for (; i >= 0; i = ctx->reqs[i].next, n++)
			if (!oneline)
				req_text(ctx, &ctx->reqs[i], &b, 0);
		if (oneline)
			bprintf(&b, " [completes %d event%s]", n,
				n == 1 ? "" : "s");
		else if (!n && !deferred_cookie(ctx, e->offset, &c))
			bprintf(&b, "cookie 0x%llx: no event recorded its cookie\n",
				c);
	} else if (sl) {
		req_text(ctx, &ctx->reqs[sl->req], &b, oneline);
	}
	if (b.err) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

char *kshark_unwind_stack_text(const struct kshark_entry *e)
{
	struct plugin_unwind_ctx *ctx;

	if (!e)
		return NULL;
	ctx = __get_context(e->stream_id);
	if (!ctx)
		return NULL;
	return entry_text(ctx, e, 0);
}

/* ------------------------------------------------------------------ */
/* Names of user frames: libtracefs-ext's symbol lookup (syms.c). */

/*
 * The symbols of the stream's user frames, from the maps that
 * trace-cmd record --proc-map saved in the file and the binaries (next
 * to the trace file, or at their recorded paths; KSHARK_UNWIND_SYMDIR
 * adds a directory), made when first needed.  Caller holds syms_lock.
 */
static struct ustack_syms *get_syms(struct plugin_unwind_ctx *ctx)
{
	const char *path = ctx->stream->file;
	const char *dir = getenv("KSHARK_UNWIND_SYMDIR");

	if (ctx->syms_tried)
		return ctx->syms;
	ctx->syms_tried = 1;
	if (path)
		ctx->file = ustack_file_open(path);
	if (ctx->file)
		ctx->syms = ustack_syms_alloc();
	if (!ctx->syms || ustack_syms_set_file(ctx->syms, ctx->file) ||
	    (dir && *dir && ustack_syms_add_search_dir(ctx->syms, dir))) {
		if (asprintf(&ctx->syms_note,
			     "User frames not named: cannot read the process maps saved in %s",
			     path ? path : "the trace file") < 0)
			ctx->syms_note = NULL;
		ustack_syms_free(ctx->syms);
		ustack_file_close(ctx->file);
		ctx->syms = NULL;
		ctx->file = NULL;
	}
	return ctx->syms;
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

/* ------------------------------------------------------------------ */
/* The stack view (kshark_unwind_stack_view(), for unwind_view.cpp). */

#define MAX_MISSING	8

struct view {
	struct buf	b;
	const char	*missing[MAX_MISSING];	/* files named nothing */
	int		n_missing;
	int		no_map;
};

static void vline(struct view *v, char kind, int64_t off, const char *fmt,
		  ...) __attribute__((format(printf, 4, 5)));

static void vline(struct view *v, char kind, int64_t off, const char *fmt,
		  ...)
{
	char *t;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n < 0) {
		v->b.err = 1;
		return;
	}
	bprintf(&v->b, "%c %lld %s\n", kind, (long long)off, t);
	free(t);
}

static void ts_str(char *buf, size_t size, unsigned long long ts)
{
	snprintf(buf, size, "%llu.%06llu", ts / 1000000000ULL,
		 (ts % 1000000000ULL) / 1000);
}

/* one user frame, named; caller holds syms_lock */
static void view_uframe(struct view *v, struct ustack_syms *syms, int tgid,
			unsigned long long a)
{
	char buf[4096], *line, *next;
	struct ustack_sym sym;
	int i;

	if (!syms || ustack_syms_format_lines(syms, tgid, a, buf,
					      sizeof(buf)) < 0) {
		vline(v, 'U', -1, "0x%llx", a);
		return;
	}
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		vline(v, next ? 'i' : 'U', -1, "%s", line);
	}
	if (ustack_syms_resolve(syms, tgid, a, &sym))
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
		vline(v, 'W', -1, "Some user frames are in no saved process map: record with trace-cmd record --proc-map");
	for (i = 0; i < v->n_missing; i++) {
		if (!v->missing[i])
			continue;
		if (binary_found(ctx, v->missing[i]))
			vline(v, 'W', -1, "No symbols in %s (stripped, or another build than the one traced)",
			      v->missing[i]);
		else
			vline(v, 'W', -1, "Binary missing: %s is neither at that path nor next to the trace file (KSHARK_UNWIND_SYMDIR=DIR to look elsewhere)",
			      v->missing[i]);
		free((char *)v->missing[i]);
		v->missing[i] = NULL;
	}
	v->n_missing = 0;
	v->no_map = 0;
}

static const char *event_name(struct plugin_unwind_ctx *ctx, int id)
{
	struct tep_event *ev = id >= 0 ? tep_find_event(ctx->tep, id) : NULL;

	return ev ? ev->name : "(event not in the trace)";
}

/* one request's merged stack, named */
static void req_view(struct plugin_unwind_ctx *ctx, const struct us_req *q,
		     struct view *v)
{
	unsigned long long fr[US_MAX_FRAMES], depth = 0, sts = 0;
	struct ustack_syms *syms;
	char t[64], t2[64];
	int i, nr, knr, trunc = 0, scpu = -1;

	ts_str(t, sizeof(t), q->ts);
	vline(v, 'T', -1, "%s  pid %d  CPU %d  %s", event_name(ctx, q->ev_id),
	      q->pid, q->cpu, t);
	vline(v, 'I', -1, "cookie 0x%llx", (unsigned long long)q->cookie);
	if (q->ev_off < 0)
		vline(v, 'W', -1, "The event that asked is not in the trace (filtered out): only its cookie record is");

	pthread_mutex_lock(&ctx->stream->input_mutex);
	knr = read_frames(ctx, q->cookie_off, 1, fr, US_MAX_FRAMES, NULL,
			  NULL);
	vline(v, 'S', -1, "Kernel stack (%d frame%s)", knr > 0 ? knr : 0,
	      knr == 1 ? "" : "s");
	for (i = 0; i < knr; i++) {
		const char *f = tep_find_function(ctx->tep, fr[i]);

		if (fr[i] == US_FTRACE_TRAMPOLINE)
			vline(v, 'K', -1, "[ftrace trampoline]");
		else if (f)
			vline(v, 'K', -1, "%s+0x%llx", f, fr[i] -
			      tep_find_function_address(ctx->tep, fr[i]));
		else
			vline(v, 'K', -1, "0x%llx", fr[i]);
	}
	if (knr <= 0)
		vline(v, 'W', -1, "No kernel stack recorded");
	nr = q->stack_off >= 0 ?
		read_frames_at(ctx, q->stack_off, 0, fr, US_MAX_FRAMES, &trunc,
			       &depth, &sts, &scpu) : -1;
	pthread_mutex_unlock(&ctx->stream->input_mutex);

	if (q->stack_off < 0) {
		vline(v, 'S', -1, "User stack");
		if (q->status == USTACK_LOST)
			vline(v, 'W', -1, "User stack lost: the kernel could not ask for it, none will follow");
		else
			vline(v, 'W', -1, "User stack missing: it never arrived (the task did not return to user space before tracing stopped, or events were lost)");
		return;
	}
	ts_str(t2, sizeof(t2), sts);
	vline(v, 'J', q->stack_off,
	      "User stack (%d frame%s)%s%s%s: in the user_stack_deferred row at %s, CPU %d (click to go there)",
	      nr > 0 ? nr : 0, nr == 1 ? "" : "s",
	      nr > 0 && sframe_word(q) ? " [" : "",
	      nr > 0 && sframe_word(q) ? sframe_word(q) : "",
	      nr > 0 && sframe_word(q) ? "]" : "", t2, scpu);
	if (nr < 0) {
		vline(v, 'W', -1, "Bad user stack record (damaged file)");
		return;
	}
	if (nr == 0)
		vline(v, 'W', -1, "No user frames: the unwind failed");
	if (trunc)
		vline(v, 'W', -1, "User stack truncated: %d of %llu frames kept",
		      nr, depth);
	pthread_mutex_lock(&ctx->syms_lock);
	syms = get_syms(ctx);
	if (!syms && ctx->syms_note)
		vline(v, 'W', -1, "%s", ctx->syms_note);
	for (i = 0; i < nr; i++)
		view_uframe(v, syms, q->tgid, fr[i]);
	view_missing(ctx, v);
	pthread_mutex_unlock(&ctx->syms_lock);
}

#define VIEW_MAX_REQS	16

char *kshark_unwind_stack_view(const struct kshark_entry *e)
{
	struct plugin_unwind_ctx *ctx = e ? __get_context(e->stream_id) : NULL;
	struct view v = { 0 };
	struct us_slot *sl;
	unsigned long long c;
	char t[64];
	int i, n;

	if (!e)
		vline(&v, 'W', -1, "No event selected");
	else if (!ctx)
		vline(&v, 'W', -1, "The unwind_stack plugin is not active for this trace");
	else if (!ctx->active)
		vline(&v, 'W', -1, "%s", ctx->note);
	else if (e->event_id == ctx->deferred_id) {
		sl = slot_find(ctx, e->offset);
		i = sl && ctx->reqs[sl->req].stack_off == e->offset ?
			sl->req : -1;
		for (n = 0; i >= 0; i = ctx->reqs[i].next)
			n++;
		if (!n && !deferred_cookie(ctx, e->offset, &c))
			vline(&v, 'W', -1, "This user stack (cookie 0x%llx) completes no event: no event recorded its cookie",
			      c);
		else if (!n)
			vline(&v, 'W', -1, "Bad user stack record (damaged file)");
		else
			vline(&v, 'I', -1, "This user stack completes %d event%s:",
			      n, n == 1 ? "" : "s");
		i = sl && n ? sl->req : -1;
		for (n = 0; i >= 0; i = ctx->reqs[i].next, n++) {
			const struct us_req *q = &ctx->reqs[i];

			ts_str(t, sizeof(t), q->ts);
			vline(&v, 'J', q->ev_off >= 0 ? q->ev_off :
			      q->cookie_off, "%s  pid %d  CPU %d  %s (click to go there)",
			      event_name(ctx, q->ev_id), q->pid, q->cpu, t);
		}
		i = sl && n ? sl->req : -1;
		for (n = 0; i >= 0 && n < VIEW_MAX_REQS;
		     i = ctx->reqs[i].next, n++)
			req_view(ctx, &ctx->reqs[i], &v);
		if (i >= 0)
			vline(&v, 'I', -1, "(the stacks of the other events: select them)");
	} else if ((sl = slot_find(ctx, e->offset))) {
		const struct us_req *q = &ctx->reqs[sl->req];

		if (e->event_id == ctx->cookie_id && q->ev_off >= 0) {
			ts_str(t, sizeof(t), q->ts);
			vline(&v, 'J', q->ev_off,
			      "The cookie record of %s at %s (click to go there)",
			      event_name(ctx, q->ev_id), t);
		}
		req_view(ctx, q, &v);
	} else {
		vline(&v, 'I', -1, "%s", ctx->damaged ?
		      "This event did not ask for a deferred user stack, or its records are damaged" :
		      "This event did not ask for a deferred user stack");
	}
	if (ctx && ctx->damaged)
		vline(&v, 'W', -1, "Damaged file: %u record%s of the deferred stacks could not be read and were skipped",
		      ctx->damaged, ctx->damaged == 1 ? "" : "s");
	if (v.b.err) {
		free(v.b.s);
		return NULL;
	}
	return v.b.s;
}

/* ------------------------------------------------------------------ */
/* The graph's marks. */

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

const struct kshark_unwind_mark *kshark_unwind_marks(int sd, size_t *n)
{
	struct plugin_unwind_ctx *ctx = __get_context(sd);

	*n = ctx && ctx->active ? ctx->n_marks : 0;
	return *n ? ctx->marks : NULL;
}

/* ------------------------------------------------------------------ */
/* The Info column: the innermost user function only. */

static char *short_info(struct plugin_unwind_ctx *ctx,
			const struct kshark_entry *e)
{
	struct us_slot *sl = slot_find(ctx, e->offset);
	const struct us_req *q;
	unsigned long long fr[1], depth = 0;
	struct ustack_syms *syms;
	struct ustack_sym sym;
	char *out = NULL, name[512];
	int i, n = 0, nr, trunc = 0;

	if (e->event_id == ctx->deferred_id) {
		i = sl && ctx->reqs[sl->req].stack_off == e->offset ?
			sl->req : -1;
		for (; i >= 0; i = ctx->reqs[i].next)
			n++;
		if (asprintf(&out, " [completes %d event%s]", n,
			     n == 1 ? "" : "s") < 0)
			out = NULL;
		return out;
	}
	if (!sl)
		return NULL;
	q = &ctx->reqs[sl->req];
	if (q->stack_off < 0)
		return strdup(q->status == USTACK_LOST ? " [user stack lost]" :
			      " [user stack never arrived]");
	pthread_mutex_lock(&ctx->stream->input_mutex);
	nr = read_frames(ctx, q->stack_off, 0, fr, 1, &trunc, &depth);
	pthread_mutex_unlock(&ctx->stream->input_mutex);
	if (nr < 0)
		return strdup(" [bad user stack record]");
	if (nr == 0)
		return strdup(" [no user frames]");
	pthread_mutex_lock(&ctx->syms_lock);
	syms = get_syms(ctx);
	if (syms && !ustack_syms_resolve(syms, q->tgid, fr[0], &sym) &&
	    sym.name)
		snprintf(name, sizeof(name), "%s", sym.name);
	else if (!syms || ustack_syms_format(syms, q->tgid, fr[0], name,
					     sizeof(name)) < 0)
		snprintf(name, sizeof(name), "0x%llx", fr[0]);
	pthread_mutex_unlock(&ctx->syms_lock);
	if (asprintf(&out, " [ustack: %s%s%s%s]", name,
		     trunc ? ", cut short" : "", sframe_word(q) ? ", " : "",
		     sframe_word(q) ? sframe_word(q) : "") < 0)
		out = NULL;
	return out;
}

/* The stream's get_info, with the innermost user function appended. */
static char *plugin_unwind_get_info(struct kshark_data_stream *stream,
				    const struct kshark_entry *e)
{
	struct plugin_unwind_ctx *ctx = __get_context(stream->stream_id);
	char *info, *extra, *both;

	if (!ctx || !ctx->orig_get_info)
		return NULL;
	info = ctx->orig_get_info(stream, e);
	if (!ctx->active || e->event_id < 0 ||
	    (e->event_id != ctx->deferred_id && !slot_find(ctx, e->offset)))
		return info;
	/* one frame per line does not fit a table row: one line */
	if (info) {
		char *p;

		for (p = info; *p; p++)
			if (*p == '\n')
				*p = ' ';
		/*
		 * the frames the records print (the libtraceevent plugin's
		 * "=> ..."): the short form below replaces them
		 */
		if (e->event_id == ctx->cookie_id ||
		    e->event_id == ctx->deferred_id) {
			char *f = strstr(info, "=>");

			if (f)
				*f = '\0';
			p = info + strlen(info);
		}
		while (p > info && p[-1] == ' ')
			*--p = '\0';
	}
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

/* ------------------------------------------------------------------ */

static void ctx_drop(struct kshark_data_stream *stream)
{
	__close(stream->stream_id);
	if (--n_contexts == 0)
		__close(KS_PLUGIN_CONTEXT_FREE);
}

int KSHARK_PLOT_PLUGIN_INITIALIZER(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *iface;
	struct plugin_unwind_ctx *ctx;
	int ret;

	if (!kshark_is_tep(stream))
		return 0;
	ctx = __init(stream->stream_id);
	if (!ctx)
		return 0;
	n_contexts++;
	ctx->stream = stream;
	pthread_mutex_init(&ctx->syms_lock, NULL);
	ctx->tep = kshark_get_tep(stream);
	ctx->cookie_id = kshark_find_event_id(stream,
					      "ftrace/user_stack_cookie");
	ctx->deferred_id = kshark_find_event_id(stream,
						"ftrace/user_stack_deferred");
	/* the GUI part learns the graph's entries from the draw handler */
	kshark_register_draw_handler(stream, kshark_unwind_draw);
	/*
	 * Without the records the context stays, inactive: the stack view
	 * says why there is nothing to show.
	 */
	if ((ctx->cookie_id < 0 || ctx->deferred_id < 0) &&
	    kshark_find_event_id(stream, "unwind/user_stack_cookie") >= 0) {
		fprintf(stderr, "unwind_stack: %s: pre-release unwind:* record format: record the trace again\n",
			stream->file ? stream->file : "trace");
		ctx->note = "This trace has the pre-release unwind:* records: record it again";
		return 1;
	}
	if (!ctx->tep || ctx->cookie_id < 0 || ctx->deferred_id < 0) {
		ctx->note = "No deferred user stacks in this trace: it has no ftrace:user_stack_cookie / user_stack_deferred records (record with -R stacktrace:defer or -T -O userstacktrace_defer)";
		return 1;
	}

	/* the join, once, over the whole stream in time order */
	pthread_mutex_lock(&stream->input_mutex);
	ret = join_stream(ctx);
	pthread_mutex_unlock(&stream->input_mutex);
	if (ret < 0) {
		ctx->note = "The deferred stacks of this trace could not be read (out of memory)";
		return 1;
	}
	if (ctx->failed)
		fprintf(stderr, "unwind_stack: out of memory: %d requests kept\n",
			ctx->n_reqs);
	build_marks(ctx);
	ctx->active = 1;

	iface = stream->interface;
	if (iface && iface->type == KS_GENERIC_DATA_INTERFACE &&
	    iface->get_info != plugin_unwind_get_info) {
		ctx->orig_get_info = iface->get_info;
		iface->get_info = plugin_unwind_get_info;
	}

	/* merging is done here: the libtraceevent plugin's is not needed */
	tep_plugin_add_option("unwind_deferred:merge", "0");
	return 1;
}

int KSHARK_PLOT_PLUGIN_DEINITIALIZER(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *iface;
	struct plugin_unwind_ctx *ctx = __get_context(stream->stream_id);

	if (!ctx)
		return 0;
	iface = stream->interface;
	if (iface && iface->get_info == plugin_unwind_get_info)
		iface->get_info = ctx->orig_get_info;
	kshark_unregister_draw_handler(stream, kshark_unwind_draw);
	ctx_drop(stream);
	return 1;
}
