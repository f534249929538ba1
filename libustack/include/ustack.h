/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libustack: deferred user-space stack traces for ftrace.
 *
 * Control of the stacktrace:defer trigger and the userstacktrace_defer
 * option, a join of each event with its kernel stack and its deferred
 * user stack, sources reading live from tracefs or from a trace.dat file,
 * and symbol resolution of the frames.
 *
 * Every function that can fail returns -1 (or NULL) and sets errno.
 */
#ifndef _USTACK_H
#define _USTACK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <event-parse.h>
#include <tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

#define USTACK_VERSION_MAJOR	1
#define USTACK_VERSION_MINOR	0

/*
 * Messages of the library at or below this level go to libtraceevent's
 * tep_vprint() (name "libustack"), as libtracefs' do.
 */
void ustack_set_loglevel(enum tep_loglevel level);

/* ---- control (ustack_control(3)) ---- */

enum ustack_support {
	/* events/ftrace/user_stack_cookie and user_stack_deferred exist */
	USTACK_SUPPORT_EVENTS	= 1 << 0,
	/* options/userstacktrace_defer exists in the instance */
	USTACK_SUPPORT_OPTION	= 1 << 1,
	/* the tracefs README documents the stacktrace:defer trigger */
	USTACK_SUPPORT_TRIGGER	= 1 << 2,
};

int ustack_kernel_support(struct tracefs_instance *instance);
bool ustack_kernel_supported(struct tracefs_instance *instance);

int ustack_trigger_enable(struct tracefs_instance *instance,
			  const char *system, const char *event,
			  int count, const char *filter);
int ustack_trigger_disable(struct tracefs_instance *instance,
			   const char *system, const char *event);
int ustack_trigger_is_enabled(struct tracefs_instance *instance,
			      const char *system, const char *event);

int ustack_option_enable(struct tracefs_instance *instance);
int ustack_option_disable(struct tracefs_instance *instance);
int ustack_option_is_enabled(struct tracefs_instance *instance);

/* ---- join (ustack_join(3)) ---- */

enum ustack_status {
	/* the user stack arrived, complete */
	USTACK_COMPLETE		= 0,
	/* the user stack arrived but the kernel cut it short */
	USTACK_TRUNCATED,
	/* the user stack arrived with no frames (the unwind failed) */
	USTACK_EMPTY,
	/* a cookie was recorded but its user stack never arrived
	 * (tracing stopped first, events were lost, or it was evicted) */
	USTACK_NEVER_ARRIVED,
	/* no cookie: a kernel thread or user worker, or an event that
	 * did not ask for a user stack */
	USTACK_NO_COOKIE,
	/* the kernel could not ask for the user stack and said so in the
	 * cookie record (NO_USER_STACK); none will come */
	USTACK_LOST,
};

const char *ustack_status_name(enum ustack_status status);

/* ustack_event.flags */
enum {
	/* a late request: asked after its kernel entry's user stack was
	 * taken, and given that stack, by the join (the cookie had been
	 * delivered already) or by the kernel from the task's cache (the
	 * user stack record's LATE flag) */
	USTACK_EV_LATE		= 1 << 0,
	/* NEVER_ARRIVED because the memory limit pushed it out */
	USTACK_EV_EVICTED	= 1 << 1,
	/* with USTACK_JOIN_UNSEEN_EVENTS: the request's cookie
	 * record is in the trace but not the event that asked (filtered
	 * out, or not read); event is NULL and record is the cookie record */
	USTACK_EV_UNSEEN	= 1 << 2,
};

struct ustack_event {
	const char		*instance;	/* "" for the top instance */
	struct tep_handle	*tep;		/* may be NULL */
	struct tep_event	*event;		/* format of the event, or NULL */
	struct tep_record	*record;	/* a copy of the event (of its
					 * cookie record: USTACK_EV_UNSEEN) */
	unsigned long long	ts;
	int			cpu;
	int			pid;		/* thread id (common_pid) */
	int			tgid;		/* -1 unless the user stack came */
	unsigned long long	cookie;		/* 0 when none */
	enum ustack_status	status;
	unsigned int		flags;
	int			nr_kernel;
	const unsigned long long *kernel;	/* innermost first */
	int			nr_user;
	const unsigned long long *user;		/* innermost first */
	/* the frames the unwinder found, more than nr_user when
	 * the status is USTACK_TRUNCATED; 0 unless the user stack came */
	unsigned int		depth;
	/* where the records of this request are, as the reader
	 * gave them in tep_record.offset (in a trace.dat, the file offset,
	 * for tracecmd_read_at() or a KernelShark entry's offset); 0 when
	 * there is no such record.  record->offset is the event's own (its
	 * cookie record's with USTACK_EV_UNSEEN). */
	unsigned long long	cookie_offset;	/* its user_stack_cookie */
	unsigned long long	stack_offset;	/* the user_stack_deferred
						 * whose frames are user[] */
	/* USTACK_UNWINDER_* bits, from the user stack record;
	 * 0 unless the user stack came */
	unsigned int		unwinder;
};

