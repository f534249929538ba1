// SPDX-License-Identifier: LGPL-2.1
/*
 * Symbols: user frames through the process maps (added by hand, read
 * from /proc/PID/maps, or looked up by a function of the caller's, as
 * trace-cmd report and the ustack tool do for the maps "trace-cmd record
 * --proc-map" saves in trace.dat) and the ELF files they name, read with elfutils' libdwfl; kernel
 * frames through kallsyms (saved in trace.dat, or /proc/kallsyms).
 *
 * Each ELF file is opened once and reported to its own Dwfl so that
 * module addresses are the file's own virtual addresses (bias 0).  A
 * runtime address is turned into a file address with the start of the
 * lowest mapping of that file in the process: file_addr = addr -
 * lowest_start + the file address of the lowest mapping's page offset
 * (where the maps give it: the first segment holding that offset), else
 * + first_load_vaddr.  The two agree on what the dynamic loader maps
 * (PIE executables and shared libraries loaded anywhere, fixed-address
 * executables); only the first is right for a file mapped in pieces.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "ustack-local.h"
#include "perfmap.h"

struct map {
	unsigned long long	start;
	unsigned long long	end;
	unsigned long long	pgoff;
	char			*name;
};

struct pid_maps {
	int			pid;
	int			nr;
	struct map		*maps;		/* sorted by start */
};

struct elf_file {
	struct elf_file		*next;
	char			*name;		/* as named in the maps */
	char			*build_id;	/* as recorded, or NULL */
	bool			mismatch;	/* found, but not that build */
	bool			misplaced;	/* found, but its segments do not
						 * fit the recorded mappings */
	char			*path;		/* where it was read */
	Dwfl			*dwfl;
	Dwfl_Module		*mod;
	unsigned long long	low;
	unsigned long long	high;
	char			*tmp;		/* last unversioned name */
};

/*
 * Resolved user addresses, direct-mapped by (pid, address): a trace
 * repeats the same few stacks, and libdwfl's lookup is the cost of a
 * report.  Cleared whenever the maps or the search directories change.
 */
#define CACHE_SLOTS	4096

/* Why a file found under a mapping's name does not name its frames */
enum {
	MISMATCH_NONE,
	MISMATCH_BUILD,		/* another build than the one recorded */
	MISMATCH_LAYOUT,	/* its segments do not fit the mappings */
	MISMATCH_UNREAD,	/* no file found (or readable) at all */
	MISMATCH_BEFORE_EXEC,	/* from before an exec whose maps are unknown */
};

struct cached {
	bool			valid;
	int			pid;
	int			execs;		/* still to come: which maps */
	const void		*load;		/* which load, if one held it */
	unsigned long long	addr;
	struct ustack_sym	sym;
	char			*name;		/* sym.name points here */
	int			mismatch;	/* MISMATCH_* */
	struct elf_file		*file;		/* where it was found */
	bool			src_done;	/* inl and line looked up */
	char			*inl;		/* inlined frames, lines */
	char			*line;		/* "file.c:42" */
};

struct pid_execs {
	int			pid;
	int			nr;
	unsigned long long	*ts;		/* sorted */
};

/*
 * The printed text of the stacks seen last (ustack_event_print()): the
 * same stack prints the same text, and naming frames and formatting them
 * (a few thousand instructions a frame) is most of a reader's time when
 * events repeat their call paths.  Keyed with all that the text is
 * printed from: the printer's flags and kernel names (its tep), the
 * task, its frames, status, depth and unwinder, and, for the event's
 * time, the maps of the process then, which the number of their changes
 * after that time tells (ustack_syms_maps_changes(): its execs, and the
 * objects it loaded and unloaded).  Emptied when full, and whenever what
 * names frames changes (cache_clear()).
 */
#define TEXT_BUCKETS	4096	/* a power of two */

struct print_text {
	struct print_text	*next;
	unsigned long long	hash;
	char			*text;
	/* the key */
	struct tep_handle	*tep;
	unsigned int		flags;
	enum ustack_status	status;
	unsigned int		depth;
	unsigned int		unwinder;
	int			tgid;
	int			changes;	/* to tgid's maps after the event */
	int			nr_kernel;
	int			nr_user;
	unsigned long long	frames[];
};

struct print_cache {
	struct print_text	*tab[TEXT_BUCKETS];
	size_t			nr, bytes;
	size_t			max_nr, max_bytes;
};

struct ustack_syms {
	struct tep_handle	*tep;
	bool			own_tep;
	ustack_map_func		map_func;	/* maps kept elsewhere */
	void			*map_data;
	struct pid_maps		*pids;
	int			nr_pids;
	char			**dirs;
	int			nr_dirs;
	char			**tdirs;	/* after the recorded path */
	int			nr_tdirs;
	struct elf_file		*files;
	struct cached		*cache;
	struct perfmaps		*perfmaps;	/* JITs' perf-PID.map */
	int			errors;
	/* when the processes exec'd, sorted by pid (ustack_syms_add_exec()) */
	struct pid_execs	*execs;
	int			nr_execs;
	/* the time of the frames resolved now (ustack_syms_set_time()) */
	unsigned long long	ts;
	/* the execs of sys_exit_execve, used when none of
	 * sched_process_exec was seen (ustack_syms_add_record()) */
	struct pid_execs	*sys_execs;
	int			nr_sys_execs;
	/* the exec and load events of the last tep (execs.c) */
	void			*exec_events;
	/* maps per number of execs still to come */
	ustack_image_map_func	execs_func;
	void			*execs_data;
	/* the execs still to come of the frame being resolved */
	int			cur_execs;
	/* objects loaded and unloaded while traced (loads.c), or NULL */
	struct ustack_loads	*loads;
	bool			vdso_said;	/* "no build ID" warned */
	bool			maps_live;	/* read from /proc: the files
						 * named are those mapped */
	struct print_cache	*texts;		/* ustack_syms_set_print_cache() */
};

static void cached_reset(struct cached *c)
{
	free(c->name);
	free(c->inl);
	free(c->line);
	memset(c, 0, sizeof(*c));
}

static void texts_clear(struct print_cache *c)
{
	struct print_text *t;
	size_t i;

	for (i = 0; c && i < TEXT_BUCKETS; i++) {
		while ((t = c->tab[i])) {
			c->tab[i] = t->next;
			free(t->text);
			free(t);
		}
	}
	if (c)
		c->nr = c->bytes = 0;
}

static void cache_clear(struct ustack_syms *syms)
{
	int i;

	texts_clear(syms->texts);
	if (!syms->cache)
		return;
	for (i = 0; i < CACHE_SLOTS; i++)
		cached_reset(&syms->cache[i]);
}

/*
 * A file read from a build-ID directory (perf's layout, which
 * ustack_syms_archive() writes: .build-id/xx/rest/elf) has its debug file
 * beside it as "debug"; any other is looked for the standard way.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	char path[8192];
	int fd;

	if (slash && (!strcmp(slash, "/elf") || !strcmp(slash, "/vdso")) &&
	    snprintf(path, sizeof(path), "%.*s/debug", (int)(slash - file_name),
		     file_name) < (int)sizeof(path)) {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			*debuginfo_file_name = strdup(path);
			return fd;
		}
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					    file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf		= dwfl_build_id_find_elf,
	.find_debuginfo		= find_debuginfo,
	.section_address	= dwfl_offline_section_address,
};

/**
 * ustack_syms_alloc - symbols for the frames of stacks
 *
 * Maps come from ustack_syms_add_map(), ustack_syms_load_pid(),
 * or ustack_syms_set_map_func(); kernel names from
 * ustack_syms_set_tep() or ustack_syms_load_kallsyms().
 *
 * Returns the symbols (ustack_syms_free() frees them), or NULL with errno
 * ENOMEM.
 */
struct ustack_syms *ustack_syms_alloc(void)
{
	return calloc(1, sizeof(struct ustack_syms));
}

/**
 * ustack_syms_free - free symbols and the ELF files they opened
 * @syms: the symbols, or NULL
 */
void ustack_syms_free(struct ustack_syms *syms)
{
	struct elf_file *f, *n;
	int i, j;

	if (!syms)
		return;
	for (i = 0; i < syms->nr_pids; i++) {
		for (j = 0; j < syms->pids[i].nr; j++)
			free(syms->pids[i].maps[j].name);
		free(syms->pids[i].maps);
	}
	free(syms->pids);
	for (i = 0; i < syms->nr_dirs; i++)
		free(syms->dirs[i]);
	free(syms->dirs);
	for (i = 0; i < syms->nr_tdirs; i++)
		free(syms->tdirs[i]);
	free(syms->tdirs);
	perfmaps_free(syms->perfmaps);
	for (f = syms->files; f; f = n) {
		n = f->next;
		if (f->dwfl)
			dwfl_end(f->dwfl);
		free(f->name);
		free(f->build_id);
		free(f->path);
		free(f->tmp);
		free(f);
	}
	cache_clear(syms);
	free(syms->cache);
	free(syms->texts);
	ustack_loads_free(syms->loads);
	for (i = 0; i < syms->nr_execs; i++)
		free(syms->execs[i].ts);
	free(syms->execs);
	free(syms->exec_events);
	for (i = 0; i < syms->nr_sys_execs; i++)
		free(syms->sys_execs[i].ts);
	free(syms->sys_execs);
	if (syms->own_tep)
		tep_free(syms->tep);
	free(syms);
}

