// SPDX-License-Identifier: GPL-2.0
/*
 * .sframe sections attached to object files, for the processes that
 * registered none of their own.
 *
 * A tracer recording the whole machine meets processes it did not start:
 * their objects have no section in their mm (stock distribution binaries
 * have no .sframe), and nothing may change in them.  A privileged caller
 * attaches a section to the object *file* instead, with
 * prctl(PR_ATTACH_SFRAME_FILE); the unwinder uses it for every executable
 * mapping of that file in an mm that has no section of its own there.
 *
 * The section is copied into kernel memory and checked once, as a
 * process's own registration is (header and FDE table; FREs as they are
 * read).  Sections belong to the file descriptor the caller attached them
 * through (an anonymous inode, "[sframe_file]"): closing it, the caller's
 * exit included, detaches and frees them.  Each holds a reference on the
 * object's file, so its inode, its key here, cannot be reused meanwhile.
 * All of them together are bounded by the sysctl kernel.sframe_file_max_kb.
 *
 * The unwinder looks them up under SRCU, held from a walk's first lookup
 * in a file's section to the walk's end: a lookup reads the section while
 * it may reschedule, a walk keeps the section it found for its next
 * frames, and a detach waits for such walks before freeing.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/anon_inodes.h>
#include <linux/buildid.h>
#include <linux/capability.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mutex.h>
#include <linux/prctl.h>
#include <linux/rculist.h>
#include <linux/sched/coredump.h>
#include <linux/security.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>
#include <linux/unwind_user_types.h>
#include <linux/vmalloc.h>

#include "sframe.h"
#include "sframe_rules.h"

#define SFRAME_FILE_HASH_BITS	6

/**
 * struct sframe_file - a section attached to an object file
 * @node:	in sframe_file_table, by @inode
 * @owner_node:	in its owner's list
 * @file:	the object's file, held while the section is attached
 * @inode:	its inode: the mappings the section is for
 * @bias:	the executable PT_LOAD's p_vaddr - p_offset: the ELF vaddr of
 *		a byte of the file is its offset plus @bias
 * @charge:	bytes counted against kernel.sframe_file_max_kb: this and
 *		the section's pages
 * @sec:	the section, its addresses the object's ELF vaddrs, its bytes
 *		in kernel memory (@sec.data)
 */
struct sframe_file {
	struct hlist_node	node;
	struct list_head	owner_node;
	struct file		*file;
	struct inode		*inode;
	unsigned long		bias;
	unsigned long		charge;
	struct sframe_section	sec;
};

/**
 * struct sframe_file_owner - the sections attached through one descriptor
 * @files:	its &struct sframe_file, under sframe_file_lock
 */
struct sframe_file_owner {
	struct list_head	files;
};

static DEFINE_HASHTABLE(sframe_file_table, SFRAME_FILE_HASH_BITS);
/* serialises attaching and detaching, and guards the counts below */
static DEFINE_MUTEX(sframe_file_lock);
DEFINE_STATIC_SRCU(sframe_file_srcu);
static unsigned long sframe_file_bytes;
static unsigned int sframe_file_nr;
static unsigned int sframe_file_max_kb = 65536;

/**
 * sframe_file_attached - whether an unwind of the current task may use them
 * @mm: its mm, or NULL
 *
 * Not for a task that is not dumpable (setuid programs and the like): no
 * one outside chose what describes their stacks.
 *
 * Return: true when sections are attached and the task may use them
 */
bool sframe_file_attached(struct mm_struct *mm)
{
	return mm && READ_ONCE(sframe_file_nr) &&
	       task_exec_state_get_dumpable(current) == TASK_DUMPABLE_OWNER;
}

/* The section attached to @inode; sframe_file_lock or SRCU held */
static struct sframe_file *sframe_file_lookup(struct inode *inode)
{
	struct sframe_file *sf;

	hash_for_each_possible_rcu(sframe_file_table, sf, node,
				   (unsigned long)inode,
				   srcu_read_lock_held(&sframe_file_srcu) ||
				   lockdep_is_held(&sframe_file_lock))
		if (sf->inode == inode)
			return sf;
	return NULL;
}

/*
 * The section for @ip in @vma, @ip as the object's ELF vaddr in *@link_ip
 * and @vma's range in *@start and *@end; @vma locked, SRCU held
 */