/*
 * ustack_event.unwinder: which user unwinders found frames
 * below the topmost one, as the kernel says in the user stack record
 * (its flags UNWIND_FP and UNWIND_SFRAME).  0: only the interrupted
 * address, a failed unwind, or a kernel that does not say.
 */
enum {
	USTACK_UNWINDER_FP	= 1 << 0,	/* frame pointers */
	USTACK_UNWINDER_SFRAME	= 1 << 1,	/* .sframe sections */
};

/* "sframe", "sframe+fp", "fp" or "" (none said) */
const char *ustack_unwinder_name(unsigned int unwinder);

/* Return 0 to go on, non-zero to stop the source that feeds the join. */
typedef int (*ustack_join_cb)(const struct ustack_event *ev, void *data);

struct ustack_join_stats {
	unsigned long long	records;	/* records fed */
	unsigned long long	delivered;	/* events delivered */
	unsigned long long	complete;
	unsigned long long	truncated;
	unsigned long long	empty;
	unsigned long long	never_arrived;
	unsigned long long	no_cookie;
	unsigned long long	evicted;	/* part of never_arrived */
	unsigned long long	late;		/* served from the entry cache */
	unsigned long long	early_stacks;	/* user stack before its cookie */
	unsigned long long	orphan_stacks;	/* user stacks nobody asked for */
	unsigned long long	stray;		/* stack/cookie without an event */
	unsigned long long	pending_cookies;	/* now */
	unsigned long long	pending_events;		/* now */
	unsigned long long	peak_cookies;
	unsigned long long	peak_events;
	/* signs of a damaged trace */
	unsigned long long	bad_kernel_frames;	/* not kernel text */
	unsigned long long	bad_user_frames;	/* not a user address */
	unsigned long long	malformed;	/* records at odds with their format */
	/* USTACK_LOST, the kernel said no user stack would come */
	unsigned long long	lost;
	unsigned long long	reserved[4];	/* zero; room to grow */
};

/*
 * ustack_frame_plausible(): which side of the address space, and (or'd
 * in) whose rules: x86-64 unless USTACK_FRAME_S390X
 */
enum {
	USTACK_FRAME_USER	= 0,
	USTACK_FRAME_KERNEL	= 1,
	USTACK_FRAME_S390X	= 2,
};

int ustack_frame_plausible(unsigned long long addr, int kernel);

/**
 * ustack_frame_arch - the ustack_frame_plausible() rules of a trace
 * @tep: the event formats the trace was read with
 *
 * A 64-bit big-endian trace is s390x's (the only such architecture with
 * deferred user stacks).
 *
 * Returns USTACK_FRAME_S390X for such a trace, else 0 (x86-64's rules).
 */
static inline int ustack_frame_arch(struct tep_handle *tep)
{
	return tep && tep_is_file_bigendian(tep) && tep_get_long_size(tep) == 8 ?
	       USTACK_FRAME_S390X : 0;
}

/*
 * A kernel frame inside an ftrace trampoline: the kernel writes this
 * instead of the address (its FTRACE_TRAMPOLINE_MARKER, INT_MAX).  It is
 * plausible, but no address to look up.
 */
#define USTACK_FTRACE_TRAMPOLINE	0x7fffffffULL

/* how the printers show such a frame, and one that cannot be
 * a return address (after its address) */
#define USTACK_TRAMPOLINE_TEXT		"[ftrace trampoline]"
#define USTACK_BAD_FRAME_TEXT		"[not an address]"

/* ustack_join_set_flags() */
enum {
	/* also deliver events that have neither kernel stack nor cookie */
	USTACK_JOIN_ALL_EVENTS	= 1 << 0,
	/* also deliver a cookie record whose asking event is not
	 * in the trace, as an event of its own (USTACK_EV_UNSEEN) */
	USTACK_JOIN_UNSEEN_EVENTS = 1 << 1,
};

