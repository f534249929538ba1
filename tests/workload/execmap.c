// SPDX-License-Identifier: GPL-2.0
/*
 * The mappings mmap:exec_mapping must report, by the kernel's own account
 * (t-95-exec-mapping): dlopen()s libdlwork-a.so from its own directory,
 * prints the lines of /proc/self/maps that hold an executable mapping of
 * a file, dlclose()s it, does the same with libdlwork-b.so (which the
 * loader usually maps where a was), then maps a data file and an
 * anonymous page executable (PROT_EXEC anonymous: no event) and
 * mprotect()s a data mapping of b to executable (an event).
 *
 *   execmap
 *   execmap bench N
 *
 * Prints "pid PID", then "maps a", the lines, "maps b", the lines,
 * "mprotect START-END" (the range made executable), "end".  With
 * "bench N" (bench/exec-mapping.sh) it only mmap()s a page of its own
 * file PROT_READ|PROT_EXEC and munmap()s it, N times between the
 * instruction-count markers of ID 72, then the same page PROT_READ
 * between those of ID 73 (no event either way: the floor).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "insn-marker.h"

#define INSN_MARKER_EXEC_MAP	72
#define INSN_MARKER_DATA_MAP	73

static void exec_maps(const char *tag)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f) {
		perror("/proc/self/maps");
		exit(2);
	}
	printf("maps %s\n", tag);
	/* START-END PERMS OFFSET DEV INODE PATH: executable, of a file */
	while (fgets(line, sizeof(line), f)) {
		char *perms = strchr(line, ' ');

		if (perms && perms[3] == 'x' && strchr(line, '/'))
			fputs(line, stdout);
	}
	fclose(f);
}

static void *load(const char *self, const char *lib)
{
	char path[PATH_MAX];
	const char *slash = strrchr(self, '/');
	void *h;

	snprintf(path, sizeof(path), "%.*s%s",
		 slash ? (int)(slash - self + 1) : 0, self, lib);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(2);
	}
	return h;
}

/* N mmap()+munmap() pairs of a page of @fd, executable then not */
static int bench(int fd, long page, int n)
{
	char *p;
	int i;

	/* one round first: page tables, slab caches */
	for (i = 0; i < 2; i++) {
		p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED || munmap(p, page))
			return perror("mmap"), 2;
	}
	INSN_MARK_START(INSN_MARKER_EXEC_MAP);
	for (i = 0; i < n; i++) {
		p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		munmap(p, page);
	}
	INSN_MARK_END(INSN_MARKER_EXEC_MAP);
	INSN_MARK_START(INSN_MARKER_DATA_MAP);
	for (i = 0; i < n; i++) {
		p = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);
		munmap(p, page);
	}
	INSN_MARK_END(INSN_MARKER_DATA_MAP);
	return 0;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p, self[PATH_MAX];
	ssize_t n;
	void *h;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "bench")) {
		fd = open("/proc/self/exe", O_RDONLY);
		return fd < 0 ? 2 : bench(fd, page, atoi(argv[2]));
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 2;
	self[n] = '\0';
	printf("pid %d\n", getpid());
	h = load(self, "libdlwork-a.so");
	exec_maps("a");
	dlclose(h);
	h = load(self, "libdlwork-b.so");
	exec_maps("b");

	/* a data file mapped readable only, and anonymous executable memory */
	fd = open(argv[0], O_RDONLY);
	if (fd < 0 || mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED ||
	    mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0) == MAP_FAILED)
		return 2;
	/* a page of the file mapped readable, then made executable */
	p = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED || mprotect(p, page, PROT_READ | PROT_EXEC))
		return 2;
	printf("mprotect %lx-%lx\n", (unsigned long)p, (unsigned long)p + page);
	close(fd);
	dlclose(h);
	printf("end\n");
	return 0;
}
