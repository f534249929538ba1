// SPDX-License-Identifier: LGPL-2.1
/*
 * The 1.0 versions of the functions whose ABI changed in 1.1.
 *
 * struct ustack_join_stats grew in 1.1 (the damage counts, and room to
 * grow).  A program built against 1.0 passes the smaller structure, so
 * its references, bound to LIBTRACEFS_EXT_1.0 by the symbol versions of
 * the shared library, come here and get the 1.0 part only.
 */
#include <stddef.h>
#include <string.h>

#include "ustack-local.h"

/* 1.0's structure ended with peak_events */
#define STATS_1_0_SIZE	offsetof(struct ustack_join_stats, bad_kernel_frames)

/* Not hidden (the versioned names would be too), local by the map */
int __ustack_join_get_stats_1_0(struct ustack_join *join,
				struct ustack_join_stats *stats);
int __ustack_file_iterate_1_0(struct ustack_file *file, int index,
			      ustack_join_cb cb, void *data,
			      struct ustack_join_stats *stats);

int __ustack_join_get_stats_1_0(struct ustack_join *join,
				struct ustack_join_stats *stats)
{
	struct ustack_join_stats st;

	if (!stats)
		return ustack_join_get_stats(join, NULL);
	if (ustack_join_get_stats(join, &st))
		return -1;
	memcpy(stats, &st, STATS_1_0_SIZE);
	return 0;
}
__asm__(".symver __ustack_join_get_stats_1_0, ustack_join_get_stats@LIBTRACEFS_EXT_1.0");

int __ustack_file_iterate_1_0(struct ustack_file *file, int index,
			      ustack_join_cb cb, void *data,
			      struct ustack_join_stats *stats)
{
	struct ustack_join_stats st = { 0 };
	int ret;

	if (!stats)
		return ustack_file_iterate(file, index, cb, data, NULL);
	/* what the call leaves alone (bad arguments) stays as it was */
	memcpy(&st, stats, STATS_1_0_SIZE);
	ret = ustack_file_iterate(file, index, cb, data, &st);
	memcpy(stats, &st, STATS_1_0_SIZE);
	return ret;
}
__asm__(".symver __ustack_file_iterate_1_0, ustack_file_iterate@LIBTRACEFS_EXT_1.0");
