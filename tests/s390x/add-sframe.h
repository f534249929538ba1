/* SPDX-License-Identifier: GPL-2.0 */
/*
 * add_sframe(): give the kernel an SFrame section that sframe-gen wrote
 * for this (static) program, with prctl(PR_ADD_SFRAME): the s390x
 * workloads bcwork.c and bcmix.c
 */
#ifndef S390X_ADD_SFRAME_H
#define S390X_ADD_SFRAME_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#ifndef PR_ADD_SFRAME
#define PR_ADD_SFRAME	82
#endif

/* the executable PT_LOAD range of the program (the first object) */
static int text_range(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long *r = data;
	int i;

	(void)size;
	r[2] = info->dlpi_addr;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + ph->p_vaddr < r[0])
			r[0] = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > r[1])
			r[1] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

/*
 * Register @path, an SFrame version 3 section sframe-gen wrote for this
 * program.  Its function starts are ELF addresses, as if the section lay
 * at 0 (no FUNC_START_PCREL): each becomes relative to where it lies.
 */
static int add_sframe(const char *path)
{
	unsigned long r[3] = { ~0UL, 0, 0 };
	uint32_t nfdes, fdes_off, i;
	unsigned char *sec, *p;
	struct stat st;
	int64_t start;
	size_t hdr;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size < 28) {
		perror(path);
		return -1;
	}
	sec = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (sec == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	dl_iterate_phdr(text_range, r);
	hdr = 28 + sec[7];
	memcpy(&nfdes, sec + 8, 4);
	memcpy(&fdes_off, sec + 20, 4);
	/*
	 * Only the entries that lie in the file are relocated: a corrupt
	 * section (tests/s390x/run.sh makes some) goes to the kernel as it
	 * is, the kernel is the judge
	 */
	for (i = 0; i < nfdes; i++) {
		p = sec + hdr + fdes_off + 16 * i;
		if (hdr + fdes_off + 16 * (uint64_t)(i + 1) > (uint64_t)st.st_size)
			break;
		memcpy(&start, p, 8);
		start += (int64_t)r[2] - (int64_t)(uintptr_t)sec;
		memcpy(p, &start, 8);
	}
	if (mprotect(sec, st.st_size, PROT_READ) ||
	    prctl(PR_ADD_SFRAME, (unsigned long)sec, (unsigned long)sec + st.st_size,
		  r[0], r[1])) {
		perror("prctl(PR_ADD_SFRAME)");
		return -1;
	}
	fprintf(stderr, "sframe: %s registered, %u FDEs, text %#lx-%#lx\n",
		path, nfdes, r[0], r[1]);
	return 0;
}

#endif /* S390X_ADD_SFRAME_H */
