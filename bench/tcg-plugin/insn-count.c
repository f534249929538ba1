// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count: a QEMU TCG plugin that counts the guest instructions each
 * vCPU executes between two markers the guest runs.
 *
 * The marker is a 7-byte NOP with a magic displacement,
 *
 *	nopl MAGIC|KIND<<8|ID(%rax)		0f 1f 80 <disp32>
 *
 * and on s390x a branch that is never taken (mask 0), whose 32-bit
 * relative offset carries the same number, big-endian:
 *
 *	brcl 0,MAGIC|KIND<<8|ID			c0 04 <imm32>
 *
 * KIND 1 starts a count on the vCPU that executes it, KIND 2 ends it;
 * ID (0..255) names the measurement.  Compilers pad with nopl 0x0(%rax),
 * never with this displacement, so the bytes are unambiguous; the plugin
 * recognises them at translation time (qemu_plugin_insn_data) and needs
 * no guest registers (QEMU 7.2 has no API to read them).
 *
 * Counting: every translation block gets an execution callback that adds
 * its number of instructions to the counter of the vCPU running it (the
 * callback is told the vCPU index; 7.2's inline ops have one counter for
 * all vCPUs).  A marker also gets an instruction callback, which takes
 * the count at the marker itself: the block's instructions after the
 * marker were added already and are taken off.  A block left early by an
 * exception was counted whole, as in QEMU's own counting plugins.
 *
 * At each end marker one line is written:
 *
 *	insn-count vcpu=V id=ID insns=N
 *
 * N counts everything the vCPU ran from the instruction after the start
 * marker to the end marker included: user and kernel code, interrupts.
 * An end without a start on that vCPU, or an end whose ID is not the
 * start's, gives "insn-count vcpu=V id=ID unmatched".  At exit,
 * "insn-count total vcpu=V insns=N" for each vCPU.
 *
 * Arguments: out=PATH appends the lines to PATH (flushed at once);
 * without it they go to QEMU's log (-d plugin [-D FILE]).
 *
 * prof=PATH also writes a profile of each count to PATH: where the
 * instructions went, by translation block.  At each end marker,
 *
 *	prof seq=S vcpu=V id=ID
 *	prof tb=VADDR insns=N		(one line per block that ran)
 *	prof end
 *
 * N is the block's instructions times its executions while the count
 * was open.  Blocks do not span calls, so a block's address names the
 * function it belongs to (bench/profile.sh maps it with System.map).
 *
 *	qemu-system-x86_64 -accel tcg ... -plugin insn-count.so,out=/tmp/ic.log
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARKER_MAGIC	0x46540000u	/* "TF" in the top two bytes */
#define MARKER_MASK	0xffff0000u
#define MARKER_START	1
#define MARKER_END	2

struct vcpu_count {
	uint64_t insns;		/* all instructions this vCPU executed */
	uint64_t start;		/* insns at the start marker */
	int id;			/* ID of the open count, -1 when none */
};

/* A translated block, when profiling. */
struct tb_prof {
	uint64_t vaddr;
	uint64_t n;		/* its instructions */
	uint64_t hits;		/* executions while a count was open */
};

static struct vcpu_count *counts;
static int nr_vcpus;
static FILE *out;
static FILE *prof;
static struct tb_prof **tbs;	/* every block translated, when profiling */
static size_t nr_tbs, max_tbs;
static unsigned int prof_seq;

static void emit(const char *line)
{
	if (out) {
		fputs(line, out);
		fflush(out);
	} else {
		qemu_plugin_outs(line);
	}
}

static struct vcpu_count *vcpu(unsigned int index)
{
	return index < (unsigned int)nr_vcpus ? &counts[index] : NULL;
}

static void tb_exec(unsigned int vcpu_index, void *udata)
{
	struct vcpu_count *c = vcpu(vcpu_index);

	if (c)
		c->insns += (uintptr_t)udata;
}

static void tb_exec_prof(unsigned int vcpu_index, void *udata)
{
	struct vcpu_count *c = vcpu(vcpu_index);
	struct tb_prof *t = udata;

	if (!c)
		return;
	c->insns += t->n;
	if (c->id >= 0)
		t->hits++;
}

