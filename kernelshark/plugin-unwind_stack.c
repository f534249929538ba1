// SPDX-License-Identifier: LGPL-2.1
/*
 * KernelShark 2.x plugin: merged kernel + deferred user stacks.
 *
 * The records (Documentation/contract.md, section 2): right after an
 * event that asks, ftrace:user_stack_cookie (cookie, flags, the event's
 * kernel stack); later, once per (instance, cookie),
 * ftrace:user_stack_deferred (cookie, tgid, flags, depth, user frames).
 *
 * While KernelShark loads a trace (records of one CPU in order), the
 * plugin notes, per CPU, the last two records; at each cookie record it
 * remembers the asking event (the record just before it from the same
 * task; a kernel_stack record of that task may sit between) and the
 * cookie record, keyed by (pid, cookie); at each user_stack_deferred it
 * remembers where the user stack is.  Matching is by (pid, cookie), so the
 * CPU and the order of loading do not matter.
 *
 * The merged stack (kernel frames, then user frames) of an entry is built
 * on demand by reading the cookie and user_stack_deferred records:
 *  - it is appended to the entry's info text (the "Info" column of the
 *    list and the graph's tooltip) as "[stack: k0 < k1 ... | u0 < u1 ...]";
 *  - kshark_unwind_stack_text() returns it as text, one frame per line,
 *    for any entry (asking event, its cookie record, or a
 *    user_stack_deferred, which lists every event it completes).
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

#include <libkshark.h>
#include <libkshark-plugin.h>
#include <libkshark-tepdata.h>
#include <trace-cmd.h>
#include <event-parse.h>

#include "unwind_stack.h"
#include "unwind_record.h"

#define US_HASH		4096
#define US_MAX_FRAMES	512

#define US_COOKIE_NO_USER_STACK	0x1	/* user_stack_cookie flags */
#define US_DEFERRED_TRUNCATED	0x1	/* user_stack_deferred flags */
#define US_FTRACE_TRAMPOLINE	0x7fffffffULL

enum us_role { US_OTHER, US_KSTACK, US_COOKIE, US_DEFERRED };

struct us_ask {
	struct us_ask	*next;		/* by (pid, cookie) */
	int64_t		ask_off;	/* -1: not known */
	int		ask_id;
	int64_t		cookie_off;	/* its kernel frames are there */
	int64_t		ts;
	uint64_t	cookie;
	unsigned int	flags;
	int		pid;
	int		cpu;
};

struct us_off {				/* offset -> ask */
	struct us_off	*next;
	int64_t		off;
	struct us_ask	*ask;
};

struct us_def {
	struct us_def	*next;
	uint64_t	cookie;
	int		pid;
	int64_t		off;
};

struct us_last {
	int64_t		off;
	int64_t		ts;
	int		id;
	int		pid;
	int		valid;
};

struct us_cpu {
	struct us_last	last[2];	/* [0] the last record, [1] before */
};

struct plugin_unwind_ctx {
	struct kshark_data_stream	*stream;
	struct tep_handle		*tep;
	int				kstack_id;
	int				cookie_id;
	int				deferred_id;
	int				*ids;
	int				n_ids;
	struct us_cpu			*cpus;
	int				n_cpus;
	struct us_ask			*asks[US_HASH];
	struct us_off			*offs[US_HASH];
	struct us_def			*defs[US_HASH];
	stream_get_str_func		orig_get_info;
};

static void plugin_unwind_free(struct plugin_unwind_ctx *ctx);

KS_DEFINE_PLUGIN_CONTEXT(struct plugin_unwind_ctx, plugin_unwind_free);

static int n_contexts;	/* to free the context array with the last */

static unsigned int key_hash(int pid, uint64_t cookie)
{
	uint64_t h = (cookie ^ ((uint64_t)pid << 32)) * 0x9e3779b97f4a7c15ULL;

	return h >> 52;		/* 12 bits */
}

static unsigned int off_hash(int64_t off)
{
	return ((uint64_t)off * 0x9e3779b97f4a7c15ULL) >> 52;
}

