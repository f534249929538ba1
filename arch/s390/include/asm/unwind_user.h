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

#endif /* _ASM_S390_UNWIND_USER_H */
