// SPDX-License-Identifier: GPL-2.0
// A C++ function for the demangling test of test-syms: its mangled
// name is _ZN2ns8cxx_funcEi, shown as ns::cxx_func(int).
namespace ns {
int __attribute__((noinline)) cxx_func(int x)
{
	return x * 3 + 1;
}
}

int main(int argc, char **argv)
{
	(void)argv;
	return ns::cxx_func(argc);
}
