// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-feed: the user space half of feeding the kernel SFrame sections
 * for processes nobody started with the registrar (system wide; see
 * Documentation/decisions.md, "System-wide").  For every object with an
 * executable mapping in the running processes (or in those of -p), once
 * per file: its own .sframe (PT_GNU_SFRAME) when it has one, else the
 * section the registrar would use, from the same cache (preload/cache.c,
 * keyed by build ID), generated from .eh_frame on a miss and stored.
 * One line per object: what it took, the section's bytes, the CPU time.
 *
 * With -a it attaches each section to its file
 * (prctl(PR_ATTACH_SFRAME_FILE), kernel series 6-sframe-file), all through
 * one descriptor, which holds them: with -w it stays until killed, and
 * follows the processes meanwhile: on each mmap:exec_mapping event (kernel
 * series 7-exec-mapping), read from a tracefs instance of its own
 * (follow()), else by polling /proc (watch()).  See
 * Documentation/sframe-feed.txt.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "sframe-gen.h"
#include "objelf.h"

static const char *prog = "sframe-feed";

#ifndef PR_ATTACH_SFRAME_FILE
#define PR_ATTACH_SFRAME_FILE	84

/* <linux/prctl.h> of a kernel with the 6-sframe-file series */
struct prctl_sframe_file {
	uint64_t	sframe;
	uint64_t	sframe_size;
	uint64_t	sframe_addr;
	uint64_t	text_start;
	uint64_t	text_end;
	uint64_t	seg_vaddr;
	uint64_t	seg_offset;
	int32_t		object_fd;
	int32_t		owner_fd;
	uint32_t	flags;
	uint32_t	build_id_size;
	uint8_t		build_id[20];
	uint32_t	reserved;
};
#endif

struct obj {
	dev_t		dev;
	unsigned long long ino;
};

struct feed {
	struct obj	*objs;		/* the files seen */
	int		nr;
	bool		quiet;
	bool		attach;		/* -a */
	int		owner_fd;	/* the sections attached belong to it */
	int		attached, att_fail;
	unsigned long long att_bytes;
	int		own, hit, gen, fail, procs;
	unsigned long long bytes;
	double		ms;
};

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Whether the file (dev, ino) was seen; remember it if not.  @dev as the
 * kernel's s_dev, which /proc/PID/maps and mmap:exec_mapping both show.
 */
static bool seen(struct feed *f, dev_t dev, unsigned long long ino)
{
	struct obj *o;
	int i;

	for (i = 0; i < f->nr; i++)
		if (f->objs[i].ino == ino && f->objs[i].dev == dev)
			return true;
	o = realloc(f->objs, (f->nr + 1) * sizeof(*o));
	if (!o)
		return true;	/* no memory: skip it rather than fail */
	f->objs = o;
	o[f->nr].dev = dev;
	o[f->nr].ino = ino;
	f->nr++;
	return false;
}

/*
 * Attach @len bytes at @sec, read as if at ELF vaddr @sec_addr, to the
 * object @fd described by @e
 */
static void attach(struct feed *f, int fd, const struct sfreg_elf *e,
		   const void *sec, size_t len, uint64_t sec_addr,
		   const char *path)
{
	struct prctl_sframe_file a = { 0 };
	int i, ret;

	a.sframe = (uintptr_t)sec;
	a.sframe_size = len;
	a.sframe_addr = sec_addr;
	a.text_start = e->text_start;
	a.text_end = e->text_end;
	a.object_fd = fd;
	a.owner_fd = f->owner_fd;
	a.build_id_size = e->build_id_len;
	if (e->build_id_len > sizeof(a.build_id)) {
		errno = EINVAL;
		goto fail;
	}
	memcpy(a.build_id, e->build_id, e->build_id_len);
	/* the executable PT_LOAD: the one holding the text's start */
	errno = ENOEXEC;
	for (i = 0; i < e->nr_loads; i++)
		if (e->loads[i].vaddr <= e->text_start &&
		    e->text_start - e->loads[i].vaddr < e->loads[i].memsz)
			break;
	if (i == e->nr_loads)
		goto fail;
	a.seg_vaddr = e->loads[i].vaddr;
	a.seg_offset = e->loads[i].offset;
	ret = prctl(PR_ATTACH_SFRAME_FILE, &a, sizeof(a), 0, 0);
	if (ret < 0)
		goto fail;
	f->owner_fd = ret;
	f->attached++;
	f->att_bytes += len;
	if (!f->quiet)
		printf("attached %s\n", path);
	return;
fail:
	f->att_fail++;
	if (!f->quiet)
		printf("not attached %s: %s\n", path, strerror(errno));
}

