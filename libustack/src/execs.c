// SPDX-License-Identifier: LGPL-2.1
/*
 * Execs and loads from a host's own read loop: when the processes of a
 * trace exec'd, so that a frame from before an exec is named with the
 * maps of the image it was taken in (syms.c), or marked when those are
 * not known; and the objects loaded and unloaded while traced, from the
 * SFrame registrar's trace_marker lines (ftrace:print, loads.c) and, on a
 * kernel that has it, the mmap:exec_mapping event of each new executable
 * mapping of a file (which needs no registrar: any process, any time).
 *
 * trace-cmd record -T (with the series) records sched:sched_process_exec
 * for that; an older recording with the syscalls has the successful
 * sys_exit_execve of each exec, taken when there is no
 * sched_process_exec at all.  The host reads its trace however it reads
 * it (libtracecmd, KernelShark's data streams) and hands each record
 * here: the library reads no file.
 */
#include <errno.h>
#include <string.h>

#include "ustack-local.h"

/* The events and fields of a tep_handle, looked up once per handle */
struct exec_events {
	struct tep_handle	*tep;
	int			ex_id;		/* sched_process_exec */
	struct tep_format_field	*pid_field;
	int			sx_id;		/* sys_exit_execve */
	struct tep_format_field	*ret_field;
	int			pr_id;		/* ftrace:print */
	struct tep_format_field	*buf_field;
	int			em_id;		/* mmap:exec_mapping */
	struct tep_format_field	*em[5];		/* tgid exec start end pgoff */
	struct tep_event	*em_event;
};

static const char *const em_fields[5] = { "tgid", "exec", "start", "end", "pgoff" };

static void events_find(struct exec_events *e, struct tep_handle *tep)
{
	struct tep_event *ev;
	int i;

	memset(e, 0, sizeof(*e));
	e->tep = tep;
	e->ex_id = e->sx_id = e->pr_id = e->em_id = -1;
	ev = tep_find_event_by_name(tep, "sched", "sched_process_exec");
	if (ev && (e->pid_field = tep_find_field(ev, "pid")))
		e->ex_id = ev->id;
	ev = tep_find_event_by_name(tep, "syscalls", "sys_exit_execve");
	if (ev && (e->ret_field = tep_find_field(ev, "ret")))
		e->sx_id = ev->id;
	ev = tep_find_event_by_name(tep, "ftrace", "print");
	if (ev && (e->buf_field = tep_find_field(ev, "buf")))
		e->pr_id = ev->id;
	ev = tep_find_event_by_name(tep, "mmap", "exec_mapping");
	for (i = 0; ev && i < 5; i++) {
		e->em[i] = tep_find_field(ev, em_fields[i]);
		if (!e->em[i])
			ev = NULL;
	}
	if (ev && tep_find_field(ev, "build_id") && tep_find_field(ev, "path")) {
		e->em_event = ev;
		e->em_id = ev->id;
	}
}

/*
 * An mmap:exec_mapping record (the kernel's, 7-exec-mapping): a load of
 * the mapping's file from the record's time (loads.c)
 */
static int mapping_event(struct ustack_syms *syms, struct exec_events *e,
			 struct tep_record *rec)
{
	unsigned long long v[5];
	struct ustack_loads *loads;
	struct ustack_seg seg;
	char path[4097], id[2 * 20 + 1];
	const unsigned char *raw;
	int len, i;

	for (i = 0; i < 5; i++) {
		if (tep_read_number_field(e->em[i], rec->data, &v[i]))
			return 0;
	}
	raw = tep_get_field_raw(NULL, e->em_event, "build_id", rec, &len, 0);
	id[0] = '\0';
	if (raw && len > 0 && len <= 20) {
		for (i = 0; i < len; i++)
			snprintf(id + 2 * i, 3, "%02x", raw[i]);
	}
	raw = tep_get_field_raw(NULL, e->em_event, "path", rec, &len, 0);
	if (!raw || len <= 0)
		return 0;
	if (len >= (int)sizeof(path))
		len = sizeof(path) - 1;
	memcpy(path, raw, len);
	path[len] = '\0';
	seg.start = v[2];
	seg.end = v[3];
	seg.pgoff = v[4];
	loads = ustack_syms_loads(syms);
	if (!loads)
		return -1;
	return ustack_loads_add_mapping(loads, rec->ts, (int)v[0], v[1] != 0,
					&seg, id, path) < 0 ? -1 : 1;
}

