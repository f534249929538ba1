/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame stack trace format, as far as the kernel reads it: versions 2
 * and 3, described in binutils' libsframe documentation (sframe-spec) and
 * include/sframe.h.  A section is read in the byte order of the machine:
 * the ABI the header names has the machine's (amd64 little, s390x big).
 */
#ifndef _KERNEL_UNWIND_SFRAME_H
#define _KERNEL_UNWIND_SFRAME_H

#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/unwind_user.h>
#include <linux/unwind_user_types.h>

#define SFRAME_MAGIC			0xdee2
#define SFRAME_VERSION_2		2
#define SFRAME_VERSION_3		3

#define SFRAME_F_FDE_SORTED		0x1
#define SFRAME_F_FRAME_POINTER		0x2
/* binutils >= 2.45: FDE function start is relative to the FDE field */
#define SFRAME_F_FDE_FUNC_START_PCREL	0x4
#define SFRAME_V2_FLAGS			(SFRAME_F_FDE_SORTED |		\
					 SFRAME_F_FRAME_POINTER |	\
					 SFRAME_F_FDE_FUNC_START_PCREL)
/* Version 3 drops SFRAME_F_FRAME_POINTER */
#define SFRAME_V3_FLAGS			(SFRAME_F_FDE_SORTED |		\
					 SFRAME_F_FDE_FUNC_START_PCREL)

#define SFRAME_ABI_AMD64_ENDIAN_LITTLE	3
#define SFRAME_ABI_S390X_ENDIAN_BIG	4

#define SFRAME_FRE_TYPE_ADDR1		0
#define SFRAME_FRE_TYPE_ADDR2		1
#define SFRAME_FRE_TYPE_ADDR4		2

/* How an FDE's FRE start addresses are matched: its "PC type" in version 3 */
#define SFRAME_FDE_TYPE_PCINC		0
#define SFRAME_FDE_TYPE_PCMASK		1

/* Version 3 FDE types: how the data words of the FREs are read */
#define SFRAME_V3_FDE_TYPE_DEFAULT	0
#define SFRAME_V3_FDE_TYPE_FLEX		1

#define SFRAME_BASE_REG_FP		0
#define SFRAME_BASE_REG_SP		1

struct sframe_preamble {
	u16	magic;
	u8	version;
	u8	flags;
} __packed;

struct sframe_header {
	struct sframe_preamble preamble;
	u8	abi_arch;
	s8	cfa_fixed_fp_offset;
	s8	cfa_fixed_ra_offset;
	u8	auxhdr_len;
	u32	num_fdes;
	u32	num_fres;
	u32	fre_len;
	u32	fdes_off;
	u32	fres_off;
} __packed;

/* A function descriptor entry (FDE) of version 2 */
struct sframe_fde_v2 {
	s32	start_addr;
	u32	func_size;
	u32	fres_off;
	u32	fres_num;
	u8	info;
	u8	rep_size;
	u16	padding;
} __packed;

/*
 * A function descriptor of version 3 comes in two parts.  The index entry,
 * of fixed size, is what the binary search reads; the attributes sit at
 * the start of the function's FRE data, right before its first FRE.
 */
struct sframe_fdi_v3 {
	s64	start_off;
	u32	func_size;
	u32	fres_off;
} __packed;

struct sframe_fda_v3 {
	u16	fres_num;
	u8	info;
	u8	info2;
	u8	rep_size;
} __packed;

/*
 * sframe_fde_v2.info and sframe_fda_v3.info: FRE type in bits 0-3, PC type
 * in bit 4; version 3 marks a signal trampoline in bit 7.
 */
#define SFRAME_FDE_FRE_TYPE(info)	((info) & 0xf)
#define SFRAME_FDE_TYPE(info)		(((info) >> 4) & 0x1)
#define SFRAME_V3_FDE_SIGNAL(info)	(((info) >> 7) & 0x1)
/* sframe_fda_v3.info2: the FDE type in bits 0-4 */
#define SFRAME_V3_FDE_TYPE(info2)	((info2) & 0x1f)

/*
 * The info byte of a frame row entry (FRE): CFA base register in bit 0,
 * number of offsets in bits 1-4, size of each offset in bits 5-6 (1, 2 or
 * 4 bytes), a mangled return address (aarch64 only) in bit 7.  The offsets
 * are the CFA's, then the return address's if the ABI tracks it in each
 * FRE, then the frame pointer's.
 */
#define SFRAME_FRE_BASE_REG(info)	((info) & 0x1)
#define SFRAME_FRE_OFFSET_COUNT(info)	(((info) >> 1) & 0xf)
#define SFRAME_FRE_OFFSET_SIZE(info)	(((info) >> 5) & 0x3)
#define SFRAME_FRE_MANGLED_RA(info)	(((info) >> 7) & 0x1)

