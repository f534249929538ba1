// SPDX-License-Identifier: LGPL-2.1
/*
 * The ustack tool's source: a trace.dat file read with libtracecmd, its
 * records fed to libustack through its one feeder, ustack_feed_record():
 * the symbols first (the maps of each frame's time), then the join.  Each
 * buffer instance of the file is its own stream with its own join; the
 * records of a stream are merged across CPUs in time order by
 * libtracecmd.  Not part of libustack, which reads no file and needs no
 * libtracecmd (Documentation/decisions.md, "No package cycle"); the
 * KernelShark plugin builds it in beside libustack.a.  It needs the
 * series' libtracecmd (trace-cmd/patches), whose public API gives the
 * saved process maps (0007), those saved before an exec (0012) and where
 * each mapping starts in its file (0016): ustack/Makefile stops on any
 * other, so no private layout of libtracecmd is copied here.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <trace-cmd.h>

#include "ustack-local.h"
#include "ustack-file.h"
#include "unwind-record.h"

struct ustack_file {
	struct tracecmd_input	*handle;
	char			*path;
	size_t			max_cookies;
	size_t			max_events;
	size_t			max_tasks;
	unsigned int		flags;
	bool			used;
};

/**
 * ustack_file_open - open a trace.dat file to join its events
 * @path: the file that trace-cmd record wrote
 *
 * Opened in this process, with no child: the KernelShark plugin runs
 * this inside a threaded Qt program, where a fork() would copy every
 * thread's locks (and KernelShark has opened the file itself first).
 * The series' libtracecmd and libtraceevent (with
 * libtraceevent/patches) fail the open of a damaged file rather than
 * crash: tests/rig/tracecmd.sh and the lib suite read damaged copies.
 *
 * Returns the file (ustack_file_close() closes it), or NULL with errno
 * set: ENOTSUP for a trace of the pre-release kernel series, EINVAL for a
 * file that is not a readable trace.dat (or not a regular file), or that
 * of stat(2).
 */
struct ustack_file *ustack_file_open(const char *path)
{
	struct ustack_file *file;
	struct stat st;
	int err;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	if (stat(path, &st) < 0) {
		err = errno;
		ustack_err("%s: %s", path, strerror(err));
		errno = err;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		ustack_err("%s: not a regular file", path);
		errno = EINVAL;
		return NULL;
	}
	file = calloc(1, sizeof(*file));
	if (!file)
		return NULL;
	file->path = strdup(path);
	if (!file->path)
		goto fail;
	/* the join decodes the fields itself: no print plugins needed */
	file->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!file->handle) {
		ustack_err("%s: not a readable trace.dat file (corrupt or truncated?)",
			   path);
		errno = EINVAL;
		goto fail;
	}
	if (!tracecmd_get_tep(file->handle)) {
		ustack_err("%s: no event formats", path);
		errno = EINVAL;
		goto fail;
	}
	if (unwind_rec_prerelease(tracecmd_get_tep(file->handle))) {
		ustack_err("%s: " UNWIND_REC_PRERELEASE_MSG, path);
		errno = ENOTSUP;
		goto fail;
	}
	return file;
fail:
	err = errno;
	ustack_file_close(file);
	errno = err;
	return NULL;
}

/**
 * ustack_file_close - close a trace.dat file
 * @file: the file, or NULL
 */
void ustack_file_close(struct ustack_file *file)
{
	if (!file)
		return;
	if (file->handle)
		tracecmd_close(file->handle);
	free(file->path);
	free(file);
}

/**
 * ustack_file_tep - the event formats of a trace.dat file
 * @file: the file
 *
 * Returns the tep_handle of its top buffer (the file keeps it), or NULL
 * with errno EINVAL for a NULL @file.
 */
struct tep_handle *ustack_file_tep(struct ustack_file *file)
{
	if (!file) {
		errno = EINVAL;
		return NULL;
	}
	return tracecmd_get_tep(file->handle);
}

/**
 * ustack_file_handle - the libtracecmd handle of a trace.dat file
 * @file: the file
 *
 * Returns the handle (the file keeps it; reading from it moves what
 * ustack_file_iterate() reads), or NULL with errno EINVAL.
 */
struct tracecmd_input *ustack_file_handle(struct ustack_file *file)
{
	if (!file) {
		errno = EINVAL;
		return NULL;
	}
	return file->handle;
}

