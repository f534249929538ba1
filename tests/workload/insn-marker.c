// SPDX-License-Identifier: GPL-2.0
/*
 * Run the markers that bench/tcg-plugin/insn-count.c counts between.
 *
 * A marker is "nopl MAGIC|KIND<<8|ID(%rax)", a 7-byte NOP (insn-marker.h):
 * without the plugin (or on real hardware, or under KVM) it does
 * nothing.  KIND 1 starts a count on the CPU that executes it, KIND 2
 * ends it and the plugin writes the instructions that CPU ran in between.
 * The displacement is an immediate, so each ID has its own instruction:
 * the switch below has one per ID (0..63).  callchain's "bench" loop has
 * its own markers (ID 63); this program marks anything else.
 *
 * Usage:
 *   insn-marker start ID           execute the start marker of ID
 *   insn-marker end ID             execute the end marker of ID
 *   insn-marker run ID [-p FILE] CMD [ARG...]
 *       fork; the child writes its pid to FILE (if given; for
 *       set_event_pid), executes the start marker and execs CMD; the
 *       parent waits and executes the end marker.  Exits with CMD's
 *       status.  Pin it (taskset) so that both markers and CMD run on
 *       one CPU: counts are per CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "insn-marker.h"

#define MAX_ID		63

#define CASE(kind, id)	case id: INSN_MARK(kind, id); break;
#define CASE4(kind, id) \
	CASE(kind, id) CASE(kind, id + 1) CASE(kind, id + 2) CASE(kind, id + 3)
#define CASE16(kind, id) \
	CASE4(kind, id) CASE4(kind, id + 4) CASE4(kind, id + 8) CASE4(kind, id + 12)
#define CASE64(kind) \
	CASE16(kind, 0) CASE16(kind, 16) CASE16(kind, 32) CASE16(kind, 48)

static void __attribute__((noinline)) mark_start(int id)
{
	switch (id) {
	CASE64(INSN_MARKER_START)
	}
}

static void __attribute__((noinline)) mark_end(int id)
{
	switch (id) {
	CASE64(INSN_MARKER_END)
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: insn-marker start|end ID\n"
		"       insn-marker run ID [-p PIDFILE] CMD [ARG...]\n");
	exit(2);
}

static void write_pid(const char *path)
{
	char buf[32];
	int fd, len;

	fd = open(path, O_WRONLY | O_TRUNC);
	len = snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (fd < 0 || write(fd, buf, len) != len) {
		perror(path);
		_exit(126);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL;
	char *end;
	long id;
	int status, i = 3;
	pid_t pid;

	if (argc < 3)
		usage();
	id = strtol(argv[2], &end, 0);
	if (*end || id < 0 || id > MAX_ID) {
		fprintf(stderr, "insn-marker: ID must be 0..%d\n", MAX_ID);
		return 2;
	}
	if (!strcmp(argv[1], "start")) {
		mark_start(id);
		return 0;
	}
	if (!strcmp(argv[1], "end")) {
		mark_end(id);
		return 0;
	}
	if (strcmp(argv[1], "run"))
		usage();
	if (i + 1 < argc && !strcmp(argv[i], "-p")) {
		pidfile = argv[i + 1];
		i += 2;
	}
	if (i >= argc)
		usage();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 126;
	}
	if (pid == 0) {
		if (pidfile)
			write_pid(pidfile);
		mark_start(id);
		execvp(argv[i], argv + i);
		perror(argv[i]);
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("waitpid");
			return 126;
		}
	mark_end(id);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
