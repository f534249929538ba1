// SPDX-License-Identifier: GPL-2.0
/*
 * The shared library's ABI: a program built against 1.0, whose
 * struct ustack_join_stats is smaller, is bound to the 1.0 versions of
 * ustack_file_iterate() and ustack_join_get_stats(), which must not write
 * past the 1.0 structure.  usage: test-abi LIBTRACEFS_EXT_SO TRACE_DAT
 */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "tracefs-ext.h"
#include "check.h"

typedef struct ustack_file *(*open_fn)(const char *);
typedef void (*close_fn)(struct ustack_file *);
typedef int (*iterate_fn)(struct ustack_file *, int, ustack_join_cb, void *,
			  struct ustack_join_stats *);

static int count_cb(const struct ustack_event *ev, void *data)
{
	(void)ev;
	(*(int *)data)++;
	return 0;
}

int main(int argc, char **argv)
{
	size_t old = offsetof(struct ustack_join_stats, bad_kernel_frames);
	unsigned char raw[sizeof(struct ustack_join_stats) + 16];
	struct ustack_join_stats st, *p = (void *)raw;
	iterate_fn it10, it11;
	struct ustack_file *f;
	open_fn fopen_;
	close_fn fclose_;
	void *h;
	int n10 = 0, n11 = 0;

	if (argc < 3)
		return 2;
	begin("ABI: 1.0 programs get the 1.0 stats structure, 1.1 the new one");
	h = dlopen(argv[1], RTLD_NOW);
	CHECK(h, "dlopen: %s", dlerror());
	if (!h) {
		end();
		return 1;
	}
	fopen_ = (open_fn)dlsym(h, "ustack_file_open");
	fclose_ = (close_fn)dlsym(h, "ustack_file_close");
	it10 = (iterate_fn)dlvsym(h, "ustack_file_iterate", "LIBTRACEFS_EXT_1.0");
	it11 = (iterate_fn)dlvsym(h, "ustack_file_iterate", "LIBTRACEFS_EXT_1.1");
	CHECK(fopen_ && fclose_ && it10 && it11 && it10 != it11,
	      "symbols: %p %p %p %p", (void *)fopen_, (void *)fclose_,
	      (void *)it10, (void *)it11);
	CHECK(dlvsym(h, "ustack_join_get_stats", "LIBTRACEFS_EXT_1.0") &&
	      dlvsym(h, "ustack_join_get_stats", "LIBTRACEFS_EXT_1.1") &&
	      dlvsym(h, "ustack_frame_plausible", "LIBTRACEFS_EXT_1.1"),
	      "ustack_join_get_stats@1.0/1.1, ustack_frame_plausible@1.1");
	f = fopen_ && it10 && it11 ? fopen_(argv[2]) : NULL;
	CHECK(f, "open %s", argv[2]);
	if (f) {
		memset(raw, 0xa5, sizeof(raw));
		CHECK(it10(f, -1, count_cb, &n10, p) == 0, "iterate@1.0");
		CHECK(raw[old] == 0xa5 && raw[sizeof(raw) - 1] == 0xa5,
		      "iterate@1.0 writes past the 1.0 structure");
		CHECK(it11(f, -1, count_cb, &n11, &st) == 0, "iterate@1.1");
		CHECK(n10 > 0 && n10 == n11 && st.records == p->records &&
		      !memcmp(&st, raw, old), "1.0 and 1.1 disagree: %d/%d events",
		      n10, n11);
		fclose_(f);
	}
	dlclose(h);
	end();
	return failures ? 1 : 0;
}
