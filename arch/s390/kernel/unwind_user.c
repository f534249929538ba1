// SPDX-License-Identifier: GPL-2.0
/*
 * The registers user space left, for the SFrame rules of a topmost user
 * frame that keeps its return address or frame pointer in one
 */
#include <linux/errno.h>
#include <linux/fpu.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/unwind_user.h>
#include <asm/ptrace.h>

/* DWARF registers 16-31 of the s390x ELF ABI are these FPRs, in order */
static const u8 dwarf_fpr[16] = {
	0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15,
};

int unwind_user_get_reg(unsigned long *val, unsigned int regnum)
{
	freg_t fpr;

	if (regnum < 16) {
		*val = task_pt_regs(current)->gprs[regnum];
		return 0;
	}
	if (regnum >= 32)
		return -EINVAL;
	/* an FPR is the leftmost half of its vector register */
	save_user_fpu_regs();
	fpr = *(freg_t *)(current->thread.ufpu.vxrs + dwarf_fpr[regnum - 16]);
	*val = fpr.ui;
	return 0;
}
