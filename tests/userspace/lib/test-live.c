// SPDX-License-Identifier: GPL-2.0
/*
 * Live source on the host's own tracefs, when it is usable: the host
 * kernel has no deferred user stacks, but the plain "stacktrace" trigger
 * gives real ftrace:kernel_stack records, which the join delivers as
 * no-cookie events.  This checks the live reading, the decoding of the
 * running kernel's kernel_stack format and kallsyms.  Prints SKIP when
 * tracefs cannot be used here.
 *
 * usage: test-live CALLCHAIN_BINARY
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ustack.h"

struct log {
	int	pid;
	int	n;
	int	no_cookie;
	int	with_kernel;
	int	resolved;
	struct ustack_syms *syms;
};

static int cb(const struct ustack_event *ev, void *data)
{
	struct log *l = data;
	struct ustack_sym s;
	int i;

	if (ev->pid != l->pid)
		return 0;
	l->n++;
	if (ev->status == USTACK_NO_COOKIE && !ev->cookie && !ev->nr_user)
		l->no_cookie++;
	if (ev->nr_kernel >= 2)
		l->with_kernel++;
	for (i = 0; i < ev->nr_kernel; i++) {
		ustack_syms_resolve_kernel(l->syms, ev->kernel[i], &s);
		if (s.name && !strcmp(s.name, "do_syscall_64")) {
			l->resolved++;
			break;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tracefs_instance *inst;
	struct ustack_live *live;
	struct log l = { 0 };
	char name[64];
	int st, ret = 0;
	pid_t pid;

	if (argc < 2)
		return 2;
	ustack_set_loglevel(TEP_LOG_NONE);
	tracefs_set_loglevel(TEP_LOG_NONE);
	if (!tracefs_tracing_dir()) {
		printf("SKIP: live: no tracefs here\n");
		return 0;
	}
	snprintf(name, sizeof(name), "ustack-test-%d", getpid());
	inst = tracefs_instance_create(name);
	if (!inst) {
		printf("SKIP: live: cannot create a tracefs instance (%s)\n",
		       strerror(errno));
		return 0;
	}
	if (tracefs_event_file_append(inst, "syscalls", "sys_enter_getppid",
				      "trigger", "stacktrace") < 0 ||
	    tracefs_event_enable(inst, "syscalls", "sys_enter_getppid") < 0) {
		printf("SKIP: live: cannot trace syscalls:sys_enter_getppid here\n");
		goto out;
	}
	if (!ustack_kernel_supported(inst))
		printf("PASS: live: this kernel has no deferred user stacks, and it is told\n");
	else
		printf("PASS: live: this kernel has deferred user stacks\n");
	live = ustack_live_open(inst, cb, &l);
	if (!live) {
		printf("FAIL: live: ustack_live_open: %s\n", strerror(errno));
		ret = 1;
		goto out;
	}
	l.syms = ustack_syms_alloc();
	ustack_syms_set_tep(l.syms, ustack_live_tep(live));
	ustack_syms_load_kallsyms(l.syms, NULL);
	tracefs_trace_on(inst);
	pid = fork();
	if (!pid) {
		execl(argv[1], argv[1], "getppid", "3", NULL);
		_exit(127);
	}
	l.pid = pid;
	waitpid(pid, &st, 0);
	ustack_live_read(live);
	ustack_live_flush(live);
	if (l.n == 3 && l.no_cookie == 3 && l.with_kernel == 3)
		printf("PASS: live: 3 events read from tracefs, real kernel stacks, no cookie\n");
	else {
		printf("FAIL: live: events %d no-cookie %d with kernel stack %d\n",
		       l.n, l.no_cookie, l.with_kernel);
		ret = 1;
	}
	if (l.resolved == 3)
		printf("PASS: live: kernel frames resolved with /proc/kallsyms\n");
	else if (l.n)
		printf("SKIP: live: do_syscall_64 not found in the kernel frames (%d), kallsyms hidden?\n",
		       l.resolved);
	ustack_syms_free(l.syms);
	ustack_live_close(live);
out:
	tracefs_event_disable(inst, "syscalls", "sys_enter_getppid");
	tracefs_event_file_append(inst, "syscalls", "sys_enter_getppid",
				  "trigger", "!stacktrace");
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return ret;
}