/* Read the object's own .sframe, @e->sframe_len bytes at vaddr @e->sframe */
static void *read_own(int fd, const struct sfreg_elf *e)
{
	void *buf;
	int i;

	for (i = 0; i < e->nr_loads; i++)
		if (e->loads[i].vaddr <= e->sframe &&
		    e->sframe - e->loads[i].vaddr < e->loads[i].memsz)
			break;
	if (i == e->nr_loads || !e->sframe_len)
		return NULL;
	buf = malloc(e->sframe_len);
	if (buf && pread(fd, buf, e->sframe_len, e->sframe - e->loads[i].vaddr +
			 e->loads[i].offset) != (ssize_t)e->sframe_len) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/* The section of the object mapped at @start-@end of @pid (@path) */
static void feed_obj(struct feed *f, int pid, unsigned long long start,
		     unsigned long long end, const char *path)
{
	struct sfcache_key key;
	const char *what = "fail";
	size_t map_len, off, len = 0;
	struct sfreg_elf e;
	struct sfgen_stats st;
	char mf[PATH_MAX];
	void *map, *sec;
	double t0 = cpu_ms(), ms;
	int fd;

	/* the file mapped, even if the path now names another */
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid, start, end);
	fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || sfreg_read_elf(fd, &e)) {
		f->fail++;
		goto out;
	}
	if (e.sframe) {
		what = "own";
		len = e.sframe_len;
		f->own++;
		if (f->attach) {
			sec = read_own(fd, &e);
			if (sec)
				attach(f, fd, &e, sec, len, e.sframe, path);
			else
				f->att_fail++;
			free(sec);
		}
		goto out;
	}
	sfcache_key_init(&key, fd, e.build_id, e.build_id_len, e.text_start,
			 e.text_end);
	map = sfcache_map(&key, &map_len, &off, &len);
	if (map) {
		if (f->attach)
			attach(f, fd, &e, (char *)map + off, len, 0, path);
		munmap(map, map_len);
		what = "hit";
		f->hit++;
		goto out;
	}
	if (sfgen_from_fd(fd, 0, &sec, &len, &st)) {
		len = 0;
		f->fail++;
		goto out;
	}
	if (sfcache_store(&key, sec, len) && !f->quiet)
		fprintf(stderr, "%s: %s: not cached: %s\n", prog, path,
			strerror(errno));
	if (f->attach)
		attach(f, fd, &e, sec, len, 0, path);
	free(sec);
	what = "gen";
	f->gen++;
out:
	if (fd >= 0)
		close(fd);
	ms = cpu_ms() - t0;
	f->ms += ms;
	f->bytes += len;
	if (!f->quiet)
		printf("%-4s %8zu %8.3f %s\n", what, len, ms, path);
}

static void feed_pid(struct feed *f, int pid)
{
	char buf[PATH_MAX + 128], perms[8];
	unsigned long long start, end, pgoff;
	unsigned int major, minor;
	unsigned long ino;
	char *path;
	FILE *m;
	int n;

	snprintf(buf, sizeof(buf), "/proc/%d/maps", pid);
	m = fopen(buf, "r");
	if (!m)
		return;
	f->procs++;
	while (fgets(buf, sizeof(buf), m)) {
		n = 0;
		if (sscanf(buf, "%llx-%llx %7s %llx %x:%x %lu %n", &start, &end,
			   perms, &pgoff, &major, &minor, &ino, &n) != 7 || !n)
			continue;
		path = buf + n;
		path[strcspn(path, "\n")] = '\0';
		if (!strchr(perms, 'x') || !ino || path[0] != '/' ||
		    strstr(path, " (deleted)") ||
		    seen(f, makedev(major, minor), ino))
			continue;
		feed_obj(f, pid, start, end, path);
	}
	fclose(m);
}

