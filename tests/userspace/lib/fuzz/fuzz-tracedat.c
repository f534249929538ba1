// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a reader of trace.dat files, in-process, on files
 * whose headers are intact and whose ring-buffer pages are damaged.  One
 * harness, two readers:
 *  - by default the library's file source (tests/userspace/lib/fuzz,
 *    run-fuzz.sh): the join of every buffer instance and the symbol
 *    lookups of every frame;
 *  - with -DFUZZ_REPORT the series' trace-cmd report path for user stacks
 *    (tracecmd/trace-read-ustack.c of trace-cmd/patches: the look-ahead,
 *    the index of late stacks, the printing), report's own loop played
 *    here: each record of the top buffer, in time order, hidden or
 *    printed with its stacks (to /dev/null).  Built by
 *    tests/rig/tracecmd.sh against the series' libtracecmd.a, with
 *    AHEAD_MAX small so that the index pass runs on small files too.
 *
 * The headers stay intact, so libtracecmd opens every input, and the
 * reader runs in this process on pages libFuzzer damages at will (damaged
 * headers are the damaged-file tests' part: tests/rig/tracecmd.sh runs
 * them on the ASan build of the series' libtracecmd).
 *
 * Seeds: FUZZ_SEEDS names a directory of uncompressed trace.dat files,
 * each with NAME.pages beside it ("offset size" of each CPU's data, from
 * trace-cmd dump --flyrecord; run-fuzz.sh makes them).  An input is
 *   [u8 seed] then repeated [u16 pos][u8 value]
 * where pos & 0x7fff is an offset into the records of the chosen seed's
 * pages (modulo their size).  Without bit 15 the triple sets one byte
 * there; with it, an odd value zeroes the rest of that page (the commit
 * in its header stays), an even one cuts the file there, the last edit.
 * The 16-byte header of each page (timestamp, commit) stays: libtracecmd
 * reads it while opening the file.  FUZZ_WRITE=PATH keeps the damaged file of
 * the input run last (a crash becomes a trace.dat in data/regress/).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef FUZZ_REPORT
#include <stdarg.h>
#include "trace-local.h"
#include <ustack.h>

#define FUZZ_NAME	"fuzz-report"
#define MAX_SPANS	256
#define MAX_TOTAL	SIZE_MAX	/* no seed is too large */
#else
#include <trace-cmd.h>
#include "ustack-local.h"
#include "ustack-file.h"

#define FUZZ_NAME	"fuzz-tracedat"
#define MAX_SPANS	64
#define MAX_TOTAL	(65536 * 4)	/* the records of a seed, at most */
#endif

#define MAX_SEEDS	64
#define PAGE		4096
#define PAGE_HEADER	16

struct seed {
	unsigned char	*data;
	size_t		size;
	/* the CPU data sections, as one space of offsets */
	size_t		span_off[MAX_SPANS];
	size_t		span_len[MAX_SPANS];
	int		nr_spans;
	size_t		total;
};

static struct seed seeds[MAX_SEEDS];
static int nr_seeds;
static int memfd = -1;
static char memfd_path[64];
static const char *write_to;

#ifdef FUZZ_REPORT
/* trace-cmd's own: report dies on an allocation failure only */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	abort();
}

void warning(const char *fmt, ...)
{
	(void)fmt;
}

/* report's loop over the damaged file at @path */
static void read_trace(const char *path)
{
	struct tracecmd_input *handle;
	struct ustack_report *r;
	struct tep_record *rec;
	int cpu;

	/*
	 * As report opens its input: on a failure it dies, so the handle is
	 * left as it is (libtracecmd 3.4's cleanup after a failed
	 * tracecmd_open() of a cut file crashes, in tracecmd_close(); run
	 * with detect_leaks=0)
	 */
	handle = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle || tracecmd_read_headers(handle, 0) ||
	    tracecmd_init_data(handle) < 0)
		return;
	r = trace_ustack_open(handle, handle, path, -1, false);
	while ((rec = tracecmd_read_next_data(handle, &cpu))) {
		if (!trace_ustack_hide(r, rec))
			trace_ustack_show(r, rec);
		tracecmd_free_record(rec);
	}
	trace_ustack_close(r);
	tracecmd_close(handle);
}
#else
static int frames_cb(const struct ustack_event *ev, void *data)
{
	struct ustack_syms *syms = data;
	char buf[512];
	int i;

	for (i = 0; i < ev->nr_kernel; i++)
		ustack_syms_format_kernel(syms, ev->kernel[i], buf, sizeof(buf));
	for (i = 0; i < ev->nr_user; i++)
		ustack_syms_format(syms, ev->tgid, ev->user[i], buf, sizeof(buf));
	if (ev->event && ev->record->size < 0)
		abort();
	return 0;
}

