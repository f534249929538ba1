// SPDX-License-Identifier: GPL-2.0
/*
 * sfgen_check() and sfgen_relocate() on broken sections: a section
 * generated from a real object (argv[1]) is copied and broken one way at
 * a time; each must be refused, by the check that names the breakage.
 * Then random byte flips, which must never crash (run under ASan).
 *
 *   test-check OBJECT [FLIPS]
 *
 * Prints PASS:/FAIL: lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sframe-gen.h"

#define HDR		28
#define FDI		16

static int failed;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf(ok ? "PASS: " : "FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		failed = 1;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static const uint8_t *orig;
static size_t orig_len;
static struct sfgen_stats st;

/* Offsets in the generated section (version 3, no auxiliary header) */
static uint32_t nfdes(void) { return get32(orig + 8); }
static size_t fres_off(void) { return HDR + get32(orig + 24); }
static size_t attr_of(uint32_t i) { return fres_off() + get32(orig + HDR + i * FDI + 12); }
static unsigned int fres_of(uint32_t i) { return orig[attr_of(i)] | orig[attr_of(i) + 1] << 8; }

/* The first FDE with at least @n FREs whose FREs have 1-byte starts */
static uint32_t fde_with(unsigned int n)
{
	for (uint32_t i = 0; i < nfdes(); i++)
		if (fres_of(i) >= n && (orig[attr_of(i) + 2] & 0xf) == 0)
			return i;
	return UINT32_MAX;
}

/*
 * Copy the section, let @breakit change the copy, and require the check
 * to fail with @want in its reason (and errno @err).
 */
static void refused(const char *name, void (*breakit)(uint8_t *, size_t *),
		    const char *want, int err)
{
	uint8_t *sec = malloc(orig_len);
	size_t len = orig_len;
	const char *why = NULL;
	int ret;

	memcpy(sec, orig, len);
	breakit(sec, &len);
	errno = 0;
	ret = sfgen_check(sec, len, 0, st.text_start, st.text_end, &why);
	result(ret == -1 && errno == err && why && strstr(why, want),
	       "%s refused: ret %d errno %d why \"%s\" (want \"%s\")", name, ret, errno,
	       why ? why : "", want);
	free(sec);
}

static void b_magic(uint8_t *s, size_t *l) { (void)l; s[0] ^= 1; }
static void b_version(uint8_t *s, size_t *l) { (void)l; s[2] = 1; }
static void b_unsorted_flag(uint8_t *s, size_t *l) { (void)l; s[3] &= ~1; }
static void b_unknown_flag(uint8_t *s, size_t *l) { (void)l; s[3] |= 2; }
static void b_abi(uint8_t *s, size_t *l) { (void)l; s[4] = 1; }
static void b_ra(uint8_t *s, size_t *l) { (void)l; s[6] = 0; }
static void b_nofde(uint8_t *s, size_t *l) { (void)l; put32(s + 8, 0); }
static void b_short(uint8_t *s, size_t *l) { (void)s; *l = 20; }
static void b_frelen(uint8_t *s, size_t *l) { (void)l; put32(s + 16, get32(s + 16) + 1); }
static void b_truncated(uint8_t *s, size_t *l) { (void)s; *l -= 1; }
static void b_numfdes(uint8_t *s, size_t *l)
{
	(void)l;
	/* more index entries than fit before the FRE sub-section's end */
	put32(s + 8, get32(s + 8) + (uint32_t)(*l / FDI));
}

static void b_swap(uint8_t *s, size_t *l)
{
	uint8_t tmp[FDI];

	(void)l;
	memcpy(tmp, s + HDR, FDI);
	memcpy(s + HDR, s + HDR + FDI, FDI);
	memcpy(s + HDR + FDI, tmp, FDI);
}

static void b_attr(uint8_t *s, size_t *l)
{
	(void)l;
	put32(s + HDR + 12, get32(s + 16) - 2);	/* attributes straddle the end */
}