static struct pid_maps *pid_maps_get(struct ustack_syms *syms, int pid,
				     bool create)
{
	struct pid_maps *p;
	int i;

	for (i = 0; i < syms->nr_pids; i++)
		if (syms->pids[i].pid == pid)
			return &syms->pids[i];
	if (!create)
		return NULL;
	p = realloc(syms->pids, (syms->nr_pids + 1) * sizeof(*p));
	if (!p)
		return NULL;
	syms->pids = p;
	p = &syms->pids[syms->nr_pids++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/**
 * ustack_syms_add_map - add one file mapping of a process
 * @syms: the symbols
 * @pid: the process (ustack_event.tgid)
 * @start: where the mapping starts
 * @end: where it ends (after its last byte)
 * @pgoff: its offset in the file
 * @file: the mapped file's path
 *
 * Returns 0, or -1 with errno set: EINVAL for a bad argument (also an
 * empty @file or @end not above @start), ENOMEM.
 */
int ustack_syms_add_map(struct ustack_syms *syms, int pid,
			unsigned long long start, unsigned long long end,
			unsigned long long pgoff, const char *file)
{
	struct pid_maps *p;
	struct map *m;
	int i;

	if (!syms || !file || !*file || end <= start) {
		errno = EINVAL;
		return -1;
	}
	cache_clear(syms);
	p = pid_maps_get(syms, pid, true);
	if (!p)
		return -1;
	m = realloc(p->maps, (p->nr + 1) * sizeof(*m));
	if (!m)
		return -1;
	p->maps = m;
	for (i = p->nr; i > 0 && m[i - 1].start > start; i--)
		m[i] = m[i - 1];
	m[i].name = strdup(file);
	if (!m[i].name) {
		memmove(&m[i], &m[i + 1], (p->nr - i) * sizeof(*m));
		return -1;
	}
	m[i].start = start;
	m[i].end = end;
	m[i].pgoff = pgoff;
	p->nr++;
	return 0;
}

/**
 * ustack_syms_load_pid - add the file mappings of a running process
 * @syms: the symbols
 * @pid: the process
 *
 * Reads /proc/@pid/maps; mappings of no file are left out.
 *
 * Returns the number of file mappings read, or -1 with errno set: EINVAL
 * for a bad argument, or that of opening the maps file.
 */
int ustack_syms_load_pid(struct ustack_syms *syms, int pid)
{
	unsigned long long start, end, pgoff;
	char path[64], line[4096 + 128], name[4096 + 1];
	FILE *fp;
	int n = 0;

	if (!syms || pid <= 0) {
		errno = EINVAL;
		return -1;
	}
	syms->maps_live = true;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		name[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*d %4096s",
			   &start, &end, &pgoff, name) != 4)
			continue;
		if (name[0] != '/')
			continue;	/* [heap], [vdso], anonymous */
		if (ustack_syms_add_map(syms, pid, start, end, pgoff, name)) {
			fclose(fp);
			return -1;
		}
		n++;
	}
	fclose(fp);
	return n;
}

static int add_dir(struct ustack_syms *syms, char ***dirs, int *nr,
		   const char *dir)
{
	char **d;

	if (!syms || !dir) {
		errno = EINVAL;
		return -1;
	}
	cache_clear(syms);
	d = realloc(*dirs, (*nr + 1) * sizeof(*d));
	if (!d)
		return -1;
	*dirs = d;
	d[*nr] = strdup(dir);
	if (!d[*nr])
		return -1;
	(*nr)++;
	return 0;
}

/**
 * ustack_syms_add_search_dir - a directory to look for binaries in first
 * @syms: the symbols
 * @dir: the directory
 *
 * A mapped file is looked for as @dir/BASENAME and @dir/PATH in each such
 * directory (in the order added), before its own path: for the binaries
 * of a trace recorded on another machine.
 *
 * Returns 0, or -1 with errno set (EINVAL for a bad argument, ENOMEM).
 */
int ustack_syms_add_search_dir(struct ustack_syms *syms, const char *dir)
{
	return add_dir(syms, syms ? &syms->dirs : NULL,
		       syms ? &syms->nr_dirs : NULL, dir);
}

/**
 * ustack_syms_add_trace_dir - a directory to look for binaries in last
 * @syms: the symbols
 * @dir: the directory, usually the trace file's
 *
 * Looked at as ustack_syms_add_search_dir()'s, but after a file's own
 * path: binaries copied next to a trace.dat file are found, and a file of
 * the same name there does not hide the one recorded.
 *
 * Returns 0, or -1 with errno set (EINVAL for a bad argument, ENOMEM).
 */
int ustack_syms_add_trace_dir(struct ustack_syms *syms, const char *dir)
{
	return add_dir(syms, syms ? &syms->tdirs : NULL,
		       syms ? &syms->nr_tdirs : NULL, dir);
}

/**
 * ustack_syms_set_map_func - take process maps from the caller
 * @syms: the symbols
 * @func: fills a struct ustack_map for the file mapped at an address of a
 *        process and returns 1, or returns 0 (no mapping there); NULL
 *        removes it
 * @data: passed to @func
 *
 * For a program that keeps maps of its own, such as trace-cmd report: an
 * address not in the maps added by hand goes to @func.  The strings it
 * gives must stay valid as long as @syms is used.
 *
 * Returns 0, or -1 with errno EINVAL for a NULL @syms.
 */
int ustack_syms_set_map_func(struct ustack_syms *syms, ustack_map_func func,
			     void *data)
{
	if (!syms) {
		errno = EINVAL;
		return -1;
	}
	cache_clear(syms);
	syms->map_func = func;
	syms->map_data = data;
	return 0;
}

/**
 * ustack_syms_set_image_map_func - maps kept by the caller, per image
 * @syms: the symbols
 * @func: the maps a process had with a number of its execs still to
 *	come, or NULL for none
 * @data: passed to @func
 *
 * A host that saved the maps of each image of a process (trace-cmd
 * record -T with the series saves them before each exec) gives them
 * here; the execs come from ustack_syms_add_exec() or
 * ustack_syms_add_record().
 *
 * Returns 0, or -1 with errno EINVAL for a NULL @syms.
 */
int ustack_syms_set_image_map_func(struct ustack_syms *syms,
				   ustack_image_map_func func, void *data)
{
	if (!syms) {
		errno = EINVAL;
		return -1;
	}
	cache_clear(syms);
	syms->execs_func = func;
	syms->execs_data = data;
	return 0;
}

/*
 * For adding loads (execs.c): the answers cached so far may change, so
 * they go
 */
struct ustack_loads *ustack_syms_loads(struct ustack_syms *syms)
{
	cache_clear(syms);
	if (!syms->loads)
		syms->loads = ustack_loads_alloc();
	return syms->loads;
}

