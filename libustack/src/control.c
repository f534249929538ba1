// SPDX-License-Identifier: LGPL-2.1
/*
 * Control: the stacktrace:defer trigger and the userstacktrace_defer
 * option of an instance, and whether the running kernel has them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ustack-local.h"

#define OPTION_FILE	"options/userstacktrace_defer"
#define COOKIE_FORMAT	"events/ftrace/user_stack_cookie/format"
#define DEFERRED_FORMAT	"events/ftrace/user_stack_deferred/format"
#define TRIGGER		"stacktrace:defer"

/*
 * tracefs_file_exists() of libtracefs 1.6 ignores tracefs_set_tracing_dir()
 * for the top instance: build the path with tracefs_instance_get_file(),
 * which does not.
 */
static bool path_exists(struct tracefs_instance *instance, const char *rel,
			bool dir)
{
	struct stat st;
	char *path;
	int ret;

	path = tracefs_instance_get_file(instance, rel);
	if (!path)
		return false;
	ret = stat(path, &st);
	tracefs_put_tracing_file(path);
	if (ret < 0)
		return false;
	return dir ? S_ISDIR(st.st_mode) : !S_ISDIR(st.st_mode);
}

/**
 * ustack_kernel_support - what the running kernel has of deferred user stacks
 * @instance: the instance whose option is looked for, NULL for the top one
 *
 * Looks for the records (USTACK_SUPPORT_EVENTS: the format files of
 * ftrace:user_stack_cookie and ftrace:user_stack_deferred), the option
 * (USTACK_SUPPORT_OPTION: options/userstacktrace_defer in @instance) and
 * the trigger (USTACK_SUPPORT_TRIGGER: stacktrace:defer in tracefs'
 * README).
 *
 * Returns the mask of what it found (0: nothing), or -1 with errno ENODEV
 * when tracefs is not mounted.
 */
int ustack_kernel_support(struct tracefs_instance *instance)
{
	const char *dir = tracefs_tracing_dir();
	int ret = 0;
	char *readme;

	if (!dir) {
		ustack_err("tracefs is not mounted");
		errno = ENODEV;
		return -1;
	}
	/* tracing's own records: a format file, no enable file */
	if (path_exists(NULL, COOKIE_FORMAT, false) &&
	    path_exists(NULL, DEFERRED_FORMAT, false))
		ret |= USTACK_SUPPORT_EVENTS;
	if (path_exists(instance, OPTION_FILE, false))
		ret |= USTACK_SUPPORT_OPTION;
	readme = tracefs_instance_file_read(NULL, "README", NULL);
	if (readme && strstr(readme, TRIGGER))
		ret |= USTACK_SUPPORT_TRIGGER;
	free(readme);
	return ret;
}

/**
 * ustack_kernel_supported - whether the kernel has deferred user stacks
 * @instance: the instance whose option is looked for, NULL for the top one
 *
 * Returns true when ustack_kernel_support() finds both the records and
 * the option (the kernel's ABI; the README line is informative), false
 * otherwise, also when tracefs is not mounted.
 */
bool ustack_kernel_supported(struct tracefs_instance *instance)
{
	int ret = ustack_kernel_support(instance);

	/* The events and the option are the ABI; README is informative. */
	return ret >= 0 && (ret & USTACK_SUPPORT_EVENTS) &&
	       (ret & USTACK_SUPPORT_OPTION);
}

static int check_event(struct tracefs_instance *instance,
		       const char *system, const char *event)
{
	char rel[1024];

	if (!system || !event || !*system || !*event ||
	    strchr(system, '/') || strchr(event, '/')) {
		errno = EINVAL;
		return -1;
	}
	snprintf(rel, sizeof(rel), "events/%s/%s/trigger", system, event);
	if (!path_exists(instance, rel, false)) {
		ustack_err("event %s:%s has no trigger file", system, event);
		errno = ENOENT;
		return -1;
	}
	return 0;
}

static void report_error_log(struct tracefs_instance *instance)
{
	char *log = tracefs_error_last(instance);

	if (log && *log)
		ustack_err("tracefs error_log: %s", log);
	free(log);
}

/**
 * ustack_trigger_enable - ask for deferred user stacks on an event
 * @instance: the instance, NULL for the top one
 * @system: the event's system ("syscalls")
 * @event: the event ("sys_enter_getppid")
 * @count: how many times the trigger fires, 0 for no limit
 * @filter: only events that match this filter (without "if"), or NULL
 *
 * Writes "stacktrace:defer[:COUNT] [if FILTER]" to the event's trigger
 * file.  The event itself is not enabled: that is the caller's
 * (tracefs_event_enable()).  When the kernel refuses, the message names
 * the trigger and the last line of tracefs' error_log.
 *
 * Returns 0, or -1 with errno set: EINVAL for a bad argument (also a
 * negative @count, an empty @filter or one with a newline) or a trigger
 * the kernel rejects, ENOENT for an event without a trigger file, E2BIG
 * for a trigger too long to write.
 */