/* the last FDE lists one FRE more than there are bytes for */
static void b_fre_past_end(uint8_t *s, size_t *l)
{
	uint32_t last = nfdes() - 1;
	size_t a = attr_of(last);

	(void)l;
	put16(s + a, fres_of(last) + 1);
	put32(s + 12, get32(s + 12) + 1);
}

static void b_fre_count(uint8_t *s, size_t *l)
{
	(void)l;
	put32(s + 12, get32(s + 12) - 1);
}

/* FDEs listing FREs over and over: work beyond the section's size */
static void b_fre_count_huge(uint8_t *s, size_t *l)
{
	(void)l;
	put32(s + 12, 0xffffffff);
}

static void b_fre_type(uint8_t *s, size_t *l)
{
	(void)l;
	s[attr_of(0) + 2] = (s[attr_of(0) + 2] & 0xf0) | 3;
}

/* first FRE's info byte of FDE @i (1-byte starts): start, then info */
static size_t fre1_info(uint32_t i) { return attr_of(i) + 5 + 1; }

static void b_fre_order(uint8_t *s, size_t *l)
{
	uint32_t i = fde_with(2);
	size_t first = attr_of(i) + 5;
	unsigned int n = (s[first + 1] >> 1) & 0xf, sz = 1u << ((s[first + 1] >> 5) & 3);

	(void)l;
	/* second FRE's start := first's */
	s[first + 2 + n * sz] = s[first];
}

static void b_fre_beyond(uint8_t *s, size_t *l)
{
	uint32_t i = fde_with(2);
	size_t first = attr_of(i) + 5;
	unsigned int n = (s[first + 1] >> 1) & 0xf, sz = 1u << ((s[first + 1] >> 5) & 3);

	(void)l;
	/* second FRE starts past the function: its size shrinks below it */
	put32(s + HDR + i * FDI + 8, s[first + 2 + n * sz]);
}

static void b_fre_count3(uint8_t *s, size_t *l)
{
	(void)l;
	s[fre1_info(0)] = (s[fre1_info(0)] & ~0x1e) | (3 << 1);
}

static void b_fre_mangled(uint8_t *s, size_t *l)
{
	(void)l;
	s[fre1_info(0)] |= 0x80;
}

static void b_fre_size8(uint8_t *s, size_t *l)
{
	(void)l;
	s[fre1_info(0)] |= 3 << 5;
}

static void b_text(uint8_t *s, size_t *l)
{
	(void)s;
	(void)l;
	st.text_end -= 1;	/* the last FDE now ends past the text */
}