/*
 * The data words of an FRE of a version 3 flexible FDE: the CFA as a
 * control word and an offset; then the return address, a lone 0 when it
 * is at the ABI's fixed offset, else a control word and an offset; then,
 * if saved, the frame pointer as a control word and an offset.  A control
 * word holds a DWARF register number in bits 3 and up, "the value is read
 * from memory at the base plus the offset" in bit 1, and "the base is
 * that register, not the CFA" in bit 0.
 */
#define SFRAME_FLEX_REG_P(ctrl)		((ctrl) & 0x1)
#define SFRAME_FLEX_DEREF(ctrl)		(((ctrl) >> 1) & 0x1)
#define SFRAME_FLEX_REGNUM(ctrl)	((u32)(ctrl) >> 3)
#define SFRAME_FLEX_MAX_WORDS		6
/* The control word of a value saved at the CFA plus the offset */
#define SFRAME_FLEX_AT_CFA		0x2

/*
 * A row's rule, packed in 32 bits: its kind in bits 0-1, the CFA's base
 * register in bit 2 (set: the frame pointer), and the offsets from the
 * CFA in units of 8 bytes, signed: the saved return address's in bits 3-7
 * (an ABI that tracks it in each FRE, else the section's fixed offset),
 * the saved frame pointer's in bits 8-15 (0: not saved), the CFA's own in
 * bits 16-31; the last two unpack in one shift each.
 */
#define SFRAME_ROW_NONE			0	/* no rule: -ENOENT */
#define SFRAME_ROW_RULE			1	/* the rule packed */
#define SFRAME_ROW_OUTERMOST		2	/* an FRE with no offset */
#define SFRAME_ROW_SLOW			3	/* read the section */
#define SFRAME_ROW_KIND(rule)		((rule) & 0x3)
#define SFRAME_ROW_USE_FP		0x4
#define SFRAME_ROW_RA(rule)		(sign_extend32((rule) >> 3, 4) * 8)
#define SFRAME_ROW_FP(rule)		((s8)((rule) >> 8) * 8)
#define SFRAME_ROW_CFA(rule)		(((s32)(rule) >> 16) * 8)

/**
 * struct sframe_row - where a rule starts to apply
 * @start:	offset of the first address it covers from the text's start
 * @rule:	the rule, packed as SFRAME_ROW_*() say
 *
 * A row applies up to the next row's start, or to the end of the text.
 */
struct sframe_row {
	u32	start;
	u32	rule;
};

/**
 * struct sframe_rows - the rules of a section, decoded into kernel memory
 * @rcu:	frees it after the lookups that may still read it
 * @ref:	the sections that use it: a forked mm's copies share it
 * @nr:		number of rows, the last one an end that no offset in the
 *		text reaches (start U32_MAX)
 * @shift:	the text is cut in blocks of 1 << @shift bytes (16 or more:
 *		at most as many blocks as rows)
 * @blocks:	number of blocks
 * @span:	size of the text
 * @block:	@block[@b] is the row in effect at the start of block @b:
 *		the rule for an address in the block is that row's or one of
 *		the next few, those that start in the block.  It lies right
 *		after the rows.
 * @row:	the rows, by ascending start, the first at 0
 *
 * Made once, when the section's FDE table is checked, from every FDE and
 * FRE: a lookup is then one read of the block index and a scan of the
 * rows that start in that block (about one: rows start at increasing
 * offsets, fewer than 1 << @shift in a block), with no user access.  A
 * function whose rules do not fit a packed rule, or whose FREs could not
 * be decoded, has an SFRAME_ROW_SLOW row: that lookup reads the section,
 * as without rows.
 */
struct sframe_rows {
	struct rcu_head		rcu;
	refcount_t		ref;
	unsigned int		nr;
	unsigned int		shift;
	unsigned int		blocks;
	unsigned long		span;
	u32			*block;
	struct sframe_row	row[];
};

/*
 * The row in effect at @off, from the row in effect at the start of its
 * block: the rows end with one no offset of the text reaches
 */
static __always_inline const struct sframe_row *
sframe_rows_find(const struct sframe_row *row, const u32 *block,
		 unsigned int shift, unsigned long off)
{
	row += block[off >> shift];
	while (row[1].start <= off)
		row++;
	return row;
}

/*
 * The rule in effect at @off, an offset in the text @rows describe (none
 * past its end)
 */
static __always_inline u32 sframe_rows_search(const struct sframe_rows *rows,
					      unsigned long off)
{
	if (off >= rows->span)
		return SFRAME_ROW_NONE;
	return sframe_rows_find(rows->row, rows->block, rows->shift, off)->rule;
}

/*
 * The rule of a row of kind SFRAME_ROW_RULE or SFRAME_ROW_OUTERMOST, as
 * the FRE it was packed from gives it: unpacked where it is used, with no
 * section at hand
 */