static struct pid_execs *pid_execs_find(struct pid_execs *tab, int nr,
					 int pid)
{
	int lo = 0, hi = nr, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (tab[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && tab[lo].pid == pid ? &tab[lo] : NULL;
}

/* The execs that count: sched_process_exec's, else sys_exit_execve's */
static struct pid_execs *pid_execs_get(struct ustack_syms *syms, int pid)
{
	if (syms->nr_execs || !syms->nr_sys_execs)
		return pid_execs_find(syms->execs, syms->nr_execs, pid);
	return pid_execs_find(syms->sys_execs, syms->nr_sys_execs, pid);
}

/* Add @ts to @pid's execs in the table @tab of *@nr processes */
static int execs_add(struct pid_execs **tab, int *nr, int pid,
		     unsigned long long ts)
{
	struct pid_execs *p;
	unsigned long long *t;
	int i;

	p = pid_execs_find(*tab, *nr, pid);
	if (!p) {
		p = realloc(*tab, (*nr + 1) * sizeof(*p));
		if (!p)
			return -1;
		*tab = p;
		for (i = *nr; i > 0 && p[i - 1].pid > pid; i--)
			p[i] = p[i - 1];
		memset(&p[i], 0, sizeof(p[i]));
		p[i].pid = pid;
		(*nr)++;
		p = &p[i];
	}
	for (i = 0; i < p->nr; i++)
		if (p->ts[i] == ts)
			return 0;
	t = realloc(p->ts, (p->nr + 1) * sizeof(*t));
	if (!t)
		return -1;
	p->ts = t;
	for (i = p->nr; i > 0 && t[i - 1] > ts; i--)
		t[i] = t[i - 1];
	t[i] = ts;
	p->nr++;
	return 0;
}

/* Where execs.c keeps its lookup of a tep's events; NULL without memory */
__hidden void *ustack_syms_exec_events(struct ustack_syms *syms)
{
	if (!syms->exec_events)
		syms->exec_events = calloc(1, ustack_exec_events_size());
	return syms->exec_events;
}

/* A successful sys_exit_execve (ustack_syms_add_record()) */
__hidden int ustack_syms_add_sys_exec(struct ustack_syms *syms, int pid,
				      unsigned long long ts)
{
	texts_clear(syms->texts);
	return execs_add(&syms->sys_execs, &syms->nr_sys_execs, pid,
				ts);
}

/**
 * ustack_syms_add_exec - note that a process exec'd
 * @syms: the symbols
 * @pid: the process (ustack_event.tgid)
 * @ts: the time stamp of its exec (its sched_process_exec event)
 *
 * A user frame of @pid from before @ts belongs to the image the process
 * left: once the time of the frames is set (ustack_syms_set_time()), it
 * is named only by maps saved for that image (a trace.dat of trace-cmd
 * record -T: ustack_syms_set_image_map_func()), and is printed "0xaddr
 * [before exec]" when there are none, never in the maps of a later
 * image.  ustack_syms_add_record() adds the execs of a trace's records.
 * Adding the same exec twice adds it once.
 *
 * Returns 0, or -1 with errno set (EINVAL for a NULL @syms, ENOMEM).
 */
int ustack_syms_add_exec(struct ustack_syms *syms, int pid,
			 unsigned long long ts)
{
	if (!syms) {
		errno = EINVAL;
		return -1;
	}
	texts_clear(syms->texts);	/* a frame's image may change */
	return execs_add(&syms->execs, &syms->nr_execs, pid, ts);
}

/**
 * ustack_syms_execs_after - how many execs of a process came after a time
 * @syms: the symbols
 * @pid: the process
 * @ts: the time, 0 for none
 *
 * Counts the execs added with ustack_syms_add_exec() whose time stamp is
 * after @ts: 0 for a frame of the process's last image, 1 for one of the
 * image before, and so on.  Frames of the same address print alike only
 * with the same count.
 *
 * Returns the count (0 when @ts is 0 or no exec of @pid is known), or -1
 * with errno EINVAL for a NULL @syms.
 */
int ustack_syms_execs_after(struct ustack_syms *syms, int pid,
			    unsigned long long ts)
{
	struct pid_execs *p;
	int lo, hi, mid;

	if (!syms) {
		errno = EINVAL;
		return -1;
	}
	p = pid_execs_get(syms, pid);
	if (!p || !ts)
		return 0;
	/* the first exec after ts */
	for (lo = 0, hi = p->nr; lo < hi; ) {
		mid = (lo + hi) / 2;
		if (p->ts[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return p->nr - lo;
}

/**
 * ustack_syms_maps_changes - how often the maps of a process change after a time
 * @syms: the symbols
 * @pid: the process
 * @ts: the time, 0 for none
 *
 * Counts what changes, after @ts, the maps that name the frames of @pid:
 * its execs (ustack_syms_add_exec()) and the objects it loaded or
 * unloaded (the registrar's lines that ustack_syms_add_record() takes).
 * Frames of the same address and process print alike at two times with
 * the same count: a reader that keeps the text of a stack keys it on
 * this, not on the execs alone.
 *
 * Returns the count (0 when @ts is 0), or -1 with errno set (EINVAL for
 * a NULL @syms, ENOMEM).
 */
int ustack_syms_maps_changes(struct ustack_syms *syms, int pid,
			     unsigned long long ts)
{
	int execs, loads;

	execs = ustack_syms_execs_after(syms, pid, ts);
	if (execs < 0 || !ts)
		return execs;
	loads = ustack_loads_changes_after(syms->loads, pid, ts);
	if (loads < 0)
		return -1;
	return execs + loads;
}

/**
 * ustack_syms_set_print_cache - keep the text of the stacks printed
 * @syms: the symbols
 * @max_stacks: how many stacks' texts to keep at most; 0: none
 * @max_bytes: how much text to keep at most; 0: none
 *
 * ustack_event_print() with @syms then keeps the text it prints, and
 * gives a stack printed before (the same frames, task, status, flags
 * and kernel names, and the same maps at the event's time: no exec,
 * load or unload of the process between the two events) its kept text
 * instead of naming its frames again.  The texts go when either limit
 * is reached, and when the sources of names change (maps, search
 * directories, kernel names).  Off by default.
 *
 * Returns 0, or -1 with errno set (EINVAL for a NULL @syms, ENOMEM).
 */
int ustack_syms_set_print_cache(struct ustack_syms *syms, size_t max_stacks,
				size_t max_bytes)
{
	if (!syms) {
		errno = EINVAL;
		return -1;
	}
	texts_clear(syms->texts);
	if (!max_stacks || !max_bytes) {
		free(syms->texts);
		syms->texts = NULL;
		return 0;
	}
	if (!syms->texts) {
		syms->texts = calloc(1, sizeof(*syms->texts));
		if (!syms->texts)
			return -1;
	}
	syms->texts->max_nr = max_stacks;
	syms->texts->max_bytes = max_bytes;
	return 0;
}

static unsigned long long text_hash(const struct ustack_event *ev,
				    unsigned int flags, int changes)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	int i;

	h = (h ^ ((unsigned long long)(unsigned int)changes << 32 |
		  (unsigned int)ev->tgid)) * 0x100000001b3ULL;
	h = (h ^ ((unsigned long long)ev->status << 32 | ev->depth)) *
		0x100000001b3ULL;
	h = (h ^ ((unsigned long long)ev->unwinder << 32 |
		  (unsigned int)ev->nr_kernel)) * 0x100000001b3ULL;
	h = (h ^ ((unsigned long long)flags << 32 | (unsigned int)ev->nr_user)) *
		0x100000001b3ULL;
	h = (h ^ (unsigned long long)(uintptr_t)ev->tep) * 0x100000001b3ULL;
	for (i = 0; i < ev->nr_kernel; i++)
		h = (h ^ ev->kernel[i]) * 0x100000001b3ULL;
	for (i = 0; i < ev->nr_user; i++)
		h = (h ^ ev->user[i]) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

static bool text_same(const struct print_text *t, unsigned long long hash,
		      const struct ustack_event *ev, unsigned int flags,
		      int changes)
{
	return t->hash == hash && t->tgid == ev->tgid &&
	       t->changes == changes && t->tep == ev->tep &&
	       t->flags == flags && t->status == ev->status &&
	       t->depth == ev->depth && t->unwinder == ev->unwinder &&
	       t->nr_kernel == ev->nr_kernel && t->nr_user == ev->nr_user &&
	       !memcmp(t->frames, ev->kernel,
		       ev->nr_kernel * sizeof(t->frames[0])) &&
	       !memcmp(t->frames + ev->nr_kernel, ev->user,
		       ev->nr_user * sizeof(t->frames[0]));
}

/*
 * The kept text of @ev printed with @flags (print.c), or NULL; @key is
 * set for ustack_syms_text_keep() (key->changes < 0: not to be kept)
 */
const char *ustack_syms_text_find(struct ustack_syms *syms,
				  const struct ustack_event *ev,
				  unsigned int flags,
				  struct ustack_text_key *key)
{
	struct print_text *t;

	key->changes = -1;
	if (!syms || !syms->texts ||
	    (ev->nr_kernel && !ev->kernel) || (ev->nr_user && !ev->user))
		return NULL;
	/* < 0 (no memory): printed, not kept */
	key->changes = ustack_syms_maps_changes(syms, ev->tgid, ev->ts);
	if (key->changes < 0)
		return NULL;
	key->hash = text_hash(ev, flags, key->changes);
	for (t = syms->texts->tab[key->hash & (TEXT_BUCKETS - 1)]; t;
	     t = t->next)
		if (text_same(t, key->hash, ev, flags, key->changes))
			return t->text;
	return NULL;
}

/* Keep the text printed for @ev; nothing when memory is short */
void ustack_syms_text_keep(struct ustack_syms *syms,
			   const struct ustack_event *ev, unsigned int flags,
			   const struct ustack_text_key *key,
			   const char *text, size_t len)
{
	int nr = ev->nr_kernel + ev->nr_user;
	struct print_cache *c = syms ? syms->texts : NULL;
	struct print_text *t;

	if (!c || key->changes < 0)
		return;
	if (c->nr >= c->max_nr || c->bytes + len > c->max_bytes)
		texts_clear(c);
	t = malloc(sizeof(*t) + nr * sizeof(t->frames[0]));
	if (!t)
		return;
	t->text = strndup(text, len);
	if (!t->text) {
		free(t);
		return;
	}
	t->hash = key->hash;
	t->tep = ev->tep;
	t->flags = flags;
	t->status = ev->status;
	t->depth = ev->depth;
	t->unwinder = ev->unwinder;
	t->tgid = ev->tgid;
	t->changes = key->changes;
	t->nr_kernel = ev->nr_kernel;
	t->nr_user = ev->nr_user;
	if (ev->nr_kernel)
		memcpy(t->frames, ev->kernel, ev->nr_kernel * sizeof(t->frames[0]));
	if (ev->nr_user)
		memcpy(t->frames + ev->nr_kernel, ev->user,
		       ev->nr_user * sizeof(t->frames[0]));
	t->next = c->tab[key->hash & (TEXT_BUCKETS - 1)];
	c->tab[key->hash & (TEXT_BUCKETS - 1)] = t;
	c->nr++;
	c->bytes += len;
}

/**
 * ustack_syms_set_time - the time of the frames resolved next
 * @syms: the symbols
 * @ts: the time stamp of their event (ustack_event.ts), 0 for none
 *
 * The user frames resolved or formatted from now on are taken at @ts:
 * with the execs of ustack_syms_add_exec(), those of a process that
 * exec'd after @ts are looked up in the maps of the image it had then
 * (ustack_syms_add_exec()).  ustack_event_print() sets the time of the
 * event it prints.  0, the default, takes every frame in the maps of the
 * last image, as before.
 *
 * Returns 0, or -1 with errno EINVAL for a NULL @syms.
 */
int ustack_syms_set_time(struct ustack_syms *syms, unsigned long long ts)
{
	if (!syms) {
		errno = EINVAL;
		return -1;
	}
	syms->ts = ts;
	return 0;
}

/**
 * ustack_syms_maps_known - tell whether the maps of a process are known
 * @syms: the symbols
 * @pid: the process
 * @ts: the time of its frames (ustack_syms_set_time()), 0 for none
 *
 * Known are maps added by hand or read from /proc for @pid, maps a map
 * function gives (ustack_syms_set_map_func(): assumed known), and the
 * maps of the image @pid had at @ts that the caller keeps
 * (ustack_syms_set_image_map_func()).  The frames of a process whose maps are
 * not known (a process that exited before a system-wide recording
 * ended, whose maps could not be read) print as addresses; those of an
 * image before an exec, "0xaddr [before exec]".
 *
 * Returns 1 or 0, or -1 with errno EINVAL for a NULL @syms.
 */
int ustack_syms_maps_known(struct ustack_syms *syms, int pid,
			   unsigned long long ts)
{
	int execs;

	if (!syms) {
		errno = EINVAL;
		return -1;
	}
	execs = ustack_syms_execs_after(syms, pid, ts);
	if (syms->execs_func)
		return syms->execs_func(syms->execs_data, pid, execs, 0, NULL) >= 0;
	if (execs > 0)
		return 0;
	return pid_maps_get(syms, pid, false) || syms->map_func ? 1 : 0;
}

/**
 * ustack_syms_set_tep - name kernel frames with a tep_handle's kallsyms
 * @syms: the symbols
 * @tep: the handle (a trace.dat file's, or one with kallsyms loaded)
 *
 * Returns 0, or -1 with errno EINVAL for a NULL argument.
 */
int ustack_syms_set_tep(struct ustack_syms *syms, struct tep_handle *tep)
{
	if (!syms || !tep) {
		errno = EINVAL;
		return -1;
	}
	if (syms->own_tep)
		tep_free(syms->tep);
	syms->own_tep = false;
	syms->tep = tep;
	cache_clear(syms);
	return 0;
}

/**
 * ustack_syms_load_kallsyms - name kernel frames with a kallsyms file
 * @syms: the symbols
 * @path: the file, NULL for /proc/kallsyms
 *
 * Returns 0, or -1 with errno set (EINVAL for a NULL @syms, that of
 * reading the file, ENOMEM).
 */
int ustack_syms_load_kallsyms(struct ustack_syms *syms, const char *path)
{
	char *buf = NULL, *p;
	size_t size = 0, len = 0;
	ssize_t r;
	int fd, ret;

	if (!syms) {
		errno = EINVAL;
		return -1;
	}
	if (!path)
		path = "/proc/kallsyms";
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	for (;;) {
		if (len + 65536 + 1 > size) {
			size = size ? size * 2 : 1 << 20;
			p = realloc(buf, size);
			if (!p) {
				free(buf);
				close(fd);
				return -1;
			}
			buf = p;
		}
		r = read(fd, buf + len, size - len - 1);
		if (r < 0) {
			free(buf);
			close(fd);
			return -1;
		}
		if (!r)
			break;
		len += r;
	}
	close(fd);
	buf[len] = '\0';
	if (!syms->tep) {
		syms->tep = tep_alloc();
		if (!syms->tep) {
			free(buf);
			return -1;
		}
		syms->own_tep = true;
	}
	ret = tep_parse_kallsyms(syms->tep, buf);
	free(buf);
	cache_clear(syms);
	return ret < 0 ? -1 : 0;
}

/**
 * ustack_syms_errors - how many unreadable ELF files were met
 * @syms: the symbols, or NULL
 *
 * Returns the number of mapped files that could not be read as ELF (each
 * is warned about once), 0 for a NULL @syms.
 */
int ustack_syms_errors(struct ustack_syms *syms)
{
	return syms ? syms->errors : 0;
}

/* ---- maps ---- */

/* A mapping as the maps describe it; start and end 0 when not known */
struct map_at {
	const char		*file;
	unsigned long long	lowest;		/* of the file in the process */
	const char		*build_id;
	unsigned long long	start;
	unsigned long long	end;
	unsigned long long	pgoff;
	bool			has_pgoff;
	bool			before_exec;	/* no maps for that time */
};

/* @out from a map a callback gave: its range only if it holds @addr */
static bool map_at_take(struct map_at *out, const struct ustack_map *um,
			unsigned long long addr)
{
	out->file = um->file;
	out->lowest = um->lowest;
	out->build_id = um->build_id;
	if (um->start <= addr && addr < um->end) {
		out->start = um->start;
		out->end = um->end;
		out->pgoff = um->pgoff;
		out->has_pgoff = um->has_pgoff;
	}
	return true;
}

/*
 * The object a load (dlopen(), loads.c) had at addr at the frame's time
 * (syms->ts), in the image of syms->cur_execs: 1 with out filled and
 * *which the load, -1 when loads of that image held addr but none at that
 * time (what the last maps have there came later or was gone), 0 when no
 * load says anything about addr.
 */
static int load_lookup(struct ustack_syms *syms, int pid,
		       unsigned long long addr, struct map_at *out,
		       const struct ustack_load **which)
{
	const struct ustack_load *l;
	int iter = 0, r = 0, i, execs;

	*which = NULL;
	if (!syms->ts || !syms->loads)
		return 0;
	while ((l = ustack_loads_next(syms->loads, pid, addr, &iter))) {
		execs = ustack_syms_execs_after(syms, pid, l->from);
		/* made by an exec, before its event: that exec's image */
		if (l->in_exec && execs > 0)
			execs--;
		if (execs != syms->cur_execs)
			continue;	/* another image's */
		/* read in an image left between its synth and mapped lines */
		if (l->since_image &&
		    ustack_syms_execs_after(syms, pid, l->seen) !=
		    syms->cur_execs)
			continue;
		if ((syms->ts < l->from && !l->since_image) ||
		    syms->ts >= l->to) {
			r = -1;
			continue;
		}
		for (i = 0; i < l->nr_segs; i++) {
			if (addr < l->segs[i].start || addr >= l->segs[i].end)
				continue;
			out->file = l->file;
			out->build_id = l->build_id;
			out->lowest = l->segs[0].start;
			out->start = l->segs[i].start;
			out->end = l->segs[i].end;
			out->pgoff = l->segs[i].pgoff;
			out->has_pgoff = true;
			*which = l;
			return 1;
		}
	}
	return r;
}

/*
 * Whether the last maps (read at the end, or a map function's) have
 * another file at addr than the mapping already there at the start that
 * @out holds: the object was unmapped and another mapped there during
 * the recording, at a time no line says, so neither names the frame.
 */
static bool last_maps_differ(struct ustack_syms *syms, int pid,
			     unsigned long long addr,
			     const struct map_at *out)
{
	struct pid_maps *p = pid_maps_get(syms, pid, false);
	const char *file = NULL, *build_id = NULL;
	struct ustack_map um;
	int i;

	for (i = 0; p && i < p->nr && !file; i++) {
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			file = p->maps[i].name;
	}
	memset(&um, 0, sizeof(um));
	if (!file && syms->map_func &&
	    syms->map_func(syms->map_data, pid, addr, &um) > 0 && um.file) {
		file = um.file;
		build_id = um.build_id;
	}
	if (!file)
		return false;	/* gone by then, or never read */
	if (build_id && out->build_id)
		return strcmp(build_id, out->build_id) != 0;
	return strcmp(file, out->file) != 0;
}

/*
 * The mapping holding addr and the file's build ID if the maps have it,
 * in the maps that applied with syms->cur_execs execs of the process
 * still to come; out->lowest only as a map function gave it.  False when
 * no file is mapped there; out->before_exec then says that no maps of
 * that time are known.
 */
static bool map_lookup(struct ustack_syms *syms, int pid,
		       unsigned long long addr, struct map_at *out)
{
	struct pid_maps *p = pid_maps_get(syms, pid, false);
	const struct ustack_load *load;
	int execs = syms->cur_execs;
	struct ustack_map um;
	int i, r;

	memset(out, 0, sizeof(*out));
	/* an object loaded at the frame's time, in whatever image */
	r = load_lookup(syms, pid, addr, out, &load);
	if (r > 0 && load->since_image && !execs)
		return !last_maps_differ(syms, pid, addr, out);
	if (r)
		return r > 0;
	if (execs > 0) {
		/*
		 * An image the process left by an exec: only maps saved for
		 * that time name it (those added by hand, or a map
		 * function's, are the process's last ones)
		 */
		memset(&um, 0, sizeof(um));
		r = syms->execs_func ?
			syms->execs_func(syms->execs_data, pid, execs, addr, &um) :
			-1;
		if (r < 0)
			out->before_exec = true;
		if (r <= 0 || !um.file)
			return false;
		return map_at_take(out, &um, addr);
	}
	if (p) {
		for (i = 0; i < p->nr; i++) {
			struct map *m = &p->maps[i];

			if (addr < m->start || addr >= m->end)
				continue;
			out->file = m->name;
			out->start = m->start;
			out->end = m->end;
			out->pgoff = m->pgoff;
			out->has_pgoff = true;
			return true;
		}
	}
	if (!syms->map_func)
		return false;
	memset(&um, 0, sizeof(um));
	if (syms->map_func(syms->map_data, pid, addr, &um) <= 0 || !um.file)
		return false;
	return map_at_take(out, &um, addr);
}

/*
 * As map_lookup(), with the start of the file's lowest mapping where the
 * maps did not give it: the loader maps a file's segments next to each
 * other (the gaps between them as mappings of the file too, and
 * /proc/PID/maps and trace-cmd keep each mapping on its own line), so
 * walk down while the mapping just below is the same file's.
 */
static bool find_map(struct ustack_syms *syms, int pid,
		     unsigned long long addr, struct map_at *out)
{
	unsigned long long start;
	struct map_at below;
	int n = 0;

	if (!map_lookup(syms, pid, addr, out))
		return false;
	if (out->lowest || !out->end)
		return true;
	start = out->start;
	while (start > 0 && n++ < 4096) {
		if (!map_lookup(syms, pid, start - 1, &below) || !below.end ||
		    strcmp(below.file, out->file) || below.start >= start)
			break;
		start = below.start;
	}
	out->lowest = start;
	return true;
}

/* ---- ELF files ---- */

static bool open_elf(struct elf_file *f, const char *path, int *err)
{
	Dwfl_Module *mod;
	GElf_Addr low, high;
	struct stat st;
	Dwfl *dwfl;
	int fd;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		ustack_warn("%s: %s", path, strerror(errno));
		(*err)++;
		return false;
	}
	close(fd);
	dwfl = dwfl_begin(&dwfl_cbs);
	if (!dwfl)
		return false;
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, f->name, path, -1, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		ustack_warn("%s: not a readable ELF file: %s", path,
			    dwfl_errmsg(-1));
		(*err)++;
		dwfl_end(dwfl);
		return false;
	}
	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	f->dwfl = dwfl;
	f->mod = mod;
	f->low = low;
	f->high = high;
	f->path = strdup(path);
	return true;
}

/* Whether the file opened in f is the build the maps name */
static bool same_build(struct elf_file *f)
{
	static const char hexdigits[] = "0123456789abcdef";
	const unsigned char *bits;
	GElf_Addr vaddr;
	size_t i, n;
	int len;

	if (!f->build_id)
		return true;
	len = dwfl_module_build_id(f->mod, &bits, &vaddr);
	n = strlen(f->build_id);
	if (len <= 0 || n != 2 * (size_t)len)
		return false;
	for (i = 0; i < (size_t)len; i++)
		if (f->build_id[2 * i] != hexdigits[bits[i] >> 4] ||
		    f->build_id[2 * i + 1] != hexdigits[bits[i] & 0xf])
			return false;
	return true;
}

#define LAYOUT_PAGE	4096ULL

/* The mapping at addr is of file f, loaded at lowest */
static bool same_mapping(const struct map_at *m, const char *name,
			 unsigned long long lowest)
{
	return m->file && !strcmp(m->file, name) && m->lowest == lowest;
}

/*
 * The file address of file offset off: in the first PT_LOAD segment of
 * elf (n program headers) whose file bytes hold it, its page included
 */
static bool offset_vaddr(Elf *elf, size_t n, unsigned long long off,
			 unsigned long long *vaddr)
{
	GElf_Phdr ph;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= (ph.p_offset & ~(LAYOUT_PAGE - 1)) &&
		    off < ph.p_offset + ph.p_filesz) {
			*vaddr = off - ph.p_offset + ph.p_vaddr;
			return true;
		}
	}
	return false;
}

/*
 * Where the maps say where the file's lowest mapping starts in the file:
 * the file address there.  Everything the loader maps has the first
 * segment there; a file mapped in pieces (a segment mapped on its own by
 * a JIT or a loader of its own, the first one unmapped) does not.
 */
static bool lowest_vaddr(struct ustack_syms *syms, struct elf_file *f,
			 int pid, unsigned long long lowest,
			 unsigned long long *vaddr)
{
	struct map_at m;
	GElf_Addr bias;
	size_t n;
	Elf *elf;

	if (!find_map(syms, pid, lowest, &m) || !m.has_pgoff ||
	    m.start != lowest)
		return false;
	elf = dwfl_module_getelf(f->mod, &bias);
	if (!elf || elf_getphdrnum(elf, &n))
		return false;
	return offset_vaddr(elf, n, m.pgoff, vaddr);
}

/*
 * A file mapped in pieces: each mapping of it, from the lowest on while
 * they follow each other, at the load bias of the lowest, must hold the
 * part of a loadable segment that the file has at its page offset.
 */
static bool pieces_fit(struct ustack_syms *syms, struct elf_file *f,
		       Elf *elf, size_t n, int pid, unsigned long long lowest,
		       unsigned long long low_vaddr)
{
	unsigned long long a = lowest, v;
	struct map_at m;
	GElf_Phdr ph;
	int nr = 0;
	size_t i;

	while (nr < 64 && find_map(syms, pid, a, &m) &&
	       same_mapping(&m, f->name, lowest) && m.has_pgoff && m.end > a) {
		v = m.start - lowest + low_vaddr;
		for (i = 0; i < n; i++) {
			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (v >= (ph.p_vaddr & ~(LAYOUT_PAGE - 1)) &&
			    v < ph.p_vaddr + ph.p_memsz)
				break;
		}
		if (i == n ||
		    m.pgoff != ((v - ph.p_vaddr + ph.p_offset) & ~(LAYOUT_PAGE - 1)))
			return false;
		nr++;
		a = m.end;
	}
	return nr > 0;
}

/*
 * The kind of object against where it was mapped, @low its lowest
 * PT_LOAD page: the kernel maps an executable (ET_EXEC) at its own
 * addresses, and neither it nor the loader places a 64-bit shared object
 * or PIE (ET_DYN) below 4 GiB (ELF_ET_DYN_BASE and mmap_base are at a
 * third of the address space or above on every 64-bit architecture).  A
 * PIE renamed over a non-PIE (at 0x400000) has the same layout, page for
 * page, and names every frame wrongly.  Programs that load ELF files
 * themselves (valgrind puts a PIE at 0x108000) do place them lower: the
 * ET_DYN rule is for recorded maps only (@recorded), where the frames of
 * such a program are its own, not the loaded file's.
 */
static bool type_fits(Elf *elf, unsigned long long lowest,
		      unsigned long long low, bool recorded)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return true;	/* nothing to check against */
	if (eh.e_type == ET_EXEC)
		return lowest == low;
	if (recorded && eh.e_type == ET_DYN &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64)
		return lowest < low || lowest - low >= (1ULL << 32);
	return true;
}

