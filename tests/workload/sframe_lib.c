// SPDX-License-Identifier: GPL-2.0
/*
 * The shared library of the SFrame workloads (libsfwork.so): the three
 * innermost frames of their call chain,
 *
 *   sf_lib_outer -> sf_lib_middle [-> sf_lib_deep ...] -> sf_lib_leaf
 *
 * Built -O2 -fomit-frame-pointer -Wa,--gsframe: no function here sets up
 * a frame pointer, and sf_lib_leaf, a frameless leaf, makes the syscall
 * with %rbp holding 0, as code that uses %rbp as a general register may
 * (it saves and restores the caller's %rbp, and the CFI and SFrame
 * say where).  A frame-pointer walk stops at the first frame; an SFrame
 * walk gets every one.
 */
#include <sys/syscall.h>

#define NOINLINE __attribute__((noinline, noclone))
#define EXPORT __attribute__((visibility("default")))

/*
 * Room for a version 3 copy of this object's .sframe.  No assembler the
 * rig has writes version 3, so tests/workload/sframe-tool.py v3 writes one
 * into a copy of the built file, from the specification, and sfwork -3
 * registers it in place of the real section.  A section of its own, so
 * the tool finds it by name; read-only data, never executed.
 */
static const unsigned char sf_lib_sframe_v3[4096]
	__attribute__((used, section(".sframe_v3"), aligned(8))) = { 0 };

/*
 * Where the room is, in this object: the executable cannot take the
 * array's address itself, since a non-PIE executable gets a copy of an
 * exported array (a copy relocation) and the addresses in the section are
 * relative to the original.
 */
EXPORT const unsigned char *sf_lib_sframe_v3_room(void)
{
	return sf_lib_sframe_v3;
}

volatile long sf_lib_sink;

NOINLINE EXPORT long sf_lib_leaf(long nr)
{
	long ret;

	asm volatile("xor %%ebp, %%ebp\n\tsyscall"
		     : "=a"(ret)
		     : "0"(nr)
		     : "rcx", "r11", "rbp", "memory");
	return ret;
}

/* a frame of its own on the stack, and a call that is not a tail call */
NOINLINE EXPORT void sf_lib_deep(long depth, long nr)
{
	volatile char pad[24];

	pad[0] = (char)depth;
	if (depth > 0)
		sf_lib_deep(depth - 1, nr);
	else
		sf_lib_sink += sf_lib_leaf(nr);
	sf_lib_sink += pad[0];
}

NOINLINE EXPORT void sf_lib_middle(long count, long depth, long nr)
{
	volatile char pad[40];
	long i;

	pad[0] = 1;
	for (i = 0; i < count; i++) {
		if (depth)
			sf_lib_deep(depth - 1, nr);
		else
			sf_lib_sink += sf_lib_leaf(nr);
	}
	sf_lib_sink += pad[0];
}

NOINLINE EXPORT void sf_lib_outer(long count, long depth, long nr)
{
	volatile long pad[3];

	pad[0] = count;
	sf_lib_middle(pad[0], depth, nr);
	sf_lib_sink += pad[0];
}
