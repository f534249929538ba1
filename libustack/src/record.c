// SPDX-License-Identifier: LGPL-2.1
/*
 * The two records of deferred user stacks, decoded for readers that show
 * them one by one (the KernelShark plugin's rows), with the bounds checks
 * of the join's own decoding (unwind-record.h); and the check that a
 * record read from a file lies inside its ring-buffer page.
 */
#include <errno.h>
#include <string.h>

#include "ustack-local.h"
#include "unwind-record.h"

/**
 * ustack_record_parse - decode a user_stack_cookie or user_stack_deferred
 * @event: the record's event (tep_find_event() of its type)
 * @record: the record
 * @rec: filled with its fields
 * @frames: where its frames go (kernel frames of a cookie record, user
 *	    frames of a user stack record), or NULL
 * @max: how many fit in @frames
 *
 * A field that the record does not have, or that lies outside it, reads
 * as 0 (flags, tgid), as the number of frames (depth), or as -1 (nr, for
 * the frames' array); then no frame is copied.
 *
 * Returns how many frames were copied (at most @max; rec->nr says how
 * many the record has), or -1 with errno set: EINVAL for a bad argument,
 * ENOENT when @event is neither record, EBADMSG when the record has no
 * readable cookie.
 */
int ustack_record_parse(struct tep_event *event, struct tep_record *record,
			struct ustack_record *rec, unsigned long long *frames,
			int max)
{
	struct unwind_rec_span sp = { 0 };
	unsigned long long val;
	bool stack;

	if (!event || !record || !rec || max < 0 || (max && !frames)) {
		errno = EINVAL;
		return -1;
	}
	if (!event->system || !event->name ||
	    strcmp(event->system, USTACK_RECORD_SYSTEM)) {
		errno = ENOENT;
		return -1;
	}
	stack = !strcmp(event->name, USTACK_RECORD_STACK);
	if (!stack && strcmp(event->name, USTACK_RECORD_COOKIE)) {
		errno = ENOENT;
		return -1;
	}
	memset(rec, 0, sizeof(*rec));
	if (unwind_rec_field(event, record, "cookie", &rec->cookie)) {
		errno = EBADMSG;
		return -1;
	}
	if (!unwind_rec_field(event, record, "flags", &val))
		rec->flags = val;
	if (!unwind_rec_field(event, record, "tgid", &val))
		rec->tgid = (int)val;
	rec->nr = -1;
	if (!unwind_rec_dynamic(event->tep, record,
				tep_find_field(event, stack ? "frames" : "kernel"),
				&sp))
		rec->nr = sp.nr;
	if (unwind_rec_field(event, record, "depth", &rec->depth))
		rec->depth = rec->nr;
	if (stack)
		rec->unwinder = unwind_rec_unwinder(rec->flags);
	if (rec->nr <= 0)
		return 0;
	return unwind_rec_copy(event->tep, &sp, frames, max);
}

/**
 * ustack_record_prerelease - tell if a trace has the pre-release records
 * @tep: the trace's event formats
 *
 * Unreleased versions of the kernel series wrote unwind:user_stack_cookie
 * and unwind:user_stack_deferred, which no reader of this library reads
 * (ustack_join_alloc() and ustack_file_open() refuse them with ENOTSUP).
 *
 * Returns 1 when @tep has their formats, else 0.
 */
int ustack_record_prerelease(struct tep_handle *tep)
{
	return tep && unwind_rec_prerelease(tep) ? 1 : 0;
}

/**
 * ustack_record_check - tell if a record read from a file fits its page
 * @tep: the trace's event formats (their sub-buffer size)
 * @record: a record as libtracecmd returns it, with its file offset
 *
 * A record must lie inside its ring-buffer page (sub-buffer), whose start
 * its file offset tells.  libtraceevent's kbuffer takes the length word
 * of a damaged page as it is, so a record may claim to run far past its
 * page: reading its fields would read past the page mapped.  Every reader
 * of trace.dat files checks each record here before it decodes it (the
 * file source, trace-cmd report, the KernelShark plugin).
 *
 * Returns 0 when it fits (or the page size is not known), -1 with errno
 * set otherwise: EBADMSG, or EINVAL for a NULL argument.
 */
int ustack_record_check(struct tep_handle *tep, struct tep_record *record)
{
	long long sb, len;

	if (!tep || !record) {
		errno = EINVAL;
		return -1;
	}
	if (record->size < 0 || record->record_size < 0)
		goto bad;
	sb = tep_get_sub_buffer_size(tep);
	if (sb <= 0)
		return 0;	/* not known: nothing to check against */
	len = record->record_size > record->size ?
	      record->record_size : record->size;
	if (len <= sb && (long long)(record->offset % sb) + len <= sb)
		return 0;
bad:
	errno = EBADMSG;
	return -1;
}

