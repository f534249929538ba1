// SPDX-License-Identifier: GPL-2.0
/*
 * Test program for the KernelShark plugin's test build (make test:
 * test/plugin-unwind_stack.so), through libkshark the way the GUI uses
 * it: open a trace.dat as a KernelShark data stream, register the plugin
 * to the stream and initialise it (its event handlers), load the entries,
 * run the plugin's second pass on them as the first draw of the graph
 * does (kshark_unwind_join()), then print, for the entries that have
 * one, the info text KernelShark shows (with the plugin's innermost user
 * function) and the merged stack from kshark_unwind_stack_text().
 *
 * Usage: kshark_stack PLUGIN.so TRACE.dat [EVENT]
 *   EVENT: only entries of this event (e.g. syscalls/sys_enter_getppid)
 * With KSHARK_STACK_VIEW=1 in the environment, it prints instead the
 * the stack view (kshark_unwind_stack_view()) of every entry (of EVENT),
 * one "KIND TARGET TEXT" line per line of it, framed by "--- view #N".
 * With KSHARK_STACK_RELOAD=1, the entries are loaded three times, each
 * load freed before the next, as KernelShark 2.2 reloads a stream without
 * a new plugin context (an advanced filter): the first not joined (not
 * drawn), the others joined.
 * Exit: 0 when at least one merged stack was printed, 1 when none,
 *       2 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>

#include <libkshark.h>
#include <libkshark-plugin.h>

#include "unwind_stack.h"

typedef char *(*text_func)(const struct kshark_entry *);
typedef struct kshark_unwind_view *(*view_func)(const struct kshark_entry *);
typedef int (*join_func)(int, struct kshark_entry **, size_t);

static void print_view(struct kshark_unwind_view *v)
{
	size_t i;

	if (!v) {
		printf("(null)\n");
		return;
	}
	for (i = 0; i < v->n; i++)
		printf("%c %lld %s\n", v->line[i].kind,
		       (long long)v->line[i].target, v->line[i].text);
}

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_data_stream *stream;
	struct kshark_plugin_list *pl;
	struct kshark_entry **data = NULL;
	struct kshark_unwind_view *v;
	text_func text;
	view_func view;
	join_func join;
	char *info, *t, *name;
	ssize_t n, i;
	int sd, shown = 0, want = -1, reload;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s PLUGIN.so TRACE.dat [EVENT]\n",
			argv[0]);
		return 2;
	}
	if (!kshark_instance(&ctx))
		return 2;
	sd = kshark_open(ctx, argv[2]);
	if (sd < 0) {
		fprintf(stderr, "cannot open %s\n", argv[2]);
		kshark_free(ctx);
		return 2;
	}
	stream = kshark_get_data_stream(ctx, sd);
	pl = kshark_register_plugin(ctx, "unwind_stack", argv[1]);
	if (!stream || !pl || !pl->process_interface) {
		fprintf(stderr, "cannot load plugin %s\n", argv[1]);
		kshark_free(ctx);
		return 2;
	}
	kshark_register_plugin_to_stream(stream, pl->process_interface, true);
	kshark_handle_all_dpis(stream, KSHARK_PLUGIN_INIT);
	text = (text_func)dlsym(pl->handle, "kshark_unwind_stack_text");
	if (argc == 4)
		want = kshark_find_event_id(stream, argv[3]);
	view = getenv("KSHARK_STACK_VIEW") ?
		(view_func)dlsym(pl->handle, "kshark_unwind_stack_view") :
		NULL;
	join = (join_func)dlsym(pl->handle, "kshark_unwind_join");
	if (!join || !text) {
		fprintf(stderr, "%s: not the plugin's test build (make test)\n",
			argv[1]);
		kshark_free(ctx);
		return 2;
	}

	reload = getenv("KSHARK_STACK_RELOAD") ? 2 : 0;
	for (;;) {
		n = kshark_load_entries(ctx, sd, &data);
		/* the first load of a reload is not drawn */
		if (n > 0 && reload != 2)
			join(sd, data, n);
		if (n <= 0 || !reload--)
			break;
		for (i = 0; i < n; i++)
			free(data[i]);
		free(data);
		data = NULL;
	}
	printf("entries: %zd\n", n);
	for (i = 0; i < n; i++) {
		if (want >= 0 && data[i]->event_id != want)
			continue;
		if (view) {
			v = view(data[i]);
			printf("--- view #%zd\n", i);
			print_view(v);
			shown += v != NULL;
			free(v);
			continue;
		}
		t = text(data[i]);
		if (!t)
			continue;
		info = kshark_get_info(data[i]);
		name = kshark_get_event_name(data[i]);
		printf("#%zd %s pid=%d cpu=%d: %s\n", i, name ? name : "?",
		       data[i]->pid, data[i]->cpu, info ? info : "");
		printf("%s", t);
		free(name);
		free(info);
		free(t);
		shown++;
	}
	printf("merged stacks shown: %d\n", shown);

	for (i = 0; i < n; i++)
		free(data[i]);
	free(data);
	kshark_handle_all_dpis(stream, KSHARK_PLUGIN_CLOSE);
	kshark_close_all(ctx);
	kshark_free(ctx);
	return shown ? 0 : 1;
}
