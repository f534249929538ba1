// SPDX-License-Identifier: LGPL-2.1
/*
 * KernelShark plugin "unwind_stack": the kernel and the deferred user stack
 * of the selected event (Documentation/kernelshark.md).
 *
 * Shaped as KernelShark's sched_events plugin: while libkshark loads the
 * data, event handlers give the two records (ftrace:user_stack_cookie and
 * user_stack_deferred) and the records that change the maps (execs, the
 * registrar's lines) to libustack's view (ustack_view(3)), which keeps
 * where they are; the second pass, at the first draw, has it make the
 * requests (libustack's join, as ustack and the series' trace-cmd report
 * use) and finds the event of each among KernelShark's entries.  The
 * view prints a stack when shown, from its records, with its symbols.
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
#include <ustack.h>
#include "ustack-file.h"
#include "unwind_stack.h"

#define MAX_LINKS	16

/* Drop what was kept (a new load); false: out of memory. */
static bool init_containers(struct plugin_unwind_context *ctx)
{
	kshark_free_data_container(ctx->at);
	ctx->second_pass_done = false;
	ctx->first_offset = -1;
	ctx->at = kshark_init_data_container();
	return ctx->at && !ustack_view_reset(ctx->view);
}

static void unwind_free_context(struct plugin_unwind_context *ctx)
{
	if (!ctx)
		return;
	kshark_free_data_container(ctx->at);
	ustack_view_free(ctx->view);
	free(ctx);
}

KS_DEFINE_PLUGIN_CONTEXT(struct plugin_unwind_context, unwind_free_context);

/* The record at @off, read under the stream's input mutex. */
static struct tep_record *read_at(void *data, unsigned long long off)
{
	struct plugin_unwind_context *ctx = data;
	struct tracecmd_input *in = kshark_get_tep_input(ctx->stream);
	struct tep_record *r;

	pthread_mutex_lock(&ctx->stream->input_mutex);
	r = in ? tracecmd_read_at(in, off, NULL) : NULL;
	pthread_mutex_unlock(&ctx->stream->input_mutex);
	return r;
}

static void release(void *data, struct tep_record *r)
{
	(void)data;
	tracecmd_free_record(r);
}

/*
 * The handle that holds the maps the trace saved: KernelShark's own, of
 * the file's top buffer (libtracecmd reads the saved maps there only, and
 * gives an instance's handle none).  The lookups read what libtracecmd
 * parsed when KernelShark opened the file: no second open, no I/O.
 */
static struct tracecmd_input *maps_input(struct kshark_data_stream *stream)
{
	struct kshark_context *kctx = NULL;
	int sd;

	if (!kshark_tep_is_top_stream(stream)) {
		if (!kshark_instance(&kctx))
			return NULL;
		sd = kshark_tep_find_top_stream(kctx, stream->file);
		stream = sd < 0 ? NULL : kshark_get_data_stream(kctx, sd);
		if (!stream)
			return NULL;
	}
	return kshark_get_tep_input(stream);
}

/*
 * The names of the user frames, beside the trace's and its loading's
 * (the view's): the binaries in KSHARK_UNWIND_SYMDIR, next to the trace
 * file, and the maps the trace saved.
 */
static int add_syms(void *data, struct ustack_syms *syms)
{
	struct plugin_unwind_context *ctx = data;
	const char *dir = getenv("KSHARK_UNWIND_SYMDIR");
	struct tracecmd_input *in = maps_input(ctx->stream);
	char *path = strdup(ctx->stream->file);
	int err;

	err = !in || !path ||
	      (dir && *dir && ustack_syms_add_search_dir(syms, dir)) ||
	      ustack_syms_add_trace_dir(syms, dirname(path)) ||
	      ustack_syms_set_tracecmd(syms, in);
	free(path);
	return err ? -1 : 0;
}

/*
 * The two records (checked: the others are damage), and the records that
 * change the maps, to the view.  KernelShark may load a stream again
 * without a new context (an advanced filter): the old entries are freed,
 * and the load begins with the same record.
 */
static void action(struct kshark_data_stream *stream, void *rec,
		   struct kshark_entry *entry)
{
	struct plugin_unwind_context *ctx = __get_context(stream->stream_id);