/*
 * The mapping that starts at an executable segment's first page holds
 * its code and no more (its size is the code's, to the page): the pages
 * of the file's bytes, or more only where the next segment goes on in
 * the same mapping.
 */
static bool code_size_fits(Elf *elf, size_t n, const GElf_Phdr *ph,
			   const struct map_at *m, unsigned long long lowest,
			   unsigned long long base)
{
	unsigned long long end, a;
	GElf_Phdr next;
	size_t i;

	if (!(ph->p_flags & PF_X) || !m->end)
		return true;
	end = lowest + ((ph->p_vaddr + ph->p_filesz + LAYOUT_PAGE - 1) &
			~(LAYOUT_PAGE - 1)) - base;
	if (m->end == end)
		return true;
	if (m->end < end)
		return false;
	/* longer: only if a later segment starts on the page after */
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &next) || next.p_type != PT_LOAD)
			continue;
		a = lowest + (next.p_vaddr & ~(LAYOUT_PAGE - 1)) - base;
		if (a == end)
			return true;
	}
	return false;
}

/*
 * Without a build ID, what can be checked: the file opened in f was
 * mapped where the process had the file of that name.  The loader maps
 * each PT_LOAD segment on its own, page-aligned, relative to the first:
 * each segment's first page must be mapped by the file, where the maps
 * say where a mapping starts a mapping must start there (or at an
 * earlier segment merged with it), with the page offset of the segment
 * where the maps have offsets (/proc/PID/maps), and the page after the
 * last segment must not be the file's.  Another library or another
 * version under the same name fails this almost always.  Only with maps
 * that say where mappings start and end (ustack_map.start and end, since
 * 1.7, or maps added here): a map function of an older caller may
 * answer for addresses near a mapping as if they were in it.
 */
