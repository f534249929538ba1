/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * KernelShark plugin "unwind_stack": the kernel and the deferred user stack
 * of the selected event.  Its context, shared by the C part
 * (unwind_stack.c: event handlers, second pass, the text) and the GUI
 * part (UnwindStack.cpp: marks, dock), as sched_events.h is.
 */
#ifndef _KS_PLUGIN_UNWIND_STACK_H
#define _KS_PLUGIN_UNWIND_STACK_H

#include <stdbool.h>
#include <libkshark.h>
#include <libkshark-plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef KSHARK_UNWIND_TESTING
#define KS_UNWIND_API __attribute__((visibility("default")))
#else
#define KS_UNWIND_API __attribute__((visibility("hidden")))
#endif

#define N_EVENTS	5

struct ustack_view;

/** Structure representing the plugin's context of one stream. */
struct plugin_unwind_context {
	struct kshark_data_stream	*stream;
	struct tep_handle		*tep;
	/* user_stack_cookie, user_stack_deferred, then the maps' events */
	int				ids[N_EVENTS];
	/* what the view says instead of a stack; NULL: active */
	const char			*note;
	/* libustack's view: the records, their requests, the names */
	struct ustack_view		*view;
	int64_t				first_offset;	/* of this load */
	bool				second_pass_done;
	/* the events that asked (field: the task), for the marks */
	struct kshark_data_container	*at;
	/* the second pass': KernelShark's entries (during it only) */
	struct kshark_entry		**data;
	size_t				n_data;
	ssize_t				step;		/* the search's */
};

KS_DECLARE_PLUGIN_CONTEXT_METHODS(struct plugin_unwind_context)

/* The second pass, given KernelShark's entries in time order. */
KS_UNWIND_API void kshark_unwind_second_pass(int sd,
					     struct kshark_entry **data,
					     size_t n);

/* What the dock shows for an entry: text, and the entries it links to. */
struct kshark_unwind_view {
	char				*text;
	size_t				n_links;
	const struct kshark_entry	*link[];
};

/* Never NULL but on ENOMEM; one block (links, then text): free() it. */
KS_UNWIND_API struct kshark_unwind_view *
kshark_unwind_view(const struct kshark_entry *e, unsigned int print_flags);

/*
 * The call tree of the stacks of the events from @from to @to (ns), of
 * task @pid (-1: all), as ustack --tree prints it; NULL on ENOMEM, else
 * free() it.
 */
KS_UNWIND_API char *kshark_unwind_tree(int sd, int64_t from, int64_t to,
				       int pid, unsigned int print_flags);

void plugin_unwind_draw(struct kshark_cpp_argv *argv, int sd, int val,
			int draw_action);

#ifdef __cplusplus
}
#endif

#endif
