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

/* One request of libustack's index (ustack.h), and its entries. */
struct ustack_index;
struct ustack_request;
struct unwind_req {
	const struct kshark_entry *event;	/* that asked; NULL: not seen */
	const struct kshark_entry *cookie_rec;
	const struct kshark_entry *stack_rec;	/* NULL: none came */
	int			pid;		/* its task's */
	const struct ustack_request *r;		/* in the index */
};

#define N_EVENTS	5

/** Structure representing the plugin's context of one stream. */
struct plugin_unwind_context {
	struct kshark_data_stream	*stream;
	struct tep_handle		*tep;
	/* user_stack_cookie, user_stack_deferred, then the maps' events */
	int				ids[N_EVENTS];
	/* what the view says instead of a stack; NULL: active */
	const char			*note;
	/* the event handler's: the two records; execs and loads */
	struct kshark_data_container	*recs, *maps;
	int64_t				first_offset;	/* of the first load */
	bool				second_pass_done;
	/* the second pass': KernelShark's entries (during it only), the
	 * requests, and every entry of a request (field: its index) */
	struct kshark_entry		**data;
	size_t				n_data;
	ssize_t				cursor, step;	/* the search's */
	struct ustack_index		*index;
	struct unwind_req		*reqs;
	size_t				n_reqs;
	struct kshark_data_container	*at;
	unsigned int			damaged;	/* records skipped */
	/* the names of the user frames, made at the first stack shown */
	bool				syms_tried;
	struct ustack_file		*file;
	struct ustack_syms		*syms;
	char				*log;	/* libustack's messages */
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
