// SPDX-License-Identifier: LGPL-2.1
/*
 * libtraceevent plugin for the records of deferred user stack traces.
 *
 * The kernel writes, right after each event that asks for a deferred user
 * stack, on the event's CPU and under its task:
 *
 *   ftrace:user_stack_cookie     u64 cookie; unsigned int flags;
 *                                __data_loc unsigned long[] kernel;
 *
 * (the event's kernel stack, empty when none was asked for), and later,
 * possibly on another CPU, one record per (instance, cookie):
 *
 *   ftrace:user_stack_deferred   u64 cookie; [int pid;] int tgid;
 *                                unsigned int flags; unsigned int depth;
 *                                __data_loc unsigned long[] frames;
 *
 * Documentation/contract.md, "The records", is the reference.
 *
 * Each record is printed on its own, as plugin_function.c prints
 * ftrace:kernel_stack: the cookie, the flags decoded, then one frame per
 * line; kernel frames named from the trace's kallsyms, user frames as
 * addresses.  Joining an event with its user stack and naming user frames
 * need the whole trace and the traced binaries: that is the hosts' work
 * (the series' trace-cmd report, ustack, KernelShark), not a print
 * plugin's, which sees one record at a time.  The cookie printed on both
 * records is what joins them.
 *
 * The pre-release unwind:user_stack_cookie and unwind:user_stack_deferred
 * records are left to their print formats, with one warning.
 */
#include <errno.h>
#include <stdio.h>

#include "event-parse.h"
#include "event-utils.h"
#include "trace-seq.h"

/* contract.md, "The records"; the same bits as libustack's ustack.h */
#define COOKIE_NO_USER_STACK	(1U << 0)
#define STACK_TRUNCATED		(1U << 0)
#define STACK_LATE		(1U << 1)
#define STACK_UNWIND_FP		(1U << 2)
#define STACK_UNWIND_SFRAME	(1U << 3)

/* A kernel frame that is the ftrace trampoline's mark, not an address */
#define FTRACE_TRAMPOLINE	0x7fffffffULL

/* An array of addresses inside a record */
struct frames {
	const char	*data;
	int		nr;
	int		size;	/* of one address: 4 or 8 */
};

/*
 * A number field of at most 8 bytes, inside the record.
 * Returns 0, or -1 when the field is missing or lies outside.
 */
static int read_field(struct tep_event *event, struct tep_record *record,
		      const char *name, unsigned long long *val)
{
	struct tep_format_field *f = tep_find_field(event, name);

	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    (long long)f->offset + f->size > record->size)
		return -1;
	*val = tep_read_number(event->tep, (char *)record->data + f->offset,
			       f->size);
	return 0;
}

/*
 * The addresses of a __data_loc (or __rel_loc) unsigned long array, each
 * of the traced kernel's long size.  Returns 0, or -1 when the field is
 * not such an array or points outside the record.
 */
static int read_frames(struct tep_event *event, struct tep_record *record,
		       const char *name, struct frames *fr)
{
	struct tep_format_field *f = tep_find_field(event, name);
	unsigned long long loc;
	unsigned int off, len;

	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) ||
	    read_field(event, record, name, &loc))
		return -1;
	off = loc & 0xffff;
	len = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	fr->size = f->elementsize;
	if (fr->size != 4 && fr->size != 8)
		fr->size = tep_get_long_size(event->tep);
	if (fr->size != 4 && fr->size != 8)
		fr->size = 8;
	if (off > (unsigned int)record->size ||
	    len > (unsigned int)record->size - off || len % fr->size)
		return -1;
	fr->data = (char *)record->data + off;
	fr->nr = len / fr->size;
	return 0;
}

static unsigned long long frame(struct tep_handle *tep,
				const struct frames *fr, int i)
{
	return tep_read_number(tep, fr->data + (size_t)i * fr->size, fr->size);
}

/* One kernel frame, as ftrace:kernel_stack with the offset option */
static void print_kernel_frame(struct trace_seq *s, struct tep_handle *tep,
			       unsigned long long addr)
{
	const char *func = tep_find_function(tep, addr);

	if (addr == FTRACE_TRAMPOLINE)
		trace_seq_printf(s, "\n=> [ftrace trampoline] (%llx)", addr);
	else if (func)
		trace_seq_printf(s, "\n=> %s+0x%llx (%llx)", func,
				 addr - tep_find_function_address(tep, addr),
				 addr);
	else
		trace_seq_printf(s, "\n=> %llx", addr);
}