static bool layout_fits(struct ustack_syms *syms, struct elf_file *f,
			int pid, unsigned long long lowest)
{
	unsigned long long base = 0, prev_start = 0, a, top = 0;
	struct map_at m;
	GElf_Phdr ph;
	GElf_Addr bias;
	size_t i, n;
	bool first = true;
	Elf *elf;

	elf = dwfl_module_getelf(f->mod, &bias);
	if (!elf || elf_getphdrnum(elf, &n))
		return true;	/* nothing to check against */
	if (find_map(syms, pid, lowest, &m) && m.has_pgoff && m.pgoff &&
	    lowest_vaddr(syms, f, pid, lowest, &a))
		return type_fits(elf, lowest, a & ~(LAYOUT_PAGE - 1),
				 !syms->maps_live) &&
		       pieces_fit(syms, f, elf, n, pid, lowest, a);
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first) {
			base = ph.p_vaddr & ~(LAYOUT_PAGE - 1);
			first = false;
			if (!type_fits(elf, lowest, base, !syms->maps_live))
				return false;
		}
		a = lowest + (ph.p_vaddr & ~(LAYOUT_PAGE - 1)) - base;
		if (!find_map(syms, pid, a, &m) || !same_mapping(&m, f->name, lowest))
			return false;
		if (!m.end)
			return true;	/* nothing to check against */
		if (m.end && m.start != a && m.start != prev_start)
			return false;
		if (m.has_pgoff && m.start == a &&
		    m.pgoff != (ph.p_offset & ~(LAYOUT_PAGE - 1)))
			return false;
		if (m.start == a && !code_size_fits(elf, n, &ph, &m, lowest, base))
			return false;
		prev_start = m.end ? m.start : a;
		if (ph.p_vaddr + ph.p_memsz > top)
			top = ph.p_vaddr + ph.p_memsz;
	}
	if (first)
		return true;
	a = lowest + ((top + LAYOUT_PAGE - 1) & ~(LAYOUT_PAGE - 1)) - base;
	return !find_map(syms, pid, a, &m) || !same_mapping(&m, f->name, lowest);
}

