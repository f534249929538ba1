/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The SFrame registrar's trace_marker lines: an object a process loaded
 * (dlopen()) or is about to unload, with the time of its ftrace:print
 * event.  sframe-gen/preload/maps.c writes them, libustack's loads.c
 * reads them; the two may be of different ages (a trace read by a later
 * libustack), so this file is the one definition of both sides:
 *
 *   ustack_map: open v=1 pid=TGID tid=TID base=0xBIAS build_id=HEX|- \
 *       segs=START-END@PGOFF[,...] path=PATH
 *   ustack_map: close v=1 pid=TGID tid=TID base=0xBIAS
 *
 * trace-cmd record (its series' patch 0019) writes, at the start of a
 * recording without a command, for each process already running, a
 * "synth" line before it reads the process's maps, then a "mapped" line
 * (an open line's fields) for each object mapped there: an object that
 * was there since the process's start or last exec:
 *
 *   ustack_map: synth v=1 pid=TGID tid=TID
 *   ustack_map: mapped v=1 pid=TGID tid=TID base=0xBIAS build_id=HEX|- \
 *       segs=START-END@PGOFF[,...] path=PATH
 *
 * v      USTACK_MAP_VERSION.  A reader takes the versions it knows and
 *        leaves the others (saying so once).  New fields may go before
 *        segs= in the same version (readers find fields by name); a
 *        change of what a field means is a new version.
 * pid    the process (its tgid), whose frames the object names.
 * tid    the thread that wrote the line (the registrar's thread in the
 *        process, or trace-cmd record's): the record's own pid
 *        (common_pid, which the kernel sets) must be it, or the line is
 *        not believed.
 * base   the load bias (link map's l_addr): what a close names.
 * segs   the pages of each PT_LOAD segment and where it starts in the
 *        file, as /proc/PID/maps shows them; at most USTACK_MAP_SEGS.
 * path   the file, absolute; last, to the end of the line.
 */
#ifndef _USTACK_MAP_LINE_H
#define _USTACK_MAP_LINE_H

#define USTACK_MAP_PREFIX	"ustack_map: "
#define USTACK_MAP_OPEN		USTACK_MAP_PREFIX "open "
#define USTACK_MAP_CLOSE	USTACK_MAP_PREFIX "close "
#define USTACK_MAP_SYNTH	USTACK_MAP_PREFIX "synth "
#define USTACK_MAP_MAPPED	USTACK_MAP_PREFIX "mapped "
#define USTACK_MAP_VERSION	1
#define USTACK_MAP_SEGS		16

/* printf() formats: version, tgid, tid, base (unsigned long) */
#define USTACK_MAP_OPEN_FMT	USTACK_MAP_OPEN "v=%d pid=%d tid=%d base=0x%lx build_id="
#define USTACK_MAP_CLOSE_FMT	USTACK_MAP_CLOSE "v=%d pid=%d tid=%d base=0x%lx\n"
#define USTACK_MAP_SYNTH_FMT	USTACK_MAP_SYNTH "v=%d pid=%d tid=%d\n"
#define USTACK_MAP_MAPPED_FMT	USTACK_MAP_MAPPED "v=%d pid=%d tid=%d base=0x%llx build_id="
/* after the build ID: " segs=" then START-END@PGOFF joined by ",", then the path */
#define USTACK_MAP_SEGS_KEY	" segs="
#define USTACK_MAP_SEG_FMT	"%lx-%lx@%lx"
#define USTACK_MAP_PATH_KEY	" path="

#endif /* _USTACK_MAP_LINE_H */
