// SPDX-License-Identifier: LGPL-2.1
/*
 * The generator: an SFrame version 3 section from an ELF object's
 * .eh_frame.  libdw interprets the CFI (dwarf_cfi_addrframe() and the
 * dwarf_frame_*() accessors give each row); this file only enumerates the
 * FDEs, decides which rows SFrame can express, and writes the section.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sframe-gen.h"
#include "sframe-format.h"

/* Work bound: FDE rows after which the rest of the FDE gets no rule */
#define GEN_MAX_ROWS		4096
/*
 * Work bound: row lookups times FDE program bytes, per .eh_frame byte.
 * libdw runs an FDE's program from its start for each row, so the work
 * grows as rows times program size; Debian's liblapack.so.3 (FDEs of
 * 1861 rows) needs 293 per byte, libc.so.6 10, and 0.24 s in all.
 */
#define GEN_WORK_PER_BYTE	4096
/* FREs of one SFrame FDE (version 3 keeps the count in 16 bits) */
#define GEN_MAX_FRES		0xffff

/*
 * amd64 rules only a flexible FDE can say (SFrame version 3): the CFA
 * from a register other than SP and FP, or read from memory (DRAP:
 * CFA = *(rbp - 16)); the FP saved at an address given by a register
 * (DRAP: *(rbp + 0)).  A row with any of them is a flexible row.
 */
struct flex {
	bool		on;
	bool		cfa_reg_p;	/* CFA from cfa_reg, else the row's base */
	bool		cfa_deref;	/* CFA = *(cfa_reg + cfa) */
	uint8_t		cfa_reg;	/* DWARF number */
	bool		fp_saved;	/* FP saved at CFA + 0 */
	bool		fp_reg_p;	/* FP saved at fp_reg + fp, else CFA + fp */
	uint8_t		fp_reg;
};

/* One row of an FDE, classified */
struct row {
	uint64_t	start, end;
	int		reason;		/* -1: SFrame can express it */
	bool		outermost;	/* RA undefined */
	uint8_t		base;		/* SF_BASE_SP or SF_BASE_FP */
	int32_t		cfa;		/* CFA = base + cfa */
	int32_t		fp;		/* FP saved at CFA + fp, 0: not saved */
	int32_t		ra;		/* s390x: as fp; 0: still in r14 */
	struct flex	flex;
};

/* One FRE, relative to its FDE */
struct fre {
	uint32_t	start;
	bool		outermost;
	uint8_t		base;
	int32_t		cfa;
	int32_t		fp;
	int32_t		ra;
	struct flex	flex;
};

/* One SFrame FDE: FREs fre[first .. first + num) of the generator */
struct fde {
	uint64_t	start;
	uint64_t	size;
	size_t		first;
	size_t		num;
	size_t		order;		/* for a stable sort */
	bool		flex;		/* a flexible FDE: every FRE in flex form */
};

struct cie {
	uint64_t	off;
	int		enc;		/* pointer encoding of its FDEs, -1: unknown */
};

struct gen {
	const struct sf_arch	*arch;
	Elf			*elf;
	Dwarf_CFI		*cfi;
	Elf_Data		*eh;
	uint64_t		eh_addr;
	int			elfclass;
	uint64_t		text_start, text_end;
	/* .plt, .plt.got, .plt.sec ranges */
	uint64_t		plt[8][2];
	unsigned int		nplt;
	struct cie		*cies;
	size_t			ncies, acies;
	struct row		*rows;
	size_t			nrows, arows;
	struct fre		*fres;
	size_t			nfres, afres;
	struct fde		*fdes;
	size_t			nfdes, afdes;
	uint64_t		work, work_max;
	struct sfgen_stats	*st;
	sfgen_norule_fn		norule;
	void			*ctx;
	bool			no_flex;	/* SFGEN_F_NO_FLEX */
};

static const char *const reason_names[SFGEN_NR_REASONS] = {
	[SFGEN_NR_CFA_EXPR]	= "cfa-expr",
	[SFGEN_NR_CFA_REG]	= "cfa-reg",
	[SFGEN_NR_RA]		= "ra",
	[SFGEN_NR_FP]		= "fp",
	[SFGEN_NR_PLT]		= "plt",
	[SFGEN_NR_SIGNAL]	= "signal",
	[SFGEN_NR_RANGE]	= "range",
	[SFGEN_NR_CFI_ERROR]	= "cfi-error",
	[SFGEN_NR_OUTSIDE]	= "outside",
	[SFGEN_NR_BAD_FDE]	= "bad-fde",
};

