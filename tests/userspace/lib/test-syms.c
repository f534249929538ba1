// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tests on binaries built on the host (symdata/): a PIE program,
 * a fixed-address program, a shared library, a stripped program, with
 * /proc/PID/maps of the running program and with synthetic maps; an
 * unreadable ELF file; kernel symbols from a kallsyms file.
 *
 * usage: test-syms DIR PROG_FUNC_VADDR_PIE PROG_FUNC_VADDR_NOPIE CXX_VADDR
 *                  INL_ADDR INL_LINE CALL_LINE
 *   DIR holds symtest-pie, symtest-nopie, symtest-stripped, libsymtest.so,
 *   symtest-cxx (C++, not PIE) and a corrupt ELF "corrupt.so"; the vaddrs
 *   are prog_func's and ns::cxx_func(int)'s, from nm; INL_ADDR is where
 *   ns::helper is inlined in ns::cxx_func, at source line INL_LINE,
 *   called from CALL_LINE (addr2line -i).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "ustack.h"
#include "ustack-local.h"

#include "check.h"

struct child {
	pid_t			pid;
	int			in;	/* its stdin */
	unsigned long long	prog;
	unsigned long long	lib;
};

static int spawn(const char *path, const char *libdir, struct child *c)
{
	int to[2], from[2];
	char line[256];
	FILE *fp;
	int n;

	if (pipe(to) || pipe(from))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		setenv("LD_LIBRARY_PATH", libdir, 1);
		execl(path, path, NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = to[1];
	fp = fdopen(from[0], "r");
	if (!fp || !fgets(line, sizeof(line), fp)) {
		if (fp)
			fclose(fp);
		return -1;
	}
	fclose(fp);
	n = sscanf(line, "%*d %llx %llx", &c->prog, &c->lib);
	return n == 2 ? 0 : -1;
}

static void reap(struct child *c)
{
	int st;

	close(c->in);
	waitpid(c->pid, &st, 0);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

/* Copy the file mappings of pid to fake_pid, shifted by delta. */
static int copy_maps(struct ustack_syms *syms, int pid, int fake_pid,
		     unsigned long long delta)
{
	unsigned long long start, end, off;
	char path[64], line[4096], name[4096];
	FILE *fp;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*d %4095s", &start,
			   &end, &off, name) == 4 && name[0] == '/') {
			ustack_syms_add_map(syms, fake_pid, start + delta,
					    end + delta, off, name);
			n++;
		}
	}
	fclose(fp);
	return n;
}

static void test_live(const char *dir, const char *prog, const char *suffix,
		      unsigned long long vaddr, bool stripped)
{
	struct ustack_syms *syms;
	struct ustack_sym s;
	struct child c;
	char path[4096], buf[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	if (spawn(path, dir, &c)) {
		CHECK(0, "cannot run %s", path);
		return;
	}
	syms = ustack_syms_alloc();
	ret = ustack_syms_load_pid(syms, c.pid);
	CHECK(ret > 0, "maps of %d: %d", c.pid, ret);

	/* the program's own function, at its load address + 5 */
	ret = ustack_syms_resolve(syms, c.pid, c.prog + 5, &s);
	CHECK(ret == 0 && ends_with(s.file, suffix), "file %s", s.file);
	if (stripped) {
		CHECK(!s.name, "stripped binary gave a name: %s", s.name);
		CHECK(s.file_addr == vaddr + 5 && s.offset == vaddr + 5,
		      "stripped offset 0x%llx, want 0x%llx", s.offset,
		      vaddr + 5);
		ustack_syms_format(syms, c.pid, c.prog + 5, buf, sizeof(buf));
		snprintf(path, sizeof(path), "%s+0x%llx", suffix, vaddr + 5);
		CHECK(ends_with(buf, path), "format '%s', want '...%s'", buf,
		      path);
	} else {
		CHECK(s.name && !strcmp(s.name, "prog_func") && s.offset == 5,
		      "got %s+0x%llx", s.name, s.offset);
		CHECK(s.file_addr == vaddr + 5, "file address 0x%llx want 0x%llx",
		      s.file_addr, vaddr + 5);
		ustack_syms_format(syms, c.pid, c.prog + 5, buf, sizeof(buf));
		snprintf(path, sizeof(path), "prog_func+0x5 (%s/%s)", dir, prog);
		CHECK(!strcmp(buf, path), "format '%s'", buf);
	}

	/* the shared library's function */
	ret = ustack_syms_resolve(syms, c.pid, c.lib + 3, &s);
	CHECK(ret == 0 && s.name && !strcmp(s.name, "lib_func") &&
	      s.offset == 3 && ends_with(s.file, "/libsymtest.so"),
	      "library: %s+0x%llx (%s)", s.name, s.offset, s.file);

	/* the same, through synthetic maps at another load address */
	copy_maps(syms, c.pid, 424242, 0x100000000ULL);
	ret = ustack_syms_resolve(syms, 424242, c.lib + 0x100000000ULL + 3,
				  &s);
	CHECK(ret == 0 && s.name && !strcmp(s.name, "lib_func") &&
	      s.offset == 3, "synthetic maps: %s+0x%llx", s.name, s.offset);
	if (!stripped && vaddr < 0x400000) {
		ret = ustack_syms_resolve(syms, 424242,
					  c.prog + 0x100000000ULL + 9, &s);
		CHECK(ret == 0 && s.name && !strcmp(s.name, "prog_func") &&
		      s.offset == 9, "synthetic maps (PIE moved): %s+0x%llx",
		      s.name, s.offset);
	}
	/* no map at all */
	ustack_syms_format(syms, c.pid, 0x10, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0x10"), "unmapped: %s", buf);
	CHECK(ustack_syms_errors(syms) == 0, "errors %d",
	      ustack_syms_errors(syms));
	ustack_syms_free(syms);
	reap(&c);
}

static void test_unreadable(const char *dir)
{
	struct ustack_syms *syms = ustack_syms_alloc();
	struct ustack_sym s;
	char path[4096], buf[4096];

	snprintf(path, sizeof(path), "%s/corrupt.so", dir);
	ustack_syms_add_map(syms, 7, 0x7f0000000000ULL, 0x7f0000010000ULL, 0,
			    path);
	ustack_syms_add_map(syms, 7, 0x7f0000100000ULL, 0x7f0000110000ULL, 0,
			    "/nonexistent/libgone.so");
	ustack_set_loglevel(TEP_LOG_NONE);
	CHECK(ustack_syms_resolve(syms, 7, 0x7f0000000123ULL, &s) == 0,
	      "resolve failed");
	CHECK(!s.name && s.offset == 0x123, "corrupt: %s+0x%llx", s.name,
	      s.offset);
	CHECK(ustack_syms_errors(syms) == 1, "errors %d",
	      ustack_syms_errors(syms));
	ustack_syms_format(syms, 7, 0x7f0000100042ULL, buf, sizeof(buf));
	CHECK(!strcmp(buf, "/nonexistent/libgone.so+0x42 (0x7f0000100042)"),
	      "missing: %s",
	      buf);
	CHECK(ustack_syms_errors(syms) == 1, "a missing file is no error");
	ustack_set_loglevel(TEP_LOG_WARNING);
	CHECK(ustack_syms_add_map(syms, 7, 5, 5, 0, "/x") < 0 &&
	      errno == EINVAL, "empty map accepted");
	ustack_syms_free(syms);
}

static void test_search_dir(const char *dir)
{
	struct ustack_syms *syms = ustack_syms_alloc();
	struct child c;
	char path[4096], line[4096], name[4096];
	unsigned long long start, end, off;
	struct ustack_sym s;
	FILE *fp;

	/* maps naming a path that is not there: found in a search dir */
	snprintf(path, sizeof(path), "%s/symtest-pie", dir);
	if (spawn(path, dir, &c)) {
		CHECK(0, "cannot run %s", path);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", c.pid);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*d %4095s", &start,
			   &end, &off, name) == 4 && strstr(name, "symtest-pie"))
			ustack_syms_add_map(syms, 1, start, end, off,
					    "/guest/bin/symtest-pie");
	}
	if (fp)
		fclose(fp);
	ustack_syms_add_search_dir(syms, dir);
	ustack_syms_resolve(syms, 1, c.prog + 2, &s);
	CHECK(s.name && !strcmp(s.name, "prog_func") && s.offset == 2 &&
	      !strcmp(s.file, "/guest/bin/symtest-pie"),
	      "search dir: %s+0x%llx (%s)", s.name, s.offset, s.file);
	ustack_syms_free(syms);
	reap(&c);
}

