// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of bench/sframe-rows.sh: deferred user stacks whose frames
 * are many distinct functions, so the SFrame unwinder looks up many
 * distinct addresses (tests/guest/bench-sframe-rows.sh says what each row
 * measures).
 *
 * The chain functions sfc_fn_0 ... sfc_fn_<M-1> come from sfchain-gen.py
 * M: path P of depth D is sfc_fn_<P*D> -> ... -> sfc_fn_<P*D+D-1>, which
 * makes a getppid() itself: D distinct functions, D distinct addresses
 * (D - 1 return addresses and the system call's), under sfc_loop and
 * main.  Built -O1 with frame pointers and -Wa,--gsframe: one binary for
 * both unwinders.
 *
 * Usage: sfchain bench N DEPTH K [cold]
 *   K paths of DEPTH frames, round robin, N getppid() in all, between
 *   the instruction-count markers of ID 61 (insn-marker.h), after one
 *   round of the K paths before them (the kernel's lazy check of the FDE
 *   table and its rule table allocation happen there, not in the count).
 *   cold: before each getppid(), registers and unregisters the .sframe of
 *   libsfwork.so (linked, never on the stack) with PR_ADD_SFRAME and
 *   PR_REMOVE_SFRAME: the removal bumps the generation of the mm's
 *   sections, so no rule kept before it is used (kernel/unwind/sframe.c,
 *   sframe_remove_locked()) and every lookup of the next walk is a first
 *   lookup.  The section is not registered at the walk, so a process
 *   without sections (LD_PRELOAD=libsframe-unreg.so) walks by frame
 *   pointers alone.  Exits 1 when a registration fails.
 *
 * Built with -DSFC_MORE (sfchain-more-small, sfchain-more-big), it has the
 * modes nofde, once, procs and threads too (sfchain-more.c); without it,
 * as sfchain-small and sfchain-big, the code is what it always was.
 */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insn-marker.h"
#include "sframe_reg.h"
#include "sfchain.h"

#define INSN_MARKER_SFCHAIN	61

volatile long sfc_sink;

/* in libsfwork.so: referenced so that the library is linked */
const unsigned char *sf_lib_sframe_v3_room(void);

static struct { uintptr_t sf, sf_end, text, text_end; } dummy;

static int find_dummy(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libsfwork.so"))
		return 0;
	return sfreg_ranges(info, &dummy.sf, &dummy.sf_end, &dummy.text,
			    &dummy.text_end);
}

/* forget every rule the kernel kept for this mm */
static void invalidate(void)
{
	if (prctl(PR_ADD_SFRAME, dummy.sf, dummy.sf_end, dummy.text,
		  dummy.text_end) ||
	    prctl(PR_REMOVE_SFRAME, dummy.sf, 0, 0, 0)) {
		perror("sfchain: PR_ADD_SFRAME/PR_REMOVE_SFRAME");
		exit(1);
	}
}

NOINLINE void sfc_loop(long n, long depth, long k, int cold)
{
	long i, p = 0;

	for (i = 0; i < n; i++) {
		if (cold)
			invalidate();
		sfc_tab[p * depth](depth - 1, p * depth + 1);
		if (++p == k)
			p = 0;
	}
	sfc_sink++;
}

int main(int argc, char **argv)
{
	long n, depth, k;
	int cold;

#ifdef SFC_MORE
	/* sfchain-more-small and -big: the other modes (sfchain-more.c) */
	if (argc > 1 && strcmp(argv[1], "bench"))
		return sfc_more(argc, argv);
#endif
	if (argc < 5 || argc > 6 || strcmp(argv[1], "bench") ||
	    (argc == 6 && strcmp(argv[5], "cold"))) {
		fprintf(stderr, "usage: %s bench N DEPTH K [cold]\n", argv[0]);
		return 2;
	}
	n = strtol(argv[2], NULL, 0);
	depth = strtol(argv[3], NULL, 0);
	k = strtol(argv[4], NULL, 0);
	cold = argc == 6;
	if (n < 1 || depth < 1 || k < 1 || k * depth > sfc_nr) {
		fprintf(stderr, "sfchain: need N >= 1, DEPTH >= 1, K >= 1 and K * DEPTH <= %ld\n",
			sfc_nr);
		return 2;
	}
	if (cold) {
		if (!sf_lib_sframe_v3_room() || !dl_iterate_phdr(find_dummy, NULL)) {
			fprintf(stderr, "sfchain: no .sframe in libsfwork.so\n");
			return 1;
		}
		/* registered or not (the preload libraries), it is not now */
		prctl(PR_REMOVE_SFRAME, dummy.sf, 0, 0, 0);
	}
	sfc_loop(k, depth, k, cold);
	INSN_MARK_START(INSN_MARKER_SFCHAIN);
	sfc_loop(n, depth, k, cold);
	INSN_MARK_END(INSN_MARKER_SFCHAIN);
	return 0;
}