static struct sframe_file *sframe_file_vma(struct vm_area_struct *vma,
					   unsigned long ip,
					   unsigned long *link_ip,
					   unsigned long *start,
					   unsigned long *end)
{
	struct sframe_file *sf;

	if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file)
		return NULL;
	sf = sframe_file_lookup(file_inode(vma->vm_file));
	if (!sf)
		return NULL;
	/* the file offset of ip, then its ELF vaddr */
	*link_ip = ip - vma->vm_start + (vma->vm_pgoff << PAGE_SHIFT) +
		   sf->bias;
	*start = vma->vm_start;
	*end = vma->vm_end;
	return sf;
}

/* The rule for @link_ip, an ELF vaddr of the object @sec describes */
static int sframe_file_rule(const struct sframe_section *sec,
			    unsigned long link_ip,
			    struct unwind_user_frame *frame)
{
	if (link_ip < sec->text_start || link_ip >= sec->text_end)
		return -ENOENT;
	return sframe_section_find(sec, link_ip, frame);
}

/*
 * Keep @sf for @walk's next lookups in the mapping [@start, @end), its
 * addresses @bias below the file's ELF vaddrs; and its rows for the
 * inline lookups too when the mapping holds the whole text
 */
static void sframe_file_walk_keep(struct sframe_walk *walk,
				  const struct sframe_file *sf,
				  unsigned long start, unsigned long end,
				  unsigned long bias, unsigned int seq)
{
	unsigned long text_ip = sf->sec.text_start - bias;

	walk->file = &sf->sec;
	walk->file_start = start;
	walk->file_end = end;
	walk->file_bias = bias;
	walk->file_seq = seq;
	if (sf->sec.rows && text_ip >= start &&
	    sf->sec.rows->span <= end - text_ip)
		sframe_walk_keep_file(walk, &sf->sec, text_ip, seq);
}

/*
 * The section of the file mapped at @ip, kept in @walk for the frames
 * after this one while the mm's mappings stay as they are; with SRCU held
 * until the walk ends
 */
static int sframe_file_walk_lookup(struct sframe_walk *walk, unsigned long ip,
				   struct unwind_user_frame *frame)
{
	struct mm_struct *mm = current->mm;
	unsigned long start = 0, end = 0, link_ip = 0;
	struct vm_area_struct *vma;
	struct sframe_file *sf = NULL;
	unsigned int seq;
	bool keep;

	walk->file = NULL;
	if (!sframe_file_attached(mm))
		return -ENOENT;
	if (walk->file_srcu < 0)
		walk->file_srcu = srcu_read_lock(&sframe_file_srcu);
	/* before the lookup: a change of the mappings after it is seen */
	keep = mmap_lock_speculate_try_begin(mm, &seq);
	vma = lock_vma_under_rcu(mm, ip);
	if (vma) {
		sf = sframe_file_vma(vma, ip, &link_ip, &start, &end);
		vma_end_read(vma);
	} else if (!mmap_read_lock_killable(mm)) {
		vma = vma_lookup(mm, ip);
		if (vma)
			sf = sframe_file_vma(vma, ip, &link_ip, &start, &end);
		mmap_read_unlock(mm);
	}
	if (!sf)
		return -ENOENT;
	if (keep)
		sframe_file_walk_keep(walk, sf, start, end, link_ip - ip, seq);
	return sframe_file_rule(&sf->sec, link_ip, frame);
}

/**
 * sframe_file_walk_find - the rule for @ip from the section of its file
 * @walk: the walk of the current task's stack that looks @ip up
 * @ip: a user address of the current task
 * @frame: where to put the rule
 *
 * Called for an address that no section of the mm describes
 * (sframe_walk_find(), sframe_find_slow()).  The first lookup of a walk,
 * and one in another mapping or after the mm's mappings changed, takes the
 * VMA's lock (or the mmap lock) for as long as it takes to find the file's
 * section; the others read only the section kept.  The section is in kernel
 * memory; a lookup may reschedule.  The rule is not kept in the mm's
 * table: the mapping may go at any time without the mm's sections
 * changing.
 *
 * Return: 0 with @frame set, -ENOENT when no file section describes @ip,
 * or the error sframe_find() would give for a bad FRE
 */
int sframe_file_walk_find(struct sframe_walk *walk, unsigned long ip,
			  struct unwind_user_frame *frame)
{
	if (!walk->file ||
	    ip - walk->file_start >= walk->file_end - walk->file_start ||
	    mmap_lock_speculate_retry(current->mm, walk->file_seq))
		return sframe_file_walk_lookup(walk, ip, frame);
	return sframe_file_rule(walk->file, ip + walk->file_bias, frame);
}

