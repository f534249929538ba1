/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The markers bench/tcg-plugin/insn-count.c counts between: a 7-byte NOP
 * with a magic displacement,
 *
 *	nopl 0x4654KKII(%rax)		0f 1f 80 II KK 54 46
 *
 * or on s390x a branch never taken, with the same number as its offset:
 *
 *	brcl 0,0x4654KKII		c0 04 46 54 KK II
 *
 * KK 01 starts a count on the CPU that executes it, 02 ends it; II is the
 * ID (0..255), a compile-time constant.  Without the plugin it does
 * nothing.
 */
#ifndef INSN_MARKER_H
#define INSN_MARKER_H

#define INSN_MARKER_MAGIC	0x46540000u
#define INSN_MARKER_START	1
#define INSN_MARKER_END		2

#if defined(__x86_64__)
#define INSN_MARKER_REG		"%%rax"
#else
#define INSN_MARKER_REG		"%%eax"		/* same bytes in 32-bit code */
#endif

#if defined(__s390x__)
#define INSN_MARK(kind, id)						\
	asm volatile(".byte 0xc0, 0x04\n\t.long %0"			\
		     : : "i"(INSN_MARKER_MAGIC | (kind) << 8 | (id)))
#else
#define INSN_MARK(kind, id)						\
	asm volatile("nopl %c0(" INSN_MARKER_REG ")"			\
		     : : "i"(INSN_MARKER_MAGIC | (kind) << 8 | (id)))
#endif
#define INSN_MARK_START(id)	INSN_MARK(INSN_MARKER_START, id)
#define INSN_MARK_END(id)	INSN_MARK(INSN_MARKER_END, id)

/* The ID callchain's "bench" loop runs between. */
#define INSN_MARKER_BENCH	63

#endif
