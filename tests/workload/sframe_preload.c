// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD=libsframe-preload.so PROGRAM: registers the .sframe section
 * of every object loaded at start, and again after each dlopen(), with
 * the kernel's user space unwinder (prctl(PR_ADD_SFRAME); sframe_reg.h).
 * Sections already registered (the executable and the dynamic linker,
 * registered at exec, or an object seen before) are skipped by the kernel
 * with EEXIST.  Unregistering at dlclose() is not done: the kernel drops a
 * section it can no longer read.
 */
#include <dlfcn.h>

#include "sframe_reg.h"

__attribute__((constructor)) static void sframe_preload_init(void)
{
	sfreg_all(1);
}

void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	void *h;

	if (!real)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	h = real(file, mode);
	if (h)
		sfreg_all(1);
	return h;
}
