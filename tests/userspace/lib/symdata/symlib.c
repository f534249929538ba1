// SPDX-License-Identifier: GPL-2.0
/* A shared library for the symbol tests. */
__attribute__((noinline)) int lib_func(int x)
{
	return x * 7 + 1;
}

void *lib_func_addr(void)
{
	return (void *)lib_func;
}
