// SPDX-License-Identifier: GPL-2.0
/*
 * The libraries dlwork loads: built twice from this file (Makefile), as
 * libdlwork-a.so with functions dla_* and libdlwork-b.so with dlb_*,
 * the same code and layout, so that the loader puts the second where the
 * first was once that is unloaded.
 */
#include <unistd.h>

#define CAT2(a, b)	a##b
#define CAT(a, b)	CAT2(a, b)
#define FN(x)		CAT(DLW_PREFIX, x)

__attribute__((noinline)) int FN(inner)(int n)
{
	int r = 0;

	while (n-- > 0)
		r += getppid();
	asm volatile("" ::: "memory");	/* not a tail call */
	return r;
}

__attribute__((noinline)) int FN(middle)(int n)
{
	int r = FN(inner)(n);

	asm volatile("" ::: "memory");
	return r + 1;
}

int FN(work)(int n)
{
	int r = FN(middle)(n);

	asm volatile("" ::: "memory");
	return r + 1;
}
