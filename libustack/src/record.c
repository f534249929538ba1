// SPDX-License-Identifier: LGPL-2.1
/*
 * The two records of deferred user stacks, decoded for readers that show
 * them one by one (the plugins' rows), with the bounds checks of the
 * join's own decoding (unwind-record.h); and the check that a record read
 * from a file lies inside its ring-buffer page.
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
