// SPDX-License-Identifier: LGPL-2.1
/*
 * trace-cmd 3.4 on bookworm: the functions it needs from libtracefs >= 1.8
 * and libtraceevent >= 1.9 that bookworm's libtracefs 1.6.4 and the
 * libtraceevent 1.8.4 we build lack.  Each answers the way a library or
 * kernel without the feature does, so trace-cmd takes the path it already
 * has for older systems.  Linked into libtracecmd and trace-cmd by
 * rig/build-tracecmd.sh; nothing else.
 */
#include <errno.h>
#include <trace-seq.h>

#include "tc-compat.h"

/*
 * No sub-buffer size: what libtracefs returns when the kernel has no
 * buffer_subbuf_size_kb (before 6.8).  trace-stat prints the size only if
 * it is > 0; trace-record calls it only for --subbuf-size, keeps the -1 as
 * the "old" size and hands it back to the setter below on reset, which
 * fails harmlessly.
 */
ssize_t tracefs_instance_get_subbuf_size(struct tracefs_instance *instance)
{
	(void)instance;
	errno = ENOTSUP;
	return -1;
}

/*
 * Cannot set it: trace-record (--subbuf-size) warns "Can't set sub-buffer
 * size" and records with the kernel's default sub-buffer size, as on a
 * kernel without the file; its reset path ignores the result.
 */
int tracefs_instance_set_subbuf_size(struct tracefs_instance *instance, size_t size)
{
	(void)instance;
	(void)size;
	errno = ENOTSUP;
	return -1;
}

/*
 * No BTF parser: "trace-cmd list -f --full" frees the handle and lists
 * functions without arguments (its path for a missing /sys/kernel/btf);
 * trace-input's read_btf() ignores the result, so a trace.dat with a BTF
 * section reads as if it had none.
 */
int tep_load_btf(struct tep_handle *tep, void *raw_data, size_t data_size)
{
	(void)tep;
	(void)raw_data;
	(void)data_size;
	errno = ENOTSUP;
	return -1;
}

/*
 * No prototype known: upstream returns -1 for a function it cannot find,
 * and trace-list then prints the bare name.  (It is not reached here:
 * tep_load_btf() above fails first.)
 */
int tep_btf_list_args(struct tep_handle *tep, struct trace_seq *s, const char *func)
{
	(void)tep;
	(void)s;
	(void)func;
	errno = ENOTSUP;
	return -1;
}

/*
 * Function-graph arguments with no BTF loaded: upstream then writes the
 * raw values in hex, ", " apart, and returns 0; so do we, so that the
 * arguments are shown rather than lost.  trace-ftrace's print_args()
 * ignores the result and has already written "func(".  Only sizes 4 and 8
 * are valid, as upstream.
 */
int tep_btf_print_args(struct tep_handle *tep, struct trace_seq *s, void *args,
		       int nmem, int size, const char *func)
{
	unsigned long long val;
	int i;

	(void)tep;
	if (!func || (args && size != 4 && size != 8)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; args && i < nmem; i++) {
		if (size == 4)
			val = ((unsigned int *)args)[i];
		else
			val = ((unsigned long long *)args)[i];
		trace_seq_printf(s, "%llx", val);
		if (i + 1 < nmem)
			trace_seq_puts(s, ", ");
	}
	return 0;
}

/*
 * No module address table: trace-input's read_modules() ignores the
 * result, so addresses in modules print as they did before trace.dat
 * files carried a modules section (kallsyms only).
 */
int tep_load_modules(struct tep_handle *tep, const char *buf, size_t size)
{
	(void)tep;
	(void)buf;
	(void)size;
	errno = ENOTSUP;
	return -1;
}

/*
 * Last-boot info (the persistent ring buffer's previous boot) not parsed:
 * trace-input ignores the result; addresses from the last boot then print
 * unadjusted, as with an older library.
 */
int tep_parse_last_boot_info(struct tep_handle *tep, const char *file)
{
	(void)tep;
	(void)file;
	errno = ENOTSUP;
	return -1;
}

/*
 * libtracefs 1.7: only trace-cmd's unit tests (utest) call it, to clean
 * up after their histogram test.  No reset: the tests that follow run on
 * whatever that test left (a synthetic event, histogram triggers), and
 * "trace-cmd reset", which they run themselves, clears what they check.
 */
int tracefs_instance_reset(struct tracefs_instance *instance)
{
	(void)instance;
	errno = ENOTSUP;
	return -1;
}
