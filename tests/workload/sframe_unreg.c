// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD=libsframe-unreg.so PROGRAM: unregisters the .sframe section
 * of every object loaded at start (prctl(PR_REMOVE_SFRAME); sframe_reg.h)
 * before PROGRAM's main runs, so the kernel walks its user stack by frame
 * pointers alone.  bench/sframe.sh runs one binary built with frame
 * pointers and .sframe this way and with libsframe-preload.so, to compare
 * the two unwinders on the same code.  Exits 3 before main when a removal
 * fails with anything but ENOENT.
 */
#include <stdio.h>
#include <unistd.h>

#include "sframe_reg.h"

__attribute__((constructor)) static void sframe_unreg_init(void)
{
	struct sfreg_count c = sfreg_all(0);

	if (c.failed) {
		fprintf(stderr, "libsframe-unreg: %d removals failed (errno %d)\n",
			c.failed, c.err);
		_exit(3);
	}
}
