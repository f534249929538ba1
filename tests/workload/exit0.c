// SPDX-License-Identifier: GPL-2.0
/*
 * exit(0) and nothing else, static and without libc: an execve() target
 * that the kernel loads without opening an interpreter, so that the
 * exec'ing task does not sleep on I/O before begin_new_exec() (the test
 * copies it to a tmpfs).
 */
void _start(void)
{
	asm volatile("syscall" : : "a"(60), "D"(0) : "rcx", "r11", "memory");
	__builtin_unreachable();
}
