// SPDX-License-Identifier: GPL-2.0
/*
 * Reading .sframe sections from user memory for the user space unwinder.
 *
 * Each mm keeps the .sframe sections of its objects, by the code they
 * describe, in a maple tree: the executable and its interpreter, registered
 * at exec, and whatever user space registers later with
 * prctl(PR_ADD_SFRAME).  An unwind looks a section up for every frame, so
 * the lookup takes no lock: it copies the section under RCU.  The rules
 * found are kept per mm, by address, until a section goes.
 *
 * The sections are read in place, in user memory, and only from a context
 * that may fault (the deferred unwinder runs in task context before the
 * return to user space).  Nothing read from user memory is trusted: a
 * section found inconsistent is dropped, and the unwinder falls back to
 * frame pointers.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/hash.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/mmap_lock.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/unwind_user.h>
#include <linux/vmalloc.h>

#include "sframe.h"
#include "sframe_rules.h"

/* Bounds what one process can make the kernel allocate through prctl() */
#define SFRAME_MAX_SECTIONS	1024

/* FDEs read at once while checking the FDE table */
#define SFRAME_FDE_BATCH	16

/*
 * FREs read between two chances to reschedule and to die: a function may
 * claim any number of them, up to the size of the section
 */
#define SFRAME_FRE_BATCH	256

/*
 * A section's rules are decoded into kernel memory (struct sframe_rows, 8
 * bytes a row, about a row an FRE) for up to this many rows (8 MiB): a
 * bigger section, one whose code spans more than 4 GiB, or one whose rows
 * could not be allocated, is read at every lookup, as every section is
 * with sframe.decode=0.
 */
#define SFRAME_ROWS_MAX		BIT(20)

/*
 * Making the rows reads every FRE, some 300 instructions each, and a
 * lookup that reads the section costs some 1,600 more than one in the
 * rows: with sframe.decode=1 they are made once num_fres / SFRAME_ROWS_PAY
 * lookups have read the section, when those have cost about what the
 * rows do.  A short-lived process then never pays for them.
 */
#define SFRAME_ROWS_PAY		6

/* 0: never; 1: once they pay (the default); 2: at a section's first lookup */
static unsigned int sframe_decode = 1;
module_param_named(decode, sframe_decode, uint, 0644);
MODULE_PARM_DESC(decode,
		 "Decode the rules of a section into kernel memory: 0 never, 1 once it pays, 2 at once");

/* Flexible FDEs are followed where the architecture names its SP and FP */
#ifdef UNWIND_USER_DWARF_SP
#define SFRAME_FLEX_FOLLOWED	1
#else
#define SFRAME_FLEX_FOLLOWED	0
#endif

/*
 * The architecture's SFrame ABI, from <asm/unwind_user.h>; the defaults
 * are amd64's.  UNWIND_USER_SFRAME_ABI: the ABI a section must name.
 * The CFA offset of an FRE is stored as (offset - CFA_ADJUST) / CFA_SCALE,
 * and the caller's stack pointer is CFA + SP_OFF.  An ABI that defines
 * UNWIND_USER_SFRAME_RA_REG tracks the return address in each FRE (the
 * header has no fixed offset for it), and until it is saved it is in that
 * register; with UNWIND_USER_SFRAME_REG_OFFSETS, in a version 2 section
 * (version 3 has flexible FDEs for it), an RA or FP offset with
 * its lowest bit set names the register that keeps the value,
 * (regnum << 1) | 1, and an RA offset of 0 says "not saved".
 */
#ifndef UNWIND_USER_SFRAME_ABI
#define UNWIND_USER_SFRAME_ABI		SFRAME_ABI_AMD64_ENDIAN_LITTLE
#endif
#ifndef UNWIND_USER_SFRAME_CFA_ADJUST
#define UNWIND_USER_SFRAME_CFA_ADJUST	0
#define UNWIND_USER_SFRAME_CFA_SCALE	1
#endif
#ifndef UNWIND_USER_SFRAME_SP_OFF
#define UNWIND_USER_SFRAME_SP_OFF	0
#endif
#ifdef UNWIND_USER_SFRAME_RA_REG
#define SFRAME_RA_TRACKED		true
#define SFRAME_MAX_OFFSETS		3
#else
#define SFRAME_RA_TRACKED		false
#define SFRAME_MAX_OFFSETS		2
#define UNWIND_USER_SFRAME_RA_REG	0
#endif
#ifndef UNWIND_USER_SFRAME_REG_OFFSETS
#define UNWIND_USER_SFRAME_REG_OFFSETS	0
#endif

/**
 * sframe_mm_init - start an mm with no .sframe sections
 * @mm: the mm being set up (a copy of another one when forking)
 */
void sframe_mm_init(struct mm_struct *mm)
{
	mm->sframe = NULL;
}

static struct sframe_mm *sframe_mm_alloc(void)
{
	struct sframe_mm *sm = kzalloc_obj(*sm, GFP_KERNEL_ACCOUNT);

	if (!sm)
		return NULL;
	mutex_init(&sm->lock);
	mt_init_flags(&sm->sections, MT_FLAGS_USE_RCU);
	mt_init_flags(&sm->sframes, MT_FLAGS_USE_RCU);
	return sm;
}

/* The mm's sections, created on first use; NULL when out of memory */
static struct sframe_mm *sframe_mm_get(struct mm_struct *mm)
{
	struct sframe_mm *sm = READ_ONCE(mm->sframe), *new;

	if (sm)
		return sm;
	new = sframe_mm_alloc();
	if (!new)
		return NULL;
	/* Threads of one mm may race to create it: one wins */
	sm = cmpxchg(&mm->sframe, NULL, new);
	if (sm) {
		kfree(new);
		return sm;
	}
	return new;
}

/*
 * Drop a section's reference to @rows; the last frees them after the
 * lookups that may read them (not kvfree(): this runs from __mmdrop() too)
 */
static void sframe_rows_put(struct sframe_rows *rows)
{
	if (rows && refcount_dec_and_test(&rows->ref))
		kvfree_rcu(rows, rcu);
}

/**
 * sframe_free_mm - free the .sframe sections of an mm
 * @mm: the mm, no longer used by anyone
 *
 * Called from __mmdrop(), which may run with preemption off (from the
 * scheduler, for a lazy TLB mm): nothing here may sleep.
 */
void sframe_free_mm(struct mm_struct *mm)
{
	struct sframe_mm *sm = mm->sframe;
	struct sframe_section *sec;
	unsigned long index = 0;

	if (!sm)
		return;
	/* nothing can look the sections up any more: no grace period */
	mt_for_each(&sm->sections, sec, index, ULONG_MAX) {
		sframe_rows_put(sec->rows);
		kfree(sec);
	}
	mtree_destroy(&sm->sections);
	mtree_destroy(&sm->sframes);
	kfree(sm->rules);
	kfree(sm);
	mm->sframe = NULL;
}

/*
 * Add @sec to both trees of @sm, @sm->lock held (or @sm not shared yet):
 * -EEXIST when its code or its own bytes are another section's, even in
 * part.  Lookups find it from the second insertion on, whole.
 */
