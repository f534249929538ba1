// SPDX-License-Identifier: GPL-2.0
/*
 * A frame that realigns its stack through a DRAP register, for the
 * generator's flexible FDEs (tests/userspace/sframe-gen/run.sh, as
 * libdrap.so): built with -mforce-drap, gcc saves the caller's stack
 * pointer in %r10, realigns %rsp and describes the CFA as *(%rbp - N),
 * the saved %rbp as *(%rbp + 0).  Only a flexible SFrame FDE says that;
 * a frame-pointer walk through it lands on the realigned copy of the
 * frame, not on the caller's stack.
 */
#include <stdlib.h>

void drap_sort(int *v, size_t n, int (*cmp)(const void *, const void *));

/* not inlined, not a tail call: it must be a frame of the stack */
__attribute__((noinline)) void drap_sort(int *v, size_t n,
					 int (*cmp)(const void *, const void *))
{
	volatile char pad[64] __attribute__((aligned(64)));

	pad[0] = (char)n;
	qsort(v, n, sizeof(*v), cmp);
	pad[1] = pad[0];
}
