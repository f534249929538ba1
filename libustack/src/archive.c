// SPDX-License-Identifier: LGPL-2.1
/*
 * Archives of the ELF files a trace's frames are in, by build ID, so that
 * the trace names its frames on another machine or after the files were
 * replaced (an upgrade, a rebuild).  The layout is perf's build-ID cache
 * (what perf buildid-cache and perf archive write):
 *
 *	DIR/PATH/BUILD_ID/elf		the file mapped as PATH
 *	DIR/PATH/BUILD_ID/debug		its separate debug file, if one named
 *					the frames
 *	DIR/.build-id/xx/rest		-> ../../PATH/BUILD_ID
 *
 * so an archive can be read by perf as a --buildid-dir, and a perf cache
 * ($HOME/.debug) by every reader here (syms.c's try_build_ids()).  Names
 * and build IDs come from the trace, which is untrusted: a name is used as
 * a path below DIR only when it is absolute with no empty, "." or ".."
 * component, else the file goes under "[unnamed]"; a build ID only when
 * it is hex.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "ustack-local.h"

#define UNNAMED		"[unnamed]"

struct archive {
	const char		*dir;
	ustack_archive_func	func;
	void			*data;
	int			missing;	/* not archived */
	int			error;		/* errno of a failed write */
	int			stop;		/* func's return */
};

/* The name as a path below the archive: PATH without its first '/' */
static const char *safe_name(const char *name)
{
	const char *p, *e;

	if (!strcmp(name, "[vdso]"))
		return name;
	if (name[0] != '/' || strlen(name) > PATH_MAX / 2)
		return UNNAMED;
	for (p = name + 1; *p; p = e + (*e == '/')) {
		e = strchrnul(p, '/');
		if (e == p || (e - p == 1 && p[0] == '.') ||
		    (e - p == 2 && p[0] == '.' && p[1] == '.'))
			return UNNAMED;
	}
	return name + 1;
}

/* mkdir -p of the directories in path, up to its last '/' */
static int make_parents(char *path)
{
	char *p;

	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* Whether path is an ELF file of build_id */
static bool has_build(const char *path, const char *build_id)
{
	static const char hexdigits[] = "0123456789abcdef";
	const unsigned char *bits;
	bool same = false;
	ssize_t len;
	Elf *elf;
	int fd, i;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&bits) : -1;
	if (len > 0 && (size_t)len * 2 == strlen(build_id)) {
		same = true;
		for (i = 0; i < len && same; i++)
			same = build_id[2 * i] == hexdigits[bits[i] >> 4] &&
			       build_id[2 * i + 1] == hexdigits[bits[i] & 0xf];
	}
	elf_end(elf);
	close(fd);
	return same;
}

