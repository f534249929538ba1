/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * KernelShark plugin "unwind_stack": merged kernel + deferred user stacks.
 * The interface between its C part (plugin-unwind_stack.c) and its GUI
 * part (unwind_view.cpp).  Hidden in the plugin KernelShark loads; the
 * test build (make test, -DKSHARK_UNWIND_TESTING) exports it for
 * kshark_stack.
 */
#ifndef _KS_UNWIND_STACK_H
#define _KS_UNWIND_STACK_H

#include <stdint.h>
#include <stddef.h>
#include <libkshark.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef KSHARK_UNWIND_TESTING
#define KS_UNWIND_API __attribute__((visibility("default")))
#else
#define KS_UNWIND_API __attribute__((visibility("hidden")))
#endif
#define KS_UNWIND_HIDDEN __attribute__((visibility("hidden")))

/*
 * The second pass (as sched_events' second pass): join the records the
 * event handlers collected, given KernelShark's entries of the stream
 * in time order (the graph's data array).  Done once per stream; the
 * views below have nothing to show before.  Returns 1 when it joined
 * now, 0 when it had been done (or there is nothing to join).
 */
KS_UNWIND_API int kshark_unwind_join(int sd, struct kshark_entry **data,
				     size_t n);

/* One line of the stack view. */
enum kshark_unwind_kind {
	KSHARK_UNWIND_TITLE	= 'T',	/* the event */
	KSHARK_UNWIND_INFO	= 'I',
	KSHARK_UNWIND_SECTION	= 'S',	/* "Kernel stack", "User stack" */
	KSHARK_UNWIND_KFRAME	= 'K',
	KSHARK_UNWIND_UFRAME	= 'U',
	KSHARK_UNWIND_INLINED	= 'i',	/* inlined at the user frame below */
	KSHARK_UNWIND_WARN	= 'W',	/* what is missing */
	KSHARK_UNWIND_LINK	= 'J',	/* goes to the row of target */
};

struct kshark_unwind_line {
	enum kshark_unwind_kind	kind;
	/* KSHARK_UNWIND_LINK: the file offset of the row it goes to
	 * (kshark_entry.offset, same stream); -1 otherwise */
	int64_t			target;
	const char		*text;
};

struct kshark_unwind_view {
	int				stream_id;
	size_t				n;
	struct kshark_unwind_line	line[];
};

/*
 * The stack view of @e: the event, its kernel stack, its named user
 * stack, what is missing.  Never NULL but on ENOMEM: an entry without a
 * stack gets a line saying why.  One block: free() it.
 */
KS_UNWIND_API struct kshark_unwind_view *
kshark_unwind_stack_view(const struct kshark_entry *e);

/*
 * The merged stack of @e as text, one frame per line (kernel frames
 * "=> func+0xoff (addr)", user frames "=> 0xaddr (user)"), for the
 * comparison of readers (tests/userspace/plugin/readers.py).  NULL when
 * @e has none.  free() it.
 */
KS_UNWIND_API char *kshark_unwind_stack_text(const struct kshark_entry *e);

/* an event that asked for a deferred stack, for the graph */
struct kshark_unwind_mark {
	int64_t	ts;
	int	pid;
	int	cpu;
};

/* The asking events of stream @sd, sorted by time; NULL when none. */
KS_UNWIND_HIDDEN const struct kshark_unwind_mark *
kshark_unwind_marks(int sd, size_t *n);

/* the draw handler (unwind_view.cpp): the second pass, the marks */
struct kshark_cpp_argv;
KS_UNWIND_HIDDEN void kshark_unwind_draw(struct kshark_cpp_argv *argv, int sd,
				      int val, int draw_action);

#ifdef __cplusplus
}
#endif

#endif
