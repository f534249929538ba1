/* SPDX-License-Identifier: GPL-2.0 */
/* sfchain: shared by sfchain.c and the chain sfchain-gen.py writes */
#ifndef SFCHAIN_H
#define SFCHAIN_H

#include <sys/syscall.h>

#define NOINLINE __attribute__((noinline, noclone))

typedef void (*sfc_fn_t)(long depth, long next);

extern sfc_fn_t const sfc_tab[];
extern const long sfc_nr;
extern volatile long sfc_sink;

/* sfchain-more.c: the modes other than bench (-DSFC_MORE) */
int sfc_more(int argc, char **argv);

/* getppid() from the calling function itself: no libc leaf on top */
static inline __attribute__((always_inline)) long sfc_getppid(void)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	return ret;
}

#endif
