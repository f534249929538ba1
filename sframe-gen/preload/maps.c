// SPDX-License-Identifier: LGPL-2.1
/*
 * Maps at the time they applied: a process's /proc/PID/maps read at the
 * end of a recording (or at an exec) misses every object dlopen()ed and
 * dlclose()d in between, and ftrace has no event that carries a
 * mapping's file.  The loader tells an audit module of each object it
 * maps and of each it is about to unmap, so when SFREG_MAPS_MARKER names
 * a tracefs trace_marker file (trace-cmd record -T sets it), write one
 * line there for each object loaded after start (the objects loaded with
 * the program are in its maps, and stay until exit), as an audit module
 * only (LD_PRELOAD sees no dlopen()).  The lines are an ABI between this
 * writer and libustack, its reader: libustack's ustack.h (USTACK_MAP_*)
 * defines them (a version, the process and the writing thread, the load
 * bias, the build ID, the segments, the path).
 *
 * START-END are the pages each PT_LOAD segment occupies and PGOFF where
 * it starts in the file, as /proc/PID/maps would show them; the event's
 * time stamp says when.  libustack reads them back (execs.c) and names a
 * frame in the objects mapped at its event's time.  One write(2) a line,
 * so a line is one event; every failure is ignored and errno kept: the
 * program must not notice.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"
#include <ustack.h>

#define SFREG_MARKER_LINE	4096	/* trace_marker takes about this much */

static int marker_fd = -2;		/* -2: not opened yet */

/* The objects announced, so that only their unmapping is */
static uintptr_t open_bases[1024];
static int nr_open;
/* _dl_fini() runs: what is still loaded stays mapped until exit_group() */
static int exiting;

static int marker(void)
{
	const char *path;

	if (marker_fd != -2)
		return marker_fd;
	path = getenv("SFREG_MAPS_MARKER");
	marker_fd = path && *path ?
		open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY) : -1;
	return marker_fd;
}

/* Whether loads are to be written at all (SFREG_MAPS_MARKER opens) */
int sfreg_maps_wanted(void)
{
	int saved = errno, ret = marker() >= 0;

	errno = saved;
	return ret;
}

/* Append to @buf (@len used of @size); false once it does not fit */
static int __attribute__((format(printf, 4, 5)))
put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *len)
		return 0;
	*len += n;
	return 1;
}

/* Write a whole line or nothing: a cut line would be misread */
static void emit(const char *line, size_t len)
{
	int fd = marker();

	if (fd >= 0 && write(fd, line, len) < 0)
		return;
}

void sfreg_maps_open(const char *path, uintptr_t base,
		     const struct sfreg_load *loads, int nr,
		     const unsigned char *build_id, unsigned int build_id_len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	char line[SFREG_MARKER_LINE];
	size_t len = 0;
	unsigned int b;
	int saved = errno, ok, i;

	if (marker() < 0 || !nr)
		goto out;
	ok = put(line, sizeof(line), &len, USTACK_MAP_OPEN_FMT,
		 USTACK_MAP_VERSION, (int)getpid(), (int)gettid(),
		 (unsigned long long)base);
	for (b = 0; ok && b < build_id_len; b++)
		ok = put(line, sizeof(line), &len, "%02x", build_id[b]);
	if (ok && !build_id_len)
		ok = put(line, sizeof(line), &len, USTACK_MAP_NO_BUILD_ID);
	for (i = 0; ok && i < nr && i < USTACK_MAP_SEGS; i++) {
		uintptr_t start = (base + loads[i].vaddr) & ~(page - 1);
		uintptr_t end = (base + loads[i].vaddr + loads[i].memsz +
				 page - 1) & ~(page - 1);

		ok = put(line, sizeof(line), &len, "%s",
			 i ? USTACK_MAP_SEG_SEP : USTACK_MAP_SEGS_KEY) &&
		     put(line, sizeof(line), &len, USTACK_MAP_SEG_FMT,
			 (unsigned long long)start, (unsigned long long)end,
			 (unsigned long long)(loads[i].offset & ~(page - 1)));
	}
	if (ok)
		ok = put(line, sizeof(line), &len, USTACK_MAP_PATH_KEY "%s\n",
			 path);
	if (ok && !strchr(path, '\n') &&
	    nr_open < (int)(sizeof(open_bases) / sizeof(open_bases[0]))) {
		open_bases[nr_open++] = base;
		emit(line, len);
	}
out:
	errno = saved;
}

/*
 * The process exits (the loader closes the program itself, which
 * _dl_fini() does first): the loader now closes every object, but none
 * is unmapped before exit_group(), and the frames of the exit path (a
 * library that calls exit(), its destructors) are still in them; no
 * close is written from now on
 */
void sfreg_maps_exiting(void)
{
	exiting = 1;
}

void sfreg_maps_close(uintptr_t base)
{
	char line[128];
	size_t len = 0;
	int saved = errno, i;

	if (exiting)
		return;
	for (i = 0; i < nr_open && open_bases[i] != base; i++)
		;
	if (i == nr_open)
		return;
	open_bases[i] = open_bases[--nr_open];
	if (marker() >= 0 &&
	    put(line, sizeof(line), &len, USTACK_MAP_CLOSE_FMT,
		USTACK_MAP_VERSION, (int)getpid(), (int)gettid(),
		(unsigned long long)base))
		emit(line, len);
	errno = saved;
}