const char *sfgen_reason_name(int reason)
{
	if (reason < 0 || reason >= SFGEN_NR_REASONS)
		return "?";
	return reason_names[reason];
}

static int gen_fail(struct gen *g, const char *what, int err)
{
	g->st->error = what;
	errno = err;
	return -1;
}

/* Make room for one more element of *@arr (*@n used, *@a allocated) */
static int grow(void **arr, size_t *a, size_t n, size_t size)
{
	size_t na;
	void *p;

	if (n < *a)
		return 0;
	na = *a ? *a * 2 : 64;
	p = reallocarray(*arr, na, size);
	if (!p)
		return -1;
	*arr = p;
	*a = na;
	return 0;
}

static void tell(struct gen *g, uint64_t start, uint64_t end, int reason)
{
	if (g->norule && end > start)
		g->norule(start, end, reason, g->ctx);
}

/* ---- the ELF object ---- */

static bool in_plt(const struct gen *g, uint64_t addr)
{
	for (unsigned int i = 0; i < g->nplt; i++)
		if (addr >= g->plt[i][0] && addr < g->plt[i][1])
			return true;
	return false;
}

/* Executable PT_LOAD range, .eh_frame, executable sections, PLTs */
static int gen_scan_elf(struct gen *g)
{
	uint64_t lo = UINT64_MAX, hi = 0, s, e;
	size_t nph, nsh, shstrndx, fsize = 0;
	Elf_Scn *scn = NULL, *eh = NULL;
	GElf_Ehdr eh_mem, *ehdr;
	GElf_Phdr ph;
	GElf_Shdr sh;
	const char *name;
	bool have_secs = false;

	if (elf_kind(g->elf) != ELF_K_ELF)
		return gen_fail(g, "not an ELF object", ENOEXEC);
	ehdr = gelf_getehdr(g->elf, &eh_mem);
	if (!ehdr)
		return gen_fail(g, "ELF header unreadable (truncated?)", ENOEXEC);
	g->arch = sf_arch_by_machine(ehdr->e_machine);
	g->elfclass = gelf_getclass(g->elf);
	if (!g->arch || g->elfclass != ELFCLASS64)
		return gen_fail(g, "machine not supported (amd64 and s390x only)", ENOTSUP);
	if (ehdr->e_type != ET_EXEC && ehdr->e_type != ET_DYN)
		return gen_fail(g, "not an executable or shared object", ENOTSUP);
	if (elf_getphdrnum(g->elf, &nph))
		return gen_fail(g, "program headers unreadable (truncated?)", ENOEXEC);
	/* libelf reads a truncated file without a word: see it here */
	if (!elf_rawfile(g->elf, &fsize) ||
	    ehdr->e_phoff > fsize || (uint64_t)nph * ehdr->e_phentsize > fsize - ehdr->e_phoff)
		return gen_fail(g, "truncated (program headers past the end of the file)", ENOEXEC);
	/* from the header itself: libelf reads no section past the end */
	nsh = ehdr->e_shoff ? (ehdr->e_shnum ? ehdr->e_shnum : 1) : 0;
	if (nsh && (ehdr->e_shoff > fsize ||
		    (uint64_t)nsh * ehdr->e_shentsize > fsize - ehdr->e_shoff))
		return gen_fail(g, "truncated (section headers past the end of the file)", ENOEXEC);
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(g->elf, i, &ph))
			return gen_fail(g, "program headers unreadable (truncated?)", ENOEXEC);
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_memsz)
			continue;
		if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			return gen_fail(g, "executable segment wraps around", ENOEXEC);
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
	}
	if (lo >= hi)
		return gen_fail(g, "no executable PT_LOAD segment", ENODATA);
	g->text_start = g->st->text_start = lo;
	g->text_end = g->st->text_end = hi;

	if (elf_getshdrstrndx(g->elf, &shstrndx))
		return gen_fail(g, "section headers unreadable (truncated?)", ENOEXEC);
	while ((scn = elf_nextscn(g->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return gen_fail(g, "section headers unreadable (truncated?)", ENOEXEC);
		name = elf_strptr(g->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".eh_frame") && sh.sh_type != SHT_NOBITS)
			eh = scn;
		if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		have_secs = true;
		s = sh.sh_addr < lo ? lo : sh.sh_addr;
		e = sh.sh_addr + sh.sh_size > hi ? hi : sh.sh_addr + sh.sh_size;
		if (e > s)
			g->st->text_bytes += e - s;
		if (!strncmp(name, ".plt", 4) && g->nplt < 8) {
			g->plt[g->nplt][0] = sh.sh_addr;
			g->plt[g->nplt][1] = sh.sh_addr + sh.sh_size;
			g->nplt++;
		}
	}
	if (!have_secs)
		g->st->text_bytes = hi - lo;
	if (!eh)
		return gen_fail(g, "no .eh_frame section", ENODATA);
	if (!gelf_getshdr(eh, &sh))
		return gen_fail(g, "section headers unreadable", ENOEXEC);
	if (sh.sh_offset > fsize || sh.sh_size > fsize - sh.sh_offset)
		return gen_fail(g, "truncated (.eh_frame past the end of the file)", ENOEXEC);
	g->eh = elf_rawdata(eh, NULL);
	if (!g->eh || !g->eh->d_buf || g->eh->d_size != sh.sh_size)
		return gen_fail(g, ".eh_frame unreadable (truncated?)", ENOEXEC);
	g->eh_addr = sh.sh_addr;
	g->st->eh_frame_bytes = sh.sh_size;
	g->work_max = (uint64_t)GEN_WORK_PER_BYTE * sh.sh_size + (1u << 20);
	return 0;
}

