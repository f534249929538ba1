// SPDX-License-Identifier: GPL-2.0
/*
 * The s390x workload of the sframe-mix case (tests/s390x/run.sh): one
 * user stack that back-chain and SFrame steps walk in turn,
 *
 *   main -> bc_rec(N) -> ... -> bc_rec(0) -> sf_rec(M) -> ... -> sf_rec(0)
 *        -> bc_leaf -> svc getppid
 *
 * This file is the SFrame part: built without -mbackchain, with its
 * .eh_frame, from which sframe-gen makes the section the program
 * registers.  bcmix-bc.c is the back-chain-only library: bc_rec and
 * bc_leaf, built with -mbackchain and no unwind tables, so the section
 * has no entry for them.  The kernel's walk: bc_leaf by the back chain
 * (its return address from r14: it makes no frame), the sf_rec frames by
 * SFrame, the bc_rec frames by the back chain again, main by SFrame.
 * bc_rec calls on from one call site, so each bc_rec frame below the
 * first has the return address of the one above it.
 *
 * Usage: bcmix [sframe FILE] mix N M | fpr
 *   sframe FILE   first register FILE (prctl(PR_ADD_SFRAME)); exit 3 if
 *                 the kernel refuses it
 *   mix N M       one getppid from the stack above: N + 1 bc_rec frames,
 *                 M + 1 sf_rec frames
 *   fpr           one getppid from sf_fpr_leaf, called by sf_fpr: a leaf
 *                 that keeps its return address in f2, not r14 (its CFI
 *                 says so: DW_CFA_register r14 f2, DWARF 17), as gcc's
 *                 leaves may do on s390x
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "add-sframe.h"

#define NOINLINE __attribute__((noinline, noclone))

long bc_rec(long n, long m);
long bc_leaf(void);

/* keeps the calls below from becoming tail calls */
volatile long mix_sink;

NOINLINE long sf_rec(long n, long m)
{
	long r;

	(void)m;
	if (n > 0)
		r = sf_rec(n - 1, m);
	else
		r = bc_leaf();
	mix_sink++;
	return r + 1;
}

/*
 * main -> sf_fpr -> sf_fpr_leaf: the return address only in f2 at the
 * system call (r14 cleared)
 */
long sf_fpr_leaf(void);
asm(".text\n"
    ".globl sf_fpr_leaf\n"
    ".type sf_fpr_leaf, @function\n"
    "sf_fpr_leaf:\n"
    ".cfi_startproc\n"
    "	ldgr	%f2, %r14\n"
    ".cfi_register 14, 17\n"
    "	lghi	%r14, 0\n"
    "	lghi	%r1, 64\n"		/* SYS_getppid */
    "	svc	0\n"
    "	lgdr	%r14, %f2\n"
    ".cfi_restore 14\n"
    "	br	%r14\n"
    ".cfi_endproc\n"
    ".size sf_fpr_leaf, .-sf_fpr_leaf\n");

NOINLINE long sf_fpr(void)
{
	long r = sf_fpr_leaf();

	mix_sink++;
	return r + 1;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "sframe")) {
		if (add_sframe(argv[2]))
			return 3;
		argc -= 2;
		argv += 2;
	}
	if (argc == 2 && !strcmp(argv[1], "fpr")) {
		mix_sink += sf_fpr();
		return 0;
	}
	if (argc != 4 || strcmp(argv[1], "mix")) {
		fprintf(stderr, "usage: bcmix [sframe FILE] mix N M | fpr\n");
		return 2;
	}
	mix_sink += bc_rec(atol(argv[2]), atol(argv[3]));
	return 0;
}
