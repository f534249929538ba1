// SPDX-License-Identifier: GPL-2.0
/*
 * A program for the symbol tests: prints its pid and the run-time
 * addresses of a function of its own and of one in a shared library,
 * then waits for its standard input to close.
 */
#include <stdio.h>
#include <unistd.h>

int lib_func(int x);
void *lib_func_addr(void);

__attribute__((noinline)) int prog_func(int x)
{
	return x * 3 + lib_func(x);
}

int main(void)
{
	printf("%d %p %p\n", getpid(), (void *)prog_func, lib_func_addr());
	fflush(stdout);
	while (getchar() != EOF)
		;
	return prog_func(1) == 0;
}