int ustack_trigger_enable(struct tracefs_instance *instance,
			  const char *system, const char *event,
			  int count, const char *filter)
{
	char buf[4096];
	int len, ret, err;

	if (check_event(instance, system, event) < 0)
		return -1;
	if (count < 0 || (filter && (strchr(filter, '\n') || !*filter))) {
		errno = EINVAL;
		return -1;
	}
	if (count > 0)
		len = snprintf(buf, sizeof(buf), TRIGGER ":%d", count);
	else
		len = snprintf(buf, sizeof(buf), TRIGGER);
	if (filter)
		len += snprintf(buf + len, sizeof(buf) - len, " if %s", filter);
	if (len >= (int)sizeof(buf)) {
		errno = E2BIG;
		return -1;
	}
	ret = tracefs_event_file_append(instance, system, event, "trigger", buf);
	if (ret < 0) {
		err = errno ? errno : EINVAL;
		ustack_err("cannot set '%s' on %s:%s: %s", buf, system, event,
			   strerror(err));
		report_error_log(instance);
		errno = err;
		return -1;
	}
	return 0;
}

/**
 * ustack_trigger_disable - stop asking for deferred user stacks on an event
 * @instance: the instance, NULL for the top one
 * @system: the event's system
 * @event: the event
 *
 * Removes the event's stacktrace:defer trigger ("!stacktrace:defer");
 * nothing to do when it has none.
 *
 * Returns 0, or -1 with errno set: EINVAL for a bad argument, ENOENT for
 * an event without a trigger file, or what writing the file gave.
 */
int ustack_trigger_disable(struct tracefs_instance *instance,
			   const char *system, const char *event)
{
	int ret, err;

	if (check_event(instance, system, event) < 0)
		return -1;
	if (ustack_trigger_is_enabled(instance, system, event) == 0)
		return 0;
	ret = tracefs_event_file_append(instance, system, event, "trigger",
					"!" TRIGGER);
	if (ret < 0) {
		err = errno ? errno : EINVAL;
		ustack_err("cannot remove " TRIGGER " from %s:%s: %s",
			   system, event, strerror(err));
		errno = err;
		return -1;
	}
	return 0;
}

/**
 * ustack_trigger_is_enabled - whether an event asks for deferred user stacks
 * @instance: the instance, NULL for the top one
 * @system: the event's system
 * @event: the event
 *
 * Returns 1 when the event's trigger file lists a stacktrace:defer
 * trigger, 0 when it does not, or -1 with errno set (EINVAL for a bad
 * argument, ENOENT for an event without a trigger file, or what reading
 * the file gave).
 */
int ustack_trigger_is_enabled(struct tracefs_instance *instance,
			      const char *system, const char *event)
{
	char *buf, *line, *save = NULL;
	int ret = 0;

	if (check_event(instance, system, event) < 0)
		return -1;
	buf = tracefs_event_file_read(instance, system, event, "trigger", NULL);
	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		if (!strncmp(line, TRIGGER, strlen(TRIGGER)) &&
		    (line[strlen(TRIGGER)] == ':' ||
		     line[strlen(TRIGGER)] == ' ' ||
		     line[strlen(TRIGGER)] == '\0')) {
			ret = 1;
			break;
		}
	}
	free(buf);
	return ret;
}

static int option_write(struct tracefs_instance *instance, const char *val)
{
	int ret;

	if (!path_exists(instance, OPTION_FILE, false)) {
		ustack_err("the kernel has no %s", OPTION_FILE);
		errno = ENOTSUP;
		return -1;
	}
	ret = tracefs_instance_file_write(instance, OPTION_FILE, val);
	return ret < 0 ? -1 : 0;
}

/**
 * ustack_option_enable - deferred user stacks for every event of an instance
 * @instance: the instance, NULL for the top one
 *
 * Sets options/userstacktrace_defer: each event recorded in @instance
 * asks for a deferred user stack (with the stacktrace option too, it
 * records its kernel stack as well).
 *
 * Returns 0, or -1 with errno set: ENOTSUP when the kernel has no such
 * option, or what writing the file gave.
 */
int ustack_option_enable(struct tracefs_instance *instance)
{
	return option_write(instance, "1");
}

/**
 * ustack_option_disable - clear userstacktrace_defer in an instance
 * @instance: the instance, NULL for the top one
 *
 * Returns 0, or -1 with errno set: ENOTSUP when the kernel has no such
 * option, or what writing the file gave.
 */
int ustack_option_disable(struct tracefs_instance *instance)
{
	return option_write(instance, "0");
}

/**
 * ustack_option_is_enabled - whether userstacktrace_defer is set
 * @instance: the instance, NULL for the top one
 *
 * Returns 1 when the option is set, 0 when it is not, or -1 with errno
 * set: ENOTSUP when the kernel has no such option, or what reading the
 * file gave.
 */
int ustack_option_is_enabled(struct tracefs_instance *instance)
{
	long long val;

	if (!path_exists(instance, OPTION_FILE, false)) {
		errno = ENOTSUP;
		return -1;
	}
	if (tracefs_instance_file_read_number(instance, OPTION_FILE, &val))
		return -1;
	return val ? 1 : 0;
}
