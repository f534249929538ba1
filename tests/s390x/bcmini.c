// SPDX-License-Identifier: GPL-2.0
/*
 * The program of the s390x fixture (tests/fixtures/s390x/): the chain of
 * bcwork.c without libc, so that the binary kept beside the recording
 * holds our code only.  Built -static -nostdlib -mbackchain:
 *
 *   _start -> main -> bc_one -> bc_two -> bc_three -> bc_four -> bc_five
 *     -> bc_getppid (svc, a leaf with no frame, as libc's wrapper)
 *
 * It calls getppid() three times, then sleeps 2 s (so that the recorder
 * can read its /proc/PID/maps) and exits 0.
 */
#define NOINLINE __attribute__((noinline, noclone))

/*
 * Initialised, so that the data segment has file contents and is mapped
 * from the file: the readers check a binary's segments against the
 * mappings recorded, and a segment that is all .bss maps anonymous.
 */
static volatile long sink = 1;

static inline long svc2(long nr, long a, long b)
{
	register long r1 asm("1") = nr;
	register long r2 asm("2") = a;
	register long r3 asm("3") = b;

	asm volatile("svc 0" : "+d"(r2) : "d"(r1), "d"(r3) : "memory", "cc");
	return r2;
}

NOINLINE long bc_getppid(void)
{
	return svc2(64, 0, 0);		/* __NR_getppid */
}

NOINLINE void bc_five(void)
{
	int i;

	for (i = 0; i < 3; i++)
		sink += bc_getppid();
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

int main(void);

NOINLINE int main(void)
{
	long ts[2] = { 2, 0 };

	bc_one();
	svc2(162, (long)ts, 0);		/* __NR_nanosleep(ts, NULL) */
	return 0;
}

/*
 * The outermost frame, as libc's start code makes it: a zero back chain,
 * which ends the walk cleanly after _start.  Then exit(main()).
 */
asm(".globl _start\n"
    ".type _start, @function\n"
    "_start:\n"
    "	lay	%r15,-160(%r15)\n"
    "	xc	0(8,%r15),0(%r15)\n"
    "	brasl	%r14,main\n"
    "	lghi	%r1,1\n"
    "	svc	0\n"
    ".size _start, . - _start\n");
