/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TRACE_UNWIND_USER_TYPES_H
#define _LINUX_TRACE_UNWIND_USER_TYPES_H

#include <linux/types.h>
#include <linux/bitops.h>

#ifdef CONFIG_TRACE_UNWIND_USER

/*
 * Instances that can use deferred user stacks at one time: a bit each in
 * every task's record, so a constant rather than a Kconfig choice
 */
#define TRACE_UNWIND_MAX_INSTANCES	128

/**
 * struct trace_unwind_task - which trace instances want this task's user stack
 * @cookie: the deferred unwind cookie (kernel entry) the record describes
 * @delivered: set once the deferred callback ran for the entry of @cookie
 * @pid: the pid of the task when @cookie was first asked for, which the
 *	user stack records carry: a thread that execs takes the pid of its
 *	group leader in de_thread(), in the middle of a kernel entry
 * @asked: a bit per instance slot: that instance recorded @cookie
 * @served: a bit per instance slot: that instance was given the user stack
 * @nmi_asked: slots of instances that asked from an NMI while the record
 *	was being reset; not cleared by the reset, so that the context that
 *	resets it adds them to @asked
 *
 * The record lives in task_struct so that a request from any context,
 * NMI included, can note itself without allocating: 64 bytes on 64-bit.
 * It is only ever written by the task itself (or by an interrupt or NMI on
 * top of it), except for slot teardown when an instance gives its slot up.
 */
struct trace_unwind_task {
	u64		cookie;
	u32		delivered;
	pid_t		pid;
	DECLARE_BITMAP(asked, TRACE_UNWIND_MAX_INSTANCES);
	DECLARE_BITMAP(served, TRACE_UNWIND_MAX_INSTANCES);
	DECLARE_BITMAP(nmi_asked, TRACE_UNWIND_MAX_INSTANCES);
};

struct task_struct;
void trace_unwind_task_init(struct task_struct *task);

#else /* !CONFIG_TRACE_UNWIND_USER */

struct task_struct;
static inline void trace_unwind_task_init(struct task_struct *task) { }

#endif /* CONFIG_TRACE_UNWIND_USER */

#endif /* _LINUX_TRACE_UNWIND_USER_TYPES_H */
