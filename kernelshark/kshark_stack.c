// SPDX-License-Identifier: GPL-2.0
/*
 * Test program for the plugin's C part (make test:
 * test/plugin-unwind_stack.so), through libkshark as the GUI uses it:
 * open a trace.dat as a data stream, register and initialise the plugin
 * (its event handlers), load the entries, run the second pass as the
 * first draw does, then print the text the dock shows for each entry (of
 * EVENT), framed by "--- #N EVENT".  KSHARK_STACK_RAW=1: frames as
 * addresses (USTACK_PRINT_RAW).  KSHARK_STACK_RELOAD=1: the entries are
 * loaded three times, each freed before the next, as KernelShark reloads a
 * stream without a new plugin context (an advanced filter): the first
 * load not drawn, the others drawn.  KSHARK_STACK_INFO=1: the info text
 * KernelShark shows of each entry (its Info column) instead; PLUGIN.so
 * "-": no plugin.  KSHARK_STACK_TREE=FROM,TO[,PID]: the dock's call tree
 * of the events from FROM to TO (ns; PID: of that task) instead.
 * KSHARK_STACK_BUFFER=NAME: the stream of that buffer instance, opened
 * with the others as KernelShark opens a file, instead of the top one.
 *
 * Usage: kshark_stack PLUGIN.so TRACE.dat [EVENT]
 * Exit: 0 when a stack was shown, 1 when none, 2 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>

#include <libkshark.h>
#include <libkshark-plugin.h>
#include <libkshark-tepdata.h>

#include <ustack.h>
#include "unwind_stack.h"

typedef struct kshark_unwind_view *(*view_func)(const struct kshark_entry *,
						unsigned int);
typedef void (*pass_func)(int, struct kshark_entry **, size_t);
typedef char *(*tree_func)(int, int64_t, int64_t, int, unsigned int);

/* The stream of buffer instance @name of the file of stream @sd, or -1 */
static int buffer_stream(struct kshark_context *ctx, int sd, const char *name)
{
	struct kshark_data_stream *s;
	int *ids, i, n, ret = -1;

	if (kshark_tep_init_all_buffers(ctx, sd) < 0)
		return -1;
	ids = kshark_all_streams(ctx);
	n = ctx->n_streams;
	for (i = 0; ids && i < n; i++) {
		s = kshark_get_data_stream(ctx, ids[i]);
		if (s && s->name && !strcmp(s->name, name))
			ret = ids[i];
	}
	free(ids);
	return ret;
}

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_data_stream *stream;
	struct kshark_plugin_list *pl;
	struct kshark_entry **data = NULL;
	struct kshark_unwind_view *v;
	ssize_t n = 0, i;
	int sd, shown = 0, want = -1, reload, info;
	unsigned int flags = 0;
	pass_func pass;
	view_func view = NULL;
	char *name, *tree = getenv("KSHARK_STACK_TREE");
	const char *buffer = getenv("KSHARK_STACK_BUFFER");
	long long from = 0, to = 0;
	tree_func tree_of;
	int pid = -1;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s PLUGIN.so TRACE.dat [EVENT]\n", argv[0]);
		return 2;
	}
	if (!kshark_instance(&ctx))
		return 2;
	sd = kshark_open(ctx, argv[2]);
	if (sd >= 0 && buffer)
		sd = buffer_stream(ctx, sd, buffer);
	stream = sd >= 0 ? kshark_get_data_stream(ctx, sd) : NULL;
	info = getenv("KSHARK_STACK_INFO") != NULL;
	pl = stream && strcmp(argv[1], "-") ?
		kshark_register_plugin(ctx, "unwind_stack", argv[1]) : NULL;
	if (stream && !pl && info) {
		/* no plugin: KernelShark's own info */
		n = kshark_load_entries(ctx, sd, &data);
		goto print;
	}
	if (!pl || !pl->process_interface) {
		fprintf(stderr, "cannot open %s with plugin %s\n", argv[2], argv[1]);
		kshark_free(ctx);
		return 2;
	}
	kshark_register_plugin_to_stream(stream, pl->process_interface, true);
	kshark_handle_all_dpis(stream, KSHARK_PLUGIN_INIT);
	pass = (pass_func)dlsym(pl->handle, "kshark_unwind_second_pass");
	view = (view_func)dlsym(pl->handle, "kshark_unwind_view");
	if (!pass || !view) {
		fprintf(stderr, "%s: not the plugin's test build (make test)\n", argv[1]);
		kshark_free(ctx);
		return 2;
	}
	if (argc == 4)
		want = kshark_find_event_id(stream, argv[3]);
	flags = getenv("KSHARK_STACK_RAW") ? USTACK_PRINT_RAW : 0;
	reload = getenv("KSHARK_STACK_RELOAD") ? 2 : 0;
	for (;;) {
		n = kshark_load_entries(ctx, sd, &data);
		if (n > 0 && reload != 2)
			pass(sd, data, n);
		if (n <= 0 || !reload--)
			break;
		for (i = 0; i < n; i++)
			free(data[i]);
		free(data);
		data = NULL;
	}
print:
	printf("entries: %zd\n", n);
	tree_of = pl ? (tree_func)dlsym(pl->handle, "kshark_unwind_tree") : NULL;
	if (tree && tree_of && sscanf(tree, "%lld,%lld,%d", &from, &to, &pid) >= 2) {
		name = tree_of(sd, from, to, pid, flags);
		printf("%s", name ? name : "(null)\n");
		shown = name && strstr(name, "# Children");
		free(name);
		n = -n;		/* no entry's view */
	}
	for (i = 0; i < n; i++) {
		if (want >= 0 && data[i]->event_id != want)
			continue;
		if (info) {
			name = kshark_get_info(data[i]);
			printf("#%zd %s\n", i, name ? name : "");
			free(name);
			continue;
		}
		v = view(data[i], flags);
		name = kshark_get_event_name(data[i]);
		printf("--- #%zd %s\n%s", i, name ? name : "?", v ? v->text : "(null)\n");
		shown += v && strstr(v->text, " cookie=0x");
		free(name);
		free(v);
	}
	printf("stacks shown: %d\n", shown);
	for (n = n < 0 ? -n : n, i = 0; i < n; i++)
		free(data[i]);
	free(data);
	if (pl)
		kshark_handle_all_dpis(stream, KSHARK_PLUGIN_CLOSE);
	kshark_close_all(ctx);
	kshark_free(ctx);
	return shown || info ? 0 : 1;
}
