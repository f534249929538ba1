// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known user call chain for deferred user stack tests:
 *
 *   main -> work_outer -> work_middle -> work_inner -> raw syscall
 *
 * The syscall is issued with inline assembly from work_inner, which has a
 * frame of its own.  Going through a libc wrapper would put a frameless
 * leaf on top, and a frame-pointer walk skips the caller of such a leaf.
 * Built with -fno-omit-frame-pointer, both as a 64-bit and a -m32 binary.
 *
 * Usage: callchain [MODE [COUNT]]
 *   getppid N   N getppid() calls, one kernel entry each (default)
 *   pause N     the same, then pause() until a signal ends it (a process
 *               that asked and still lives when a recording ends)
 *   wait N      pause() until SIGUSR1 (handled), then N getppid() calls:
 *               a process started before a recording that makes its calls
 *               during it, when told, then exits
 *   wait-exec PATH
 *               the same with one getppid(), then execve(PATH, [PATH,
 *               "getppid", "1"]) from work_inner
 *   sleep MS    one nanosleep of MS milliseconds (a task blocked in a
 *               syscall, for tests that act while requests are pending)
 *   exit        exit_group() from inside work_inner
 *   exec PATH   execve(PATH, [PATH, "getppid", "1"]) from work_inner
 *   exec-unmapped PATH
 *               the same execve, as the task "xunmapped", from
 *               main -> work_padded -> work_outer -> ..., with the stack
 *               pages above work_inner's frame dropped first
 *               (MADV_DONTNEED): the frames of work_padded and main read
 *               as zeros, and the first user stack walk of the execve
 *               (the flush in begin_new_exec()) takes a page fault in the
 *               kernel on work_padded's frame, where the walk stops.  The
 *               process never returns to those frames: execve replaces the
 *               image, or it exits with 127 when execve fails
 *   spin MS     spin in user space for MS milliseconds (timer interrupts
 *               land in a user task), then one getppid
 *   deep N      recurse N levels below work_inner (work_deep), then getppid
 *   kill        send SIGUSR1 to itself with kill(): the signal is handled
 *               on the way out of that same syscall
 *   forks MS    for MS milliseconds, one child at a time, fork from
 *               work_inner a child that makes two getppid() calls, sleeps
 *               10 ms and makes two more, then exits; the parent makes
 *               one getppid() a child: tasks running, and tasks forked,
 *               while a trace instance first asks (t-01-first-ask)
 *   vdso N      N clock_gettime(CLOCK_PROCESS_CPUTIME_ID) through libc:
 *               the vDSO has no fast path for that clock and makes the
 *               system call itself, so the user stack starts in [vdso]
 *   vdso-dump FILE
 *               write this process's vDSO image to FILE (the kernel's;
 *               every 64-bit process has the same), for nm(1)
 *   bench N [DEPTH]
 *               N getppid calls, DEPTH frames below work_inner (default
 *               0: a user stack of 6 frames, main's callers included);
 *               prints the mean ns per call.  The loop
 *               runs between the instruction-count markers of
 *               insn-marker.h (ID 63), NOPs unless QEMU counts with
 *               bench/tcg-plugin/insn-count.c
 *   bench-main N
 *               the same N getppid calls with bench_deep called from
 *               main directly, for bench/sframe.sh; prints nothing.  The
 *               loop runs in bench_deep(0) under bench_deep(1): -O1
 *               sets up no frame in bench_deep(0), so a frame-pointer
 *               walk from it goes on at its caller's caller, and the
 *               user stack is 3 frames (bench_deep, main,
 *               __libc_start_call_main), as "bench N 1" gives 6
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "insn-marker.h"

#define NOINLINE __attribute__((noinline, noclone))

static inline __attribute__((always_inline)) long
raw_syscall3(long nr, long a, long b, long c)
{
	long ret;

#if defined(__x86_64__)
	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"(nr), "D"(a), "S"(b), "d"(c)
		     : "rcx", "r11", "memory");
#elif defined(__i386__)
	asm volatile("int $0x80"
		     : "=a"(ret)
		     : "0"(nr), "b"(a), "c"(b), "d"(c)
		     : "memory");
#else
#error "x86 only"
#endif
	return ret;
}

