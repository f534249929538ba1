/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_S390_UNWIND_USER_H
#define _ASM_S390_UNWIND_USER_H

#ifdef CONFIG_UNWIND_USER

#include <asm/ptrace.h>

/* 64-bit user space only: s390 has no compat tasks any more */
static inline int unwind_user_word_size(struct pt_regs *regs)
{
	return sizeof(long);
}

#endif /* CONFIG_UNWIND_USER */

#ifdef CONFIG_HAVE_UNWIND_USER_BACKCHAIN

/*
 * The s390x ELF ABI frame: 160 bytes at the stack pointer, the back chain
 * in its first word, then the save area where a called function stores
 * r6-r15 of its caller (r14, the return address, at 112).  Only code built
 * with -mbackchain fills in the first word, and only the standard layout
 * is known here (not -mpacked-stack, which moves both).
 */
#define UNWIND_USER_BACKCHAIN_RA_OFF		112
#define UNWIND_USER_BACKCHAIN_MIN_FRAME		160

/* brasl and basr leave the return address in r14 */
static inline unsigned long unwind_user_backchain_reg_ra(struct pt_regs *regs)
{
	return regs->gprs[14];
}

#endif /* CONFIG_HAVE_UNWIND_USER_BACKCHAIN */

#ifdef CONFIG_UNWIND_USER_SFRAME

/*
 * SFrame's s390x ABI.  The CFA is the caller's stack pointer plus 160, and
 * an FRE stores its CFA offset as (offset - 160) / 8 (both are multiples
 * of 8).  The return address is tracked in each FRE: until a function
 * saves it, it is in r14.  A leaf may keep the return address or the
 * frame pointer (r11, which the CFA may be based on) in another register,
 * a floating-point one: in a version 2 section, an odd RA or FP offset,
 * (DWARF regnum << 1) | 1 (version 3 says so with a flexible FDE, which
 * is not followed here: that frame is left to the back chain).
 */
#define UNWIND_USER_SFRAME_ABI		SFRAME_ABI_S390X_ENDIAN_BIG
#define UNWIND_USER_SFRAME_CFA_ADJUST	160
#define UNWIND_USER_SFRAME_CFA_SCALE	8
#define UNWIND_USER_SFRAME_SP_OFF	(-160)
#define UNWIND_USER_SFRAME_RA_REG	14
#define UNWIND_USER_SFRAME_REG_OFFSETS	1

static inline unsigned long unwind_user_frame_pointer(struct pt_regs *regs)
{
	return regs->gprs[11];
}
#define unwind_user_frame_pointer unwind_user_frame_pointer

int unwind_user_get_reg(unsigned long *val, unsigned int regnum);
#define unwind_user_get_reg unwind_user_get_reg

#endif /* CONFIG_UNWIND_USER_SFRAME */

#endif /* _ASM_S390_UNWIND_USER_H */
