// SPDX-License-Identifier: GPL-2.0
/*
 * execve() from a thread that is not the group leader: de_thread() makes
 * the calling thread take over the leader's pid, so the pid of the task
 * changes inside the syscall.
 *
 *   thread_exec PATH [N]  a second thread calls execve(PATH, [PATH], env)
 *                         from thread_work (which has a frame); main waits;
 *                         with N, N more threads named "te_spin" spin
 *                         meanwhile, all threads on one CPU, so that
 *                         de_thread() must wait for them to die (they
 *                         need the CPU the execing thread holds to see
 *                         SIGKILL): it then sleeps in there, whatever the
 *                         load on the host
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile long sink;
static char *exec_argv[2];

NOINLINE static void thread_work(void)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"((long)SYS_execve), "D"(exec_argv[0]), "S"(exec_argv),
		       "d"(0L)
		     : "rcx", "r11", "memory");
	sink += ret;
	fprintf(stderr, "thread_exec: execve failed: %ld\n", ret);
}

static void *thread_main(void *arg)
{
	(void)arg;
	printf("thread_exec: pid %d, thread %ld execs\n", getpid(),
	       (long)syscall(SYS_gettid));
	fflush(stdout);
	thread_work();
	return NULL;
}

static volatile int spinning;

static void *spin_main(void *arg)
{
	(void)arg;
	/* not "thread_exec": a trigger filtered on the comm skips them */
	prctl(PR_SET_NAME, "te_spin");
	__atomic_add_fetch(&spinning, 1, __ATOMIC_SEQ_CST);
	for (;;)
		sink++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int i, n;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s PATH [SPINNERS]\n", argv[0]);
		return 2;
	}
	n = argc > 2 ? atoi(argv[2]) : 0;
	if (n < 0 || n > 64) {
		fprintf(stderr, "%s: SPINNERS must be 0 to 64\n", argv[0]);
		return 2;
	}
	exec_argv[0] = argv[1];
	if (n) {
		int cpu = sched_getcpu();
		cpu_set_t one;

		/* threads inherit it: they can only run when the execer sleeps */
		CPU_ZERO(&one);
		CPU_SET(cpu < 0 ? 0 : cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one)) {
			perror("thread_exec: sched_setaffinity");
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, spin_main, NULL))
			return 1;
	while (spinning < n)
		usleep(1000);
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	pthread_join(t, NULL);
	return 1;
}