static void elf_close(struct elf_file *f)
{
	dwfl_end(f->dwfl);
	f->dwfl = NULL;
	f->mod = NULL;
	free(f->path);
	f->path = NULL;
}

/*
 * Open path into f if it is the right build (with a build ID), or if it
 * fits the mappings (without); remember one that does not.
 */
static bool try_elf(struct ustack_syms *syms, struct elf_file *f,
		    const char *path, int pid, unsigned long long lowest,
		    int *err)
{
	if (!open_elf(f, path, err))
		return false;
	if (f->build_id) {
		if (same_build(f))
			return true;
		f->mismatch = true;
	} else {
		if (layout_fits(syms, f, pid, lowest))
			return true;
		if (!f->misplaced)
			ustack_warn("%s: %s is not the file that was mapped (its segments do not fit the recorded mappings)",
				    f->name, path);
		f->misplaced = true;
	}
	elf_close(f);
	return false;
}

/* Look for f as dir/basename and dir/path in each of dirs */
static bool try_dirs(struct ustack_syms *syms, struct elf_file *f,
		     char **dirs, int nr, int pid, unsigned long long lowest,
		     int *err)
{
	const char *base = strrchr(f->name, '/');
	char path[8192];
	int i;

	base = base ? base + 1 : f->name;
	for (i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], base);
		if (try_elf(syms, f, path, pid, lowest, err))
			return true;
		snprintf(path, sizeof(path), "%s%s%s", dirs[i],
			 f->name[0] == '/' ? "" : "/", f->name);
		if (try_elf(syms, f, path, pid, lowest, err))
			return true;
	}
	return false;
}

/*
 * A build ID as recorded is a path component below: hex digits only, of
 * a length some linker writes (8 to 64 bytes; GNU ld's are 20).
 */
bool ustack_build_id_valid(const char *build_id)
{
	size_t n = build_id ? strlen(build_id) : 0;

	if (n < 16 || n > 128 || n % 2)
		return false;
	return strspn(build_id, "0123456789abcdef") == n;
}

/*
 * The build-ID directory perf's cache uses (perf buildid-cache,
 * perf archive), and ustack_syms_archive() writes: $HOME/.debug
 */
static const char *perf_buildid_dir(char *buf, size_t size)
{
	const char *home = getenv("HOME");

	if (!home || !*home ||
	    snprintf(buf, size, "%s/.debug", home) >= (int)size)
		return NULL;
	return buf;
}

/*
 * Look for f by its build ID in dir/.build-id/: xx/rest/elf (perf's
 * layout; vdso for its vDSO images) or xx/rest (elfutils' for a main
 * file).  try_elf() still checks the build.
 */
static bool try_build_id_dir(struct ustack_syms *syms, struct elf_file *f,
			     const char *dir, int pid,
			     unsigned long long lowest, int *err)
{
	static const char *const leaves[] = { "/elf", "/vdso", "" };
	char path[8192];
	size_t i;

	for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s%s", dir,
			     f->build_id, f->build_id + 2,
			     leaves[i]) >= (int)sizeof(path))
			return false;
		if (try_elf(syms, f, path, pid, lowest, err))
			return true;
	}
	return false;
}

/* An archive in dir itself, or in dir/.debug (ustack --archive's) */
static bool try_archives(struct ustack_syms *syms, struct elf_file *f,
			 char **dirs, int nr, int pid,
			 unsigned long long lowest, int *err)
{
	char path[4096];
	int i;

	for (i = 0; i < nr; i++) {
		if (snprintf(path, sizeof(path), "%s/.debug",
			     dirs[i]) < (int)sizeof(path) &&
		    try_build_id_dir(syms, f, path, pid, lowest, err))
			return true;
		if (try_build_id_dir(syms, f, dirs[i], pid, lowest, err))
			return true;
	}
	return false;
}

/*
 * With a build ID: the archives in the search directories, in the trace's
 * directories and perf's cache, so that an archive of a trace's binaries
 * (ustack --archive, perf archive) names its frames on another machine or
 * after the files were replaced.
 */
static bool try_build_ids(struct ustack_syms *syms, struct elf_file *f,
			  int pid, unsigned long long lowest, int *err)
{
	char buf[4096];
	const char *perf;

	if (!ustack_build_id_valid(f->build_id))
		return false;
	if (try_archives(syms, f, syms->dirs, syms->nr_dirs, pid, lowest, err) ||
	    try_archives(syms, f, syms->tdirs, syms->nr_tdirs, pid, lowest, err))
		return true;
	perf = perf_buildid_dir(buf, sizeof(buf));
	return perf && try_build_id_dir(syms, f, perf, pid, lowest, err);
}

/* ---- the vDSO ---- */

/*
 * No file is mapped at "[vdso]": the kernel maps its own image there.
 * That image is a file only where the kernel's build left one (vdso64.so
 * and vdso64.so.dbg, with its symbols and lines, in the build directory;
 * /lib/modules/RELEASE/vdso/ after "make vdso_install"), and a reader
 * that runs on the traced kernel has it in its own memory.  Which
 * kernel's image a trace needs only the recorded build ID says, so the
 * vDSO is named only with one (trace-cmd record with the series saves
 * it), from the first of these of that build: the search directories,
 * /lib/modules/\*\/vdso/, the reader's own vDSO, the trace's directory.
 */
#define VDSO_NAME	"[vdso]"

static const char *const vdso_files[] = {
	"vdso64.so.dbg", "vdso64.so", "vdso.so.dbg", "vdso.so",
};

static bool try_vdso_dir(struct ustack_syms *syms, struct elf_file *f,
			 const char *dir, int pid, unsigned long long lowest,
			 int *err)
{
	char path[8192];
	size_t i;

	for (i = 0; i < sizeof(vdso_files) / sizeof(vdso_files[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     vdso_files[i]) >= (int)sizeof(path))
			return false;
		if (try_elf(syms, f, path, pid, lowest, err))
			return true;
	}
	return false;
}

static bool try_vdso_dirs(struct ustack_syms *syms, struct elf_file *f,
			  char **dirs, int nr, int pid,
			  unsigned long long lowest, int *err)
{
	int i;

	for (i = 0; i < nr; i++)
		if (try_vdso_dir(syms, f, dirs[i], pid, lowest, err))
			return true;
	return false;
}

/* The images of the kernels installed here */
static bool try_vdso_modules(struct ustack_syms *syms, struct elf_file *f,
			     int pid, unsigned long long lowest, int *err)
{
	char dir[512];
	struct dirent *d;
	bool found = false;
	DIR *dp;

	dp = opendir("/lib/modules");
	if (!dp)
		return false;
	while (!found && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "/lib/modules/%s/vdso", d->d_name);
		found = try_vdso_dir(syms, f, dir, pid, lowest, err);
	}
	closedir(dp);
	return found;
}

/*
 * The reader's own vDSO (its range from /proc/self/maps), copied into a
 * memory file so that libdwfl opens it as it opens any other
 */
static bool try_vdso_own(struct ustack_syms *syms, struct elf_file *f,
			 int pid, unsigned long long lowest, int *err)
{
	unsigned long long start = 0, end = 0, s, e;
	char line[512], name[64], path[64];
	bool found = false;
	FILE *fp;
	int fd;

	fp = fopen("/proc/self/maps", "r");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		name[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %*x %*s %*d %63s",
			   &s, &e, name) == 3 && !strcmp(name, VDSO_NAME)) {
			start = s;
			end = e;
			break;
		}
	}
	fclose(fp);
	if (!start || end - start > (1 << 20))
		return false;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	if (write(fd, (void *)(uintptr_t)start, end - start) ==
	    (ssize_t)(end - start)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		found = try_elf(syms, f, path, pid, lowest, err);
	}
	close(fd);
	if (found) {
		free(f->path);
		f->path = strdup("[vdso] of the running kernel");
	}
	return found;
}

static bool vdso_get(struct ustack_syms *syms, struct elf_file *f, int pid,
		     unsigned long long lowest, int *err)
{
	if (!f->build_id) {
		if (!syms->vdso_said)
			ustack_warn("%s: no build ID recorded (trace-cmd record with the series saves one), its frames stay unresolved",
				    VDSO_NAME);
		syms->vdso_said = true;
		return false;
	}
	return try_vdso_dirs(syms, f, syms->dirs, syms->nr_dirs, pid, lowest, err) ||
	       try_build_ids(syms, f, pid, lowest, err) ||
	       try_vdso_modules(syms, f, pid, lowest, err) ||
	       try_vdso_own(syms, f, pid, lowest, err) ||
	       try_vdso_dirs(syms, f, syms->tdirs, syms->nr_tdirs, pid, lowest, err);
}

/*
 * The ELF file of a mapping: looked for in the search directories, then
 * by its build ID (try_build_ids()), then
 * at its own path, then in the trace file's directory (a copy next to
 * the trace is taken over a recorded path that exists only when that
 * one is not the file that was mapped); with a build ID from the maps,
 * only that build is taken (f->mismatch says one was found under the
 * name, but another), without one only a file whose segments fit the
 * recorded mappings (f->misplaced says one did not).
 */
