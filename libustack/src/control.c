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

int ustack_option_enable(struct tracefs_instance *instance)
{
	return option_write(instance, "1");
}

int ustack_option_disable(struct tracefs_instance *instance)
{
	return option_write(instance, "0");
}

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
