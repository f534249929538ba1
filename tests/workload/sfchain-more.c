// SPDX-License-Identifier: GPL-2.0
/*
 * sfchain's rows beyond cold and rotate (tests/guest/bench-sframe-rows.sh
 * says what each row measures): sfchain.c built with -DSFC_MORE, whose
 * main() hands every mode but "bench" to sfc_more() here.  Built as
 * sfchain-more-small and sfchain-more-big (the chains of sfchain-small and
 * sfchain-big, plus sfchain-nofde.S), so that sfchain-small and
 * sfchain-big stay the binaries the cold and rotate rows always measured.
 *
 * Usage:
 *   sfchain nofde N DEPTH J
 *     path 0 of DEPTH frames entered through J frames of sfc_nofde
 *     (sfchain-nofde.S: a frame-pointer prologue, no FDE in any
 *     section), N getppid() between the markers of ID 61, after one
 *     stack before them (as `bench N DEPTH 1`).  J = 0 calls the chain
 *     directly.
 *   sfchain once N DEPTH K
 *     K paths of DEPTH frames round robin, N getppid() between the
 *     markers of ID 61, with no stack before them: what a fresh process
 *     pays for its first stacks.
 *   sfchain procs P N DEPTH K
 *     P times: fork, exec this binary (/proc/self/exe) as `once N DEPTH
 *     K`, wait for it: P fresh processes, each with its own pair of
 *     markers (on the CPU it runs on: pin the whole).  Exits 1 when one
 *     of them fails.
 *   sfchain threads T N DEPTH K
 *     one round of the K paths (before the markers), then the start
 *     marker of ID 61 on every CPU it may run on (moving itself there),
 *     T threads released together, thread I making ceil(N / T) getppid()
 *     over the K paths round robin from path I % K, all joined, and the
 *     end marker on every CPU: the counts of all CPUs add up to the
 *     threads' work, wherever they ran.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "insn-marker.h"
#include "sfchain.h"

#define INSN_MARKER_SFCHAIN	61
#define SFC_MAX_THREADS		256

/* sfchain-nofde.S: MORE + 1 frames without FDE, then the chain */
void sfc_nofde(long depth, long next, long more);

/* N stacks of path 0 of DEPTH frames under J frames of sfc_nofde */
static NOINLINE void sfc_nofde_loop(long n, long depth, long j)
{
	long i;

	for (i = 0; i < n; i++) {
		if (j)
			sfc_nofde(depth, 0, j - 1);
		else
			sfc_tab[0](depth - 1, 1);
	}
	sfc_sink++;
}

/* N stacks over K paths of DEPTH frames, round robin from path P */
static NOINLINE void sfc_rotate(long n, long depth, long k, long p)
{
	long i;

	for (i = 0; i < n; i++) {
		sfc_tab[p * depth](depth - 1, p * depth + 1);
		if (++p == k)
			p = 0;
	}
	sfc_sink++;
}

static long arg(const char *s)
{
	return strtol(s, NULL, 0);
}

static int procs(long p, char **argv)
{
	char *cargv[] = { argv[0], "once", argv[3], argv[4], argv[5], NULL };
	int status;
	pid_t pid;
	long i;

	for (i = 0; i < p; i++) {
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			perror("sfchain: fork");
			return 1;
		}
		if (!pid) {
			execv("/proc/self/exe", cargv);
			perror("sfchain: exec /proc/self/exe");
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR) {
				perror("sfchain: waitpid");
				return 1;
			}
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "sfchain: process %ld of %ld failed (status %#x)\n",
				i + 1, p, status);
			return 1;
		}
	}
	return 0;
}

struct sfc_thread {
	pthread_t tid;
	long n, depth, k, p;
};

static pthread_barrier_t sfc_go;

static void *sfc_thread_fn(void *data)
{
	struct sfc_thread *t = data;

	pthread_barrier_wait(&sfc_go);
	sfc_rotate(t->n, t->depth, t->k, t->p);
	return NULL;
}

