/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * KernelShark plugin "unwind_stack": merged kernel + deferred user stacks.
 */
#ifndef _KS_UNWIND_STACK_H
#define _KS_UNWIND_STACK_H

#include <stdint.h>
#include <stddef.h>
#include <libkshark.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The merged stack of @e as text, one frame per line (kernel frames
 * "=> func+0xoff (addr)", then user frames "=> 0xaddr (user)"), for an
 * event that asked for a deferred user stack, its user_stack_cookie
 * record (which carries the kernel frames), or a user_stack_deferred
 * record (every event it completes).  NULL when @e has none.  Free with
 * free().
 */
char *kshark_unwind_stack_text(const struct kshark_entry *e);

/*
 * For the plugin's own GUI part (unwind_view.cpp, the stack view and the
 * graph's marks), hidden: not exported from the .so.
 */
#define KS_UNWIND_HIDDEN __attribute__((visibility("hidden")))

/* an event that asked for a deferred stack, for the graph */
struct kshark_unwind_mark {
	int64_t	ts;
	int	pid;
	int	cpu;
};

/* The asking events of stream @sd, sorted by time; NULL when none. */
KS_UNWIND_HIDDEN const struct kshark_unwind_mark *
kshark_unwind_marks(int sd, size_t *n);

/*
 * The stack view of @e (exported: kshark_stack prints it), named: one line per item, "KIND OFFSET TEXT",
 * KIND one of
 *   T title, I information, S section, K kernel frame, U user frame,
 *   i a function inlined at the user frame below, W what is missing,
 *   J a line that jumps to the record at OFFSET (the file offset, as in
 *     kshark_entry.offset of the same stream) when clicked;
 * OFFSET is -1 on lines that jump nowhere.  Never NULL but on ENOMEM:
 * an entry without a stack gets a line saying why.  Free with free().
 */
char *kshark_unwind_stack_view(const struct kshark_entry *e);

/* the draw handler: marks on the task and CPU plots (unwind_view.cpp) */
struct kshark_cpp_argv;
KS_UNWIND_HIDDEN void kshark_unwind_draw(struct kshark_cpp_argv *argv,
					 int sd, int val, int draw_action);

#ifdef __cplusplus
}
#endif

#endif
