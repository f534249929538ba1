// SPDX-License-Identifier: LGPL-2.1
/*
 * Loads: the objects a process mapped and unmapped while it was traced
 * (dlopen()/dlclose()), each with the time it was there, so that a frame
 * in one is named in the object mapped at its event's time, not in the
 * maps read at the end (which miss an object unloaded before it, or show
 * another object loaded at the same place later).
 *
 * They come from the trace_marker lines that the SFrame registrar
 * (sframe-gen/preload/maps.c) writes when trace-cmd record -T runs a
 * command with it, and those trace-cmd record writes when it starts
 * without a command, for each process already running (a "synth" line,
 * then a "mapped" line per object), as ustack.h defines them (USTACK_MAP_*).
 *
 * A "mapped" object was there before its line, since the process's start
 * or its last exec: it holds for every earlier time of the same image,
 * unless an exec came between the synth line and it (which image the
 * maps were read in is then unknown, and syms.c leaves it).
 *
 * execs.c finds them in a trace.dat file; syms.c asks for the loads that
 * hold an address.  A line is untrusted input: anything that does not
 * parse whole, of another version, or written by another thread than its
 * tid= says is left.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-local.h"

/* No more loads than this per process (a dlopen() loop): warned, dropped */
#define LOADS_MAX	(1 << 20)

struct pid_loads {
	int			pid;
	unsigned long long	synth;		/* its last "synth" line's time */
	int			nr;
	bool			sorted;		/* by lowest, for lookups */
	unsigned long long	span;		/* the largest lowest..end */
	struct ustack_load	*l;
	/* each load's from and closed to, sorted (NULL: to be made) */
	unsigned long long	*bounds;
	int			nr_bounds;
};

struct ustack_loads {
	struct pid_loads	*pids;		/* sorted by pid */
	int			nr;
	bool			warned;
	bool			warned_version;
	bool			warned_tid;
};

struct ustack_loads *ustack_loads_alloc(void)
{
	return calloc(1, sizeof(struct ustack_loads));
}

void ustack_loads_free(struct ustack_loads *loads)
{
	int i, j;

	if (!loads)
		return;
	for (i = 0; i < loads->nr; i++) {
		for (j = 0; j < loads->pids[i].nr; j++) {
			free(loads->pids[i].l[j].file);
			free(loads->pids[i].l[j].build_id);
		}
		free(loads->pids[i].l);
		free(loads->pids[i].bounds);
	}
	free(loads->pids);
	free(loads);
}