static int sframe_insert(struct sframe_mm *sm, struct sframe_section *sec)
{
	int ret;

	ret = mtree_insert_range(&sm->sframes, sec->sframe_start,
				 sec->sframe_end - 1, sec, GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	ret = mtree_insert_range(&sm->sections, sec->text_start,
				 sec->text_end - 1, sec, GFP_KERNEL_ACCOUNT);
	/* only an unmap reads @sframes without @sm->lock: not meanwhile */
	if (ret)
		mtree_erase(&sm->sframes, sec->sframe_start);
	return ret;
}

/**
 * sframe_dup_mm - give a forked mm the .sframe sections of its parent
 * @mm: the new mm
 * @oldmm: the mm it was copied from, its mmap lock held for writing
 *
 * The child has the same mappings, so the same sections describe them.
 * Called by dup_mmap() with the lock it copied the mappings under, which
 * every registration and removal of a section takes too: the sections
 * copied are those of the mappings copied.
 *
 * Return: 0, or -ENOMEM
 */
int sframe_dup_mm(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct sframe_mm *old = READ_ONCE(oldmm->sframe), *sm;
	struct sframe_section *sec, *copy;
	unsigned long index = 0;
	int ret = 0;

	mmap_assert_write_locked(oldmm);
	if (!old)
		return 0;
	sm = sframe_mm_alloc();
	if (!sm)
		return -ENOMEM;
	mm->sframe = sm;
	mutex_lock(&old->lock);
	mt_for_each(&old->sections, sec, index, ULONG_MAX) {
		copy = kmemdup(sec, sizeof(*sec), GFP_KERNEL_ACCOUNT);
		if (!copy) {
			ret = -ENOMEM;
			break;
		}
		/* the same bytes, decoded once: the rows are shared */
		if (copy->rows)
			refcount_inc(&copy->rows->ref);
		ret = sframe_insert(sm, copy);
		if (ret) {
			sframe_rows_put(copy->rows);
			kfree(copy);
			break;
		}
		WRITE_ONCE(sm->nr, sm->nr + 1);
	}
	sm->next_id = old->next_id;
	mutex_unlock(&old->lock);
	return ret;
}

/**
 * sframe_mm_has_sections - whether an mm has any .sframe section
 * @mm: the mm
 *
 * Its own, or sections attached to files it may use (sframe_file.c).
 *
 * Return: true when an unwind of @mm may find SFrame entries
 */
bool sframe_mm_has_sections(struct mm_struct *mm)
{
	struct sframe_mm *sm = READ_ONCE(mm->sframe);

	return (sm && READ_ONCE(sm->nr)) || sframe_file_attached(mm);
}

/*
 * Whether a lookup that reads @sec, which has no rows, should make them
 * (sframe.decode), under RCU
 */
static bool sframe_rows_due(struct sframe_section *sec)
{
	switch (READ_ONCE(sframe_decode)) {
	case 0:
		return false;
	case 1:
		return atomic_inc_return(&sec->misses) >=
		       max(sec->num_fres / SFRAME_ROWS_PAY, 1U);
	default:
		return true;
	}
}

/**
 * sframe_walk_drop - drop the rows a walk kept
 * @walk: the walk, which holds rows
 */
void sframe_walk_drop(struct sframe_walk *walk)
{
	if (!walk->file_rows)
		sframe_rows_put(walk->rows);
	walk->rows = NULL;
	walk->file_rows = false;
	walk->text_size = 0;
}

/*
 * Keep @rows of @sec, found under RCU, for the rest of @walk, which began
 * at generation @gen; unless they are gone already
 */
static void sframe_walk_keep(struct sframe_walk *walk,
			     const struct sframe_section *sec,
			     struct sframe_rows *rows, unsigned int gen)
{
	if (walk->rows == rows || !refcount_inc_not_zero(&rows->ref))
		return;
	if (walk->rows)
		sframe_walk_drop(walk);
	walk->rows = rows;
	walk->row = rows->row;
	walk->block = rows->block;
	walk->shift = rows->shift;
	walk->gen = gen;
	walk->text_start = sec->text_start;
	walk->text_size = rows->span;
}

/**
 * sframe_walk_keep_file - keep the rows of a file's section for a walk
 * @walk: the walk, which holds SRCU for @sec (sframe_file.c)
 * @sec: the section attached to a file mapped in the current mm, with rows
 * @text_ip: the address its text is mapped at, wholly in one mapping
 * @seq: the mm's mmap lock sequence read before that mapping was found
 *
 * The walk's next lookups in that text search the rows inline, as those of
 * the mm's own sections, while no mapping of the mm changes.  No reference
 * is taken: a file's section, its rows with it, is freed only after the
 * SRCU section that the walk holds until its end.
 */
void sframe_walk_keep_file(struct sframe_walk *walk,
			   const struct sframe_section *sec,
			   unsigned long text_ip, unsigned int seq)
{
	struct sframe_rows *rows = sec->rows;

	if (walk->rows)
		sframe_walk_drop(walk);
	walk->rows = rows;
	walk->file_rows = true;
	walk->row = rows->row;
	walk->block = rows->block;
	walk->shift = rows->shift;
	walk->gen = seq;
	walk->text_start = text_ip;
	walk->text_size = rows->span;
}

/*
 * The section of @walk's mm that describes @ip, and what its rows say of
 * @ip: 1 with the rule in @frame, or -ENOENT when no rule covers @ip, read
 * under RCU with no user access; the rows are then kept for the walk's
 * next lookups (@gen: the generation read before this one).  Else (no
 * rows, or a row that says to read the section) 0 and the section copied
 * to @out: the copy is what the unwinder reads, so nothing is held across
 * its user accesses, and a section removed meanwhile is freed only after
 * the copy is taken.  -ESRCH when no section describes @ip.
 */
static int sframe_lookup_section(struct sframe_walk *walk, unsigned long ip,
				 unsigned int gen, struct sframe_section *out,
				 struct unwind_user_frame *frame)
{
	struct sframe_section *sec;
	struct sframe_rows *rows;
	int ret = -ESRCH;
	u32 rule;

	rcu_read_lock();
	sec = mtree_load(&walk->sm->sections, ip);
	if (!sec)
		goto unlock;
	/* pairs with the release in sframe_check_once() */
	rows = smp_load_acquire(&sec->rows);
	rule = rows ? sframe_rows_search(rows, ip - sec->text_start) :
		      SFRAME_ROW_SLOW;
	switch (SFRAME_ROW_KIND(rule)) {
	case SFRAME_ROW_NONE:
		ret = -ENOENT;
		break;
	case SFRAME_ROW_SLOW:
		*out = *sec;
		out->rows = NULL;
		/* false: this lookup makes the rows */
		out->decoded = rows || READ_ONCE(sec->decoded) ||
			       !sframe_rows_due(sec);
		ret = 0;
		break;
	default:
		sframe_row_frame(rule, frame);
		ret = 1;
		break;
	}
	if (rows)
		sframe_walk_keep(walk, sec, rows, gen);
unlock:
	rcu_read_unlock();
	return ret;
}

static void sframe_remove_locked(struct sframe_mm *sm,
				 struct sframe_section *sec)
{
	mtree_erase(&sm->sections, sec->text_start);
	mtree_erase(&sm->sframes, sec->sframe_start);
	WRITE_ONCE(sm->nr, sm->nr - 1);
	/*
	 * What was found through it may be another object's code next:
	 * rules of the old generation go unused.  Pairs with the smp_rmb()
	 * in sframe_walk_find(): a lookup that sees the new generation does not
	 * find the section erased above.
	 */
	smp_wmb();
	WRITE_ONCE(sm->gen, sm->gen + 1);
	sframe_rows_put(sec->rows);
	kfree_rcu(sec, rcu);
}

/* The section of @sm registered at @sframe_start, @sm->lock held */
static struct sframe_section *sframe_find_start(struct sframe_mm *sm,
						unsigned long sframe_start)
{
	struct sframe_section *sec = mtree_load(&sm->sframes, sframe_start);

	return sec && sec->sframe_start == sframe_start ? sec : NULL;
}

/*
 * Remove the section that starts at @sframe_start from @mm; only if it is
 * registration @id, unless @id is 0
 */
static int sframe_remove_from(struct mm_struct *mm, unsigned long sframe_start,
			      u64 id)
{
	struct sframe_mm *sm = READ_ONCE(mm->sframe);
	struct sframe_section *sec;
	int ret = -ENOENT;

	if (!sm)
		return ret;
	mutex_lock(&sm->lock);
	sec = sframe_find_start(sm, sframe_start);
	if (sec && (!id || sec->id == id)) {
		sframe_remove_locked(sm, sec);
		ret = 0;
	}
	mutex_unlock(&sm->lock);
	return ret;
}

/*
 * Drop a section found inconsistent (or gone): the registration that was
 * read, not one made at the same address since.  Any process can make its
 * own sections inconsistent, so each mm is reported once.  Not under the
 * mmap lock: a child forked meanwhile may keep the section, and drops it
 * itself when it reads it.
 */
static void sframe_drop(const struct sframe_section *sec, const char *why)
{
	struct sframe_mm *sm = READ_ONCE(current->mm->sframe);

	if (sframe_remove_from(current->mm, sec->sframe_start, sec->id))
		return;
	if (!test_and_set_bit(0, &sm->warned))
		pr_warn_ratelimited("%s[%d]: dropping .sframe at 0x%lx: %s\n",
				    current->comm, task_pid_nr(current),
				    sec->sframe_start, why);
}

/* @len bytes at user address @addr, all inside [@start, @end) */
static bool sframe_in(unsigned long addr, unsigned long len,
		      unsigned long start, unsigned long end)
{
	return addr >= start && addr <= end && len <= end - addr;
}

/*
 * Copy @len bytes at address @addr of @sec: from user memory, or, for a
 * section held in kernel memory (sframe_file.c), from its copy, never
 * past its end
 */
static int sframe_copy(const struct sframe_section *sec, void *dst,
		       unsigned long addr, unsigned long len)
{
	if (!sec->data)
		return copy_from_user(dst, (void __user *)addr, len) ? -EFAULT : 0;
	if (!sframe_in(addr, len, sec->sframe_start, sec->sframe_end))
		return -EFAULT;
	memcpy(dst, sec->data + (addr - sec->sframe_start), len);
	return 0;
}

/* Read @val at address @addr of @sec: get_user() for a user section */
#define sframe_get(sec, val, addr)					\
({									\
	const struct sframe_section *__sec = (sec);			\
	__auto_type __val = &(val);					\
	unsigned long __addr = (addr);					\
									\
	__sec->data ?							\
		sframe_copy(__sec, __val, __addr, sizeof(*__val)) :	\
		get_user(*__val, (typeof(*__val) __user *)__addr) ?	\
		-EFAULT : 0;						\
})

static int sframe_read_fde(const struct sframe_section *sec, unsigned int i,
			   struct sframe_fde *fde);

/* Read and check the header of the section at @sec->sframe_start */
static int sframe_read_header(struct sframe_section *sec)
{
	unsigned long size = sec->sframe_end - sec->sframe_start;
	unsigned long hdr_end, fdes_len;
	struct sframe_header h;
	u8 flags;

	if (size < sizeof(h))
		return -EINVAL;
	if (sframe_copy(sec, &h, sec->sframe_start, sizeof(h)))
		return -EFAULT;
	/*
	 * amd64 and s390x keep the saved frame pointer's offset in each FRE
	 * and have no fixed one; amd64 has a fixed (negative) RA offset,
	 * s390x tracks the RA in each FRE and has none (0).  A section that
	 * says otherwise is not for this ABI, and is refused rather than
	 * half followed.
	 */
	if (h.preamble.magic != SFRAME_MAGIC ||
	    h.abi_arch != UNWIND_USER_SFRAME_ABI ||
	    !(h.preamble.flags & SFRAME_F_FDE_SORTED) ||
	    (SFRAME_RA_TRACKED ? h.cfa_fixed_ra_offset != 0 :
				 h.cfa_fixed_ra_offset >= 0) ||
	    h.cfa_fixed_fp_offset || !h.num_fdes)
		return -EINVAL;
	/* The header is the same in both versions; the FDEs are not */
	switch (h.preamble.version) {
	case SFRAME_VERSION_2:
		sec->fde_size = sizeof(struct sframe_fde_v2);
		flags = SFRAME_V2_FLAGS;
		break;
	case SFRAME_VERSION_3:
		sec->fde_size = sizeof(struct sframe_fdi_v3);
		flags = SFRAME_V3_FLAGS;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (h.preamble.flags & ~flags)
		return -EINVAL;

	hdr_end = sec->sframe_start + sizeof(h) + h.auxhdr_len;
	fdes_len = (unsigned long)h.num_fdes * sec->fde_size;
	sec->fdes_start = hdr_end + h.fdes_off;
	sec->fres_start = hdr_end + h.fres_off;
	sec->fres_end = sec->fres_start + h.fre_len;
	if (!sframe_in(hdr_end, 0, sec->sframe_start, sec->sframe_end) ||
	    !sframe_in(sec->fdes_start, fdes_len, hdr_end, sec->sframe_end) ||
	    !sframe_in(sec->fres_start, h.fre_len, hdr_end, sec->sframe_end))
		return -EINVAL;
	sec->num_fdes = h.num_fdes;
	sec->num_fres = h.num_fres;
	sec->ra_off = h.cfa_fixed_ra_offset;
	sec->version = h.preamble.version;
	sec->flags = h.preamble.flags;
	return 0;
}

static struct sframe_rows *sframe_rows_alloc(const struct sframe_section *sec,
					     unsigned int *max);
static struct sframe_rows *sframe_rows_done(const struct sframe_section *sec,
					    struct sframe_rows *tmp);
static int sframe_rows_add_fde(const struct sframe_section *sec,
			       const struct sframe_fde *fde,
			       struct sframe_rows *rows, unsigned int max,
			       unsigned int *budget);

/*
 * Check every FDE: the lookup's binary search is only right on a sorted
 * table, and an FDE pointing outside the section is better refused once
 * than found in the middle of an unwind.  The rules of every FDE are
 * decoded into *@rows as it goes (sframe_rows_add_fde()): *@rows is NULL
 * when they are not (too many, or no memory), and is freed by the
 * caller.  The FREs are checked as they are used: one that cannot be
 * decoded leaves its function to the lookups that read the section.
 */
static int sframe_check_fdes(const struct sframe_section *sec,
			     struct sframe_rows **rows)
{
	unsigned int i, max = 0, budget;
	unsigned long prev = 0;
	struct sframe_rows *tmp;
	struct sframe_fde fde;
	int ret;

	tmp = sframe_rows_alloc(sec, &max);
	*rows = NULL;
	budget = max;
	for (i = 0; i < sec->num_fdes; i++) {
		ret = sframe_read_fde(sec, i, &fde);
		if (ret)
			goto out;
		ret = -EINVAL;
		if (fde.func_start < prev)
			goto out;
		prev = fde.func_start;
		if (tmp) {
			ret = sframe_rows_add_fde(sec, &fde, tmp, max, &budget);
			if (ret == -EINTR)
				goto out;
			/* too many: every lookup reads the section */
			if (ret) {
				kvfree(tmp);
				tmp = NULL;
			}
		}
		if (i % SFRAME_FDE_BATCH == SFRAME_FDE_BATCH - 1) {
			ret = -EINTR;
			if (fatal_signal_pending(current))
				goto out;
			cond_resched();
		}
	}
	if (tmp)
		*rows = sframe_rows_done(sec, tmp);
	return 0;
out:
	kvfree(tmp);
	return ret;
}

/* [@start, @end) is mapped, with no hole, by VMAs that all have @flags */
static bool sframe_range_mapped(struct mm_struct *mm, unsigned long start,
				unsigned long end, vm_flags_t flags)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;

	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_start > start || (vma->vm_flags & flags) != flags)
			return false;
		start = vma->vm_end;
		if (start >= end)
			return true;
	}
	return false;
}