static void plugin_unwind_free(struct plugin_unwind_ctx *ctx)
{
	struct us_ask *a;
	struct us_off *o;
	struct us_def *d;
	int i;

	if (!ctx)
		return;
	for (i = 0; i < US_HASH; i++) {
		while ((a = ctx->asks[i])) {
			ctx->asks[i] = a->next;
			free(a);
		}
		while ((o = ctx->offs[i])) {
			ctx->offs[i] = o->next;
			free(o);
		}
		while ((d = ctx->defs[i])) {
			ctx->defs[i] = d->next;
			free(d);
		}
	}
	free(ctx->ids);
	free(ctx->cpus);
	free(ctx);
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
/* Loading: one call per record (all events are registered). */

static enum us_role role_of(struct plugin_unwind_ctx *ctx, int id)
{
	if (id == ctx->kstack_id)
		return US_KSTACK;
	if (id == ctx->cookie_id)
		return US_COOKIE;
	if (id == ctx->deferred_id)
		return US_DEFERRED;
	return US_OTHER;
}

static struct us_ask *find_by_off(struct plugin_unwind_ctx *ctx,
				  int64_t off)
{
	struct us_off *o;

	for (o = ctx->offs[off_hash(off)]; o; o = o->next)
		if (o->off == off)
			return o->ask;
	return NULL;
}

static void add_off(struct plugin_unwind_ctx *ctx, int64_t off,
		    struct us_ask *a)
{
	struct us_off *o;
	unsigned int h = off_hash(off);

	if (off < 0 || find_by_off(ctx, off))
		return;
	o = calloc(1, sizeof(*o));
	if (!o)
		return;
	o->off = off;
	o->ask = a;
	o->next = ctx->offs[h];
	ctx->offs[h] = o;
}

static void note_cookie(struct plugin_unwind_ctx *ctx, struct us_cpu *c,
			struct tep_record *rec, struct kshark_entry *e)
{
	struct tep_event *ev = rec_event(ctx->tep, rec);
	unsigned long long cookie, flags = 0;
	struct us_last *l0 = &c->last[0], *l1 = &c->last[1];
	struct us_last *ask = NULL;
	struct us_ask *a;
	unsigned int h;

	if (!ev || unwind_rec_field(ev, rec, "cookie", &cookie))
		return;
	unwind_rec_field(ev, rec, "flags", &flags);
	if (find_by_off(ctx, e->offset))
		return;			/* loaded again: known */
	a = calloc(1, sizeof(*a));
	if (!a)
		return;
	a->ask_off = -1;
	a->ask_id = -1;
	a->cookie_off = e->offset;
	a->cookie = cookie;
	a->flags = flags;
	a->pid = e->pid;
	a->cpu = e->cpu;
	a->ts = e->ts;
	/* the event just before, or before the stacktrace option's stack */
	if (l0->valid && l0->pid == e->pid) {
		if (role_of(ctx, l0->id) == US_OTHER)
			ask = l0;
		else if (role_of(ctx, l0->id) == US_KSTACK && l1->valid &&
			 l1->pid == e->pid && role_of(ctx, l1->id) == US_OTHER)
			ask = l1;
	}
	if (ask) {
		a->ask_off = ask->off;
		a->ask_id = ask->id;
		a->ts = ask->ts;
	}
	h = key_hash(a->pid, cookie);
	a->next = ctx->asks[h];
	ctx->asks[h] = a;
	add_off(ctx, a->cookie_off, a);
	add_off(ctx, a->ask_off, a);
}

static struct us_def *find_def(struct plugin_unwind_ctx *ctx, int pid,
			       uint64_t cookie)
{
	struct us_def *d;

	for (d = ctx->defs[key_hash(pid, cookie)]; d; d = d->next)
		if (d->pid == pid && d->cookie == cookie)
			return d;
	return NULL;
}

static void note_deferred(struct plugin_unwind_ctx *ctx,
			  struct tep_record *rec, struct kshark_entry *e)
{
	struct tep_event *ev = rec_event(ctx->tep, rec);
	unsigned long long cookie;
	struct us_def *d;
	unsigned int h;

	if (!ev || unwind_rec_field(ev, rec, "cookie", &cookie))
		return;
	d = find_def(ctx, e->pid, cookie);
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return;
		d->pid = e->pid;
		d->cookie = cookie;
		h = key_hash(e->pid, cookie);
		d->next = ctx->defs[h];
		ctx->defs[h] = d;
	}
	d->off = e->offset;
}

