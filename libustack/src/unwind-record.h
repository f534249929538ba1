/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Decoding the records of deferred user stacks, with bounds checks.
 * Private to libustack (the join, the trace file reader,
 * ustack_record_parse()) and its unit tests: the readers outside it
 * (the plugins, trace-cmd) get the records' names and flag bits from
 * ustack.h and their fields from ustack_record_parse().
 *
 * Every function checks the field against the record's size first: the
 * records come from files that may be truncated or corrupt.
 */
#ifndef _UNWIND_RECORD_H
#define _UNWIND_RECORD_H

#include <event-parse.h>

#include "ustack.h"

/* An array of stack addresses inside a record. */
struct unwind_rec_span {
	const char	*data;
	int		nr;		/* elements */
	int		esize;		/* 4 or 8 */
};

/* Read a number field of up to 8 bytes; -1 when it lies outside. */
static inline int unwind_rec_num(struct tep_handle *tep,
				 struct tep_record *record,
				 struct tep_format_field *f,
				 unsigned long long *val)
{
	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    (long long)f->offset + f->size > record->size)
		return -1;
	*val = tep_read_number(tep, (char *)record->data + f->offset,
			       f->size);
	return 0;
}

static inline int unwind_rec_field(struct tep_event *event,
				   struct tep_record *record,
				   const char *name, unsigned long long *val)
{
	return unwind_rec_num(event->tep, record,
			      tep_find_field(event, name), val);
}

/*
 * The size of one address in an "unsigned long" array.  Some formats
 * leave elementsize at 0: then it is the traced kernel's long, which a
 * reader may not have set, but the header page's commit field has it.
 */
static inline int unwind_rec_elem_size(struct tep_handle *tep,
				       struct tep_format_field *f)
{
	int sz;

	if (f->elementsize == 4 || f->elementsize == 8)
		return f->elementsize;
	sz = tep_get_long_size(tep);
	if (sz == 4 || sz == 8)
		return sz;
	sz = tep_get_header_page_size(tep);
	return sz == 4 ? 4 : 8;
}

static inline unsigned long long
unwind_rec_addr(struct tep_handle *tep, const struct unwind_rec_span *s,
		int i)
{
	return tep_read_number(tep, s->data + (size_t)i * s->esize, s->esize);
}

/* Copy up to max addresses of a span to out; returns how many. */
static inline int unwind_rec_copy(struct tep_handle *tep,
				  const struct unwind_rec_span *s,
				  unsigned long long *out, int max)
{
	int i;

	for (i = 0; i < s->nr && i < max; i++)
		out[i] = unwind_rec_addr(tep, s, i);
	return i;
}

/*
 * The addresses of ftrace:kernel_stack: "size" entries of caller[] (the
 * room left in the record when "size" is missing or too large).  Older
 * kernels end the array with ULONG_MAX, and the fixed array of those
 * kernels is padded with zeros: the span stops before either.
 */
static inline int unwind_rec_kstack(struct tep_handle *tep,
				    struct tep_record *record,
				    struct tep_format_field *size_f,
				    struct tep_format_field *caller_f,
				    struct unwind_rec_span *s)
{
	unsigned long long size, end;
	int room, i;

	if (!caller_f || caller_f->offset < 0 ||
	    caller_f->offset > record->size)
		return -1;
	s->esize = unwind_rec_elem_size(tep, caller_f);
	s->data = (char *)record->data + caller_f->offset;
	room = (record->size - caller_f->offset) / s->esize;
	s->nr = room;
	if (!unwind_rec_num(tep, record, size_f, &size) &&
	    (long long)size >= 0 && (long long)size < room)
		s->nr = size;

	end = s->esize == 4 ? 0xffffffffULL : ~0ULL;
	for (i = 0; i < s->nr; i++)
		if (unwind_rec_addr(tep, s, i) == end)
			break;
	s->nr = i;
	while (s->nr > 0 && !unwind_rec_addr(tep, s, s->nr - 1))
		s->nr--;
	return 0;
}

/*
 * The elements of a __data_loc (or __rel_loc) array field; -1 when the
 * field is not one or points outside the record.
 */
static inline int unwind_rec_dynamic(struct tep_handle *tep,
				     struct tep_record *record,
				     struct tep_format_field *f,
				     struct unwind_rec_span *s)
{
	unsigned long long v;
	unsigned int off, len;

	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4 ||
	    unwind_rec_num(tep, record, f, &v))
		return -1;
	off = v & 0xffff;
	len = (v >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	s->esize = unwind_rec_elem_size(tep, f);
	if (off > (unsigned int)record->size ||
	    len > (unsigned int)record->size - off || len % s->esize)
		return -1;
	s->data = (char *)record->data + off;
	s->nr = len / s->esize;
	return 0;
}

/*
 * The records (Documentation/contract.md, "The records") and their flag
 * bits are named in ustack.h (USTACK_RECORD_*, USTACK_COOKIE_*,
 * USTACK_STACK_*).  The kernel array of user_stack_cookie is a plain
 * __data_loc array: unwind_rec_dynamic() reads it.  Flag bits not named
 * there are reserved: readers ignore them.
 */

/* The USTACK_UNWINDER_* bits of a user_stack_deferred's flags */
static inline unsigned int unwind_rec_unwinder(unsigned long long flags)
{
	return (flags & USTACK_STACK_UNWIND_FP ? USTACK_UNWINDER_FP : 0) |
	       (flags & USTACK_STACK_UNWIND_SFRAME ? USTACK_UNWINDER_SFRAME : 0);
}

/*
 * Unreleased versions of the series wrote unwind:user_stack_cookie (the
 * cookie only, after a separate ftrace:kernel_stack) and
 * unwind:user_stack_deferred (with a 4-byte "truncated").  Readers do not
 * read those: they say so in one line, in these words.
 */
#define UNWIND_REC_PRERELEASE_MSG					\
	"trace recorded by a pre-release kernel series "		\
	"(unwind:user_stack_* records): record it again"

/* Non-zero when tep has the formats of the pre-release records. */
static inline int unwind_rec_prerelease(struct tep_handle *tep)
{
	return tep_find_event_by_name(tep, "unwind", "user_stack_cookie") ||
	       tep_find_event_by_name(tep, "unwind", "user_stack_deferred");
}

#endif /* _UNWIND_RECORD_H */
