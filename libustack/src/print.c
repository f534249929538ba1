// SPDX-License-Identifier: LGPL-2.1
/*
 * How a stack looks: one frame, or the stack block of a joined event
 * (its kernel frames, the status of its user stack with the unwinder's
 * mark, its user frames).  trace-cmd report with the series, the
 * libtraceevent plugin, the ustack tool and the KernelShark plugin all
 * print through these two functions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <trace-seq.h>

#include "ustack-local.h"

/* A frame's text, with its inlined functions and source line */
#define FRAME_TEXT_MAX	4096

#define PRINT_FRAME_FLAGS	(USTACK_PRINT_KERNEL | USTACK_PRINT_RAW | \
				 USTACK_PRINT_CHECK | USTACK_PRINT_ADDR | \
				 USTACK_PRINT_LINES)
#define PRINT_EVENT_FLAGS	(USTACK_PRINT_RAW | USTACK_PRINT_LIST | \
				 USTACK_PRINT_FRAMES | USTACK_PRINT_LINES)

/*
 * A kernel frame, named with @tep's kallsyms, else with @syms' (see
 * ustack_syms_set_tep()).  With USTACK_PRINT_ADDR, as trace-cmd prints
 * a kernel stack: the address after the name, and alone (bare hex) when
 * no function holds it.
 */
static void kernel_text(char *buf, size_t size, struct ustack_syms *syms,
			struct tep_handle *tep, unsigned long long addr,
			unsigned int flags)
{
	bool with_addr = flags & USTACK_PRINT_ADDR;
	struct ustack_sym sym = { 0 };

	if (addr == USTACK_FTRACE_TRAMPOLINE) {
		snprintf(buf, size, with_addr ? "%s (%llx)" : "%s",
			 USTACK_TRAMPOLINE_TEXT, addr);
		return;
	}
	if (!(flags & USTACK_PRINT_RAW)) {
		if (tep) {
			sym.name = tep_find_function(tep, addr);
			if (sym.name)
				sym.offset = addr -
					tep_find_function_address(tep, addr);
		} else if (syms) {
			ustack_syms_resolve_kernel(syms, addr, &sym);
		}
	}
	if (sym.name && with_addr)
		snprintf(buf, size, "%s+0x%llx (%llx)", sym.name, sym.offset,
			 addr);
	else if (sym.name)
		snprintf(buf, size, "%s+0x%llx", sym.name, sym.offset);
	else
		snprintf(buf, size, with_addr ? "%llx" : "0x%llx", addr);
}

/* A user frame: ustack_syms_format(), or _lines() with USTACK_PRINT_LINES */
static void user_text(char *buf, size_t size, struct ustack_syms *syms,
		      int pid, unsigned long long addr, unsigned int flags)
{
	int ret = -1;

	if (syms && !(flags & USTACK_PRINT_RAW))
		ret = flags & USTACK_PRINT_LINES ?
			ustack_syms_format_lines(syms, pid, addr, buf, size) :
			ustack_syms_format(syms, pid, addr, buf, size);
	if (ret < 0)
		snprintf(buf, size, "0x%llx", addr);
}

static void frame_text(char *buf, size_t size, struct ustack_syms *syms,
		       struct tep_handle *tep, int pid,
		       unsigned long long addr, unsigned int flags)
{
	bool kernel = flags & USTACK_PRINT_KERNEL;

	if ((flags & USTACK_PRINT_CHECK) &&
	    !ustack_frame_plausible(addr, (kernel ? USTACK_FRAME_KERNEL :
					   USTACK_FRAME_USER) |
				    ustack_frame_arch(tep)))
		snprintf(buf, size, "0x%llx %s", addr, USTACK_BAD_FRAME_TEXT);
	else if (kernel)
		kernel_text(buf, size, syms, tep, addr, flags);
	else
		user_text(buf, size, syms, pid, addr, flags);
}

static int seq_status(struct trace_seq *s)
{
	if (s->state != TRACE_SEQ__GOOD) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/**
 * ustack_frame_print - print one frame of a stack
 * @s: where the text goes
 * @syms: the symbols of the frames, or NULL (addresses only)
 * @tep: the kallsyms that name kernel frames, or NULL for @syms'
 * @pid: the process of a user frame (ustack_event.tgid)
 * @addr: the frame
 * @flags: USTACK_PRINT_KERNEL for a kernel frame, and USTACK_PRINT_RAW,
 *	   _CHECK, _ADDR (kernel frames), _LINES (user frames)
 *
 * Writes the frame's text, no newline: USTACK_PRINT_LINES puts the
 * functions inlined at a user frame first, one line each, and the
 * source line after the frame's name on its last line.  A user frame
 * is taken at the time ustack_syms_set_time() last set.
 *
 * Returns 0, or -1 with errno set (EINVAL for a bad argument, ENOMEM when
 * @s could not grow).
 */
int ustack_frame_print(struct trace_seq *s, struct ustack_syms *syms,
		       struct tep_handle *tep, int pid,
		       unsigned long long addr, unsigned int flags)
{
	char buf[FRAME_TEXT_MAX];

	if (!s || (flags & ~PRINT_FRAME_FLAGS)) {
		errno = EINVAL;
		return -1;
	}
	frame_text(buf, sizeof(buf), syms, tep, pid, addr, flags);
	trace_seq_puts(s, buf);
	return seq_status(s);
}

/* Each line of a frame's text, after @prefix */
static void put_lines(struct trace_seq *s, const char *prefix, char *text)
{
	char *line, *next;

	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		trace_seq_printf(s, "%s%s\n", prefix, line);
	}
}

