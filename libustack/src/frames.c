// SPDX-License-Identifier: LGPL-2.1
/*
 * The tracer's own kernel frames: the functions between the point where
 * a task entered the tracing code and the point where its kernel stack
 * was taken (the event's probe, the tracepoint's caller and iterator,
 * the trigger).  They say how the stack was recorded, not what the task
 * was doing, and every stack of an event has them: ustack hides them by
 * default (--tracer-frames shows them), and so do call trees
 * (ustack_tree(3)), as perf's stacks start where its own code ends.  Only the innermost run of such frames is the tracer's:
 * the same function further out is the task's own work.
 */
#include <string.h>

#include "ustack-local.h"

/*
 * Names, or prefixes (a trailing '*'): the list of ustack(1)'s
 * --tracer-frames.  Keep the two in step.
 */
static const char *const tracer_names[] = {
	/* syscall events: the probes, and the entry code's tracepoint calls */
	"ftrace_syscall_enter", "ftrace_syscall_exit",
	"perf_syscall_enter", "perf_syscall_exit",
	"trace_syscall_enter", "trace_syscall_exit",
	/* a tracepoint's call: iterator, out-of-line caller, event probe */
	"__traceiter_*", "__do_trace_*", "__probestub_*",
	"trace_event_raw_event_*", "perf_trace_*",
	/* triggers, and taking the stack */
	"event_triggers_call", "event_triggers_post_call",
	"stacktrace_trigger", "stacktrace_count_trigger",
	"stacktrace_defer_trigger", "trace_event_buffer_commit",
	"trace_buffer_unlock_commit_regs", "__ftrace_trace_stack",
	"ftrace_trace_stack", "__trace_stack", "ftrace_stack_get",
	/* the function tracer's and the kprobes' callbacks */
	"function_trace_call", "function_stack_trace_call",
	"ftrace_ops_list_func", "arch_ftrace_ops_list_func",
	"ftrace_ops_assist_func", "kprobe_dispatcher", "kprobe_trace_func",
	"kprobe_ftrace_handler", "kretprobe_dispatcher",
	"kretprobe_trace_func", "fprobe_handler", "eprobe_trigger_func",
};

bool ustack_tracer_frame_name(const char *name)
{
	size_t i, len;

	if (!name)
		return false;
	for (i = 0; i < sizeof(tracer_names) / sizeof(tracer_names[0]); i++) {
		len = strlen(tracer_names[i]);
		if (tracer_names[i][len - 1] == '*') {
			if (!strncmp(name, tracer_names[i], len - 1))
				return true;
		} else if (!strcmp(name, tracer_names[i])) {
			return true;
		}
	}
	return false;
}

/* the answers for recent addresses, for a program with one syms (the
 * tool): every stack of an event has them */
#define CACHE_SIZE	512
static struct {
	unsigned long long	addr;
	bool			tracer;
} cache[CACHE_SIZE];

static bool tracer_addr(struct ustack_syms *syms, unsigned long long addr,
			bool cached)
{
	unsigned int h = (unsigned int)((addr >> 2) ^ (addr >> 13)) &
			 (CACHE_SIZE - 1);
	struct ustack_sym s;

	if (!cached)
		return !ustack_syms_resolve_kernel(syms, addr, &s) &&
		       ustack_tracer_frame_name(s.name);
	if (cache[h].addr == addr && addr)
		return cache[h].tracer;
	cache[h].addr = addr;
	cache[h].tracer = !ustack_syms_resolve_kernel(syms, addr, &s) &&
			  ustack_tracer_frame_name(s.name);
	return cache[h].tracer;
}

int ustack_tracer_frames(struct ustack_syms *syms,
			 const unsigned long long *kernel, int nr, int arch,
			 bool cached)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (!ustack_frame_plausible(kernel[i], USTACK_FRAME_KERNEL | arch) ||
		    kernel[i] == USTACK_FTRACE_TRAMPOLINE ||
		    !tracer_addr(syms, kernel[i], cached))
			break;
	}
	return i;
}
