// SPDX-License-Identifier: GPL-2.0
/*
 * One cold generation, in process: the CPU time of the first
 * sfgen_from_fd() of a fresh process (open, libelf, libdw's CFI, the
 * section), and a second one on the same file for comparison.
 *
 *   sframe-gen-time FILE  ->  "cold_ms warm_ms sframe_bytes eh_frame_bytes"
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "sframe-gen.h"

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int gen(const char *path, double *ms, size_t *len, struct sfgen_stats *st)
{
	double t0 = cpu_ms();
	void *sec;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || sfgen_from_fd(fd, 0, &sec, len, st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	free(sec);
	*ms = cpu_ms() - t0;
	return 0;
}

int main(int argc, char **argv)
{
	struct sfgen_stats st;
	double cold, warm;
	size_t len;

	if (argc != 2)
		return 2;
	if (gen(argv[1], &cold, &len, &st) || gen(argv[1], &warm, &len, &st))
		return 1;
	printf("%.3f %.3f %zu %llu\n", cold, warm, len, (unsigned long long)st.eh_frame_bytes);
	return 0;
}
