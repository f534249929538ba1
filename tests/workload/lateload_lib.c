// SPDX-License-Identifier: GPL-2.0
/* The library lateload dlopen()s (t-96-sframe-feed-event): no frame pointers */
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int lib_chain_3(int i)
{
	char c;

	return (int)read(7, &c, 1) + i;
}

NOINLINE int lib_chain_2(int i)
{
	return lib_chain_3(i) + 1;
}

NOINLINE int lib_chain_1(int i)
{
	return lib_chain_2(i) + 1;
}
