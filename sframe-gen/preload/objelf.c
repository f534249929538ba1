// SPDX-License-Identifier: LGPL-2.1
/*
 * An object's ELF headers as registration needs them (objelf.h): one
 * pread() of the first page, the build ID note read where it lies.
 * x86-64 objects only.
 */
#include <elf.h>
#include <string.h>
#include <unistd.h>

#include "objelf.h"

#define SFREG_HDR_READ		4096

/* Find the GNU build ID note in @len bytes at @p */
static void find_build_id(const unsigned char *p, size_t len,
			  struct sfreg_elf *e)
{
	size_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		const Elf64_Nhdr *n = (const void *)(p + off);
		size_t name = (n->n_namesz + 3) & ~3UL;
		size_t desc = (n->n_descsz + 3) & ~3UL;

		off += sizeof(*n);
		if (name > len - off || desc > len - off - name)
			return;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(p + off, "GNU", 4) && n->n_descsz &&
		    n->n_descsz <= SFCACHE_BUILD_ID_MAX) {
			memcpy(e->build_id, p + off + name, n->n_descsz);
			e->build_id_len = n->n_descsz;
			return;
		}
		off += name + desc;
	}
}

int sfreg_read_elf(int fd, struct sfreg_elf *e)
{
	unsigned char buf[SFREG_HDR_READ];
	const Elf64_Ehdr *eh = (const void *)buf;
	const Elf64_Phdr *ph;
	ssize_t n;
	int i;

	memset(e, 0, sizeof(*e));
	e->text_start = UINTPTR_MAX;
	n = pread(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_phentsize != sizeof(*ph) || eh->e_phoff > (size_t)n ||
	    eh->e_phnum > ((size_t)n - eh->e_phoff) / sizeof(*ph))
		return -1;
	ph = (const void *)(buf + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && e->nr_loads < SFREG_MAX_LOADS)
			e->loads[e->nr_loads++] = (struct sfreg_load){
				ph[i].p_vaddr, ph[i].p_memsz, ph[i].p_offset };
		if (ph[i].p_type == PT_GNU_SFRAME) {
			e->sframe = ph[i].p_vaddr;
			e->sframe_len = ph[i].p_memsz;
		} else if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			if (ph[i].p_vaddr < e->text_start)
				e->text_start = ph[i].p_vaddr;
			if (ph[i].p_vaddr + ph[i].p_memsz > e->text_end)
				e->text_end = ph[i].p_vaddr + ph[i].p_memsz;
		} else if (ph[i].p_type == PT_NOTE && !e->build_id_len) {
			unsigned char note[512];
			size_t len = ph[i].p_filesz;

			if (len > sizeof(note))
				len = sizeof(note);
			if (pread(fd, note, len, ph[i].p_offset) == (ssize_t)len)
				find_build_id(note, len, e);
		}
	}
	return e->text_end ? 0 : -1;
}

