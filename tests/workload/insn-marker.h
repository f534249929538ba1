/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The markers bench/tcg-plugin/insn-count.c counts between: a 7-byte NOP
 * with a magic displacement,
 *
 *	nopl 0x4654KKII(%rax)		0f 1f 80 II KK 54 46
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

#define INSN_MARK(kind, id)						\
	asm volatile("nopl %c0(" INSN_MARKER_REG ")"			\
		     : : "i"(INSN_MARKER_MAGIC | (kind) << 8 | (id)))
#define INSN_MARK_START(id)	INSN_MARK(INSN_MARKER_START, id)
#define INSN_MARK_END(id)	INSN_MARK(INSN_MARKER_END, id)

/* The ID callchain's "bench" loop runs between. */
#define INSN_MARKER_BENCH	63

#endif
