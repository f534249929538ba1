// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen()/dlclose() during a recording: a library's frames must be named
 * in the library that was mapped at their event's time.
 *
 *   dlwork COUNT [keep]
 *
 * dlopen()s libdlwork-a.so from its own directory, calls dla_work(COUNT)
 * (COUNT getppid() under dla_inner <- dla_middle <- dla_work <- main),
 * dlclose()s it, then does the same with libdlwork-b.so (dlb_*), which the
 * loader usually maps where a was, from the same call site.  With "keep", b stays loaded until
 * exit: maps read at the end then show b where a's frames were.  Prints
 * "pid PID", then "a 0xBASE" and "b 0xBASE" (the load bias of each,
 * dlinfo()) on stdout.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *load(const char *self, const char *lib, const char *fn,
		  int count)
{
	char path[PATH_MAX];
	struct link_map *lm;
	int (*work)(int);
	const char *slash = strrchr(self, '/');
	void *h;

	snprintf(path, sizeof(path), "%.*s%s", slash ? (int)(slash - self + 1) : 0,
		 self, lib);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(2);
	}
	work = (int (*)(int))dlsym(h, fn);
	if (!work || dlinfo(h, RTLD_DI_LINKMAP, &lm)) {
		fprintf(stderr, "%s: %s\n", fn, dlerror());
		exit(2);
	}
	printf("%c 0x%lx\n", lib[10], (unsigned long)lm->l_addr);
	fflush(stdout);
	work(count);
	return h;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 1;
	int keep = argc > 2 && !strcmp(argv[2], "keep");
	static const char *const libs[] = { "libdlwork-a.so", "libdlwork-b.so" };
	static const char *const fns[] = { "dla_work", "dlb_work" };
	volatile int i;		/* one call of load() in main, not unrolled */
	void *h;

	printf("pid %d\n", (int)getpid());
	/*
	 * One call site for both, as a plugin loader has: b's stacks have
	 * the same addresses as a's (a reader keeping the text of a stack
	 * by its addresses must still tell them apart)
	 */
	for (i = 0; i < 2; i++) {
		h = load(argv[0], libs[i], fns[i], count);
		if (i == 0 || !keep)
			dlclose(h);
	}
	return 0;
}
