// SPDX-License-Identifier: LGPL-2.1
/*
 * Messages of the library: through libtraceevent's tep_vprint(), the
 * route of libtracefs and libtracecmd.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-utils.h>

#include "ustack-local.h"

static enum tep_loglevel log_level = TEP_LOG_WARNING;
/* where this thread's messages go instead (ustack_log_capture()) */
static __thread char **captured;

/*
 * The messages of this thread appended to *@buf ("libustack: MESSAGE"
 * lines, up to about 4 kB), not printed, until called with NULL.
 */
void ustack_log_capture(char **buf)
{
	captured = buf;
}

static void capture(const char *fmt, va_list ap)
{
	char *old = *captured, *m, *all;

	if ((old && strlen(old) > 4096) || vasprintf(&m, fmt, ap) < 0)
		return;
	if (asprintf(&all, "%slibustack: %s\n", old ? old : "", m) >= 0) {
		free(old);
		*captured = all;
	}
	free(m);
}

/**
 * ustack_set_loglevel - set which messages the library prints
 * @level: the highest level printed (TEP_LOG_NONE: none)
 *
 * Messages of the library at or below @level go to libtraceevent's
 * tep_vprint() with the name "libustack", as libtracefs' and
 * libtracecmd's do: by default on stderr; a program that overrides
 * tep_vprint() gets them.  The default level is TEP_LOG_WARNING.
 */
void ustack_set_loglevel(enum tep_loglevel level)
{
	log_level = level;
}

static void ustack_vlog(enum tep_loglevel level, const char *fmt, va_list ap)
{
	if (level > log_level)
		return;
	if (captured) {
		capture(fmt, ap);
		return;
	}
	/* the messages say what failed, with strerror() where it helps */
	tep_vprint("libustack", level, false, fmt, ap);
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