static struct elf_file *elf_get(struct ustack_syms *syms, const char *name,
				const char *build_id, int pid,
				unsigned long long lowest)
{
	struct elf_file *f;
	int err = 0;

	for (f = syms->files; f; f = f->next)
		if (!strcmp(f->name, name) &&
		    (f->build_id ? build_id && !strcmp(f->build_id, build_id) :
		     !build_id))
			return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	f->build_id = build_id ? strdup(build_id) : NULL;
	if (!f->name || (build_id && !f->build_id)) {
		free(f->name);
		free(f->build_id);
		free(f);
		return NULL;
	}
	f->next = syms->files;
	syms->files = f;

	if (!strcmp(name, VDSO_NAME)) {
		if (vdso_get(syms, f, pid, lowest, &err))
			return f;
		if (f->build_id)
			ustack_warn("%s: no image of build %s found (the kernel build's vdso64.so.dbg in a search directory names it), frames in it stay unresolved",
				    name, build_id);
		return f;
	}
	if (try_dirs(syms, f, syms->dirs, syms->nr_dirs, pid, lowest, &err) ||
	    (f->build_id && try_build_ids(syms, f, pid, lowest, &err)) ||
	    try_elf(syms, f, name, pid, lowest, &err) ||
	    try_dirs(syms, f, syms->tdirs, syms->nr_tdirs, pid, lowest, &err)) {
		/*
		 * Maps saved without a build ID (trace-cmd record --proc-map
		 * of other versions): the layout fits, but a rebuilt file of
		 * the same name fits too and names every frame wrongly
		 */
		if (!f->build_id && !syms->maps_live)
			ustack_warn("%s: no build ID recorded: the names from %s are not verified (a file rebuilt since names its frames wrongly)",
				    name, f->path);
		return f;
	}
	if (f->mismatch)
		ustack_warn("%s: no file of build %s found, frames in it stay unresolved",
			    name, build_id);
	else if (f->misplaced)
		ustack_warn("%s: no file that fits its mappings found, frames in it stay unresolved",
			    name);
	else if (err)
		syms->errors++;
	else
		ustack_warn("%s: not found, frames in it stay unresolved",
			    name);
	return f;
}

/*
 * A C++ (Itanium ABI) name as a user reads it, "ns::func(int)"; the
 * mangled one when it is not valid.  libstdc++ has the demangler; elfutils'
 * eu-stack links it the same way.
 */
char *__cxa_demangle(const char *name, char *buf, size_t *len, int *status);

static void demangle(struct elf_file *f, struct ustack_sym *sym)
{
	char *d;
	int status = -1;

	if (strncmp(sym->name, "_Z", 2))
		return;
	d = __cxa_demangle(sym->name, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		return;
	}
	free(f->tmp);
	f->tmp = d;
	sym->name = d;
}

/*
 * A frame in no file: a JIT's, named in its perf-PID.map (perfmap.c),
 * the map file as its file.  Returns 1 when named.
 */
static int jit_name(struct ustack_syms *syms, int pid,
		    unsigned long long addr, struct ustack_sym *sym)
{
	const char *name, *path;
	unsigned long long off;

	name = perfmaps_lookup(&syms->perfmaps, pid, addr, syms->dirs,
			       syms->nr_dirs, syms->tdirs, syms->nr_tdirs,
			       &off, &path);
	if (!name)
		return 0;
	sym->name = name;
	sym->offset = off;
	sym->file = path;
	sym->file_addr = addr;
	return 1;
}

static int resolve(struct ustack_syms *syms, int pid,
		   unsigned long long addr, struct ustack_sym *sym,
		   int *mismatch, struct elf_file **where)
{
	unsigned long long lowest, faddr;
	const char *file, *name;
	struct elf_file *f;
	struct map_at m;
	GElf_Off off;
	GElf_Sym es;
	int type;

	if (!syms || !sym) {
		errno = EINVAL;
		return -1;
	}
	memset(sym, 0, sizeof(*sym));
	*mismatch = MISMATCH_NONE;
	*where = NULL;
	if (!find_map(syms, pid, addr, &m)) {
		sym->offset = addr;
		if (m.before_exec)
			*mismatch = MISMATCH_BEFORE_EXEC;
		else
			jit_name(syms, pid, addr, sym);
		return 0;
	}
	file = m.file;
	/* anonymous memory with a name ([anon:...], //anon): JIT code too */
	if ((file[0] == '[' || !strncmp(file, "//anon", 6)) &&
	    jit_name(syms, pid, addr, sym))
		return 0;
	lowest = m.lowest;
	sym->file = file;
	sym->file_addr = addr - lowest;
	sym->offset = sym->file_addr;
	f = elf_get(syms, file, m.build_id, pid, lowest);
	if (!f)
		return -1;
	sym->file = f->name;
	if (!f->mod)
		*mismatch = f->mismatch ? MISMATCH_BUILD :
			f->misplaced ? MISMATCH_LAYOUT : MISMATCH_UNREAD;
	if (!f->mod)
		return 0;
	if (lowest_vaddr(syms, f, pid, lowest, &faddr))
		faddr += addr - lowest;
	else
		faddr = addr - lowest + f->low;
	sym->file_addr = faddr;
	sym->offset = faddr;
	if (faddr < f->low || faddr >= f->high)
		return 0;
	*where = f;
	name = dwfl_module_addrinfo(f->mod, faddr, &off, &es, NULL, NULL,
				    NULL);
	if (!name || !*name)
		return 0;
	type = GELF_ST_TYPE(es.st_info);
	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return 0;
	if (es.st_size ? off >= es.st_size : off >= 0x10000)
		return 0;
	sym->name = name;
	sym->offset = off;
	/* "name@@VERSION" from a dynamic symbol table: keep the name */
	if (strchr(name, '@')) {
		size_t len = strcspn(name, "@");

		free(f->tmp);
		f->tmp = strndup(name, len);
		if (f->tmp)
			sym->name = f->tmp;
	}
	demangle(f, sym);
	return 0;
}

static struct cached *cache_slot(struct ustack_syms *syms, int pid,
				 int execs, unsigned long long addr)
{
	unsigned long long h;

	if (!syms->cache) {
		syms->cache = calloc(CACHE_SLOTS, sizeof(*syms->cache));
		if (!syms->cache)
			return NULL;
	}
	h = (addr ^ ((unsigned long long)(unsigned int)pid << 40) ^
	     ((unsigned long long)(unsigned int)execs << 20)) *
		0x9E3779B97F4A7C15ULL;
	return &syms->cache[(h >> 32) % CACHE_SLOTS];
}

/*
 * ustack_syms_resolve(), whether the file found is another build, the
 * file the name comes from (NULL: none) and the cache slot that holds the
 * answer (NULL without a cache).
 */
static int resolve_cached(struct ustack_syms *syms, int pid,
			  unsigned long long addr, struct ustack_sym *sym,
			  int *mismatch, struct elf_file **where,
			  struct cached **slot)
{
	const struct ustack_load *load;
	struct map_at m;
	struct cached *c;
	const void *key;
	int ret;

	*slot = NULL;
	*where = NULL;
	if (!syms || !sym) {
		errno = EINVAL;
		return -1;
	}
	syms->cur_execs = syms->nr_execs || syms->nr_sys_execs ?
		ustack_syms_execs_after(syms, pid, syms->ts) : 0;
	/* the same address names another object in another load's time */
	ret = load_lookup(syms, pid, addr, &m, &load);
	key = ret < 0 ? (const void *)syms->loads : load;
	c = cache_slot(syms, pid, syms->cur_execs, addr);
	if (c && c->valid && c->pid == pid && c->addr == addr &&
	    c->execs == syms->cur_execs && c->load == key) {
		*sym = c->sym;
		*mismatch = c->mismatch;
		*where = c->file;
		*slot = c;
		return 0;
	}
	ret = resolve(syms, pid, addr, sym, mismatch, where);
	if (ret < 0 || !c)
		return ret;
	cached_reset(c);
	c->name = sym->name ? strdup(sym->name) : NULL;
	if (sym->name && !c->name)
		return 0;
	c->valid = true;
	c->pid = pid;
	c->execs = syms->cur_execs;
	c->load = key;
	c->addr = addr;
	c->sym = *sym;
	c->sym.name = c->name;
	c->mismatch = *mismatch;
	c->file = *where;
	sym->name = c->name;
	*slot = c;
	return 0;
}

/**
 * ustack_syms_resolve - the symbol of a user frame
 * @syms: the symbols
 * @pid: the frame's process (ustack_event.tgid)
 * @addr: the frame
 * @sym: filled with the symbol's name and offset (name NULL when unknown),
 *       the mapped file (NULL when no map holds @addr) and the address in
 *       the file's terms (what addr2line -e takes)
 *
 * Names come from the ELF file of the mapping (its .symtab, .dynsym or
 * separate debug info), C++ names demangled; answers are cached per
 * (pid, address).  With a recorded build ID only a file of that build
 * names frames.  The strings stay valid until the next call or
 * ustack_syms_free().
 *
 * Returns 0 (also when the address has no name), or -1 with errno EINVAL
 * for a bad argument.
 */
int ustack_syms_resolve(struct ustack_syms *syms, int pid,
			unsigned long long addr, struct ustack_sym *sym)
{
	struct elf_file *f;
	struct cached *c;
	int mismatch;

	return resolve_cached(syms, pid, addr, sym, &mismatch, &f, &c);
}

