// SPDX-License-Identifier: LGPL-2.1
/*
 * libsframe-register.so: give the kernel's user space unwinder an SFrame
 * section for every object of a process, without rebuilding anything.
 *
 * For each loaded object: its own .sframe (PT_GNU_SFRAME) when it has
 * one, else a section generated from its .eh_frame by libsframe-gen.so
 * and kept in a cache keyed by build ID, so that a warm start maps a file
 * instead of reading DWARF.  Registered with prctl(PR_ADD_SFRAME).
 *
 * Two ways in, one code path:
 *   LD_AUDIT=libsframe-register.so   la_objopen()/la_objclose(): every
 *                                    object, dlopen()ed ones included,
 *                                    unregistered before it is unmapped
 *   LD_PRELOAD=libsframe-register.so (or /etc/ld.so.preload): the
 *                                    objects loaded at start only
 * dlopen() is deliberately not interposed: glibc resolves a dlopen()ed
 * name with the caller's RUNPATH and namespace, and a wrapper would
 * become that caller.
 *
 * It must never break the program: every failure leaves the object
 * without a section and the process as it was (errno included).  One
 * line on stderr per object only with SFREG_DEBUG=1.
 *
 * Environment: SFREG_DISABLE=1 (no sections), SFREG_DEBUG=1,
 * SFREG_CACHE_DIR (default $XDG_CACHE_HOME/sframe, else
 * $HOME/.cache/sframe; no cache when none can be made),
 * SFREG_MAPS_MARKER=PATH (a tracefs trace_marker: each object's mapping
 * and unmapping written there, maps.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe-gen.h"
#include "cache.h"
#include "maps.h"
#include "objelf.h"

#ifndef PR_ADD_SFRAME
#define PR_ADD_SFRAME		82
#define PR_REMOVE_SFRAME	83
#endif

#define SFREG_MAX_OBJS		1024	/* the kernel's per-mm bound too */

/* A section this library registered, so it can be taken back */
struct sfreg_obj {
	uintptr_t base;		/* the object's load bias */
	void *map;		/* our mapping holding the section */
	size_t map_len;
	uintptr_t sframe;	/* what the kernel knows it by */
};

static struct sfreg_obj objs[SFREG_MAX_OBJS];
static int nr_objs;
static int debug = -1;
static int audit_mode;
static int started;		/* la_preinit() ran: later objects are dlopen()ed */
static int disabled = -1;

