/* SPDX-License-Identifier: GPL-2.0 */
/*
 * s390x functions whose CFI holds the rows compiled code rarely has, for
 * the generator's s390x mode (run.sh: compared with readelf, row by row).
 * None is ever called: only their .eh_frame matters.
 */
	.text

#define FUNC(name)	.globl name; .type name, @function; name:
#define END(name)	.size name, . - name

/* a leaf keeping r14 in f0: ra=r16 */
FUNC(cfi_ra_in_fpr)
	.cfi_startproc
	ldgr	%f0, %r14
	.cfi_register 14, 16
	lghi	%r14, 0
	lgdr	%r14, %f0
	.cfi_restore 14
	br	%r14
	.cfi_endproc
END(cfi_ra_in_fpr)

/* FP saved, RA left in r14: three offsets, the RA one 0 */
FUNC(cfi_fp_only)
	.cfi_startproc
	stg	%r11, 88(%r15)
	.cfi_offset 11, -72
	lg	%r11, 88(%r15)
	.cfi_restore 11
	br	%r14
	.cfi_endproc
END(cfi_fp_only)

/* a frame pointer: CFA from r11, a big frame (a 2-byte CFA offset) */
FUNC(cfi_fp_frame)
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset 11, -72
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	aghi	%r15, -1600
	.cfi_def_cfa_offset 1760
	lgr	%r11, %r15
	.cfi_def_cfa_register 11
	nopr
	lmg	%r11, %r15, 1688(%r11)
	.cfi_restore 11
	.cfi_restore 14
	.cfi_restore 15
	.cfi_def_cfa 15, 160
	br	%r14
	.cfi_endproc
END(cfi_fp_frame)

/* a CFA offset SFrame cannot encode (not 160 plus a multiple of 8): range */
FUNC(cfi_cfa_odd)
	.cfi_startproc
	aghi	%r15, -4
	.cfi_def_cfa_offset 164
	aghi	%r15, 4
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
END(cfi_cfa_odd)

/*
 * RA at CFA+0 (an RA offset of 0 means "not saved"): ra; RA by expression:
 * ra; FP at CFA+0 (the generator's FP offset 0 means "not saved"): fp
 */
FUNC(cfi_at_cfa)
	.cfi_startproc
	nopr
	.cfi_offset 14, 0
	nopr
	.cfi_escape 0x10, 0x0e, 0x02, 0x7f, 0x00	/* DW_CFA_expression: r14 at r15 + 0 */
	nopr
	.cfi_restore 14
	.cfi_offset 11, 0
	nopr
	.cfi_restore 11
	br	%r14
	.cfi_endproc
END(cfi_at_cfa)

/* CFA from r12: cfa-reg */
FUNC(cfi_cfa_r12)
	.cfi_startproc
	lgr	%r12, %r15
	.cfi_def_cfa_register 12
	nopr
	.cfi_def_cfa_register 15
	br	%r14
	.cfi_endproc
END(cfi_cfa_r12)

/* RA made undefined half way: the outermost frame from there */
FUNC(cfi_outermost)
	.cfi_startproc
	nopr
	.cfi_undefined 14
	nopr
	br	%r14
	.cfi_endproc
END(cfi_outermost)

/* the CFA by expression: cfa-expr */
FUNC(cfi_cfa_expr)
	.cfi_startproc
	nopr
	.cfi_escape 0x0f, 0x03, 0x7f, 0xa0, 0x01	/* DW_CFA_def_cfa_expression: r15 + 160 */
	nopr
	.cfi_def_cfa 15, 160
	br	%r14
	.cfi_endproc
END(cfi_cfa_expr)

	.section .note.GNU-stack, "", @progbits
