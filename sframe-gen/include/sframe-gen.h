/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * sframe-gen: an SFrame section generated from an ELF object's .eh_frame,
 * for the kernel's deferred user unwinder (prctl(PR_ADD_SFRAME)).
 *
 * The generator (sfgen_from_fd(), sfgen_from_elf()) needs libdw and
 * libelf; the section functions (sfgen_relocate(), sfgen_check(),
 * sfgen_dump()) are plain C and come alone in sframe.o.
 *
 * Every function that can fail returns -1 and sets errno.
 */
#ifndef _SFRAME_GEN_H
#define _SFRAME_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libelf's Elf (typedef struct Elf Elf in <libelf.h>) */
struct Elf;

/**
 * enum sfgen_reason - why a range of an object's code has no SFrame rule
 *
 * The first ones are about rows of the CFI table (counted in rows); the
 * last two about whole CFI FDEs (counted in FDEs).
 */
enum sfgen_reason {
	SFGEN_NR_CFA_EXPR,	/* CFA given by a DWARF expression */
	SFGEN_NR_CFA_REG,	/* CFA from a register other than SP and FP */
	SFGEN_NR_RA,		/* return address not saved at CFA-8 */
	SFGEN_NR_FP,		/* FP saved by expression, in a register, as a value */
	SFGEN_NR_PLT,		/* a PLT stub's row (expression CFA in .plt*) */
	SFGEN_NR_SIGNAL,	/* a signal frame (CIE augmentation 'S') */
	SFGEN_NR_RANGE,		/* an offset that does not fit 32 bits */
	SFGEN_NR_CFI_ERROR,	/* libdw could not compute the row */
	SFGEN_NR_OUTSIDE,	/* FDE: outside the executable PT_LOAD range */
	SFGEN_NR_BAD_FDE,	/* FDE: its CIE or address encoding is not understood */
	SFGEN_NR_REASONS
};

/**
 * sfgen_reason_name - a short name for a reason ("cfa-expr", "plt", ...)
 * @reason: an enum sfgen_reason
 *
 * Return: a static string; "?" for a value out of range
 */
const char *sfgen_reason_name(int reason);

/**
 * struct sfgen_stats - what a generation found
 *
 * Filled by sfgen_from_fd() and sfgen_from_elf() on success, and as far
 * as it got on failure.  A row is one row of the DWARF CFI table (an
 * address range with one rule), as libdw gives it.
 */
struct sfgen_stats {
	unsigned long	fdes_in;	/* CFI FDEs in .eh_frame */
	unsigned long	fdes_out;	/* SFrame FDEs written */
	unsigned long	rows;		/* CFI rows of the FDEs inside the text */
	unsigned long	rows_outermost;	/* of them, RA undefined: FRE with no offset */
	unsigned long	fres;		/* FREs written (equal rows merged) */
	/* rows (FDEs for SFGEN_NR_OUTSIDE and SFGEN_NR_BAD_FDE) with no rule */
	unsigned long	no_rule[SFGEN_NR_REASONS];
	uint64_t	text_start;	/* executable PT_LOAD range (ELF vaddr) */
	uint64_t	text_end;
	uint64_t	text_bytes;	/* bytes of SHF_EXECINSTR sections in it */
	uint64_t	covered_bytes;	/* bytes of it an SFrame FDE covers */
	uint64_t	eh_frame_bytes;	/* size of .eh_frame */
	const char	*error;		/* on failure: what went wrong (static) */
};

/**
 * sfgen_norule_fn - told about each range left without a rule
 * @start: ELF vaddr of the first byte
 * @end: one past the last byte
 * @reason: an enum sfgen_reason
 * @ctx: the caller's pointer
 */
/*
 * Flag of sfgen_from_fd(): write no flexible FDE (version 3 FDE type 1).
 * By default, amd64 rows whose CFA is read from memory or taken from a
 * register other than SP and FP (DRAP), or whose FP is saved at an
 * address a register gives, get flexible FDEs; a kernel that does not
 * follow them skips those functions (frame pointers there).
 */
#define SFGEN_F_NO_FLEX		0x1

typedef void (*sfgen_norule_fn)(uint64_t start, uint64_t end, int reason, void *ctx);

