// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a trace.dat file through ustack_file_open(), the join
 * of every buffer instance, and the symbol lookups of every frame (maps
 * and kallsyms saved in the file).  Seeds: the synthetic traces and the
 * recorded fixtures.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <trace-cmd.h>

#include "tracefs-ext.h"

static int frames_cb(const struct ustack_event *ev, void *data)
{
	struct ustack_syms *syms = data;
	char buf[512];
	int i;

	for (i = 0; i < ev->nr_kernel; i++)
		ustack_syms_format_kernel(syms, ev->kernel[i], buf, sizeof(buf));
	for (i = 0; i < ev->nr_user; i++)
		ustack_syms_format(syms, ev->tgid, ev->user[i], buf, sizeof(buf));
	if (ev->event && ev->record->size < 0)
		abort();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ustack_set_loglevel(TEP_LOG_NONE);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	tracefs_set_loglevel(TEP_LOG_NONE);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ustack_join_stats st;
	struct ustack_syms *syms;
	struct ustack_file *file;
	char path[64];
	int fd;

	fd = memfd_create("fuzz.dat", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	file = ustack_file_open(path);
	close(fd);
	if (!file)
		return 0;
	syms = ustack_syms_alloc();
	/* no search dirs: only absolute paths named in the maps */
	ustack_syms_set_file(syms, file);
	ustack_file_set_limits(file, 64, 1024, 64);
	ustack_file_iterate(file, -1, frames_cb, syms, &st);
	ustack_syms_free(syms);
	ustack_file_close(file);
	return 0;
}
