/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack: the aggregated outputs' table (one entry per distinct stack);
 * --tree's keys, given to libustack's call tree (ustack_tree(3)) at the
 * end.
 */
#ifndef _USTACK_TOOL_TREE_H
#define _USTACK_TOOL_TREE_H

#include <stdbool.h>
#include <stddef.h>

/* a distinct stack: its key, its events (with --weight=latency, after
 * the run: their weight, ns) */
struct folded {
	char			*stack;
	unsigned long long	count;
	unsigned long long	weight;
};

/*
 * The key of a --tree stack: fields separated by TREE_SEP: the event,
 * the task's name, then the frames outermost first, each "name" or
 * "name" TREE_DSO "object".
 */
#define TREE_SEP	'\x1e'
#define TREE_DSO	'\x1f'

struct tree_opts {
	unsigned int	flags;		/* USTACK_TREE_* */
	double		limit;		/* --percent-limit */
	int		max_stack;	/* --max-stack, 0: all */
	const char	*sort;		/* --sort, NULL: the default */
};

#endif
