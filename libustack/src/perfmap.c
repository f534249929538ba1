// SPDX-License-Identifier: LGPL-2.1
/*
 * JIT frames: the perf-PID.map files that JITs (V8, the JVM's agents,
 * CPython 3.12+ with -X perf, LuaJIT, ...) write for perf, one line per
 * function, "START SIZE name" (hex, 0x optional), as perf reads them
 * (tools/perf/Documentation/jit-interface.txt).  A later line for the
 * same addresses is newer code there, and wins.  Used for user frames
 * that no file-backed mapping holds (JIT code lives in anonymous memory).
 *
 * The file is untrusted: lines are bounded, bad ones skipped, and the
 * number of lines read is capped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmap.h"

#define MAX_LINES	(4 << 20)
#define MAX_NAME	4096

struct pm_sym {
	unsigned long long	start, end;
	size_t			seq;		/* line number: newer wins */
	char			*name;
};

struct pm_file {
	int			pid;
	char			*path;		/* NULL: no map found */
	struct pm_sym		*syms;		/* by start */
	size_t			nr;
	unsigned long long	max_len;	/* longest function */
};

struct perfmaps {
	struct pm_file		*files;
	int			nr;
};

void perfmaps_free(struct perfmaps *pm)
{
	size_t j;
	int i;

	if (!pm)
		return;
	for (i = 0; i < pm->nr; i++) {
		for (j = 0; j < pm->files[i].nr; j++)
			free(pm->files[i].syms[j].name);
		free(pm->files[i].syms);
		free(pm->files[i].path);
	}
	free(pm->files);
	free(pm);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct pm_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* one line: 0 and the symbol, or -1 for a line that is not one */
static int parse_line(char *line, struct pm_sym *s)
{
	unsigned long long start, size;
	char *p = line, *e;
	size_t len;

	errno = 0;
	start = strtoull(p, &e, 16);
	if (e == p || *e != ' ' || errno)
		return -1;
	p = e + 1;
	size = strtoull(p, &e, 16);
	if (e == p || *e != ' ' || errno || !size || start + size < start)
		return -1;
	p = e + 1;
	len = strcspn(p, "\r\n");
	if (!len || len > MAX_NAME)
		return -1;
	s->start = start;
	s->end = start + size;
	s->name = strndup(p, len);
	return s->name ? 0 : -1;
}

static void load(struct pm_file *f, const char *path)
{
	size_t alloc = 0, cap = 0, seq = 0;
	char *line = NULL;
	struct pm_sym s;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp)
		return;
	f->path = strdup(path);
	while (f->path && seq < MAX_LINES && getline(&line, &cap, fp) > 0) {
		if (parse_line(line, &s) < 0)
			continue;
		if (f->nr == alloc) {
			size_t n = alloc ? alloc * 2 : 64;
			struct pm_sym *p = realloc(f->syms, n * sizeof(*p));

			if (!p) {
				free(s.name);
				break;
			}
			f->syms = p;
			alloc = n;
		}
		s.seq = seq++;
		if (s.end - s.start > f->max_len)
			f->max_len = s.end - s.start;
		f->syms[f->nr++] = s;
	}
	free(line);
	fclose(fp);
	if (f->nr)
		qsort(f->syms, f->nr, sizeof(*f->syms), sym_cmp);
}

static struct pm_file *file_get(struct perfmaps *pm, int pid, char **dirs,
				int nr_dirs, char **tdirs, int nr_tdirs)
{
	struct pm_file *f;
	char path[4096];
	int i;

	for (i = 0; i < pm->nr; i++)
		if (pm->files[i].pid == pid)
			return &pm->files[i];
	f = realloc(pm->files, (pm->nr + 1) * sizeof(*f));
	if (!f)
		return NULL;
	pm->files = f;
	f = &pm->files[pm->nr++];
	memset(f, 0, sizeof(*f));
	f->pid = pid;
	for (i = 0; i < nr_dirs + nr_tdirs + 1 && !f->path; i++) {
		const char *d = i < nr_dirs ? dirs[i] :
				i < nr_dirs + nr_tdirs ? tdirs[i - nr_dirs] : "/tmp";

		snprintf(path, sizeof(path), "%s/perf-%d.map", d, pid);
		load(f, path);
	}
	return f;
}

const char *perfmaps_lookup(struct perfmaps **pm, int pid,
			    unsigned long long addr, char **dirs, int nr_dirs,
			    char **tdirs, int nr_tdirs,
			    unsigned long long *offset, const char **path)
{
	struct pm_sym *best = NULL;
	struct pm_file *f;
	size_t lo, hi, i;

	if (pid <= 0)
		return NULL;
	if (!*pm) {
		*pm = calloc(1, sizeof(**pm));
		if (!*pm)
			return NULL;
	}
	f = file_get(*pm, pid, dirs, nr_dirs, tdirs, nr_tdirs);
	if (!f || !f->nr)
		return NULL;
	/* the last symbol that starts at or before addr */
	lo = 0;
	hi = f->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* those that may hold it start within the longest function before */
	for (i = lo; i-- > 0 && addr - f->syms[i].start < f->max_len;)
		if (addr < f->syms[i].end && (!best || f->syms[i].seq > best->seq))
			best = &f->syms[i];
	if (!best)
		return NULL;
	*offset = addr - best->start;
	*path = f->path;
	return best->name;
}