static __always_inline void sframe_row_frame(u32 rule,
					     struct unwind_user_frame *frame)
{
	*frame = (struct unwind_user_frame) {
		.cfa_off	= SFRAME_ROW_CFA(rule),
		.ra_off		= SFRAME_ROW_RA(rule),
		.fp_off		= SFRAME_ROW_FP(rule),
		.use_fp		= rule & SFRAME_ROW_USE_FP,
		.outermost	= SFRAME_ROW_KIND(rule) == SFRAME_ROW_OUTERMOST,
	};
#ifdef UNWIND_USER_SFRAME_SP_OFF
	frame->sp_off = UNWIND_USER_SFRAME_SP_OFF;
#endif
#ifdef UNWIND_USER_SFRAME_RA_REG
	/* not saved yet: still in the register that received it */
	if (!frame->ra_off) {
		frame->ra_in_reg = true;
		frame->ra_reg = UNWIND_USER_SFRAME_RA_REG;
	}
#endif
}

/**
 * struct sframe_section - an .sframe section of an address space
 * @rcu:		frees it after the lookups that may still copy it
 * @id:			which registration this is, unique in its mm: a
 *			section registered again at the same address is
 *			another one
 * @sframe_start:	user address of the section
 * @sframe_end:		end of the section
 * @text_start:		start of the code the section describes
 * @text_end:		end of that code
 * @fdes_start:		user address of the first FDE
 * @fres_start:		user address of the FRE sub-section
 * @fres_end:		end of the FRE sub-section
 * @num_fdes:		number of FDEs
 * @num_fres:		number of FREs, as the header says
 * @fde_size:		size of an FDE (version 2) or FDE index entry (3)
 * @ra_off:		fixed offset of the return address from the CFA
 * @version:		SFrame version
 * @flags:		flags of the header
 * @fdes_checked:	the FDE table was found sorted and inside the
 *			section (at registration, or at the first lookup
 *			for a section registered at exec)
 * @rows:		the section's rules decoded into kernel memory,
 *			made at a lookup; NULL: every lookup reads the
 *			section.  Read under RCU only.
 * @decoded:		a lookup made its rows, or tried to
 * @misses:		lookups that read the section while it had no rows
 *			(sframe.decode=1 makes them after some)
 * @data:		the section's bytes, when they are held in kernel
 *			memory (a section attached to a file): the byte at
 *			section address @sframe_start + n is @data[n];
 *			NULL for a section in user memory
 *
 * Everything here was checked against the section's size when it was
 * added; what lies in user memory may still change and is checked again
 * on every read.
 */
struct sframe_section {
	struct rcu_head		rcu;
	u64			id;
	unsigned long		sframe_start;
	unsigned long		sframe_end;
	unsigned long		text_start;
	unsigned long		text_end;
	unsigned long		fdes_start;
	unsigned long		fres_start;
	unsigned long		fres_end;
	unsigned int		num_fdes;
	unsigned int		num_fres;
	unsigned int		fde_size;
	s8			ra_off;
	u8			version;
	u8			flags;
	bool			fdes_checked;
	bool			decoded;
	atomic_t		misses;
	struct sframe_rows	*rows;
	const void		*data;
};

/**
 * struct sframe_fde - a function descriptor entry, decoded
 * @func_start:	user address of the function
 * @func_size:	its size in bytes
 * @fres_start:	user address of its first FRE
 * @fres_num:	number of its FREs
 * @fre_type:	SFRAME_FRE_TYPE_ADDR*: size of the FREs' start addresses
 * @fde_type:	SFRAME_FDE_TYPE_PCINC or SFRAME_FDE_TYPE_PCMASK
 * @rep_size:	size of the repeated block of a PCMASK FDE
 * @flex:	a version 3 flexible FDE: its FREs hold control words
 * @no_rule:	its FREs hold no rule this unwinder follows (an FDE type not
 *		known yet, a flexible FDE where the architecture names no
 *		registers, a signal trampoline): the frame is unwound some
 *		other way
 *
 * One decoder per version fills it; the FRE walk is shared.
 */
struct sframe_fde {
	unsigned long	func_start;
	u32		func_size;
	unsigned long	fres_start;
	u32		fres_num;
	u8		fre_type;
	u8		fde_type;
	u8		rep_size;
	bool		flex;
	bool		no_rule;
};

struct mm_struct;
struct sframe_walk;
struct unwind_user_frame;

int sframe_section_check(struct sframe_section *sec);
int sframe_section_find(const struct sframe_section *sec, unsigned long ip,
			struct unwind_user_frame *frame);

/* Sections attached to object files (sframe_file.c) */
bool sframe_file_attached(struct mm_struct *mm);
int sframe_file_walk_find(struct sframe_walk *walk, unsigned long ip,
			  struct unwind_user_frame *frame);
void sframe_file_walk_end(struct sframe_walk *walk);

#endif /* _KERNEL_UNWIND_SFRAME_H */