/**
 * ustack_syms_resolve_kernel - the symbol of a kernel frame
 * @syms: the symbols
 * @addr: the frame
 * @sym: filled with the name and offset from kallsyms (name NULL when
 *       unknown or without kallsyms)
 *
 * Returns 0, or -1 with errno EINVAL for a NULL argument.
 */
int ustack_syms_resolve_kernel(struct ustack_syms *syms,
			       unsigned long long addr, struct ustack_sym *sym)
{
	struct tep_handle *tep;
	const char *name;
	unsigned long long start;

	if (!syms || !sym) {
		errno = EINVAL;
		return -1;
	}
	memset(sym, 0, sizeof(*sym));
	sym->offset = addr;
	tep = syms->tep;
	if (!tep)
		return 0;
	name = tep_find_function(tep, addr);
	if (!name)
		return 0;
	start = tep_find_function_address(tep, addr);
	sym->name = name;
	sym->offset = addr - start;
	return 0;
}

/*
 * What ustack_syms_format() writes for a resolved address.  A frame in a
 * file without a symbol for it gets the number "addr2line -e file" takes:
 * the file's own virtual address, which for a non-PIE executable (ET_EXEC)
 * is the address itself and for a PIE or a library (ET_DYN) the offset
 * from where it was loaded.  When the file that was mapped could not be
 * read, its type is not known, and neither is which of the two numbers
 * addr2line wants: both are printed, the offset from the file's first
 * mapping (PIE, library) and the address in parentheses (non-PIE).
 */
static int format_sym(char *buf, size_t size, const struct ustack_sym *s,
		      int mismatch, unsigned long long addr)
{
	if (mismatch == MISMATCH_BEFORE_EXEC)
		return snprintf(buf, size, "0x%llx %s", addr,
				USTACK_BEFORE_EXEC_TEXT);
	if (mismatch == MISMATCH_BUILD)
		return snprintf(buf, size, "%s+0x%llx (0x%llx) [build-id mismatch]",
				s->file, s->offset, addr);
	if (mismatch == MISMATCH_LAYOUT)
		return snprintf(buf, size, "%s+0x%llx (0x%llx) [not the file mapped]",
				s->file, s->offset, addr);
	if (mismatch == MISMATCH_UNREAD && s->file)
		return snprintf(buf, size, "%s+0x%llx (0x%llx)", s->file,
				s->offset, addr);
	if (s->name)
		return snprintf(buf, size, "%s+0x%llx (%s)", s->name,
				s->offset, s->file);
	if (s->file)
		return snprintf(buf, size, "%s+0x%llx", s->file, s->offset);
	return snprintf(buf, size, "0x%llx", addr);
}

/**
 * ustack_syms_format - a user frame as text
 * @syms: the symbols
 * @pid: the frame's process
 * @addr: the frame
 * @buf: where the text goes
 * @size: the size of @buf
 *
 * Writes "symbol+0xoff (file)"; "file+0xaddr" for a file without a
 * symbol there; "0xaddr" without a map; "file+0xoff (0xaddr)" when the
 * file could not be read, with " [build-id mismatch]" or " [not the file
 * mapped]" when no file of the recorded build, or fitting the recorded
 * mappings, was found; "0xaddr [before exec]" when the frame is from
 * before an exec of the process (at the time ustack_syms_set_time()
 * set) and the maps of that time are not known.
 *
 * Returns what snprintf() returns, or -1 with errno EINVAL for a bad
 * argument.
 */
int ustack_syms_format(struct ustack_syms *syms, int pid,
		       unsigned long long addr, char *buf, size_t size)
{
	struct ustack_sym s;
	struct elf_file *f;
	struct cached *c;
	int mismatch;

	if (!buf || !size ||
	    resolve_cached(syms, pid, addr, &s, &mismatch, &f, &c) < 0) {
		errno = EINVAL;
		return -1;
	}
	return format_sym(buf, size, &s, mismatch, addr);
}

/* ---- source lines ---- */

static const char *base_name(const char *path)
{
	const char *p = strrchr(path, '/');

	return p ? p + 1 : path;
}

/* The name of a DIE, through its abstract origin for an inlined one */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	const char *name = dwarf_diename(die);

	if (!name && dwarf_attr_integrate(die, DW_AT_abstract_origin, &attr) &&
	    dwarf_formref_die(&attr, &origin))
		name = dwarf_diename(&origin);
	return name ? name : "??";
}

/* Appends to a malloc()ed string; on failure the string is freed */
static char *append(char *str, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *append(char *str, const char *fmt, ...)
{
	size_t len = str ? strlen(str) : 0;
	va_list ap;
	char *n;
	int add;

	va_start(ap, fmt);
	add = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	n = add < 0 ? NULL : realloc(str, len + add + 1);
	if (!n) {
		free(str);
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(n + len, add + 1, fmt, ap);
	va_end(ap);
	return n;
}

/*
 * With debug info, the source line of faddr in f and the functions
 * inlined there, innermost first: each "func [inlined] file:line" (its
 * line), while *line gets the line of the function that holds them (the
 * call site of the outermost inlined one).
 */
static void source_lines(struct elf_file *f, unsigned long long faddr,
			 char **inl, char **line)
{
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Attribute attr;
	Dwfl_Line *dl;
	Dwarf_Word w;
	Dwarf_Addr bias;
	const char *file;
	size_t nfiles;
	int i, n, lineno = 0;

	*inl = NULL;
	*line = NULL;
	dl = dwfl_module_getsrc(f->mod, faddr);
	file = dl ? dwfl_lineinfo(dl, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (!file || lineno <= 0)
		return;
	cu = dwfl_module_addrdie(f->mod, faddr, &bias);
	n = cu ? dwarf_getscopes(cu, faddr - bias, &scopes) : 0;
	if (cu && dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *cf = NULL;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		*inl = append(*inl, "%s [inlined] %s:%d\n", die_name(&scopes[i]),
			      base_name(file), lineno);
		if (!*inl)
			break;
		/* the outer function is at the call site */
		if (files && dwarf_attr(&scopes[i], DW_AT_call_file, &attr) &&
		    !dwarf_formudata(&attr, &w))
			cf = dwarf_filesrc(files, w, NULL, NULL);
		lineno = 0;
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &attr) &&
		    !dwarf_formudata(&attr, &w))
			lineno = w;
		file = cf ? cf : "??";
	}
	free(scopes);
	if (lineno > 0)
		*line = append(NULL, "%s:%d", base_name(file), lineno);
}

/**
 * ustack_syms_format_lines - a user frame as text, inlined calls and source line
 * @syms: the symbols
 * @pid: the frame's process
 * @addr: the frame (a return address: looked up at @addr - 1)
 * @buf: where the text goes
 * @size: the size of @buf
 *
 * Writes what ustack_syms_format() writes and, with DWARF debug info, one
 * line before it for each function inlined at the address and the source
 * line after it.
 *
 * Returns what snprintf() returns, or -1 with errno EINVAL for a bad
 * argument.
 */
int ustack_syms_format_lines(struct ustack_syms *syms, int pid,
			     unsigned long long addr, char *buf, size_t size)
{
	char frame[4096], *inl = NULL, *line = NULL;
	struct ustack_sym s;
	struct elf_file *f;
	struct cached *c;
	int mismatch;
	int ret;

	if (!buf || !size ||
	    resolve_cached(syms, pid, addr, &s, &mismatch, &f, &c) < 0) {
		errno = EINVAL;
		return -1;
	}
	format_sym(frame, sizeof(frame), &s, mismatch, addr);
	if (c && c->src_done) {
		inl = c->inl;
		line = c->line;
	} else {
		/*
		 * A user frame is a return address (the first one too: the
		 * instruction after the system call): the line of the call
		 * is that of the byte before it, as gdb and perf take it
		 */
		if (f && f->mod && !mismatch && s.file_addr > f->low)
			source_lines(f, s.file_addr - 1, &inl, &line);
		if (c) {
			c->inl = inl;
			c->line = line;
			c->src_done = true;
		}
	}
	ret = snprintf(buf, size, "%s%s%s%s", inl ? inl : "", frame,
		       line ? " " : "", line ? line : "");
	if (!c) {
		free(inl);
		free(line);
	}
	return ret;
}

/**
 * ustack_syms_format_kernel - a kernel frame as text
 * @syms: the symbols
 * @addr: the frame
 * @buf: where the text goes
 * @size: the size of @buf
 *
 * Writes "symbol+0xoff", or "0xaddr" when it has no name.
 *
 * Returns what snprintf() returns, or -1 with errno EINVAL for a bad
 * argument.
 */
int ustack_syms_format_kernel(struct ustack_syms *syms,
			      unsigned long long addr, char *buf, size_t size)
{
	struct ustack_sym s;

	if (!buf || !size || ustack_syms_resolve_kernel(syms, addr, &s) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (s.name)
		return snprintf(buf, size, "%s+0x%llx", s.name, s.offset);
	return snprintf(buf, size, "0x%llx", addr);
}

/*
 * Call @func for each ELF file looked up for a frame (archive.c): its name
 * in the maps, the recorded build ID (or NULL), and its module (NULL when
 * no file of that build was found).
 */
int ustack_syms_for_each_file(struct ustack_syms *syms,
			      ustack_syms_file_func func, void *data)
{
	struct elf_file *f;
	int ret;

	for (f = syms->files; f; f = f->next) {
		ret = func(data, f->name, f->build_id, f->mod, f->path);
		if (ret)
			return ret;
	}
	return 0;
}
