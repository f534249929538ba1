// SPDX-License-Identifier: LGPL-2.1
/*
 * The versions of the functions whose ABI changed, for programs built
 * against an older libustack; the symbol versions of the shared
 * library (libustack.map) bind their references here.
 *
 * 1.1: struct ustack_join_stats grew (the damage counts, and room to
 * grow).  A program built against 1.0 passes the smaller structure and
 * gets the 1.0 part only.
 *
 * 1.2: a new status, USTACK_LOST (the kernel said no user stack would
 * come), and a new count in the room left for it.  A program built
 * against 1.0 or 1.1 knows no such status (it may index a table with the
 * status): the joins it makes, through ustack_join_alloc(),
 * ustack_file_iterate() or ustack_live_open(), deliver and count a lost
 * stack as never arrived, so its statuses stay those it knows and the
 * count stays 0.
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
int __ustack_file_iterate_1_1(struct ustack_file *file, int index,
			      ustack_join_cb cb, void *data,
			      struct ustack_join_stats *stats);
struct ustack_join *__ustack_join_alloc_1_0(struct tep_handle *tep,
					    ustack_join_cb cb, void *data);
struct ustack_live *__ustack_live_open_1_0(struct tracefs_instance *instance,
					   ustack_join_cb cb, void *data);

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
__asm__(".symver __ustack_join_get_stats_1_0, ustack_join_get_stats@LIBUSTACK_1.0");

int __ustack_file_iterate_1_0(struct ustack_file *file, int index,
			      ustack_join_cb cb, void *data,
			      struct ustack_join_stats *stats)
{
	struct ustack_join_stats st = { 0 };
	int ret;

	if (!stats)
		return ustack_file_iterate_abi(file, index, cb, data, NULL,
					       true);
	/* what the call leaves alone (bad arguments) stays as it was */
	memcpy(&st, stats, STATS_1_0_SIZE);
	ret = ustack_file_iterate_abi(file, index, cb, data, &st, true);
	memcpy(stats, &st, STATS_1_0_SIZE);
	return ret;
}
__asm__(".symver __ustack_file_iterate_1_0, ustack_file_iterate@LIBUSTACK_1.0");

int __ustack_file_iterate_1_1(struct ustack_file *file, int index,
			      ustack_join_cb cb, void *data,
			      struct ustack_join_stats *stats)
{
	return ustack_file_iterate_abi(file, index, cb, data, stats, true);
}
__asm__(".symver __ustack_file_iterate_1_1, ustack_file_iterate@LIBUSTACK_1.1");

struct ustack_join *__ustack_join_alloc_1_0(struct tep_handle *tep,
					    ustack_join_cb cb, void *data)
{
	struct ustack_join *join = ustack_join_alloc(tep, cb, data);

	if (join)
		ustack_join_set_compat(join);
	return join;
}
__asm__(".symver __ustack_join_alloc_1_0, ustack_join_alloc@LIBUSTACK_1.0");

struct ustack_live *__ustack_live_open_1_0(struct tracefs_instance *instance,
					   ustack_join_cb cb, void *data)
{
	return ustack_live_open_abi(instance, cb, data, true);
}
__asm__(".symver __ustack_live_open_1_0, ustack_live_open@LIBUSTACK_1.0");
