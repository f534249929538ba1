/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Internal interfaces of libustack.  Not installed.  The unit tests
 * use the ustack_join_feed() interface to drive the join with synthetic
 * event streams.
 */
#ifndef _USTACK_LOCAL_H
#define _USTACK_LOCAL_H

#include "ustack.h"

#define __hidden __attribute__((visibility("hidden")))

__hidden void ustack_err(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
__hidden void ustack_warn(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* this thread's messages appended to *@buf, not printed (NULL: printed) */
__hidden void ustack_log_capture(char **buf);

enum ustack_input_type {
	USTACK_IN_EVENT,	/* any event: may ask for stacks */
	USTACK_IN_KSTACK,	/* ftrace:kernel_stack: events without cookie */
	USTACK_IN_COOKIE,	/* ftrace:user_stack_cookie, kernel frames */
	USTACK_IN_USTACK,	/* ftrace:user_stack_deferred */
};

struct ustack_input {
	enum ustack_input_type	type;
	int			cpu;
	int			pid;
	unsigned long long	ts;
	unsigned long long	offset;		/* the record's, as read */
	unsigned long long	cookie;		/* COOKIE, USTACK */
	int			tgid;		/* USTACK */
	int			first_pid;	/* USTACK: its pid field, or 0 */
	unsigned int		flags;		/* COOKIE, USTACK: the record's */
	unsigned int		depth;		/* USTACK */
	int			nr;		/* KSTACK, COOKIE, USTACK */
	const unsigned long long *frames;	/* KSTACK, COOKIE, USTACK */
	struct tep_event	*event;		/* EVENT, may be NULL */
	const void		*data;		/* EVENT, COOKIE: copied */
	int			size;
};

/*
 * The tracer's own kernel frames (frames.c): is @name one of them (the
 * list of ustack(1)'s --tracer-frames); how many of the innermost
 * frames of @kernel are (@arch: USTACK_FRAME_S390X or 0; @cached: the
 * answers kept by address, for a program with one syms)
 */
__hidden bool ustack_tracer_frame_name(const char *name);
__hidden int ustack_tracer_frames(struct ustack_syms *syms,
				  const unsigned long long *kernel, int nr,
				  int arch, bool cached);

/* The print cache of ustack_syms_set_print_cache() (syms.c, print.c) */
struct ustack_text_key {
	unsigned long long	hash;
	int			changes;	/* < 0: not kept */
};
__hidden const char *ustack_syms_text_find(struct ustack_syms *syms,
					   const struct ustack_event *ev,
					   unsigned int flags,
					   struct ustack_text_key *key);
__hidden void ustack_syms_text_keep(struct ustack_syms *syms,
				    const struct ustack_event *ev,
				    unsigned int flags,
				    const struct ustack_text_key *key,
				    const char *text, size_t len);

/* A join with no event formats: fed through ustack_join_feed() only. */
__hidden struct ustack_join *ustack_join_alloc_raw(ustack_join_cb cb,
						    void *data);
__hidden int ustack_join_feed(struct ustack_join *join,
			      const struct ustack_input *in);
/* execs.c's lookup of a tep's exec and load events, kept in syms */
__hidden size_t ustack_exec_events_size(void);
__hidden void *ustack_syms_exec_events(struct ustack_syms *syms);
/* a successful sys_exit_execve: counted when no sched_process_exec is */
__hidden int ustack_syms_add_sys_exec(struct ustack_syms *syms, int pid,
				      unsigned long long ts);
/*
 * Objects mapped and unmapped during a recording (loads.c): the
 * registrar's trace_marker lines and those trace-cmd record writes at the
 * start for the processes already running (synth, then mapped), as
 * ustack.h defines them (USTACK_MAP_*), kept per process with their times.
 */
#define USTACK_LOAD_SEGS	USTACK_MAP_SEGS
struct ustack_seg {
	unsigned long long	start;
	unsigned long long	end;
	unsigned long long	pgoff;
};
struct ustack_load {
	unsigned long long	from;		/* mapped at */
	unsigned long long	to;		/* unmapped at, or ULLONG_MAX */
	unsigned long long	base;		/* load bias: the close's key */
	/*
	 * A mapping already there when its maps were read (a "mapped" line):
	 * from is the time of the read's "synth" line, seen the line's own;
	 * the load holds for any earlier time in the same image too
	 */
	unsigned long long	seen;
	bool			since_image;
	/* made by an execve() (mmap:exec_mapping exec=1): the new image's */
	bool			in_exec;
	char			*file;
	char			*build_id;	/* NULL: none recorded */
	int			nr_segs;
	struct ustack_seg	segs[USTACK_LOAD_SEGS];	/* by start */
};
struct ustack_loads;
__hidden struct ustack_loads *ustack_loads_alloc(void);
__hidden void ustack_loads_free(struct ustack_loads *loads);
__hidden int ustack_loads_add_line(struct ustack_loads *loads,
				   unsigned long long ts, int rec_pid,
				   const char *line);
__hidden int ustack_loads_add_mapping(struct ustack_loads *loads,
				      unsigned long long ts, int pid,
				      bool in_exec, const struct ustack_seg *seg,
				      const char *build_id, const char *path);
__hidden const struct ustack_load *ustack_loads_next(struct ustack_loads *loads,
						     int pid,
						     unsigned long long addr,
						     int *iter);
__hidden bool ustack_loads_any(struct ustack_loads *loads, int pid);
__hidden int ustack_loads_changes_after(struct ustack_loads *loads, int pid,
					unsigned long long ts);
/* The loads of @syms, made on first use (NULL without memory) */
__hidden struct ustack_loads *ustack_syms_loads(struct ustack_syms *syms);

/* Non-zero once a callback asked to stop. */
__hidden int ustack_join_stopped(struct ustack_join *join);

/* syms.c: the files looked up for frames, for archive.c */
#include <elfutils/libdwfl.h>
typedef int (*ustack_syms_file_func)(void *data, const char *name,
				     const char *build_id, Dwfl_Module *mod,
				     const char *path);
__hidden int ustack_syms_for_each_file(struct ustack_syms *syms,
				       ustack_syms_file_func func,
				       void *data);
__hidden bool ustack_build_id_valid(const char *build_id);

#endif /* _USTACK_LOCAL_H */
