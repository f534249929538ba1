// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve addresses of a running process with its /proc/PID/maps.
 *
 *   cc -o symbols symbols.c $(pkg-config --cflags --libs libustack)
 *   ./symbols PID ADDR...
 */
#include <stdio.h>
#include <stdlib.h>
#include <ustack.h>

int main(int argc, char **argv)
{
	struct ustack_syms *syms;
	char buf[4096];
	int pid, i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s PID ADDR...\n", argv[0]);
		return 1;
	}
	pid = atoi(argv[1]);
	syms = ustack_syms_alloc();
	if (!syms || ustack_syms_load_pid(syms, pid) < 0) {
		perror("maps");
		return 1;
	}
	for (i = 2; i < argc; i++) {
		ustack_syms_format(syms, pid, strtoull(argv[i], NULL, 0), buf,
				   sizeof(buf));
		printf("%s\n", buf);
	}
	ustack_syms_free(syms);
	return 0;
}