/* The first entry of @mt that lies, even in part, in [@start, @end) */
static void *sframe_mt_first(struct maple_tree *mt, unsigned long start,
			     unsigned long end)
{
	return mt_find(mt, &start, end - 1);
}

/**
 * sframe_mm_unmapped - drop the sections of a range being unmapped
 * @mm: the mm, its mmap lock held for writing
 * @start: start of the range
 * @end: its end
 *
 * A section was checked against the code mapped at its registration and
 * is read where it was mapped then.  Once either mapping goes (munmap(),
 * mremap() moving it, mmap() with MAP_FIXED over it, dlclose()),
 * whatever is mapped there next is not what the section describes: drop
 * it, so that stacks are not decoded with another object's rules, and so
 * that an object loaded again at the same address can register again.
 *
 * Called for every mmap() and munmap() of the mm, with an empty range when
 * nothing was mapped there: two range lookups find the sections to drop,
 * with no lock when there are none, as for most unmaps.
 */
void sframe_mm_unmapped(struct mm_struct *mm, unsigned long start,
			unsigned long end)
{
	struct sframe_mm *sm = READ_ONCE(mm->sframe);
	struct sframe_section *sec;

	if (!sm || start >= end || !READ_ONCE(sm->nr))
		return;
	mmap_assert_write_locked(mm);
	/*
	 * Under RCU: no section can be added meanwhile (registration holds
	 * the mmap lock), only dropped, and then there is none to drop here
	 */
	if (!sframe_mt_first(&sm->sections, start, end) &&
	    !sframe_mt_first(&sm->sframes, start, end))
		return;
	mutex_lock(&sm->lock);
	while ((sec = sframe_mt_first(&sm->sections, start, end)) ||
	       (sec = sframe_mt_first(&sm->sframes, start, end)))
		sframe_remove_locked(sm, sec);
	mutex_unlock(&sm->lock);
}