#define USTACK_DEFAULT_MAX_COOKIES	65536
#define USTACK_DEFAULT_MAX_EVENTS	(1 << 20)
#define USTACK_DEFAULT_MAX_TASKS	4096
/* the events per CPU that the join keeps open for the cookie
 * record that may follow (the newest of its task is the one that asked) */
#define USTACK_JOIN_MAX_OPEN		8

struct ustack_join;

struct ustack_join *ustack_join_alloc(struct tep_handle *tep,
				      ustack_join_cb cb, void *data);
void ustack_join_free(struct ustack_join *join);
int ustack_join_set_limits(struct ustack_join *join, size_t max_cookies,
			   size_t max_events, size_t max_tasks);
int ustack_join_set_flags(struct ustack_join *join, unsigned int flags);
int ustack_join_set_instance(struct ustack_join *join, const char *name);
int ustack_join_add_record(struct ustack_join *join, struct tep_record *record);
int ustack_join_add_file_record(struct ustack_join *join,
				struct tep_record *record);
int ustack_join_flush(struct ustack_join *join);
/* the one feeder: the page check, then @syms and @join (either NULL) */
struct ustack_syms;
int ustack_feed_record(struct ustack_join *join, struct ustack_syms *syms,
		       struct tep_handle *tep, struct tep_record *record);
/* how the join holds the event of the record at offset on
 * cpu; 0 when it does not (delivered, dropped, never seen) */
enum {
	USTACK_HELD_OPEN	= 1,	/* nothing attached yet */
	USTACK_HELD_KERNEL	= 2,	/* its kernel stack, no cookie */
	USTACK_HELD_PENDING	= 3,	/* waits for its user stack */
};
int ustack_join_holds(struct ustack_join *join, int cpu,
		      unsigned long long offset);
int ustack_join_get_stats(struct ustack_join *join,
			  struct ustack_join_stats *stats);

/* ---- live source (ustack_live(3)); a trace file is read by its host,
 * which feeds ustack_join_add_record() ---- */

struct ustack_live;

struct ustack_live *ustack_live_open(struct tracefs_instance *instance,
				     ustack_join_cb cb, void *data);
void ustack_live_close(struct ustack_live *live);
struct tep_handle *ustack_live_tep(struct ustack_live *live);
struct ustack_join *ustack_live_join(struct ustack_live *live);
int ustack_live_read(struct ustack_live *live);
int ustack_live_run(struct ustack_live *live, int duration_ms);
void ustack_live_stop(struct ustack_live *live);
int ustack_live_flush(struct ustack_live *live);

/* ---- symbols (ustack_syms(3)) ---- */

struct ustack_sym {
	const char		*name;		/* symbol, NULL when unknown */
	unsigned long long	offset;		/* from name, or from file base */
	const char		*file;		/* mapped file, NULL if no map */
	unsigned long long	file_addr;	/* address in the file's terms */
};

struct ustack_syms;

struct ustack_syms *ustack_syms_alloc(void);
void ustack_syms_free(struct ustack_syms *syms);
int ustack_syms_add_map(struct ustack_syms *syms, int pid,
			unsigned long long start, unsigned long long end,
			unsigned long long pgoff, const char *file);
int ustack_syms_load_pid(struct ustack_syms *syms, int pid);
int ustack_syms_add_search_dir(struct ustack_syms *syms, const char *dir);
int ustack_syms_add_trace_dir(struct ustack_syms *syms, const char *dir);
/*
 * Maps kept by the caller.  Fills @map for the file mapped at
 * @addr in process @pid and returns 1, or returns 0 (no mapping there).
 */
struct ustack_map {
	const char		*file;		/* the file's name */
	unsigned long long	lowest;		/* start of its lowest mapping
						 * in the process; 0: found
						 * from start and end */
	const char		*build_id;	/* hex, as recorded; NULL if
						 * unknown */
	/* the mapping that holds the address, 0 if not said
	 * (the library clears the struct before the call) */
	unsigned long long	start;
	unsigned long long	end;
	/* where that mapping starts in the file, if has_pgoff */
	unsigned long long	pgoff;
	bool			has_pgoff;
};
typedef int (*ustack_map_func)(void *data, int pid, unsigned long long addr,
			       struct ustack_map *map);
