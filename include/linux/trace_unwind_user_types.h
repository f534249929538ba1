/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TRACE_UNWIND_USER_TYPES_H
#define _LINUX_TRACE_UNWIND_USER_TYPES_H

#include <linux/bitops.h>
#include <linux/types.h>

#ifdef CONFIG_TRACE_UNWIND_USER

#define TRACE_UNWIND_MAX_INSTANCES	CONFIG_TRACE_UNWIND_USER_MAX_INSTANCES
#define TRACE_UNWIND_NMI_SLOTS		4

/**
 * struct trace_unwind_task - which trace instances want this task's user stack
 * @cookie: the deferred unwind cookie (kernel entry) the bitmaps describe
 * @delivered: set to @cookie once the deferred callback ran for that entry
 * @asked: instances (by slot) that recorded @cookie
 * @served: instances that were given the user stack of @cookie
 * @nmi_slots: slot + 1 of instances that asked from NMI while the bitmaps
 *	were being reset for a new entry
 *
 * The record lives in task_struct so that a request from any context,
 * NMI included, can note itself without allocating.  It is only ever
 * written by the task itself (or by an interrupt or NMI on top of it),
 * except for slot teardown when an instance is deleted.
 */
struct trace_unwind_task {
	u64		cookie;
	u64		delivered;
	DECLARE_BITMAP(asked, TRACE_UNWIND_MAX_INSTANCES);
	DECLARE_BITMAP(served, TRACE_UNWIND_MAX_INSTANCES);
	unsigned int	nmi_slots[TRACE_UNWIND_NMI_SLOTS];
};

struct task_struct;
void trace_unwind_task_init(struct task_struct *task);

#else /* !CONFIG_TRACE_UNWIND_USER */

struct task_struct;
static inline void trace_unwind_task_init(struct task_struct *task) { }

#endif /* CONFIG_TRACE_UNWIND_USER */

#endif /* _LINUX_TRACE_UNWIND_USER_TYPES_H */