/*
 *   cookie=0x300000001 kernel=4 [(no user stack)]
 *   => ftrace_syscall_enter+0x178 (ffffffff81145e18)
 *   ...
 */
static int cookie_handler(struct trace_seq *s, struct tep_record *record,
			  struct tep_event *event, void *context)
{
	unsigned long long cookie, flags = 0;
	struct frames fr;
	int i, bad;

	(void)context;
	if (read_field(event, record, "cookie", &cookie)) {
		trace_seq_puts(s, "[unwind_deferred: no cookie field] ");
		return 1;	/* and the event's own print format */
	}
	read_field(event, record, "flags", &flags);
	bad = read_frames(event, record, "kernel", &fr);
	if (bad)
		fr.nr = 0;

	trace_seq_printf(s, "cookie=0x%llx kernel=%d", cookie, fr.nr);
	if (flags & COOKIE_NO_USER_STACK)
		trace_seq_puts(s, " (no user stack)");
	if (bad)
		trace_seq_puts(s, " [unwind_deferred: bad or missing kernel array]");
	for (i = 0; i < fr.nr; i++)
		print_kernel_frame(s, event->tep, frame(event->tep, &fr, i));
	return 0;
}

/*
 *   cookie=0x300000001 tgid=80 nr=5 [depth=N] [(truncated)] [(late)]
 *         [empty (user unwind failed)] [[sframe]|[sframe+fp]]
 *   => 0x4012b8
 *   ...
 *
 * No mark for frame pointers, as every reader of the series prints them.
 */
static int deferred_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	unsigned long long cookie, tgid = 0, flags = 0, depth = 0;
	struct frames fr;
	int i;

	(void)context;
	if (read_field(event, record, "cookie", &cookie)) {
		trace_seq_puts(s, "[unwind_deferred: no cookie field] ");
		return 1;
	}
	read_field(event, record, "tgid", &tgid);
	read_field(event, record, "flags", &flags);
	if (read_frames(event, record, "frames", &fr)) {
		trace_seq_printf(s,
			"cookie=0x%llx tgid=%d [unwind_deferred: bad or missing frames array]",
			cookie, (int)tgid);
		return 0;
	}
	if (read_field(event, record, "depth", &depth))
		depth = fr.nr;

	trace_seq_printf(s, "cookie=0x%llx tgid=%d nr=%d", cookie, (int)tgid,
			 fr.nr);
	if ((flags & STACK_TRUNCATED) || depth != (unsigned long long)fr.nr)
		trace_seq_printf(s, " depth=%llu", depth);
	if (flags & STACK_TRUNCATED)
		trace_seq_puts(s, " (truncated)");
	if (flags & STACK_LATE)
		trace_seq_puts(s, " (late)");
	if (!fr.nr)
		trace_seq_puts(s, " empty (user unwind failed)");
	if (flags & STACK_UNWIND_SFRAME)
		trace_seq_puts(s, flags & STACK_UNWIND_FP ? " [sframe+fp]" :
			       " [sframe]");
	for (i = 0; i < fr.nr; i++)
		trace_seq_printf(s, "\n=> 0x%llx", frame(event->tep, &fr, i));
	return 0;
}

/* unwind:* records of the pre-release series: their print formats */
static int prerelease_handler(struct trace_seq *s, struct tep_record *record,
			      struct tep_event *event, void *context)
{
	static int warned;

	(void)s;
	(void)record;
	(void)event;
	(void)context;
	if (!warned++) {
		errno = 0;	/* tep_warning() adds strerror(errno) */
		tep_warning("unwind_deferred: pre-release unwind:* records: record the trace again");
	}
	return 1;
}

static const struct {
	const char		*system;
	const char		*name;
	tep_event_handler_func	handler;
} handlers[] = {
	{ "ftrace", "user_stack_cookie", cookie_handler },
	{ "ftrace", "user_stack_deferred", deferred_handler },
	{ "unwind", "user_stack_cookie", prerelease_handler },
	{ "unwind", "user_stack_deferred", prerelease_handler },
};

#define NR_HANDLERS	(sizeof(handlers) / sizeof(handlers[0]))

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	unsigned int i;

	for (i = 0; i < NR_HANDLERS; i++)
		tep_register_event_handler(tep, -1, handlers[i].system,
					   handlers[i].name,
					   handlers[i].handler, NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	unsigned int i;

	for (i = 0; i < NR_HANDLERS; i++)
		tep_unregister_event_handler(tep, -1, handlers[i].system,
					     handlers[i].name,
					     handlers[i].handler, NULL);
}