/* Write the blocks that ran during the count that just ended. */
static void prof_dump(unsigned int vcpu_index, int id)
{
	size_t i;

	fprintf(prof, "prof seq=%u vcpu=%u id=%d\n", prof_seq++, vcpu_index, id);
	for (i = 0; i < nr_tbs; i++) {
		if (!tbs[i]->hits)
			continue;
		fprintf(prof, "prof tb=%" PRIx64 " insns=%" PRIu64 "\n",
			tbs[i]->vaddr, tbs[i]->hits * tbs[i]->n);
		tbs[i]->hits = 0;
	}
	fputs("prof end\n", prof);
	fflush(prof);
}

static struct tb_prof *prof_new(struct qemu_plugin_tb *tb, size_t n)
{
	struct tb_prof *t, **more;

	if (nr_tbs == max_tbs) {
		more = realloc(tbs, (max_tbs ? max_tbs * 2 : 4096) * sizeof(*tbs));
		if (!more)
			return NULL;
		tbs = more;
		max_tbs = max_tbs ? max_tbs * 2 : 4096;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->vaddr = qemu_plugin_tb_vaddr(tb);
	t->n = n;
	tbs[nr_tbs++] = t;
	return t;
}

/*
 * udata of a marker: bits 0-7 ID, 8-15 KIND, 16 and up the number of
 * instructions of its block after it.
 */
static void marker_exec(unsigned int vcpu_index, void *udata)
{
	struct vcpu_count *c = vcpu(vcpu_index);
	uintptr_t d = (uintptr_t)udata;
	int id = d & 0xff, kind = (d >> 8) & 0xff;
	uint64_t now;
	char line[128];

	if (!c)
		return;
	now = c->insns - (d >> 16);
	if (kind == MARKER_START) {
		c->start = now;
		c->id = id;
		return;
	}
	if (c->id != id)
		snprintf(line, sizeof(line), "insn-count vcpu=%u id=%d unmatched\n",
			 vcpu_index, id);
	else
		snprintf(line, sizeof(line),
			 "insn-count vcpu=%u id=%d insns=%" PRIu64 "\n",
			 vcpu_index, id, now - c->start);
	if (prof && c->id == id)
		prof_dump(vcpu_index, id);
	c->id = -1;
	emit(line);
}

/* The marker's ID and KIND, or -1 when INSN is not a marker. */
static int marker(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	uint32_t disp;
	int kind;

	if (qemu_plugin_insn_size(insn) == 7 &&
	    b[0] == 0x0f && b[1] == 0x1f && b[2] == 0x80)
		disp = b[3] | b[4] << 8 | b[5] << 16 | (uint32_t)b[6] << 24;
	else if (qemu_plugin_insn_size(insn) == 6 && b[0] == 0xc0 && b[1] == 0x04)
		disp = (uint32_t)b[2] << 24 | b[3] << 16 | b[4] << 8 | b[5];
	else
		return -1;
	if ((disp & MARKER_MASK) != MARKER_MAGIC)
		return -1;
	kind = (disp >> 8) & 0xff;
	if (kind != MARKER_START && kind != MARKER_END)
		return -1;
	return disp & 0xffff;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct tb_prof *t = prof ? prof_new(tb, n) : NULL;
	int m;

	(void)id;
	if (t)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec_prof,
						     QEMU_PLUGIN_CB_NO_REGS, t);
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		m = marker(insn);
		if (m < 0)
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
				QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)(m | (n - i - 1) << 16));
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char line[128];
	int i;

	(void)id;
	(void)udata;
	for (i = 0; i < nr_vcpus; i++) {
		snprintf(line, sizeof(line),
			 "insn-count total vcpu=%d insns=%" PRIu64 "\n",
			 i, counts[i].insns);
		emit(line);
	}
	if (out)
		fclose(out);
	out = NULL;
	if (prof)
		fclose(prof);
	prof = NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (!info->system_emulation) {
		fprintf(stderr, "insn-count: system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out = fopen(argv[i] + 4, "a");
			if (!out) {
				perror(argv[i] + 4);
				return -1;
			}
		} else if (!strncmp(argv[i], "prof=", 5)) {
			prof = fopen(argv[i] + 5, "a");
			if (!prof) {
				perror(argv[i] + 5);
				return -1;
			}
		} else {
			fprintf(stderr, "insn-count: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	nr_vcpus = info->system.max_vcpus;
	counts = calloc(nr_vcpus, sizeof(*counts));
	if (!counts)
		return -1;
	for (i = 0; i < nr_vcpus; i++)
		counts[i].id = -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
