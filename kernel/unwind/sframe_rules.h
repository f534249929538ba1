/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules the SFrame unwinder found, kept per mm.  sframe.c finds and
 * keeps them; the loop that walks a stack (user.c) reads a kept rule
 * inline, once for every frame, without a call.
 */
#ifndef _KERNEL_UNWIND_SFRAME_RULES_H
#define _KERNEL_UNWIND_SFRAME_RULES_H

#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/maple_tree.h>
#include <linux/mmap_lock.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/unwind_user_types.h>

#include "sframe.h"

#ifdef CONFIG_UNWIND_USER_SFRAME

/*
 * Rules found for an address are kept per mm, in a table of this many
 * slots indexed by a hash of the address: a profiler sees the same return
 * addresses again and again, and a rule found once costs a slot's read
 * instead of a section lookup, a binary search and an FRE walk in user
 * memory.  256 slots of 48 bytes on 64-bit: 12 KiB per mm that has been
 * unwound by SFrame.
 */
#define SFRAME_CACHE_BITS	8

/**
 * struct sframe_rule - a rule found for one address, kept for the next walk
 * @seq:	odd while the slot is written; a reader that sees it odd, or
 *		changed after its read, misses
 * @gen:	&struct sframe_mm.gen when the rule was found
 * @ip:		the address
 * @frame:	the rule
 */
struct sframe_rule {
	unsigned int			seq;
	unsigned int			gen;
	unsigned long			ip;
	struct unwind_user_frame	frame;
};

/**
 * struct sframe_mm - the .sframe sections of an mm
 * @lock:	serialises the changes of @sections, @sframes, @nr and
 *		@next_id; never held across a user access, never taken by a
 *		lookup
 * @sections:	&struct sframe_section by the range of code each describes,
 *		read under RCU; sections are freed after a grace period
 * @sframes:	the same sections by their own range: which one is at an
 *		address, and which ones an unmapped range holds
 * @nr:		number of sections
 * @next_id:	the id of the next section registered
 * @warned:	a dropped section of this mm was reported already
 * @gen:	changes whenever a section goes: rules found before then are
 *		no longer used
 * @rules:	SFRAME_CACHE_BITS-hashed rules found, allocated at the first
 *		lookup and kept until the mm goes; NULL before, or when that
 *		allocation failed
 */
struct sframe_mm {
	struct mutex		lock;	/* see above */
	struct maple_tree	sections;
	struct maple_tree	sframes;
	unsigned int		nr;
	u64			next_id;
	unsigned long		warned;
	unsigned int		gen;
	struct sframe_rule	*rules;
};

/**
 * struct sframe_walk - what the lookups of one stack walk read only once
 * @sm:		the sections of the current mm
 * @rules:	@sm's kept rules
 * @rows:	the rows of the section where a lookup of the walk last found
 *		a rule in rows, a reference held until sframe_walk_end(); NULL
 *		if none
 * @file_rows:	@rows are those of @file, held by SRCU, not by a reference
 * @row:	@rows' rows
 * @block:	@rows' block index
 * @shift:	@rows' block size
 * @gen:	@sm's generation before that lookup: @rows serve while it is
 *		current, so a section that goes takes them out of the walk; for
 *		@file_rows, @file_seq
 * @text_start:	start of the code @rows describe
 * @text_size:	its size; 0 without @rows
 * @file:	the section attached to a file (sframe_file.c) where a lookup
 *		of the walk last found one, NULL if none; SRCU held for it
 * @file_start:	start of the mapping of that file it serves
 * @file_end:	its end
 * @file_bias:	what turns an address of that mapping into the file's ELF
 *		vaddr, the addresses of @file
 * @file_seq:	the mm's mmap lock sequence before that lookup: @file serves
 *		while the mm's mappings did not change since
 * @file_srcu:	the SRCU index held for @file, -1 while none is held
 *
 * @sm and @rules live as long as the mm, which the walking task holds.
 * The frames of a stack lie mostly in a few sections, often one: their
 * lookups search @rows, inline (sframe_walk_row()), with no section
 * lookup and no call.  Likewise the frames in a file's section take no
 * VMA lookup while the file's mapping stays.  @sm is NULL in a walk of an
 * mm that has no section of its own but may use the files' ones.
 */
struct sframe_walk {
	struct sframe_mm	*sm;
	struct sframe_rule	*rules;
	struct sframe_rows	*rows;
	bool			file_rows;
	const struct sframe_row	*row;
	const u32		*block;
	unsigned int		shift;
	unsigned int		gen;
	unsigned long		text_start;
	unsigned long		text_size;
	const struct sframe_section *file;
	unsigned long		file_start;
	unsigned long		file_end;
	unsigned long		file_bias;
	unsigned int		file_seq;
	int			file_srcu;
};

int sframe_find_slow(struct sframe_walk *walk, unsigned long ip,
		     unsigned int gen, struct unwind_user_frame *frame);
void sframe_walk_drop(struct sframe_walk *walk);
void sframe_walk_keep_file(struct sframe_walk *walk,
			   const struct sframe_section *sec,
			   unsigned long text_ip, unsigned int seq);

