// SPDX-License-Identifier: GPL-2.0
/*
 * sfmaps: .sframe sections and unmaps that do not touch them (x86-64).
 *
 * The sections are made here, in anonymous memory: each a minimal SFrame
 * version 2 section (header, one FDE, one FRE: CFA = SP + 8) for one page
 * of its own anonymous executable code, registered with
 * prctl(PR_ADD_SFRAME).  The kernel checks their header and FDE table at
 * registration; nothing is unwound through them.  Layout of a set of K
 * sections, one page each, in one reservation:
 *
 *	guard | text 0 .. text K-1 | guard | sframe 0 .. sframe K-1 | guard
 *
 * The text pages are one executable mapping, the rest readable ones.
 *
 *   sfmaps bench K N ITERS FILE
 *	make a set of K sections and register N of them (N may be 0: the
 *	process has none; the mappings are the same whatever N, so that the
 *	unmaps below cost the same but for the sections), then
 *	ITERS times mmap() an anonymous page and munmap() it, between the
 *	instruction-count markers of ID 70 (insn-marker.h), then ITERS times
 *	mmap() a page of FILE and munmap() it, between those of ID 71.
 *	Neither touches a section: each munmap() costs what the kernel's
 *	.sframe hook costs on an unmap that drops nothing, plus the rest.
 *	Checks at the end that the N sections are all still registered.
 *   sfmaps bounds
 *	unmaps next to and over sections of a set of 3, each case on a new
 *	set; a section must go exactly when an unmapped range overlaps its
 *	text or its own bytes: the guards beside them, one section's text or
 *	bytes, a range from a guard into a text page, mremap() and MAP_FIXED
 *	over one.  Then a section whose bytes overlap a registered one's
 *	must be refused with EEXIST (the kernel keeps the sections by their
 *	own range too).  One line per case.
 *
 * Exit 0 when the kernel did what it should, 1 when not, 2 when the case
 * could not be set up.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "insn-marker.h"

#ifndef PR_ADD_SFRAME
#define PR_ADD_SFRAME		82
#define PR_REMOVE_SFRAME	83
#endif

#define INSN_MARKER_MUNMAP_ANON	70
#define INSN_MARKER_MUNMAP_FILE	71

/* sframe-spec: version 2, amd64 */
struct sf_header {
	uint16_t magic;
	uint8_t version, flags, abi, fixed_fp, fixed_ra, auxhdr_len;
	uint32_t num_fdes, num_fres, fre_len, fdes_off, fres_off;
} __attribute__((packed));

struct sf_fde {
	int32_t start;		/* from the section's start (no PCREL flag) */
	uint32_t size, fres_off, fres_num;
	uint8_t info, rep_size;
	uint16_t pad;
} __attribute__((packed));

struct sf_section {
	struct sf_header h;
	struct sf_fde fde;
	uint8_t fre[3];		/* start 0, info: SP-based, 1 offset of 1 byte; 8 */
} __attribute__((packed));

struct set {
	char *base;		/* the reservation */
	size_t len;
	int k;
};

static long page;

static char *text(const struct set *s, int i) { return s->base + (1 + i) * page; }
static char *sfr(const struct set *s, int i) { return s->base + (2 + s->k + i) * page; }
static char *guard_before(const struct set *s) { return s->base; }
static char *guard_after(const struct set *s) { return s->base + (1 + s->k) * page; }

static void fill(struct sf_section *sec, const char *code)
{
	memset(sec, 0, sizeof(*sec));
	sec->h.magic = 0xdee2;
	sec->h.version = 2;
	sec->h.flags = 1;		/* FDEs sorted */
	sec->h.abi = 3;			/* amd64, little endian */
	sec->h.fixed_ra = (uint8_t)-8;
	sec->h.num_fdes = 1;
	sec->h.num_fres = 1;
	sec->h.fre_len = sizeof(sec->fre);
	sec->h.fres_off = sizeof(sec->fde);
	sec->fde.start = (int32_t)(code - (const char *)sec);
	sec->fde.size = page;
	sec->fde.fres_num = 1;
	sec->fre[1] = 1 | 1 << 1;
	sec->fre[2] = 8;
}