/**
 * ustack_file_instances - how many buffers a trace.dat file has
 * @file: the file
 *
 * Index 0 is the top instance, 1 and on the buffer instances recorded
 * with trace-cmd record -B.
 *
 * Returns the count (at least 1), or -1 with errno EINVAL.
 */
int ustack_file_instances(struct ustack_file *file)
{
	int n;

	if (!file) {
		errno = EINVAL;
		return -1;
	}
	n = tracecmd_buffer_instances(file->handle);
	return n < 0 ? 1 : n + 1;
}

/**
 * ustack_file_instance_name - the name of a buffer of a trace.dat file
 * @file: the file
 * @index: the buffer, 0 for the top instance
 *
 * Returns its name ("" for the top instance), or NULL with errno EINVAL
 * for a bad argument.
 */
const char *ustack_file_instance_name(struct ustack_file *file, int index)
{
	if (!file || index < 0 || index >= ustack_file_instances(file)) {
		errno = EINVAL;
		return NULL;
	}
	if (!index)
		return "";
	return tracecmd_buffer_instance_name(file->handle, index - 1);
}

/**
 * ustack_file_set_limits - the limits of the joins of ustack_file_iterate()
 * @file: the file
 * @max_cookies: as for ustack_join_set_limits(), 0 to keep the default
 * @max_events: as for ustack_join_set_limits(), 0 to keep the default
 * @max_tasks: as for ustack_join_set_limits(), 0 to keep the default
 *
 * Returns 0, or -1 with errno EINVAL for a NULL @file.
 */
int ustack_file_set_limits(struct ustack_file *file, size_t max_cookies,
			   size_t max_events, size_t max_tasks)
{
	if (!file) {
		errno = EINVAL;
		return -1;
	}
	file->max_cookies = max_cookies;
	file->max_events = max_events;
	file->max_tasks = max_tasks;
	return 0;
}

/**
 * ustack_file_set_flags - the flags of the joins of ustack_file_iterate()
 * @file: the file
 * @flags: as for ustack_join_set_flags()
 *
 * Returns 0, or -1 with errno EINVAL for a NULL @file or an unknown flag.
 */
int ustack_file_set_flags(struct ustack_file *file, unsigned int flags)
{
	if (!file ||
	    (flags & ~(USTACK_JOIN_ALL_EVENTS | USTACK_JOIN_UNSEEN_EVENTS))) {
		errno = EINVAL;
		return -1;
	}
	file->flags = flags;
	return 0;
}

/*
 * The one read loop of a file's stream: each record, in time order across
 * CPUs, to ustack_feed_record(): the symbols alone (the first pass: the
 * execs and loads) or the join alone.
 */
struct feed_ctx {
	const char		*path;
	struct ustack_join	*join;
	struct ustack_syms	*syms;
	int			ret;
	int			err;	/* errno of a -1 ret */
};

static int feed_cb(struct tracecmd_input *handle, struct tep_record *record,
		   int cpu, void *data)
{
	struct feed_ctx *ctx = data;
	int ret;

	(void)cpu;
	/* libtracecmd 1.3 may call again after we asked it to stop */
	if (ctx->ret)
		return 1;
	ret = ustack_feed_record(ctx->join, ctx->syms,
				 tracecmd_get_tep(handle), record);
	if (ret < 0 && errno == EBADMSG) {
		/* a damaged record is not read; for the maps the others
		 * still count, the join stops there */
		if (!ctx->join)
			return 0;
		ustack_err("%s: corrupt record at offset %llu: %d bytes do not fit in its page",
			   ctx->path, record->offset, record->size);
		errno = EINVAL;
	}
	if (ret) {
		ctx->ret = ret;
		ctx->err = errno;
		return 1;	/* stop iterating */
	}
	return 0;
}

static void add_stats(struct ustack_join_stats *sum,
		      const struct ustack_join_stats *s)
{
	unsigned long long *a = (unsigned long long *)sum;
	const unsigned long long *b = (const unsigned long long *)s;
	size_t i;

	for (i = 0; i < sizeof(*s) / sizeof(*b); i++)
		a[i] += b[i];
}

static int iterate_one(struct ustack_file *file, int index,
		       ustack_join_cb cb, void *data,
		       struct ustack_join_stats *stats)
{
	struct tracecmd_input *handle = file->handle;
	struct ustack_join_stats st;
	struct feed_ctx ctx = { 0 };
	int ret;

