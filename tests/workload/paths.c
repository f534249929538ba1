// SPDX-License-Identifier: GPL-2.0
/*
 * Three call paths to getppid(), taken 1, 2 and 4 times in each of N
 * rounds (default 50): the workload of t-93, whose call paths and their
 * counts and shares ustack must give as perf script and perf report do.
 * Built without PIE, with frame pointers.
 */
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile long paths_sink;

NOINLINE void paths_leaf(void)
{
	paths_sink += getppid();
}

NOINLINE void path_a(void)
{
	paths_leaf();
	paths_sink++;
}

NOINLINE void path_b(void)
{
	paths_leaf();
	paths_sink++;
}

NOINLINE void path_c_inner(void)
{
	paths_leaf();
	paths_sink++;
}

NOINLINE void path_c(void)
{
	path_c_inner();
	paths_sink++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, i, j;

	for (i = 0; i < n; i++) {
		path_a();
		for (j = 0; j < 2; j++)
			path_b();
		for (j = 0; j < 4; j++)
			path_c();
	}
	return 0;
}