/* The rule kept for @ip in @slot, if any was found since generation @gen */
static __always_inline bool sframe_rule_get(struct sframe_rule *slot,
					    unsigned long ip, unsigned int gen,
					    struct unwind_user_frame *frame)
{
	/* pairs with the release in sframe_rule_put(): seq, then the rule */
	unsigned int seq = smp_load_acquire(&slot->seq);

	if ((seq & 1) || READ_ONCE(slot->ip) != ip ||
	    READ_ONCE(slot->gen) != gen)
		return false;
	/* may race with a writer: the seq read again below decides */
	*frame = data_race(slot->frame);
	/* pairs with the release in sframe_rule_put(): the rule, then seq */
	smp_rmb();
	return READ_ONCE(slot->seq) == seq;
}

/*
 * Start the lookups of a walk of the current task's stack.  False when
 * its mm has no sections and may use no file's, or has kept no rule yet:
 * sframe_find() then.
 */
static inline bool sframe_walk_begin(struct sframe_walk *walk)
{
	struct mm_struct *mm = current->mm;

	walk->rows = NULL;
	walk->file_rows = false;
	walk->text_start = 0;
	walk->text_size = 0;
	walk->file = NULL;
	walk->file_srcu = -1;
	walk->sm = mm ? READ_ONCE(mm->sframe) : NULL;
	if (!walk->sm)
		return sframe_file_attached(mm);
	walk->rules = READ_ONCE(walk->sm->rules);
	return walk->rules;
}

/**
 * sframe_walk_find - sframe_find() within a walk
 * @walk: the walk, begun by sframe_walk_begin() returning true
 * @ip: the address
 * @frame: where to put the rule
 *
 * The generation is read for every lookup, as sframe_find() does: a
 * section that goes during the walk takes its rules with it at once.
 *
 * Return: as sframe_find()
 */
static __always_inline int sframe_walk_find(struct sframe_walk *walk,
					    unsigned long ip,
					    struct unwind_user_frame *frame)
{
	unsigned int gen;

	if (!walk->sm)
		return sframe_file_walk_find(walk, ip, frame);
	gen = READ_ONCE(walk->sm->gen);

	/*
	 * The generation before the rule or the section: a removal after
	 * this makes what is found stale.  Pairs with the smp_wmb() in
	 * sframe_remove_locked().
	 */
	smp_rmb();
	if (likely(sframe_rule_get(&walk->rules[hash_long(ip, SFRAME_CACHE_BITS)],
				   ip, gen, frame)))
		return 0;
	return sframe_find_slow(walk, ip, gen, frame);
}

/**
 * sframe_walk_row - the rule for @ip in the rows a walk kept
 * @walk: the walk, begun by sframe_walk_begin() returning true
 * @ip: the address
 *
 * One read of the block index and a scan of the few rows that start in
 * that block, in kernel memory, inline in the loop that walks a stack.
 * The rows serve while no section went since they were kept (the
 * generation is read for every lookup, as sframe_walk_find() does); a
 * file's, while no mapping of the mm changed.
 *
 * Return: the rule packed (SFRAME_ROW_*; sframe_row_frame() unpacks it),
 * SFRAME_ROW_NONE when the rows say no rule covers @ip, or SFRAME_ROW_SLOW
 * when they cannot tell: none kept, @ip outside their text, or a row that
 * says to read the section.  sframe_walk_find() finds that rule.
 */
static __always_inline u32 sframe_walk_row(const struct sframe_walk *walk,
					   unsigned long ip)
{
	unsigned long off = ip - walk->text_start;

	/* no rows: a text of size 0 */
	if (off >= walk->text_size)
		return SFRAME_ROW_SLOW;
	/* a file's rows serve while the mm's mappings stay */
	if (unlikely(walk->file_rows) ?
	    mmap_lock_speculate_retry(current->mm, walk->gen) :
	    READ_ONCE(walk->sm->gen) != walk->gen)
		return SFRAME_ROW_SLOW;
	return sframe_rows_find(walk->row, walk->block, walk->shift, off)->rule;
}

/* End the lookups of a walk begun by sframe_walk_begin(), whatever it said */
static inline void sframe_walk_end(struct sframe_walk *walk)
{
	if (walk->rows)
		sframe_walk_drop(walk);
	if (walk->file_srcu >= 0)
		sframe_file_walk_end(walk);
}

#else /* !CONFIG_UNWIND_USER_SFRAME */

struct sframe_walk { };

static inline bool sframe_walk_begin(struct sframe_walk *walk)
{
	return false;
}

static inline int sframe_walk_find(const struct sframe_walk *walk,
				   unsigned long ip,
				   struct unwind_user_frame *frame)
{
	return -ENOENT;
}

static inline u32 sframe_walk_row(const struct sframe_walk *walk,
				  unsigned long ip)
{
	return SFRAME_ROW_NONE;
}

static inline void sframe_walk_end(struct sframe_walk *walk)
{
}

#endif /* CONFIG_UNWIND_USER_SFRAME */

#endif /* _KERNEL_UNWIND_SFRAME_RULES_H */