static struct pid_loads *pid_get(struct ustack_loads *loads, int pid,
				 bool create)
{
	int lo = 0, hi = loads->nr, mid, i;
	struct pid_loads *p;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (loads->pids[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < loads->nr && loads->pids[lo].pid == pid)
		return &loads->pids[lo];
	if (!create)
		return NULL;
	p = realloc(loads->pids, (loads->nr + 1) * sizeof(*p));
	if (!p)
		return NULL;
	loads->pids = p;
	for (i = loads->nr; i > lo; i--)
		p[i] = p[i - 1];
	memset(&p[lo], 0, sizeof(p[lo]));
	p[lo].pid = pid;
	loads->nr++;
	return &p[lo];
}

/* "0x..." or hex without it, the whole of [s, end) */
static bool hex_span(const char *s, const char *end, unsigned long long *v)
{
	char *e;

	if (end - s > 2 && s[0] == '0' && s[1] == 'x')
		s += 2;
	if (s >= end || !((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
		return false;
	errno = 0;
	*v = strtoull(s, &e, 16);
	return !errno && e == end;
}

/* The value of "KEY=" in line up to the next space (or the end) */
static bool field(const char *line, const char *key, const char **v,
		  const char **end)
{
	size_t n = strlen(key);
	const char *s = line;

	while ((s = strstr(s, key))) {
		if ((s == line || s[-1] == ' ') && s[n] == '=') {
			*v = s + n + 1;
			*end = *v + strcspn(*v, " \n");
			return true;
		}
		s += n;
	}
	return false;
}

static bool num_field(const char *line, const char *key,
		      unsigned long long *v)
{
	const char *s, *e;

	return field(line, key, &s, &e) && hex_span(s, e, v);
}

/* A positive decimal int, the whole of KEY's value */
static bool int_field(const char *line, const char *key, int *pid)
{
	const char *s, *e;
	char *x;
	long v;

	if (!field(line, key, &s, &e))
		return false;
	errno = 0;
	v = strtol(s, &x, 10);
	if (errno || x != e || v <= 0 || v > INT_MAX)
		return false;
	*pid = (int)v;
	return true;
}

/* "START-END@PGOFF[,...]" into l->segs; false on anything else */
static bool parse_segs(const char *s, const char *end, struct ustack_load *l)
{
	const char *c, *dash, *at;
	struct ustack_seg *g;

	while (s < end) {
		c = memchr(s, ',', end - s);
		if (!c)
			c = end;
		dash = memchr(s, '-', c - s);
		at = dash ? memchr(dash, '@', c - dash) : NULL;
		if (!at || l->nr_segs == USTACK_LOAD_SEGS)
			return false;
		g = &l->segs[l->nr_segs];
		if (!hex_span(s, dash, &g->start) ||
		    !hex_span(dash + 1, at, &g->end) ||
		    !hex_span(at + 1, c, &g->pgoff) || g->end <= g->start)
			return false;
		if (l->nr_segs && g->start < l->segs[l->nr_segs - 1].start)
			return false;
		l->nr_segs++;
		s = c < end ? c + 1 : c;
	}
	return l->nr_segs > 0;
}

/*
 * The line's version is one this reader knows, and the thread that wrote
 * it (the record's common_pid) the one it names; *pid its process
 */
static bool line_ok(struct ustack_loads *loads, int rec_pid,
		    const char *line, int *pid)
{
	int v, tid;

	if (!int_field(line, "v", &v) || v != USTACK_MAP_VERSION) {
		if (!loads->warned_version)
			ustack_warn("registrar lines of a version other than %d: not read; frames in objects loaded while traced are named by the last maps",
				    USTACK_MAP_VERSION);
		loads->warned_version = true;
		return false;
	}
	if (!int_field(line, "pid", pid) || !int_field(line, "tid", &tid))
		return false;
	if (tid != rec_pid) {
		if (!loads->warned_tid)
			ustack_warn("a registrar line of thread %d says thread %d wrote it: not read",
				    rec_pid, tid);
		loads->warned_tid = true;
		return false;
	}
	return true;
}

/*
 * Append @l (its file and build ID allocated) to the loads of @p, the
 * process @pid (NULL: no memory); 1, or -1 without memory
 */
static int load_append(struct ustack_loads *loads, struct pid_loads *p,
		       int pid, struct ustack_load *l)
{
	if (!l->file || !p || p->nr >= LOADS_MAX) {
		if (p && p->nr >= LOADS_MAX && !loads->warned) {
			ustack_warn("process %d: more than %d objects loaded, later ones named by its last maps",
				    pid, LOADS_MAX);
			loads->warned = true;
		}
		free(l->file);
		free(l->build_id);
		return l->file && p ? 1 : -1;
	}
	if (!(p->nr & (p->nr - 1))) {	/* full at 0, 1, 2, 4, ... */
		struct ustack_load *n;

		n = realloc(p->l, (p->nr ? 2 * p->nr : 1) * sizeof(*n));
		if (!n) {
			free(l->file);
			free(l->build_id);
			return -1;
		}
		p->l = n;
	}
	p->l[p->nr++] = *l;
	p->sorted = false;
	free(p->bounds);
	p->bounds = NULL;
	if (l->segs[l->nr_segs - 1].end - l->segs[0].start > p->span)
		p->span = l->segs[l->nr_segs - 1].end - l->segs[0].start;
	return 1;
}

static int add_open(struct ustack_loads *loads, unsigned long long ts,
		    int rec_pid, const char *line, bool mapped)
{
	struct ustack_load l = { .from = ts, .to = ULLONG_MAX };
	const char *s, *e, *path;
	struct pid_loads *p;
	int pid;

	path = strstr(line, USTACK_MAP_PATH_KEY);
	if (!path || !line_ok(loads, rec_pid, line, &pid) ||
	    !num_field(line, "base", &l.base) ||
	    !field(line, "segs", &s, &e) || e > path || !parse_segs(s, e, &l))
		return 0;
	path += strlen(USTACK_MAP_PATH_KEY);
	if (*path != '/')
		return 0;
	if (mapped) {
		/* only after the synth line of its read */
		p = pid_get(loads, pid, false);
		if (!p || !p->synth || p->synth > ts)
			return 0;
		l.from = p->synth;
		l.seen = ts;
		l.since_image = true;
	}
	l.file = strndup(path, strcspn(path, "\n"));
	if (field(line, "build_id", &s, &e) && e > s && e < path &&
	    ((size_t)(e - s) != strlen(USTACK_MAP_NO_BUILD_ID) ||
	     strncmp(s, USTACK_MAP_NO_BUILD_ID, e - s)))
		l.build_id = strndup(s, e - s);
	return load_append(loads, pid_get(loads, pid, true), pid, &l);
}

static int add_close(struct ustack_loads *loads, unsigned long long ts,
		     int rec_pid, const char *line)
{
	unsigned long long base;
	struct pid_loads *p;
	int pid, i;

	if (!line_ok(loads, rec_pid, line, &pid) ||
	    !num_field(line, "base", &base))
		return 0;
	p = pid_get(loads, pid, false);
	/* the last load of that base still there (lines come in time order) */
	for (i = p ? p->nr - 1 : -1; i >= 0; i--) {
		if (p->l[i].base == base && p->l[i].to == ULLONG_MAX &&
		    p->l[i].from <= ts) {
			p->l[i].to = ts;
			free(p->bounds);
			p->bounds = NULL;
			break;
		}
	}
	return 1;
}

/* A "synth" line: the maps of pid are read next */
static int add_synth(struct ustack_loads *loads, unsigned long long ts,
		     int rec_pid, const char *line)
{
	struct pid_loads *p;
	int pid;

	if (!ts || !line_ok(loads, rec_pid, line, &pid))
		return 0;
	p = pid_get(loads, pid, true);
	if (!p)
		return -1;
	p->synth = ts;
	return 1;
}

/*
 * An executable mapping the kernel reported (mmap:exec_mapping, execs.c):
 * a load of one segment from @ts on, in the image after the exec that
 * made it when @in_exec.  What it maps over is gone from then: the loads
 * of @pid it overlaps end at @ts (a dlopen() where a dlclose()d object
 * was needs no close line).  Returns 1 when taken, 0 for a mapping that
 * names no file ("//enomem", a relative path) or an empty range, -1
 * without memory.
 */
int ustack_loads_add_mapping(struct ustack_loads *loads, unsigned long long ts,
			     int pid, bool in_exec, const struct ustack_seg *seg,
			     const char *build_id, const char *path)
{
	struct ustack_load l = {
		.from = ts, .to = ULLONG_MAX, .base = ULLONG_MAX,
		.in_exec = in_exec, .nr_segs = 1, .segs = { *seg },
	};
	struct pid_loads *p;
	int i, j;

	if (pid <= 0 || seg->end <= seg->start || path[0] != '/' ||
	    path[1] == '/')
		return 0;
	p = pid_get(loads, pid, true);
	for (i = 0; p && i < p->nr; i++) {
		struct ustack_load *o = &p->l[i];

		if (o->to != ULLONG_MAX || o->from > ts)
			continue;
		for (j = 0; j < o->nr_segs; j++) {
			if (o->segs[j].start < seg->end &&
			    seg->start < o->segs[j].end) {
				o->to = ts;
				free(p->bounds);
				p->bounds = NULL;
				break;
			}
		}
	}
	l.file = strdup(path);
	if (build_id && *build_id)
		l.build_id = strdup(build_id);
	return load_append(loads, p, pid, &l);
}

/**
 * ustack_loads_add_line - take one "ustack_map:" trace_marker line
 * @loads: the loads
 * @ts: the time stamp of its event
 * @rec_pid: the pid of its event (common_pid: the thread that wrote it)
 * @line: the marker's text
 *
 * Lines must come in time order.  Returns 1 for a line taken, 0 for one
 * that is not the registrar's (or does not parse, is of another version,
 * or names another thread than @rec_pid), -1 with errno ENOMEM.
 */
int ustack_loads_add_line(struct ustack_loads *loads, unsigned long long ts,
			  int rec_pid, const char *line)
{
	if (!strncmp(line, USTACK_MAP_OPEN, strlen(USTACK_MAP_OPEN)))
		return add_open(loads, ts, rec_pid, line, false);
	if (!strncmp(line, USTACK_MAP_MAPPED, strlen(USTACK_MAP_MAPPED)))
		return add_open(loads, ts, rec_pid, line, true);
	if (!strncmp(line, USTACK_MAP_SYNTH, strlen(USTACK_MAP_SYNTH)))
		return add_synth(loads, ts, rec_pid, line);
	if (!strncmp(line, USTACK_MAP_CLOSE, strlen(USTACK_MAP_CLOSE)))
		return add_close(loads, ts, rec_pid, line);
	return 0;
}

static int cmp_lowest(const void *a, const void *b)
{
	const struct ustack_load *x = a, *y = b;

	if (x->segs[0].start != y->segs[0].start)
		return x->segs[0].start < y->segs[0].start ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* Whether @addr is in one of @l's segments */
static bool holds(const struct ustack_load *l, unsigned long long addr)
{
	int i;

	for (i = 0; i < l->nr_segs; i++)
		if (l->segs[i].start <= addr && addr < l->segs[i].end)
			return true;
	return false;
}

/**
 * ustack_loads_next - the next load of a process that held an address
 * @loads: the loads
 * @pid: the process
 * @addr: the address
 * @iter: 0 to start; the call moves it on
 *
 * Returns each load of @pid with a segment holding @addr, at any time,
 * one per call, then NULL.
 */
const struct ustack_load *ustack_loads_next(struct ustack_loads *loads,
					    int pid, unsigned long long addr,
					    int *iter)
{
	struct pid_loads *p = loads ? pid_get(loads, pid, false) : NULL;
	int lo, hi, mid;

	if (!p || !p->nr)
		return NULL;
	if (!p->sorted) {
		qsort(p->l, p->nr, sizeof(*p->l), cmp_lowest);
		p->sorted = true;
	}
	if (!*iter) {
		/* past the last load starting at or below addr */
		for (lo = 0, hi = p->nr; lo < hi; ) {
			mid = (lo + hi) / 2;
			if (p->l[mid].segs[0].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		*iter = lo + 1;
	}
	/* down while a load starting there could still reach addr */
	while (--*iter > 0) {
		const struct ustack_load *l = &p->l[*iter - 1];

		if (addr - l->segs[0].start >= p->span)
			break;
		if (holds(l, addr))
			return l;
	}
	*iter = -1;
	return NULL;
}

/* Whether any load of @pid is known */
bool ustack_loads_any(struct ustack_loads *loads, int pid)
{
	struct pid_loads *p = loads ? pid_get(loads, pid, false) : NULL;

	return p && p->nr;
}

static int cmp_ull(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/**
 * ustack_loads_changes_after - how often the loads of a process change after a time
 * @loads: the loads
 * @pid: the process
 * @ts: the time
 *
 * Counts the loads of @pid mapped after @ts and those unmapped after it.
 * A load names a frame of time t when from <= t < to: two times with the
 * same count have the same loads in place.  Returns the count, or -1
 * with errno ENOMEM.
 */
int ustack_loads_changes_after(struct ustack_loads *loads, int pid,
			       unsigned long long ts)
{
	struct pid_loads *p = loads ? pid_get(loads, pid, false) : NULL;
	int i, n, lo, hi, mid;

	if (!p || !p->nr)
		return 0;
	if (!p->bounds) {
		p->bounds = malloc(2 * (size_t)p->nr * sizeof(*p->bounds));
		if (!p->bounds) {
			errno = ENOMEM;
			return -1;
		}
		for (i = n = 0; i < p->nr; i++) {
			p->bounds[n++] = p->l[i].from;
			if (p->l[i].to != ULLONG_MAX)
				p->bounds[n++] = p->l[i].to;
		}
		qsort(p->bounds, n, sizeof(*p->bounds), cmp_ull);
		p->nr_bounds = n;
	}
	/* the first bound after ts */
	for (lo = 0, hi = p->nr_bounds; lo < hi; ) {
		mid = (lo + hi) / 2;
		if (p->bounds[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return p->nr_bounds - lo;
}
