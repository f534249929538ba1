// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: raw records, decoded with the event formats of a
 * trace.dat file (FUZZ_FORMATS, read once), through the join.  Input:
 * records as [u8 cpu][u8 len][len bytes of event data], repeated.  Much
 * faster than fuzz-tracedat, so it reaches deep into the join.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>

#include "tracefs-ext.h"

static struct ustack_file *file;
static struct tep_handle *tep;

static int cb(const struct ustack_event *ev, void *data)
{
	unsigned long long sum = 0;
	int i;

	(void)data;
	for (i = 0; i < ev->nr_kernel; i++)
		sum += ev->kernel[i];
	for (i = 0; i < ev->nr_user; i++)
		sum += ev->user[i];
	if (ev->record && ev->record->size > 0)
		sum += ((unsigned char *)ev->record->data)[ev->record->size - 1];
	return sum == 42 ? 0 : 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("FUZZ_FORMATS");

	(void)argc;
	(void)argv;
	ustack_set_loglevel(TEP_LOG_NONE);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	if (!path || !(file = ustack_file_open(path))) {
		fprintf(stderr, "set FUZZ_FORMATS to a trace.dat file\n");
		exit(1);
	}
	tep = ustack_file_tep(file);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ustack_join *join;
	unsigned char buf[256];
	struct tep_record r;
	unsigned long long ts = 1;
	size_t pos = 0;

	join = ustack_join_alloc(tep, cb, NULL);
	if (!join)
		return 0;
	ustack_join_set_limits(join, 16, 64, 8);
	while (pos + 2 <= size) {
		unsigned int cpu = data[pos] & 7, len = data[pos + 1];

		pos += 2;
		if (len > size - pos)
			len = size - pos;
		/* a copy of exactly len bytes: ASan sees any over-read */
		memcpy(buf, data + pos, len);
		pos += len;
		memset(&r, 0, sizeof(r));
		r.ts = ts++;
		r.cpu = cpu;
		r.size = len;
		r.data = len ? malloc(len) : NULL;
		if (len && !r.data)
			break;
		if (len)
			memcpy(r.data, buf, len);
		ustack_join_add_record(join, &r);
		free(r.data);
	}
	ustack_join_flush(join);
	ustack_join_free(join);
	return 0;
}