/**
 * sframe_add_section - register an .sframe section of the current mm
 * @sframe_start: user address of the section
 * @sframe_end: end of the section
 * @text_start: start of the code it describes
 * @text_end: end of that code
 *
 * Reads and checks the header from user memory, so the caller must be
 * able to fault.  The FDE table is checked at the first lookup in the
 * section, once: exec registers the sections of every SFrame binary, and
 * a process that registers each object it loads registers tables of
 * thousands of FDEs, which no unwinder may ever read.  A table found bad
 * then drops the section, as a bad FRE does.
 *
 * The section must lie in readable mappings and the code in executable
 * ones, with no hole: a section only describes what is mapped, and goes
 * with its mapping.
 *
 * Return: 0; -EINVAL for a bad range, a range not so mapped, or an
 * inconsistent header,
 * -EOPNOTSUPP for an SFrame version or ABI not supported, -EFAULT when it
 * cannot be read, -EEXIST when either range overlaps that of a registered
 * section,
 * -ENOSPC past SFRAME_MAX_SECTIONS, -EINTR on a fatal signal, -ENOMEM
 */
int sframe_add_section(unsigned long sframe_start, unsigned long sframe_end,
		       unsigned long text_start, unsigned long text_end)
{
	struct mm_struct *mm = current->mm;
	struct sframe_section *sec;
	struct sframe_mm *sm;
	int ret;

	if (!mm || sframe_start >= sframe_end || text_start >= text_end ||
	    sframe_end > TASK_SIZE_MAX || text_end > TASK_SIZE_MAX)
		return -EINVAL;
	sec = kzalloc_obj(*sec, GFP_KERNEL_ACCOUNT);
	if (!sec)
		return -ENOMEM;
	sec->sframe_start = sframe_start;
	sec->sframe_end = sframe_end;
	sec->text_start = text_start;
	sec->text_end = text_end;
	/* the FDE table is checked at the first lookup in the section */
	ret = sframe_read_header(sec);
	if (ret)
		goto free;

	ret = -ENOMEM;
	sm = sframe_mm_get(mm);
	if (!sm)
		goto free;
	/*
	 * The mappings are checked, and the section added, under the mmap
	 * lock: an munmap() of either range either comes before, and the
	 * section is refused, or after, and drops it (sframe_mm_unmapped()).
	 */
	ret = mmap_read_lock_killable(mm);
	if (ret)
		goto free;
	ret = -EINVAL;
	if (!sframe_range_mapped(mm, sframe_start, sframe_end, VM_READ) ||
	    !sframe_range_mapped(mm, text_start, text_end, VM_EXEC))
		goto unlock_mm;
	mutex_lock(&sm->lock);
	ret = -ENOSPC;
	if (sm->nr >= SFRAME_MAX_SECTIONS)
		goto unlock;
	sec->id = sm->next_id + 1;
	ret = sframe_insert(sm, sec);
	if (ret)
		goto unlock;
	sm->next_id++;
	WRITE_ONCE(sm->nr, sm->nr + 1);
	mutex_unlock(&sm->lock);
	mmap_read_unlock(mm);
	return 0;

unlock:
	mutex_unlock(&sm->lock);
unlock_mm:
	mmap_read_unlock(mm);
free:
	kvfree(sec->rows);
	kfree(sec);
	return ret;
}

/**
 * sframe_remove_section - unregister an .sframe section of the current mm
 * @sframe_start: user address the section was registered with
 *
 * Return: 0, -ENOENT when no section starts there, or -EINTR on a fatal
 * signal
 */
int sframe_remove_section(unsigned long sframe_start)
{
	struct mm_struct *mm = current->mm;
	int ret;

	if (!mm)
		return -EINVAL;
	/* under the mmap lock, as registration: see sframe_dup_mm() */
	ret = mmap_read_lock_killable(mm);
	if (ret)
		return ret;
	ret = sframe_remove_from(mm, sframe_start, 0);
	mmap_read_unlock(mm);
	return ret;
}

/*
 * What an FDE's function start is relative to: the field itself (the first
 * of the FDE or FDE index entry at @addr) when the header says so, else
 * (binutils 2.44 and earlier) the start of the section.
 */
static unsigned long sframe_start_base(const struct sframe_section *sec,
				       unsigned long addr)
{
	return sec->flags & SFRAME_F_FDE_FUNC_START_PCREL ? addr :
							    sec->sframe_start;
}

/* Checks shared by both versions, on a decoded FDE */
static int sframe_check_fde(const struct sframe_section *sec,
			    const struct sframe_fde *fde)
{
	if (fde->fre_type > SFRAME_FRE_TYPE_ADDR4 ||
	    (fde->fde_type == SFRAME_FDE_TYPE_PCMASK && !fde->rep_size) ||
	    !sframe_in(fde->func_start, fde->func_size, sec->text_start,
		       sec->text_end) ||
	    !sframe_in(fde->fres_start, 0, sec->fres_start, sec->fres_end))
		return -EINVAL;
	return 0;
}

/* Version 2 FDE number @i of @sec, decoded and checked */
static int sframe_read_fde_v2(const struct sframe_section *sec,
			      unsigned int i, struct sframe_fde *fde)
{
	unsigned long addr = sec->fdes_start + (unsigned long)i * sec->fde_size;
	struct sframe_fde_v2 raw;

	if (sframe_copy(sec, &raw, addr, sizeof(raw)))
		return -EFAULT;
	fde->func_start = sframe_start_base(sec, addr) + (long)raw.start_addr;
	fde->func_size = raw.func_size;
	fde->fres_start = sec->fres_start + raw.fres_off;
	fde->fres_num = raw.fres_num;
	fde->fre_type = SFRAME_FDE_FRE_TYPE(raw.info);
	fde->fde_type = SFRAME_FDE_TYPE(raw.info);
	fde->rep_size = raw.rep_size;
	fde->flex = false;
	fde->no_rule = false;
	return sframe_check_fde(sec, fde);
}

/*
 * Version 3 FDE number @i of @sec: its index entry, then its attributes,
 * which lie in the FRE sub-section right before its first FRE.
 */
static int sframe_read_fde_v3(const struct sframe_section *sec,
			      unsigned int i, struct sframe_fde *fde)
{
	unsigned long addr = sec->fdes_start + (unsigned long)i * sec->fde_size, attr_addr;
	struct sframe_fdi_v3 idx;
	struct sframe_fda_v3 attr;
	u8 type;

	if (sframe_copy(sec, &idx, addr, sizeof(idx)))
		return -EFAULT;
	attr_addr = sec->fres_start + idx.fres_off;
	if (!sframe_in(attr_addr, sizeof(attr), sec->fres_start, sec->fres_end))
		return -EINVAL;
	if (sframe_copy(sec, &attr, attr_addr, sizeof(attr)))
		return -EFAULT;
	fde->func_start = sframe_start_base(sec, addr) + idx.start_off;
	fde->func_size = idx.func_size;
	fde->fres_start = attr_addr + sizeof(attr);
	fde->fres_num = attr.fres_num;
	fde->fre_type = SFRAME_FDE_FRE_TYPE(attr.info);
	fde->fde_type = SFRAME_FDE_TYPE(attr.info);
	fde->rep_size = attr.rep_size;
	/*
	 * A flexible FDE's rules name registers (a CFA loaded from memory,
	 * DRAP): followed where the architecture says which registers are
	 * its SP and FP.  Later FDE types are not known yet; a signal
	 * trampoline's caller is not found through its CFA.  Such a
	 * function is described, but not by a rule followed here.
	 */
	type = SFRAME_V3_FDE_TYPE(attr.info2);
	fde->flex = type == SFRAME_V3_FDE_TYPE_FLEX && SFRAME_FLEX_FOLLOWED;
	fde->no_rule = (type != SFRAME_V3_FDE_TYPE_DEFAULT && !fde->flex) ||
		       SFRAME_V3_FDE_SIGNAL(attr.info);
	return sframe_check_fde(sec, fde);
}

