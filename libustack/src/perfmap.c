// SPDX-License-Identifier: LGPL-2.1
/*
 * JIT frames: the perf-PID.map files that JITs (V8, the JVM's agents,
 * CPython 3.12+ with -X perf, LuaJIT, ...) write for perf, one line per
 * function, "START SIZE name" (hex, 0x optional), as perf reads them
 * (tools/perf/Documentation/jit-interface.txt).  A later line for the
 * same addresses is newer code there, and wins.  Used for user frames
 * that no file-backed mapping holds (JIT code lives in anonymous memory).
 *
 * JITs that write a jitdump instead (jit-PID.dump: V8's --perf-prof,
 * CPython's -X perf_jit, the JVM's agents; the format of perf's
 * tools/perf/Documentation/jitdump-specification.txt) are read the same
 * way: a code load is a line, a code move a line for the new address
 * with the loaded code's name.  perf finds that file through its mmap
 * event; a trace has none, so it is looked for where a map would be, a
 * map first.  Only files of this machine's byte order are read.
 *
 * The files are untrusted: lines and records are bounded, bad lines
 * skipped, a bad record ends the reading, and the number of lines or
 * records read is capped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmap.h"

#define MAX_LINES	(4 << 20)
#define MAX_NAME	4096

struct pm_sym {
	unsigned long long	start, end;
	size_t			seq;		/* line or record: newer wins */
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

/* add @s (its name taken over) as the newest symbol; -1 when out of memory */
static int sym_add(struct pm_file *f, size_t *alloc, struct pm_sym *s)
{
	if (f->nr == *alloc) {
		size_t n = *alloc ? *alloc * 2 : 64;
		struct pm_sym *p = realloc(f->syms, n * sizeof(*p));

		if (!p) {
			free(s->name);
			return -1;
		}
		f->syms = p;
		*alloc = n;
	}
	s->seq = f->nr;
	if (s->end - s->start > f->max_len)
		f->max_len = s->end - s->start;
	f->syms[f->nr++] = *s;
	return 0;
}

static void load_map(struct pm_file *f, FILE *fp)
{
	size_t alloc = 0, cap = 0, lines = 0;
	char *line = NULL;
	struct pm_sym s;

	while (lines++ < MAX_LINES && getline(&line, &cap, fp) > 0) {
		if (parse_line(line, &s) < 0)
			continue;
		if (sym_add(f, &alloc, &s) < 0)
			break;
	}
	free(line);
}

#define JITDUMP_MAGIC		0x4A695444	/* "JiTD" in this byte order */
#define JIT_CODE_LOAD		0
#define JIT_CODE_MOVE		1
#define JIT_MAX_RECORD		(64u << 20)

struct jit_header {
	uint32_t	magic, version, total_size, elf_mach, pad1, pid;
	uint64_t	timestamp, flags;
};

struct jit_prefix {
	uint32_t	id, total_size;
	uint64_t	timestamp;
};

/* after the prefix; a load's name and code follow it */
struct jit_load {
	uint32_t	pid, tid;
	uint64_t	vma, code_addr, code_size, code_index;
};

struct jit_move {
	uint32_t	pid, tid;
	uint64_t	vma, old_code_addr, new_code_addr, code_size, code_index;
};

/* code_index to the name of its newest load: open addressing */
struct jit_names {
	struct { uint64_t index; const char *name; } *slot;
	size_t		size, used;
};

static size_t jit_slot(struct jit_names *t, uint64_t index)
{
	size_t i = (index * 0x9E3779B97F4A7C15ull) & (t->size - 1);

	while (t->slot[i].name && t->slot[i].index != index)
		i = (i + 1) & (t->size - 1);
	return i;
}

static int jit_names_set(struct jit_names *t, uint64_t index, const char *name)
{
	size_t i, old = t->size;

	if (2 * (t->used + 1) > t->size) {
		struct jit_names n = { NULL, old ? 2 * old : 256, 0 };

		n.slot = calloc(n.size, sizeof(*n.slot));
		if (!n.slot)
			return -1;
		for (i = 0; i < old; i++)
			if (t->slot[i].name)
				n.slot[jit_slot(&n, t->slot[i].index)] = t->slot[i];
		n.used = t->used;
		free(t->slot);
		*t = n;
	}
	i = jit_slot(t, index);
	t->used += !t->slot[i].name;
	t->slot[i].index = index;
	t->slot[i].name = name;
	return 0;
}

