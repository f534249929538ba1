/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What libustack needs from a libtracecmd that predates our
 * trace-cmd series (Debian bookworm's, of trace-cmd 3.1.6), in one place,
 * to be dropped with it.  The Makefile defines USTACK_TRACECMD_MAPS when
 * trace-cmd.h declares the saved process maps' API (trace-cmd 3.4 with
 * trace-cmd/patches/0007); then none of this is used.
 */
#ifndef _USTACK_TRACECMD_COMPAT_H
#define _USTACK_TRACECMD_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <trace-cmd.h>

#ifndef USTACK_TRACECMD_MAPS
/*
 * libtracecmd 3.1.6 exports tracecmd_search_task_map() and declares it,
 * and its result, in its private header only.  Its layout, as there.
 */
struct tracecmd_proc_addr_map {
	size_t	start;
	size_t	end;
	char	*lib_name;
};

struct tracecmd_proc_addr_map *
tracecmd_search_task_map(struct tracecmd_input *handle,
			 int pid, unsigned long long addr);

static inline unsigned long long
tracecmd_proc_addr_map_start(struct tracecmd_proc_addr_map *map)
{
	return map ? map->start : 0;
}

static inline unsigned long long
tracecmd_proc_addr_map_end(struct tracecmd_proc_addr_map *map)
{
	return map ? map->end : 0;
}

static inline const char *
tracecmd_proc_addr_map_name(struct tracecmd_proc_addr_map *map)
{
	return map ? map->lib_name : NULL;
}

/* 3.1.6 does not read the build IDs trace-cmd saves after the name */
static inline const char *
tracecmd_proc_addr_map_build_id(struct tracecmd_proc_addr_map *map)
{
	(void)map;
	return NULL;
}

/*
 * libtracecmd 3.1.6 crashed, in earlier fuzzing, on some files with a
 * damaged header while opening them (its cleanup after the failed open
 * walked CPU data that was never allocated): open a file in a child
 * first (file.c).  Not needed with trace-cmd 3.4: its ASan build reads
 * every damaged copy of the test suite.
 */
#define USTACK_PROBE_OPEN	1
#endif

#ifndef USTACK_TRACECMD_MAP_EXECS
/*
 * A libtracecmd without the maps saved before an exec (trace-cmd
 * 3.1.6, or 3.4 before patch 0012 of our series): only the maps at the
 * end are there, and whether a process has them is not known.
 */
static inline struct tracecmd_proc_addr_map *
tracecmd_search_task_map_execs(struct tracecmd_input *handle,
			       int pid, int execs, unsigned long long addr)
{
	return execs ? NULL : tracecmd_search_task_map(handle, pid, addr);
}

static inline bool tracecmd_task_map_saved(struct tracecmd_input *handle,
					   int pid, int execs)
{
	(void)handle;
	(void)pid;
	return !execs;
}
#endif

#ifndef USTACK_TRACECMD_MAP_PGOFF
/*
 * A libtracecmd that does not read where a mapping starts in its file
 * (3.1.6, or 3.4 before patch 0016 of our series)
 */
static inline int
tracecmd_proc_addr_map_pgoff(struct tracecmd_proc_addr_map *map,
			     unsigned long long *pgoff)
{
	(void)map;
	(void)pgoff;
	return -1;
}
#endif

#endif /* _USTACK_TRACECMD_COMPAT_H */