	if (!ctx || ctx->note)
		return;
	if ((ctx->second_pass_done || entry->offset == ctx->first_offset) &&
	    !init_containers(ctx)) {
		ctx->note = "Out of memory";
		return;
	}
	if (ctx->first_offset < 0)
		ctx->first_offset = entry->offset;
	if (ustack_view_add_record(ctx->view, rec, entry) < 0 && errno == ENOMEM)
		ctx->note = "Out of memory";
}

/* Back by one entry of the cookie record's CPU (ustack_record_find_event()) */
static int step_back(void *data, int *type, int *pid)
{
	struct plugin_unwind_context *ctx = data;
	const struct kshark_entry *e, *c = ctx->data[ctx->step];
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
static struct kshark_entry *
asking(struct plugin_unwind_context *ctx, const struct kshark_entry *c, int pid)
{
	ssize_t i = kshark_find_entry_by_time(c->ts, ctx->data, 0, ctx->n_data - 1);

	while (i >= 0 && (size_t)i < ctx->n_data && ctx->data[i] != c)
		i++;
	if (i < 0 || (size_t)i >= ctx->n_data)
		return NULL;
	ctx->step = i;
	return ustack_record_find_event(ctx->tep, pid, step_back, ctx) > 0 ?
	       ctx->data[ctx->step] : NULL;
}

void kshark_unwind_second_pass(int sd, struct kshark_entry **data, size_t n)
{
	struct plugin_unwind_context *ctx = __get_context(sd);
	const struct ustack_view_request *q;
	struct kshark_entry *e;
	size_t i;

	if (!ctx || ctx->note || ctx->second_pass_done || !n)
		return;
	ctx->second_pass_done = true;
	ctx->data = data;
	ctx->n_data = n;
	if (ustack_view_build(ctx->view))
		ctx->note = "Out of memory";
	q = ustack_view_requests(ctx->view, &n);
	for (i = 0; i < n && q[i].cookie; i++) {
		e = asking(ctx, q[i].cookie, q[i].request.pid);
		if (e)
			ustack_view_set_event(ctx->view, i, e->event_id, e->ts,
					      e->cpu, e);
		kshark_data_container_append(ctx->at, e ? e : q[i].cookie,
					     q[i].request.pid);
	}
	if (ctx->at->size)	/* libkshark 2.4's frees an empty one */
		kshark_data_container_sort(ctx->at);
	ctx->data = NULL;
}

struct kshark_unwind_view *kshark_unwind_view(const struct kshark_entry *e,
					      unsigned int flags)
{
	struct plugin_unwind_context *ctx = e ? __get_context(e->stream_id) : NULL;
	void *link[MAX_LINKS];
	struct kshark_unwind_view *v;
	struct trace_seq s;
	int n = 0;

	trace_seq_init(&s);
	if (!ctx)
		trace_seq_puts(&s, "No deferred user stacks in this trace: it has no ftrace:user_stack_cookie / user_stack_deferred records\n");
	else if (ctx->note)
		trace_seq_printf(&s, "%s\n", ctx->note);
	else if (!ctx->second_pass_done)
		trace_seq_puts(&s, "The graph is not drawn yet: select the event again\n");
	if (ctx)
		n = ustack_view_print_selected(ctx->view, &s, e, link,
					       MAX_LINKS, flags);
	n = n < 0 ? 0 : n;
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
	struct trace_seq s;
	char *text;
	int n = -1;

	trace_seq_init(&s);
	if (ctx && !ctx->note && ctx->second_pass_done)
		n = ustack_view_tree(ctx->view, &s, from < 0 ? 0 : from,
				     to < 0 ? 0 : to, pid, flags);
	if (n <= 0)
		trace_seq_printf(&s, "No deferred user stacks %s\n", n < 0 ? "in this trace" :
				 pid < 0 ? "in this time range" : "of this task in this time range");
	trace_seq_terminate(&s);
	text = strdup(s.buffer);
	trace_seq_destroy(&s);
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
	int i;

	if (!kshark_is_tep(stream) || !(ctx = __init(stream->stream_id)))
		return 0;
	ctx->stream = stream;
	ctx->tep = kshark_get_tep(stream);
	for (i = 0; i < N_EVENTS; i++)
		ctx->ids[i] = kshark_find_event_id(stream, events[i]);
	/* the view knows the formats (it says which field it misses) */
	ctx->view = ustack_view_alloc(ctx->tep, read_at, release, ctx);
	if (ctx->ids[0] < 0 || ctx->ids[1] < 0 || !ctx->view ||
	    ustack_view_set_syms_func(ctx->view, add_syms) ||
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
