// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading an SFrame section: the kernel's checks (sfgen_check()), moving
 * its function starts (sfgen_relocate()) and printing its rows
 * (sfgen_dump()).  Plain C with no library beyond libc: this file is also
 * linked, alone, into the preload library that registers the sections.
 *
 * The checks follow kernel/unwind/sframe.c (sframe_read_header(),
 * sframe_check_fdes(), sframe_read_fde_v2/v3(), sframe_read_fre(),
 * sframe_find_fre()) check for check, in the same order, so that a
 * section passing here is one the kernel takes and never drops.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "sframe-gen.h"
#include "sframe-format.h"

/* A section being read: where its parts are, as offsets into it */
struct sf_view {
	const uint8_t		*p;
	uint64_t		len;
	uint64_t		addr;		/* where the section is */
	const struct sf_arch	*arch;
	uint8_t			version;
	uint8_t			flags;
	int8_t			ra_off;
	unsigned int		fde_size;
	uint32_t		num_fdes;
	uint32_t		num_fres;
	uint64_t		fdes;		/* offset of the first FDE */
	uint64_t		fres;		/* of the FRE sub-section */
	uint64_t		fres_end;
};

struct sf_fde {
	uint64_t	field;		/* offset of its function start field */
	uint64_t	start;		/* address of the function */
	uint32_t	size;
	uint64_t	fres;		/* offset of its first FRE */
	uint32_t	num;
	uint8_t		fre_type;
	uint8_t		pctype;
	uint8_t		rep;
	bool		no_rule;
	bool		flex;		/* version 3 flexible FDE */
};

struct sf_fre {
	uint32_t	start;
	uint8_t		info;
	int32_t		cfa;		/* decoded: CFA = base + cfa */
	int32_t		fp;
	int32_t		ra;		/* s390x; amd64: the header's */
	/* a flexible FDE's control words (0: not given) */
	int32_t		cfa_ctrl, ra_ctrl, fp_ctrl;
};

/* @len bytes at @addr all inside [@start, @end) */
static bool sf_in(uint64_t addr, uint64_t len, uint64_t start, uint64_t end)
{
	return addr >= start && addr <= end && len <= end - addr;
}

static int sf_fail(const char **why, const char *what, int err)
{
	if (why)
		*why = what;
	errno = err;
	return -1;
}

static uint64_t sf_u(const struct sf_view *v, uint64_t off, unsigned int size)
{
	return sf_get(v->arch, v->p + off, size);
}

/* The header, as sframe_read_header() checks it */
static int sf_header(struct sf_view *v, const void *sec, size_t len,
		     uint64_t addr, const char **why)
{
	uint64_t hdr_end, fdes_len, fre_len;
	uint8_t flags;

	memset(v, 0, sizeof(*v));
	v->p = sec;
	v->len = len;
	v->addr = addr;
	if (!sec || len < SF_HDR_SIZE)
		return sf_fail(why, "shorter than an SFrame header", EINVAL);
	v->arch = sf_arch_by_abi(v->p[SF_HDR_ABI]);
	if (!v->arch)
		return sf_fail(why, "ABI not amd64 little endian or s390x big endian", EINVAL);
	if (sf_u(v, 0, 2) != SF_MAGIC)
		return sf_fail(why, "bad magic", EINVAL);
	v->version = v->p[2];
	v->flags = v->p[3];
	v->ra_off = (int8_t)v->p[SF_HDR_FIXED_RA];
	v->num_fdes = sf_u(v, SF_HDR_NUM_FDES, 4);
	v->num_fres = sf_u(v, SF_HDR_NUM_FRES, 4);
	if (!(v->flags & SF_F_FDE_SORTED))
		return sf_fail(why, "FDEs not marked sorted", EINVAL);
	if (v->arch->fixed_ra_off ? v->ra_off >= 0 : v->ra_off != 0)
		return sf_fail(why, v->arch->fixed_ra_off ? "fixed RA offset not negative" :
				    "fixed RA offset set (s390x tracks the RA per FRE)", EINVAL);
	if (!v->num_fdes)
		return sf_fail(why, "no FDE", EINVAL);
	switch (v->version) {
	case SF_VERSION_2:
		v->fde_size = SF_V2_FDE_SIZE;
		flags = SF_V2_FLAGS;
		break;
	case SF_VERSION_3:
		v->fde_size = SF_V3_FDI_SIZE;
		flags = SF_V3_FLAGS;
		break;
	default:
		return sf_fail(why, "SFrame version not 2 or 3", EOPNOTSUPP);
	}
	if (v->flags & ~flags)
		return sf_fail(why, "unknown flag", EINVAL);
	hdr_end = SF_HDR_SIZE + (uint64_t)v->p[SF_HDR_AUXLEN];
	fdes_len = (uint64_t)v->num_fdes * v->fde_size;
	fre_len = sf_u(v, SF_HDR_FRE_LEN, 4);
	v->fdes = hdr_end + sf_u(v, SF_HDR_FDES_OFF, 4);
	v->fres = hdr_end + sf_u(v, SF_HDR_FRES_OFF, 4);
	v->fres_end = v->fres + fre_len;
	if (!sf_in(hdr_end, 0, 0, len))
		return sf_fail(why, "auxiliary header past the end", EINVAL);
	if (!sf_in(v->fdes, fdes_len, hdr_end, len))
		return sf_fail(why, "FDE sub-section past the end", EINVAL);
	if (!sf_in(v->fres, fre_len, hdr_end, len))
		return sf_fail(why, "FRE sub-section past the end", EINVAL);
	return 0;
}

