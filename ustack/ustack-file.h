/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A trace.dat file read with libtracecmd (file.c): the ustack tool's
 * source, built into the tool and, beside libustack.a, into the two
 * plugins.  Not libustack's API: the library reads no file and does not
 * link libtracecmd, so trace-cmd can link the library without a cycle
 * (Documentation/decisions.md, "No package cycle").  Described in
 * ustack(1)'s SOURCES section.
 */
#ifndef _USTACK_FILE_H
#define _USTACK_FILE_H

#include "ustack.h"

struct tracecmd_input;
struct ustack_file;

struct ustack_file *ustack_file_open(const char *path);
void ustack_file_close(struct ustack_file *file);
struct tep_handle *ustack_file_tep(struct ustack_file *file);
struct tracecmd_input *ustack_file_handle(struct ustack_file *file);
int ustack_file_instances(struct ustack_file *file);
const char *ustack_file_instance_name(struct ustack_file *file, int index);
int ustack_file_set_limits(struct ustack_file *file, size_t max_cookies,
			   size_t max_events, size_t max_tasks);
int ustack_file_set_flags(struct ustack_file *file, unsigned int flags);
int ustack_file_iterate(struct ustack_file *file, int index,
			ustack_join_cb cb, void *data,
			struct ustack_join_stats *stats);
/* the file's maps (ustack_syms_set_map_func() and
 * ustack_syms_set_image_map_func() on its handle), execs and loads
 * (ustack_syms_add_record() on each record), kallsyms, directory */
int ustack_syms_set_file(struct ustack_syms *syms, struct ustack_file *file);
int ustack_syms_set_tracecmd(struct ustack_syms *syms,
			     struct tracecmd_input *handle);
int ustack_syms_load_execs(struct ustack_syms *syms, const char *path);

#endif /* _USTACK_FILE_H */
