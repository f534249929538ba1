// SPDX-License-Identifier: GPL-2.0
/*
 * sfgen-selfreg: a program that gives the kernel generated SFrame sections
 * for every object it has loaded (itself, libc, ld.so, libdw, ...), then
 * blocks in read(0) deep inside libc: qsort() calls our comparator, which
 * calls fread(), which reads through libc's stdio.  None of those frames
 * keeps a frame pointer.  For the kernel tests of the generator in the
 * guest (Documentation/sframe.md): its deferred user stack, with and
 * without -r, against eu-stack's.
 *
 *   sfgen-selfreg [-r] [-d] [-n]
 *	-r: register the sections (else only read)
 *	-d: sort through drap_sort() (drap.c), a DRAP frame whose
 *	    CFA only a flexible FDE (SFrame version 3) describes
 *	-n: generate without flexible FDEs (SFGEN_F_NO_FLEX)
 *
 * Prints one line per object to stderr: its name, the prctl's result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "sframe-gen.h"

#ifndef PR_ADD_SFRAME
#define PR_ADD_SFRAME	82
#endif

static int registered, failed;
static unsigned int gen_flags;

void drap_sort(int *v, size_t n, int (*cmp)(const void *, const void *));

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
	struct sfgen_stats st;
	const char *why;
	void *sec, *map;
	size_t len;
	int fd, ret;

	(void)size;
	(void)data;
	if (strstr(path, "linux-vdso"))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || sfgen_from_fd(fd, gen_flags, &sec, &len, &st)) {
		fprintf(stderr, "%s: no section: %s\n", path, fd < 0 ? strerror(errno) : st.error);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);
	/* anywhere mmap likes, terabytes from a PIE executable */
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		free(sec);
		return 0;
	}
	memcpy(map, sec, len);
	free(sec);
	if (sfgen_relocate(map, len, (int64_t)(info->dlpi_addr - (uintptr_t)map)) ||
	    sfgen_check(map, len, (uintptr_t)map, info->dlpi_addr + st.text_start,
			info->dlpi_addr + st.text_end, &why)) {
		fprintf(stderr, "%s: relocation or check failed\n", path);
		failed++;
		return 0;
	}
	mprotect(map, len, PROT_READ);
	ret = prctl(PR_ADD_SFRAME, (unsigned long)map, (unsigned long)map + len,
		    (unsigned long)(info->dlpi_addr + st.text_start),
		    (unsigned long)(info->dlpi_addr + st.text_end));
	fprintf(stderr, "%s: %zu bytes at %p for text %#lx-%#lx: prctl %s\n", path, len, map,
		(unsigned long)(info->dlpi_addr + st.text_start),
		(unsigned long)(info->dlpi_addr + st.text_end), ret ? strerror(errno) : "ok");
	if (ret)
		failed++;
	else
		registered++;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	char buf[16];

	/* blocks in read(0) under fread, under qsort */
	if (fread(buf, 1, sizeof(buf), stdin) == 0 && ferror(stdin))
		exit(3);
	return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
	int v[4] = { 4, 3, 2, 1 };
	int reg = 0, drap = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r"))
			reg = 1;
		else if (!strcmp(argv[i], "-d"))
			drap = 1;
		else if (!strcmp(argv[i], "-n"))
			gen_flags |= SFGEN_F_NO_FLEX;
		else
			return 2;
	}
	if (reg) {
		dl_iterate_phdr(add_object, NULL);
		fprintf(stderr, "registered %d, failed %d\n", registered, failed);
		if (failed || !registered)
			return 2;
	}
	if (drap)
		drap_sort(v, 4, cmp);
	else
		qsort(v, 4, sizeof(v[0]), cmp);
	return 0;
}
