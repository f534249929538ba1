/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The registrar's second job: tell a trace when an object is mapped and
 * unmapped (maps.c).
 */
#ifndef SFREG_MAPS_H
#define SFREG_MAPS_H

#include <stdint.h>

#define SFREG_MAX_LOADS		16	/* PT_LOAD segments reported */

/* One PT_LOAD segment of an object, as the loader maps it */
struct sfreg_load {
	uintptr_t vaddr;	/* p_vaddr */
	uintptr_t memsz;	/* p_memsz */
	uintptr_t offset;	/* p_offset */
};

int sfreg_maps_wanted(void);
void sfreg_maps_open(const char *path, uintptr_t base,
		     const struct sfreg_load *loads, int nr,
		     const unsigned char *build_id, unsigned int build_id_len);
void sfreg_maps_close(uintptr_t base);
void sfreg_maps_exiting(void);

#endif
