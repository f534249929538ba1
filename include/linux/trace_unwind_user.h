/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TRACE_UNWIND_USER_H
#define _LINUX_TRACE_UNWIND_USER_H

struct task_struct;

#ifdef CONFIG_TRACE_UNWIND_USER

void trace_unwind_task_init(struct task_struct *task);
void trace_unwind_task_fork(struct task_struct *task);
void trace_unwind_task_free(struct task_struct *task);

#else /* !CONFIG_TRACE_UNWIND_USER */

static inline void trace_unwind_task_init(struct task_struct *task) { }
static inline void trace_unwind_task_fork(struct task_struct *task) { }
static inline void trace_unwind_task_free(struct task_struct *task) { }

#endif /* CONFIG_TRACE_UNWIND_USER */

#endif /* _LINUX_TRACE_UNWIND_USER_H */