/* the START or END marker of ID 61 on every CPU of MASK, in CPU order */
static int mark_all(const cpu_set_t *mask, int end)
{
	cpu_set_t one;
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, mask))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one)) {
			perror("sfchain: sched_setaffinity");
			return 1;
		}
		if (end)
			INSN_MARK_END(INSN_MARKER_SFCHAIN);
		else
			INSN_MARK_START(INSN_MARKER_SFCHAIN);
	}
	if (sched_setaffinity(0, sizeof(*mask), mask)) {
		perror("sfchain: sched_setaffinity");
		return 1;
	}
	return 0;
}

static int threads(long nthr, long n, long depth, long k)
{
	static struct sfc_thread t[SFC_MAX_THREADS];
	cpu_set_t mask;
	long i;
	int ret;

	if (sched_getaffinity(0, sizeof(mask), &mask)) {
		perror("sfchain: sched_getaffinity");
		return 1;
	}
	ret = pthread_barrier_init(&sfc_go, NULL, nthr);
	if (ret) {
		fprintf(stderr, "sfchain: pthread_barrier_init: %s\n", strerror(ret));
		return 1;
	}
	sfc_rotate(k, depth, k, 0);
	if (mark_all(&mask, 0))
		return 1;
	for (i = 0; i < nthr; i++) {
		t[i].n = (n + nthr - 1) / nthr;
		t[i].depth = depth;
		t[i].k = k;
		t[i].p = i % k;
		ret = pthread_create(&t[i].tid, NULL, sfc_thread_fn, &t[i]);
		if (ret) {
			fprintf(stderr, "sfchain: pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	for (i = 0; i < nthr; i++)
		pthread_join(t[i].tid, NULL);
	return mark_all(&mask, 1);
}

int sfc_more(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long a, n, depth, k;

	if (argc != 5 + (!strcmp(mode, "procs") || !strcmp(mode, "threads")) ||
	    (strcmp(mode, "nofde") && strcmp(mode, "once") &&
	     strcmp(mode, "procs") && strcmp(mode, "threads"))) {
		fprintf(stderr, "usage: %s bench N DEPTH K [cold]\n"
			"       %s nofde N DEPTH J\n"
			"       %s once N DEPTH K\n"
			"       %s procs P N DEPTH K\n"
			"       %s threads T N DEPTH K\n",
			argv[0], argv[0], argv[0], argv[0], argv[0]);
		return 2;
	}
	a = argc == 6 ? arg(argv[2]) : 1;
	n = arg(argv[argc - 3]);
	depth = arg(argv[argc - 2]);
	k = arg(argv[argc - 1]);
	if (!strcmp(mode, "nofde")) {
		/* K is J, the frames without FDE */
		if (n < 1 || depth < 1 || k < 0 || depth > sfc_nr) {
			fprintf(stderr, "sfchain: need N >= 1, J >= 0 and 1 <= DEPTH <= %ld\n",
				sfc_nr);
			return 2;
		}
		sfc_nofde_loop(1, depth, k);
		INSN_MARK_START(INSN_MARKER_SFCHAIN);
		sfc_nofde_loop(n, depth, k);
		INSN_MARK_END(INSN_MARKER_SFCHAIN);
		return 0;
	}
	if (a < 1 || n < 1 || depth < 1 || k < 1 || k * depth > sfc_nr ||
	    (!strcmp(mode, "threads") && a > SFC_MAX_THREADS)) {
		fprintf(stderr, "sfchain: need P or T >= 1 (T <= %d), N >= 1, DEPTH >= 1, K >= 1 and K * DEPTH <= %ld\n",
			SFC_MAX_THREADS, sfc_nr);
		return 2;
	}
	if (!strcmp(mode, "procs"))
		return procs(a, argv);
	if (!strcmp(mode, "threads"))
		return threads(a, n, depth, k);
	INSN_MARK_START(INSN_MARKER_SFCHAIN);
	sfc_rotate(n, depth, k, 0);
	INSN_MARK_END(INSN_MARKER_SFCHAIN);
	return 0;
}