int ustack_syms_set_map_func(struct ustack_syms *syms, ustack_map_func func,
			     void *data);
/*
 * Maps kept by the caller per image: those @pid had with @execs of its
 * execs still to come (0: its last image).  Fills @map (when not NULL)
 * and returns 1, returns 0 when no file is mapped at @addr, -1 when the
 * maps of that image are not known.
 */
typedef int (*ustack_image_map_func)(void *data, int pid, int execs,
				     unsigned long long addr,
				     struct ustack_map *map);
int ustack_syms_set_image_map_func(struct ustack_syms *syms,
				   ustack_image_map_func func, void *data);
int ustack_syms_set_tep(struct ustack_syms *syms, struct tep_handle *tep);
int ustack_syms_load_kallsyms(struct ustack_syms *syms, const char *path);
int ustack_syms_resolve(struct ustack_syms *syms, int pid,
			unsigned long long addr, struct ustack_sym *sym);
int ustack_syms_resolve_kernel(struct ustack_syms *syms,
			       unsigned long long addr, struct ustack_sym *sym);
int ustack_syms_format(struct ustack_syms *syms, int pid,
		       unsigned long long addr, char *buf, size_t size);
/* with debug info, the inlined frames (one line each) and the
 * source line after the frame */
int ustack_syms_format_lines(struct ustack_syms *syms, int pid,
			     unsigned long long addr, char *buf, size_t size);
int ustack_syms_format_kernel(struct ustack_syms *syms,
			      unsigned long long addr, char *buf, size_t size);
int ustack_syms_errors(struct ustack_syms *syms);
/* ustack_event_print() keeps the text it prints and gives it again */
int ustack_syms_set_print_cache(struct ustack_syms *syms, size_t max_stacks,
				size_t max_bytes);

/**
 * The maps of each frame's time.  A process that calls
 * execve() changes maps; trace-cmd record -T (with the series) saves the
 * maps a process had before each exec and records sched_process_exec.
 * ustack_syms_add_exec() notes an exec (ustack_syms_add_record() takes
 * the execs and loads of a trace's records from the host's read loop), and
 * ustack_syms_set_time() the time of the frames resolved next
 * (ustack_event_print() sets its event's): a frame from before an exec
 * is named with the maps of its own image, and printed
 * USTACK_BEFORE_EXEC_TEXT after its address when those are not known.
 * ustack_syms_execs_after() counts the execs after a time,
 * ustack_syms_maps_changes() the execs, loads and unloads after it;
 * ustack_syms_maps_known() tells whether the maps of a process at a
 * time are known (ustack_syms(3)).
 */
#define USTACK_BEFORE_EXEC_TEXT		"[before exec]"
int ustack_syms_add_exec(struct ustack_syms *syms, int pid,
			 unsigned long long ts);
int ustack_syms_add_record(struct ustack_syms *syms, struct tep_handle *tep,
			   struct tep_record *record);
int ustack_syms_set_time(struct ustack_syms *syms, unsigned long long ts);
int ustack_syms_execs_after(struct ustack_syms *syms, int pid,
			    unsigned long long ts);
int ustack_syms_maps_changes(struct ustack_syms *syms, int pid,
			     unsigned long long ts);
int ustack_syms_maps_known(struct ustack_syms *syms, int pid,
			   unsigned long long ts);

/*
 * Archives of the files that named frames, by build ID, in the layout of
 * perf's build-ID cache: read later or elsewhere, they name the frames
 * again (ustack_syms_archive(3)).
 */
enum ustack_archive_result {
	USTACK_ARCHIVE_ADDED,		/* copied into the archive */
	USTACK_ARCHIVE_PRESENT,		/* the archive had it already */
	USTACK_ARCHIVE_NO_BUILD_ID,	/* recorded without one: not taken */
	USTACK_ARCHIVE_NOT_FOUND,	/* no file of that build found here */
};
typedef int (*ustack_archive_func)(void *data, const char *name,
				   const char *build_id, const char *path,
				   enum ustack_archive_result result);
int ustack_syms_archive(struct ustack_syms *syms, const char *dir,
			ustack_archive_func func, void *data);

/* ---- the load lines (ustack_syms(3)) ---- */