/* FDE @i decoded; with @text, checked as sframe_check_fde() does */
static int sf_fde(const struct sf_view *v, uint32_t i, struct sf_fde *f,
		  bool text, uint64_t text_start, uint64_t text_end,
		  const char **why)
{
	uint64_t off = v->fdes + (uint64_t)i * v->fde_size, base, attr;
	int64_t rel;
	uint8_t info, info2 = 0;

	f->field = off;
	if (v->version == SF_VERSION_3) {
		rel = (int64_t)sf_u(v, off, 8);
		f->size = sf_u(v, off + 8, 4);
		attr = v->fres + sf_u(v, off + 12, 4);
		if (!sf_in(attr, SF_V3_FDA_SIZE, v->fres, v->fres_end))
			return sf_fail(why, "FDE attributes outside the FRE sub-section", EINVAL);
		f->num = sf_u(v, attr, 2);
		info = v->p[attr + 2];
		info2 = v->p[attr + 3];
		f->rep = v->p[attr + 4];
		f->fres = attr + SF_V3_FDA_SIZE;
	} else {
		rel = (int32_t)sf_u(v, off, 4);
		f->size = sf_u(v, off + 4, 4);
		f->fres = v->fres + sf_u(v, off + 8, 4);
		f->num = sf_u(v, off + 12, 4);
		info = v->p[off + 16];
		f->rep = v->p[off + 17];
	}
	base = v->flags & SF_F_FDE_FUNC_START_PCREL ? v->addr + off : v->addr;
	f->start = base + (uint64_t)rel;
	f->fre_type = SF_FDE_FRE_TYPE(info);
	f->pctype = SF_FDE_PCTYPE(info);
	f->flex = v->version == SF_VERSION_3 && !v->arch->regs &&
		  SF_V3_FDE_TYPE(info2) == SF_V3_FDE_TYPE_FLEX;
	f->no_rule = v->version == SF_VERSION_3 &&
		     ((SF_V3_FDE_TYPE(info2) != SF_V3_FDE_TYPE_DEFAULT && !f->flex) ||
		      SF_V3_FDE_SIGNAL(info));
	if (f->fre_type > SF_FRE_TYPE_ADDR4)
		return sf_fail(why, "bad FRE type", EINVAL);
	if (f->pctype == SF_FDE_PCMASK && !f->rep)
		return sf_fail(why, "PCMASK FDE without a block size", EINVAL);
	if (text && !sf_in(f->start, f->size, text_start, text_end))
		return sf_fail(why, "FDE outside the text range", EINVAL);
	if (!sf_in(f->fres, 0, v->fres, v->fres_end))
		return sf_fail(why, "FREs start outside the FRE sub-section", EINVAL);
	return 0;
}

static int32_t sf_s(const struct sf_view *v, uint64_t pos, unsigned int size)
{
	uint64_t u = sf_u(v, pos, size);

	return size == 4 ? (int32_t)u : size == 2 ? (int16_t)u : (int8_t)u;
}

/*
 * The data words of a flexible FRE (@n of @size bytes at *@pos): CFA
 * (control word, offset), RA (a lone 0, or control word and offset), FP
 * (control word, offset).  A CFA must be register-based; nothing may be
 * left over.
 */
static int sf_fre_flex(const struct sf_view *v, uint64_t *pos, unsigned int n,
		       unsigned int size, struct sf_fre *r, const char **why)
{
	int32_t w[SF_FLEX_MAX_WORDS];
	unsigned int i = 0;

	for (unsigned int k = 0; k < n; k++, *pos += size)
		w[k] = sf_s(v, *pos, size);
	if (!n)
		return 0;
	if (n < 2 || !SF_FLEX_REG_P(w[0]))
		return sf_fail(why, "flexible FRE without a register-based CFA", EINVAL);
	r->cfa_ctrl = w[0];
	r->cfa = w[1];
	i = 2;
	if (i < n) {
		if (w[i]) {
			if (i + 1 >= n)
				return sf_fail(why, "flexible FRE: RA word without offset", EINVAL);
			r->ra_ctrl = w[i];
			r->ra = w[i + 1];
			i += 2;
		} else {
			i++;
		}
	}
	if (i < n) {
		if (!w[i] || i + 1 >= n)
			return sf_fail(why, "flexible FRE: FP word without offset", EINVAL);
		r->fp_ctrl = w[i];
		r->fp = w[i + 1];
		i += 2;
	}
	if (i != n)
		return sf_fail(why, "flexible FRE: words left over", EINVAL);
	return 0;
}

