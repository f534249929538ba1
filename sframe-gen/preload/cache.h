/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The cache of generated SFrame sections: one file per object, named by
 * its build ID (by device, inode, size and mtime when it has none).  A
 * file is used only when its header names the same object and its
 * checksum holds; anything else is regenerated.
 */
#ifndef SFREG_CACHE_H
#define SFREG_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define SFCACHE_BUILD_ID_MAX	64

/* What a cache file must match: the object it was made from */
struct sfcache_key {
	uint8_t build_id[SFCACHE_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint32_t pad;
	uint64_t dev, ino, size, mtime_ns;	/* zero with a build ID */
	uint64_t text_start, text_end;
};

void sfcache_key_init(struct sfcache_key *key, int fd, const uint8_t *id,
		      unsigned int id_len, uint64_t text_start,
		      uint64_t text_end);
void *sfcache_map(const struct sfcache_key *key, size_t *map_len,
		  size_t *sec_off, size_t *sec_len);
int sfcache_store(const struct sfcache_key *key, const void *sec, size_t len);
uint64_t sfcache_sum(const void *p, size_t len);

#endif