static int add(const struct set *s, int i)
{
	return prctl(PR_ADD_SFRAME, (unsigned long)sfr(s, i),
		     (unsigned long)sfr(s, i) + page, (unsigned long)text(s, i),
		     (unsigned long)text(s, i) + page);
}

/* 1: the kernel still has section @i (and it is left removed) */
static int has(const struct set *s, int i)
{
	return !prctl(PR_REMOVE_SFRAME, (unsigned long)sfr(s, i), 0, 0, 0);
}

/* A set of @k sections, the first @nreg registered; 0 or -1 with a message */
static int make_set(struct set *s, int k, int nreg)
{
	int i;

	s->k = k;
	s->len = (3 + 2 * k) * page;
	s->base = mmap(NULL, s->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->base == MAP_FAILED)
		return perror("mmap"), -1;
	for (i = 0; i < k; i++)
		fill((struct sf_section *)sfr(s, i), text(s, i));
	if (mprotect(s->base, s->len, PROT_READ) ||
	    (k && mprotect(text(s, 0), k * page, PROT_READ | PROT_EXEC)))
		return perror("mprotect"), -1;
	for (i = 0; i < nreg; i++)
		if (add(s, i))
			return perror("PR_ADD_SFRAME"), -1;
	return 0;
}

static void drop_set(struct set *s)
{
	int i;

	for (i = 0; i < s->k; i++)
		has(s, i);
	munmap(s->base, s->len);
}

static int bench(int k, int n, long iters, const char *file)
{
	struct set s;
	long i;
	void *p;
	int fd = open(file, O_RDONLY), bad = 0;

	if (fd < 0)
		return perror(file), 2;
	if (n > k)
		return fprintf(stderr, "more sections registered than made\n"), 2;
	if (make_set(&s, k, n))
		return 2;
	/* one round first: page tables, slab caches */
	for (i = 0; i < 2; i++) {
		p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || munmap(p, page))
			return perror("mmap"), 2;
		p = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED || munmap(p, page))
			return perror("mmap file"), 2;
	}
	INSN_MARK_START(INSN_MARKER_MUNMAP_ANON);
	for (i = 0; i < iters; i++) {
		p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		munmap(p, page);
	}
	INSN_MARK_END(INSN_MARKER_MUNMAP_ANON);
	INSN_MARK_START(INSN_MARKER_MUNMAP_FILE);
	for (i = 0; i < iters; i++) {
		p = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);
		munmap(p, page);
	}
	INSN_MARK_END(INSN_MARKER_MUNMAP_FILE);
	for (i = 0; i < n; i++)
		bad += !has(&s, i);
	if (bad) {
		printf("wrong: %d of %d sections gone after unrelated unmaps\n", bad, n);
		return 1;
	}
	printf("ok: %d sections, %ld anonymous and %ld file mmap+munmap\n", n, iters, iters);
	return 0;
}

static int failed;

/* one case: @want[i], whether section i must still be there */
static void verdict(const char *what, const struct set *s, const int *want)
{
	char got[16];
	int i, ok = 1;

	for (i = 0; i < s->k; i++) {
		got[i] = has(s, i) ? 'k' : '-';
		ok &= (got[i] == 'k') == want[i];
	}
	got[i] = 0;
	printf("%s: %s (sections kept: %s)\n", ok ? "ok" : "wrong", what, got);
	failed |= !ok;
}

enum { UNMAP, MREMAP, FIXED };

