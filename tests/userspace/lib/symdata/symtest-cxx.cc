// SPDX-License-Identifier: GPL-2.0
// A C++ function for the demangling test of test-syms: its mangled
// name is _ZN2ns8cxx_funcEi, shown as ns::cxx_func(int).  It has a
// helper inlined into it, for the inlined-frame test.
namespace ns {
static inline __attribute__((always_inline)) int helper(int x)
{
	return x * x * 3 + 1;
}

int __attribute__((noinline)) cxx_func(int x)
{
	int y = helper(x + 7);

	return y ^ helper(y);
}
}

int main(int argc, char **argv)
{
	(void)argv;
	return ns::cxx_func(argc);
}
