/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack: the aggregated outputs' table (one entry per distinct
 * stack) and the call tree printed from it (tool/tree.c).
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

enum {
	TREE_SORT_COMM	= 1 << 0,
	TREE_SORT_DSO	= 1 << 1,
	TREE_SORT_SYM	= 1 << 2,
};

struct tree_opts {
	bool		callee;		/* --tree=callee */
	double		limit;		/* --percent-limit */
	int		max_stack;	/* --max-stack, 0: all */
	int		sort[3];	/* --sort: TREE_SORT_*, in order */
	int		nr_sort;
	bool		weight;		/* values are weights (ns) */
};

/* --sort KEYS: 0, or -1 after saying why */
int tree_parse_sort(struct tree_opts *o, const char *keys);

/*
 * Prints the call tree of the @n stacks of @tab (which it reorders; the
 * keys are left for the caller to free).  Returns 0, or -1 (ENOMEM).
 */
int tree_print(struct folded *tab, size_t n, const struct tree_opts *o);

#endif
