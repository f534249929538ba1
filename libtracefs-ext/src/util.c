// SPDX-License-Identifier: LGPL-2.1
/*
 * Messages of the library.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ustack-local.h"

static enum tep_loglevel log_level = TEP_LOG_WARNING;

void ustack_set_loglevel(enum tep_loglevel level)
{
	log_level = level;
}

static void ustack_vlog(enum tep_loglevel level, const char *fmt, va_list ap)
{
	if (level > log_level)
		return;
	fprintf(stderr, "libtracefs-ext: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ustack_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ustack_vlog(TEP_LOG_ERROR, fmt, ap);
	va_end(ap);
}

void ustack_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ustack_vlog(TEP_LOG_WARNING, fmt, ap);
	va_end(ap);
}
