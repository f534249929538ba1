/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The SFrame format as sframe-gen writes and reads it (versions 2 and 3,
 * binutils' sframe-spec and include/sframe.h; the same subset the kernel
 * reads, kernel/unwind/sframe.h), and the one table that holds what is
 * specific to an architecture.  Private to the library: no libdw here, so
 * sframe.c builds without it.
 */
#ifndef _SFRAME_FORMAT_H
#define _SFRAME_FORMAT_H

#include <stdint.h>
#include <string.h>

#define SF_MAGIC		0xdee2
#define SF_VERSION_2		2
#define SF_VERSION_3		3

#define SF_F_FDE_SORTED		0x1
#define SF_F_FRAME_POINTER	0x2	/* version 2 only */
#define SF_F_FDE_FUNC_START_PCREL 0x4
#define SF_V2_FLAGS		(SF_F_FDE_SORTED | SF_F_FRAME_POINTER | \
				 SF_F_FDE_FUNC_START_PCREL)
#define SF_V3_FLAGS		(SF_F_FDE_SORTED | SF_F_FDE_FUNC_START_PCREL)

/* Header: preamble (magic u16, version u8, flags u8), then these */
#define SF_HDR_ABI		4	/* u8 */
#define SF_HDR_FIXED_FP		5	/* s8 */
#define SF_HDR_FIXED_RA		6	/* s8 */
#define SF_HDR_AUXLEN		7	/* u8 */
#define SF_HDR_NUM_FDES		8	/* u32 */
#define SF_HDR_NUM_FRES		12	/* u32 */
#define SF_HDR_FRE_LEN		16	/* u32 */
#define SF_HDR_FDES_OFF		20	/* u32 */
#define SF_HDR_FRES_OFF		24	/* u32 */
#define SF_HDR_SIZE		28

/* Version 2 FDE: s32 start, u32 size, u32 fres_off, u32 fres_num, u8 info, u8 rep, u16 pad */
#define SF_V2_FDE_SIZE		20
/* Version 3 FDE index entry: s64 start, u32 size, u32 offset of its attributes */
#define SF_V3_FDI_SIZE		16
/* Version 3 FDE attributes: u16 fres_num, u8 info, u8 info2, u8 rep_size */
#define SF_V3_FDA_SIZE		5

#define SF_FRE_TYPE_ADDR1	0
#define SF_FRE_TYPE_ADDR2	1
#define SF_FRE_TYPE_ADDR4	2

#define SF_FDE_PCINC		0
#define SF_FDE_PCMASK		1
#define SF_V3_FDE_TYPE_DEFAULT	0
#define SF_V3_FDE_TYPE_FLEX	1

/* FDE info byte: FRE type bits 0-3, PC type bit 4, (v3) signal frame bit 7 */
#define SF_FDE_INFO(fre_type, pctype)	((fre_type) | ((pctype) << 4))
#define SF_FDE_FRE_TYPE(info)		((info) & 0xf)
#define SF_FDE_PCTYPE(info)		(((info) >> 4) & 1)
#define SF_V3_FDE_SIGNAL(info)		(((info) >> 7) & 1)
#define SF_V3_FDE_TYPE(info2)		((info2) & 0x1f)

#define SF_BASE_FP		0
#define SF_BASE_SP		1
/* FRE info byte: base register bit 0, count bits 1-4, size bits 5-6, mangled RA bit 7 */
#define SF_FRE_INFO(base, count, size)	((base) | ((count) << 1) | ((size) << 5))
#define SF_FRE_BASE(info)		((info) & 1)
#define SF_FRE_COUNT(info)		(((info) >> 1) & 0xf)
#define SF_FRE_SIZE(info)		(((info) >> 5) & 3)
#define SF_FRE_MANGLED_RA(info)		(((info) >> 7) & 1)

/*
 * A flexible FDE's FRE holds data words: the CFA's control word and
 * offset, then the RA's (a lone 0: not tracked, the fixed offset
 * applies), then the FP's (absent: not saved).  A control word is
 * (DWARF register << 3) | (deref << 1) | reg_p: the value is the base
 * (that register with reg_p, else the CFA) plus the offset, read from
 * memory there with deref.
 */
#define SF_FLEX_CTRL(reg, deref, reg_p)	((int32_t)(((uint32_t)(reg) << 3) | \
					 ((deref) ? 2u : 0u) | ((reg_p) ? 1u : 0u)))
#define SF_FLEX_REGNUM(ctrl)		((uint32_t)(ctrl) >> 3)
#define SF_FLEX_DEREF(ctrl)		(((ctrl) >> 1) & 1)
#define SF_FLEX_REG_P(ctrl)		((ctrl) & 1)
#define SF_FLEX_MAX_WORDS		6

#define SF_OFF_1B		0
#define SF_OFF_2B		1
#define SF_OFF_4B		2