/*
 * The lines that say which objects a process loaded or closed, written
 * to trace_marker (ftrace:print events), read by ustack_syms_add_record():
 * an ABI between their writers (the SFrame registrar of trace-cmd record
 * -T, sframe-gen/preload/maps.c; trace-cmd record without a command,
 * its series' patch 0019; tests/userspace/lib/mktrace.py, which reads
 * these definitions from this file) and their readers, which may be of
 * different ages (a trace read by a later libustack).  Written by these
 * definitions only:
 *
 *   ustack_map: open v=1 pid=TGID tid=TID base=0xBIAS build_id=HEX|- \
 *       segs=START-END@PGOFF[,...] path=PATH
 *   ustack_map: close v=1 pid=TGID tid=TID base=0xBIAS
 *
 * an object a process loaded (dlopen()) or is about to unload, at the
 * time of its event; and, at the start of a recording without a command,
 * for each process already running, a synth line before its maps are
 * read, then a mapped line (an open line's fields) for each object mapped
 * there, which was there since the process's start or last exec:
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
 * build_id  the file's, in hex, or USTACK_MAP_NO_BUILD_ID.
 * segs   the pages of each PT_LOAD segment and where it starts in the
 *        file, as /proc/PID/maps shows them; at most USTACK_MAP_SEGS.
 * path   the file, absolute; last, to the end of the line.
 *
 * A writer prints a line with the printf() formats below, one write(2)
 * a line: an open or mapped line is USTACK_MAP_OPEN_FMT (or
 * USTACK_MAP_MAPPED_FMT), the build ID, USTACK_MAP_SEGS_KEY, each
 * segment in USTACK_MAP_SEG_FMT (joined by ","), USTACK_MAP_PATH_KEY,
 * the path and "\n".  The addresses are unsigned long long.
 */
#define USTACK_MAP_PREFIX	"ustack_map: "
#define USTACK_MAP_OPEN		USTACK_MAP_PREFIX "open "
#define USTACK_MAP_CLOSE	USTACK_MAP_PREFIX "close "
#define USTACK_MAP_SYNTH	USTACK_MAP_PREFIX "synth "
#define USTACK_MAP_MAPPED	USTACK_MAP_PREFIX "mapped "
#define USTACK_MAP_VERSION	1
#define USTACK_MAP_SEGS		16

/* version, tgid, tid (int), base (unsigned long long) */
#define USTACK_MAP_OPEN_FMT	USTACK_MAP_OPEN "v=%d pid=%d tid=%d base=0x%llx build_id="
#define USTACK_MAP_MAPPED_FMT	USTACK_MAP_MAPPED "v=%d pid=%d tid=%d base=0x%llx build_id="
#define USTACK_MAP_CLOSE_FMT	USTACK_MAP_CLOSE "v=%d pid=%d tid=%d base=0x%llx\n"
/* version, tgid, tid (int) */
#define USTACK_MAP_SYNTH_FMT	USTACK_MAP_SYNTH "v=%d pid=%d tid=%d\n"
/* the build ID of a file that has none */
#define USTACK_MAP_NO_BUILD_ID	"-"
/* after the build ID: the segments (start, end, file offset), then the path */
#define USTACK_MAP_SEGS_KEY	" segs="
#define USTACK_MAP_SEG_SEP	","
#define USTACK_MAP_SEG_FMT	"%llx-%llx@%llx"
#define USTACK_MAP_PATH_KEY	" path="

/* ---- records (ustack_record(3)) ---- */

/*
 * The records of deferred user stacks (Documentation/contract.md), in
 * the ftrace system: a user_stack_cookie right after the event that
 * asked (its cookie, its kernel stack), later one user_stack_deferred
 * per (instance, cookie) (the user frames).
 */
#define USTACK_RECORD_SYSTEM		"ftrace"
#define USTACK_RECORD_COOKIE		"user_stack_cookie"
#define USTACK_RECORD_STACK		"user_stack_deferred"

/* ustack_record.flags of a user_stack_cookie: no user stack will follow */
#define USTACK_COOKIE_NO_USER_STACK	(1U << 0)
/* ustack_record.flags of a user_stack_deferred (others are reserved) */
#define USTACK_STACK_TRUNCATED		(1U << 0)	/* depth > frames */
#define USTACK_STACK_LATE		(1U << 1)	/* the task's cache */
#define USTACK_STACK_UNWIND_FP		(1U << 2)	/* see unwinder */
#define USTACK_STACK_UNWIND_SFRAME	(1U << 3)

