// SPDX-License-Identifier: GPL-2.0
/*
 * A JIT in miniature, for the perf-PID.map tests: copies a function made
 * of machine code (x86-64: a frame, a call through its first argument,
 * return) into anonymous executable memory, writes its perf-PID.map
 * line as JITs do for perf (/tmp/perf-PID.map, or the path given), and
 * calls getppid() through it COUNT times, so that a deferred user stack
 * taken in getppid() has a frame in JIT code, named only by that map.
 * Prints "jit PID START SIZE NAME" (START in hex) first.
 * With DUMPFILE it also writes a jitdump (perf's jitdump-specification)
 * for the same code: a load of "jit_first" there, a load of "jit_moved"
 * elsewhere and its move there (newer: it names the code), records a
 * reader skips, and a last record cut short as a JIT still writing.
 *   usage: jitmap [COUNT [MAPFILE [DUMPFILE]]]
 */
#include <stdint.h>
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

static void rec(FILE *fp, uint32_t id, uint32_t size)
{
	uint32_t h[2] = { id, size };
	uint64_t ts = 0;

	fwrite(h, sizeof(h), 1, fp);
	fwrite(&ts, sizeof(ts), 1, fp);
}

static void load(FILE *fp, uint64_t addr, uint64_t index, const char *name)
{
	uint32_t ids[2] = { getpid(), getpid() };
	uint64_t v[4] = { addr, addr, sizeof(code), index };

	rec(fp, 0, 16 + sizeof(ids) + sizeof(v) + strlen(name) + 1 + sizeof(code));
	fwrite(ids, sizeof(ids), 1, fp);
	fwrite(v, sizeof(v), 1, fp);
	fwrite(name, strlen(name) + 1, 1, fp);
	fwrite(code, sizeof(code), 1, fp);
}

static int jitdump(const char *path, uint64_t addr)
{
	uint32_t h[6] = { 0x4A695444, 1, 40, 62, 0, getpid() };
	uint32_t ids[2] = { getpid(), getpid() };
	uint64_t hv[2] = { 0, 0 };
	uint64_t mv[5] = { addr + 0x800, addr + 0x800, addr, sizeof(code), 2 };
	FILE *fp = fopen(path, "wb");

	if (!fp)
		return -1;
	fwrite(h, sizeof(h), 1, fp);
	fwrite(hv, sizeof(hv), 1, fp);
	load(fp, addr, 1, "jit_first");
	load(fp, addr + 0x800, 2, "jit_moved");
	rec(fp, 2, 16 + 16);		/* debug info, no entries */
	fwrite(hv, sizeof(hv), 1, fp);
	rec(fp, 1, 16 + sizeof(ids) + sizeof(mv));
	fwrite(ids, sizeof(ids), 1, fp);
	fwrite(mv, sizeof(mv), 1, fp);
	rec(fp, 4, 16 + 8);		/* unwinding info, empty */
	fwrite(hv, 8, 1, fp);
	rec(fp, 0, 200);		/* cut short */
	fwrite(ids, sizeof(ids), 1, fp);
	return fclose(fp);
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
	if (argc > 3 && jitdump(argv[3], (uintptr_t)(mem + 0x40))) {
		perror(argv[3]);
		return 1;
	}
	printf("jit %d %lx %zx %s\n", getpid(), (unsigned long)(mem + 0x40),
	       sizeof(code), JIT_NAME);
	fflush(stdout);
	jit = (void (*)(void (*)(void)))(mem + 0x40);
	for (i = 0; i < count; i++)
		jit(leaf);
	return 0;
}
