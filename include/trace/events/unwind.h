/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM unwind

#if !defined(_TRACE_UNWIND_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_UNWIND_H

#include <linux/tracepoint.h>

/*
 * These two events are written by the tracing deferred user stack client
 * (kernel/trace/trace_unwind_user.c) straight into the ring buffer of the
 * instance that asked for a user stack.  They are not meant to be enabled
 * on their own, and the tracepoints are never called: the definitions are
 * here for the event formats that readers need.
 */

/*
 * user_stack_cookie - an event asked for the deferred user stack
 *
 * Recorded right after the event (and its kernel stack) that asked.  The
 * user_stack_deferred event with the same cookie and the same pid carries
 * the user stack.
 */
TRACE_EVENT(user_stack_cookie,

	TP_PROTO(u64 cookie),

	TP_ARGS(cookie),

	TP_STRUCT__entry(
		__field(u64,	cookie)
	),

	TP_fast_assign(
		__entry->cookie = cookie;
	),

	TP_printk("cookie=0x%llx", __entry->cookie)
);

/*
 * user_stack_deferred - the user stack of a kernel entry
 *
 * Written once per instance and cookie, in the context of the task, right
 * before it returns to user space.  The frames are return addresses,
 * innermost first.  An empty stack means the unwind failed.
 */
TRACE_EVENT(user_stack_deferred,

	TP_PROTO(u64 cookie, const unsigned long *frames, unsigned int nr,
		 bool truncated),

	TP_ARGS(cookie, frames, nr, truncated),

	TP_STRUCT__entry(
		__field(u64,		cookie)
		__field(int,		tgid)
		__field(unsigned int,	truncated)
		__dynamic_array(unsigned long, frames, nr)
	),

	TP_fast_assign(
		__entry->cookie = cookie;
		__entry->tgid = current->tgid;
		__entry->truncated = truncated;
		memcpy(__get_dynamic_array(frames), frames,
		       nr * sizeof(unsigned long));
	),

	TP_printk("cookie=0x%llx tgid=%d nr=%u%s frames=%s",
		  __entry->cookie, __entry->tgid,
		  (unsigned int)(__get_dynamic_array_len(frames) /
				 sizeof(unsigned long)),
		  __entry->truncated ? " (truncated)" : "",
		  __print_array(__get_dynamic_array(frames),
				__get_dynamic_array_len(frames) /
				sizeof(unsigned long), sizeof(unsigned long)))
);

#endif /* _TRACE_UNWIND_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
