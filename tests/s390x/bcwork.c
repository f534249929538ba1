// SPDX-License-Identifier: GPL-2.0
/*
 * The s390x workload of tests/s390x/run.sh: a named user call chain
 *
 *   main -> bc_one -> bc_two -> bc_three -> bc_four -> bc_five -> getppid()
 *
 * built static twice, with -mbackchain (bcwork-bc) and without
 * (bcwork-nobc).  The system call goes through libc's getppid(), a leaf
 * with no frame that leaves the return address into bc_five in r14: what
 * the kernel's back-chain walk takes at the interrupted frame.
 *
 * Usage: bcwork [sframe|sframe-try FILE] MODE [ARG]
 *   sframe FILE   first give the kernel FILE, the SFrame section that
 *                 sframe-gen made of this program's .eh_frame
 *                 (prctl(PR_ADD_SFRAME)); exit 3 if it refuses
 *   sframe-try FILE
 *                 the same, but a refused section only makes the exit
 *                 status 3 after MODE has run (a corrupt section's stack)
 *   getppid N     N getppid() calls through the chain (default 1)
 *   deep N        bc_five recurses N more levels (bc_deep), then getppid
 *   exit          exit_group() from bc_five
 *   exec PATH     execve(PATH, [PATH]) from bc_five
 *   vla N         getppid once from bc_after, called by bc_vla, which
 *                 bc_five calls: bc_vla keeps an array of N longs on its
 *                 stack (a VLA), so gcc sets up r11 as its frame pointer
 *                 and its CFI (and the SFrame section sframe-gen makes of
 *                 it) bases its CFA on r11, not r15
 *   framed        getppid once from bc_framed, called by bc_five: a
 *                 function with a frame of its own that saved r14 (it
 *                 calls something, but only after the system call), as
 *                 libc wrappers with a slow path do.  r14 and the slot
 *                 it was saved in hold the same return address: the
 *                 walk must not give bc_five twice
 *   bench N FRAMES
 *                 N getppid() calls from a user stack of FRAMES frames
 *                 (3: getppid, main, __libc_start_call_main; more: bc_deep
 *                 frames between getppid and main), run from main between
 *                 the instruction-count markers of insn-marker.h (ID 63);
 *                 prints "bench ns_per_call=X"
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "add-sframe.h"
#include "insn-marker.h"

#define NOINLINE __attribute__((noinline, noclone))

/* keeps the calls below from becoming tail calls */
static volatile int sink;
static const char *mode = "getppid";
static const char *arg = "1";
static long depth;		/* bench: the user stack's frames */

NOINLINE void bc_deep(long n)
{
	if (n > 0)
		bc_deep(n - 1);
	else
		sink += getppid();
	sink++;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

NOINLINE long bc_other(long x)
{
	sink += x;
	return sink;
}

/* no shrink-wrapping: the prologue saves r14 and makes the frame first */
__attribute__((optimize("no-shrink-wrap"))) NOINLINE long bc_framed(long x)
{
	register long r1 asm("1") = SYS_getppid;
	register long r2 asm("2") = 0;

	asm volatile("svc 0" : "+d"(r2) : "d"(r1) : "memory", "cc");
	if (r2 == x)
		r2 += bc_other(x);
	return r2;
}

NOINLINE long bc_after(long *v, long n)
{
	sink += getppid();
	return n ? v[n - 1] : 0;
}

/* a VLA: the frame's size is known at run time only, so its CFA is r11's */
NOINLINE long bc_vla(long n)
{
	long v[n > 0 ? n : 1], i;

	for (i = 0; i < n; i++)
		v[i] = i + sink;
	sink += bc_after(v, n);
	return v[0];
}

NOINLINE void bc_five(void)
{
	long i, n = atol(arg);

	if (!strcmp(mode, "getppid")) {
		for (i = 0; i < n; i++)
			sink += getppid();
	} else if (!strcmp(mode, "vla")) {
		sink += bc_vla(n);
	} else if (!strcmp(mode, "framed")) {
		sink += bc_framed(-1);
	} else if (!strcmp(mode, "deep")) {
		bc_deep(n);
	} else if (!strcmp(mode, "exit")) {
		syscall(SYS_exit_group, 0);
	} else if (!strcmp(mode, "exec")) {
		char *argv[] = { (char *)arg, NULL };

		execv(arg, argv);
		perror("execv");
		exit(127);
	} else {
		fprintf(stderr, "bcwork: unknown mode %s\n", mode);
		exit(2);
	}
	sink++;
}

NOINLINE void bc_four(void)
{
	bc_five();
	sink++;
}

NOINLINE void bc_three(void)
{
	bc_four();
	sink++;
}

NOINLINE void bc_two(void)
{
	bc_three();
	sink++;
}

NOINLINE void bc_one(void)
{
	bc_two();
	sink++;
}

int main(int argc, char **argv)
{
	int refused = 0;

	if (argc > 2 && (!strcmp(argv[1], "sframe") || !strcmp(argv[1], "sframe-try"))) {
		refused = add_sframe(argv[2]) ? 3 : 0;
		if (refused && !strcmp(argv[1], "sframe"))
			return refused;
		argc -= 2;
		argv += 2;
	}
	if (argc > 1)
		mode = argv[1];
	if (argc > 2)
		arg = argv[2];
	if (argc > 3)
		depth = atol(argv[3]);
	if (!strcmp(mode, "bench")) {
		long i, n = atol(arg);
		long long t0 = now_ns();

		INSN_MARK_START(INSN_MARKER_BENCH);
		for (i = 0; i < n; i++) {
			if (depth <= 3)
				sink += getppid();
			else
				bc_deep(depth - 4);
		}
		INSN_MARK_END(INSN_MARKER_BENCH);
		printf("bench ns_per_call=%lld\n", (now_ns() - t0) / (n ? n : 1));
		return 0;
	}
	bc_one();
	return refused ? refused : sink < 0;
}
