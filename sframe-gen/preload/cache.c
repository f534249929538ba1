// SPDX-License-Identifier: LGPL-2.1
/*
 * The cache of generated SFrame sections (cache.h).  Files are written
 * whole under a temporary name and renamed, so a reader sees an old file
 * or a new one, never half of one; a torn or damaged file fails its
 * checksum.  The directory must belong to us and be writable by no one
 * else, and so must each file: a foreign file is never mapped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"

#define SFCACHE_MAGIC		"SFRCACHE"
#define SFCACHE_VERSION		1
#define SFCACHE_MAX_SIZE	(256UL << 20)

struct sfcache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	struct sfcache_key key;
	uint64_t sec_len;
	uint64_t sum;
};

/* Section data starts here: 8-byte aligned, as SFrame wants */
#define SFCACHE_SEC_OFF	((sizeof(struct sfcache_hdr) + 7) & ~7UL)

void sfcache_key_init(struct sfcache_key *key, int fd, const uint8_t *id,
		      unsigned int id_len, uint64_t text_start,
		      uint64_t text_end)
{
	struct stat st;

	memset(key, 0, sizeof(*key));
	key->text_start = text_start;
	key->text_end = text_end;
	if (id_len && id_len <= SFCACHE_BUILD_ID_MAX) {
		memcpy(key->build_id, id, id_len);
		key->build_id_len = id_len;
	} else if (!fstat(fd, &st)) {
		key->dev = st.st_dev;
		key->ino = st.st_ino;
		key->size = st.st_size;
		key->mtime_ns = st.st_mtim.tv_sec * 1000000000ULL +
				st.st_mtim.tv_nsec;
	}
}

/*
 * A 64-bit checksum against damage (not an adversary: the files are the
 * user's own).  Four independent lanes of add-multiply, 8 bytes each, so
 * that a warm start pays little for it: about 2 instructions per 8 bytes.
 */
uint64_t sfcache_sum(const void *p, size_t len)
{
	static const uint64_t k = 0x9e3779b97f4a7c15ULL;
	const unsigned char *b = p;
	uint64_t h[4] = { k, k ^ 1, k ^ 2, k ^ len }, w, r;
	size_t i;
	int j;

	for (i = 0; i + 32 <= len; i += 32) {
		for (j = 0; j < 4; j++) {
			memcpy(&w, b + i + 8 * j, 8);
			h[j] = (h[j] + w) * 0x100000001b3ULL;
		}
	}
	for (; i < len; i++)
		h[0] = (h[0] + b[i]) * 0x100000001b3ULL;
	r = len;
	for (j = 0; j < 4; j++) {
		r = (r ^ h[j] ^ (h[j] >> 31)) * k;
		r ^= r >> 29;
	}
	return r;
}

/* The cache directory, made if missing; NULL when there is none to use */
static const char *cache_dir(void)
{
	static char dir[PATH_MAX];
	static int done;
	const char *env, *base;
	struct stat st;
	int n;

	if (done)
		return dir[0] ? dir : NULL;
	done = 1;
	env = getenv("SFREG_CACHE_DIR");
	if (env && env[0]) {
		n = snprintf(dir, sizeof(dir), "%s", env);
	} else if ((base = getenv("XDG_CACHE_HOME")) && base[0] == '/') {
		n = snprintf(dir, sizeof(dir), "%s/sframe", base);
	} else if ((base = getenv("HOME")) && base[0] == '/') {
		n = snprintf(dir, sizeof(dir), "%s/.cache/sframe", base);
	} else {
		n = -1;
	}
	if (n < 0 || n >= (int)sizeof(dir) - 80)
		goto none;
	/* the parent of a default path may be missing too */
	if (!env || !env[0]) {
		char *slash = strrchr(dir, '/');

		*slash = 0;
		mkdir(dir, 0700);
		*slash = '/';
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		goto none;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022))
		goto none;
	return dir;
none:
	dir[0] = 0;
	return NULL;
}

static int cache_path(const struct sfcache_key *key, char *path, size_t size)
{
	const char *dir = cache_dir();
	char name[2 * SFCACHE_BUILD_ID_MAX + 1];
	unsigned int i;
	int n;

	if (!dir) {
		errno = ENOENT;
		return -1;
	}
	if (key->build_id_len) {
		for (i = 0; i < key->build_id_len; i++)
			sprintf(name + 2 * i, "%02x", key->build_id[i]);
		n = snprintf(path, size, "%s/%s.sframe", dir, name);
	} else {
		n = snprintf(path, size, "%s/f-%llx-%llx-%llx-%llx.sframe", dir,
			     (unsigned long long)key->dev,
			     (unsigned long long)key->ino,
			     (unsigned long long)key->size,
			     (unsigned long long)key->mtime_ns);
	}
	if (n < 0 || n >= (int)size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Map the cached section of @key, private and writable (the caller
 * relocates it).  NULL when there is none or it cannot be trusted.
 */
void *sfcache_map(const struct sfcache_key *key, size_t *map_len,
		  size_t *sec_off, size_t *sec_len)
{
	const struct sfcache_hdr *h;
	char path[PATH_MAX];
	struct stat st;
	void *map;
	int fd;

	if (cache_path(key, path, sizeof(path)))
		return NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022) ||
	    st.st_size <= (off_t)SFCACHE_SEC_OFF ||
	    (uint64_t)st.st_size > SFCACHE_MAX_SIZE) {
		close(fd);
		return NULL;
	}
	map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	h = map;
	if (memcmp(h->magic, SFCACHE_MAGIC, 8) || h->version != SFCACHE_VERSION ||
	    h->hdr_size != SFCACHE_SEC_OFF ||
	    memcmp(&h->key, key, sizeof(*key)) ||
	    h->sec_len != (uint64_t)st.st_size - SFCACHE_SEC_OFF ||
	    h->sum != sfcache_sum((char *)map + SFCACHE_SEC_OFF, h->sec_len)) {
		munmap(map, st.st_size);
		return NULL;
	}
	*map_len = st.st_size;
	*sec_off = SFCACHE_SEC_OFF;
	*sec_len = h->sec_len;
	return map;
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *b = p;
	ssize_t n;

	while (len) {
		n = write(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= n;
	}
	return 0;
}

/* Store @len bytes of section for @key: whole, or not at all */
int sfcache_store(const struct sfcache_key *key, const void *sec, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16];
	char pad[SFCACHE_SEC_OFF - sizeof(struct sfcache_hdr) + 1];
	struct sfcache_hdr h;
	int fd, saved;

	if (cache_path(key, path, sizeof(path)))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SFCACHE_MAGIC, 8);
	h.version = SFCACHE_VERSION;
	h.hdr_size = SFCACHE_SEC_OFF;
	h.key = *key;
	h.sec_len = len;
	h.sum = sfcache_sum(sec, len);
	memset(pad, 0, sizeof(pad));
	if (write_all(fd, &h, sizeof(h)) ||
	    write_all(fd, pad, SFCACHE_SEC_OFF - sizeof(h)) ||
	    write_all(fd, sec, len)) {
		saved = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) || rename(tmp, path)) {
		saved = errno;
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	errno = saved;
	return -1;
}
