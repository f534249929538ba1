// SPDX-License-Identifier: GPL-2.0
/*
 * The shallow SFrame workload (sfwork-shallow; bench/sframe.sh used it
 * until it ran one binary both ways): main calls the frameless leaf of
 * libsfwork.so directly, so a deferred user stack has three frames,
 *
 *   sf_lib_leaf <- main <- __libc_start_call_main
 *
 * (the last by frame pointers, in Debian's libc).  Built like sfwork
 * (-O2 -fomit-frame-pointer -Wa,--gsframe, linked to libsfwork.so); its
 * deep twin is sfwork (sframe_main.c).
 *
 * Usage: sfwork-shallow [-r] [COUNT]
 *   COUNT  getppid() calls from sf_lib_leaf (default 1), between the
 *          instruction-count markers of ID 62, those of sfwork
 *   -r     first register the .sframe of every loaded object with
 *          prctl(PR_ADD_SFRAME) (the library's is ours to register)
 * Exits 3 when a registration fails with anything but EEXIST (after
 * running the calls all the same).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "insn-marker.h"
#include "sframe_reg.h"

#define INSN_MARKER_SFRAME	62

long sf_lib_leaf(long nr);

static volatile long sink;

int main(int argc, char **argv)
{
	struct sfreg_count c = { 0 };
	long count = 1, i;
	int reg = 0, a = 1;

	if (a < argc && !strcmp(argv[a], "-r"))
		reg = 1, a++;
	if (a < argc)
		count = strtol(argv[a], NULL, 0);
	if (reg)
		c = sfreg_all(1);
	INSN_MARK_START(INSN_MARKER_SFRAME);
	for (i = 0; i < count; i++)
		sink += sf_lib_leaf(SYS_getppid);
	INSN_MARK_END(INSN_MARKER_SFRAME);
	if (c.failed)
		fprintf(stderr, "%s: %d registrations failed: %s\n", argv[0],
			c.failed, strerror(c.err));
	return c.failed ? 3 : 0;
}