static void plugin_unwind_action(struct kshark_data_stream *stream,
				 void *rec, struct kshark_entry *e)
{
	struct plugin_unwind_ctx *ctx = __get_context(stream->stream_id);
	struct us_cpu *c, *n;
	int nr;

	if (!ctx || !rec || e->cpu < 0)
		return;
	if (e->cpu >= ctx->n_cpus) {
		nr = e->cpu + 1;
		n = realloc(ctx->cpus, nr * sizeof(*n));
		if (!n)
			return;
		memset(n + ctx->n_cpus, 0, (nr - ctx->n_cpus) * sizeof(*n));
		ctx->cpus = n;
		ctx->n_cpus = nr;
	}
	c = &ctx->cpus[e->cpu];
	if (c->last[0].valid && e->ts < c->last[0].ts)
		memset(c, 0, sizeof(*c));	/* loading again */

	switch (role_of(ctx, e->event_id)) {
	case US_COOKIE:
		note_cookie(ctx, c, rec, e);
		break;
	case US_DEFERRED:
		note_deferred(ctx, rec, e);
		break;
	default:
		break;
	}
	c->last[1] = c->last[0];
	c->last[0].off = e->offset;
	c->last[0].ts = e->ts;
	c->last[0].id = e->event_id;
	c->last[0].pid = e->pid;
	c->last[0].valid = 1;
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
static int read_frames(struct plugin_unwind_ctx *ctx, int64_t off,
		       int kernel, unsigned long long *out, int max,
		       int *truncated, unsigned long long *depth)
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

/* one asking event's merged stack */
static void ask_text(struct plugin_unwind_ctx *ctx, struct us_ask *a,
		     struct buf *b, int oneline)
{
	unsigned long long fr[US_MAX_FRAMES];
	struct tep_event *ev = a->ask_id >= 0 ?
		tep_find_event(ctx->tep, a->ask_id) : NULL;
	struct us_def *d = find_def(ctx, a->pid, a->cookie);
	unsigned long long depth = 0;
	int i, nr, trunc = 0;

	if (!oneline)
		bprintf(b, "%s pid=%d cpu=%d cookie=0x%llx\n",
			ev ? ev->name : "(event not seen)", a->pid, a->cpu,
			(unsigned long long)a->cookie);
	else
		bprintf(b, " [stack: ");

	pthread_mutex_lock(&ctx->stream->input_mutex);
	nr = read_frames(ctx, a->cookie_off, 1, fr, US_MAX_FRAMES, NULL, NULL);
	for (i = 0; i < nr; i++)
		kframe(b, ctx->tep, fr[i], oneline);
	if (nr <= 0 && !oneline)
		bprintf(b, "   (no kernel stack recorded)\n");
	nr = d ? read_frames(ctx, d->off, 0, fr, US_MAX_FRAMES, &trunc,
			     &depth) : -1;
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
	if (!d && (a->flags & US_COOKIE_NO_USER_STACK))
		bprintf(b, oneline ? " user stack lost" :
			"   (user stack lost: none will follow)\n");
	else if (!d)
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
	if (oneline)
		bprintf(b, "]");
}

static char *entry_text(struct plugin_unwind_ctx *ctx,
			const struct kshark_entry *e, int oneline)
{
	struct buf b = { 0 };
	struct us_ask *a;
	uint64_t cookie;
	int n = 0;

	if (e->event_id == ctx->deferred_id) {
		struct tep_record *r;
		struct tep_event *ev;
		unsigned long long c;
		int ok = 0;

		pthread_mutex_lock(&ctx->stream->input_mutex);
		r = tracecmd_read_at(kshark_get_tep_input(ctx->stream),
				     e->offset, NULL);
		if (r) {
			ev = rec_event(ctx->tep, r);
			ok = ev && !unwind_rec_field(ev, r, "cookie", &c);
			tracecmd_free_record(r);
		}
		pthread_mutex_unlock(&ctx->stream->input_mutex);
		if (!ok)
			return NULL;
		cookie = c;
		for (a = ctx->asks[key_hash(e->pid, cookie)]; a; a = a->next)
			if (a->pid == e->pid && a->cookie == cookie)
				n++;
		if (oneline) {
			bprintf(&b, " [completes %d event%s]", n,
				n == 1 ? "" : "s");
			return b.err ? (free(b.s), NULL) : b.s;
		}
		/* the list is newest first: print oldest first */
		for (; n > 0; n--) {
			int i = 0;

			for (a = ctx->asks[key_hash(e->pid, cookie)]; a;
			     a = a->next)
				if (a->pid == e->pid && a->cookie == cookie &&
				    ++i == n)
					break;
			if (a)
				ask_text(ctx, a, &b, 0);
		}
		if (!b.s)
			bprintf(&b, "cookie 0x%llx: no event recorded its cookie\n",
				(unsigned long long)cookie);
	} else {
		a = find_by_off(ctx, e->offset);
		if (!a)
			return NULL;
		ask_text(ctx, a, &b, oneline);
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

/* The stream's get_info, with the one-line merged stack appended. */
static char *plugin_unwind_get_info(struct kshark_data_stream *stream,
				    const struct kshark_entry *e)
{
	struct plugin_unwind_ctx *ctx = __get_context(stream->stream_id);
	char *info, *extra, *both;

	if (!ctx || !ctx->orig_get_info)
		return NULL;
	info = ctx->orig_get_info(stream, e);
	if (e->event_id < 0 || (e->event_id != ctx->deferred_id &&
				!find_by_off(ctx, e->offset)))
		return info;
	/* one frame per line does not fit a table row: one line */
	if (info) {
		char *p;

		for (p = info; *p; p++)
			if (*p == '\n')
				*p = ' ';
		while (p > info && p[-1] == ' ')
			*--p = '\0';
	}
	extra = entry_text(ctx, e, 1);
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

int KSHARK_PLOT_PLUGIN_INITIALIZER(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *iface;
	struct plugin_unwind_ctx *ctx;
	int i, n;

	if (!kshark_is_tep(stream))
		return 0;
	ctx = __init(stream->stream_id);
	if (!ctx)
		return 0;
	n_contexts++;
	ctx->stream = stream;
	ctx->tep = kshark_get_tep(stream);
	ctx->kstack_id = kshark_find_event_id(stream, "ftrace/kernel_stack");
	ctx->cookie_id = kshark_find_event_id(stream,
					      "ftrace/user_stack_cookie");
	ctx->deferred_id = kshark_find_event_id(stream,
						"ftrace/user_stack_deferred");
	if ((ctx->cookie_id < 0 || ctx->deferred_id < 0) &&
	    kshark_find_event_id(stream, "unwind/user_stack_cookie") >= 0)
		fprintf(stderr, "unwind_stack: %s: pre-release unwind:* record format: record the trace again\n",
			stream->file ? stream->file : "trace");
	if (!ctx->tep || ctx->cookie_id < 0 || ctx->deferred_id < 0) {
		__close(stream->stream_id);
		if (--n_contexts == 0)
			__close(KS_PLUGIN_CONTEXT_FREE);
		return 0;
	}

	/* every record passes through the action, to know what preceded */
	ctx->ids = kshark_get_all_event_ids(stream);
	n = ctx->ids ? stream->n_events : 0;
	for (i = 0; i < n; i++)
		kshark_register_event_handler(stream, ctx->ids[i],
					      plugin_unwind_action);
	ctx->n_ids = n;

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
	int i;

	if (!ctx)
		return 0;
	for (i = 0; i < ctx->n_ids; i++)
		kshark_unregister_event_handler(stream, ctx->ids[i],
						plugin_unwind_action);
	iface = stream->interface;
	if (iface && iface->get_info == plugin_unwind_get_info)
		iface->get_info = ctx->orig_get_info;
	__close(stream->stream_id);
	if (--n_contexts == 0)
		__close(KS_PLUGIN_CONTEXT_FREE);
	return 1;
}