/* A marker line of the registrar: copied out of the record, bounded */
static int load_line(struct ustack_syms *syms, struct exec_events *e,
		     struct tep_record *rec)
{
	struct ustack_loads *loads;
	char line[4352];
	int off = e->buf_field->offset, len;

	if (off < 0 || off >= rec->size ||
	    strncmp((const char *)rec->data + off, USTACK_MAP_PREFIX,
		    strlen(USTACK_MAP_PREFIX)))
		return 0;
	len = rec->size - off;
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, (const char *)rec->data + off, len);
	line[len] = '\0';
	loads = ustack_syms_loads(syms);
	if (!loads)
		return -1;
	return ustack_loads_add_line(loads, rec->ts, tep_data_pid(e->tep, rec),
				     line) < 0 ? -1 : 1;
}

/**
 * ustack_syms_add_record - take an exec or a load from a trace's record
 * @syms: the symbols
 * @tep: the event formats of the record's trace
 * @record: a record, as the host read it
 *
 * A host that names the frames of a recorded trace feeds each record of
 * it here from its own read loop, before it names the frames of the
 * events before them (an exec or load changes the maps of the frames
 * before it: ustack_syms_maps_changes()).  Taken are the execs
 * (sched:sched_process_exec, or where none was seen, the successful
 * syscalls:sys_exit_execve), as ustack_syms_add_exec() adds them, and
 * the objects loaded and unloaded during the recording that the SFrame
 * registrar wrote to trace_marker (ftrace:print "ustack_map:" lines,
 * trace-cmd record -T) or the kernel reported (mmap:exec_mapping): a
 * frame in one is named in the object mapped there at its event's time
 * (ustack_syms_set_time()).  Other records are passed over.
 *
 * Returns 1 when the record was taken, 0 when it is none of these, or -1
 * with errno set: EINVAL for a NULL argument, EBADMSG for a record that
 * does not fit its page (ustack_record_check(): nothing taken), ENOMEM.
 */
int ustack_syms_add_record(struct ustack_syms *syms, struct tep_handle *tep,
			   struct tep_record *record)
{
	struct exec_events *e;
	unsigned long long val;
	int type, ret;

	if (!syms || !tep || !record) {
		errno = EINVAL;
		return -1;
	}
	e = ustack_syms_exec_events(syms);
	if (!e)
		return -1;
	if (e->tep != tep)
		events_find(e, tep);
	if (e->ex_id < 0 && e->sx_id < 0 && e->pr_id < 0 && e->em_id < 0)
		return 0;
	/* a record not fitting its page is damage: not read */
	if (ustack_record_check(tep, record)) {
		errno = EBADMSG;
		return -1;
	}
	type = tep_data_type(tep, record);
	if (type == e->ex_id &&
	    !tep_read_number_field(e->pid_field, record->data, &val))
		ret = ustack_syms_add_exec(syms, (int)val, record->ts);
	else if (type == e->sx_id &&
		 !tep_read_number_field(e->ret_field, record->data, &val)) {
		if (val)
			return 0;	/* a failed execve */
		ret = ustack_syms_add_sys_exec(syms, tep_data_pid(tep, record),
					       record->ts);
	} else if (type == e->pr_id)
		return load_line(syms, e, record);
	else if (type == e->em_id)
		return mapping_event(syms, e, record);
	else
		return 0;
	if (ret) {
		errno = ENOMEM;
		return -1;
	}
	return 1;
}

/* The lookup's room, kept with the symbols */
__hidden size_t ustack_exec_events_size(void)
{
	return sizeof(struct exec_events);
}