/* on a new set of 3: @how the @n pages at @at, then which are left */
static int one(const char *what, int how, int at_guard, int idx, int n,
	       int k0, int k1, int k2)
{
	int want[3] = { k0, k1, k2 };
	struct set s;
	char *at, *p;

	if (make_set(&s, 3, 3))
		return 2;
	switch (at_guard) {
	case 1: at = guard_before(&s); break;
	case 2: at = guard_after(&s); break;
	case 3: at = sfr(&s, idx); break;
	default: at = text(&s, idx); break;
	}
	if (how == UNMAP && munmap(at, n * page))
		return perror("munmap"), 2;
	if (how == MREMAP) {
		p = mmap(NULL, n * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED ||
		    mremap(at, n * page, n * page, MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED)
			return perror("mremap"), 2;
		munmap(p, n * page);
	}
	if (how == FIXED &&
	    mmap(at, n * page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return perror("mmap"), 2;
	verdict(what, &s, want);
	drop_set(&s);
	return 0;
}

static int bounds(void)
{
	struct set s;
	char *half;
	int rc = 0;

	rc |= one("the guard page below the first text page unmapped", UNMAP, 1, 0, 1, 1, 1, 1);
	rc |= one("the guard page after the last text page unmapped", UNMAP, 2, 0, 1, 1, 1, 1);
	rc |= one("the middle section's text unmapped", UNMAP, 0, 1, 1, 1, 0, 1);
	rc |= one("the first section's text unmapped", UNMAP, 0, 0, 1, 0, 1, 1);
	rc |= one("the last section's text unmapped", UNMAP, 0, 2, 1, 1, 1, 0);
	rc |= one("the middle section's bytes unmapped", UNMAP, 3, 1, 1, 1, 0, 1);
	rc |= one("the last section's bytes unmapped", UNMAP, 3, 2, 1, 1, 1, 0);
	rc |= one("the first two sections' text unmapped", UNMAP, 0, 0, 2, 0, 0, 1);
	rc |= one("the middle section's text moved (mremap)", MREMAP, 0, 1, 1, 1, 0, 1);
	rc |= one("the middle section's text mapped over (MAP_FIXED)", FIXED, 0, 1, 1, 1, 0, 1);
	rc |= one("the middle section's bytes mapped over (MAP_FIXED)", FIXED, 3, 1, 1, 1, 0, 1);
	if (rc)
		return 2;
	/* the guard before and the first text page in one range */
	if (make_set(&s, 3, 3))
		return 2;
	if (munmap(guard_before(&s), 2 * page))
		return perror("munmap"), 2;
	verdict("the guard page and the first text page unmapped", &s, (int[]){ 0, 1, 1 });
	drop_set(&s);

	/*
	 * A section whose bytes overlap a registered section's: the second
	 * half of section 0's page holds another section, for section 1's
	 * code once section 1 is removed
	 */
	if (make_set(&s, 2, 2))
		return 2;
	half = sfr(&s, 0) + page / 2;
	if (mprotect(sfr(&s, 0), page, PROT_READ | PROT_WRITE))
		return perror("mprotect"), 2;
	fill((struct sf_section *)half, text(&s, 1));
	if (!has(&s, 1))
		return printf("could not remove section 1\n"), 2;
	if (!prctl(PR_ADD_SFRAME, (unsigned long)half, (unsigned long)half + page / 2,
		   (unsigned long)text(&s, 1), (unsigned long)text(&s, 1) + page)) {
		printf("wrong: a section inside another's bytes registered\n");
		failed = 1;
	} else {
		printf("%s: a section inside another's bytes refused (%s)\n",
		       errno == EEXIST ? "ok" : "wrong", strerror(errno));
		failed |= errno != EEXIST;
	}
	/* and, the first one gone, it registers */
	if (!has(&s, 0))
		return printf("could not remove section 0\n"), 2;
	if (prctl(PR_ADD_SFRAME, (unsigned long)half, (unsigned long)half + page / 2,
		  (unsigned long)text(&s, 1), (unsigned long)text(&s, 1) + page)) {
		printf("wrong: the inner section alone refused: %s\n", strerror(errno));
		failed = 1;
	} else {
		printf("ok: the inner section alone registered\n");
		prctl(PR_REMOVE_SFRAME, (unsigned long)half, 0, 0, 0);
	}
	munmap(s.base, s.len);
	return failed;
}

int main(int argc, char **argv)
{
	page = sysconf(_SC_PAGESIZE);
	if (argc == 6 && !strcmp(argv[1], "bench"))
		return bench(atoi(argv[2]), atoi(argv[3]), atol(argv[4]), argv[5]);
	if (argc == 2 && !strcmp(argv[1], "bounds"))
		return bounds();
	fprintf(stderr, "usage: %s bench K N ITERS FILE | bounds\n", argv[0]);
	return 2;
}
