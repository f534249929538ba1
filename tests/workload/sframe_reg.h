/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register (or unregister) the .sframe section of every loaded object with
 * the kernel's user space unwinder, through prctl(PR_ADD_SFRAME) and
 * prctl(PR_REMOVE_SFRAME).  Header-only: the SFrame workloads and the
 * preload library (sframe_preload.c) include it.
 *
 * An object's section is its PT_GNU_SFRAME segment; the code it
 * describes is the span of its executable PT_LOAD segments.  The kernel
 * registers the executable and the dynamic linker at exec, so -EEXIST for
 * those is expected and not an error.
 *
 * Why the kernel's tests do not use sframe-gen's registrar
 * (libsframe-register.so), which registers an object's own .sframe the
 * same way: these tests are the kernel's, and a registrar of a few lines
 * keeps a bug of the product registrar (its cache, its generated
 * sections, its LD_AUDIT hooks) from passing or failing a kernel test; and
 * the tests need what a product has no reason to offer: removing every
 * section (sframe_unreg.c: the frame-pointer baseline of bench/sframe.sh),
 * and registering from inside the workload at chosen points.  sframe-gen's
 * own suites test its registrar against the same kernel.
 */
#ifndef SFRAME_REG_H
#define SFRAME_REG_H

#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <sys/prctl.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif
#ifndef PR_ADD_SFRAME
#define PR_ADD_SFRAME		82
#define PR_REMOVE_SFRAME	83
#endif

struct sfreg_count {
	int add;	/* 1 register, 0 unregister */
	int done;	/* sections added (or removed) */
	int known;	/* already registered (-EEXIST) or not there (-ENOENT) */
	int failed;	/* any other error; errno of the last in err */
	int err;
};

/* An object's .sframe and executable range, as PR_ADD_SFRAME takes them:
 * 0 when it has no PT_GNU_SFRAME or no executable segment */
static int sfreg_ranges(const struct dl_phdr_info *info, uintptr_t *sf,
			uintptr_t *sf_end, uintptr_t *text, uintptr_t *text_end)
{
	int i;

	*sf = *sf_end = *text_end = 0;
	*text = UINTPTR_MAX;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_GNU_SFRAME) {
			*sf = a;
			*sf_end = a + p->p_memsz;
		} else if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			if (a < *text)
				*text = a;
			if (a + p->p_memsz > *text_end)
				*text_end = a + p->p_memsz;
		}
	}
	return *sf && *text_end;
}

static int sfreg_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sfreg_count *c = data;
	uintptr_t sf, sf_end, text, text_end;
	int r;

	(void)size;
	if (!sfreg_ranges(info, &sf, &sf_end, &text, &text_end))
		return 0;
	if (c->add)
		r = prctl(PR_ADD_SFRAME, sf, sf_end, text, text_end);
	else
		r = prctl(PR_REMOVE_SFRAME, sf, 0, 0, 0);
	if (!r)
		c->done++;
	else if (errno == EEXIST || errno == ENOENT)
		c->known++;
	else {
		c->failed++;
		c->err = errno;
	}
	return 0;
}

struct sfreg_text {
	uintptr_t addr, start, end;
};

static int sfreg_text_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sfreg_text *t = data;
	uintptr_t start = UINTPTR_MAX, end = 0;
	int i, mine = 0;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + p->p_vaddr;

		if (p->p_type != PT_LOAD)
			continue;
		if (t->addr >= a && t->addr < a + p->p_memsz)
			mine = 1;
		if (!(p->p_flags & PF_X))
			continue;
		if (a < start)
			start = a;
		if (a + p->p_memsz > end)
			end = a + p->p_memsz;
	}
	if (!mine)
		return 0;
	t->start = start;
	t->end = end;
	return 1;
}

/* The code of the object that holds @addr (code or data): 0, or -1 */
static inline int sfreg_text_of(const void *addr, uintptr_t *start,
				uintptr_t *end)
{
	struct sfreg_text t = { .addr = (uintptr_t)addr };

	if (!dl_iterate_phdr(sfreg_text_one, &t))
		return -1;
	*start = t.start;
	*end = t.end;
	return 0;
}

/* Register (add = 1) or unregister (add = 0) every loaded object's section */
static inline struct sfreg_count sfreg_all(int add)
{
	struct sfreg_count c = { .add = add };

	dl_iterate_phdr(sfreg_one, &c);
	return c;
}

#endif /* SFRAME_REG_H */