static int sframe_read_fde(const struct sframe_section *sec, unsigned int i,
			   struct sframe_fde *fde)
{
	if (sec->version == SFRAME_VERSION_3)
		return sframe_read_fde_v3(sec, i, fde);
	return sframe_read_fde_v2(sec, i, fde);
}

/* The start address of FDE @i, all a binary search step needs */
static int sframe_fde_start(const struct sframe_section *sec, unsigned int i,
			    unsigned long *start)
{
	unsigned long addr = sec->fdes_start + (unsigned long)i * sec->fde_size;
	s32 rel2;
	s64 rel3;

	if (sec->version == SFRAME_VERSION_3) {
		if (sframe_get(sec, rel3, addr))
			return -EFAULT;
	} else {
		if (sframe_get(sec, rel2, addr))
			return -EFAULT;
		rel3 = rel2;
	}
	*start = sframe_start_base(sec, addr) + rel3;
	return 0;
}

/* The last FDE of @sec that starts at or below @ip, if it covers @ip */
static int sframe_find_fde(const struct sframe_section *sec, unsigned long ip,
			   struct sframe_fde *fde)
{
	unsigned int lo = 0, hi = sec->num_fdes, mid;
	unsigned long start;
	int ret;

	/* invariant: FDEs below lo start at or below ip, from hi on above */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		ret = sframe_fde_start(sec, mid, &start);
		if (ret)
			return ret;
		if (start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	ret = sframe_read_fde(sec, lo - 1, fde);
	if (ret)
		return ret;
	if (ip < fde->func_start || ip - fde->func_start >= fde->func_size ||
	    fde->no_rule)
		return -ENOENT;
	return 0;
}

/* Read an unsigned field of @size bytes (1, 2 or 4) at *@pos, advance */
static int sframe_get_u(const struct sframe_section *sec, unsigned long *pos,
			unsigned int size, u32 *val)
{
	u8 b = 0;
	u16 h = 0;
	int ret;

	if (!sframe_in(*pos, size, sec->fres_start, sec->fres_end))
		return -EINVAL;
	switch (size) {
	case 1:
		ret = sframe_get(sec, b, *pos);
		*val = b;
		break;
	case 2:
		ret = sframe_get(sec, h, *pos);
		*val = h;
		break;
	default:
		ret = sframe_get(sec, *val, *pos);
		break;
	}
	*pos += size;
	return ret ? -EFAULT : 0;
}

/* A signed stack offset of @size bytes at *@pos */
static int sframe_get_s(const struct sframe_section *sec, unsigned long *pos,
			unsigned int size, s32 *val)
{
	u32 u;
	int ret = sframe_get_u(sec, pos, size, &u);

	if (ret)
		return ret;
	*val = size == 4 ? (s32)u : size == 2 ? (s16)u : (s8)u;
	return 0;
}

/**
 * struct sframe_fre - a frame row entry, decoded
 * @start:	offset of its first address in the function (or block)
 * @info:	its info byte
 * @cfa_off:	offset of the CFA from the base register (decoded)
 * @ra_off:	offset of the saved return address from the CFA, as stored
 *		(an ABI that tracks it in each FRE, or a flexible FRE), else
 *		0 (at the fixed offset)
 * @fp_off:	offset of the saved frame pointer from the CFA, 0 if not saved
 * @cfa_ctrl:	of a flexible FRE: the CFA's control word
 * @fp_ctrl:	of a flexible FRE: the frame pointer's, 0 if not saved
 */
struct sframe_fre {
	u32	start;
	u8	info;
	s32	cfa_off;
	s32	ra_off;
	s32	fp_off;
	u32	cfa_ctrl;
	u32	fp_ctrl;
};

/*
 * Read the start address and info byte of the FRE at *@pos, check the
 * info byte, and advance *@pos past the whole FRE.  The offsets that
 * follow are only skipped: the walk needs them from one FRE alone.
 */
static int sframe_read_fre_head(const struct sframe_section *sec,
				const struct sframe_fde *fde, unsigned long *pos,
				struct sframe_fre *fre)
{
	unsigned int n, size;
	u32 info;
	int ret;

	ret = sframe_get_u(sec, pos, 1 << fde->fre_type, &fre->start);
	if (!ret)
		ret = sframe_get_u(sec, pos, 1, &info);
	if (ret)
		return ret;
	fre->info = info;
	n = SFRAME_FRE_OFFSET_COUNT(info);
	size = 1 << SFRAME_FRE_OFFSET_SIZE(info);
	/*
	 * amd64: the CFA, then the FP if saved; the RA is at a fixed
	 * offset.  s390x: the CFA, the RA, the FP.  A flexible FRE: up to
	 * three control words and their offsets.
	 */
	if (n > (fde->flex ? SFRAME_FLEX_MAX_WORDS : SFRAME_MAX_OFFSETS) ||
	    size > 4 || SFRAME_FRE_MANGLED_RA(info) ||
	    !sframe_in(*pos, n * size, sec->fres_start, sec->fres_end))
		return -EINVAL;
	*pos += n * size;
	return 0;
}

/*
 * The data words of a flexible FRE (@n of @size bytes from @pos): CFA,
 * then RA, then FP, as described at SFRAME_FLEX_REG_P().  The CFA must be
 * based on a register; the RA, when not at the fixed offset, must be
 * saved at an offset from the CFA, the only place a call leaves it
 * (-ENOENT otherwise: a rule not followed, not a corrupt section).
 */
static int sframe_read_fre_flex(const struct sframe_section *sec,
				unsigned long pos, unsigned int n,
				unsigned int size, struct sframe_fre *fre)
{
	s32 w[SFRAME_FLEX_MAX_WORDS];
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = sframe_get_s(sec, &pos, size, &w[i]);
		if (ret)
			return ret;
	}
	if (n < 2 || !SFRAME_FLEX_REG_P(w[0]))
		return -EINVAL;
	/* a register number no unwinder names: no rule followed here */
	if (SFRAME_FLEX_REGNUM(w[0]) > U8_MAX)
		return -ENOENT;
	fre->cfa_ctrl = w[0];
	fre->cfa_off = w[1];
	i = 2;
	if (i < n && !w[i]) {
		i++;
	} else if (i < n) {
		if (i + 1 >= n)
			return -EINVAL;
		if (w[i] != SFRAME_FLEX_AT_CFA)
			return -ENOENT;
		fre->ra_off = w[i + 1];
		i += 2;
	}
	if (i < n) {
		if (!w[i] || i + 2 != n)
			return -EINVAL;
		/* the FP at CFA + 0 would be the caller's stack */
		if (!SFRAME_FLEX_DEREF(w[i]) ||
		    (!SFRAME_FLEX_REG_P(w[i]) && !w[i + 1]) ||
		    SFRAME_FLEX_REGNUM(w[i]) > U8_MAX)
			return -ENOENT;
		fre->fp_ctrl = w[i];
		fre->fp_off = w[i + 1];
		i += 2;
	}
	return i == n ? 0 : -EINVAL;
}