/* A map function that gives each mapping's range, not the lowest */
struct range_maps {
	int			nr;
	unsigned long long	start[64], end[64];
	char			file[4096];
};

static int range_find_map(void *data, int pid, unsigned long long addr,
			  struct ustack_map *map)
{
	struct range_maps *r = data;
	int i;

	(void)pid;
	for (i = 0; i < r->nr; i++) {
		if (addr < r->start[i] || addr >= r->end[i])
			continue;
		map->file = r->file;
		map->start = r->start[i];
		map->end = r->end[i];
		return 1;
	}
	return 0;
}

/*
 * A map function that leaves ustack_map.lowest 0: the library walks down
 * the mappings of the file from the one that holds the address, as it
 * does for the maps added by hand and the ones a trace file saved.
 */
static void test_map_func_walk(const char *dir)
{
	struct ustack_syms *syms = ustack_syms_alloc();
	static struct range_maps r;
	char path[4096], line[4096], name[4096];
	unsigned long long start, end;
	struct ustack_sym s;
	struct child c;
	FILE *fp;

	snprintf(r.file, sizeof(r.file), "%s/symtest-pie", dir);
	if (spawn(r.file, dir, &c)) {
		CHECK(0, "cannot run %s", r.file);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", c.pid);
	fp = fopen(path, "r");
	while (fp && r.nr < 64 && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx-%llx %*s %*x %*s %*d %4095s", &start,
			   &end, name) == 3 && strstr(name, "symtest-pie")) {
			r.start[r.nr] = start;
			r.end[r.nr++] = end;
		}
	}
	if (fp)
		fclose(fp);
	CHECK(r.nr >= 2 && c.prog >= r.start[1],
	      "%d mappings, prog_func above the first", r.nr);
	ustack_syms_set_map_func(syms, range_find_map, &r);
	ustack_syms_resolve(syms, 1, c.prog + 2, &s);
	CHECK(s.name && !strcmp(s.name, "prog_func") && s.offset == 2,
	      "lowest found by the library: %s+0x%llx", s.name, s.offset);
	ustack_syms_free(syms);
	reap(&c);
}

/* The GNU build ID of path in hex, from elfutils */
static int build_id(const char *path, char *hex)
{
	const unsigned char *bits;
	const void *p;
	Elf *elf;
	int fd, len, i;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, &p) : -1;
	bits = p;
	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", bits[i]);
	if (elf)
		elf_end(elf);
	close(fd);
	return len > 0 ? 0 : -1;
}

struct fake_map {
	char			file[4096];
	char			id[256];
	unsigned long long	lowest;
};

static int fake_find_map(void *data, int pid, unsigned long long addr,
			 struct ustack_map *map)
{
	struct fake_map *m = data;

	(void)pid;
	(void)addr;
	map->file = m->file;
	map->lowest = m->lowest;
	map->build_id = m->id[0] ? m->id : NULL;
	return 1;
}