static const char *jit_names_get(struct jit_names *t, uint64_t index)
{
	return t->size ? t->slot[jit_slot(t, index)].name : NULL;
}

/* a load's name: NUL-terminated within the @len bytes at @fp */
static char *jit_name(FILE *fp, size_t len)
{
	char buf[MAX_NAME + 1];
	size_t n = len < sizeof(buf) ? len : sizeof(buf);

	if (!n || fread(buf, 1, n, fp) != n || !memchr(buf, '\0', n))
		return NULL;
	return strdup(buf);
}

/*
 * One record, its prefix read: a load or a move becomes a symbol, other
 * records are skipped.  Returns 0, or -1 to stop reading (a short or bad
 * record: the JIT may still have been writing it).
 */
static int jit_record(struct pm_file *f, size_t *alloc, struct jit_names *names,
		      FILE *fp, const struct jit_prefix *pre)
{
	long next = ftell(fp) - (long)sizeof(*pre) + (long)pre->total_size;
	size_t body = pre->total_size - sizeof(*pre);
	struct pm_sym s = { 0 };
	struct jit_load ld;
	struct jit_move mv;
	const char *name;

	if (pre->id == JIT_CODE_LOAD) {
		if (body < sizeof(ld) || fread(&ld, sizeof(ld), 1, fp) != 1)
			return -1;
		s.start = ld.code_addr;
		s.end = ld.code_addr + ld.code_size;
		s.name = jit_name(fp, body - sizeof(ld));
		if (s.name && s.end > s.start &&
		    (sym_add(f, alloc, &s) < 0 ||
		     jit_names_set(names, ld.code_index, s.name) < 0))
			return -1;
	} else if (pre->id == JIT_CODE_MOVE) {
		if (body < sizeof(mv) || fread(&mv, sizeof(mv), 1, fp) != 1)
			return -1;
		name = jit_names_get(names, mv.code_index);
		s.start = mv.new_code_addr;
		s.end = mv.new_code_addr + mv.code_size;
		s.name = name ? strdup(name) : NULL;
		if (s.name && s.end > s.start && sym_add(f, alloc, &s) < 0)
			return -1;
	}
	if (s.name && s.end <= s.start)
		free(s.name);
	return fseek(fp, next, SEEK_SET);
}

static void load_jitdump(struct pm_file *f, FILE *fp)
{
	struct jit_names names = { 0 };
	struct jit_prefix pre;
	struct jit_header h;
	size_t alloc = 0, n = 0;

	if (fread(&h, sizeof(h), 1, fp) != 1 || h.magic != JITDUMP_MAGIC ||
	    h.version != 1 || h.total_size < sizeof(h) || h.total_size > 4096 ||
	    fseek(fp, h.total_size, SEEK_SET))
		return;
	while (n++ < MAX_LINES && fread(&pre, sizeof(pre), 1, fp) == 1) {
		if (pre.total_size < sizeof(pre) || pre.total_size > JIT_MAX_RECORD ||
		    jit_record(f, &alloc, &names, fp, &pre) < 0)
			break;
	}
	free(names.slot);
}

/* @path's symbols into @f; 0, or -1 when there is no such file */
static int load(struct pm_file *f, const char *path, int jitdump)
{
	FILE *fp;

	fp = fopen(path, jitdump ? "rb" : "r");
	if (!fp)
		return -1;
	f->path = strdup(path);
	if (f->path) {
		if (jitdump)
			load_jitdump(f, fp);
		else
			load_map(f, fp);
	}
	fclose(fp);
	if (f->nr)
		qsort(f->syms, f->nr, sizeof(*f->syms), sym_cmp);
	return 0;
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
		if (load(f, path, 0) == 0)
			break;
		snprintf(path, sizeof(path), "%s/jit-%d.dump", d, pid);
		load(f, path, 1);
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