/* Read the offsets of @fre, an FRE of @fde, which end at @end */
static int sframe_read_fre_offsets(const struct sframe_section *sec,
				   const struct sframe_fde *fde,
				   unsigned long end, struct sframe_fre *fre)
{
	unsigned int n = SFRAME_FRE_OFFSET_COUNT(fre->info);
	unsigned int size = 1 << SFRAME_FRE_OFFSET_SIZE(fre->info);
	unsigned long pos = end - n * size;
	s64 cfa_off;
	int ret = 0;

	fre->cfa_off = 0;
	fre->ra_off = 0;
	fre->fp_off = 0;
	fre->cfa_ctrl = 0;
	fre->fp_ctrl = 0;
	if (fde->flex && n)
		return sframe_read_fre_flex(sec, pos, n, size, fre);
	if (n >= 1)
		ret = sframe_get_s(sec, &pos, size, &fre->cfa_off);
	if (!ret && n >= 2)
		ret = sframe_get_s(sec, &pos, size,
				   SFRAME_RA_TRACKED ? &fre->ra_off : &fre->fp_off);
	if (!ret && n == 3)
		ret = sframe_get_s(sec, &pos, size, &fre->fp_off);
	if (ret)
		return ret;
	cfa_off = (s64)fre->cfa_off * UNWIND_USER_SFRAME_CFA_SCALE +
		  UNWIND_USER_SFRAME_CFA_ADJUST;
	if (cfa_off < S32_MIN || cfa_off > S32_MAX)
		return -EINVAL;
	fre->cfa_off = cfa_off;
	return 0;
}

/**
 * struct sframe_fre_iter - the FREs of an FDE, read in order
 * @pos:	where the next FRE starts
 * @i:		FREs read
 * @prev:	start of the last FRE read
 * @budget:	FREs that may still be read; each SFRAME_FRE_BATCH of them
 *		give a chance to reschedule and to die
 */
struct sframe_fre_iter {
	unsigned long	pos;
	u32		i;
	u32		prev;
	unsigned int	budget;
};

/*
 * Read the head of the next FRE of @fde into @fre (sframe_read_fre_head())
 * and check its place.  FREs have no fixed size, so they are read in
 * order; a function may claim as many as its section holds, so the walk
 * can be long, and it reschedules and gives way to a fatal signal as it
 * goes.  Inline in the loops that read FREs, as it was in each.  Return: 1
 * with the FRE's head, 0 past the last FRE, -ENOSPC when the budget is
 * spent, -EINTR, or the error of an FRE that does not read or check.
 */
static __always_inline int sframe_fre_next(const struct sframe_section *sec,
					   const struct sframe_fde *fde,
					   struct sframe_fre_iter *it,
					   struct sframe_fre *fre)
{
	int ret;

	if (it->i == fde->fres_num)
		return 0;
	if (!it->budget)
		return -ENOSPC;
	if (!(--it->budget % SFRAME_FRE_BATCH)) {
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	ret = sframe_read_fre_head(sec, fde, &it->pos, fre);
	if (ret)
		return ret;
	/* start addresses ascend, and stay inside the function */
	if ((it->i && fre->start <= it->prev) || fre->start >= fde->func_size)
		return -EINVAL;
	it->prev = fre->start;
	it->i++;
	return 1;
}

/* Find, among the FREs of @fde, the one in effect at @ip */
static int sframe_find_fre(const struct sframe_section *sec,
			   const struct sframe_fde *fde, unsigned long ip,
			   struct sframe_fre *out)
{
	/* the FDE's FREs bound the walk: the budget only paces its checks */
	struct sframe_fre_iter it = {
		.pos = fde->fres_start,
		.budget = UINT_MAX,
	};
	unsigned long off = ip - fde->func_start;
	unsigned long found_end = 0;	/* where the FRE in effect ends */
	struct sframe_fre fre;
	int ret;

	if (fde->fde_type == SFRAME_FDE_TYPE_PCMASK)
		off %= fde->rep_size;
	while ((ret = sframe_fre_next(sec, fde, &it, &fre)) > 0) {
		if (fre.start > off)
			break;
		*out = fre;
		found_end = it.pos;
	}
	if (ret < 0)
		return ret;
	if (!found_end)
		return -ENOENT;
	return sframe_read_fre_offsets(sec, fde, found_end, out);
}

#if SFRAME_FLEX_FOLLOWED
/*
 * A flexible FRE's rule: the CFA's register is the SP or FP the unwinder
 * tracks, or another one (known in the topmost frame only); the FP is
 * saved at an offset from the CFA, or from a register
 */
static void sframe_flex_to_frame(const struct sframe_fre *fre,
				 struct unwind_user_frame *frame)
{
	u32 reg = SFRAME_FLEX_REGNUM(fre->cfa_ctrl);

	frame->flex = true;
	frame->use_fp = reg == UNWIND_USER_DWARF_FP;
	frame->cfa_in_reg = reg != UNWIND_USER_DWARF_FP &&
			    reg != UNWIND_USER_DWARF_SP;
	frame->cfa_reg = reg;
	frame->cfa_deref = SFRAME_FLEX_DEREF(fre->cfa_ctrl);
	if (fre->ra_off)
		frame->ra_off = fre->ra_off;
	if (fre->fp_ctrl && SFRAME_FLEX_REG_P(fre->fp_ctrl)) {
		frame->fp_at_reg = true;
		frame->fp_base_reg = SFRAME_FLEX_REGNUM(fre->fp_ctrl);
	}
}
#else
static void sframe_flex_to_frame(const struct sframe_fre *fre,
				 struct unwind_user_frame *frame)
{
}
#endif

static int sframe_fre_to_frame(const struct sframe_section *sec,
			       const struct sframe_fde *fde,
			       const struct sframe_fre *fre,
			       struct unwind_user_frame *frame)
{
	memset(frame, 0, sizeof(*frame));
	/* no offset at all: the return address is undefined, outermost */
	frame->outermost = !SFRAME_FRE_OFFSET_COUNT(fre->info);
	frame->cfa_off = fre->cfa_off;
	frame->ra_off = SFRAME_RA_TRACKED ? fre->ra_off : sec->ra_off;
	frame->fp_off = fre->fp_off;
	frame->sp_off = UNWIND_USER_SFRAME_SP_OFF;
	frame->use_fp = SFRAME_FRE_BASE_REG(fre->info) == SFRAME_BASE_REG_FP;
	if (fde->flex && !frame->outermost) {
		sframe_flex_to_frame(fre, frame);
		return 0;
	}
	/* not saved yet: still in the register that received it */
	if (SFRAME_RA_TRACKED && !frame->ra_off) {
		frame->ra_in_reg = true;
		frame->ra_reg = UNWIND_USER_SFRAME_RA_REG;
	}
	if (!UNWIND_USER_SFRAME_REG_OFFSETS)
		return 0;
	/*
	 * Version 3 says it with a flexible FDE instead: there an odd
	 * offset names no register, and no save slot either (the ABI's are
	 * 8-byte aligned).  No rule: the frame is left to the next unwinder.
	 */
	if (sec->version != SFRAME_VERSION_2)
		return (frame->ra_off | frame->fp_off) & 1 ? -ENOENT : 0;
	/* kept in another register: (regnum << 1) | 1 */
	if (frame->ra_off & 1) {
		frame->ra_in_reg = true;
		/* past U8_MAX: a register no unwinder names, refused there */
		frame->ra_reg = min_t(u32, (u32)frame->ra_off >> 1, U8_MAX);
	}
	if (frame->fp_off & 1) {
		frame->fp_in_reg = true;
		frame->fp_reg = min_t(u32, (u32)frame->fp_off >> 1, U8_MAX);
		frame->fp_off = 0;
	}
	return 0;
}

/**
 * sframe_section_check - check a section as a registration does
 * @sec: the section, its range and text range set
 *
 * Reads its header and checks it and the whole FDE table, rescheduling and
 * giving way to a fatal signal as it goes, and decodes its rows: the
 * owner of @sec frees @sec->rows with kvfree() once no lookup can read
 * them.
 *
 * Return: 0, or the error sframe_add_section() gives for the section
 */
int sframe_section_check(struct sframe_section *sec)
{
	int ret = sframe_read_header(sec);

	sec->rows = NULL;
	if (!ret)
		ret = sframe_check_fdes(sec, &sec->rows);
	sec->fdes_checked = !ret;
	return ret;
}

/**
 * sframe_section_find - the rule for @ip in one section
 * @sec: the section, checked by sframe_section_check()
 * @ip: the address, in the section's addresses
 * @frame: where to put the rule
 *
 * Return: as sframe_find(); the section is not dropped
 */
int sframe_section_find(const struct sframe_section *sec, unsigned long ip,
			struct unwind_user_frame *frame)
{
	u32 rule = sec->rows ?
		   sframe_rows_search(sec->rows, ip - sec->text_start) :
		   SFRAME_ROW_SLOW;
	struct sframe_fde fde;
	struct sframe_fre fre;
	int ret;

