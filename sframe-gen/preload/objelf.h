/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What registration needs of an object, read from its file's headers
 * (objelf.c): the registrar's and the feeder's (sframe-feed) one reading.
 */
#ifndef SFREG_OBJELF_H
#define SFREG_OBJELF_H

#include <stdint.h>

#include "cache.h"
#include "maps.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME		0x6474e554
#endif

/* What registration needs of an object, read from its file's headers */
struct sfreg_elf {
	uintptr_t text_start, text_end;		/* vaddrs, executable PT_LOADs */
	uintptr_t sframe, sframe_len;		/* its own PT_GNU_SFRAME */
	unsigned char build_id[SFCACHE_BUILD_ID_MAX];
	unsigned int build_id_len;
	struct sfreg_load loads[SFREG_MAX_LOADS];	/* in file order */
	int nr_loads;
};

/* Read @fd's ELF and program headers and build ID note: 0, or -1 */
int sfreg_read_elf(int fd, struct sfreg_elf *e);

#endif
