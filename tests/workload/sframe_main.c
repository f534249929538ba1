// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame workloads: a known user call chain through an executable and
 * a shared library of ours, all built -O2 -fomit-frame-pointer
 * -Wa,--gsframe (no frame pointer anywhere on the path):
 *
 *   main -> sf_outer -> sf_middle -> sf_lib_outer -> sf_lib_middle
 *        -> sf_lib_leaf (getppid, inline syscall, %rbp = 0)
 *
 * Built three ways (Makefile): sfwork links libsfwork.so; sfwork-static
 * is static, the library's code linked in; sfwork-dlopen (SF_DLOPEN)
 * dlopen()s libsfwork.so from its own directory after start.
 *
 * Usage: sfwork [-r|-u|-3|-3w] [getppid [COUNT [DEPTH]]]
 *   getppid COUNT   COUNT getppid() from sf_lib_leaf (default 1), with
 *                   DEPTH frames of sf_lib_deep above it (default 0)
 *   -r              first register the .sframe of every loaded object
 *                   with prctl(PR_ADD_SFRAME) (the kernel registered the
 *                   executable and the dynamic linker at exec; shared
 *                   libraries are ours to register)
 *   -u              first unregister every object's .sframe
 *                   (PR_REMOVE_SFRAME): a frame-pointer walk only
 *   -3              (sfwork only) first register the library's version 3
 *                   copy of its .sframe (sf_lib_sframe_v3, written by
 *                   sframe-tool.py v3) for the library's code
 *   -3w             as -3, then run the chain once (its first lookups:
 *                   the kernel decodes the section's rules), overwrite
 *                   that copy's FREs with 0xff bytes (an FRE info byte
 *                   the kernel refuses), and unregister and register
 *                   every object's .sframe again (the kernel forgets the
 *                   rules it kept): only rules decoded before are right
 * With SFWORK_MAPS=FILE in the environment, /proc/self/maps is copied to
 * FILE before the chain runs (frames can be named after the process is
 * gone: tests/guest/sframecheck.py).  With SFWORK_AGAIN=N (and -r), the
 * sections are registered again and the chain run again, N more times;
 * each time stderr says how many registrations were new ("again: N
 * registered"): a section the kernel dropped in the run before.  With
 * SFWORK_FORGET=1 too, every object's .sframe is unregistered first, each
 * time: the kernel forgets the rules it kept, and the walks of the next
 * run find them again (t-97 sframe-rows-inline-same-frames).
 * With SFWORK_MAKE_IT_FAIL=1, the chain runs with /proc/self/make-it-fail
 * set (fault injection for this task only: its first deferred unwind, no
 * exec or library load before it; t-97 sframe-rules-no-sleeping-free).
 * Exits 3 when a registration fails with anything but EEXIST/ENOENT (after
 * running the chain all the same).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#ifdef SF_DLOPEN
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>
#endif

#include "insn-marker.h"
#include "sframe_reg.h"

/* the chain runs between instruction-count markers (bench/sframe.sh) */
#define INSN_MARKER_SFRAME	62

#define NOINLINE __attribute__((noinline, noclone))

typedef void (*lib_outer_fn)(long count, long depth, long nr);

#ifdef SF_DLOPEN
static lib_outer_fn lib_outer;
#else
void sf_lib_outer(long count, long depth, long nr);
static lib_outer_fn lib_outer = sf_lib_outer;
#endif

static volatile long sink;

#ifndef SF_DLOPEN
const unsigned char *sf_lib_sframe_v3_room(void);

/*
 * -3: the library's version 3 section, in its room; its length is
 * the header's (28 bytes) plus the auxiliary header, the FRE sub-section's
 * offset and its length.
 */
static int register_v3(void)
{
	const unsigned char *s = sf_lib_sframe_v3_room();
	uint32_t freoff, frelen;
	uintptr_t text, text_end, len;

	if (s[0] != 0xe2 || s[1] != 0xde) {
		fprintf(stderr, "no version 3 section in the library (sframe-tool.py v3)\n");
		return -1;
	}
	memcpy(&frelen, s + 16, 4);
	memcpy(&freoff, s + 24, 4);
	len = 28 + s[7] + (uintptr_t)freoff + frelen;
	if (sfreg_text_of(s, &text, &text_end))
		return -1;
	return prctl(PR_ADD_SFRAME, (uintptr_t)s, (uintptr_t)s + len, text,
		     text_end);
}

/* -3w: the FREs of the registered copy, overwritten with 0xff */
static int scribble_v3(void)
{
	unsigned char *s = (unsigned char *)sf_lib_sframe_v3_room();
	uintptr_t page = (uintptr_t)s & ~(uintptr_t)4095, fres;
	uint32_t freoff, frelen;

	memcpy(&frelen, s + 16, 4);
	memcpy(&freoff, s + 24, 4);
	fres = (uintptr_t)s + 28 + s[7] + freoff;
	if (mprotect((void *)page, fres + frelen - page, PROT_READ | PROT_WRITE))
		return -1;
	memset((void *)fres, 0xff, frelen);
	return 0;
}
#endif

/* SFWORK_MAKE_IT_FAIL=1: set or clear this task's make-it-fail */
static void make_it_fail(const char *val)
{
	const char *want = getenv("SFWORK_MAKE_IT_FAIL");
	FILE *f;

	if (!want || strcmp(want, "1"))
		return;
	f = fopen("/proc/self/make-it-fail", "w");
	if (!f || fputs(val, f) == EOF || fclose(f)) {
		perror("/proc/self/make-it-fail");
		exit(4);
	}
}

NOINLINE void sf_middle(long count, long depth)
{
	volatile char pad[56];

	pad[0] = 2;
	lib_outer(count, depth, SYS_getppid);
	sink += pad[0];
}

NOINLINE void sf_outer(long count, long depth)
{
	volatile int pad[5];

	pad[0] = 3;
	sf_middle(count, depth);
	sink += pad[0];
}

#ifdef SF_DLOPEN
/* libsfwork.so from the directory of this executable */
static int load_lib(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;
	void *h;

	if (n <= 0)
		return -1;
	path[n] = 0;
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libsfwork.so");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	lib_outer = (lib_outer_fn)dlsym(h, "sf_lib_outer");
	return lib_outer ? 0 : -1;
}
#endif

/* a copy of /proc/self/maps, to name the frames of this run afterwards */
static void save_maps(const char *path)
{
	FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(path, "w");
	char buf[4096];
	size_t n;

	while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

int main(int argc, char **argv)
{
	long count = 1, depth = 0;
	int reg = -1, i = 1, v3 = 0;
#ifndef SF_DLOPEN
	int scribble = 0;
#endif
	struct sfreg_count c = { 0 };

	if (i < argc && !strcmp(argv[i], "-r"))
		reg = 1, i++;
	else if (i < argc && !strcmp(argv[i], "-u"))
		reg = 0, i++;
#ifndef SF_DLOPEN
	else if (i < argc && !strcmp(argv[i], "-3"))
		v3 = 1, i++;
	else if (i < argc && !strcmp(argv[i], "-3w"))
		v3 = 1, scribble = 1, i++;
#endif
	if (i < argc && strcmp(argv[i], "getppid")) {
		fprintf(stderr, "usage: %s [-r|-u|-3|-3w] [getppid [COUNT [DEPTH]]]\n",
			argv[0]);
		return 2;
	}
	if (i + 1 < argc)
		count = strtol(argv[i + 1], NULL, 0);
	if (i + 2 < argc)
		depth = strtol(argv[i + 2], NULL, 0);
#ifdef SF_DLOPEN
	if (load_lib())
		return 1;
#endif
	if (reg >= 0) {
		c = sfreg_all(reg);
		fprintf(stderr, "%s: %d %s, %d already %s, %d failed%s%s\n",
			argv[0], c.done, reg ? "registered" : "unregistered",
			c.known, reg ? "there" : "gone", c.failed,
			c.failed ? ": " : "", c.failed ? strerror(c.err) : "");
	}
#ifndef SF_DLOPEN
	if (v3 && register_v3()) {
		fprintf(stderr, "%s: version 3 section refused: %s\n", argv[0],
			strerror(errno));
		c.failed = 1;
	} else if (scribble) {
		sf_outer(1, depth);
		if (scribble_v3()) {
			perror("mprotect");
			c.failed = 1;
		}
		sfreg_all(0);
		sfreg_all(1);
	}
#endif
	if (getenv("SFWORK_MAPS"))
		save_maps(getenv("SFWORK_MAPS"));
	/* a refused section is a test case too: run the chain anyway */
	make_it_fail("1");
	INSN_MARK_START(INSN_MARKER_SFRAME);
	sf_outer(count, depth);
	INSN_MARK_END(INSN_MARKER_SFRAME);
	make_it_fail("0");
	for (i = getenv("SFWORK_AGAIN") ? atoi(getenv("SFWORK_AGAIN")) : 0;
	     reg == 1 && i > 0; i--) {
		struct sfreg_count again;

		if (getenv("SFWORK_FORGET"))
			sfreg_all(0);
		again = sfreg_all(1);

		fprintf(stderr, "%s: again: %d registered, %d already there, %d failed\n",
			argv[0], again.done, again.known, again.failed);
		sf_outer(count, depth);
	}
	sink++;
	return (reg >= 0 || v3) && c.failed ? 3 : 0;
}