/* ---- CIEs and FDE addresses ---- */

/* Skip an unsigned LEB128 at *@p, not past @end */
static bool skip_leb(const uint8_t **p, const uint8_t *end)
{
	while (*p < end)
		if (!(*(*p)++ & 0x80))
			return true;
	return false;
}

/*
 * A pointer encoded as DW_EH_PE_* @enc at *@p (absolute, or relative to
 * its own address); advances *@p.  Returns false for what is not
 * understood or does not fit.
 */
static bool read_ptr(const struct gen *g, int enc, const uint8_t **p,
		     const uint8_t *end, bool apply, uint64_t *val)
{
	const uint8_t *start = *p;
	unsigned int size, shift = 0;
	uint64_t v = 0;
	bool sign = false;

	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return false;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		size = g->elfclass == ELFCLASS64 ? 8 : 4;
		break;
	case DW_EH_PE_udata2: size = 2; break;
	case DW_EH_PE_udata4: size = 4; break;
	case DW_EH_PE_udata8: size = 8; break;
	case DW_EH_PE_sdata2: size = 2; sign = true; break;
	case DW_EH_PE_sdata4: size = 4; sign = true; break;
	case DW_EH_PE_sdata8: size = 8; sign = true; break;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		for (;;) {
			uint8_t b;

			if (*p >= end || shift >= 64)
				return false;
			b = *(*p)++;
			v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
			if (!(b & 0x80))
				break;
		}
		if ((enc & 0x0f) == DW_EH_PE_sleb128 && shift < 64 &&
		    (v >> (shift - 1)) & 1)
			v |= ~(uint64_t)0 << shift;
		size = 0;
		break;
	default:
		return false;
	}
	if (size) {
		if ((size_t)(end - *p) < size)
			return false;
		v = sf_get(g->arch, *p, size);
		if (sign && size < 8 && (v >> (8 * size - 1)) & 1)
			v |= ~(uint64_t)0 << (8 * size);
		*p += size;
	}
	if (apply) {
		switch (enc & 0x70) {
		case DW_EH_PE_absptr:
			break;
		case DW_EH_PE_pcrel:
			v += g->eh_addr + (uint64_t)(start - (const uint8_t *)g->eh->d_buf);
			break;
		default:
			return false;
		}
	}
	*val = v;
	return true;
}

/* The FDE pointer encoding a CIE's augmentation gives, -1 if unknown */
static int cie_encoding(const struct gen *g, const Dwarf_CIE *cie)
{
	const char *aug = cie->augmentation;
	const uint8_t *p = cie->augmentation_data, *end;
	uint64_t dummy;
	int enc = DW_EH_PE_absptr;

	if (!aug || !*aug)
		return enc;
	if (*aug != 'z' || !p)
		return -1;
	end = p + cie->augmentation_data_size;
	for (aug++; *aug; aug++) {
		switch (*aug) {
		case 'R':
			if (p >= end)
				return -1;
			enc = *p++;
			break;
		case 'P':
			if (p >= end)
				return -1;
			{
				int penc = *p++;

				if ((penc & 0x0f) == DW_EH_PE_uleb128 ||
				    (penc & 0x0f) == DW_EH_PE_sleb128) {
					if (!skip_leb(&p, end))
						return -1;
				} else if (!read_ptr(g, penc & ~DW_EH_PE_indirect, &p, end,
						     false, &dummy)) {
					return -1;
				}
			}
			break;
		case 'L':
			if (p >= end)
				return -1;
			p++;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return -1;
		}
	}
	return enc;
}

