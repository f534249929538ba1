// SPDX-License-Identifier: LGPL-2.1
/*
 * Messages of the library.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ustack-local.h"

static enum tep_loglevel log_level = TEP_LOG_WARNING;

/**
 * ustack_set_loglevel - set which messages the library prints
 * @level: the highest level printed (TEP_LOG_NONE: none)
 *
 * Messages of the library at or below @level go to ustack_vprint(), by
 * default on stderr; the default level is TEP_LOG_WARNING.
 */
void ustack_set_loglevel(enum tep_loglevel level)
{
	log_level = level;
}

/**
 * ustack_vprint - print one message of the library
 * @level: its level (TEP_LOG_ERROR, TEP_LOG_WARNING, ...)
 * @fmt: printf() format of the message, without a newline
 * @ap: its arguments
 *
 * Weak, as libtraceevent's tep_vprint(): a program that defines its own
 * ustack_vprint() gets the messages (those at or below the log level of
 * ustack_set_loglevel()) instead of stderr.  This one prints
 * "libustack: ", the message and a newline.
 *
 * Returns 0.
 */
int __attribute__((weak))
ustack_vprint(enum tep_loglevel level, const char *fmt, va_list ap)
{
	(void)level;
	fprintf(stderr, "libustack: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return 0;
}

static void ustack_vlog(enum tep_loglevel level, const char *fmt, va_list ap)
{
	if (level > log_level)
		return;
	ustack_vprint(level, fmt, ap);
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
