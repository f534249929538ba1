// SPDX-License-Identifier: GPL-2.0
/*
 * Ask for deferred user stacks on an event of an instance, let it run,
 * then print what the join delivers.
 *
 *   cc -o control control.c $(pkg-config --cflags --libs libustack)
 *   ./control syscalls sys_enter_getppid [SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <ustack.h>

static int count_event(const struct ustack_event *ev, void *data)
{
	unsigned long *n = data;

	(*n)++;
	printf("%d: %s, %d kernel and %d user frames\n", ev->pid,
	       ustack_status_name(ev->status), ev->nr_kernel, ev->nr_user);
	return 0;
}

int main(int argc, char **argv)
{
	struct tracefs_instance *inst;
	struct ustack_live *live;
	unsigned long n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SYSTEM EVENT [SECONDS]\n", argv[0]);
		return 1;
	}
	if (!ustack_kernel_supported(NULL)) {
		fprintf(stderr, "no deferred user stacks in this kernel\n");
		return 1;
	}
	inst = tracefs_instance_create("ustack-sample");
	if (!inst || ustack_trigger_enable(inst, argv[1], argv[2], 0, NULL) ||
	    tracefs_event_enable(inst, argv[1], argv[2])) {
		perror("setting up");
		return 1;
	}
	live = ustack_live_open(inst, count_event, &n);
	if (live) {
		ustack_live_run(live, (argc > 3 ? atoi(argv[3]) : 1) * 1000);
		ustack_live_flush(live);
		ustack_live_close(live);
	}
	ustack_trigger_disable(inst, argv[1], argv[2]);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	printf("%lu events\n", n);
	return 0;
}