/* -w: set by SIGTERM, SIGINT, SIGHUP: release the sections and exit */
static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* -w: how often new processes and execs are looked for, and all maps */
#define WATCH_MS	100
#define RESCAN_MS	2000

/* a process and the file it runs (an exec changes the file) */
struct proc_id {
	int		pid;
	dev_t		dev;
	ino_t		ino;
};

static int proc_cmp(const void *a, const void *b)
{
	const struct proc_id *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * The processes now, those of @pids (@nr of them) or all, in pid order:
 * their number, or -1.  A process with no executable (a kernel thread)
 * or gone meanwhile is left out.
 */
static int procs_now(const int *pids, int nr, struct proc_id **out)
{
	struct proc_id *p = NULL, *np;
	int n = 0, alloc = 0, pid, i = 0;
	char path[64];
	struct stat st;
	struct dirent *d;
	DIR *dir = NULL;

	if (!nr && !(dir = opendir("/proc")))
		return -1;
	for (;;) {
		if (dir) {
			if (!(d = readdir(dir)))
				break;
			pid = atoi(d->d_name);
			if (pid <= 0 || pid == getpid())
				continue;
		} else if (i < nr) {
			pid = pids[i++];
		} else {
			break;
		}
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		if (stat(path, &st) < 0)
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			np = realloc(p, alloc * sizeof(*p));
			if (!np)
				break;
			p = np;
		}
		p[n].pid = pid;
		p[n].dev = st.st_dev;
		p[n++].ino = st.st_ino;
	}
	if (dir)
		closedir(dir);
	qsort(p, n, sizeof(*p), proc_cmp);
	*out = p;
	return n;
}

/*
 * -w, once the sections are held: follow the processes.  One that starts
 * or execs is fed within WATCH_MS; every process's maps are read again
 * each RESCAN_MS, for objects loaded since (dlopen()).  A file is fed
 * once (seen()), so a rescan reads maps and attaches only what is new.
 * Nothing is done to the processes but reading their /proc files.
 */
static void watch(struct feed *f, const int *pids, int nr)
{
	struct proc_id *old = NULL, *now = NULL;
	int n_old, n, i, j, round = 0;
	bool fresh, all;

	n_old = procs_now(pids, nr, &old);
	while (!stopping) {
		usleep(WATCH_MS * 1000);
		n = procs_now(pids, nr, &now);
		if (n < 0)
			continue;
		all = ++round % (RESCAN_MS / WATCH_MS) == 0;
		for (i = j = 0; i < n; i++) {
			while (j < n_old && old[j].pid < now[i].pid)
				j++;
			fresh = j >= n_old || old[j].pid != now[i].pid ||
				old[j].dev != now[i].dev || old[j].ino != now[i].ino;
			if (fresh || all)
				feed_pid(f, now[i].pid);
		}
		free(old);
		old = now;
		n_old = n;
		fflush(stdout);
	}
	free(old);
}

/*
 * -w on a kernel with mmap:exec_mapping (series 7-exec-mapping): the
 * event of each new executable mapping of a file, read from a tracefs
 * instance of the feeder's own, drives it, so that an object is attached
 * as soon as it is mapped (an exec, a dlopen()), where the polling of
 * watch() took up to WATCH_MS (RESCAN_MS for a dlopen()).  The instance,
 * "sframe-feed-PID", has that event alone (filtered on the -p processes),
 * a small buffer and no stack option; it is made before the first scan of
 * /proc, so that nothing mapped meanwhile is missed, and removed on
 * SIGTERM, SIGINT or SIGHUP (an instance left by a feeder that was killed
 * is removed by the next one).  Events lost to a full buffer make it scan
 * /proc again.
 */
#define INSTANCE_PREFIX	"sframe-feed-"
#define EVENT_BUF_KB	64

