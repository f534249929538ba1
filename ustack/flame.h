/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack --flamegraph: the folded stacks drawn as a flame graph, an SVG
 * written directly (flame.c).
 */
#ifndef _USTACK_TOOL_FLAME_H
#define _USTACK_TOOL_FLAME_H

#include <stdbool.h>
#include <stdio.h>
#include "tree.h"

/*
 * Writes the flame graph of the @n folded stacks of @tab (keys as
 * --folded prints them, "frame;frame;..." outermost first; the caller
 * frees them) to @out.  @weight: the values are nanoseconds, not events.
 * Returns 0, or -1 (ENOMEM).
 */
int flame_print(FILE *out, const struct folded *tab, size_t n, bool weight);

#endif
