/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SFRAME_H
#define _LINUX_SFRAME_H

#include <linux/errno.h>
#include <linux/types.h>

struct mm_struct;
struct unwind_user_frame;

#ifdef CONFIG_UNWIND_USER_SFRAME

void sframe_mm_init(struct mm_struct *mm);
int sframe_dup_mm(struct mm_struct *mm, struct mm_struct *oldmm);
void sframe_free_mm(struct mm_struct *mm);
bool sframe_mm_has_sections(struct mm_struct *mm);
int sframe_add_section(unsigned long sframe_start, unsigned long sframe_end,
		       unsigned long text_start, unsigned long text_end);
int sframe_remove_section(unsigned long sframe_start);
int sframe_find(unsigned long ip, struct unwind_user_frame *frame);
void sframe_mm_unmapped(struct mm_struct *mm, unsigned long start,
			unsigned long end);
int sframe_file_attach(const void __user *uattach, unsigned long usize);

#else /* !CONFIG_UNWIND_USER_SFRAME */

static inline void sframe_mm_init(struct mm_struct *mm) {}
static inline int sframe_dup_mm(struct mm_struct *mm, struct mm_struct *oldmm)
{
	return 0;
}

static inline void sframe_free_mm(struct mm_struct *mm) {}
static inline bool sframe_mm_has_sections(struct mm_struct *mm)
{
	return false;
}

static inline int sframe_add_section(unsigned long sframe_start,
				     unsigned long sframe_end,
				     unsigned long text_start,
				     unsigned long text_end)
{
	return -EOPNOTSUPP;
}

static inline int sframe_remove_section(unsigned long sframe_start)
{
	return -EOPNOTSUPP;
}

static inline int sframe_find(unsigned long ip, struct unwind_user_frame *frame)
{
	return -ENOENT;
}

static inline void sframe_mm_unmapped(struct mm_struct *mm,
				      unsigned long start, unsigned long end) {}

static inline int sframe_file_attach(const void __user *uattach,
				     unsigned long usize)
{
	return -EINVAL;
}

#endif /* CONFIG_UNWIND_USER_SFRAME */

#endif /* _LINUX_SFRAME_H */
