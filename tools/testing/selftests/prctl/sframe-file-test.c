// SPDX-License-Identifier: GPL-2.0
/*
 * prctl(PR_ATTACH_SFRAME_FILE): the arguments, the errors, the limit, and
 * the lifetime of an attached section (it belongs to the descriptor the
 * call returns).
 *
 * The section attached is the test's own .sframe (built with
 * -Wa,--gsframe), to its own file, with the file's GNU build ID.  Without
 * a section or a build ID, on a kernel without the call, or without the
 * privilege it needs (root), the cases are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#ifndef PR_ATTACH_SFRAME_FILE
#define PR_ATTACH_SFRAME_FILE	84

struct prctl_sframe_file {
	__u64	sframe;
	__u64	sframe_size;
	__u64	sframe_addr;
	__u64	text_start;
	__u64	text_end;
	__u64	seg_vaddr;
	__u64	seg_offset;
	__s32	object_fd;
	__s32	owner_fd;
	__u32	flags;
	__u32	build_id_size;
	__u8	build_id[20];
	__u32	reserved;
};
#endif
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID		3
#endif

#define MAX_KB "/proc/sys/kernel/sframe_file_max_kb"

/* The main program's .sframe, executable segment and build ID */
struct obj {
	uintptr_t base, sf_vaddr, sf_size;
	uintptr_t text, text_end, seg_vaddr, seg_offset;
	unsigned char id[20];
	unsigned int id_size;
};

/* An ELF note header: the same three words in 32- and 64-bit objects */
struct note {
	__u32 namesz, descsz, type;
};

static void find_build_id(struct obj *o, uintptr_t notes, size_t size)
{
	size_t off = 0;

	while (off + sizeof(struct note) <= size) {
		const struct note *n = (const void *)(notes + off);
		const char *name = (const char *)(n + 1);
		size_t desc = sizeof(*n) + ((n->namesz + 3) & ~3U);

		if (n->type == NT_GNU_BUILD_ID && n->namesz == 4 &&
		    !memcmp(name, "GNU", 4) && n->descsz <= sizeof(o->id)) {
			memcpy(o->id, (const char *)n + desc, n->descsz);
			o->id_size = n->descsz;
			return;
		}
		off += desc + ((n->descsz + 3) & ~3U);
	}
}

static int find_main(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj *o = data;
	int i;

	(void)size;
	o->base = info->dlpi_addr;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const typeof(*info->dlpi_phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_GNU_SFRAME) {
			o->sf_vaddr = p->p_vaddr;
			o->sf_size = p->p_memsz;
		} else if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && !o->text) {
			o->text = p->p_vaddr;
			o->text_end = p->p_vaddr + p->p_memsz;
			o->seg_vaddr = p->p_vaddr;
			o->seg_offset = p->p_offset;
		} else if (p->p_type == PT_NOTE && !o->id_size) {
			find_build_id(o, info->dlpi_addr + p->p_vaddr, p->p_memsz);
		}
	}
	return 1;	/* the first object is the main program */
}

static int attach(const struct prctl_sframe_file *a)
{
	return prctl(PR_ATTACH_SFRAME_FILE, a, sizeof(*a), 0, 0);
}

static int write_max_kb(const char *val)
{
	int fd = open(MAX_KB, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

FIXTURE(sframe_file) {
	struct obj o;
	struct prctl_sframe_file a;
	char max_kb[32];
};

FIXTURE_SETUP(sframe_file)
{
	struct prctl_sframe_file none = { .owner_fd = -1, .object_fd = -1 };
	int fd;

	memset(&self->o, 0, sizeof(self->o));
	self->max_kb[0] = 0;
	/* unknown options are EINVAL; the call checks privilege first */
	if (geteuid())
		SKIP(return, "needs root (CAP_PERFMON and CAP_SYS_PTRACE)");
	if (attach(&none) == 0 || errno != EBADF)
		SKIP(return, "no PR_ATTACH_SFRAME_FILE (or no CONFIG_UNWIND_USER_SFRAME)");
	dl_iterate_phdr(find_main, &self->o);
	if (!self->o.sf_size)
		SKIP(return, "built without an .sframe section (-Wa,--gsframe)");
	if (!self->o.id_size)
		SKIP(return, "built without a build ID (-Wl,--build-id)");
	fd = open(MAX_KB, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, self->max_kb, sizeof(self->max_kb) - 1));
	close(fd);

	memset(&self->a, 0, sizeof(self->a));
	self->a.sframe = self->o.base + self->o.sf_vaddr;
	self->a.sframe_size = self->o.sf_size;
	self->a.sframe_addr = self->o.sf_vaddr;
	self->a.text_start = self->o.text;
	self->a.text_end = self->o.text_end;
	self->a.seg_vaddr = self->o.seg_vaddr;
	self->a.seg_offset = self->o.seg_offset;
	self->a.object_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->a.object_fd);
	self->a.owner_fd = -1;
	self->a.build_id_size = self->o.id_size;
	memcpy(self->a.build_id, self->o.id, self->o.id_size);
}

