// SPDX-License-Identifier: GPL-2.0
/*
 * Print each event of a trace.dat file with its kernel and user stacks,
 * symbols resolved through the maps saved with "trace-cmd record
 * --proc-map".
 *
 *   cc -o join-file join-file.c $(pkg-config --cflags --libs libtracefs-ext)
 *   ./join-file trace.dat
 */
#include <stdio.h>
#include <tracefs-ext.h>

static int print_event(const struct ustack_event *ev, void *data)
{
	struct ustack_syms *syms = data;
	char buf[4096];
	int i;

	printf("%s pid %d: %s\n", ev->event ? ev->event->name : "?", ev->pid,
	       ustack_status_name(ev->status));
	for (i = 0; i < ev->nr_kernel; i++) {
		ustack_syms_format_kernel(syms, ev->kernel[i], buf, sizeof(buf));
		printf("  k %s\n", buf);
	}
	for (i = 0; i < ev->nr_user; i++) {
		ustack_syms_format(syms, ev->tgid, ev->user[i], buf, sizeof(buf));
		printf("  u %s\n", buf);
	}
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