/* One of the two records, decoded */
struct ustack_record {
	unsigned long long	cookie;
	unsigned int		flags;		/* USTACK_COOKIE_*, _STACK_* */
	int			tgid;		/* user_stack_deferred; else 0 */
	/* user_stack_deferred: the frames the unwinder found (nr when
	 * the record does not say) */
	unsigned long long	depth;
	/* the frames in the record (kernel, or user): -1 when its array
	 * is missing or lies outside the record */
	int			nr;
	unsigned int		unwinder;	/* USTACK_UNWINDER_* */
};

int ustack_record_parse(struct tep_event *event, struct tep_record *record,
			struct ustack_record *rec, unsigned long long *frames,
			int max);
int ustack_record_prerelease(struct tep_handle *tep);
int ustack_record_check(struct tep_handle *tep, struct tep_record *record);
/*
 * For a host that keeps its entries in order (a viewer): moves back by
 * one entry of a cookie record's CPU, fills its event id and its pid
 * (-1: unknown); returns 0, 1 when none is left, -1 to fail
 */
typedef int (*ustack_step_func)(void *data, int *type, int *pid);
int ustack_record_find_event(struct tep_handle *tep, int pid,
			     ustack_step_func step, void *data);
int ustack_event_parse(struct ustack_event *ev, struct tep_record *cookie,
		       struct tep_record *stack, unsigned long long *kernel,
		       unsigned long long *user, int max);

/* ---- printing (ustack_print(3)) ---- */

struct trace_seq;

/* ustack_frame_print() and ustack_event_print() flags */
enum {
	/* a kernel frame (ustack_frame_print() only) */
	USTACK_PRINT_KERNEL	= 1 << 0,
	/* addresses only, no names */
	USTACK_PRINT_RAW	= 1 << 1,
	/* a frame that cannot be a return address: its address, marked
	 * USTACK_BAD_FRAME_TEXT (ustack_frame_print() only) */
	USTACK_PRINT_CHECK	= 1 << 2,
	/* a kernel frame as trace-cmd prints kernel stacks: "func+0xoff
	 * (addr)", "addr" when unnamed (ustack_frame_print() only) */
	USTACK_PRINT_ADDR	= 1 << 3,
	/* a user frame with its inlined functions and source line, one
	 * line each (ustack_frame_print(), and ustack_event_print() with
	 * USTACK_PRINT_LIST) */
	USTACK_PRINT_LINES	= 1 << 4,
	/* the ustack tool's layout, not trace-cmd report's
	 * (ustack_event_print() only) */
	USTACK_PRINT_LIST	= 1 << 5,
	/* trace-cmd report's layout without the lines that head the
	 * kernel and the user frames (ustack_event_print() only) */
	USTACK_PRINT_FRAMES	= 1 << 6,
};

int ustack_frame_print(struct trace_seq *s, struct ustack_syms *syms,
		       struct tep_handle *tep, int pid,
		       unsigned long long addr, unsigned int flags);
int ustack_event_print(struct trace_seq *s, const struct ustack_event *ev,
		       struct ustack_syms *syms, unsigned int flags);

/* ---- a look-ahead for a host printing in time order (ustack_ahead(3)) ---- */

/* the next record of the host's second handle: 1 and *record, 0 at the
 * end, -1 to stop there (a damaged record) */
typedef int (*ustack_ahead_read_func)(void *data, struct tep_record **record);
typedef void (*ustack_ahead_release_func)(void *data,
					  struct tep_record *record);

struct ustack_ahead;

struct ustack_ahead *ustack_ahead_alloc(struct tep_handle *tep, int nr_cpus,
					unsigned long long window,
					ustack_ahead_read_func read,
					ustack_ahead_release_func release,
					void *data);
void ustack_ahead_free(struct ustack_ahead *ahead);
int ustack_ahead_index_record(struct ustack_ahead *ahead,
			      struct tep_record *record);
int ustack_ahead_index_flush(struct ustack_ahead *ahead);
int ustack_ahead_get(struct ustack_ahead *ahead, struct tep_record *record,
		     const struct ustack_event **ev);

/* ---- requests kept for a viewer (ustack_index(3)) ---- */

struct ustack_request {
	unsigned long long	ts;		/* the cookie record's */
	int			cpu;
	int			pid;
	int			tgid;		/* pid when not said */
	enum ustack_status	status;
	unsigned int		flags;		/* USTACK_EV_* */
	unsigned int		unwinder;	/* USTACK_UNWINDER_* */
	unsigned long long	cookie_offset;	/* its user_stack_cookie */
	unsigned long long	stack_offset;	/* its user_stack_deferred,
						 * 0: none came */
};