/**
 * sfgen_from_fd - generate the SFrame section of an ELF object
 * @fd: the object, open for reading (its offset is not used)
 * @flags: 0, or SFGEN_F_NO_FLEX (others give EINVAL)
 * @sec: where to put the section, allocated with malloc(); the caller frees it
 * @len: where to put its size
 * @stats: counts and coverage, or NULL
 *
 * The section is SFrame version 3 for the object's machine (amd64 or
 * s390x), flags SFRAME_F_FDE_SORTED, one FDE per CFI FDE (split where
 * some rows have no rule), one FRE per row (equal neighbours merged).
 * FDE function starts are written as if both the object and the section
 * were at address 0: each is the function's ELF vaddr.  Before handing
 * the section to the kernel at address S for an object loaded at base B,
 * call sfgen_relocate(sec, len, B - S).
 *
 * Return: 0; -1 with errno: ENOEXEC (not an ELF object, or truncated),
 * ENOTSUP (machine or object type not supported), ENODATA (no .eh_frame,
 * or no FDE SFrame can express: the kernel refuses an empty section),
 * EBADMSG (.eh_frame malformed), EINVAL (bad argument), ENOMEM
 */
int sfgen_from_fd(int fd, unsigned int flags, void **sec, size_t *len,
		  struct sfgen_stats *stats);

/**
 * sfgen_from_elf - sfgen_from_fd() on an ELF handle, telling the gaps
 * @elf: a libelf handle of the object (ELF_C_READ or ELF_C_READ_MMAP)
 * @flags: as for sfgen_from_fd()
 * @sec: as for sfgen_from_fd()
 * @len: as for sfgen_from_fd()
 * @stats: as for sfgen_from_fd()
 * @norule: called for each range of an FDE left without a rule, or NULL
 * @ctx: passed to @norule
 *
 * Return: as sfgen_from_fd()
 */
int sfgen_from_elf(struct Elf *elf, unsigned int flags, void **sec, size_t *len,
		   struct sfgen_stats *stats, sfgen_norule_fn norule, void *ctx);

/**
 * sfgen_relocate - move the FDE function starts of a section by @delta
 * @sec: an SFrame section (version 2 or 3)
 * @len: its size
 * @delta: what to add to every function start field
 *
 * For a section from sfgen_from_fd() mapped at S, for an object loaded at
 * base B, @delta is B - S.  The same holds with SFRAME_F_FDE_FUNC_START_PCREL
 * set.  The header is checked first; nothing is changed on failure.
 *
 * Return: 0; -1 with errno EINVAL (not a section it can parse), ERANGE (a
 * version 2 field would overflow its 32 bits)
 */
int sfgen_relocate(void *sec, size_t len, int64_t delta);

/**
 * sfgen_check - the kernel's checks of a section, all of them, at once
 * @sec: the section
 * @len: its size
 * @sec_addr: the address the section is at (0 for one fresh from
 *	sfgen_from_fd(); S after sfgen_relocate(sec, len, B - S))
 * @text_start: start of the code it describes (B + stats.text_start)
 * @text_end: end of that code
 * @why: if not NULL, set to a static string naming the first failed check
 *
 * Checks what PR_ADD_SFRAME checks (header, version, ABI, flags, the
 * sub-sections inside the section, each FDE sorted, inside the text range,
 * its FREs starting inside the FRE sub-section) and what the kernel checks
 * on each FRE it reads during an unwind (inside the FRE sub-section,
 * starts ascending and inside the function, at most 2 offsets, no
 * mangled-RA bit, valid sizes), for every FRE.  Two more checks bound its
 * work by the section's size: all FDEs together may not list more FREs
 * than the header says, nor the header more than fit (2 bytes each).
 *
 * Return: 0 when the kernel would take and use the section; -1 with errno
 * EINVAL (a check failed), EOPNOTSUPP (an SFrame version or ABI the kernel
 * does not read)
 */
int sfgen_check(const void *sec, size_t len, uint64_t sec_addr,
		uint64_t text_start, uint64_t text_end, const char **why);

/**
 * sfgen_dump - print one line per FRE of a section
 * @out: where to print
 * @sec: the section
 * @len: its size
 * @sec_addr: the address the section is at, as for sfgen_check()
 *
 * Each line is "START END cfa=sp+16 fp=cfa-16" (hex addresses, the range
 * the FRE covers; "fp=" only when the frame pointer is saved; "ra=u" and
 * no rule for an outermost frame).
 *
 * Return: number of FREs printed; -1 with errno EINVAL when the section
 * cannot be parsed (lines printed before stay)
 */
long sfgen_dump(FILE *out, const void *sec, size_t len, uint64_t sec_addr);

#ifdef __cplusplus
}
#endif

#endif /* _SFRAME_GEN_H */