	switch (SFRAME_ROW_KIND(rule)) {
	case SFRAME_ROW_NONE:
		return -ENOENT;
	case SFRAME_ROW_SLOW:
		break;
	default:
		sframe_row_frame(rule, frame);
		return 0;
	}
	ret = sframe_find_fde(sec, ip, &fde);
	if (!ret)
		ret = sframe_find_fre(sec, &fde, ip, &fre);
	if (!ret)
		ret = sframe_fre_to_frame(sec, &fde, &fre, frame);
	return ret;
}

/*
 * Rows for @sec, of room for every FRE the header counts and two rows an
 * FDE (at its start and its end), at most SFRAME_ROWS_MAX (put in *@max);
 * NULL where the section is to be read at every lookup
 */
static struct sframe_rows *sframe_rows_alloc(const struct sframe_section *sec,
					     unsigned int *max)
{
	/* an FRE takes two bytes at least */
	u64 n = min_t(u64, sec->num_fres, (sec->fres_end - sec->fres_start) / 2) +
		2 * (u64)sec->num_fdes;
	struct sframe_rows *rows;

	*max = 0;
	if (!READ_ONCE(sframe_decode) || n > SFRAME_ROWS_MAX ||
	    sec->text_end - sec->text_start > U32_MAX)
		return NULL;
	/* the lookups work without them: no need to try hard */
	rows = kvmalloc(struct_size(rows, row, n),
			GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN);
	if (!rows)
		return NULL;
	rows->nr = 0;
	*max = n;
	return rows;
}

/*
 * The rows decoded in @tmp, for the text of @sec, in an allocation of their
 * size with their blocks (struct sframe_rows), which lookups may share and
 * read under RCU; @tmp is freed.  NULL if out of memory.
 */
static struct sframe_rows *sframe_rows_done(const struct sframe_section *sec,
					    struct sframe_rows *tmp)
{
	/* at most 4 GiB (sframe_rows_alloc()) */
	u64 span = sec->text_end - sec->text_start;
	/* a row at 0 unless there is one, and the end */
	unsigned int first = !tmp->nr || tmp->row[0].start, nr;
	unsigned int shift = 4, blocks, b, r = 0;
	struct sframe_rows *rows;
	size_t size;

