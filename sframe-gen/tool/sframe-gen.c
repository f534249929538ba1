// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen: write the SFrame section generated from an ELF object's
 * .eh_frame, print its coverage, check it against the kernel's rules,
 * or print its rows.  See Documentation/sframe-gen.txt.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe-gen.h"

/* A typical PIE base and a typical mmap address, terabytes apart */
#define CHECK_BASE	0x555555554000ULL
#define CHECK_SEC	0x7ffff7a00000ULL

static const char *prog = "sframe-gen";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s FILE [-o OUT] [--stats] [--check] [--dump] [--norule] [--no-flex]\n"
		"  -o OUT     write the SFrame section (raw bytes) to OUT\n"
		"  --stats    print the counts and the coverage of the text\n"
		"  --check    check the section against the kernel's rules (exit 1 if not)\n"
		"  --dump     print one line per FRE: START END cfa=sp+16 fp=cfa-16 ra=cfa-8\n"
		"  --norule   print the ranges left without a rule: START END norule=REASON\n"
		"  --dump-own print the rows of FILE's own .sframe (from as --gsframe), as --dump\n"
		"  --no-flex  no flexible FDE (amd64 DRAP rows get no rule, as before)\n"
		"With none of these, the section goes to standard output.\n", prog);
}

/* The object's own .sframe (from as --gsframe), dumped where it lies */
static int dump_own(Elf *elf, const char *file)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		goto bad;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			goto bad;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".sframe") || sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || sfgen_dump(stdout, d->d_buf, d->d_size, sh.sh_addr) < 0) {
			fprintf(stderr, "%s: %s: its .sframe cannot be read\n", prog, file);
			return -1;
		}
		return 0;
	}
	fprintf(stderr, "%s: %s: no .sframe section\n", prog, file);
	return -1;
bad:
	fprintf(stderr, "%s: %s: section headers unreadable\n", prog, file);
	return -1;
}

static void print_norule(uint64_t start, uint64_t end, int reason, void *ctx)
{
	(void)ctx;
	printf("%016" PRIx64 " %016" PRIx64 " norule=%s\n", start, end,
	       sfgen_reason_name(reason));
}

static void print_stats(const char *file, const struct sfgen_stats *st, size_t len)
{
	unsigned long nr = 0;
	int i;

	for (i = 0; i < SFGEN_NR_OUTSIDE; i++)
		nr += st->no_rule[i];
	printf("file: %s\n", file);
	printf("eh_frame_bytes: %" PRIu64 "\n", st->eh_frame_bytes);
	printf("sframe_bytes: %zu\n", len);
	printf("text: 0x%" PRIx64 "-0x%" PRIx64 "\n", st->text_start, st->text_end);
	printf("fdes_in: %lu\n", st->fdes_in);
	printf("fdes_out: %lu\n", st->fdes_out);
	printf("rows: %lu\n", st->rows);
	printf("rows_outermost: %lu\n", st->rows_outermost);
	printf("rows_norule: %lu\n", nr);
	printf("fres: %lu\n", st->fres);
	for (i = 0; i < SFGEN_NR_REASONS; i++)
		printf("norule_%s: %lu%s\n", sfgen_reason_name(i), st->no_rule[i],
		       i >= SFGEN_NR_OUTSIDE ? " fdes" : "");
	printf("text_bytes: %" PRIu64 "\n", st->text_bytes);
	printf("covered_bytes: %" PRIu64 "\n", st->covered_bytes);
	printf("coverage: %.2f%%\n", st->text_bytes ?
	       100.0 * st->covered_bytes / st->text_bytes : 0.0);
}

/* As the kernel gets it: as written, and moved to a far mapping */
static int check(const char *file, void *sec, size_t len, const struct sfgen_stats *st)
{
	const char *why;

	if (sfgen_check(sec, len, 0, st->text_start, st->text_end, &why)) {
		fprintf(stderr, "%s: %s: check failed: %s\n", prog, file, why);
		return -1;
	}
	if (sfgen_relocate(sec, len, (int64_t)(CHECK_BASE - CHECK_SEC)) ||
	    sfgen_check(sec, len, CHECK_SEC, CHECK_BASE + st->text_start,
			CHECK_BASE + st->text_end, &why)) {
		fprintf(stderr, "%s: %s: check after relocation failed: %s\n", prog, file,
			why ? why : strerror(errno));
		return -1;
	}
	if (sfgen_relocate(sec, len, (int64_t)(CHECK_SEC - CHECK_BASE))) {
		fprintf(stderr, "%s: %s: relocation back failed\n", prog, file);
		return -1;
	}
	return 0;
}

