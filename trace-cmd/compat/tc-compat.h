/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Declarations of the libtracefs >= 1.7 and libtraceevent >= 1.9 functions
 * that trace-cmd 3.4 calls and that bookworm's libtracefs 1.6.4 and our
 * libtraceevent 1.8.4 lack.  tc-compat.c defines them as "not supported".
 *
 * rig/build-tracecmd.sh force-includes this header (-include) in every
 * trace-cmd 3.4 compilation unit, so the calls are not implicit
 * declarations.  The prototypes of the two tracefs functions and of the
 * three tep_btf_* / tep_load_btf ones are those of the upstream sources
 * (tracefs.h, libtraceevent's btf.c); for tep_load_modules() and
 * tep_parse_last_boot_info() no upstream header was at hand, so theirs
 * follow trace-cmd 3.4's only calls (lib/trace-cmd/trace-input.c: a
 * buffer and its size; a file name), whose return values it ignores.
 */
#ifndef _TC_COMPAT_H
#define _TC_COMPAT_H

#include <stddef.h>
#include <sys/types.h>

struct tracefs_instance;
struct tep_handle;
struct trace_seq;

/* libtracefs 1.7 (only utest calls it) */
int tracefs_instance_reset(struct tracefs_instance *instance);

/* libtracefs 1.8 */
ssize_t tracefs_instance_get_subbuf_size(struct tracefs_instance *instance);
int tracefs_instance_set_subbuf_size(struct tracefs_instance *instance, size_t size);

/* libtraceevent 1.9 */
int tep_load_btf(struct tep_handle *tep, void *raw_data, size_t data_size);
int tep_btf_list_args(struct tep_handle *tep, struct trace_seq *s, const char *func);
int tep_btf_print_args(struct tep_handle *tep, struct trace_seq *s, void *args,
		       int nmem, int size, const char *func);
int tep_load_modules(struct tep_handle *tep, const char *buf, size_t size);
int tep_parse_last_boot_info(struct tep_handle *tep, const char *file);

#endif /* _TC_COMPAT_H */
