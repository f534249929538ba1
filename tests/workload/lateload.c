// SPDX-License-Identifier: GPL-2.0
/*
 * A program mapped after the SFrame feeder started (t-96-sframe-feed-event):
 * built without frame pointers and without .sframe, so its stack is whole
 * only once the feeder has attached a section to its file.
 *
 *   lateload N FIFO [LIB DELAY_MS]
 *
 * Reads one byte from fd 7 (the caller opens /dev/zero there) N times,
 * 1 ms apart, through chain_1() -> chain_2() -> chain_3() -> read(), or
 * through LIB's lib_chain_1() (dlopen()ed DELAY_MS after the start: a
 * process the feeder has seen by then); then puts FIFO on fd 7
 * and reads once more from the same call site, where it blocks until a
 * line comes: every read has the same user stack, and eu-stack of the
 * blocked one is its oracle.  Built -static -DLATELOAD_STATIC (no LIB):
 * no dynamic loader, so its first read comes right after its exec.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int chain_3(int i)
{
	char c;

	return (int)read(7, &c, 1) + i;
}

NOINLINE int chain_2(int i)
{
	return chain_3(i) + 1;
}

NOINLINE int chain_1(int i)
{
	return chain_2(i) + 1;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	/* volatile: one indirect call, never a copy of it per branch */
	int (*volatile entry)(int) = chain_1;
	int n, i, fd, sum = 0;
#ifndef LATELOAD_STATIC
	void *h;
#endif

	if (argc < 3) {
		fprintf(stderr, "usage: lateload N FIFO [LIB DELAY_MS]\n");
		return 2;
	}
	n = atoi(argv[1]);
#ifndef LATELOAD_STATIC
	if (argc > 4) {
		ms.tv_sec = atoi(argv[4]) / 1000;
		ms.tv_nsec = atoi(argv[4]) % 1000 * 1000000L;
		nanosleep(&ms, NULL);
		ms.tv_sec = 0;
		ms.tv_nsec = 1000000;
		h = dlopen(argv[3], RTLD_NOW);
		entry = h ? (int (*)(int))dlsym(h, "lib_chain_1") : NULL;
		if (!entry) {
			fprintf(stderr, "lateload: %s\n", dlerror());
			return 1;
		}
	}
#endif
	for (i = 0; i <= n; i++) {
		if (i == n) {
			fd = open(argv[2], O_RDWR);
			if (fd < 0 || dup2(fd, 7) < 0) {
				perror("lateload");
				return 1;
			}
		}
		sum += entry(i);	/* one call site for every read */
		if (i < n)
			nanosleep(&ms, NULL);
	}
	return sum == 0;
}