/* The FRE at *@pos, as sframe_read_fre() reads it; advances *@pos */
static int sf_fre(const struct sf_view *v, const struct sf_fde *f,
		  uint64_t *pos, struct sf_fre *r, const char **why)
{
	unsigned int asize = 1u << f->fre_type, n, size;

	if (!sf_in(*pos, asize + 1, v->fres, v->fres_end))
		return sf_fail(why, "FRE past the FRE sub-section", EINVAL);
	r->start = sf_u(v, *pos, asize);
	r->info = v->p[*pos + asize];
	*pos += asize + 1;
	n = SF_FRE_COUNT(r->info);
	size = 1u << SF_FRE_SIZE(r->info);
	if (n > (f->flex ? SF_FLEX_MAX_WORDS : v->arch->max_offsets) || size > 4 ||
	    SF_FRE_MANGLED_RA(r->info))
		return sf_fail(why, "bad FRE info (offset count, size or mangled RA)", EINVAL);
	if (!sf_in(*pos, (uint64_t)n * size, v->fres, v->fres_end))
		return sf_fail(why, "FRE offsets past the FRE sub-section", EINVAL);
	r->cfa = 0;
	r->fp = 0;
	r->ra = v->ra_off;
	r->cfa_ctrl = r->ra_ctrl = r->fp_ctrl = 0;
	if (f->flex)
		return sf_fre_flex(v, pos, n, size, r, why);
	for (unsigned int k = 0; k < n; k++) {
		int32_t s = sf_s(v, *pos, size);

		if (k == 0) {
			int64_t cfa = sf_cfa_decode(v->arch, s);

			if (cfa < INT32_MIN || cfa > INT32_MAX)
				return sf_fail(why, "CFA offset does not fit 32 bits", EINVAL);
			r->cfa = (int32_t)cfa;
		} else if (k == 1 && v->arch->max_offsets == 3) {
			r->ra = s;
		} else {
			r->fp = s;
		}
		*pos += size;
	}
	return 0;
}

int sfgen_check(const void *sec, size_t len, uint64_t sec_addr,
		uint64_t text_start, uint64_t text_end, const char **why)
{
	uint64_t prev = 0, total = 0, pos;
	struct sf_view v;
	struct sf_fde f;
	struct sf_fre r;
	uint32_t i, k, prev_start = 0;

	if (why)
		*why = NULL;
	if (text_start >= text_end)
		return sf_fail(why, "empty text range", EINVAL);
	if (sf_header(&v, sec, len, sec_addr, why))
		return -1;
	/* an FRE takes 2 bytes at least: this bounds the work by @len */
	if ((uint64_t)v.num_fres * 2 > v.fres_end - v.fres)
		return sf_fail(why, "more FREs in the header than fit", EINVAL);
	for (i = 0; i < v.num_fdes; i++) {
		if (sf_fde(&v, i, &f, true, text_start, text_end, why))
			return -1;
		if (f.start < prev)
			return sf_fail(why, "FDEs not sorted", EINVAL);
		prev = f.start;
		/* the kernel never reads the FREs of an FDE it does not follow */
		if (f.no_rule)
			continue;
		total += f.num;
		if (total > v.num_fres)
			return sf_fail(why, "FDEs list more FREs than the header", EINVAL);
		pos = f.fres;
		for (k = 0; k < f.num; k++) {
			if (sf_fre(&v, &f, &pos, &r, why))
				return -1;
			if ((k && r.start <= prev_start) || r.start >= f.size)
				return sf_fail(why, "FRE starts not ascending inside the function",
					       EINVAL);
			prev_start = r.start;
		}
	}
	return 0;
}

