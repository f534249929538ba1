// SPDX-License-Identifier: GPL-2.0
/*
 * A JIT in miniature, for the perf-PID.map tests: copies a function made
 * of machine code (x86-64: a frame, a call through its first argument,
 * return) into anonymous executable memory, writes its perf-PID.map
 * line as JITs do for perf (/tmp/perf-PID.map, or the path given), and
 * calls getppid() through it COUNT times, so that a deferred user stack
 * taken in getppid() has a frame in JIT code, named only by that map.
 * Prints "jit PID START SIZE NAME" (START in hex) first.
 *   usage: jitmap [COUNT [MAPFILE]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define JIT_NAME	"jit_trampoline[compiled]"

static const unsigned char code[] = {
	0x55,			/* push %rbp */
	0x48, 0x89, 0xe5,	/* mov %rsp,%rbp */
	0xff, 0xd7,		/* call *%rdi */
	0x5d,			/* pop %rbp */
	0xc3,			/* ret */
};

static __attribute__((noinline)) void leaf(void)
{
	syscall(SYS_getppid);
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 1, i;
	char path[64];
	const char *map = argc > 2 ? argv[2] : path;
	void (*jit)(void (*)(void));
	unsigned char *mem;
	FILE *fp;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* somewhere inside the page, as a JIT's code cache would place it */
	memcpy(mem + 0x40, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	fp = fopen(map, "a");
	if (!fp) {
		perror(map);
		return 1;
	}
	fprintf(fp, "%lx %zx %s\n", (unsigned long)(mem + 0x40), sizeof(code),
		JIT_NAME);
	fclose(fp);
	printf("jit %d %lx %zx %s\n", getpid(), (unsigned long)(mem + 0x40),
	       sizeof(code), JIT_NAME);
	fflush(stdout);
	jit = (void (*)(void (*)(void)))(mem + 0x40);
	for (i = 0; i < count; i++)
		jit(leaf);
	return 0;
}
