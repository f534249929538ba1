// SPDX-License-Identifier: LGPL-2.1
/*
 * KernelShark plugin "unwind_stack": the kernel and the deferred user stack
 * of the selected event (Documentation/kernelshark.md).
 *
 * Shaped as KernelShark's sched_events plugin: while libkshark loads the
 * data, event handlers put the two records (ftrace:user_stack_cookie and
 * user_stack_deferred) and the records that change the maps (execs, the
 * registrar's lines) into data containers; the second pass, at the first
 * draw, feeds the two in time order to libustack's join, which ustack and
 * the series' trace-cmd report use too.  A stack is printed when shown,
 * by libustack's printer, from its records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <pthread.h>

#include <libkshark-tepdata.h>
#include <trace-cmd.h>
#include <event-utils.h>
#include <ustack.h>
#include "ustack-file.h"
#include "unwind_stack.h"

#define MAX_FRAMES	512
#define MAX_LINKS	16

static void free_containers(struct plugin_unwind_context *ctx)
{
	kshark_free_data_container(ctx->recs);
	kshark_free_data_container(ctx->maps);
	kshark_free_data_container(ctx->at);
	free(ctx->reqs);
	ustack_index_free(ctx->index);
}

/* Drop what was kept (a new load); false: out of memory. */
static bool init_containers(struct plugin_unwind_context *ctx)
{
	free_containers(ctx);
	ctx->reqs = NULL;
	ctx->index = NULL;
	ctx->n_reqs = ctx->damaged = 0;
	ctx->second_pass_done = false;
	ctx->recs = kshark_init_data_container();
	ctx->maps = kshark_init_data_container();
	ctx->at = kshark_init_data_container();
	return ctx->recs && ctx->maps && ctx->at;
}

static void unwind_free_context(struct plugin_unwind_context *ctx)
{
	if (!ctx)
		return;
	free_containers(ctx);
	ustack_syms_free(ctx->syms);
	ustack_file_close(ctx->file);
	free(ctx->log);
	free(ctx);
}

KS_DEFINE_PLUGIN_CONTEXT(struct plugin_unwind_context, unwind_free_context);

/* The record at @off, read under the stream's input mutex. */
static struct tep_record *read_at(struct plugin_unwind_context *ctx,
				  int64_t off)
{
	struct tracecmd_input *in = kshark_get_tep_input(ctx->stream);
	struct tep_record *r;

	pthread_mutex_lock(&ctx->stream->input_mutex);
	r = in ? tracecmd_read_at(in, off, NULL) : NULL;
	pthread_mutex_unlock(&ctx->stream->input_mutex);
	return r;
}

/*
 * The two records (checked: the others are damage), and the records that
 * change the maps.  KernelShark may load a stream again without a new
 * context (an advanced filter): the old entries are freed, and the load
 * begins with the same record.
 */
static void action(struct kshark_data_stream *stream, void *rec,
		   struct kshark_entry *entry)
{
	struct plugin_unwind_context *ctx = __get_context(stream->stream_id);
	struct tep_event *ev;
	struct ustack_record ur;
	bool ours;

	if (!ctx || ctx->note)
		return;
	if ((ctx->second_pass_done || entry->offset == ctx->first_offset) &&
	    !init_containers(ctx)) {
		ctx->note = "Out of memory";
		return;
	}
	if (!ctx->recs->size && !ctx->maps->size)
		ctx->first_offset = entry->offset;
	ours = entry->event_id == ctx->ids[0] || entry->event_id == ctx->ids[1];
	ev = ours ? tep_find_event(ctx->tep, entry->event_id) : NULL;
	if (ours && (!ev || ustack_record_parse(ev, rec, &ur, NULL, 0) < 0))
		ctx->damaged++;
	else
		kshark_data_container_append(ours ? ctx->recs : ctx->maps, entry, 0);
}

