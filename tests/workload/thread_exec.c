// SPDX-License-Identifier: GPL-2.0
/*
 * execve() from a thread that is not the group leader: de_thread() makes
 * the calling thread take over the leader's pid, so the pid of the task
 * changes inside the syscall.
 *
 *   thread_exec PATH      a second thread calls execve(PATH, [PATH], env)
 *                         from thread_work (which has a frame); main waits
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
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

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH\n", argv[0]);
		return 2;
	}
	exec_argv[0] = argv[1];
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	pthread_join(t, NULL);
	return 1;
}
