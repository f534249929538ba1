// SPDX-License-Identifier: GPL-2.0
/*
 * sfwork-unmap MODE LIB: does an .sframe section registered with
 * prctl(PR_ADD_SFRAME) go when the mapping it describes goes?
 *
 * LIB (libsfwork.so) is dlopen()ed and its section registered, then:
 *   reload  dlclose() and dlopen() again; the library comes back at the
 *           same address, and registering it again must work (a section
 *           left from the first load makes it fail with EEXIST)
 *   munmap  munmap() the library's code
 *   mremap  move the library's code elsewhere with mremap()
 *   fixed   map anonymous memory with MAP_FIXED over the section
 *   keep    munmap() an unrelated mapping: the section must stay
 *   noexec  (before registering) the code made non-executable with
 *           mprotect(): registering must fail with EINVAL
 *   gone    (before registering) the code unmapped: the same
 *   swap    getppid() through the library's functions 3 times, the
 *           section removed, the task renamed "sfswap-after", 3 times
 *           again: the later stacks must not be found by SFrame (a rule
 *           the kernel kept from the removed section would be)
 *   race    a thread calls getppid() through the library's functions
 *           while the section is removed and registered again, RACE_ROUNDS
 *           times (default 2000): the kernel's lookups of the section
 *           race its removal; every prctl() must succeed, and nothing
 *           else may happen (a debug kernel reports a use after free)
 *   fork    the task, renamed "ftd-race4", forks while a second thread
 *           removes the section 300 ms later; the child has the library
 *           mapped and must have its section (PR_REMOVE_SFRAME succeeds
 *           in the child).  The debug kernel's fork spins 3 s right after
 *           copying the mappings (rig_race_delay(), kernel-config/
 *           debug.patch), so the removal falls after the mappings were
 *           copied: a kernel that copies the sections only then, outside
 *           the mmap lock, gives the child none
 * For the first five, PR_REMOVE_SFRAME tells whether the kernel still has
 * the section (ENOENT: it was dropped with its mapping).
 *
 * Prints one line; exit 0 when the kernel did what it should, 1 when not,
 * 2 when the test could not be made (for reload: the library moved).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sframe_reg.h"	/* PT_GNU_SFRAME, PR_ADD_SFRAME, PR_REMOVE_SFRAME */

struct obj {
	const char *name;
	uintptr_t sf, sf_end, text, text_end;
};

static int find_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj *o = data;
	const char *base = strrchr(info->dlpi_name, '/');
	int i;

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (strcmp(base, o->name))
		return 0;
	o->text = UINTPTR_MAX;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_GNU_SFRAME) {
			o->sf = a;
			o->sf_end = a + p->p_memsz;
		} else if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			if (a < o->text)
				o->text = a;
			if (a + p->p_memsz > o->text_end)
				o->text_end = a + p->p_memsz;
		}
	}
	return 1;
}

static int find(struct obj *o, const char *name)
{
	memset(o, 0, sizeof(*o));
	o->name = name;
	dl_iterate_phdr(find_one, o);
	return o->sf && o->text_end ? 0 : -1;
}

static int add(const struct obj *o)
{
	return prctl(PR_ADD_SFRAME, o->sf, o->sf_end, o->text, o->text_end);
}

/* 1: the kernel no longer has the section; 0: it had it (now removed) */
static int gone(const struct obj *o)
{
	return prctl(PR_REMOVE_SFRAME, o->sf, 0, 0, 0) && errno == ENOENT;
}

static uintptr_t page_down(uintptr_t a)
{
	return a & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
}

static uintptr_t page_up(uintptr_t a)
{
	return page_down(a + sysconf(_SC_PAGESIZE) - 1);
}

/*
 * The verdict, and out at once: the library's code may be gone, so its
 * destructors must not run at exit
 */
static int result(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "wrong", what);
	fflush(stdout);
	_exit(ok ? 0 : 1);
}

static volatile int stop;

/* the library's getppid() chain, again and again, until told to stop */
static void *caller(void *outer)
{
	void (*fn)(long, long, long) = (void (*)(long, long, long))outer;

	while (!stop)
		fn(10, 3, SYS_getppid);
	return NULL;
}