/* Straight into OUT, which is not a regular file (/dev/null, a pipe) */
static int write_special(const char *out, const void *sec, size_t len)
{
	FILE *f = fopen(out, "wb");
	int ok;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
		return -1;
	}
	ok = fwrite(sec, 1, len, f) == len;
	ok = !fclose(f) && ok;
	if (!ok)
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
	return ok ? 0 : -1;
}

/*
 * Write to OUT.tmp, rename: nothing is left behind on failure.  Not over
 * something that is not a regular file: renaming onto /dev/null (as root)
 * replaced the device with a file and broke every program of the machine.
 */
static int write_out(const char *out, const void *sec, size_t len)
{
	size_t n = strlen(out) + 8;
	struct stat st;
	char *tmp;
	FILE *f;
	int ok;

	if (!stat(out, &st) && !S_ISREG(st.st_mode))
		return write_special(out, sec, len);
	tmp = malloc(n);
	if (!tmp)
		return -1;
	snprintf(tmp, n, "%s.tmp", out);
	f = fopen(tmp, "wb");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	ok = fwrite(sec, 1, len, f) == len;
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, out)) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_STATS = 256, OPT_CHECK, OPT_DUMP, OPT_NORULE, OPT_DUMP_OWN, OPT_NO_FLEX };
	static const struct option opts[] = {
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "dump", no_argument, NULL, OPT_DUMP },
		{ "norule", no_argument, NULL, OPT_NORULE },
		{ "dump-own", no_argument, NULL, OPT_DUMP_OWN },
		{ "no-flex", no_argument, NULL, OPT_NO_FLEX },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int do_stats = 0, do_check = 0, do_dump = 0, do_norule = 0, do_own = 0, c, fd, ret = 1;
	unsigned int flags = 0;
	const char *out = NULL, *file;
	struct sfgen_stats st;
	void *sec = NULL;
	size_t len = 0;
	Elf *elf;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_STATS: do_stats = 1; break;
		case OPT_CHECK: do_check = 1; break;
		case OPT_DUMP: do_dump = 1; break;
		case OPT_NORULE: do_norule = 1; break;
		case OPT_DUMP_OWN: do_own = 1; break;
		case OPT_NO_FLEX: flags |= SFGEN_F_NO_FLEX; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	file = argv[optind];
	if (!out && !do_stats && !do_check && !do_dump && !do_norule && !do_own && isatty(1)) {
		fprintf(stderr, "%s: not writing a binary section to a terminal (use -o)\n", prog);
		return 2;
	}

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
		return 1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		fprintf(stderr, "%s: %s: cannot read as ELF: %s\n", prog, file, elf_errmsg(-1));
		close(fd);
		return 1;
	}
	if (do_own) {
		if (out || do_stats || do_check || do_dump || do_norule) {
			usage(stderr);
			ret = 2;
		} else {
			ret = dump_own(elf, file) ? 1 : 0;
		}
		goto out;
	}
	if (sfgen_from_elf(elf, flags, &sec, &len, &st, do_norule ? print_norule : NULL, NULL)) {
		fprintf(stderr, "%s: %s: %s (%s)\n", prog, file,
			st.error ? st.error : "failed", strerror(errno));
		if (do_stats)
			print_stats(file, &st, 0);
		goto out;
	}
	if (do_stats)
		print_stats(file, &st, len);
	if (do_dump && sfgen_dump(stdout, sec, len, 0) < 0) {
		fprintf(stderr, "%s: %s: cannot dump the section\n", prog, file);
		goto out;
	}
	if (do_check && check(file, sec, len, &st))
		goto out;
	if (out) {
		if (write_out(out, sec, len))
			goto out;
	} else if (!do_stats && !do_check && !do_dump && !do_norule) {
		if (fwrite(sec, 1, len, stdout) != len || fflush(stdout)) {
			fprintf(stderr, "%s: writing standard output: %s\n", prog, strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	if (fflush(stdout))
		ret = 1;
	free(sec);
	elf_end(elf);
	close(fd);
	return ret;
}