/* The order libtracecmd merges CPUs in, as ustack reads them. */
static int entry_cmp(const void *a, const void *b)
{
	const struct kshark_entry *x = (*(struct kshark_data_field_int64 **)a)->entry;
	const struct kshark_entry *y = (*(struct kshark_data_field_int64 **)b)->entry;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void sort(struct kshark_data_container *c)
{
	qsort(c->data, c->size, sizeof(*c->data), entry_cmp);
	c->sorted = true;
}

/* The first field of sorted container @c at time @ts, or -1. */
static ssize_t first_at(struct kshark_data_container *c, int64_t ts)
{
	ssize_t i = c && c->size ?
		kshark_find_entry_field_by_time(ts, c->data, 0, c->size - 1) : -1;

	/* it never gives index 0, and -1 when all are later */
	i = i == BSEARCH_ALL_SMALLER || !c->size ? -1 : i < 0 ? 0 : i;
	while (i > 0 && c->data[i - 1]->entry->ts >= ts)
		i--;
	return i;
}

/* The entry of container @c at time @ts and file offset @off. */
static const struct kshark_entry *
find(struct kshark_data_container *c, int64_t ts, int64_t off)
{
	ssize_t i = first_at(c, ts);

	for (; i >= 0 && i < c->size && c->data[i]->entry->ts == ts; i++)
		if (c->data[i]->entry->offset == off)
			return c->data[i]->entry;
	return NULL;
}

/* Back by one entry of the cookie record's CPU (ustack_record_find_event()) */
static int step_back(void *data, int *type, int *pid)
{
	struct plugin_unwind_context *ctx = data;
	const struct kshark_entry *e, *c = ctx->data[ctx->cursor];
	struct tep_record *r;

	do
		e = ctx->step > 0 ? ctx->data[--ctx->step] : NULL;
	while (e && (e->stream_id != c->stream_id || e->cpu != c->cpu));
	if (!e)
		return 1;
	r = read_at(ctx, e->offset);
	*type = e->event_id;
	*pid = r ? tep_data_pid(ctx->tep, r) : -1;
	tracecmd_free_record(r);
	return 0;
}

/* The event that asked with cookie record @c of task @pid, or NULL */
static const struct kshark_entry *
asking(struct plugin_unwind_context *ctx, const struct kshark_entry *c, int pid)
{
	ssize_t i = kshark_find_entry_by_time(c->ts, ctx->data, 0, ctx->n_data - 1);

	while (i >= 0 && (size_t)i < ctx->n_data && ctx->data[i] != c)
		i++;
	if (i < 0 || (size_t)i >= ctx->n_data)
		return NULL;
	ctx->cursor = ctx->step = i;
	return ustack_record_find_event(ctx->tep, pid, step_back, ctx) > 0 ?
	       ctx->data[ctx->step] : NULL;
}

/* Request @r of the index: its entries, and each entry's request */
static void note_request(struct plugin_unwind_context *ctx,
			 const struct ustack_request *r)
{
	struct unwind_req *q = &ctx->reqs[ctx->n_reqs];
	const struct kshark_entry *at[3];
	struct tep_record *u;
	int i;

	/* fed alone, a cookie record is its own event (UNSEEN) */
	q->cookie_rec = find(ctx->recs, r->ts, r->cookie_offset);
	u = r->stack_offset ? read_at(ctx, r->stack_offset) : NULL;
	q->stack_rec = u ? find(ctx->recs, u->ts, u->offset) : NULL;
	tracecmd_free_record(u);
	if (!q->cookie_rec)
		return;
	q->event = asking(ctx, q->cookie_rec, r->pid);
	q->pid = r->pid;
	q->r = r;
	at[0] = q->event ? q->event : q->cookie_rec;
	at[1] = q->event ? q->cookie_rec : NULL;
	at[2] = q->stack_rec;
	for (i = 0; i < 3; i++)
		if (at[i])
			kshark_data_container_append(ctx->at, (struct kshark_entry *)
						     at[i], ctx->n_reqs);
	ctx->n_reqs++;
}

void kshark_unwind_second_pass(int sd, struct kshark_entry **data, size_t n)
{
	struct plugin_unwind_context *ctx = __get_context(sd);
	const struct ustack_request *reqs;
	struct ustack_index *index;
	struct tep_record *r;
	int err = 0;
	ssize_t i;

	if (!ctx || ctx->note || ctx->second_pass_done || !n)
		return;
	ctx->second_pass_done = true;
	ctx->data = data;
	ctx->n_data = n;
	sort(ctx->recs);
	index = ctx->index = ustack_index_alloc(ctx->tep);
	/* damaged records count, and the pass goes on */
	for (i = 0; index && !err && i < ctx->recs->size; i++) {
		r = read_at(ctx, ctx->recs->data[i]->entry->offset);
		err = ustack_index_add_record(index, r) && errno == ENOMEM;
		tracecmd_free_record(r);
	}
	ustack_index_flush(index);	/* the user stacks that never came */
	reqs = ustack_index_requests(index, &n);
	ctx->reqs = calloc(n + 1, sizeof(*ctx->reqs));
	if (!index || !ctx->reqs)
		ctx->note = "Out of memory";
	for (i = 0; ctx->reqs && i < (ssize_t)n; i++)
		note_request(ctx, &reqs[i]);
	ctx->damaged += index ? ustack_index_damaged(index) : 0;
	sort(ctx->at);
	ctx->data = NULL;
}

/*
 * libustack's messages (linked in, its symbols hidden) while a stack is
 * printed: kept for the view, which KernelShark's users read (not its
 * terminal); the others printed as libtraceevent prints them.
 */
static struct plugin_unwind_context *logging;

int tep_vprint(const char *name, enum tep_loglevel level, bool print_err,
	       const char *fmt, va_list ap)
{
	char *old = logging ? logging->log : NULL, *m;

	if (!logging)
		return __tep_vprint(name, level, print_err, fmt, ap);
	if ((old && strlen(old) > 4096) || vasprintf(&m, fmt, ap) < 0)
		return 0;
	if (asprintf(&logging->log, "%s%s: %s\n", old ? old : "", name, m) < 0)
		logging->log = old;
	else
		free(old);
	free(m);
	return 0;
}

/*
 * The names of the user frames: the maps the trace saved, the binaries at
 * their paths, in KSHARK_UNWIND_SYMDIR, next to the trace file (libustack's
 * search path), and the execs and loads of this stream's own loading.
 */
static struct ustack_syms *get_syms(struct plugin_unwind_context *ctx)
{
	const char *dir = getenv("KSHARK_UNWIND_SYMDIR");
	struct kshark_data_container *m = ctx->maps;
	struct tracecmd_input *in;
	struct tep_record *r;
	char *path;
	int err;

	if (ctx->syms_tried)
		return ctx->syms;
	ctx->syms_tried = true;
	ctx->file = ustack_file_open_probed(ctx->stream->file);
	in = ctx->file ? ustack_file_handle(ctx->file) : NULL;
	ctx->syms = in ? ustack_syms_alloc() : NULL;
	path = strdup(ctx->stream->file);
	err = !ctx->syms || !path || (dir && *dir &&
				      ustack_syms_add_search_dir(ctx->syms, dir));
	err = err || ustack_syms_set_tep(ctx->syms, ctx->tep) ||
	      ustack_syms_add_trace_dir(ctx->syms, dirname(path)) ||
	      ustack_syms_set_tracecmd(ctx->syms, in);
	sort(m);
	for (ssize_t i = 0; !err && i < m->size; i++) {
		r = read_at(ctx, m->data[i]->entry->offset);
		err = r && ustack_feed_record(NULL, ctx->syms, ctx->tep, r) < 0 &&
		      errno == ENOMEM;
		tracecmd_free_record(r);
	}
	free(path);
	if (err) {
		ustack_syms_free(ctx->syms);
		ctx->syms = NULL;
	}
	return ctx->syms;
}

/* The event of request @q, its frames in @kf and @uf (MAX_FRAMES each) */
static void req_event(struct plugin_unwind_context *ctx,
		      const struct unwind_req *q, struct ustack_event *ev,
		      unsigned long long *kf, unsigned long long *uf)
{
	const struct kshark_entry *e = q->event ? q->event : q->cookie_rec;
	const struct ustack_request *r = q->r;
	struct tep_record *c = read_at(ctx, q->cookie_rec->offset);
	struct tep_record *u = q->stack_rec ? read_at(ctx, q->stack_rec->offset) : NULL;

	*ev = (struct ustack_event){
		.instance = "", .tep = ctx->tep, .ts = e->ts, .cpu = e->cpu,
		.event = q->event ? tep_find_event(ctx->tep, e->event_id) : NULL,
		.pid = r->pid, .tgid = r->tgid, .status = r->status,
		.flags = r->flags, .unwinder = r->unwinder, .kernel = kf, .user = uf,
	};
	if (c)
		ustack_event_parse(ev, c, u, kf, uf, MAX_FRAMES);
	tracecmd_free_record(c);
	tracecmd_free_record(u);
}

/* One request: its event, then the stack block as libustack prints it. */
static void print_req(struct plugin_unwind_context *ctx,
		      const struct unwind_req *q, struct trace_seq *s,
		      unsigned int flags)
{
	unsigned long long kf[MAX_FRAMES], uf[MAX_FRAMES];
	struct ustack_event ev;

	req_event(ctx, q, &ev, kf, uf);
	trace_seq_printf(s, "%s pid=%d cpu=%d cookie=0x%llx\ntime %.6f\n",
			 ev.event ? ev.event->name : "(event not seen)", ev.pid,
			 ev.cpu, ev.cookie, ev.ts * 1e-9);
	logging = ctx;
	ustack_event_print(s, &ev, flags & USTACK_PRINT_RAW ? NULL :
			   get_syms(ctx), flags);
	logging = NULL;
}

struct kshark_unwind_view *kshark_unwind_view(const struct kshark_entry *e,
					      unsigned int flags)
{
	struct plugin_unwind_context *ctx = e ? __get_context(e->stream_id) : NULL;
	const struct kshark_entry *link[MAX_LINKS], *to;
	struct kshark_unwind_view *v;
	struct unwind_req *q;
	size_t n = 0, nr = 0;
	struct trace_seq s;
	ssize_t i;

	trace_seq_init(&s);
	if (!ctx)
		trace_seq_puts(&s, "No deferred user stacks in this trace: it has no ftrace:user_stack_cookie / user_stack_deferred records\n");
	else if (ctx->note)
		trace_seq_printf(&s, "%s\n", ctx->note);
	else if (!ctx->second_pass_done)
		trace_seq_puts(&s, "The graph is not drawn yet: select the event again\n");
	i = ctx && !ctx->note ? first_at(ctx->at, e->ts) : -1;
	for (; i >= 0 && i < ctx->at->size && ctx->at->data[i]->entry->ts == e->ts; i++) {
		if (ctx->at->data[i]->entry != e)
			continue;
		q = &ctx->reqs[ctx->at->data[i]->field];
		if (e == q->stack_rec && nr++ >= MAX_LINKS)
			continue;	/* the first ones; select the others */
		if (e == q->stack_rec && nr == 1)
			trace_seq_puts(&s, "This user stack completes:\n");
		print_req(ctx, q, &s, flags);
		/* the user stack's row; from there, the events' */
		to = e != q->stack_rec ? q->stack_rec :
		     q->event ? q->event : q->cookie_rec;
		if (to && n < MAX_LINKS)
			link[n++] = to;
	}
	if (ctx && ctx->second_pass_done && !s.len)
		trace_seq_puts(&s, "This event did not ask for a deferred user stack\n");
	if (ctx && ctx->damaged)
		trace_seq_printf(&s, "Damaged file: %u records of the deferred stacks could not be read\n",
				 ctx->damaged);
	if (ctx && ctx->log)
		trace_seq_puts(&s, ctx->log);
	trace_seq_terminate(&s);
	v = malloc(sizeof(*v) + n * sizeof(link[0]) + s.len + 1);
	if (v) {
		v->n_links = n;
		memcpy(v->link, link, n * sizeof(link[0]));
		v->text = memcpy(&v->link[n], s.buffer, s.len + 1);
	}
	trace_seq_destroy(&s);
	return v;
}

char *kshark_unwind_tree(int sd, int64_t from, int64_t to, int pid,
			 unsigned int flags)
{
	struct plugin_unwind_context *ctx = __get_context(sd);
	unsigned long long kf[MAX_FRAMES], uf[MAX_FRAMES];
	const struct kshark_entry *e;
	const struct unwind_req *q;
	struct ustack_tree *t;
	struct ustack_event ev;
	struct trace_seq s;
	size_t i, n = 0;
	char *text;

	trace_seq_init(&s);
	t = ctx && !ctx->note && ctx->second_pass_done ? ustack_tree_alloc(0) : NULL;
	for (i = 0; t && i < ctx->n_reqs; i++) {
		q = &ctx->reqs[i];
		e = q->event ? q->event : q->cookie_rec;
		if (e->ts < from || e->ts > to || (pid >= 0 && q->pid != pid))
			continue;
		req_event(ctx, q, &ev, kf, uf);
		/* fed alone, every cookie record was an unseen event */
		ev.flags = q->event ? ev.flags & ~USTACK_EV_UNSEEN :
			   ev.flags | USTACK_EV_UNSEEN;
		logging = ctx;
		n += !ustack_tree_add_event(t, &ev, flags & USTACK_PRINT_RAW ?
					    NULL : get_syms(ctx), 1);
		logging = NULL;
	}
	if (!n || ustack_tree_print(&s, t) < 0)
		trace_seq_printf(&s, "No deferred user stacks %s\n", !t ? "in this trace" :
				 pid < 0 ? "in this time range" : "of this task in this time range");
	trace_seq_terminate(&s);
	text = strdup(s.buffer);
	trace_seq_destroy(&s);
	ustack_tree_free(t);
	return text;
}

/* the two records, and those that change a process's maps */
static const char *const events[N_EVENTS] = {
	"ftrace/user_stack_cookie", "ftrace/user_stack_deferred",
	"sched/sched_process_exec", "syscalls/sys_exit_execve", "ftrace/print",
};

/** Load this plugin. */
__attribute__((visibility("default")))
int KSHARK_PLOT_PLUGIN_INITIALIZER(struct kshark_data_stream *stream)
{
	struct plugin_unwind_context *ctx;
	struct ustack_index *index;
	int i;

	if (!kshark_is_tep(stream) || !(ctx = __init(stream->stream_id)))
		return 0;
	ctx->stream = stream;
	ctx->tep = kshark_get_tep(stream);
	for (i = 0; i < N_EVENTS; i++)
		ctx->ids[i] = kshark_find_event_id(stream, events[i]);
	ctx->first_offset = -1;
	/* the join knows the formats (it says which field it misses) */
	index = ustack_index_alloc(ctx->tep);
	ustack_index_free(index);
	if (ctx->ids[0] < 0 || ctx->ids[1] < 0 || !index ||
	    !init_containers(ctx) || !stream->file) {
		if (ustack_record_prerelease(ctx->tep))
			fprintf(stderr, "unwind_stack: %s: pre-release unwind:* record format: record the trace again\n",
				stream->file);
		__close(stream->stream_id);
		return 0;
	}
	for (i = 0; i < N_EVENTS; i++)
		if (ctx->ids[i] >= 0)
			kshark_register_event_handler(stream, ctx->ids[i], action);
#ifndef KSHARK_UNWIND_NO_GUI
	kshark_register_draw_handler(stream, plugin_unwind_draw);
#endif
	return 1;
}

/** Unload this plugin. */
__attribute__((visibility("default")))
int KSHARK_PLOT_PLUGIN_DEINITIALIZER(struct kshark_data_stream *stream)
{
	struct plugin_unwind_context *ctx = __get_context(stream->stream_id);
	int i;

	for (i = 0; ctx && i < N_EVENTS; i++)
		if (ctx->ids[i] >= 0)
			kshark_unregister_event_handler(stream, ctx->ids[i], action);
#ifndef KSHARK_UNWIND_NO_GUI
	if (ctx)
		kshark_unregister_draw_handler(stream, plugin_unwind_draw);
#endif
	__close(stream->stream_id);
	return !!ctx;
}
