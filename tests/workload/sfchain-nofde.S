/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sfchain's frames without an FDE (the nofde row, sfchain-more.c): code
 * written by hand, with the frame-pointer prologue gcc would give it but
 * no CFI directive, so the assembler writes no .eh_frame FDE and no
 * .sframe FDE for it (-Wa,--gsframe makes .sframe from the CFI alone).
 * A lookup of an address in it finds the section of the binary but no
 * FDE: the kernel's SFrame unwinder takes that frame by frame pointers.
 *
 *	void sfc_nofde(long depth, long next, long more)
 *
 * more > 0: sfc_nofde(depth, next, more - 1), else
 * sfc_tab[next](depth - 1, next + 1): more + 1 frames of its own above
 * the chain.  SFC_NOFDE_CFI (make SFC_NOFDE_CFI=1) gives it CFI, and so
 * FDEs: only to show that the nofde row refuses such a build.
 */
	.text
	.globl	sfc_nofde
	.type	sfc_nofde, @function
	.p2align 4
sfc_nofde:
#ifdef SFC_NOFDE_CFI
	.cfi_startproc
#endif
	pushq	%rbp
#ifdef SFC_NOFDE_CFI
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
#endif
	movq	%rsp, %rbp
#ifdef SFC_NOFDE_CFI
	.cfi_def_cfa_register %rbp
#endif
	testq	%rdx, %rdx
	jz	1f
	decq	%rdx
	call	sfc_nofde
	jmp	2f
1:	leaq	sfc_tab(%rip), %rax
	movq	(%rax,%rsi,8), %rax
	decq	%rdi
	incq	%rsi
	call	*%rax
2:	popq	%rbp
#ifdef SFC_NOFDE_CFI
	.cfi_def_cfa %rsp, 8
#endif
	ret
#ifdef SFC_NOFDE_CFI
	.cfi_endproc
#endif
	.size	sfc_nofde, .-sfc_nofde

	.section .note.GNU-stack, "", @progbits