/* Keep the compiler from turning the calls below into tail calls. */
static volatile int sink;

static const char *mode = "getppid";
static volatile sig_atomic_t got_signal;
static long count = 1;
static long bench_depth;
static char **exec_argv;

/* exec-unmapped: what execve reads lives outside the stack, written once */
static char xu_path[4096], xu_arg1[] = "getppid", xu_arg2[] = "1";
static char xu_comm[16] = "xunmapped";
static char *xu_argv[4];
static void *padded_frame;

static void on_signal(int sig)
{
	got_signal = sig;
}

NOINLINE void work_deep(long depth)
{
	if (depth > 0)
		work_deep(depth - 1);
	else
		sink += raw_syscall3(SYS_getppid, 0, 0, 0);
	sink++;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The benchmark loop, DEPTH frames below work_inner */
NOINLINE void bench_deep(long depth)
{
	long i;

	if (depth > 0) {
		bench_deep(depth - 1);
		sink++;
		return;
	}
	INSN_MARK_START(INSN_MARKER_BENCH);
	for (i = 0; i < count; i++)
		sink += raw_syscall3(SYS_getppid, 0, 0, 0);
	INSN_MARK_END(INSN_MARKER_BENCH);
}

NOINLINE void work_inner(void)
{
	long long start;
	struct timespec ts;
	long i;

	if (!strcmp(mode, "getppid") || !strcmp(mode, "spin") ||
	    !strcmp(mode, "pause")) {
		for (i = 0; i < count; i++)
			sink += raw_syscall3(SYS_getppid, 0, 0, 0);
		/* pause: then wait, alive, until a signal ends it */
		if (!strcmp(mode, "pause"))
			raw_syscall3(SYS_pause, 0, 0, 0);
	} else if (!strcmp(mode, "wait") || !strcmp(mode, "wait-exec")) {
		unsigned long none = 0;

		/* SIGUSR1 is blocked (main): unblocked and waited for at once */
		while (got_signal != SIGUSR1)
			raw_syscall3(SYS_rt_sigsuspend, (long)&none, sizeof(none), 0);
		for (i = 0; i < count; i++)
			sink += raw_syscall3(SYS_getppid, 0, 0, 0);
		if (exec_argv)
			sink += raw_syscall3(SYS_execve, (long)exec_argv[0],
					    (long)exec_argv, 0);
	} else if (!strcmp(mode, "sleep")) {
		ts.tv_sec = count / 1000;
		ts.tv_nsec = (count % 1000) * 1000000L;
		sink += raw_syscall3(SYS_nanosleep, (long)&ts, 0, 0);
	} else if (!strcmp(mode, "deep")) {
		work_deep(count);
	} else if (!strcmp(mode, "kill")) {
		signal(SIGUSR1, on_signal);
		sink += raw_syscall3(SYS_kill, raw_syscall3(SYS_getpid, 0, 0, 0),
				     SIGUSR1, 0);
		if (got_signal != SIGUSR1)
			fprintf(stderr, "no signal\n");
	} else if (!strcmp(mode, "forks")) {
		struct timespec nap = { .tv_nsec = 10000000 };
		long long end = now_ns() + count * 1000000LL;
		pid_t pid;

		while (now_ns() < end) {
			pid = fork();
			if (pid < 0)
				exit(1);
			if (!pid) {
				sink += raw_syscall3(SYS_getppid, 0, 0, 0);
				sink += raw_syscall3(SYS_getppid, 0, 0, 0);
				nanosleep(&nap, NULL);
				sink += raw_syscall3(SYS_getppid, 0, 0, 0);
				sink += raw_syscall3(SYS_getppid, 0, 0, 0);
				_exit(0);
			}
			sink += raw_syscall3(SYS_getppid, 0, 0, 0);
			waitpid(pid, NULL, 0);
		}
	} else if (!strcmp(mode, "vdso")) {
		for (i = 0; i < count; i++) {
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
			sink += ts.tv_nsec;
		}
	} else if (!strcmp(mode, "bench")) {
		start = now_ns();
		bench_deep(bench_depth);
		printf("%lld\n", (now_ns() - start) / (count ? count : 1));
	} else if (!strcmp(mode, "exit")) {
		raw_syscall3(SYS_exit_group, 0, 0, 0);
	} else if (!strcmp(mode, "exec")) {
		sink += raw_syscall3(SYS_execve, (long)exec_argv[0],
				    (long)exec_argv, 0);
	} else if (!strcmp(mode, "exec-unmapped")) {
		unsigned long lo, hi;

		/* from the page above this frame to work_padded's frame */
		lo = ((unsigned long)__builtin_frame_address(0) | 4095) + 1;
		hi = ((unsigned long)padded_frame | 4095) + 1;
		raw_syscall3(SYS_prctl, PR_SET_NAME, (long)xu_comm, 0);
		if (raw_syscall3(SYS_madvise, lo, hi - lo, MADV_DONTNEED))
			raw_syscall3(SYS_exit_group, 126, 0, 0);
		raw_syscall3(SYS_execve, (long)xu_path, (long)xu_argv, 0);
		/* the frames above are gone: never return to them */
		raw_syscall3(SYS_exit_group, 127, 0, 0);
	} else {
		fprintf(stderr, "callchain: unknown mode %s\n", mode);
		exit(2);
	}
	sink++;
}

NOINLINE void work_middle(void)
{
	work_inner();
	sink++;
}

NOINLINE void work_outer(void)
{
	work_middle();
	sink++;
}

/* Puts 12 KiB between work_outer's frame and its own */
NOINLINE void work_padded(void)
{
	volatile char pad[3 * 4096];

	pad[0] = 0;
	padded_frame = __builtin_frame_address(0);
	work_outer();
	sink += pad[0];
}

static NOINLINE void spin(long ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 +
		 (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

/* The vDSO as /proc/self/maps places it, written to path */
static int vdso_dump(const char *path)
{
	unsigned long start, end;
	char line[256], name[64];
	FILE *in, *out;
	int ret = 1;

	in = fopen("/proc/self/maps", "r");
	if (!in)
		return 1;
	while (fgets(line, sizeof(line), in)) {
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %*x %*s %*d %63s", &start, &end,
			   name) != 3 || strcmp(name, "[vdso]"))
			continue;
		out = fopen(path, "w");
		if (out && fwrite((void *)start, 1, end - start, out) ==
		    end - start)
			ret = 0;
		if (out && fclose(out))
			ret = 1;
		break;
	}
	fclose(in);
	return ret;
}

int main(int argc, char **argv)
{
	static char *args[4];

	if (argc > 1)
		mode = argv[1];
	if (argc > 2)
		count = strtol(argv[2], NULL, 0);
	if (argc > 3 && !strcmp(mode, "bench"))
		bench_depth = strtol(argv[3], NULL, 0);
	if (!strcmp(mode, "vdso-dump"))
		return argc < 3 ? 2 : vdso_dump(argv[2]);
	if (!strcmp(mode, "exec") || !strcmp(mode, "wait-exec")) {
		if (argc < 3) {
			fprintf(stderr, "usage: %s %s PATH\n", argv[0], mode);
			return 2;
		}
		count = 1;
		args[0] = argv[2];
		args[1] = "getppid";
		args[2] = "1";
		exec_argv = args;
	}
	if (!strcmp(mode, "exec-unmapped")) {
		if (argc < 3 || strlen(argv[2]) >= sizeof(xu_path)) {
			fprintf(stderr, "usage: %s exec-unmapped PATH\n", argv[0]);
			return 2;
		}
		strcpy(xu_path, argv[2]);
		xu_argv[0] = xu_path;
		xu_argv[1] = xu_arg1;
		xu_argv[2] = xu_arg2;
		/* make the pages execve reads present: no fault before the flush */
		xu_arg1[0] = 'g';
		xu_arg2[0] = '1';
		xu_comm[0] = 'x';
		work_padded();
		return 1;
	}
	if (!strcmp(mode, "bench-main")) {
		bench_deep(1);
		return 0;
	}
	if (!strcmp(mode, "wait") || !strcmp(mode, "wait-exec")) {
		sigset_t usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		signal(SIGUSR1, on_signal);
	}
	if (!strcmp(mode, "spin")) {
		spin(count);
		count = 1;
	}
	work_outer();
	sink++;
	return 0;
}