struct ustack_index;

struct ustack_index *ustack_index_alloc(struct tep_handle *tep);
void ustack_index_free(struct ustack_index *index);
int ustack_index_add_record(struct ustack_index *index,
			    struct tep_record *record);
int ustack_index_flush(struct ustack_index *index);
const struct ustack_request *ustack_index_requests(struct ustack_index *index,
						   size_t *nr);
long long ustack_index_damaged(struct ustack_index *index);

/* ---- call trees (ustack_tree(3)) ---- */

/* ustack_tree_alloc() flags */
enum {
	USTACK_TREE_CALLEE	= 1 << 0,	/* callers under each entry */
	USTACK_TREE_WEIGHT	= 1 << 1,	/* values are weights, ns */
	/* ustack_tree_add_event(): keep the tracer's own kernel frames */
	USTACK_TREE_TRACER_FRAMES = 1 << 2,
	/* ustack_tree_add_event(): user frames only */
	USTACK_TREE_NO_KERNEL	= 1 << 3,
};

/* the object of a kernel frame in a tree (perf's) */
#define USTACK_TREE_KERNEL_OBJECT	"[kernel.kallsyms]"

struct ustack_tree_frame {
	const char		*name;		/* function, address, status */
	const char		*object;	/* binary; NULL: none said */
};

struct ustack_tree;

struct ustack_tree *ustack_tree_alloc(unsigned int flags);
void ustack_tree_free(struct ustack_tree *tree);
int ustack_tree_set_sort(struct ustack_tree *tree, const char *keys);
int ustack_tree_set_limits(struct ustack_tree *tree, double percent,
			   int max_stack);
int ustack_tree_add(struct ustack_tree *tree, const char *event,
		    const char *comm, const struct ustack_tree_frame *frames,
		    int nr, unsigned long long value);
int ustack_tree_add_event(struct ustack_tree *tree,
			  const struct ustack_event *ev,
			  struct ustack_syms *syms, unsigned long long value);
int ustack_tree_print(struct trace_seq *s, struct ustack_tree *tree);

/* ---- a viewer's requests and stacks (ustack_view(3)) ---- */

/* A request of a view, with the host's handles of its records */
struct ustack_view_request {
	struct ustack_request	request;	/* ts, cpu: its cookie record's */
	void			*event;		/* NULL: not seen */
	void			*cookie;	/* its user_stack_cookie */
	void			*stack;		/* its user_stack_deferred,
						 * NULL: none came */
	unsigned long long	ts;		/* the event's (its cookie */
	int			cpu;		/* record's when not seen) */
	int			type;		/* the event's id, -1: not seen */
};

/* the record at @offset (tep_record.offset), NULL: unreadable */
typedef struct tep_record *(*ustack_view_read_func)(void *data,
						    unsigned long long offset);
typedef void (*ustack_view_release_func)(void *data,
					 struct tep_record *record);
/* the host's sources of names; non-zero: none */
typedef int (*ustack_view_syms_func)(void *data, struct ustack_syms *syms);

struct ustack_view;

struct ustack_view *ustack_view_alloc(struct tep_handle *tep,
				      ustack_view_read_func read,
				      ustack_view_release_func release,
				      void *data);
void ustack_view_free(struct ustack_view *view);
int ustack_view_set_syms_func(struct ustack_view *view,
			      ustack_view_syms_func func);
int ustack_view_add_record(struct ustack_view *view, struct tep_record *record,
			   void *ref);
int ustack_view_reset(struct ustack_view *view);
int ustack_view_build(struct ustack_view *view);
const struct ustack_view_request *ustack_view_requests(struct ustack_view *view,
						       size_t *nr);
int ustack_view_set_event(struct ustack_view *view, size_t i, int type,
			  unsigned long long ts, int cpu, void *ref);
long long ustack_view_damaged(struct ustack_view *view);
int ustack_view_print(struct ustack_view *view, struct trace_seq *s, size_t i,
		      unsigned int flags);
int ustack_view_print_selected(struct ustack_view *view, struct trace_seq *s,
			       const void *ref, void **links, int max,
			       unsigned int flags);
int ustack_view_tree(struct ustack_view *view, struct trace_seq *s,
		     unsigned long long from, unsigned long long to, int pid,
		     unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* _USTACK_H */