FIXTURE_TEARDOWN(sframe_file)
{
	if (self->max_kb[0])
		write_max_kb(self->max_kb);
	if (self->o.sf_size && self->o.id_size)
		close(self->a.object_fd);
}

/* Each argument out of range is EINVAL (a larger struct's tail E2BIG) */
TEST_F(sframe_file, bad_arguments)
{
	struct prctl_sframe_file b;
	char big[sizeof(b) + 8];

	b = self->a; b.flags = 1;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	b = self->a; b.reserved = 1;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	b = self->a; b.sframe_size = 0;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	b = self->a; b.text_end = b.text_start;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	b = self->a; b.build_id_size = 0;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	b = self->a; b.build_id_size = 21;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	/* a segment whose vaddr and offset differ within a page */
	b = self->a; b.seg_offset += 1;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	/* the fourth and fifth arguments are 0 */
	EXPECT_EQ(-1, prctl(PR_ATTACH_SFRAME_FILE, &self->a, sizeof(self->a), 1, 0));
	EXPECT_EQ(EINVAL, errno);
	/* a newer, larger struct is taken if its tail is zero, else E2BIG */
	memset(big, 0, sizeof(big));
	memcpy(big, &self->a, sizeof(self->a));
	big[sizeof(self->a)] = 1;
	EXPECT_EQ(-1, prctl(PR_ATTACH_SFRAME_FILE, big, sizeof(big), 0, 0));
	EXPECT_EQ(E2BIG, errno);
}

/* The object must be the file the section was made from */
TEST_F(sframe_file, wrong_object)
{
	struct prctl_sframe_file b = self->a;
	int fd;

	b.build_id[0] ^= 0xff;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	/* not a regular file */
	b = self->a;
	b.object_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, b.object_fd);
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EBADF, errno);
	close(b.object_fd);
	/* not open for reading */
	b.object_fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
	ASSERT_LE(0, b.object_fd);
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EBADF, errno);
	close(b.object_fd);
	/* an owner that is no [sframe_file] descriptor */
	b = self->a;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	b.owner_fd = fd;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EBADF, errno);
	close(fd);
	b.owner_fd = -2;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EBADF, errno);
}

/* The section's bytes are checked as PR_ADD_SFRAME checks them */
TEST_F(sframe_file, bad_section)
{
	struct prctl_sframe_file b = self->a;
	char *p;

	p = mmap(NULL, b.sframe_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	b.sframe = (uintptr_t)p;
	memcpy(p, (void *)(uintptr_t)self->a.sframe, b.sframe_size);
	p[2] = 99;	/* version */
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EOPNOTSUPP, errno);
	memcpy(p, (void *)(uintptr_t)self->a.sframe, b.sframe_size);
	p[0] ^= 0xff;	/* magic */
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	/* cut short: the FDE table runs past the end */
	memcpy(p, (void *)(uintptr_t)self->a.sframe, b.sframe_size);
	b.sframe_size = 32;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EINVAL, errno);
	munmap(p, self->a.sframe_size);
	/* bytes that cannot be read */
	b = self->a;
	b.sframe = 0;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EFAULT, errno);
	/* none of these attached anything */
	b.sframe = self->a.sframe;
	b.owner_fd = attach(&self->a);
	ASSERT_LE(0, b.owner_fd);
	close(b.owner_fd);
}

/* One section a file; it belongs to the returned descriptor */
TEST_F(sframe_file, lifetime)
{
	struct prctl_sframe_file b = self->a;
	int fd, status;
	pid_t pid;

	fd = attach(&self->a);
	ASSERT_LE(0, fd);
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* once a file, through a new owner or the same one */
	EXPECT_EQ(-1, attach(&self->a));
	EXPECT_EQ(EEXIST, errno);
	b.owner_fd = fd;
	EXPECT_EQ(-1, attach(&b));
	EXPECT_EQ(EEXIST, errno);
	/* closing the owner detaches it */
	close(fd);
	fd = attach(&self->a);
	ASSERT_LE(0, fd);
	close(fd);

	/* and so does the owner's exit */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(attach(&self->a) < 0 ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fd = attach(&self->a);
	EXPECT_LE(0, fd);
	close(fd);
}

/* kernel.sframe_file_max_kb bounds all sections together */
TEST_F(sframe_file, limit)
{
	int fd;

	ASSERT_EQ(0, write_max_kb("0"));
	EXPECT_EQ(-1, attach(&self->a));
	EXPECT_EQ(ENOSPC, errno);
	ASSERT_EQ(0, write_max_kb(self->max_kb));
	fd = attach(&self->a);
	EXPECT_LE(0, fd);
	close(fd);
}

/* Without CAP_PERFMON and CAP_SYS_PTRACE: EPERM, before anything else */
TEST_F(sframe_file, unprivileged)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(attach(&self->a) == -1 && errno == EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_HARNESS_MAIN