/*
 * Maps with build IDs (ustack_syms_set_map_func): the right build names
 * frames; another build under the name is marked and names nothing; a
 * wrong build in a search directory is passed over for the right one.
 */
static void test_build_id(const char *dir, unsigned long long vaddr)
{
	struct ustack_syms *syms;
	struct fake_map m;
	struct ustack_sym s;
	char tmp[] = "/tmp/symtest-bid.XXXXXX", link[4200], pie[4200];
	char buf[8192];

	/* a fixed-address program: its lowest mapping is its first load */
	snprintf(m.file, sizeof(m.file), "%s/symtest-nopie", dir);
	m.lowest = vaddr & ~0xfffffULL;
	CHECK(build_id(m.file, m.id) == 0, "no build ID in %s", m.file);

	syms = ustack_syms_alloc();
	ustack_syms_set_map_func(syms, fake_find_map, &m);
	ustack_syms_resolve(syms, 1, vaddr + 2, &s);
	CHECK(s.name && !strcmp(s.name, "prog_func") && s.offset == 2,
	      "right build: %s+0x%llx", s.name, s.offset);
	ustack_syms_free(syms);

	strcpy(m.id, "00112233445566778899aabbccddeeff00112233");
	syms = ustack_syms_alloc();
	ustack_syms_set_map_func(syms, fake_find_map, &m);
	ustack_syms_resolve(syms, 1, vaddr + 2, &s);
	CHECK(!s.name && s.file && !strcmp(s.file, m.file),
	      "other build: name %s, file %s", s.name, s.file);
	ustack_syms_format(syms, 1, vaddr + 2, buf, sizeof(buf));
	CHECK(strstr(buf, "/symtest-nopie+0x") &&
	      strstr(buf, " [build-id mismatch]") && !strstr(buf, "prog_func"),
	      "other build: %s", buf);
	ustack_syms_free(syms);

	/* a search dir with another program under the name comes first */
	CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
	snprintf(link, sizeof(link), "%s/symtest-nopie", tmp);
	snprintf(pie, sizeof(pie), "%s/symtest-pie", dir);
	CHECK(symlink(pie, link) == 0, "symlink");
	build_id(m.file, m.id);
	syms = ustack_syms_alloc();
	ustack_syms_add_search_dir(syms, tmp);
	ustack_syms_set_map_func(syms, fake_find_map, &m);
	ustack_syms_format(syms, 1, vaddr + 2, buf, sizeof(buf));
	CHECK(!strncmp(buf, "prog_func+0x2 (", 15),
	      "wrong build in a search dir passed over: %s", buf);
	ustack_syms_free(syms);
	unlink(link);
	rmdir(tmp);
}

/*
 * Without a build ID (issue 20 item 7): a file of the mapped name next to
 * the trace (ustack_syms_add_trace_dir) that is another program does not
 * hide the recorded path, and when the recorded path is gone it is not
 * taken: no name, a mark.  The right file there is taken.  The other
 * program is libm: symtest-nopie, the same source, has the same segment
 * layout as symtest-pie, which is all that can be checked without a build
 * ID.
 */
static void add_maps_as(struct ustack_syms *syms, int pid, const char *name)
{
	char path[64], line[4096], file[4096];
	unsigned long long start, end, off;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*d %4095s", &start,
			   &end, &off, file) == 4 && strstr(file, "symtest-pie"))
			ustack_syms_add_map(syms, 1, start, end, off,
					    name ? name : file);
	}
	if (fp)
		fclose(fp);
}

static void test_layout(const char *dir)
{
	char tmp[] = "/tmp/symtest-lay.XXXXXX", link[4200], pie[4200];
	char other[4200], buf[8192];
	struct ustack_syms *syms;
	struct child c;

	snprintf(pie, sizeof(pie), "%s/symtest-pie", dir);
	snprintf(other, sizeof(other), "%s",
		 access("/usr/lib/x86_64-linux-gnu/libm.so.6", R_OK) ?
		 "/lib/x86_64-linux-gnu/libm.so.6" :
		 "/usr/lib/x86_64-linux-gnu/libm.so.6");
	if (spawn(pie, dir, &c)) {
		CHECK(0, "cannot run %s", pie);
		return;
	}
	CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
	snprintf(link, sizeof(link), "%s/symtest-pie", tmp);
	CHECK(symlink(other, link) == 0, "symlink");

	syms = ustack_syms_alloc();
	add_maps_as(syms, c.pid, NULL);		/* the recorded path exists */
	ustack_syms_add_trace_dir(syms, tmp);
	ustack_syms_format(syms, 1, c.prog + 2, buf, sizeof(buf));
	CHECK(!strncmp(buf, "prog_func+0x2 (", 15),
	      "recorded path before another program next to the trace: %s",
	      buf);
	ustack_syms_free(syms);

	ustack_set_loglevel(TEP_LOG_NONE);
	syms = ustack_syms_alloc();
	add_maps_as(syms, c.pid, "/guest/bin/symtest-pie");	/* gone */
	ustack_syms_add_trace_dir(syms, tmp);
	ustack_syms_format(syms, 1, c.prog + 2, buf, sizeof(buf));
	CHECK(strstr(buf, "/guest/bin/symtest-pie+0x") &&
	      strstr(buf, " [not the file mapped]") && !strstr(buf, "prog_func"),
	      "another program next to the trace, none at the path: %s", buf);
	ustack_syms_free(syms);
	ustack_set_loglevel(TEP_LOG_WARNING);

	unlink(link);
	CHECK(symlink(pie, link) == 0, "symlink");
	syms = ustack_syms_alloc();
	add_maps_as(syms, c.pid, "/guest/bin/symtest-pie");
	ustack_syms_add_trace_dir(syms, tmp);
	ustack_syms_format(syms, 1, c.prog + 2, buf, sizeof(buf));
	CHECK(!strncmp(buf, "prog_func+0x2 (/guest/bin/symtest-pie)", 38),
	      "the right program next to the trace: %s", buf);
	ustack_syms_free(syms);
	unlink(link);
	rmdir(tmp);
	reap(&c);
}