/**
 * sframe_file_walk_end - end the lookups of files' sections of a walk
 * @walk: the walk, which holds SRCU for them
 */
void sframe_file_walk_end(struct sframe_walk *walk)
{
	srcu_read_unlock(&sframe_file_srcu, walk->file_srcu);
	walk->file_srcu = -1;
	walk->file = NULL;
}

static void sframe_file_free(struct sframe_file *sf)
{
	if (sf->file)
		fput(sf->file);
	kvfree(sf->sec.data);
	kvfree(sf->sec.rows);
	kfree(sf);
}

static int sframe_file_release(struct inode *inode, struct file *filp)
{
	struct sframe_file_owner *owner = filp->private_data;
	struct sframe_file *sf, *tmp;

	mutex_lock(&sframe_file_lock);
	list_for_each_entry(sf, &owner->files, owner_node) {
		hash_del_rcu(&sf->node);
		sframe_file_bytes -= sf->charge;
		WRITE_ONCE(sframe_file_nr, sframe_file_nr - 1);
	}
	mutex_unlock(&sframe_file_lock);
	/* the unwinds that found one of them are done with it */
	if (!list_empty(&owner->files))
		synchronize_srcu(&sframe_file_srcu);
	list_for_each_entry_safe(sf, tmp, &owner->files, owner_node)
		sframe_file_free(sf);
	kfree(owner);
	return 0;
}

static const struct file_operations sframe_file_fops = {
	.release	= sframe_file_release,
};

/* kernel.sframe_file_max_kb, in bytes */
static unsigned long sframe_file_limit(void)
{
	return (unsigned long)READ_ONCE(sframe_file_max_kb) << 10;
}

/*
 * Copy and check the section @a describes; attach it to @file for @owner.
 * Nothing changes unless it is attached.
 */
static int sframe_file_add(struct sframe_file_owner *owner, struct file *file,
			   const struct prctl_sframe_file *a)
{
	unsigned char id[BUILD_ID_SIZE_MAX];
	struct sframe_file *sf;
	unsigned long charge;
	void *data;
	u32 id_size;
	int ret;

	/* the section, the description of the object it was made from */
	if (!a->sframe_size || a->sframe_size > INT_MAX ||
	    a->sframe_addr + a->sframe_size < a->sframe_addr ||
	    a->text_start >= a->text_end ||
	    !a->build_id_size || a->build_id_size > BUILD_ID_SIZE_MAX ||
	    ((a->seg_vaddr - a->seg_offset) & ~PAGE_MASK))
		return -EINVAL;
	/* what it takes: a section of more than a page is vmalloc()ed */
	charge = sizeof(*sf) + (a->sframe_size > PAGE_SIZE ?
				PAGE_ALIGN(a->sframe_size) : a->sframe_size);
	if (charge > sframe_file_limit())
		return -ENOSPC;

	/* the file it was made from, by its build ID */
	if (!S_ISREG(file_inode(file)->i_mode) || !(file->f_mode & FMODE_READ))
		return -EBADF;
	if (build_id_parse_file(file, id, &id_size) ||
	    id_size != a->build_id_size ||
	    memcmp(id, a->build_id, id_size))
		return -EINVAL;

	/*
	 * Not kvmalloc(): it would take a section of 180 KiB in 256 KiB of
	 * contiguous pages when they are free
	 */
	if (a->sframe_size > PAGE_SIZE)
		data = __vmalloc(a->sframe_size, GFP_KERNEL_ACCOUNT);
	else
		data = kmalloc(a->sframe_size, GFP_KERNEL_ACCOUNT);
	if (!data)
		return -ENOMEM;
	sf = kzalloc_obj(*sf, GFP_KERNEL_ACCOUNT);
	if (!sf) {
		kvfree(data);
		return -ENOMEM;
	}
	sf->sec.data = data;
	ret = -EFAULT;
	if (copy_from_user(data, u64_to_user_ptr(a->sframe), a->sframe_size))
		goto free;
	sf->sec.sframe_start = a->sframe_addr;
	sf->sec.sframe_end = a->sframe_addr + a->sframe_size;
	sf->sec.text_start = a->text_start;
	sf->sec.text_end = a->text_end;
	sf->bias = a->seg_vaddr - a->seg_offset;
	sf->charge = charge;
	/*
	 * The inode that mappings of the file map: on a stacked file system
	 * (overlayfs) the file mmap() maps is the one underneath
	 */
	sf->inode = d_real_inode(file->f_path.dentry);
	/* what a process's own registration is checked for, bounded */
	ret = sframe_section_check(&sf->sec);
	if (ret)
		goto free;
	/* and its rows, 8 bytes each, and their blocks, 4 bytes each */
	if (sf->sec.rows) {
		charge += struct_size(sf->sec.rows, row, sf->sec.rows->nr) +
			  sf->sec.rows->blocks * sizeof(u32);
		sf->charge = charge;
	}

	mutex_lock(&sframe_file_lock);
	ret = -ENOSPC;
	if (sframe_file_bytes + charge > sframe_file_limit())
		goto unlock;
	ret = -EEXIST;
	if (sframe_file_lookup(sf->inode))
		goto unlock;
	sf->file = get_file(file);
	list_add(&sf->owner_node, &owner->files);
	sframe_file_bytes += charge;
	hash_add_rcu(sframe_file_table, &sf->node, (unsigned long)sf->inode);
	WRITE_ONCE(sframe_file_nr, sframe_file_nr + 1);
	mutex_unlock(&sframe_file_lock);
	return 0;

unlock:
	mutex_unlock(&sframe_file_lock);
free:
	sframe_file_free(sf);
	return ret;
}