/* Remove the instances of feeders that are gone */
static void remove_stale_instances(void)
{
	struct tracefs_instance *inst;
	char **names;
	int i, pid;

	names = tracefs_instances("^" INSTANCE_PREFIX "[0-9]+$");
	for (i = 0; names && names[i]; i++) {
		pid = atoi(names[i] + strlen(INSTANCE_PREFIX));
		if (pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (inst) {
			tracefs_instance_destroy(inst);
			tracefs_instance_free(inst);
		}
	}
	tracefs_list_free(names);
}

/*
 * Make the instance and turn the event on in it: the fd of its
 * trace_pipe, or -1 (no tracefs, no such event, not allowed): then poll
 */
static int events_open(struct tracefs_instance **out, const int *pids, int nr)
{
	struct tracefs_instance *inst;
	char name[64], *filter = NULL, *nf;
	int fd = -1, i;

	*out = NULL;
	if (!tracefs_event_file_exists(NULL, "mmap", "exec_mapping", "format"))
		return -1;
	remove_stale_instances();
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", getpid());
	inst = tracefs_instance_create(name);
	if (!inst)
		return -1;
	tracefs_instance_set_buffer_size(inst, EVENT_BUF_KB, -1);
	for (i = 0; i < nr; i++) {
		if (asprintf(&nf, "%s%stgid == %d", filter ? filter : "",
			     filter ? " || " : "", pids[i]) < 0)
			goto fail;
		free(filter);
		filter = nf;
	}
	if (filter && tracefs_instance_file_write(inst,
			"events/mmap/exec_mapping/filter", filter) < 0)
		goto fail;
	if (tracefs_event_enable(inst, "mmap", "exec_mapping") < 0)
		goto fail;
	fd = tracefs_instance_file_open(inst, "trace_pipe", O_RDONLY);
	if (fd < 0)
		goto fail;
	free(filter);
	*out = inst;
	return fd;
fail:
	free(filter);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return -1;
}

static void events_close(struct tracefs_instance *inst, int fd)
{
	if (fd >= 0)
		close(fd);
	if (inst) {
		tracefs_event_disable(inst, "mmap", "exec_mapping");
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
}

/* Every process again (-p: those), as at the start */
static void feed_all(struct feed *f, const int *pids, int nr)
{
	struct dirent *d;
	DIR *dir;
	int i, v;

	if (nr) {
		for (i = 0; i < nr; i++)
			feed_pid(f, pids[i]);
		return;
	}
	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		v = atoi(d->d_name);
		if (v > 0 && v != getpid())
			feed_pid(f, v);
	}
	if (dir)
		closedir(dir);
}

/*
 * One line of trace_pipe: "... exec_mapping: tgid=T exec=E start=0xS
 * end=0xE pgoff=0xP dev=MA:MI ino=I build_id=HEX path=PATH"
 */
static void follow_line(struct feed *f, char *line, const int *pids, int nr)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int major, minor;
	char *p, *path;
	int tgid, exec;

	if (strstr(line, "[LOST ")) {
		/* the buffer was full: what was mapped meanwhile is unknown */
		feed_all(f, pids, nr);
		return;
	}
	p = strstr(line, " exec_mapping: ");
	path = strstr(line, " path=");
	if (!p || !path)
		return;
	if (sscanf(p, " exec_mapping: tgid=%d exec=%d start=%llx end=%llx pgoff=%llx dev=%u:%u ino=%llu",
		   &tgid, &exec, &start, &end, &pgoff, &major, &minor, &ino) != 8)
		return;
	path += strlen(" path=");
	if (path[0] != '/' || seen(f, makedev(major, minor), ino))
		return;
	feed_obj(f, tgid, start, end, path);
	fflush(stdout);
}

/*
 * -w with the event: feed each object as its mapping's event arrives,
 * until a signal says stop.  Returns early if the pipe ends (tracing
 * turned off in the instance, by someone else): the caller then polls.
 */
