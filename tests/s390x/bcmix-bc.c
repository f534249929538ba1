// SPDX-License-Identifier: GPL-2.0
/*
 * The back-chain-only library of bcmix.c: built with -mbackchain and
 * without unwind tables (no .eh_frame, so no SFrame entry either).
 */
#include <sys/syscall.h>

#define NOINLINE __attribute__((noinline, noclone))

long sf_rec(long n, long m);
extern volatile long mix_sink;

long bc_rec(long n, long m);

/*
 * bc_rec(n) calls bc_rec(n - 1), and bc_rec(0) calls sf_rec(m), from one
 * call site (a volatile table: one indirect call): the return address
 * each bc_rec frame saved is the address its callee returns to, as in a
 * recursion through a callback.
 */
static long (*volatile bc_next[2])(long, long) = { sf_rec, bc_rec };

NOINLINE long bc_rec(long n, long m)
{
	long r = bc_next[n > 0](n > 0 ? n - 1 : m, m);

	mix_sink++;
	return r + 1;
}

/* a leaf with no frame: the return address into sf_rec stays in r14 */
NOINLINE long bc_leaf(void)
{
	register long r1 asm("1") = SYS_getppid;
	register long r2 asm("2") = 0;

	asm volatile("svc 0" : "+d"(r2) : "d"(r1) : "memory", "cc");
	return r2;
}