	nr = first + tmp->nr + 1;
	/*
	 * The smallest blocks, of 16 bytes or more, that are at most as
	 * many as the rows: about one row starts in a block, and the index
	 * takes at most half the rows' memory
	 */
	while ((span - 1) >> shift >= nr)
		shift++;
	blocks = ((span - 1) >> shift) + 1;
	size = struct_size(tmp, row, nr);
	rows = kvmalloc(size + blocks * sizeof(u32),
			GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN);
	if (rows) {
		refcount_set(&rows->ref, 1);
		rows->nr = nr;
		rows->shift = shift;
		rows->blocks = blocks;
		rows->span = span;
		rows->block = (u32 *)((char *)rows + size);
		rows->row[0] = (struct sframe_row) { 0, SFRAME_ROW_NONE };
		memcpy(&rows->row[first], tmp->row, tmp->nr * sizeof(*tmp->row));
		rows->row[nr - 1] = (struct sframe_row) { U32_MAX, SFRAME_ROW_NONE };
		for (b = 0; b < blocks; b++) {
			while (rows->row[r + 1].start <= (u64)b << shift)
				r++;
			rows->block[b] = r;
		}
	}
	kvfree(tmp);
	return rows;
}

/*
 * Add a row of @rule at @start, after the last one, which starts at or
 * below @start: a rule at the last row's start replaces its rule, a rule
 * equal to the last row's is not repeated.  -ENOSPC past @max rows.
 */
static int sframe_rows_add(struct sframe_rows *rows, unsigned int max,
			   u32 start, u32 rule)
{
	struct sframe_row *last = rows->nr ? &rows->row[rows->nr - 1] : NULL;

	if (last && last->start == start) {
		last->rule = rule;
		return 0;
	}
	if (last && last->rule == rule)
		return 0;
	if (rows->nr >= max)
		return -ENOSPC;
	rows->row[rows->nr].start = start;
	rows->row[rows->nr].rule = rule;
	rows->nr++;
	return 0;
}

/*
 * @fre's rule packed (struct sframe_row), or SFRAME_ROW_SLOW when it does
 * not fit: an offset that is not a multiple of 8 bytes or is too far.  The
 * return address's offset is the section's fixed one: a row says all a
 * step needs, with no section at hand.
 */
static u32 sframe_row_rule(const struct sframe_section *sec,
			   const struct sframe_fre *fre)
{
	s32 ra_off = SFRAME_RA_TRACKED ? fre->ra_off : sec->ra_off;
	s32 cfa = fre->cfa_off / 8, fp = fre->fp_off / 8, ra = ra_off / 8;
	u32 rule;

	if (!SFRAME_FRE_OFFSET_COUNT(fre->info))
		rule = SFRAME_ROW_OUTERMOST;
	else
		rule = SFRAME_ROW_RULE;
	if ((fre->cfa_off | fre->fp_off | ra_off) & 7 ||
	    cfa < -(1 << 15) || cfa >= 1 << 15 || fp < -(1 << 7) ||
	    fp >= 1 << 7 || ra < -(1 << 4) || ra >= 1 << 4)
		return SFRAME_ROW_SLOW;
	if (SFRAME_FRE_BASE_REG(fre->info) == SFRAME_BASE_REG_FP)
		rule |= SFRAME_ROW_USE_FP;
	return rule | ((u32)ra & 0x1f) << 3 | ((u32)fp & 0xff) << 8 |
	       (u32)cfa << 16;
}

/*
 * Decode the rules of @fde, an FDE of @sec checked, into @rows (at most
 * @max); *@budget FREs may still be read for the whole section, which
 * bounds the work however many FREs the FDEs claim.  An FDE that starts
 * where rows of an earlier one lie takes their place, as the search in
 * the section finds the last FDE that starts at or below an address.
 * Return: 0, -ENOSPC when the rows or the budget run out, or -EINTR
 */
static int sframe_rows_add_fde(const struct sframe_section *sec,
			       const struct sframe_fde *fde,
			       struct sframe_rows *rows, unsigned int max,
			       unsigned int *budget)
{
	/* inside the text, checked with the FDE: fits in 32 bits */
	u32 base = fde->func_start - sec->text_start;
	struct sframe_fre_iter it = {
		.pos = fde->fres_start,
		.budget = *budget,
	};
	struct sframe_fre fre;
	unsigned int nr;
	int ret = 0;

	while (rows->nr && rows->row[rows->nr - 1].start >= base)
		rows->nr--;
	nr = rows->nr;
	if (fde->no_rule) {
		ret = sframe_rows_add(rows, max, base, SFRAME_ROW_NONE);
		goto end;
	}
	/* rules that name registers, rules that repeat: read at lookup */
	if (fde->flex || fde->fde_type == SFRAME_FDE_TYPE_PCMASK)
		goto slow;
	/* no rule before the first FRE */
	ret = sframe_rows_add(rows, max, base, SFRAME_ROW_NONE);
	/* the FREs read and checked as sframe_find_fre() reads them */
	while (!ret && (ret = sframe_fre_next(sec, fde, &it, &fre)) > 0) {
		ret = sframe_read_fre_offsets(sec, fde, it.pos, &fre);
		if (ret)
			break;
		ret = sframe_rows_add(rows, max, base + fre.start,
				      sframe_row_rule(sec, &fre));
	}
	*budget = it.budget;
	/* the rows or the budget ran out, or a fatal signal came */
	if (ret == -ENOSPC || ret == -EINTR)
		return ret;
	if (!ret)
		goto end;
slow:
	/* the lookup that reads it finds what is wrong, as without rows */
	rows->nr = nr;
	ret = sframe_rows_add(rows, max, base, SFRAME_ROW_SLOW);
end:
	if (!ret && fde->func_start + fde->func_size < sec->text_end)
		ret = sframe_rows_add(rows, max, base + fde->func_size,
				      SFRAME_ROW_NONE);
	return ret;
}

/* FDE table entries read at once by sframe_check_sorted() */
#define SFRAME_SORT_BLOCK	(16 * sizeof(struct sframe_fdi_v3))

/*
 * The first lookup's check of a section whose rows are not made: only
 * that the FDE table is sorted, which the binary search relies on, from
 * the function starts, read a block of entries at a time.  Each FDE a
 * lookup uses is checked whole when it is read (sframe_read_fde()), so
 * the whole check of every FDE (some 250 instructions each, 10,000 in
 * python3's table) waits for the rows, or is never made.
 */
static int sframe_check_sorted(const struct sframe_section *sec)
{
	unsigned int per = SFRAME_SORT_BLOCK / sec->fde_size, i, j, n;
	unsigned long addr = sec->fdes_start, prev = 0, start;
	u8 buf[SFRAME_SORT_BLOCK];
	s64 rel;

	for (i = 0; i < sec->num_fdes; i += n) {
		n = min(per, sec->num_fdes - i);
		if (sframe_copy(sec, buf, addr, n * sec->fde_size))
			return -EFAULT;
		for (j = 0; j < n; j++, addr += sec->fde_size) {
			const u8 *e = buf + j * sec->fde_size;

			/* the function start is each entry's first field */
			if (sec->version == SFRAME_VERSION_3)
				rel = get_unaligned((const s64 *)e);
			else
				rel = get_unaligned((const s32 *)e);
			start = sframe_start_base(sec, addr) + rel;
			if (start < prev)
				return -EINVAL;
			prev = start;
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * The first lookup in a section, or the one that is to make its rows
 * (@decode): check the FDE table (whole when the rows are made, else its
 * order), decode the rows, and note it in the registration that was read
 */
static int sframe_check_once(struct sframe_mm *sm, struct sframe_section *sec,
			     bool decode)
{
	struct sframe_rows *rows = NULL;
	struct sframe_section *cur;
	int ret = decode ? sframe_check_fdes(sec, &rows) :
			   sframe_check_sorted(sec);

	if (ret)
		return ret;
	mutex_lock(&sm->lock);
	cur = mtree_load(&sm->sections, sec->text_start);
	if (cur && cur->id == sec->id) {
		WRITE_ONCE(cur->fdes_checked, true);
		if (decode)
			WRITE_ONCE(cur->decoded, true);
		/* another thread's may be there already */
		if (rows && !cur->rows) {
			/*
			 * filled before lookups see them: pairs with
			 * the acquire in sframe_lookup_section()
			 */
			smp_store_release(&cur->rows, rows);
			rows = NULL;
		}
	}
	mutex_unlock(&sm->lock);
	kvfree(rows);
	return 0;
}

/* The slot for @ip, the table allocated at the first lookup of the mm */
static struct sframe_rule *sframe_rule_slot(struct sframe_mm *sm,
					    unsigned long ip)
{
	struct sframe_rule *rules = READ_ONCE(sm->rules), *new;

	if (!rules) {
		/*
		 * Not kvcalloc(): the table is freed from __mmdrop(), which
		 * may run with preemption off, where vfree() must not be
		 * called.  Without the table, every lookup finds its rule
		 * in the section: no need to try hard.
		 */
		new = kcalloc(1 << SFRAME_CACHE_BITS, sizeof(*new),
			      GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN);
		if (!new)
			return NULL;
		/* threads of one mm may race to create it: one wins */
		rules = cmpxchg(&sm->rules, NULL, new);
		if (rules)
			kfree(new);
		else
			rules = new;
	}
	return &rules[hash_long(ip, SFRAME_CACHE_BITS)];
}

/* Keep @frame for @ip; a slot another thread is writing is left to it */
static void sframe_rule_put(struct sframe_rule *slot, unsigned long ip,
			    unsigned int gen,
			    const struct unwind_user_frame *frame)
{
	unsigned int seq = READ_ONCE(slot->seq);

	if ((seq & 1) || cmpxchg(&slot->seq, seq, seq + 1) != seq)
		return;
	WRITE_ONCE(slot->ip, ip);
	WRITE_ONCE(slot->gen, gen);
	/* readers that copy it meanwhile see seq change and drop the copy */
	data_race(slot->frame = *frame);
	/* the rule before the even seq that lets readers use it */
	smp_store_release(&slot->seq, seq + 2);
}

/* The rule for @ip, from the section that describes it */
static int sframe_find_in_section(struct sframe_walk *walk, unsigned long ip,
				  unsigned int gen,
				  struct unwind_user_frame *frame)
{
	struct sframe_section sec;
	struct sframe_fde fde;
	struct sframe_fre fre;
	int ret;

	/* -ESRCH, not the mm's: the caller looks for the section of a file */
	ret = sframe_lookup_section(walk, ip, gen, &sec, frame);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = sec.fdes_checked && sec.decoded ? 0 :
	      sframe_check_once(walk->sm, &sec, !sec.decoded);
	if (!ret)
		ret = sframe_find_fde(&sec, ip, &fde);
	if (!ret)
		ret = sframe_find_fre(&sec, &fde, ip, &fre);
	/* a fatal signal cut the walk short: the section is not at fault */
	if (ret == -ENOENT || ret == -EINTR)
		return ret;
	if (ret) {
		sframe_drop(&sec, ret == -EFAULT ? "unreadable" : "corrupt");
		return ret;
	}
	return sframe_fre_to_frame(&sec, &fde, &fre, frame);
}

/**
 * sframe_find_slow - sframe_find() for a rule not kept: find it, keep it
 * @walk: the walk, of the sections of the current mm
 * @ip: the address
 * @gen: @sm's generation, read before anything else of @sm
 * @frame: where to put the rule
 *
 * Out of line, so that the lookup of a kept rule, once for every frame of
 * a profiled stack, saves no registers for this path.
 *
 * Return: as sframe_find()
 */
noinline int sframe_find_slow(struct sframe_walk *walk, unsigned long ip,
			      unsigned int gen, struct unwind_user_frame *frame)
{
	struct sframe_rule *slot = sframe_rule_slot(walk->sm, ip);
	int ret = sframe_find_in_section(walk, ip, gen, frame);

	/* the mm's own sections win; a file's rule is not kept */
	if (ret == -ESRCH)
		return sframe_file_walk_find(walk, ip, frame);
	if (!ret && slot)
		sframe_rule_put(slot, ip, gen, frame);
	return ret;
}

/**
 * sframe_find - how to unwind from a user address, by the .sframe sections
 * @ip: the address, in the current task's address space
 * @frame: where to put the rule that finds the caller's frame
 *
 * Reads user memory: call only where faults are allowed.  A section found
 * inconsistent or unreadable is dropped, with a message once per mm.  A
 * rule found is kept for @ip until a section of the mm goes: the next
 * lookup of @ip reads no user memory, and does not see a change the
 * process makes to a section's bytes in the meantime.  A walk of many
 * frames looks them up with sframe_walk_find() instead, which does the
 * same without a call for a kept rule.
 *
 * Return: 0 with @frame set; -ENOENT when no section describes @ip, or
 * the one that does has no rule for it that this unwinder follows;
 * -EINVAL or -EFAULT when the section that does is bad (and now dropped)
 */
int sframe_find(unsigned long ip, struct unwind_user_frame *frame)
{
	struct sframe_walk walk;
	unsigned int gen;
	int ret;

	if (sframe_walk_begin(&walk)) {
		ret = sframe_walk_find(&walk, ip, frame);
	} else if (!walk.sm) {
		/* no section of its own, and no file's it may use */
		ret = -ENOENT;
	} else {
		/* No rule kept yet: as sframe_walk_find() without a table */
		gen = READ_ONCE(walk.sm->gen);
		/* the generation before the section, as in sframe_walk_find() */
		smp_rmb();
		ret = sframe_find_slow(&walk, ip, gen, frame);
	}
	sframe_walk_end(&walk);
	return ret;
}
