/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack --json: one JSON object per event, a line each (json.c;
 * the fields: ustack(1), JSON OUTPUT).
 */
#ifndef _USTACK_TOOL_JSON_H
#define _USTACK_TOOL_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include "ustack.h"

struct json_opts {
	bool	raw;		/* -r: addresses only */
	int	arch;		/* USTACK_FRAME_S390X or 0 */
	bool	multi;		/* several buffer instances read */
};

void json_event(FILE *out, const struct ustack_event *ev,
		struct ustack_syms *syms, const struct json_opts *o);

#endif