/* the id of an ftrace event of @tep, or -1 */
static int ftrace_id(struct tep_handle *tep, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(tep, USTACK_RECORD_SYSTEM,
						      name);

	return ev ? ev->id : -1;
}

/**
 * ustack_record_find_event - find the event that asked with a cookie record
 * @tep: the trace's event formats
 * @pid: the cookie record's pid (common_pid)
 * @step: moves the host's cursor back by one entry of the cookie record's
 *	  CPU, from the cookie record on; fills the entry's event id and
 *	  the pid of its record (-1: unknown); returns 0, 1 when no entry is
 *	  left, or -1 to fail
 * @data: passed to @step
 *
 * The event that asked is the newest entry of the same task before the
 * cookie record on its CPU that no later cookie record took, among the
 * last USTACK_JOIN_MAX_OPEN of that task: the rule of the join
 * (ustack_join(3)), for a host that keeps the entries in order and looks
 * the event up afterwards.  user_stack_deferred and kernel_stack entries
 * are passed over.
 *
 * Returns 1 with the host's cursor on the event, 0 when no event asked,
 * or -1 with errno set (EINVAL, or as @step left it).
 */
int ustack_record_find_event(struct tep_handle *tep, int pid,
			     ustack_step_func step, void *data)
{
	int cookie, stack, kstack, type, p, r, taken = 0, seen = 0;

	if (!tep || !step) {
		errno = EINVAL;
		return -1;
	}
	cookie = ftrace_id(tep, USTACK_RECORD_COOKIE);
	stack = ftrace_id(tep, USTACK_RECORD_STACK);
	kstack = ftrace_id(tep, "kernel_stack");
	while (seen < USTACK_JOIN_MAX_OPEN) {
		r = step(data, &type, &p);
		if (r)
			return r > 0 ? 0 : -1;
		if (type < 0 || type == stack || type == kstack || p != pid)
			continue;
		if (type == cookie)
			taken++;
		else if (!taken--)
			return 1;
		else
			seen++;
	}
	return 0;
}

static int parse_one(struct tep_handle *tep, struct tep_record *record,
		     struct ustack_record *rec, unsigned long long *frames,
		     int max)
{
	struct tep_event *ev = tep_find_event(tep, tep_data_type(tep, record));

	return ev ? ustack_record_parse(ev, record, rec, frames, max) : -1;
}

/**
 * ustack_event_parse - an event's stacks from its two records
 * @ev: the event, with its tep set; its cookie, kernel, nr_kernel, user,
 *	nr_user and depth are filled
 * @cookie: its user_stack_cookie record
 * @stack: its user_stack_deferred record, or NULL (none came)
 * @kernel: where its kernel frames go
 * @user: where its user frames go
 * @max: how many fit in each
 *
 * For a host that keeps where an event's records are (the join's
 * cookie_offset and stack_offset) and reads them again to show the
 * event: the other fields of @ev (time, task, status, flags, unwinder)
 * are the join's.  A record that cannot be decoded leaves its part
 * empty (no frames, cookie 0).
 *
 * Returns 0, or -1 with errno set: EINVAL for a bad argument, EBADMSG
 * (or ENOENT) when a record could not be decoded; the other part is
 * filled still.
 */
int ustack_event_parse(struct ustack_event *ev, struct tep_record *cookie,
		       struct tep_record *stack, unsigned long long *kernel,
		       unsigned long long *user, int max)
{
	struct ustack_record rec = { 0 };
	int n, ret = 0;

	if (!ev || !ev->tep || !cookie || !kernel || !user || max < 0) {
		errno = EINVAL;
		return -1;
	}
	ev->kernel = kernel;
	ev->user = user;
	ev->cookie = ev->depth = 0;
	ev->nr_user = 0;
	n = parse_one(ev->tep, cookie, &rec, kernel, max);
	ev->nr_kernel = n < 0 ? 0 : n;
	ev->cookie = n < 0 ? 0 : rec.cookie;
	ret = n < 0 ? -1 : 0;
	if (!stack)
		return ret;
	n = parse_one(ev->tep, stack, &rec, user, max);
	ev->nr_user = n < 0 ? 0 : n;
	ev->depth = n < 0 ? 0 : rec.depth;
	return n < 0 ? -1 : ret;
}
