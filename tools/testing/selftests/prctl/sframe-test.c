// SPDX-License-Identifier: GPL-2.0
/*
 * prctl(PR_ADD_SFRAME) and prctl(PR_REMOVE_SFRAME): the arguments, the
 * errors, and what fork does to a registered .sframe section.
 *
 * Built with -Wa,--gsframe where the assembler has it: the test's own
 * section, registered by exec, is what most cases use.  Without one, or on
 * a kernel without CONFIG_UNWIND_USER_SFRAME, those cases are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#ifndef PR_ADD_SFRAME
#define PR_ADD_SFRAME		82
#define PR_REMOVE_SFRAME	83
#endif
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

struct obj {
	uintptr_t sf, sf_end, text, text_end;
};

/* The main program's .sframe segment and executable segments */
static int find_main(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj *o = data;
	int i;

	(void)size;
	o->text = UINTPTR_MAX;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const typeof(*info->dlpi_phdr) *p = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_GNU_SFRAME) {
			o->sf = a;
			o->sf_end = a + p->p_memsz;
		} else if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			if (a < o->text)
				o->text = a;
			if (a + p->p_memsz > o->text_end)
				o->text_end = a + p->p_memsz;
		}
	}
	return 1;	/* the first object is the main program */
}

static int add(uintptr_t sf, uintptr_t sf_end, uintptr_t text, uintptr_t text_end)
{
	return prctl(PR_ADD_SFRAME, sf, sf_end, text, text_end);
}

static int del(uintptr_t sf)
{
	return prctl(PR_REMOVE_SFRAME, sf, 0, 0, 0);
}

FIXTURE(sframe) {
	struct obj o;
	long page;
};

FIXTURE_SETUP(sframe)
{
	/* unknown options are EINVAL; a kernel with the prctl says ENOENT */
	if (del(0) == 0 || errno != ENOENT)
		SKIP(return, "no PR_REMOVE_SFRAME: CONFIG_UNWIND_USER_SFRAME not set");
	memset(&self->o, 0, sizeof(self->o));
	dl_iterate_phdr(find_main, &self->o);
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(sframe)
{
}

#define NO_SECTION "built without an .sframe section (-Wa,--gsframe)"

TEST_F(sframe, bad_arguments)
{
	/* empty ranges */
	EXPECT_EQ(-1, add(0x10000, 0x10000, 0x20000, 0x30000));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, add(0x10000, 0x20000, 0x30000, 0x30000));
	EXPECT_EQ(EINVAL, errno);
	/* PR_REMOVE_SFRAME takes one argument */
	EXPECT_EQ(-1, prctl(PR_REMOVE_SFRAME, 0x10000, 1, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	/* nothing registered there */
	EXPECT_EQ(-1, del(0x10000));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(sframe, not_mapped)
{
	char *p = mmap(NULL, self->page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p, self->page));
	/* a section where nothing is mapped cannot be read */
	EXPECT_EQ(-1, add((uintptr_t)p, (uintptr_t)p + 64, self->o.text ? self->o.text : 0x400000,
			  self->o.text ? self->o.text_end : 0x401000));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(sframe, exec_registered)
{
	if (!self->o.sf)
		SKIP(return, NO_SECTION);
	/* exec registered the section: once only */
	EXPECT_EQ(-1, add(self->o.sf, self->o.sf_end, self->o.text, self->o.text_end));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(0, del(self->o.sf));
	EXPECT_EQ(-1, del(self->o.sf));
	EXPECT_EQ(ENOENT, errno);
	/* registered again: its FDE table is checked at the first lookup */
	EXPECT_EQ(0, add(self->o.sf, self->o.sf_end, self->o.text, self->o.text_end));
}

TEST_F(sframe, code_not_executable)
{
	char *p;

	if (!self->o.sf)
		SKIP(return, NO_SECTION);
	p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, del(self->o.sf));
	/* the code it describes must be mapped executable */
	EXPECT_EQ(-1, add(self->o.sf, self->o.sf_end, (uintptr_t)p, (uintptr_t)p + self->page));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, add(self->o.sf, self->o.sf_end, self->o.text, self->o.text_end));
	munmap(p, self->page);
}

TEST_F(sframe, bad_section)
{
	size_t len;
	char *p;

	if (!self->o.sf)
		SKIP(return, NO_SECTION);
	len = self->o.sf_end - self->o.sf;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, del(self->o.sf));
	/* a copy with another version is not supported */
	memcpy(p, (void *)self->o.sf, len);
	p[2] = 99;
	EXPECT_EQ(-1, add((uintptr_t)p, (uintptr_t)p + len, self->o.text, self->o.text_end));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* and one with a bad magic is no section at all */
	memcpy(p, (void *)self->o.sf, len);
	p[0] ^= 0xff;
	EXPECT_EQ(-1, add((uintptr_t)p, (uintptr_t)p + len, self->o.text, self->o.text_end));
	EXPECT_EQ(EINVAL, errno);
	munmap(p, len);
	EXPECT_EQ(0, add(self->o.sf, self->o.sf_end, self->o.text, self->o.text_end));
}

TEST_F(sframe, fork_copies)
{
	int status;
	pid_t pid;

	if (!self->o.sf)
		SKIP(return, NO_SECTION);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(del(self->o.sf) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* the child had the section, and removed its own copy only */
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(-1, add(self->o.sf, self->o.sf_end, self->o.text, self->o.text_end));
	EXPECT_EQ(EEXIST, errno);
}

TEST_HARNESS_MAIN