/*
 * What is specific to an architecture.  amd64: the return address always
 * at CFA-8 (in the header), offsets CFA and FP.  s390x (the SFrame
 * specification's s390x ABI): the return address is tracked per FRE, so
 * the offsets are CFA, RA, FP; the CFA offset is stored as (offset - 160)
 * / 8; an RA or FP offset with its lowest bit set names the DWARF register
 * that holds the value ((regnum << 1) | 1, a leaf function's FPR); an RA
 * offset of 0 stands for "not saved" (still in r14), as padding when only
 * the FP is saved.
 */
struct sf_arch {
	const char	*name;
	uint16_t	e_machine;	/* ELF machine */
	uint8_t		abi;		/* SFrame ABI/arch identifier */
	uint8_t		big_endian;
	uint8_t		reg_sp;		/* DWARF number of the stack pointer */
	uint8_t		reg_fp;		/* of the frame pointer */
	uint8_t		reg_ra;		/* of the return address column */
	int8_t		fixed_ra_off;	/* RA saved at CFA + this (header), 0: per FRE */
	int8_t		fixed_fp_off;	/* header field; 0: FP offset per FRE */
	uint8_t		max_offsets;	/* offsets per FRE: CFA, [RA,] FP */
	uint8_t		cfa_adjust;	/* CFA offset stored as (off - adjust) / scale */
	uint8_t		cfa_scale;
	uint8_t		regs;		/* RA/FP may be kept in a register (LSB set) */
};

#define SF_S390X_CFA_ADJUST	160
#define SF_S390X_CFA_SCALE	8

static const struct sf_arch sf_arches[] = {
	{ "amd64", 62 /* EM_X86_64 */, 3 /* SFRAME_ABI_AMD64_ENDIAN_LITTLE */,
	  0, 7 /* rsp */, 6 /* rbp */, 16 /* rip */, -8, 0, 2, 0, 1, 0 },
	{ "s390x", 22 /* EM_S390 */, 4 /* SFRAME_ABI_S390X_ENDIAN_BIG */,
	  1, 15 /* r15 */, 11 /* r11 */, 14 /* r14 */, 0, 0, 3,
	  SF_S390X_CFA_ADJUST, SF_S390X_CFA_SCALE, 1 },
};

/* The CFA offset as an FRE stores it, and back */
static inline int64_t sf_cfa_encode(const struct sf_arch *a, int64_t off)
{
	return (off - a->cfa_adjust) / a->cfa_scale;
}

static inline int64_t sf_cfa_decode(const struct sf_arch *a, int64_t v)
{
	return v * a->cfa_scale + a->cfa_adjust;
}

/* An RA or FP offset of an arch with SFrame's register encoding */
#define SF_LOC_IS_REG(a, v)	((a)->regs && ((v) & 1))
#define SF_LOC_REG(v)		((uint32_t)(v) >> 1)
#define SF_LOC_OF_REG(r)	((int32_t)(((uint32_t)(r) << 1) | 1))

static inline const struct sf_arch *sf_arch_by_machine(unsigned int machine)
{
	for (unsigned int i = 0; i < sizeof(sf_arches) / sizeof(sf_arches[0]); i++)
		if (sf_arches[i].e_machine == machine)
			return &sf_arches[i];
	return 0;
}

static inline const struct sf_arch *sf_arch_by_abi(unsigned int abi)
{
	for (unsigned int i = 0; i < sizeof(sf_arches) / sizeof(sf_arches[0]); i++)
		if (sf_arches[i].abi == abi)
			return &sf_arches[i];
	return 0;
}

#define SF_HOST_BIG_ENDIAN	(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/*
 * Fields in the byte order of @a.  The host's own order takes one load or
 * store: the registrar relocates every FDE of every object at each
 * process start, and byte loops there cost 200 instructions an FDE.
 */
static inline uint64_t sf_get(const struct sf_arch *a, const void *p, unsigned int size)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	if (a->big_endian == SF_HOST_BIG_ENDIAN) {
		uint32_t v4;
		uint16_t v2;

		switch (size) {
		case 8:
			memcpy(&v, p, 8);
			return v;
		case 4:
			memcpy(&v4, p, 4);
			return v4;
		case 2:
			memcpy(&v2, p, 2);
			return v2;
		case 1:
			return b[0];
		}
	}
	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)b[a->big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

static inline void sf_put(const struct sf_arch *a, void *p, unsigned int size, uint64_t v)
{
	uint8_t *b = p;

	if (a->big_endian == SF_HOST_BIG_ENDIAN && size == 8) {
		memcpy(p, &v, 8);
		return;
	}
	for (unsigned int i = 0; i < size; i++)
		b[a->big_endian ? size - 1 - i : i] = v >> (8 * i);
}

#endif /* _SFRAME_FORMAT_H */