/* A C++ frame is named as its source spells it */
static void test_demangle(const char *dir, unsigned long long vaddr)
{
	struct ustack_syms *syms = ustack_syms_alloc();
	struct fake_map m;
	char buf[8192];

	snprintf(m.file, sizeof(m.file), "%s/symtest-cxx", dir);
	m.lowest = vaddr & ~0xfffffULL;
	m.id[0] = '\0';
	ustack_syms_set_map_func(syms, fake_find_map, &m);
	ustack_syms_format(syms, 1, vaddr + 1, buf, sizeof(buf));
	CHECK(!strncmp(buf, "ns::cxx_func(int)+0x1 (", 23), "C++: %s", buf);
	/* twice: the second answer comes from the cache */
	ustack_syms_format(syms, 1, vaddr + 1, buf, sizeof(buf));
	CHECK(!strncmp(buf, "ns::cxx_func(int)+0x1 (", 23), "C++ again: %s",
	      buf);
	ustack_syms_free(syms);
}

/* Source lines and inlined frames from the DWARF of symtest-cxx */
static void test_lines(const char *dir, unsigned long long vaddr,
		       unsigned long long inl, int inl_line, int call_line)
{
	struct ustack_syms *syms = ustack_syms_alloc();
	struct fake_map m;
	char buf[8192], want[8192];
	int i;

	CHECK(inl && inl_line > 0 && call_line > 0,
	      "addr2line found no inlined helper in ns::cxx_func");
	snprintf(m.file, sizeof(m.file), "%s/symtest-cxx", dir);
	m.lowest = vaddr & ~0xfffffULL;
	m.id[0] = '\0';
	ustack_syms_set_map_func(syms, fake_find_map, &m);
	snprintf(want, sizeof(want),
		 "helper [inlined] symtest-cxx.cc:%d\n"
		 "ns::cxx_func(int)+0x%llx (%s) symtest-cxx.cc:%d",
		 inl_line, inl - vaddr, m.file, call_line);
	/* twice: the second from the cache */
	for (i = 0; i < 2; i++) {
		ustack_syms_format_lines(syms, 1, inl, buf, sizeof(buf));
		CHECK(!strcmp(buf, want), "inlined: got '%s', want '%s'", buf,
		      want);
	}
	/* the plain format is unchanged */
	ustack_syms_format(syms, 1, inl, buf, sizeof(buf));
	CHECK(!strchr(buf, '\n') && !strstr(buf, ".cc:"), "plain: %s", buf);
	ustack_syms_free(syms);

	/* no debug info: as ustack_syms_format() */
	syms = ustack_syms_alloc();
	snprintf(m.file, sizeof(m.file), "%s/symtest-stripped", dir);
	ustack_syms_set_map_func(syms, fake_find_map, &m);
	ustack_syms_format_lines(syms, 1, m.lowest + 0x1010, buf, sizeof(buf));
	ustack_syms_format(syms, 1, m.lowest + 0x1010, want, sizeof(want));
	CHECK(!strcmp(buf, want), "stripped: '%s' against '%s'", buf, want);
	ustack_syms_free(syms);
}

