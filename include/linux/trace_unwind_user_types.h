/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TRACE_UNWIND_USER_TYPES_H
#define _LINUX_TRACE_UNWIND_USER_TYPES_H

#include <linux/types.h>

#ifdef CONFIG_TRACE_UNWIND_USER

#define TRACE_UNWIND_MAX_INSTANCES	CONFIG_TRACE_UNWIND_USER_MAX_INSTANCES
#define TRACE_UNWIND_TASK_SLOTS		4

/**
 * struct trace_unwind_task - which trace instances want this task's user stack
 * @cookie: the deferred unwind cookie (kernel entry) the record describes
 * @delivered: set to @cookie once the deferred callback ran for that entry
 * @asked: slot + 1 of the instances that recorded @cookie, with
 *	TRACE_UNWIND_SERVED once given the user stack; 0 when free
 * @broadcast: more instances asked than @asked holds, or an NMI asked while
 *	the record was being reset: the stack goes to every instance
 * @broadcast_gen: the slot generation when the callback broadcast: the
 *	instances given a slot up to then were served
 * @nmi: an NMI asked while the record was being reset; not cleared by
 *	the reset, so that the context that resets it sees it
 *
 * The record lives in task_struct so that a request from any context,
 * NMI included, can note itself without allocating.  Its size does not
 * depend on the number of instances.  It is only ever written by the task
 * itself (or by an interrupt or NMI on top of it), except for slot
 * teardown when an instance is deleted.
 */
struct trace_unwind_task {
	u64		cookie;
	u64		delivered;
	u32		asked[TRACE_UNWIND_TASK_SLOTS];
	u32		broadcast;
	u32		broadcast_gen;
	u32		nmi;
};

struct task_struct;
void trace_unwind_task_init(struct task_struct *task);

#else /* !CONFIG_TRACE_UNWIND_USER */

struct task_struct;
static inline void trace_unwind_task_init(struct task_struct *task) { }

#endif /* CONFIG_TRACE_UNWIND_USER */

#endif /* _LINUX_TRACE_UNWIND_USER_TYPES_H */