int sfgen_relocate(void *sec, size_t len, int64_t delta)
{
	struct sf_view v;
	uint64_t off;
	int64_t val;
	uint32_t i;

	if (sf_header(&v, sec, len, 0, NULL))
		return sf_fail(NULL, NULL, EINVAL);
	/* version 2's 32-bit fields: see that all fit before changing any */
	if (v.version == SF_VERSION_2) {
		for (i = 0; i < v.num_fdes; i++) {
			off = v.fdes + (uint64_t)i * v.fde_size;
			val = (int32_t)sf_u(&v, off, 4);
			if ((delta > 0 && val > INT32_MAX - delta) ||
			    (delta < 0 && val < INT32_MIN - delta))
				return sf_fail(NULL, NULL, ERANGE);
		}
	}
	for (i = 0; i < v.num_fdes; i++) {
		off = v.fdes + (uint64_t)i * v.fde_size;
		if (v.version == SF_VERSION_3) {
			val = (int64_t)(sf_u(&v, off, 8) + (uint64_t)delta);
			sf_put(v.arch, (uint8_t *)sec + off, 8, (uint64_t)val);
		} else {
			val = (int32_t)sf_u(&v, off, 4) + delta;
			sf_put(v.arch, (uint8_t *)sec + off, 4, (uint64_t)val);
		}
	}
	return 0;
}

/* Where a saved RA or FP is: CFA + offset, or another register */
static void sf_print_loc(FILE *out, const struct sf_arch *a, const char *what, int32_t v)
{
	if (SF_LOC_IS_REG(a, v))
		fprintf(out, " %s=r%" PRIu32, what, SF_LOC_REG(v));
	else
		fprintf(out, " %s=cfa%+" PRId32, what, v);
}

/* A flexible rule: r6-16, *(r6-16), cfa-16 (always read), *(cfa-16) */
static void sf_print_flex(FILE *out, const char *what, int32_t ctrl, int32_t off)
{
	bool deref = SF_FLEX_DEREF(ctrl);

	fprintf(out, " %s=%s", what, deref ? "*(" : "");
	if (SF_FLEX_REG_P(ctrl))
		fprintf(out, "r%" PRIu32, SF_FLEX_REGNUM(ctrl));
	else
		fprintf(out, "cfa");
	fprintf(out, "%+" PRId32 "%s", off, deref ? ")" : "");
}

static void sf_print_fre(FILE *out, const struct sf_arch *a, uint64_t start,
			 uint64_t end, const struct sf_fre *r)
{
	unsigned int n = SF_FRE_COUNT(r->info);

	fprintf(out, "%016" PRIx64 " %016" PRIx64, start, end);
	if (!n) {
		fprintf(out, " ra=u\n");
		return;
	}
	if (r->cfa_ctrl) {
		sf_print_flex(out, "cfa", r->cfa_ctrl, r->cfa);
		if (r->fp_ctrl)
			sf_print_flex(out, "fp", r->fp_ctrl, r->fp);
		if (r->ra_ctrl)
			sf_print_flex(out, "ra", r->ra_ctrl, r->ra);
		else
			fprintf(out, " ra=cfa%+" PRId32, r->ra);
		fprintf(out, "\n");
		return;
	}
	fprintf(out, " cfa=%s%+" PRId32, SF_FRE_BASE(r->info) == SF_BASE_SP ? "sp" : "fp",
		r->cfa);
	if (r->fp)
		sf_print_loc(out, a, "fp", r->fp);
	/* s390x: an RA not saved (0) is still in its register */
	if (!r->ra)
		fprintf(out, " ra=r%u\n", a->reg_ra);
	else
		sf_print_loc(out, a, "ra", r->ra);
	if (r->ra)
		fprintf(out, "\n");
}

long sfgen_dump(FILE *out, const void *sec, size_t len, uint64_t sec_addr)
{
	struct sf_view v;
	struct sf_fde f;
	struct sf_fre r = { 0 }, next = { 0 };
	uint64_t pos, end, total = 0;
	long lines = 0;
	uint32_t i, k;

	if (sf_header(&v, sec, len, sec_addr, NULL) ||
	    (uint64_t)v.num_fres * 2 > v.fres_end - v.fres)
		return sf_fail(NULL, NULL, EINVAL);
	for (i = 0; i < v.num_fdes; i++) {
		if (sf_fde(&v, i, &f, false, 0, 0, NULL))
			return sf_fail(NULL, NULL, EINVAL);
		if (f.no_rule) {
			fprintf(out, "%016" PRIx64 " %016" PRIx64 " norule\n",
				f.start, f.start + f.size);
			lines++;
			continue;
		}
		total += f.num;
		if (total > v.num_fres)
			return sf_fail(NULL, NULL, EINVAL);
		pos = f.fres;
		if (f.num && sf_fre(&v, &f, &pos, &r, NULL))
			return sf_fail(NULL, NULL, EINVAL);
		for (k = 0; k < f.num; k++) {
			if (k + 1 < f.num) {
				if (sf_fre(&v, &f, &pos, &next, NULL))
					return sf_fail(NULL, NULL, EINVAL);
				end = next.start;
			} else {
				end = f.pctype == SF_FDE_PCMASK ? f.rep : f.size;
			}
			sf_print_fre(out, v.arch, f.start + r.start, f.start + end, &r);
			lines++;
			r = next;
		}
	}
	return lines;
}