static void test_kernel(const char *dir)
{
	struct ustack_syms *syms = ustack_syms_alloc();
	struct ustack_sym s;
	char path[4096], buf[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	fp = fopen(path, "w");
	fprintf(fp, "ffffffff81000000 T _stext\n"
		"ffffffff81001000 T do_syscall_64\n"
		"ffffffff81002000 t helper\n"
		"ffffffff81003000 T _etext\n");
	fclose(fp);
	CHECK(ustack_syms_load_kallsyms(syms, path) == 0, "load");
	ustack_syms_resolve_kernel(syms, 0xffffffff81001234ULL, &s);
	CHECK(s.name && !strcmp(s.name, "do_syscall_64") && s.offset == 0x234,
	      "kernel: %s+0x%llx", s.name, s.offset);
	ustack_syms_format_kernel(syms, 0xffffffff81002010ULL, buf,
				  sizeof(buf));
	CHECK(!strcmp(buf, "helper+0x10"), "kernel format: %s", buf);
	ustack_syms_free(syms);
	syms = ustack_syms_alloc();
	ustack_syms_format_kernel(syms, 0xffffffff81002010ULL, buf,
				  sizeof(buf));
	CHECK(!strcmp(buf, "0xffffffff81002010"), "no kallsyms: %s", buf);
	CHECK(ustack_syms_load_kallsyms(syms, "/nonexistent") < 0, "missing");
	ustack_syms_free(syms);
}

/*
 * Frames from before an exec: with an exec noted, a frame of the
 * time before it is never named in the last image's maps (by hand or a
 * map function's): "0xaddr [before exec]"; after it, named as before;
 * with no time set, by the last maps.  A frame's cached name is not
 * reused across the exec.
 */
static void test_before_exec(const char *dir, unsigned long long vaddr)
{
	struct ustack_syms *syms;
	struct fake_map m;
	struct ustack_sym s;
	char buf[8192];
	int pass;

	snprintf(m.file, sizeof(m.file), "%s/symtest-nopie", dir);
	m.lowest = vaddr & ~0xfffffULL;
	m.id[0] = '\0';
	for (pass = 0; pass < 2; pass++) {
		syms = ustack_syms_alloc();
		if (pass)	/* maps by hand */
			ustack_syms_add_map(syms, 1, m.lowest, vaddr + 0x1000, 0,
					    m.file);
		else		/* maps of a map function */
			ustack_syms_set_map_func(syms, fake_find_map, &m);
		CHECK(ustack_syms_add_exec(syms, 1, 5000) == 0 &&
		      ustack_syms_add_exec(syms, 1, 5000) == 0 &&
		      ustack_syms_add_exec(syms, 1, 3000) == 0, "add_exec");
		CHECK(ustack_syms_execs_after(syms, 1, 2999) == 2 &&
		      ustack_syms_execs_after(syms, 1, 3000) == 1 &&
		      ustack_syms_execs_after(syms, 1, 4000) == 1 &&
		      ustack_syms_execs_after(syms, 1, 5000) == 0 &&
		      ustack_syms_execs_after(syms, 1, 0) == 0 &&
		      ustack_syms_execs_after(syms, 2, 1000) == 0,
		      "execs_after %d %d %d %d",
		      ustack_syms_execs_after(syms, 1, 2999),
		      ustack_syms_execs_after(syms, 1, 3000),
		      ustack_syms_execs_after(syms, 1, 4000),
		      ustack_syms_execs_after(syms, 1, 5000));
		/* no time: the last image's maps, as before */
		ustack_syms_format(syms, 1, vaddr + 2, buf, sizeof(buf));
		/* (maps by hand: one mapping, not the segments: unnamed) */
		CHECK(pass ? !strstr(buf, "[before exec]") :
		      !strncmp(buf, "prog_func+0x2 (", 15), "no time: %s", buf);
		/* before the last exec: not in the last image's maps */
		ustack_syms_set_time(syms, 4000);
		ustack_syms_format(syms, 1, vaddr + 2, buf, sizeof(buf));
		snprintf(m.id, sizeof(m.id), "0x%llx [before exec]", vaddr + 2);
		CHECK(!strcmp(buf, m.id), "before exec (%s): '%s'",
		      pass ? "maps by hand" : "map function", buf);
		m.id[0] = '\0';
		CHECK(ustack_syms_resolve(syms, 1, vaddr + 2, &s) == 0 &&
		      !s.name && !s.file, "before exec resolves: %s %s",
		      s.name, s.file);
		CHECK(ustack_syms_maps_known(syms, 1, 4000) == 0 &&
		      ustack_syms_maps_known(syms, 1, 6000) == 1 &&
		      ustack_syms_maps_known(syms, 2, 6000) == !pass,
		      "maps_known %d %d %d", ustack_syms_maps_known(syms, 1, 4000),
		      ustack_syms_maps_known(syms, 1, 6000),
		      ustack_syms_maps_known(syms, 2, 6000));
		/* after it, named again; another process is not concerned */
		ustack_syms_set_time(syms, 6000);
		ustack_syms_format(syms, 1, vaddr + 2, buf, sizeof(buf));
		CHECK(pass ? !strstr(buf, "[before exec]") :
		      !strncmp(buf, "prog_func+0x2 (", 15), "after exec: %s", buf);
		ustack_syms_set_time(syms, 4000);
		ustack_syms_format(syms, 2, vaddr + 2, buf, sizeof(buf));
		CHECK(pass ? !strncmp(buf, "0x", 2) && !strstr(buf, "[before") :
		      !strncmp(buf, "prog_func+0x2 (", 15),
		      "another process: %s", buf);
		ustack_syms_free(syms);
	}
	CHECK(ustack_syms_add_exec(NULL, 1, 1) < 0 && errno == EINVAL &&
	      ustack_syms_set_time(NULL, 1) < 0 &&
	      ustack_syms_execs_after(NULL, 1, 1) < 0 &&
	      ustack_syms_maps_known(NULL, 1, 1) < 0 &&
	      ustack_syms_add_record(NULL, NULL, NULL) < 0 && errno == EINVAL &&
	      ustack_syms_add_record(syms = ustack_syms_alloc(), NULL, NULL) < 0 &&
	      ustack_syms_set_image_map_func(NULL, NULL, NULL) < 0,
	      "bad arguments");
	ustack_syms_free(syms);
}

/* "segs=START-END@PGOFF,..." of @path's PT_LOADs as loaded at @base */
static void segs_of(const char *path, unsigned long long base, char *out,
		    size_t size)
{
	unsigned long long s, e;
	size_t i, n, len = 0;
	GElf_Phdr ph;
	Elf *elf;
	int fd;

	out[0] = '\0';
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n && len < size; i++) {
			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			s = (base + ph.p_vaddr) & ~0xfffULL;
			e = (base + ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL;
			len += snprintf(out + len, size - len, "%s%llx-%llx@%llx",
					len ? "," : "segs=", s, e,
					(unsigned long long)ph.p_offset & ~0xfffULL);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* The value of symbol @name in @path's symbol tables, 0 when none */
static unsigned long long sym_value(const char *path, const char *name)
{
	unsigned long long v = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	Elf *elf;
	size_t i;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !v && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getsym(d, i, &sym) &&
			    !strcmp(elf_strptr(elf, sh.sh_link, sym.st_name) ?: "", name))
				v = sym.st_value;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return v;
}

/*
 * Objects loaded and unloaded while traced (the registrar's trace_marker
 * lines, loads.c): a frame is named in the object loaded at its time, not
 * in what the last maps have there; before the load or after the unload
 * it is an address; a load of an image the process left by an exec does
 * not name the frames of the next; lines that do not parse are left.
 */
static void test_loads(const char *dir)
{
	const unsigned long long B = 0x7f0000000000ULL;
	char lib[4096], prog[4096], segs[1024], line[8192], buf[8192];
	struct ustack_loads *loads;
	struct ustack_syms *syms;
	unsigned long long off;
	int i;

	snprintf(lib, sizeof(lib), "%s/libsymtest.so", dir);
	snprintf(prog, sizeof(prog), "%s/symtest-pie", dir);
	off = sym_value(lib, "lib_func");
	CHECK(off, "lib_func in %s", lib);
	segs_of(lib, B, segs, sizeof(segs));
	CHECK(segs[0], "segments of %s", lib);

	for (i = 0; i < 2; i++) {
		syms = ustack_syms_alloc();
		/* what the maps read at the end have there: another file */
		ustack_syms_add_map(syms, 1, B, B + 0x10000, 0, prog);
		if (i)
			ustack_syms_add_exec(syms, 1, 1200);
		loads = ustack_syms_loads(syms);
		snprintf(line, sizeof(line),
			 "ustack_map: open v=1 pid=1 tid=1 base=0x%llx build_id=- %s path=%s\n",
			 B, segs, lib);
		CHECK(ustack_loads_add_line(loads, 10, 1, "ustack_map: open v=1 pid=1 tid=1 base=0x10 segs=zz path=/x") == 0 &&
		      ustack_loads_add_line(loads, 10, 1, "ustack_map: open v=1 pid=1 tid=1 base=0x10 segs=1000-2000@0 path=rel.so") == 0 &&
		      ustack_loads_add_line(loads, 10, 0, "ustack_map: open v=1 pid=0 tid=0 base=0x10 segs=1000-2000@0 path=/x") == 0 &&
		      ustack_loads_add_line(loads, 10, 1, "ustack_map: open v=1 pid=1 tid=1 base=0x10 segs=2000-1000@0 path=/x") == 0 &&
		      ustack_loads_add_line(loads, 10, 1, "ustack_map: close v=1 pid=1 tid=1") == 0 &&
		      ustack_loads_add_line(loads, 10, 1, "hello") == 0,
		      "lines that do not parse are left");
		/*
		 * the line's ABI (ustack.h's USTACK_MAP_*): a version this reader
		 * knows, and written by the thread it names (the record's pid)
		 */
		CHECK(ustack_loads_add_line(loads, 10, 1, "ustack_map: open pid=1 base=0x10 build_id=- segs=1000-2000@0 path=/x") == 0 &&
		      ustack_loads_add_line(loads, 10, 1, "ustack_map: open v=2 pid=1 tid=1 base=0x10 build_id=- segs=1000-2000@0 path=/x") == 0 &&
		      ustack_loads_add_line(loads, 10, 1, "ustack_map: open v=1 pid=1 base=0x10 build_id=- segs=1000-2000@0 path=/x") == 0 &&
		      ustack_loads_add_line(loads, 10, 9, "ustack_map: open v=1 pid=1 tid=1 base=0x10 build_id=- segs=1000-2000@0 path=/x") == 0 &&
		      ustack_loads_add_line(loads, 10, 9, "ustack_map: close v=1 pid=1 tid=1 base=0x10") == 0 &&
		      ustack_loads_add_line(loads, 10, 2, "ustack_map: open v=1 pid=1 tid=2 base=0x10 build_id=- segs=1000-2000@0 path=/y") == 1,
		      "no version, another version, no tid, a tid not the record's pid: left; another thread of the process: taken");
		CHECK(ustack_loads_add_line(loads, 1000, 1, line) == 1, "open: %s", line);
		snprintf(line, sizeof(line), "ustack_map: close v=1 pid=1 tid=1 base=0x%llx\n", B);
		CHECK(ustack_loads_add_line(loads, 2000, 1, line) == 1, "close");
		/*
		 * what a reader keeping printed text keys it on: every change
		 * after the time (the load at 1000, the unload at 2000, and
		 * with i the exec at 1200)
		 */
		CHECK(ustack_syms_maps_changes(syms, 1, 500) == 2 + i &&
		      ustack_syms_maps_changes(syms, 1, 1000) == 1 + i &&
		      ustack_syms_maps_changes(syms, 1, 1100) == 1 + i &&
		      ustack_syms_maps_changes(syms, 1, 1500) == 1 &&
		      ustack_syms_maps_changes(syms, 1, 2000) == 0 &&
		      ustack_syms_maps_changes(syms, 1, 0) == 0 &&
		      ustack_syms_maps_changes(syms, 2, 1500) == 0 &&
		      ustack_syms_maps_changes(NULL, 1, 1500) < 0 && errno == EINVAL,
		      "maps changes after 500 %d, 1000 %d, 1100 %d, 1500 %d, 2000 %d",
		      ustack_syms_maps_changes(syms, 1, 500),
		      ustack_syms_maps_changes(syms, 1, 1000),
		      ustack_syms_maps_changes(syms, 1, 1100),
		      ustack_syms_maps_changes(syms, 1, 1500),
		      ustack_syms_maps_changes(syms, 1, 2000));

		ustack_syms_set_time(syms, 1500);
		ustack_syms_format(syms, 1, B + off + 2, buf, sizeof(buf));
		if (!i)
			CHECK(!strncmp(buf, "lib_func+0x2 (", 14) &&
			      strstr(buf, "/libsymtest.so)"),
			      "at its time, in the object loaded then: %s", buf);
		else
			CHECK(!strstr(buf, "libsymtest"),
			      "loaded before an exec: not the next image's: %s", buf);
		ustack_syms_set_time(syms, 2500);
		ustack_syms_format(syms, 1, B + off + 2, buf, sizeof(buf));
		CHECK(!strstr(buf, "libsymtest"), "after the unload: %s", buf);
		ustack_syms_set_time(syms, 500);
		ustack_syms_format(syms, 1, B + off + 2, buf, sizeof(buf));
		snprintf(line, sizeof(line), "0x%llx", B + off + 2);
		CHECK(i || !strcmp(buf, line), "before the load, an address: %s", buf);
		ustack_syms_set_time(syms, 0);
		ustack_syms_format(syms, 1, B + off + 2, buf, sizeof(buf));
		CHECK(!strstr(buf, "libsymtest"), "no time: the last maps: %s", buf);
		ustack_syms_set_time(syms, 1500);
		ustack_syms_format(syms, 2, B + off + 2, buf, sizeof(buf));
		CHECK(!strstr(buf, "libsymtest"), "another process: %s", buf);
		ustack_syms_free(syms);
	}

	/*
	 * Maps synthesized at the start (trace-cmd record without a
	 * command): "synth" before the read, "mapped" per object after it.
	 * Cases: 0 the process exits (no last maps), 1 it execs after the
	 * read, 2 it execs between synth and mapped, 3 its last maps have
	 * another file there, 4 they have the same one, 5 closed later.
	 */
	for (i = 0; i < 6; i++) {
		static const char *const what[] = {
			"gone by the end", "exec'd after the read",
			"exec'd during the read", "another file there at the end",
			"the same file at the end", "closed at 400",
		};
		char want[64];

		syms = ustack_syms_alloc();
		loads = ustack_syms_loads(syms);
		if (i == 1)
			ustack_syms_add_exec(syms, 3, 300);
		if (i == 2)
			ustack_syms_add_exec(syms, 3, 105);
		if (i == 3)
			ustack_syms_add_map(syms, 3, B, B + 0x10000, 0, prog);
		if (i == 4) {
			/* the lib's own mappings, as in segs */
			const char *g = segs + 5;
			unsigned long long gs, ge, go;
			int n;

			while (sscanf(g, "%llx-%llx@%llx%n", &gs, &ge, &go, &n) == 3) {
				ustack_syms_add_map(syms, 3, gs, ge, go, lib);
				g += n + (g[n] == ',');
			}
		}
		snprintf(line, sizeof(line),
			 "ustack_map: mapped v=1 pid=3 tid=77 base=0x%llx build_id=- %s path=%s\n",
			 B, segs, lib);
		/* trace-cmd record (thread 77) writes synth and mapped lines */
		CHECK(ustack_loads_add_line(loads, 90, 77, line) == 0,
		      "%s: mapped before any synth line is left", what[i]);
		CHECK(ustack_loads_add_line(loads, 100, 77, "ustack_map: synth v=1 pid=3 tid=77\n") == 1 &&
		      ustack_loads_add_line(loads, 110, 77, line) == 1,
		      "%s: synth, mapped taken", what[i]);
		if (i == 5) {
			snprintf(buf, sizeof(buf), "ustack_map: close v=1 pid=3 tid=3 base=0x%llx", B);
			CHECK(ustack_loads_add_line(loads, 400, 3, buf) == 1, "close after mapped");
		}
		snprintf(want, sizeof(want), "0x%llx", B + off + 2);
		/* before the read: from the recording's start */
		ustack_syms_set_time(syms, 50);
		ustack_syms_format(syms, 3, B + off + 2, buf, sizeof(buf));
		if (i == 2 || i == 3)
			CHECK(!strstr(buf, "libsymtest"), "%s, at 50: not named: %s",
			      what[i], buf);
		else
			CHECK(!strncmp(buf, "lib_func+0x2 (", 14) &&
			      strstr(buf, "/libsymtest.so)"),
			      "%s, at 50: named: %s", what[i], buf);
		/* after the read */
		ustack_syms_set_time(syms, 500);
		ustack_syms_format(syms, 3, B + off + 2, buf, sizeof(buf));
		if (i == 0 || i == 4)
			CHECK(!strncmp(buf, "lib_func+0x2 (", 14) &&
			      strstr(buf, "/libsymtest.so)"),
			      "%s, at 500: named: %s", what[i], buf);
		else if (i == 3)
			CHECK(!strstr(buf, "libsymtest"), "%s, at 500: not lib_func: %s",
			      what[i], buf);
		else
			CHECK(!strcmp(buf, want), "%s, at 500: an address: %s",
			      what[i], buf);
		ustack_syms_free(syms);
	}

	/* many loads (the array grows), three places reused in turn */
	loads = ustack_loads_alloc();
	for (i = 0; i < 100; i++) {
		unsigned long long b = 0x100000ULL * (i % 3);

		snprintf(line, sizeof(line),
			 "ustack_map: open v=1 pid=7 tid=7 base=0x%llx build_id=- segs=%llx-%llx@0 path=/l%d.so",
			 b, b, b + 0x2000, i);
		snprintf(buf, sizeof(buf), "ustack_map: close v=1 pid=7 tid=7 base=0x%llx", b);
		if (ustack_loads_add_line(loads, 10 * i, 7, line) != 1 ||
		    ustack_loads_add_line(loads, 10 * i + 5, 7, buf) != 1)
			break;
	}
	{
		const struct ustack_load *l;
		int it = 0, n = 0, open = 0;

		while ((l = ustack_loads_next(loads, 7, 0x100010, &it))) {
			n++;
			open += l->to == ULLONG_MAX;
		}
		CHECK(i == 100 && n == 33 && !open,
		      "100 loads at 3 places: %d taken, %d hold 0x100010 (want 33), %d never closed",
		      i, n, open);
	}
	ustack_loads_free(loads);
}

/*
 * mmap:exec_mapping records (ustack_loads_add_mapping(), from execs.c):
 * the kernel's one executable segment of an object names its frames from
 * the record's time, a later mapping over it ends it, and one made by an
 * exec (exec=1) is the image after that exec's event
 */
static void test_exec_mappings(const char *dir)
{
	char lib[PATH_MAX], prog[PATH_MAX], segs[512], buf[512];
	const unsigned long long B = 0x7f0000000000ULL;
	struct ustack_seg x = { 0, 0, 0 };
	struct ustack_syms *syms;
	struct ustack_loads *loads;
	unsigned long long off, gs, ge, go;
	const char *g;
	int n, i;

	snprintf(lib, sizeof(lib), "%s/libsymtest.so", dir);
	snprintf(prog, sizeof(prog), "%s/symtest-pie", dir);
	off = sym_value(lib, "lib_func");
	segs_of(lib, B, segs, sizeof(segs));
	/* the segment holding lib_func: the executable one */
	for (g = segs + 5; sscanf(g, "%llx-%llx@%llx%n", &gs, &ge, &go, &n) == 3;
	     g += n + (g[n] == ',')) {
		if (B + off >= gs && B + off < ge) {
			x.start = gs;
			x.end = ge;
			x.pgoff = go;
		}
	}
	CHECK(off && x.end, "lib_func and its segment in %s (%s)", lib, segs);

	for (i = 0; i < 2; i++) {
		struct ustack_seg bad = x;

		syms = ustack_syms_alloc();
		/* what the maps read at the end have there: another file */
		ustack_syms_add_map(syms, 1, B, B + 0x100000, 0, prog);
		loads = ustack_syms_loads(syms);
		if (i)
			ustack_syms_add_exec(syms, 1, 1200);
		bad.end = bad.start;
		CHECK(ustack_loads_add_mapping(loads, 1000, 1, false, &x, "", "//enomem") == 0 &&
		      ustack_loads_add_mapping(loads, 1000, 1, false, &x, "", "rel.so") == 0 &&
		      ustack_loads_add_mapping(loads, 1000, 1, false, &bad, "", lib) == 0 &&
		      ustack_loads_add_mapping(loads, 1000, 0, false, &x, "", lib) == 0,
		      "no path, a relative one, an empty range, no pid: left");
		/* with i, made by the exec at 1200: the image after it */
		CHECK(ustack_loads_add_mapping(loads, 1000, 1, i, &x, "", lib) == 1 &&
		      ustack_loads_add_mapping(loads, 2000, 1, false, &x, "", prog) == 1,
		      "the library mapped at 1000, the program over it at 2000");
		ustack_syms_set_time(syms, 1500);
		ustack_syms_format(syms, 1, B + off + 2, buf, sizeof(buf));
		CHECK(!strncmp(buf, "lib_func+0x2 (", 14) && strstr(buf, "/libsymtest.so)"),
		      "%s: named in its one executable mapping: %s",
		      i ? "exec=1" : "exec=0", buf);
		ustack_syms_set_time(syms, 2500);
		ustack_syms_format(syms, 1, B + off + 2, buf, sizeof(buf));
		CHECK(!strstr(buf, "libsymtest"), "mapped over at 2000: %s", buf);
		ustack_syms_set_time(syms, 1100);
		ustack_syms_format(syms, 1, B + off + 2, buf, sizeof(buf));
		CHECK(i ? !strstr(buf, "libsymtest") : strstr(buf, "lib_func+0x2") != NULL,
		      "%s: %s", i ? "before the exec that made it: not named in it" :
		      "after its mapping", buf);
		ustack_syms_format(syms, 2, B + off + 2, buf, sizeof(buf));
		CHECK(!strstr(buf, "libsymtest"), "another process: %s", buf);
		ustack_syms_free(syms);
	}
}

int main(int argc, char **argv)
{
	unsigned long long pie, nopie;

	if (argc < 8) {
		fprintf(stderr, "usage: %s DIR PIE_VADDR NOPIE_VADDR CXX_VADDR INL_ADDR INL_LINE CALL_LINE\n",
			argv[0]);
		return 2;
	}
	pie = strtoull(argv[2], NULL, 16);
	nopie = strtoull(argv[3], NULL, 16);

	begin("PIE program and shared library, live maps and synthetic maps");
	test_live(argv[1], "symtest-pie", "/symtest-pie", pie, false);
	end();
	begin("fixed-address (ET_EXEC) program");
	test_live(argv[1], "symtest-nopie", "/symtest-nopie", nopie, false);
	end();
	begin("stripped program falls back to file+offset");
	test_live(argv[1], "symtest-stripped", "/symtest-stripped", pie, true);
	end();
	begin("unreadable or missing ELF file");
	test_unreadable(argv[1]);
	end();
	begin("binaries found through a search directory");
	test_search_dir(argv[1]);
	end();
	begin("without build IDs: the segments must fit the mappings");
	test_layout(argv[1]);
	end();
	begin("build IDs: the right build only, a mark for another");
	test_build_id(argv[1], nopie);
	end();
	begin("a map function without the lowest mapping: the library walks");
	test_map_func_walk(argv[1]);
	end();
	begin("frames from before an exec: never in the last image's maps");
	test_before_exec(argv[1], nopie);
	end();
	begin("objects loaded and unloaded while traced: named at their time");
	test_loads(argv[1]);
	end();
	begin("mmap:exec_mapping records: named at their time, an exec's in its image");
	test_exec_mappings(argv[1]);
	end();
	begin("C++ names demangled");
	test_demangle(argv[1], strtoull(argv[4], NULL, 16));
	end();
	begin("source lines and inlined frames");
	test_lines(argv[1], strtoull(argv[4], NULL, 16),
		   strtoull(argv[5], NULL, 16), atoi(argv[6]), atoi(argv[7]));
	end();
	begin("kernel symbols from kallsyms");
	test_kernel(argv[1]);
	end();
	return failures ? 1 : 0;
}