static void dbg(const char *fmt, ...)
{
	va_list ap;

	if (!debug)
		return;
	va_start(ap, fmt);
	fputs("sframe-register: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void read_env(void)
{
	const char *s;

	if (debug >= 0)
		return;
	s = getenv("SFREG_DEBUG");
	debug = s && *s && *s != '0';
	s = getenv("SFREG_DISABLE");
	disabled = s && *s && *s != '0';
}

static int remember(uintptr_t base, void *map, size_t len, uintptr_t sframe)
{
	if (nr_objs == SFREG_MAX_OBJS)
		return -1;
	objs[nr_objs++] = (struct sfreg_obj){ base, map, len, sframe };
	return 0;
}

/*
 * Hand @len bytes of generated section, relocated, to the kernel from a
 * mapping of our own.  @map is writable and ours; on success it is kept
 * (read-only) for as long as the object is loaded.
 */
static int add_generated(uintptr_t base, const struct sfreg_elf *e,
			 void *map, size_t map_len, size_t off, size_t len)
{
	uintptr_t sec = (uintptr_t)map + off;

	if (sfgen_relocate((void *)sec, len, (int64_t)(base - sec)) ||
	    mprotect(map, map_len, PROT_READ))
		return -1;
	if (prctl(PR_ADD_SFRAME, sec, sec + len, base + e->text_start,
		  base + e->text_end))
		return -1;
	if (remember(base, map, map_len, sec)) {
		prctl(PR_REMOVE_SFRAME, sec, 0, 0, 0);
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

/* Generate from the object's .eh_frame with libsframe-gen.so */
static int generate(int fd, void **sec, size_t *len)
{
	static int (*gen)(int, unsigned int, void **, size_t *,
			  struct sfgen_stats *);
	static int tried;
	struct sfgen_stats st;

	if (!tried) {
		char path[PATH_MAX];
		Dl_info info;
		void *h = NULL;
		char *slash;

		tried = 1;
		if (dladdr((void *)generate, &info) && info.dli_fname &&
		    strlen(info.dli_fname) < sizeof(path) - 32) {
			strcpy(path, info.dli_fname);
			slash = strrchr(path, '/');
			strcpy(slash ? slash + 1 : path, "libsframe-gen.so");
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
		if (h)
			gen = (void *)dlsym(h, "sfgen_from_fd");
		if (!gen)
			dbg("no generator: %s", dlerror());
	}
	if (!gen) {
		errno = ENOSYS;
		return -1;
	}
	return gen(fd, 0, sec, len, &st);
}

/* The object's generated section: from the cache, else made and cached */
static int add_from_eh_frame(const char *path, int fd, uintptr_t base,
			     const struct sfreg_elf *e)
{
	struct sfcache_key key;
	size_t map_len, off, len;
	void *map, *sec;
	int ret;

	sfcache_key_init(&key, fd, e->build_id, e->build_id_len,
			 e->text_start, e->text_end);
	map = sfcache_map(&key, &map_len, &off, &len);
	if (map) {
		ret = add_generated(base, e, map, map_len, off, len);
		if (ret)
			munmap(map, map_len);
		dbg("%s: cached section %s", path, ret ? strerror(errno) : "registered");
		return ret;
	}
	if (generate(fd, &sec, &len)) {
		dbg("%s: cannot generate: %s", path, strerror(errno));
		return -1;
	}
	if (sfcache_store(&key, sec, len))
		dbg("%s: not cached: %s", path, strerror(errno));
	map_len = (len + getpagesize() - 1) & ~((size_t)getpagesize() - 1);
	map = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		free(sec);
		return -1;
	}
	memcpy(map, sec, len);
	free(sec);
	ret = add_generated(base, e, map, map_len, 0, len);
	if (ret)
		munmap(map, map_len);
	dbg("%s: generated section %s", path, ret ? strerror(errno) : "registered");
	return ret;
}

/*
 * Register the object at @path loaded with bias @base, and with @announce
 * write its mapping to the trace (maps.c); never fails loudly
 */
static void register_object(const char *path, uintptr_t base, int announce)
{
	struct sfreg_elf e;
	int fd, saved = errno;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (sfreg_read_elf(fd, &e)) {
		dbg("%s: not an x86-64 ELF object with code", path);
		goto close;
	}
	if (announce)
		sfreg_maps_open(path, base, e.loads, e.nr_loads, e.build_id,
				e.build_id_len);
	if (disabled) {
		/* maps only */
	} else if (e.sframe) {
		/* Its own section; the kernel has the executable's already */
		if (!prctl(PR_ADD_SFRAME, base + e.sframe,
			   base + e.sframe + e.sframe_len,
			   base + e.text_start, base + e.text_end))
			remember(base, NULL, 0, base + e.sframe);
		dbg("%s: own .sframe: %s", path, strerror(errno));
	} else {
		add_from_eh_frame(path, fd, base, &e);
	}
close:
	close(fd);
out:
	errno = saved;
}

static void unregister_object(uintptr_t base)
{
	int i, saved = errno;

	for (i = 0; i < nr_objs; i++) {
		if (objs[i].base != base)
			continue;
		prctl(PR_REMOVE_SFRAME, objs[i].sframe, 0, 0, 0);
		if (objs[i].map)
			munmap(objs[i].map, objs[i].map_len);
		objs[i] = objs[--nr_objs];
		break;
	}
	errno = saved;
}

/*
 * The file to read for an object the loader names @name.  A name with a
 * slash that is not absolute (dlopen("./lib.so")) is the loader's own
 * relative to the working directory, which is still the one it used:
 * the loader's lock is held, so the buffer is not shared.
 */
static const char *object_path(const char *name, uintptr_t base)
{
	static char abs[PATH_MAX];

	if (name && name[0] == '/')
		return name;
	if (name && strchr(name, '/') && realpath(name, abs))
		return abs;
	/* the main program has no name here; the vDSO has no file */
	if ((!name || !name[0]) && base != getauxval(AT_SYSINFO_EHDR))
		return "/proc/self/exe";
	return NULL;
}

/* LD_AUDIT interface */

#define SFREG_API __attribute__((visibility("default")))

SFREG_API unsigned int la_version(unsigned int version)
{
	audit_mode = 1;
	return version;
}

/*
 * The program's own cookie (the loader keeps one per object and module,
 * and passes the same one to la_objclose()): closed only at exit
 */
static uintptr_t *main_cookie;

SFREG_API unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	const char *path;
	int announce;

	read_env();
	*cookie = map->l_addr;
	if (lmid != LM_ID_BASE)
		return 0;
	/* the first object is the program, whatever its name says */
	path = main_cookie ? object_path(map->l_name, map->l_addr) :
			     "/proc/self/exe";
	if (!main_cookie)
		main_cookie = cookie;
	/*
	 * Only objects loaded after start (dlopen()) are announced: those
	 * loaded with the program are in its maps as trace-cmd reads them,
	 * and are never unloaded before exit
	 */
	announce = started && path && path[0] == '/' && sfreg_maps_wanted();
	if (path && (!disabled || announce))
		register_object(path, map->l_addr, announce);
	return 0;
}

/* Called once the objects loaded at start are ready, before main() */
SFREG_API void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
	started = 1;
}

SFREG_API unsigned int la_objclose(uintptr_t *cookie)
{
	/*
	 * The program itself is closed only by _dl_fini() at exit, which
	 * closes it before every other object of its namespace: the objects
	 * still loaded stay mapped until exit_group(), and a frame in one
	 * on the exit path must still be named there, so no close is
	 * written from now on
	 */
	if (cookie == main_cookie)
		sfreg_maps_exiting();
	if (!disabled)
		unregister_object(*cookie);
	sfreg_maps_close(*cookie);
	return 0;
}

/* LD_PRELOAD: the objects loaded at start */

struct sfreg_start {
	int nr;
	struct {
		const char *path;	/* the loader's string: lives on */
		uintptr_t base;
	} obj[SFREG_MAX_OBJS];
};

/*
 * Only list them here: registering may dlopen() the generator, and the
 * objects that brings in are not the program's.
 */
static int preload_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sfreg_start *s = data;
	const char *path;

	(void)size;
	path = !s->nr ? "/proc/self/exe" :
			object_path(info->dlpi_name, info->dlpi_addr);
	if (path && s->nr < SFREG_MAX_OBJS) {
		s->obj[s->nr].path = path;
		s->obj[s->nr++].base = info->dlpi_addr;
	}
	return 0;
}

/* Loaded in the program's namespace (a preload), not as an audit module */
static int in_base_namespace(void)
{
	struct link_map *self;
	Lmid_t ns;
	Dl_info info;

	if (!dladdr1((void *)in_base_namespace, &info, (void **)&self,
		     RTLD_DL_LINKMAP) || dlinfo(self, RTLD_DI_LMID, &ns))
		return 0;
	return ns == LM_ID_BASE;
}

__attribute__((constructor)) static void sfreg_init(void)
{
	struct sfreg_start *start;
	int i;

	/*
	 * An audit module has a namespace of its own, and its constructor
	 * runs before la_version(): la_objopen() does the work there.
	 */
	if (audit_mode || !in_base_namespace())
		return;
	read_env();
	if (disabled)
		return;
	start = calloc(1, sizeof(*start));
	if (!start)
		return;
	dl_iterate_phdr(preload_one, start);
	for (i = 0; i < start->nr; i++)
		register_object(start->obj[i].path, start->obj[i].base, 0);
	free(start);
}
