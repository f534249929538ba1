/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The symbols JITs write for perf: perf-PID.map files (perfmap.c).
 */
#ifndef _USTACK_PERFMAP_H
#define _USTACK_PERFMAP_H

struct perfmaps;

void perfmaps_free(struct perfmaps *pm);
/*
 * The function of @addr in process @pid's perf-PID.map, looked for in
 * @dirs, then @tdirs, then /tmp (read once per process).  Returns its
 * name, and sets *offset (from the function) and *path (the map file);
 * NULL when no map, or no line of it, has the address.  *pm is
 * allocated on the first call.  The strings live until perfmaps_free().
 */
const char *perfmaps_lookup(struct perfmaps **pm, int pid,
			    unsigned long long addr, char **dirs, int nr_dirs,
			    char **tdirs, int nr_tdirs,
			    unsigned long long *offset, const char **path);

#endif