/* the library's file source over the damaged file at @path */
static void read_trace(const char *path)
{
	struct ustack_join_stats st;
	struct ustack_syms *syms;
	struct ustack_file *file;

	file = ustack_file_open(path);
	if (!file)
		return;
	syms = ustack_syms_alloc();
	/* no search dirs: only absolute paths named in the maps */
	ustack_syms_set_file(syms, file);
	ustack_file_set_limits(file, 64, 1024, 64);
	ustack_file_iterate(file, -1, frames_cb, syms, &st);
	ustack_syms_free(syms);
	ustack_file_close(file);
}
#endif

static unsigned char *read_all(const char *path, size_t *size)
{
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0, r;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			unsigned char *p = realloc(buf, cap ? cap * 2 : 65536);

			if (!p)
				break;
			buf = p;
			cap = cap ? cap * 2 : 65536;
		}
		r = fread(buf + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	*size = n;
	return buf;
}

static void load_seed(const char *dir, const char *name)
{
	char path[4096], pages[4200];
	unsigned long long off, len;
	struct seed *s = &seeds[nr_seeds];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(pages, sizeof(pages), "%s.pages", path);
	f = fopen(pages, "r");
	if (!f)
		return;
	s->data = read_all(path, &s->size);
	while (s->data && fscanf(f, "%llu %llu", &off, &len) == 2) {
		if (!len || off > s->size || len > s->size - off)
			continue;
		/* the records of each page, past its header */
		for (; len >= PAGE && s->nr_spans < MAX_SPANS;
		     off += PAGE, len -= PAGE) {
			s->span_off[s->nr_spans] = off + PAGE_HEADER;
			s->span_len[s->nr_spans] = PAGE - PAGE_HEADER;
			s->total += PAGE - PAGE_HEADER;
			s->nr_spans++;
		}
	}
	fclose(f);
	if (s->data && s->total && s->total < MAX_TOTAL)
		nr_seeds++;
	else
		free(s->data);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("FUZZ_SEEDS");
	struct dirent *de;
	DIR *d;

	(void)argc;
	(void)argv;
	ustack_set_loglevel(TEP_LOG_NONE);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	tracefs_set_loglevel(TEP_LOG_NONE);
	d = dir ? opendir(dir) : NULL;
	while (d && (de = readdir(d)) && nr_seeds < MAX_SEEDS) {
		size_t n = strlen(de->d_name);

		if (n > 4 && !strcmp(de->d_name + n - 4, ".dat"))
			load_seed(dir, de->d_name);
	}
	if (d)
		closedir(d);
	memfd = memfd_create(FUZZ_NAME ".dat", 0);
	if (!nr_seeds || memfd < 0) {
		fprintf(stderr, "set FUZZ_SEEDS to a directory of trace.dat files with .pages\n");
		exit(1);
	}
	snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	write_to = getenv("FUZZ_WRITE");
#ifdef FUZZ_REPORT
	/* what report prints goes nowhere */
	if (!freopen("/dev/null", "w", stdout))
		exit(1);
#endif
	fprintf(stderr, FUZZ_NAME ": %d seeds\n", nr_seeds);
	return 0;
}

/*
 * FUZZ_WRITE=PATH: keep the damaged file of the input run last, to add a
 * crash to data/regress/ as a trace.dat that ustack reads
 */
static void save(const char *path)
{
	unsigned char buf[65536];
	off_t off = 0;
	ssize_t n;
	FILE *f = fopen(path, "wb");

	if (!f)
		return;
	while ((n = pread(memfd, buf, sizeof(buf), off)) > 0) {
		fwrite(buf, 1, n, f);
		off += n;
	}
	fclose(f);
}

/* A position in the seed's pages as a file offset; *end: its page's end */
static size_t page_offset(const struct seed *s, size_t pos, size_t *end)
{
	int i;

	pos %= s->total;
	for (i = 0; i < s->nr_spans; i++) {
		*end = s->span_off[i] + s->span_len[i];
		if (pos < s->span_len[i])
			return s->span_off[i] + pos;
		pos -= s->span_len[i];
	}
	*end = s->span_off[0] + s->span_len[0];
	return s->span_off[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct seed *s;
	size_t i;

	if (size < 1)
		return 0;
	s = &seeds[data[0] % nr_seeds];
	if (ftruncate(memfd, 0) ||
	    pwrite(memfd, s->data, s->size, 0) != (ssize_t)s->size)
		return 0;
	for (i = 1; i + 3 <= size; i += 3) {
		size_t pos = data[i] | (size_t)(data[i + 1] & 0x7f) << 8;
		size_t end, off = page_offset(s, pos, &end);

		if (!(data[i + 1] & 0x80)) {
			if (pwrite(memfd, &data[i + 2], 1, off) != 1)
				return 0;
		} else if (data[i + 2] & 1) {
			/* the rest of the page lost: zeros */
			static const unsigned char zero[PAGE];

			if (pwrite(memfd, zero, end - off, off) < 0)
				return 0;
		} else {
			/* the file ends inside the page data */
			if (ftruncate(memfd, off))
				return 0;
			break;
		}
	}
	if (write_to)
		save(write_to);
	read_trace(memfd_path);
	return 0;
}