	if (index > 0) {
		handle = tracecmd_buffer_instance_handle(file->handle,
							 index - 1);
		if (!handle) {
			ustack_err("%s: cannot read buffer instance %d",
				   file->path, index - 1);
			errno = EINVAL;
			return -1;
		}
	}
	ctx.path = file->path;
	ctx.join = ustack_join_alloc(tracecmd_get_tep(handle), cb, data);
	if (!ctx.join) {
		ret = -1;
		goto out;
	}
	ustack_join_set_limits(ctx.join, file->max_cookies, file->max_events,
			       file->max_tasks);
	if (file->flags && ustack_join_set_flags(ctx.join, file->flags)) {
		ret = -1;
		goto out_join;
	}
	ustack_join_set_instance(ctx.join,
				 ustack_file_instance_name(file, index));
	ret = tracecmd_iterate_events(handle, NULL, 0, feed_cb, &ctx);
	if (ctx.ret < 0) {
		errno = ctx.err;
		ret = -1;
	} else {
		if (ret < 0) {
			ustack_err("%s: error reading the trace data",
				   file->path);
			errno = EINVAL;
		}
		/* deliver what is left, even after a read error */
		if (ustack_join_flush(ctx.join) < 0)
			ret = -1;
		else if (ret >= 0)
			ret = ctx.ret;
	}
	if (stats && !ustack_join_get_stats(ctx.join, &st))
		add_stats(stats, &st);
out_join:
	ustack_join_free(ctx.join);
out:
	if (handle != file->handle)
		tracecmd_close(handle);
	return ret;
}

/**
 * ustack_file_iterate - join the events of a trace.dat file
 * @file: the file
 * @index: the buffer to read, or -1 for all of them, one after the other
 * @cb: called with each event and its stacks
 * @data: passed to @cb
 * @stats: where the joins' counts are added up, or NULL
 *
 * Each buffer is its own stream: its CPUs merged in time order, fed to a
 * new join (the limits and flags of ustack_file_set_limits() and
 * ustack_file_set_flags()) that is flushed at its end.  Iterating again
 * reads the file from its start.
 *
 * Returns 0, the non-zero value of a callback that stopped, or -1 with
 * errno set: EINVAL for a bad argument or a file that cannot be read
 * again, or what the join gave.
 */
int ustack_file_iterate(struct ustack_file *file, int index,
			ustack_join_cb cb, void *data,
			struct ustack_join_stats *stats)
{
	int i, n, ret = 0;

	if (!file || !cb) {
		errno = EINVAL;
		return -1;
	}
	n = ustack_file_instances(file);
	if (index >= n || index < -1) {
		errno = EINVAL;
		return -1;
	}
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (file->used) {
		/* libtracecmd reads forward only: start over */
		struct tracecmd_input *h = tracecmd_open(file->path,
						TRACECMD_FL_LOAD_NO_PLUGINS);

		if (!h) {
			ustack_err("%s: cannot reopen", file->path);
			errno = EINVAL;
			return -1;
		}
		tracecmd_close(file->handle);
		file->handle = h;
	}
	/* tracecmd_open() has read the headers and set up the data */
	file->used = true;
	for (i = 0; i < n; i++) {
		if (index >= 0 && i != index)
			continue;
		ret = iterate_one(file, i, cb, data, stats);
		if (ret)
			break;
	}
	return ret;
}

/*
 * The mapping of a saved process map that holds @addr, in the maps that
 * applied with @execs execs of the process still to come; the start of
 * the file's lowest mapping is left to the symbols (syms.c walks down
 * the mappings, as for any maps).
 */
static int tracecmd_map_at(struct tracecmd_input *h, int pid, int execs,
			   unsigned long long addr, struct ustack_map *out)
{
	struct tracecmd_proc_addr_map *m;

	m = tracecmd_search_task_map_execs(h, pid, execs, addr);
	out->file = tracecmd_proc_addr_map_name(m);
	if (!out->file)
		return 0;
	out->build_id = tracecmd_proc_addr_map_build_id(m);
	out->start = tracecmd_proc_addr_map_start(m);
	out->end = tracecmd_proc_addr_map_end(m);
	out->has_pgoff = !tracecmd_proc_addr_map_pgoff(m, &out->pgoff);
	return 1;
}

static int tracecmd_find_map(void *data, int pid, unsigned long long addr,
			     struct ustack_map *out)
{
	return tracecmd_map_at(data, pid, 0, addr, out);
}

/* The maps saved before an exec (trace-cmd record -T, series 0014) */
static int tracecmd_execs_map(void *data, int pid, int execs,
			      unsigned long long addr, struct ustack_map *out)
{
	struct tracecmd_input *h = data;

	if (!tracecmd_task_map_saved(h, pid, execs))
		return -1;
	return out ? tracecmd_map_at(h, pid, execs, addr, out) : 0;
}