/* The user stack's line in the report layout: its status and unwinder */
static void put_user_head(struct trace_seq *s, const struct ustack_event *ev)
{
	trace_seq_puts(s, " <user stack>");
	if (ev->status == USTACK_TRUNCATED)
		trace_seq_printf(s, " truncated (%u frames found)", ev->depth);
	else if (ev->status != USTACK_COMPLETE)
		trace_seq_printf(s, " %s", ustack_status_name(ev->status));
	/* no mark: frame pointers alone, or a kernel that does not say */
	if (ev->unwinder & USTACK_UNWINDER_SFRAME)
		trace_seq_printf(s, " [%s]", ustack_unwinder_name(ev->unwinder));
	trace_seq_putc(s, '\n');
}

/* The block of ustack_event_print() */
static void event_text(struct trace_seq *s, const struct ustack_event *ev,
		       struct ustack_syms *syms, unsigned int flags)
{
	unsigned int raw = flags & USTACK_PRINT_RAW;
	bool list = flags & USTACK_PRINT_LIST;
	bool heads = !list && !(flags & USTACK_PRINT_FRAMES);
	char buf[FRAME_TEXT_MAX];
	int i;

	if (heads && ev->nr_kernel)
		trace_seq_puts(s, " <kernel stack>\n");
	for (i = 0; i < ev->nr_kernel; i++) {
		frame_text(buf, sizeof(buf), syms, ev->tep, 0, ev->kernel[i],
			   USTACK_PRINT_KERNEL | raw |
			   (list ? USTACK_PRINT_CHECK : USTACK_PRINT_ADDR));
		trace_seq_printf(s, "%s%s\n", list ? "  k " : " => ", buf);
	}
	if (!list && ev->status == USTACK_NO_COOKIE)
		return;
	if (heads)
		put_user_head(s, ev);
	for (i = 0; i < ev->nr_user; i++) {
		frame_text(buf, sizeof(buf), syms, ev->tep, ev->tgid,
			   ev->user[i], raw | (list ? USTACK_PRINT_CHECK |
			   (flags & USTACK_PRINT_LINES) : USTACK_PRINT_LINES));
		put_lines(s, list ? "  u " : " => ", buf);
	}
}

/**
 * ustack_event_print - print the stacks of a joined event
 * @s: where the text goes
 * @ev: the event, as the join delivered it
 * @syms: the symbols of its user frames, or NULL (addresses only)
 * @flags: USTACK_PRINT_RAW, USTACK_PRINT_LIST, USTACK_PRINT_FRAMES, and
 *	   with USTACK_PRINT_LIST, USTACK_PRINT_LINES
 *
 * Writes the stack block that goes under the event's own line.  By
 * default in the layout of trace-cmd report: " <kernel stack>" and a
 * " => " line per kernel frame (named with ev->tep's kallsyms), then
 * " <user stack>" with the status when it is not complete and the
 * unwinder's mark when SFrame took part, and a " => " line per user
 * frame, its inlined functions and source line included.  An event with
 * no cookie (USTACK_NO_COOKIE) gets its kernel frames only.
 * USTACK_PRINT_FRAMES leaves out the two lines that head the kernel and
 * the user frames.  With USTACK_PRINT_LIST, the layout of the ustack
 * tool: "  k FRAME" and "  u FRAME" lines, and frames that cannot be
 * return addresses marked; with USTACK_PRINT_LINES too, a "  u" line
 * for each function inlined at a user frame and its source line, as
 * report shows them.  The user frames are named in the maps of the
 * event's time, ev->ts (ustack_syms_set_time(), which this sets).  A
 * stack printed before with @syms may come from its kept text
 * (ustack_syms_set_print_cache()).
 *
 * Returns 0, or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_event_print(struct trace_seq *s, const struct ustack_event *ev,
		       struct ustack_syms *syms, unsigned int flags)
{
	struct ustack_text_key key;
	const char *text;
	unsigned int start;

	if (!s || !ev || (flags & ~PRINT_EVENT_FLAGS)) {
		errno = EINVAL;
		return -1;
	}
	/* the user frames in the maps of the event's time */
	if (syms)
		ustack_syms_set_time(syms, ev->ts);
	/* printed before (ustack_syms_set_print_cache()) */
	text = ustack_syms_text_find(syms, ev, flags, &key);
	if (text) {
		trace_seq_puts(s, text);
		return seq_status(s);
	}
	start = s->len;
	event_text(s, ev, syms, flags);
	if (seq_status(s))
		return -1;
	ustack_syms_text_keep(syms, ev, flags, &key, s->buffer + start,
			      s->len - start);
	return 0;
}