static void follow(struct feed *f, int fd, const int *pids, int nr)
{
	static char buf[2 * (PATH_MAX + 512)];
	size_t len = 0;
	ssize_t r;
	char *nl, *line;

	while (!stopping) {
		r = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += r;
		buf[len] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			follow_line(f, line, pids, nr);
			line = nl + 1;
		}
		len -= line - buf;
		memmove(buf, line, len);
		/* a line longer than the buffer: dropped */
		if (len == sizeof(buf) - 1)
			len = 0;
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s [-p PID]... [-q] [-a [-w [-P]]]\n"
		"  -p PID  the objects of PID (default: of every process)\n"
		"  -q      print the summary only\n"
		"  -a      attach each section to its file (PR_ATTACH_SFRAME_FILE)\n"
		"  -w      then hold them until killed, attaching those of\n"
		"          processes started, exec'd or dlopen()ing since: as\n"
		"          each mapping is made (mmap:exec_mapping), else polling\n"
		"  -P      poll /proc (every %d ms; all maps every %d ms) even\n"
		"          where the kernel has mmap:exec_mapping\n"
		"Each object: own|hit|gen|fail, section bytes, CPU ms, path.\n"
		"The cache is the registrar's (SFREG_CACHE_DIR, else\n"
		"$XDG_CACHE_HOME/sframe, else $HOME/.cache/sframe).\n", prog,
		WATCH_MS, RESCAN_MS);
}

int main(int argc, char **argv)
{
	struct feed f = { .owner_fd = -1 };
	struct tracefs_instance *inst = NULL;
	struct sigaction sa = { .sa_handler = on_stop };
	bool hold = false, poll = false;
	int *pids = NULL, nr = 0, c, efd = -1;
	char *end;
	long v;

	while ((c = getopt(argc, argv, "p:qawPh")) != -1) {
		switch (c) {
		case 'p':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v <= 0 || v > INT_MAX) {
				fprintf(stderr, "%s: not a pid: %s\n", prog, optarg);
				return 2;
			}
			pids = realloc(pids, (nr + 1) * sizeof(*pids));
			if (!pids)
				return 1;
			pids[nr++] = (int)v;
			break;
		case 'q':
			f.quiet = true;
			break;
		case 'a':
			f.attach = true;
			break;
		case 'w':
			hold = true;
			break;
		case 'P':
			poll = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || (hold && !f.attach) || (poll && !hold)) {
		usage(stderr);
		return 2;
	}
	/*
	 * A kernel that has the call reads past the struct's size first and
	 * faults on NULL (EFAULT), or refuses the caller (EPERM); one that
	 * has not says EINVAL, as for any unknown option
	 */
	if (f.attach && prctl(PR_ATTACH_SFRAME_FILE, 0, 8192, 0, 0) < 0 &&
	    errno == EINVAL) {
		fprintf(stderr, "%s: -a: this kernel has no PR_ATTACH_SFRAME_FILE\n",
			prog);
		free(pids);
		return 3;
	}
	if (hold) {
		/* no SA_RESTART: a read of trace_pipe, a sleep, ends */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	/* the event on before the scan: nothing mapped in between is missed */
	if (hold && !poll)
		efd = events_open(&inst, pids, nr);
	feed_all(&f, pids, nr);
	printf("%d processes, %d objects: %d own .sframe, %d from the cache, %d generated, %d failed; %llu bytes, %.1f ms CPU\n",
	       f.procs, f.nr, f.own, f.hit, f.gen, f.fail, f.bytes, f.ms);
	if (!f.attach)
		printf("-a not given: none attached\n");
	else
		printf("attached %d sections, %llu bytes; %d not attached\n",
		       f.attached, f.att_bytes, f.att_fail);
	if (f.procs && hold && f.owner_fd >= 0) {
		if (efd >= 0)
			printf("holding them until killed, following mmap:exec_mapping\n");
		else
			printf("holding them until killed, polling /proc every %d ms\n",
			       WATCH_MS);
		fflush(stdout);
		/* a reader may stop reading here (trace-cmd record does) */
		signal(SIGPIPE, SIG_IGN);
		if (efd >= 0)
			follow(&f, efd, pids, nr);
		if (!stopping)
			watch(&f, pids, nr);
	}
	events_close(inst, efd);
	free(f.objs);
	free(pids);
	if (!f.procs)
		return 1;
	return f.attach && !f.attached ? 3 : 0;
}