static int race(void *h, const struct obj *o)
{
	const char *env = getenv("RACE_ROUNDS");
	long i, rounds = env ? atol(env) : 2000;
	void *outer = dlsym(h, "sf_lib_outer");
	pthread_t t;

	if (!outer || pthread_create(&t, NULL, caller, outer))
		return 2;
	for (i = 0; i < rounds; i++) {
		if (prctl(PR_REMOVE_SFRAME, o->sf, 0, 0, 0) || add(o)) {
			printf("wrong: round %ld: %s\n", i, strerror(errno));
			fflush(stdout);
			_exit(1);
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	return result(1, "removed and registered while a thread unwound through it");
}

static int remove_rc = -1;

static void *remover(void *arg)
{
	usleep(300000);
	remove_rc = prctl(PR_REMOVE_SFRAME, ((const struct obj *)arg)->sf, 0, 0, 0);
	return NULL;
}

static int forkgap(const struct obj *o)
{
	pthread_t t;
	pid_t pid;
	int st;

	if (prctl(PR_SET_NAME, "ftd-race4", 0, 0, 0) ||
	    pthread_create(&t, NULL, remover, (void *)o))
		return perror("forkgap"), 2;
	pid = fork();
	if (pid < 0)
		return perror("fork"), 2;
	if (!pid)
		_exit(gone(o) ? 1 : 0);
	pthread_join(t, NULL);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return perror("waitpid"), 2;
	if (remove_rc) {
		printf("inconclusive: the parent's removal failed: %s\n", strerror(errno));
		return 2;
	}
	return result(WEXITSTATUS(st) == 0, WEXITSTATUS(st) == 0 ?
		      "the child has the section of the library it has mapped" :
		      "the child lost the section of a library it has mapped");
}

static int swap(void *h, const struct obj *o)
{
	void (*outer)(long, long, long) =
		(void (*)(long, long, long))dlsym(h, "sf_lib_outer");

	if (!outer)
		return 2;
	outer(3, 2, SYS_getppid);
	if (prctl(PR_REMOVE_SFRAME, o->sf, 0, 0, 0) ||
	    prctl(PR_SET_NAME, "sfswap-after", 0, 0, 0))
		return perror("prctl"), 2;
	outer(3, 2, SYS_getppid);
	return result(1, "3 stacks with the section, 3 after its removal");
}

int main(int argc, char **argv)
{
	uintptr_t start, end;
	const char *mode, *name;
	struct obj o, o2;
	void *h, *p;

	if (argc != 3) {
		fprintf(stderr, "usage: %s reload|munmap|mremap|fixed|keep|noexec|gone|swap|race|fork LIB\n",
			argv[0]);
		return 2;
	}
	mode = argv[1];
	name = strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2];
	h = dlopen(argv[2], RTLD_NOW);
	if (!h || find(&o, name)) {
		fprintf(stderr, "%s: cannot load %s with an .sframe section\n", argv[0], argv[2]);
		return 2;
	}
	start = page_down(o.text);
	end = page_up(o.text_end);
	if (!strcmp(mode, "noexec") || !strcmp(mode, "gone")) {
		if (mode[0] == 'n' ? mprotect((void *)start, end - start, PROT_READ) :
				     munmap((void *)start, end - start))
			return perror(mode), 2;
		if (!add(&o))
			return result(0, "a section for code not mapped executable registered");
		return result(errno == EINVAL, errno == EINVAL ?
			      "refused with EINVAL" : strerror(errno));
	}
	if (add(&o)) {
		perror("PR_ADD_SFRAME");
		return 2;
	}

	if (!strcmp(mode, "race"))
		return race(h, &o);
	if (!strcmp(mode, "swap"))
		return swap(h, &o);
	if (!strcmp(mode, "fork"))
		return forkgap(&o);
	if (!strcmp(mode, "reload")) {
		dlclose(h);
		h = dlopen(argv[2], RTLD_NOW);
		if (!h || find(&o2, name) || o2.text != o.text) {
			printf("inconclusive: the library came back elsewhere\n");
			return 2;
		}
		if (add(&o2)) {
			printf("wrong: registering the reloaded library: %s\n", strerror(errno));
			return 1;
		}
		return result(1, "the reloaded library registered again");
	}
	if (!strcmp(mode, "munmap")) {
		if (munmap((void *)start, end - start))
			return perror("munmap"), 2;
		return result(gone(&o), "section dropped with its code (munmap)");
	}
	if (!strcmp(mode, "mremap")) {
		p = mmap(NULL, end - start, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED ||
		    mremap((void *)start, end - start, end - start,
			   MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED)
			return perror("mremap"), 2;
		return result(gone(&o), "section dropped with its code (mremap)");
	}
	if (!strcmp(mode, "fixed")) {
		p = mmap((void *)page_down(o.sf), page_up(o.sf_end) - page_down(o.sf),
			 PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			return perror("mmap"), 2;
		return result(gone(&o), "section dropped under MAP_FIXED");
	}
	if (!strcmp(mode, "keep")) {
		p = mmap(NULL, 4 * sysconf(_SC_PAGESIZE), PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || munmap(p, 4 * sysconf(_SC_PAGESIZE)))
			return perror("mmap"), 2;
		return result(!gone(&o), "section kept across an unrelated munmap");
	}
	fprintf(stderr, "%s: unknown mode %s\n", argv[0], mode);
	return 2;
}