static int add_cie(struct gen *g, uint64_t off, const Dwarf_CIE *cie)
{
	if (grow((void **)&g->cies, &g->acies, g->ncies, sizeof(*g->cies)))
		return -1;
	g->cies[g->ncies].off = off;
	g->cies[g->ncies].enc = cie_encoding(g, cie);
	g->ncies++;
	return 0;
}

/* CIEs come in section order: the array is sorted by offset */
static const struct cie *find_cie(const struct gen *g, uint64_t off)
{
	size_t lo = 0, hi = g->ncies, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->cies[mid].off == off)
			return &g->cies[mid];
		if (g->cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- rows ---- */

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* Is the rule "saved at CFA + N"?  Sets @off */
static bool offset_rule(const Dwarf_Op *ops, size_t n, const Dwarf_Op *mem, int64_t *off)
{
	if (ops != mem || !n || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 1) {
		*off = 0;
		return true;
	}
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/*
 * Where a register's value is, as an s390x FRE offset says it: 0 not
 * saved (the CFI's "same value" or no rule), an even non-zero CFA
 * offset, or (regnum << 1) | 1 for a value kept in another register.
 * Returns false for what the format cannot say.
 */
static bool s390x_loc(const Dwarf_Op *ops, size_t n, const Dwarf_Op *mem, int32_t *loc)
{
	int64_t off;

	if (!n) {
		*loc = 0;
		return true;
	}
	if (offset_rule(ops, n, mem, &off)) {
		if (!off || off % 8 || !fits32(off))
			return false;
		*loc = (int32_t)off;
		return true;
	}
	/* DW_CFA_register: libdw gives the location "in register N" */
	if (n == 1 && ops[0].atom == DW_OP_regx && ops[0].number < (1u << 30)) {
		*loc = SF_LOC_OF_REG(ops[0].number);
		return true;
	}
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		*loc = SF_LOC_OF_REG(ops[0].atom - DW_OP_reg0);
		return true;
	}
	return false;
}

/* DW_OP_bregN or DW_OP_bregx: the register and offset */
static bool breg(const Dwarf_Op *op, unsigned int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

/* The largest DWARF register number a control word names here */
#define FLEX_MAX_REG		31

/*
 * A CFA a flexible FDE can say (amd64): REG + OFF with REG not SP or FP,
 * or *(REG + OFF) (DW_CFA_def_cfa_expression: DW_OP_bregN OFF;
 * DW_OP_deref, what gcc writes for a DRAP frame).
 */
static bool flex_cfa(const struct gen *g, const Dwarf_Op *ops, size_t n, struct row *r)
{
	unsigned int reg;
	int64_t off;

	if (g->no_flex || g->arch->regs || !n || n > 2 || !breg(&ops[0], &reg, &off) ||
	    reg > FLEX_MAX_REG || !fits32(off))
		return false;
	if (n == 2 && ops[1].atom != DW_OP_deref)
		return false;
	/* REG + OFF with SP or FP is a default rule */
	if (n == 1 && (reg == g->arch->reg_sp || reg == g->arch->reg_fp))
		return false;
	r->flex.on = true;
	r->flex.cfa_reg_p = true;
	r->flex.cfa_reg = (uint8_t)reg;
	r->flex.cfa_deref = n == 2;
	r->cfa = (int32_t)off;
	return true;
}

/*
 * An FP saved where a flexible FDE can say (amd64): at REG + OFF
 * (DW_CFA_expression: DW_OP_bregN OFF; a DRAP frame's *(rbp + 0)), or at
 * CFA + 0 in a flexible row.
 */
static bool flex_fp(const struct gen *g, const Dwarf_Op *ops, size_t n,
		    const Dwarf_Op *mem, struct row *r)
{
	unsigned int reg;
	int64_t off;

	if (g->no_flex || g->arch->regs)
		return false;
	if (r->flex.on && offset_rule(ops, n, mem, &off) && !off) {
		r->fp = 0;
		r->flex.fp_saved = true;
		return true;
	}
	/* libdw gives DW_CFA_expression's DWARF stack start, the CFA, first */
	if (ops == mem || n != 2 || ops[0].atom != DW_OP_call_frame_cfa ||
	    !breg(&ops[1], &reg, &off) || reg > FLEX_MAX_REG || !fits32(off))
		return false;
	r->flex.on = true;
	r->flex.fp_reg_p = true;
	r->flex.fp_reg = (uint8_t)reg;
	r->fp = (int32_t)off;
	return true;
}

/* What SFrame can say of the row libdw computed in @fr */
static void classify(const struct gen *g, Dwarf_Frame *fr, bool signal, struct row *r)
{
	const struct sf_arch *a = g->arch;
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;

	r->reason = -1;
	r->outermost = false;
	r->base = SF_BASE_SP;
	r->cfa = 0;
	r->fp = 0;
	r->ra = 0;
	memset(&r->flex, 0, sizeof(r->flex));
	if (signal) {
		r->reason = SFGEN_NR_SIGNAL;
		return;
	}
	/* RA undefined: the outermost frame, whatever the CFA */
	if (dwarf_frame_register(fr, a->reg_ra, mem, &ops, &n)) {
		r->reason = SFGEN_NR_CFI_ERROR;
		return;
	}
	if (!n && ops == mem) {
		r->outermost = true;
		return;
	}
	/* then the CFA, the return address, the frame pointer, in that order */
	if (a->regs) {
		if (!s390x_loc(ops, n, mem, &r->ra))
			r->reason = SFGEN_NR_RA;
	} else if (!offset_rule(ops, n, mem, &off) || off != a->fixed_ra_off) {
		r->reason = SFGEN_NR_RA;
	}
	if (dwarf_frame_cfa(fr, &ops, &n) || !n) {
		r->reason = SFGEN_NR_CFI_ERROR;
		return;
	}
	if (n != 1 || ops[0].atom != DW_OP_bregx) {
		/* a row whose RA has no rule is named by its CFA, as before */
		if (r->reason < 0 && !in_plt(g, r->start) && flex_cfa(g, ops, n, r))
			goto cfa_done;
		r->reason = in_plt(g, r->start) ? SFGEN_NR_PLT : SFGEN_NR_CFA_EXPR;
		return;
	}
	if (ops[0].number == a->reg_sp) {
		r->base = SF_BASE_SP;
	} else if (ops[0].number == a->reg_fp) {
		r->base = SF_BASE_FP;
	} else if (r->reason >= 0 || !flex_cfa(g, ops, n, r)) {
		r->reason = SFGEN_NR_CFA_REG;
		return;
	}
	off = (int64_t)ops[0].number2;
	if (r->flex.on)
		goto cfa_done;
	/* s390x: stored as (offset - 160) / 8, so 160 plus a multiple of 8 */
	if (!fits32(off) || (off - a->cfa_adjust) % a->cfa_scale ||
	    !fits32(sf_cfa_encode(a, off))) {
		r->reason = SFGEN_NR_RANGE;
		return;
	}
	r->cfa = (int32_t)off;
cfa_done:
	if (r->reason >= 0)
		return;
	if (dwarf_frame_register(fr, a->reg_fp, mem, &ops, &n)) {
		r->reason = SFGEN_NR_CFI_ERROR;
		return;
	}
	if (a->regs) {
		if (!s390x_loc(ops, n, mem, &r->fp))
			r->reason = SFGEN_NR_FP;
		return;
	}
	if (!n)		/* same value or undefined: not saved here */
		return;
	/* offset 0 reads as "not saved" in an FRE: no rule for it */
	if (!offset_rule(ops, n, mem, &off) || !off) {
		if (!flex_fp(g, ops, n, mem, r))
			r->reason = SFGEN_NR_FP;
		return;
	}
	if (!fits32(off)) {
		r->reason = SFGEN_NR_RANGE;
		return;
	}
	r->fp = (int32_t)off;
}

/* The rows of the FDE [lo, hi) into g->rows */
static int fde_rows(struct gen *g, uint64_t lo, uint64_t hi, uint64_t prog_bytes)
{
	uint64_t addr = lo;
	Dwarf_Addr rs, re;
	Dwarf_Frame *fr;
	struct row *r;
	bool signal;

	g->nrows = 0;
	while (addr < hi) {
		if (grow((void **)&g->rows, &g->arows, g->nrows, sizeof(*g->rows)))
			return gen_fail(g, "out of memory", ENOMEM);
		r = &g->rows[g->nrows++];
		r->start = addr;
		r->end = hi;
		g->work += prog_bytes + 1;
		if (g->work > g->work_max)
			return gen_fail(g, ".eh_frame takes too much work (malformed?)", EBADMSG);
		if (g->nrows > GEN_MAX_ROWS ||
		    dwarf_cfi_addrframe(g->cfi, addr, &fr)) {
			r->reason = SFGEN_NR_CFI_ERROR;
			break;
		}
		if (dwarf_frame_info(fr, &rs, &re, &signal) < 0 || re <= addr) {
			free(fr);
			r->reason = SFGEN_NR_CFI_ERROR;
			break;
		}
		if (re < hi)
			r->end = re;
		classify(g, fr, signal, r);
		free(fr);
		addr = r->end;
	}
	return 0;
}

static bool same_rule(const struct row *a, const struct fre *b)
{
	if (a->outermost || b->outermost)
		return a->outermost == b->outermost;
	return a->base == b->base && a->cfa == b->cfa && a->fp == b->fp && a->ra == b->ra &&
	       !memcmp(&a->flex, &b->flex, sizeof(a->flex));
}

/* SFrame FDEs for the runs of rows that have a rule */
static int fde_emit(struct gen *g)
{
	struct sfgen_stats *st = g->st;
	struct fde *f = NULL;
	struct fre *fre;
	size_t i;

	for (i = 0; i < g->nrows; i++) {
		const struct row *r = &g->rows[i];

		st->rows++;
		if (r->reason >= 0) {
			st->no_rule[r->reason]++;
			tell(g, r->start, r->end, r->reason);
			f = NULL;
			continue;
		}
		if (r->outermost)
			st->rows_outermost++;
		st->covered_bytes += r->end - r->start;
		if (f && r->end - f->start > UINT32_MAX)
			f = NULL;
		if (f && same_rule(r, &g->fres[f->first + f->num - 1])) {
			f->size = r->end - f->start;
			continue;
		}
		if (f && f->num == GEN_MAX_FRES)
			f = NULL;
		/* an FDE is flexible or not as a whole: a new one where that changes */
		if (f && !r->outermost && r->flex.on != f->flex)
			f = NULL;
		if (!f) {
			if (grow((void **)&g->fdes, &g->afdes, g->nfdes, sizeof(*g->fdes)))
				return gen_fail(g, "out of memory", ENOMEM);
			f = &g->fdes[g->nfdes];
			f->start = r->start;
			f->first = g->nfres;
			f->num = 0;
			f->order = g->nfdes++;
			f->flex = r->flex.on;
		}
		if (grow((void **)&g->fres, &g->afres, g->nfres, sizeof(*g->fres)))
			return gen_fail(g, "out of memory", ENOMEM);
		fre = &g->fres[g->nfres++];
		fre->start = r->start - f->start;
		fre->outermost = r->outermost;
		fre->base = r->base;
		fre->cfa = r->cfa;
		fre->fp = r->fp;
		fre->ra = r->ra;
		fre->flex = r->flex;
		f->num++;
		f->size = r->end - f->start;
	}
	return 0;
}

/* Every FDE of .eh_frame */
static int gen_fdes(struct gen *g, const unsigned char *ident)
{
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	const struct cie *cie;
	const uint8_t *p, *end;
	uint64_t lo, len;
	int ret;

	for (;;) {
		ret = dwarf_next_cfi(ident, g->eh, true, off, &next, &e);
		if (ret == 1)
			break;
		if (ret < 0 || next <= off)
			return gen_fail(g, ".eh_frame malformed", EBADMSG);
		if (dwarf_cfi_cie_p(&e)) {
			if (add_cie(g, off, &e.cie))
				return gen_fail(g, "out of memory", ENOMEM);
			off = next;
			continue;
		}
		off = next;
		g->st->fdes_in++;
		cie = find_cie(g, e.fde.CIE_pointer);
		p = e.fde.start;
		end = e.fde.end;
		if (!cie || cie->enc < 0 ||
		    !read_ptr(g, cie->enc, &p, end, true, &lo) ||
		    !read_ptr(g, cie->enc & 0x0f, &p, end, false, &len) ||
		    lo + len < lo) {
			g->st->no_rule[SFGEN_NR_BAD_FDE]++;
			if (g->norule)	/* its range is not known */
				g->norule(0, 0, SFGEN_NR_BAD_FDE, g->ctx);
			continue;
		}
		if (!len)
			continue;
		if (lo < g->text_start || lo + len > g->text_end) {
			g->st->no_rule[SFGEN_NR_OUTSIDE]++;
			tell(g, lo, lo + len, SFGEN_NR_OUTSIDE);
			continue;
		}
		if (fde_rows(g, lo, lo + len, (uint64_t)(end - p)) || fde_emit(g))
			return -1;
	}
	return 0;
}

/* ---- the section ---- */

static int cmp_fde(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static unsigned int off_size(int32_t v)
{
	if (v >= INT8_MIN && v <= INT8_MAX)
		return SF_OFF_1B;
	if (v >= INT16_MIN && v <= INT16_MAX)
		return SF_OFF_2B;
	return SF_OFF_4B;
}

static unsigned int fde_fre_type(const struct gen *g, const struct fde *f)
{
	uint32_t last = g->fres[f->first + f->num - 1].start;

	return last <= 0xff ? SF_FRE_TYPE_ADDR1 :
	       last <= 0xffff ? SF_FRE_TYPE_ADDR2 : SF_FRE_TYPE_ADDR4;
}

/*
 * The data words of an FRE of a flexible FDE: CFA (control word, offset),
 * RA (a lone 0: at the fixed offset), FP (control word, offset) if saved.
 * A default row in a flexible FDE says the same in flexible words.
 */
static unsigned int fre_flex_words(const struct sf_arch *a, const struct fre *r,
				   int32_t off[SF_FLEX_MAX_WORDS])
{
	const struct flex *x = &r->flex;
	unsigned int n = 0;

	if (x->cfa_reg_p)
		off[n++] = SF_FLEX_CTRL(x->cfa_reg, x->cfa_deref, 1);
	else
		off[n++] = SF_FLEX_CTRL(r->base == SF_BASE_FP ? a->reg_fp : a->reg_sp, 0, 1);
	off[n++] = r->cfa;
	if (!x->fp_saved && !x->fp_reg_p && !r->fp)
		return n;
	off[n++] = 0;
	off[n++] = x->fp_reg_p ? SF_FLEX_CTRL(x->fp_reg, 1, 1) : SF_FLEX_CTRL(0, 1, 0);
	off[n++] = r->fp;
	return n;
}

/* An FRE's info byte and its offsets (data words) */
static unsigned int fre_encode(const struct sf_arch *a, const struct fre *r, bool flex,
			       int32_t off[SF_FLEX_MAX_WORDS], uint8_t *info)
{
	unsigned int n, size;

	if (r->outermost) {
		*info = SF_FRE_INFO(SF_BASE_SP, 0, SF_OFF_1B);
		return 0;
	}
	if (flex) {
		n = fre_flex_words(a, r, off);
		goto sized;
	}
	off[0] = (int32_t)sf_cfa_encode(a, r->cfa);
	n = 1;
	if (a->max_offsets == 3) {
		/* CFA, RA, FP: an RA of 0 (not saved) pads when only FP is saved */
		off[1] = r->ra;
		off[2] = r->fp;
		n = r->fp ? 3 : r->ra ? 2 : 1;
	} else if (r->fp) {
		off[1] = r->fp;
		n = 2;
	}
sized:
	size = SF_OFF_1B;
	for (unsigned int i = 0; i < n; i++)
		if (off_size(off[i]) > size)
			size = off_size(off[i]);
	/* a flexible FRE's base bit is unused: its CFA word names the base */
	*info = SF_FRE_INFO(flex ? SF_BASE_FP : r->base, n, size);
	return n;
}

static int gen_write(struct gen *g, void **secp, size_t *lenp)
{
	const struct sf_arch *a = g->arch;
	uint64_t fre_len = 0, total;
	uint8_t *sec, *p, info;
	int32_t off[SF_FLEX_MAX_WORDS];
	unsigned int n, asz;
	size_t i, k;

	if (!g->nfdes)
		return gen_fail(g, "no FDE that SFrame can express", ENODATA);
	qsort(g->fdes, g->nfdes, sizeof(*g->fdes), cmp_fde);
	for (i = 0; i < g->nfdes; i++) {
		const struct fde *f = &g->fdes[i];

		asz = 1u << fde_fre_type(g, f);
		fre_len += SF_V3_FDA_SIZE;
		for (k = 0; k < f->num; k++) {
			n = fre_encode(a, &g->fres[f->first + k], f->flex, off, &info);
			fre_len += asz + 1 + n * (1u << SF_FRE_SIZE(info));
		}
	}
	total = SF_HDR_SIZE + (uint64_t)g->nfdes * SF_V3_FDI_SIZE + fre_len;
	if (fre_len > UINT32_MAX || g->nfdes > UINT32_MAX || g->nfres > UINT32_MAX)
		return gen_fail(g, "section too large", EFBIG);
	sec = calloc(1, total);
	if (!sec)
		return gen_fail(g, "out of memory", ENOMEM);

	sf_put(a, sec, 2, SF_MAGIC);
	sec[2] = SF_VERSION_3;
	sec[3] = SF_F_FDE_SORTED;
	sec[SF_HDR_ABI] = a->abi;
	sec[SF_HDR_FIXED_FP] = (uint8_t)a->fixed_fp_off;
	sec[SF_HDR_FIXED_RA] = (uint8_t)a->fixed_ra_off;
	sec[SF_HDR_AUXLEN] = 0;
	sf_put(a, sec + SF_HDR_NUM_FDES, 4, g->nfdes);
	sf_put(a, sec + SF_HDR_NUM_FRES, 4, g->nfres);
	sf_put(a, sec + SF_HDR_FRE_LEN, 4, fre_len);
	sf_put(a, sec + SF_HDR_FDES_OFF, 4, 0);
	sf_put(a, sec + SF_HDR_FRES_OFF, 4, (uint64_t)g->nfdes * SF_V3_FDI_SIZE);

	p = sec + SF_HDR_SIZE + g->nfdes * SF_V3_FDI_SIZE;
	for (i = 0; i < g->nfdes; i++) {
		const struct fde *f = &g->fdes[i];
		uint8_t *idx = sec + SF_HDR_SIZE + i * SF_V3_FDI_SIZE;
		unsigned int type = fde_fre_type(g, f);

		asz = 1u << type;
		/* function start as if section and object were both at 0 */
		sf_put(a, idx, 8, f->start);
		sf_put(a, idx + 8, 4, f->size);
		sf_put(a, idx + 12, 4, (uint64_t)(p - (sec + SF_HDR_SIZE + g->nfdes * SF_V3_FDI_SIZE)));
		sf_put(a, p, 2, f->num);
		p[2] = SF_FDE_INFO(type, SF_FDE_PCINC);
		p[3] = f->flex ? SF_V3_FDE_TYPE_FLEX : SF_V3_FDE_TYPE_DEFAULT;
		p[4] = 0;
		p += SF_V3_FDA_SIZE;
		for (k = 0; k < f->num; k++) {
			const struct fre *r = &g->fres[f->first + k];
			unsigned int osz;

			n = fre_encode(a, r, f->flex, off, &info);
			osz = 1u << SF_FRE_SIZE(info);
			sf_put(a, p, asz, r->start);
			p[asz] = info;
			p += asz + 1;
			for (unsigned int j = 0; j < n; j++) {
				sf_put(a, p, osz, (uint32_t)off[j]);
				p += osz;
			}
		}
	}
	g->st->fdes_out = g->nfdes;
	g->st->fres = g->nfres;
	*secp = sec;
	*lenp = total;
	return 0;
}

int sfgen_from_elf(struct Elf *elf, unsigned int flags, void **sec, size_t *len,
		   struct sfgen_stats *stats, sfgen_norule_fn norule, void *ctx)
{
	struct sfgen_stats dummy;
	struct gen g = { 0 };
	const char *ident;
	int ret = -1, err;

	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	g.st = stats;
	g.elf = elf;
	g.norule = norule;
	g.ctx = ctx;
	if (!elf || !sec || !len || (flags & ~SFGEN_F_NO_FLEX))
		return gen_fail(&g, "bad argument", EINVAL);
	g.no_flex = flags & SFGEN_F_NO_FLEX;
	*sec = NULL;
	*len = 0;
	if (gen_scan_elf(&g))
		return -1;
	ident = elf_getident(elf, NULL);
	if (!ident)
		return gen_fail(&g, "ELF identification unreadable", ENOEXEC);
	g.cfi = dwarf_getcfi_elf(elf);
	if (!g.cfi)
		return gen_fail(&g, ".eh_frame unusable by libdw", EBADMSG);
	if (!gen_fdes(&g, (const unsigned char *)ident))
		ret = gen_write(&g, sec, len);
	err = errno;
	dwarf_cfi_end(g.cfi);
	free(g.cies);
	free(g.rows);
	free(g.fres);
	free(g.fdes);
	errno = err;
	return ret;
}

int sfgen_from_fd(int fd, unsigned int flags, void **sec, size_t *len,
		  struct sfgen_stats *stats)
{
	Elf *elf;
	int ret, err;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		if (stats) {
			memset(stats, 0, sizeof(*stats));
			stats->error = "cannot read the file as ELF";
		}
		errno = ENOEXEC;
		return -1;
	}
	ret = sfgen_from_elf(elf, flags, sec, len, stats, NULL, NULL);
	err = errno;
	elf_end(elf);
	errno = err;
	return ret;
}
