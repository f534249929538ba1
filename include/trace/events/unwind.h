/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of deferred user stacks are tracing's own, like
 * ftrace:kernel_stack: they are in the "ftrace" system, which has no
 * enable, filter or trigger files, and whose formats trace-cmd always
 * saves.  The tracepoints are never called: the records are written by
 * kernel/trace/trace_unwind_user.c straight into the ring buffer of the
 * instance that asked.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ftrace

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE unwind

#if !defined(_TRACE_UNWIND_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_UNWIND_H

#include <linux/tracepoint.h>

/* user_stack_cookie flags */
#define TRACE_UNWIND_NO_USER_STACK	BIT(0)	/* none will follow */

/* user_stack_deferred flags */
#define TRACE_UNWIND_TRUNCATED		BIT(0)	/* more frames than fit */
#define TRACE_UNWIND_LATE		BIT(1)	/* asked after the callback */
/* the unwinders that found its frames (none: only the first, or none) */
#define TRACE_UNWIND_FP			BIT(2)	/* frame pointers */
#define TRACE_UNWIND_SFRAME		BIT(3)	/* .sframe sections */
#define TRACE_UNWIND_BACKCHAIN		BIT(4)	/* the ABI's back chain */

/*
 * user_stack_cookie - an event asked for the deferred user stack
 *
 * Recorded right after the event that asked, with its kernel stack when
 * one was asked for too (kernel may be empty).  The user_stack_deferred
 * record with the same cookie and the same pid carries the user stack,
 * unless flags has TRACE_UNWIND_NO_USER_STACK.
 *
 * The fields and the arguments of the print format are in the same
 * order, as readers of "ftrace" formats expect.
 */
TRACE_EVENT(user_stack_cookie,

	TP_PROTO(u64 cookie, unsigned int flags, const unsigned long *kernel,
		 unsigned int nr),

	TP_ARGS(cookie, flags, kernel, nr),

	TP_STRUCT__entry(
		__field(u64,		cookie)
		__field(unsigned int,	flags)
		__dynamic_array(unsigned long, kernel, nr)
	),

	TP_fast_assign(
		__entry->cookie = cookie;
		__entry->flags = flags;
		memcpy(__get_dynamic_array(kernel), kernel,
		       nr * sizeof(unsigned long));
	),

	/*
	 * For readers without a handler for this record: the kernel frames
	 * as addresses (a print format cannot name the elements of an array)
	 */
	TP_printk("cookie=0x%llx flags=0x%x kernel=%s", __entry->cookie,
		  __entry->flags,
		  __print_array(__get_dynamic_array(kernel),
				__get_dynamic_array_len(kernel) /
				sizeof(unsigned long), sizeof(unsigned long)))
);

/*
 * user_stack_deferred - the user stack of a kernel entry
 *
 * Written once per instance and cookie, in the context of the task, right
 * before it returns to user space.  The frames are return addresses,
 * innermost first; depth is how many the unwinder found, more than the
 * record holds when it is truncated.  No frames means the unwind failed.
 * The frames start 8-byte aligned.
 */
TRACE_EVENT(user_stack_deferred,

	TP_PROTO(u64 cookie, unsigned int flags, unsigned int depth,
		 const unsigned long *frames, unsigned int nr),

	TP_ARGS(cookie, flags, depth, frames, nr),

	TP_STRUCT__entry(
		__field(u64,		cookie)
		__field(int,		tgid)
		__field(unsigned int,	flags)
		__field(unsigned int,	depth)
		__dynamic_array(unsigned long, frames, nr)
	),

	TP_fast_assign(
		__entry->cookie = cookie;
		__entry->tgid = current->tgid;
		__entry->flags = flags;
		__entry->depth = depth;
		memcpy(__get_dynamic_array(frames), frames,
		       nr * sizeof(unsigned long));
	),

	TP_printk("cookie=0x%llx tgid=%d flags=0x%x depth=%u frames=%s",
		  __entry->cookie, __entry->tgid, __entry->flags,
		  __entry->depth,
		  __print_array(__get_dynamic_array(frames),
				__get_dynamic_array_len(frames) /
				sizeof(unsigned long), sizeof(unsigned long)))
);

#endif /* _TRACE_UNWIND_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
