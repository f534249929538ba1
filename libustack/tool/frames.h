/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack: the tracer's own kernel frames (hidden by default) and the
 * names of frames in aggregated outputs (tool/frames.c).
 */
#ifndef _USTACK_TOOL_FRAMES_H
#define _USTACK_TOOL_FRAMES_H

#include <stdbool.h>
#include "ustack.h"

/* is @name one of the tracer's own functions (the list of ustack(1)) */
bool tracer_frame_name(const char *name);

/*
 * How many of the innermost kernel frames (kernel[0], kernel[1], ...)
 * are the tracer's own: the run of frames, from the innermost, whose
 * functions are in the list.  @arch: USTACK_FRAME_S390X or 0.
 */
int tracer_frames(struct ustack_syms *syms, const unsigned long long *kernel,
		  int nr, int arch);

#endif