/* Write size bytes at data to path, through a temporary file beside it */
static int write_file(const char *path, const void *data, size_t size)
{
	char tmp[PATH_MAX + 16];
	size_t done = 0;
	ssize_t n;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	while (done < size) {
		n = write(fd, (const char *)data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		done += n;
	}
	if (fchmod(fd, 0644) < 0 || close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	n = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = n ? n : EIO;
	return -1;
}

/* Copy the whole ELF image elf (as it was read) to path */
static int write_elf(const char *path, Elf *elf)
{
	size_t size;
	char *raw;

	raw = elf ? elf_rawfile(elf, &size) : NULL;
	if (!raw) {
		errno = EIO;
		return -1;
	}
	return write_file(path, raw, size);
}

/* DIR/.build-id/xx/rest -> ../../PATH/BUILD_ID, unless one is there */
static int link_build_id(const char *dir, const char *rel,
			 const char *build_id)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct stat st;

	if (snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", dir, build_id,
		     build_id + 2) >= (int)sizeof(link) ||
	    snprintf(target, sizeof(target), "../../%s/%s", rel,
		     build_id) >= (int)sizeof(target)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!lstat(link, &st))
		return 0;
	if (make_parents(link) < 0)
		return -1;
	if (symlink(target, link) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* Archive one file of build_id, found and read as mod */
static int archive_one(struct archive *a, const char *name,
		       const char *build_id, Dwfl_Module *mod, bool *added)
{
	const char *rel = safe_name(name);
	char entry[PATH_MAX], path[PATH_MAX + 8];
	Dwarf_Addr bias;
	Elf *elf, *delf;
	Dwarf *dw;

	*added = false;
	if (snprintf(entry, sizeof(entry), "%s/%s/%s", a->dir, rel,
		     build_id) >= (int)sizeof(entry)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/elf", entry);
	if (!has_build(path, build_id)) {
		elf = dwfl_module_getelf(mod, &bias);
		if (make_parents(path) < 0 || write_elf(path, elf) < 0)
			return -1;
		*added = true;
	}
	/* the debug file that names its frames, where it is another file */
	dw = dwfl_module_getdwarf(mod, &bias);
	delf = dw ? dwarf_getelf(dw) : NULL;
	elf = dwfl_module_getelf(mod, &bias);
	snprintf(path, sizeof(path), "%s/debug", entry);
	if (delf && delf != elf && access(path, F_OK)) {
		if (write_elf(path, delf) < 0)
			return -1;
		*added = true;
	}
	return link_build_id(a->dir, rel, build_id);
}

static int archive_file(void *data, const char *name, const char *build_id,
			Dwfl_Module *mod, const char *path)
{
	enum ustack_archive_result res;
	struct archive *a = data;
	bool added;

	if (!build_id || !ustack_build_id_valid(build_id)) {
		res = USTACK_ARCHIVE_NO_BUILD_ID;
		a->missing++;
	} else if (!mod) {
		res = USTACK_ARCHIVE_NOT_FOUND;
		a->missing++;
	} else if (archive_one(a, name, build_id, mod, &added) < 0) {
		a->error = errno;
		ustack_err("archive %s: %s (%s): %s", a->dir, name, build_id,
			   strerror(errno));
		return -1;
	} else {
		res = added ? USTACK_ARCHIVE_ADDED : USTACK_ARCHIVE_PRESENT;
	}
	if (a->func) {
		a->stop = a->func(a->data, name, build_id, mod ? path : NULL,
				  res);
		if (a->stop)
			return 1;
	}
	return 0;
}

/**
 * ustack_syms_archive - copy the files that named frames into an archive
 * @syms: the symbols, after the frames to archive were resolved
 * @dir: the archive: a directory, made where missing
 * @func: called once for each file, or NULL
 * @data: passed to @func
 *
 * Copies every ELF file looked up for a frame of @syms (each file with
 * frames, as perf archive takes each with hits), by the build ID the maps
 * recorded for it, into @dir in the layout of perf's build-ID cache, with
 * its separate debug file when one was read.  Files already there are
 * kept.  The readers look in the build-ID directories of the search
 * directories, of the trace's directory and of $HOME/.debug, so @dir
 * should be one of those where the trace is read.  @func is told for each
 * file whether it was added, already there, recorded without a build ID
 * or not found; it returns non-zero to stop.
 *
 * Returns the number of files not archived (without a build ID, or not
 * found here), or -1 with errno set (EINVAL for a bad argument, or why a
 * write failed: what was written before stays, complete).
 */
int ustack_syms_archive(struct ustack_syms *syms, const char *dir,
			ustack_archive_func func, void *data)
{
	struct archive a = { .dir = dir, .func = func, .data = data };
	char probe[PATH_MAX];

	if (!syms || !dir || !*dir) {
		errno = EINVAL;
		return -1;
	}
	if (snprintf(probe, sizeof(probe), "%s/", dir) >= (int)sizeof(probe)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (make_parents(probe) < 0)
		return -1;
	if (ustack_syms_for_each_file(syms, archive_file, &a) < 0) {
		errno = a.error;
		return -1;
	}
	return a.missing;
}