static int load(const char *path)
{
	void *sec;
	size_t len;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || sfgen_from_fd(fd, 0, &sec, &len, &st)) {
		printf("FAIL: generate from %s: %s (%s)\n", path, st.error ? st.error : "",
		       strerror(errno));
		return -1;
	}
	close(fd);
	orig = sec;
	orig_len = len;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long flips = argc > 2 ? strtoul(argv[2], NULL, 0) : 20000;
	const char *why = NULL;
	uint8_t *sec;
	uint64_t base = 0x555555554000ULL, at = 0x7ffff7a00000ULL, te;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OBJECT [FLIPS]\n", argv[0]);
		return 2;
	}
	if (load(argv[1]))
		return 1;
	if (fde_with(2) == UINT32_MAX) {
		printf("FAIL: %s has no FDE with 2 FREs of 1-byte starts\n", argv[1]);
		return 1;
	}

	ret = sfgen_check(orig, orig_len, 0, st.text_start, st.text_end, &why);
	result(!ret, "the section as generated passes (%s)", why ? why : "ok");

	refused("bad magic", b_magic, "magic", EINVAL);
	refused("version 1", b_version, "version", EOPNOTSUPP);
	refused("SORTED flag cleared", b_unsorted_flag, "not marked sorted", EINVAL);
	refused("FRAME_POINTER flag (not in v3)", b_unknown_flag, "unknown flag", EINVAL);
	refused("other ABI", b_abi, "ABI", EINVAL);
	refused("RA offset 0", b_ra, "RA offset", EINVAL);
	refused("no FDE", b_nofde, "no FDE", EINVAL);
	refused("20 bytes", b_short, "shorter", EINVAL);
	refused("FRE sub-section one byte longer", b_frelen, "FRE sub-section past the end", EINVAL);
	refused("section one byte short", b_truncated, "past the end", EINVAL);
	refused("FDE count past the end", b_numfdes, "FDE sub-section past the end", EINVAL);
	refused("unsorted FDEs", b_swap, "not sorted", EINVAL);
	refused("attributes past the end", b_attr, "attributes outside", EINVAL);
	refused("FRE past the end", b_fre_past_end, "FRE past the FRE sub-section", EINVAL);
	refused("header FRE count short", b_fre_count, "more FREs than the header", EINVAL);
	refused("header FRE count past what fits", b_fre_count_huge, "than fit", EINVAL);
	refused("FRE type 3", b_fre_type, "bad FRE type", EINVAL);
	refused("FRE starts not ascending", b_fre_order, "not ascending", EINVAL);
	refused("FRE start past the function", b_fre_beyond, "not ascending inside", EINVAL);
	refused("3 offsets in an FRE", b_fre_count3, "bad FRE info", EINVAL);
	refused("mangled RA bit", b_fre_mangled, "bad FRE info", EINVAL);
	refused("8-byte offsets", b_fre_size8, "bad FRE info", EINVAL);
	te = st.text_end;
	refused("text range one byte short", b_text, "outside the text", EINVAL);
	st.text_end = te;

	/* relocation: far apart, as a cache file mapped anywhere */
	sec = malloc(orig_len);
	memcpy(sec, orig, orig_len);
	ret = sfgen_relocate(sec, orig_len, (int64_t)(base - at));
	result(!ret, "relocate by B - S = %#llx", (unsigned long long)(base - at));
	ret = sfgen_check(sec, orig_len, at, base + st.text_start, base + st.text_end, &why);
	result(!ret, "relocated section passes at S for the object at B (%s)", why ? why : "ok");
	ret = sfgen_check(sec, orig_len, 0, st.text_start, st.text_end, &why);
	result(ret == -1, "relocated section refused where it was (%s)", why ? why : "passed");
	ret = sfgen_relocate(sec, 10, 1);
	result(ret == -1 && errno == EINVAL, "relocate of a 10-byte section: EINVAL");
	sec[0] ^= 0xff;
	ret = sfgen_relocate(sec, orig_len, 1);
	result(ret == -1 && errno == EINVAL, "relocate with a bad magic: EINVAL");
	free(sec);

	/* random flips: refused or not, never a crash, never unbounded */
	srand(1);
	{
		unsigned long refused_n = 0, i;
		FILE *null = fopen("/dev/null", "w");

		sec = malloc(orig_len);
		for (i = 0; i < flips; i++) {
			size_t len = orig_len;

			memcpy(sec, orig, orig_len);
			for (int k = 0; k < 1 + rand() % 4; k++) {
				/* mostly the header and index, where it matters most */
				size_t at_ = rand() % 2 ? (size_t)rand() % (HDR + 64 * FDI) :
						(size_t)rand() % orig_len;

				if (at_ < orig_len)
					sec[at_] ^= 1u << (rand() % 8);
			}
			if (rand() % 8 == 0)
				len = rand() % orig_len;
			if (sfgen_check(sec, len, 0, st.text_start, st.text_end, &why))
				refused_n++;
			sfgen_dump(null, sec, len, 0);
			sfgen_relocate(sec, len, rand());
		}
		fclose(null);
		free(sec);
		result(refused_n > 0, "%lu random corruptions: %lu refused, no crash", flips,
		       refused_n);
	}
	free((void *)orig);
	return failed;
}