/**
 * ustack_syms_set_tracecmd - name frames with the maps a trace.dat saved
 * @syms: the symbols
 * @handle: the libtracecmd handle of the file (trace-cmd report's own)
 *
 * Takes the process maps that trace-cmd record --proc-map (or -T) saved
 * in the file, with their build IDs when recorded, through
 * ustack_syms_set_map_func(): the mapping that holds an address, and the
 * start of its file's lowest mapping.  Where the file saved the maps a
 * process had before an exec (trace-cmd record -T with the series), a
 * frame from before an exec is looked up in those (see
 * ustack_syms_add_exec(); the execs come from ustack_syms_load_execs())
 * through ustack_syms_set_image_map_func().  @handle must stay open
 * while @syms is used.  ustack_syms_set_file() does this and more for a
 * file of ustack_file_open().
 *
 * Returns 0, or -1 with errno EINVAL for a NULL argument.
 */
int ustack_syms_set_tracecmd(struct ustack_syms *syms,
			     struct tracecmd_input *handle)
{
	if (!syms || !handle) {
		errno = EINVAL;
		return -1;
	}
	if (ustack_syms_set_map_func(syms, tracecmd_find_map, handle))
		return -1;
	return ustack_syms_set_image_map_func(syms, tracecmd_execs_map,
					      handle);
}

/**
 * ustack_syms_set_file - name frames with what a trace.dat file saved
 * @syms: the symbols
 * @file: the file
 *
 * Takes the process maps that trace-cmd record --proc-map (or -T) saved
 * in @file, with their build IDs when recorded, through
 * ustack_syms_set_tracecmd(); the execs it recorded, to choose the maps
 * of each frame's time (ustack_syms_load_execs()); the file's kallsyms
 * for kernel frames (ustack_syms_set_tep()); and the file's directory as
 * a place to look for binaries (ustack_syms_add_trace_dir()).  @file must stay open while
 * @syms is used.
 *
 * Returns 0, or -1 with errno set (EINVAL for a NULL argument, ENOMEM).
 */
int ustack_syms_set_file(struct ustack_syms *syms, struct ustack_file *file)
{
	char *dir;
	int ret;

	if (!syms || !file) {
		errno = EINVAL;
		return -1;
	}
	if (ustack_syms_set_tep(syms, ustack_file_tep(file)))
		return -1;
	/*
	 * binaries copied next to the trace file are found there, after
	 * the recorded path
	 */
	dir = strdup(file->path);
	if (!dir)
		return -1;
	ret = ustack_syms_add_trace_dir(syms, dirname(dir));
	free(dir);
	if (ret)
		return -1;
	if (ustack_syms_load_execs(syms, file->path) < 0)
		return -1;
	return ustack_syms_set_tracecmd(syms, file->handle);
}

/**
 * ustack_syms_load_execs - take the execs and loads a trace.dat recorded
 * @syms: the symbols
 * @path: the trace.dat file
 *
 * Reads the records of the file, those of each buffer instance too, and
 * feeds each to ustack_syms_add_record(): the execs
 * (sched:sched_process_exec, or where there are none, the successful
 * syscalls:sys_exit_execve) and the registrar's load lines.
 * ustack_syms_set_file() does this.
 *
 * Returns 0, or -1 with errno set (EINVAL for a bad argument or a file
 * that cannot be read, ENOMEM).
 */
int ustack_syms_load_execs(struct ustack_syms *syms, const char *path)
{
	struct feed_ctx ctx = { .path = path, .syms = syms };
	struct tracecmd_input *top, *h;
	int i, n;

	if (!syms || !path) {
		errno = EINVAL;
		return -1;
	}
	top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!top) {
		errno = EINVAL;
		return -1;
	}
	/* a read error ends what is read; the execs before it count */
	tracecmd_iterate_events(top, NULL, 0, feed_cb, &ctx);
	n = tracecmd_buffer_instances(top);
	for (i = 0; i < n && !ctx.ret; i++) {
		h = tracecmd_buffer_instance_handle(top, i);
		if (!h)
			continue;
		tracecmd_iterate_events(h, NULL, 0, feed_cb, &ctx);
		tracecmd_close(h);
	}
	tracecmd_close(top);
	if (ctx.ret) {
		errno = ctx.err;
		return -1;
	}
	return 0;
}
