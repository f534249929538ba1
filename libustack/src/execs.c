// SPDX-License-Identifier: LGPL-2.1
/*
 * Execs: when the processes of a trace.dat exec'd, so that a frame from
 * before an exec is named with the maps of the image it was taken in
 * (syms.c), or marked when those are not known.
 *
 * trace-cmd record -T (with the series) records sched:sched_process_exec
 * for that; an older recording with the syscalls has the successful
 * sys_exit_execve of each exec, taken when there is no
 * sched_process_exec at all.
 *
 * In the same pass, the objects loaded and unloaded while traced: the
 * SFrame registrar's trace_marker lines (ftrace:print, loads.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>

#include "ustack-local.h"
#include "tracecmd-compat.h"

struct exec_seen {
	int			pid;
	unsigned long long	ts;
};

struct exec_list {
	struct exec_seen	*e;
	size_t			nr;
};

static int list_add(struct exec_list *l, int pid, unsigned long long ts)
{
	struct exec_seen *e;

	e = realloc(l->e, (l->nr + 1) * sizeof(*e));
	if (!e)
		return -1;
	l->e = e;
	e[l->nr].pid = pid;
	e[l->nr].ts = ts;
	l->nr++;
	return 0;
}

struct exec_read {
	struct tep_handle	*tep;
	struct tep_event	*ex;		/* sched_process_exec */
	struct tep_event	*sx;		/* sys_exit_execve */
	struct tep_format_field	*pid_field;
	struct tep_format_field	*ret_field;
	struct tep_event	*pr;		/* ftrace:print */
	struct tep_format_field	*buf_field;
	struct ustack_loads	*loads;
	struct exec_list	*sched;
	struct exec_list	*sys;
	int			ret;
};

/* A marker line of the registrar: copied out of the record, bounded */
static int load_line(struct exec_read *r, struct tep_record *rec)
{
	char line[4352];
	int off = r->buf_field->offset, len;

	if (off < 0 || off >= rec->size ||
	    strncmp((const char *)rec->data + off, USTACK_MAP_PREFIX,
		    strlen(USTACK_MAP_PREFIX)))
		return 0;
	len = rec->size - off;
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, (const char *)rec->data + off, len);
	line[len] = '\0';
	return ustack_loads_add_line(r->loads, rec->ts,
				     tep_data_pid(r->tep, rec), line) < 0 ? -1 : 0;
}

static int exec_cb(struct tracecmd_input *handle, struct tep_record *rec,
		   int cpu, void *data)
{
	struct exec_read *r = data;
	unsigned long long val;
	int type;

	(void)handle;
	(void)cpu;
	if (r->ret)
		return 1;
	/* a record not fitting its page is damage: not read */
	if (ustack_record_check(r->tep, rec))
		return 0;
	type = tep_data_type(r->tep, rec);
	if (r->pid_field && type == r->ex->id &&
	    !tep_read_number_field(r->pid_field, rec->data, &val))
		r->ret = list_add(r->sched, (int)val, rec->ts);
	else if (r->ret_field && type == r->sx->id &&
		 !tep_read_number_field(r->ret_field, rec->data, &val) && !val)
		r->ret = list_add(r->sys, tep_data_pid(r->tep, rec), rec->ts);
	else if (r->buf_field && type == r->pr->id)
		r->ret = load_line(r, rec);
	return r->ret ? 1 : 0;
}

/*
 * The execs of one buffer: sched_process_exec's pid, sys_exit_execve's;
 * and its loads
 */
static int read_execs(struct tracecmd_input *h, struct exec_list *sched,
		      struct exec_list *sys, struct ustack_loads *loads)
{
	struct exec_read r = { .sched = sched, .sys = sys, .loads = loads };

	r.tep = tracecmd_get_tep(h);
	r.ex = tep_find_event_by_name(r.tep, "sched", "sched_process_exec");
	r.sx = tep_find_event_by_name(r.tep, "syscalls", "sys_exit_execve");
	if (r.ex)
		r.pid_field = tep_find_field(r.ex, "pid");
	if (r.sx)
		r.ret_field = tep_find_field(r.sx, "ret");
	r.pr = tep_find_event_by_name(r.tep, "ftrace", "print");
	if (r.pr && loads)
		r.buf_field = tep_find_field(r.pr, "buf");
	if (!r.pid_field && !r.ret_field && !r.buf_field)
		return 0;
	/* a read error ends what is read; the execs before it count */
	tracecmd_iterate_events(h, NULL, 0, exec_cb, &r);
	return r.ret;
}

/**
 * ustack_syms_load_execs - take the execs that a trace.dat file recorded
 * @syms: the symbols
 * @path: the trace.dat file
 *
 * Reads the file's records, those of each buffer instance too, and adds
 * each exec it recorded with ustack_syms_add_exec(): the
 * sched:sched_process_exec events (trace-cmd record -T records them),
 * or when there are none, the successful syscalls:sys_exit_execve
 * events.  It also takes the objects loaded and unloaded during the
 * recording that the SFrame registrar wrote to trace_marker (trace-cmd
 * record -T runs the command with it): a frame in one is named in the
 * object mapped there at its event's time (ustack_syms_set_time()).
 * ustack_syms_set_file() does this; trace-cmd report, which
 * names frames with ustack_syms_set_tracecmd(), calls it itself.  A file
 * without either event's format is not read.
 *
 * Returns the number of execs added, or -1 with errno set (EINVAL for a
 * bad argument or a file that cannot be read, ENOMEM).
 */
int ustack_syms_load_execs(struct ustack_syms *syms, const char *path)
{
	struct exec_list sched = { 0 }, sys = { 0 }, *l;
	struct tracecmd_input *top, *h;
	struct ustack_loads *loads;
	int i, n, ret = 0;
	size_t k;

	if (!syms || !path) {
		errno = EINVAL;
		return -1;
	}
	/* only what the file's headers allow: ustack_file_open() probes */
	top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!top) {
		errno = EINVAL;
		return -1;
	}
	loads = ustack_syms_loads(syms);
	ret = read_execs(top, &sched, &sys, loads);
	n = tracecmd_buffer_instances(top);
	for (i = 0; i < n && !ret; i++) {
		h = tracecmd_buffer_instance_handle(top, i);
		if (!h)
			continue;
		ret = read_execs(h, &sched, &sys, loads);
		tracecmd_close(h);
	}
	tracecmd_close(top);
	l = sched.nr ? &sched : &sys;
	for (k = 0; k < l->nr && !ret; k++)
		ret = ustack_syms_add_exec(syms, l->e[k].pid, l->e[k].ts);
	free(sched.e);
	free(sys.e);
	if (ret) {
		errno = ENOMEM;
		return -1;
	}
	return (int)l->nr;
}
