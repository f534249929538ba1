/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * KernelShark plugin "unwind_stack": merged kernel + deferred user stacks.
 */
#ifndef _KS_UNWIND_STACK_H
#define _KS_UNWIND_STACK_H

#include <libkshark.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The merged stack of @e as text, one frame per line (kernel frames
 * "=> func+0xoff (addr)", then user frames "=> 0xaddr (user)"), for an
 * event that asked for a deferred user stack, its user_stack_cookie
 * record (which carries the kernel frames), or a user_stack_deferred
 * record (every event it completes).  NULL when @e has none.  Free with
 * free().
 */
char *kshark_unwind_stack_text(const struct kshark_entry *e);

#ifdef __cplusplus
}
#endif

#endif
