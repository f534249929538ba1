// SPDX-License-Identifier: GPL-2.0
/*
 * Control tests against a fake tracefs tree (plain files in a temporary
 * directory, set with tracefs_set_tracing_dir()): the host's tracefs is
 * not usable, the real kernel behaviour is tested in the guest.
 *
 * usage: test-control TMPDIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ustack.h"

#include "check.h"

static char root[4096];

static void put(const char *rel, const char *text)
{
	char path[8192], *p;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!text) {
		mkdir(path, 0755);
		return;
	}
	fp = fopen(path, "w");
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void rm(const char *rel)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
}

static char *get(const char *rel)
{
	static char buf[4096];
	char path[8192];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void make_tree(void)
{
	put("README", "  trigger\t\t- ...\n\t  stacktrace:defer[:count] [if filter]\n");
	/* tracing's own records: a format file only, no id or enable file */
	put("events/ftrace/user_stack_cookie/format", "name: user_stack_cookie\n");
	put("events/ftrace/user_stack_deferred/format", "name: user_stack_deferred\n");
	put("events/syscalls/sys_enter_getppid/trigger",
	    "# Available triggers:\n# traceon traceoff snapshot stacktrace\n");
	put("options/userstacktrace_defer", "0\n");
	put("instances/inst1/options/userstacktrace_defer", "0\n");
	put("instances/inst1/events/syscalls/sys_enter_getppid/trigger",
	    "# Available triggers:\n");
	put("instances/inst1/error_log", "");
	put("error_log", "");
}

int main(int argc, char **argv)
{
	struct tracefs_instance *inst;
	char *s;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TMPDIR\n", argv[0]);
		return 2;
	}
	snprintf(root, sizeof(root), "%s", argv[1]);
	make_tree();
	if (tracefs_set_tracing_dir(root)) {
		printf("FAIL: cannot use %s as tracefs\n", root);
		return 1;
	}
	inst = tracefs_instance_alloc(root, "inst1");

	begin("support detection");
	CHECK(ustack_kernel_support(NULL) == (USTACK_SUPPORT_EVENTS |
		USTACK_SUPPORT_OPTION | USTACK_SUPPORT_TRIGGER),
	      "support 0x%x", ustack_kernel_support(NULL));
	CHECK(ustack_kernel_supported(NULL) && ustack_kernel_supported(inst),
	      "supported");
	end();

	begin("trigger with count and filter, in the top instance and another");
	CHECK(ustack_trigger_is_enabled(NULL, "syscalls", "sys_enter_getppid") == 0,
	      "enabled before");
	put("events/syscalls/sys_enter_getppid/trigger",
	    "# Available triggers:\nstacktrace:unlimited\n");
	CHECK(ustack_trigger_is_enabled(NULL, "syscalls", "sys_enter_getppid") == 0,
	      "plain stacktrace taken for stacktrace:defer");
	/* plain files: a write lands at offset 0, start them empty */
	put("events/syscalls/sys_enter_getppid/trigger", "");
	CHECK(ustack_trigger_enable(NULL, "syscalls", "sys_enter_getppid", 5,
				    "common_pid == 42") == 0, "enable: %s",
	      strerror(errno));
	s = get("events/syscalls/sys_enter_getppid/trigger");
	CHECK(s && !strcmp(s, "stacktrace:defer:5 if common_pid == 42"),
	      "written: %s", s);
	CHECK(ustack_trigger_is_enabled(NULL, "syscalls", "sys_enter_getppid") == 1,
	      "not seen as enabled");
	CHECK(ustack_trigger_disable(NULL, "syscalls", "sys_enter_getppid") == 0,
	      "disable");
	s = get("events/syscalls/sys_enter_getppid/trigger");
	CHECK(s && !strncmp(s, "!stacktrace:defer", 17), "written: %s", s);
	put("instances/inst1/events/syscalls/sys_enter_getppid/trigger", "");
	CHECK(ustack_trigger_enable(inst, "syscalls", "sys_enter_getppid", 0,
				    NULL) == 0, "instance enable");
	s = get("instances/inst1/events/syscalls/sys_enter_getppid/trigger");
	CHECK(s && !strcmp(s, "stacktrace:defer"), "instance written: %s", s);
	CHECK(ustack_trigger_is_enabled(inst, "syscalls", "sys_enter_getppid") == 1,
	      "instance enabled");
	end();

	begin("bad trigger arguments");
	ustack_set_loglevel(TEP_LOG_NONE);
	CHECK(ustack_trigger_enable(NULL, "syscalls", "no_such_event", 0,
				    NULL) < 0 && errno == ENOENT, "no event");
	CHECK(ustack_trigger_enable(NULL, "sys/../x", "e", 0, NULL) < 0 &&
	      errno == EINVAL, "slash");
	CHECK(ustack_trigger_enable(NULL, "syscalls", "sys_enter_getppid", -1,
				    NULL) < 0 && errno == EINVAL, "count");
	CHECK(ustack_trigger_enable(NULL, "syscalls", "sys_enter_getppid", 0,
				    "a\nb") < 0 && errno == EINVAL, "newline");
	CHECK(ustack_trigger_enable(NULL, NULL, "x", 0, NULL) < 0, "NULL");
	ustack_set_loglevel(TEP_LOG_WARNING);
	end();

	begin("option on and off");
	CHECK(ustack_option_is_enabled(NULL) == 0, "on before");
	CHECK(ustack_option_enable(NULL) == 0, "enable");
	s = get("options/userstacktrace_defer");
	CHECK(s && s[0] == '1', "written: %s", s);
	CHECK(ustack_option_is_enabled(NULL) == 1, "is_enabled");
	CHECK(ustack_option_disable(NULL) == 0, "disable");
	CHECK(ustack_option_is_enabled(NULL) == 0, "is_enabled after");
	CHECK(ustack_option_enable(inst) == 0, "instance enable");
	s = get("instances/inst1/options/userstacktrace_defer");
	CHECK(s && s[0] == '1', "instance written: %s", s);
	s = get("options/userstacktrace_defer");
	CHECK(s && s[0] == '0', "top changed: %s", s);
	end();

	begin("a kernel of the pre-release series (events/unwind) is not supported");
	put("events/unwind/user_stack_cookie/format", "name: user_stack_cookie\n");
	put("events/unwind/user_stack_deferred/format", "name: user_stack_deferred\n");
	rm("events/ftrace/user_stack_cookie/format");
	CHECK(ustack_kernel_support(NULL) == (USTACK_SUPPORT_OPTION |
		USTACK_SUPPORT_TRIGGER), "support 0x%x",
	      ustack_kernel_support(NULL));
	CHECK(!ustack_kernel_supported(NULL), "supported");
	put("events/ftrace/user_stack_cookie/format", "name: user_stack_cookie\n");
	CHECK(ustack_kernel_supported(NULL), "the final records not supported");
	end();

	begin("a kernel without deferred user stacks");
	rm("options/userstacktrace_defer");
	put("README", "nothing here\n");
	CHECK(ustack_kernel_support(NULL) == USTACK_SUPPORT_EVENTS,
	      "support 0x%x", ustack_kernel_support(NULL));
	CHECK(!ustack_kernel_supported(NULL), "supported");
	ustack_set_loglevel(TEP_LOG_NONE);
	CHECK(ustack_option_enable(NULL) < 0 && errno == ENOTSUP, "enable");
	CHECK(ustack_option_is_enabled(NULL) < 0, "is_enabled");
	ustack_set_loglevel(TEP_LOG_WARNING);
	end();

	tracefs_instance_free(inst);
	return failures ? 1 : 0;
}