/* Attach through the owner descriptor @owner_fd */
static int sframe_file_attach_to(int owner_fd, struct file *file,
				 const struct prctl_sframe_file *a)
{
	CLASS(fd, of)(owner_fd);
	int ret;

	if (fd_empty(of) || fd_file(of)->f_op != &sframe_file_fops)
		return -EBADF;
	ret = sframe_file_add(fd_file(of)->private_data, file, a);
	return ret ? ret : owner_fd;
}

/* Attach through a new owner descriptor, returned */
static int sframe_file_attach_new(struct file *file,
				  const struct prctl_sframe_file *a)
{
	struct sframe_file_owner *owner;
	struct file *of;
	int fd, ret;

	owner = kzalloc_obj(*owner, GFP_KERNEL_ACCOUNT);
	if (!owner)
		return -ENOMEM;
	INIT_LIST_HEAD(&owner->files);
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		kfree(owner);
		return fd;
	}
	of = anon_inode_getfile("[sframe_file]", &sframe_file_fops, owner,
				O_RDONLY);
	if (IS_ERR(of)) {
		put_unused_fd(fd);
		kfree(owner);
		return PTR_ERR(of);
	}
	ret = sframe_file_add(owner, file, a);
	if (ret) {
		put_unused_fd(fd);
		fput(of);	/* frees owner */
		return ret;
	}
	fd_install(fd, of);
	return fd;
}

/**
 * sframe_file_attach - prctl(PR_ATTACH_SFRAME_FILE)
 * @uattach: the caller's &struct prctl_sframe_file
 * @usize: its size
 *
 * Documentation/userspace-api/sframe.rst describes the call.
 *
 * Return: the owner file descriptor; -EPERM without CAP_PERFMON (or
 * CAP_SYS_ADMIN) and CAP_SYS_PTRACE, or when a security module refuses;
 * -EINVAL for bad arguments, a file whose build ID is not the one given,
 * or an inconsistent section;
 * -EBADF, -EEXIST, -ENOSPC, -EOPNOTSUPP, -EFAULT, -EINTR, -ENOMEM
 */
int sframe_file_attach(const void __user *uattach, unsigned long usize)
{
	struct prctl_sframe_file a;
	int ret;

	/* it changes the stacks of every process mapping the file */
	if (!perfmon_capable() || !capable(CAP_SYS_PTRACE))
		return -EPERM;
	ret = copy_struct_from_user(&a, sizeof(a), uattach, usize);
	if (ret)
		return ret;
	if (a.flags || a.reserved)
		return -EINVAL;

	CLASS(fd, obj)(a.object_fd);
	if (fd_empty(obj))
		return -EBADF;
	ret = security_sframe_file_attach(fd_file(obj));
	if (ret)
		return ret;
	if (a.owner_fd >= 0)
		return sframe_file_attach_to(a.owner_fd, fd_file(obj), &a);
	if (a.owner_fd != -1)
		return -EBADF;
	return sframe_file_attach_new(fd_file(obj), &a);
}

static const struct ctl_table sframe_file_sysctls[] = {
	{
		.procname	= "sframe_file_max_kb",
		.data		= &sframe_file_max_kb,
		.maxlen		= sizeof(sframe_file_max_kb),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
};

static int __init sframe_file_init(void)
{
	register_sysctl_init("kernel", sframe_file_sysctls);
	return 0;
}
late_initcall(sframe_file_init);
