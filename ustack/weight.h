/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack --weight=latency: each event weighed by the time to its pair
 * (weight.c).
 */
#ifndef _USTACK_TOOL_WEIGHT_H
#define _USTACK_TOOL_WEIGHT_H

#include "ustack.h"

struct weights;

/* called with the key an event was counted under, and its weight (ns) */
typedef int (*weight_apply)(void *data, const char *key,
			    unsigned long long weight);

struct weights *weights_alloc(weight_apply apply, void *data);
void weights_free(struct weights *w);
/*
 * Notes an event (every event of the trace, shown or not: its pair may
 * be one that is not shown); @key: the key it was counted under (a
 * copy is kept until its pair is found), NULL when not shown.
 * Returns 0, or -1 (ENOMEM, or what apply returned).
 */
int weights_observe(struct weights *w, const struct ustack_event *ev,
		    const char *key);
/* pairs what is left, at the end */
int weights_flush(struct weights *w);

struct weights_stats {
	unsigned long long	paired;		/* shown events weighed */
	unsigned long long	unpaired;	/* shown, no pair in the trace */
	unsigned long long	no_kind;	/* shown, not an event with a pair */
};
void weights_get_stats(struct weights *w, struct weights_stats *st);

#endif
