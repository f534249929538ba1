// SPDX-License-Identifier: GPL-2.0
/*
 * Print each event of a trace.dat file with its kernel and user stacks,
 * symbols resolved through the maps saved with "trace-cmd record
 * --proc-map".
 *
 *   cc -o join-file join-file.c $(pkg-config --cflags --libs libustack)
 *   ./join-file trace.dat
 */
#include <stdio.h>
#include <ustack.h>

static int print_event(const struct ustack_event *ev, void *data)
{
	struct ustack_syms *syms = data;
	struct trace_seq s;

	trace_seq_init(&s);
	trace_seq_printf(&s, "%s pid %d: %s\n",
			 ev->event ? ev->event->name : "?", ev->pid,
			 ustack_status_name(ev->status));
	/* "  k FRAME" and "  u FRAME" lines, as ustack prints them */
	ustack_event_print(&s, ev, syms, USTACK_PRINT_LIST);
	trace_seq_do_printf(&s);
	trace_seq_destroy(&s);
	return 0;
}

int main(int argc, char **argv)
{
	struct ustack_join_stats st;
	struct ustack_syms *syms;
	struct ustack_file *file;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s trace.dat\n", argv[0]);
		return 1;
	}
	file = ustack_file_open(argv[1]);
	if (!file) {
		perror(argv[1]);
		return 1;
	}
	syms = ustack_syms_alloc();
	ustack_syms_set_file(syms, file);
	ret = ustack_file_iterate(file, -1, print_event, syms, &st);
	printf("%llu events, %llu complete\n", st.delivered, st.complete);
	ustack_syms_free(syms);
	ustack_file_close(file);
	return ret < 0;
}
