// SPDX-License-Identifier: GPL-2.0
/*
 * The shared library's ABI.  A program built against 1.0, whose
 * struct ustack_join_stats is smaller, is bound to the 1.0 versions of
 * ustack_file_iterate() and ustack_join_get_stats(), which must not write
 * past the 1.0 structure.  A program built against 1.0 or 1.1 knows no
 * USTACK_LOST (1.2): its joins deliver a lost stack as never arrived.
 *   usage: test-abi LIBUSTACK_SO TRACE_DAT FLAGS_DAT
 * FLAGS_DAT is mktrace.py's "flags" trace, with two lost stacks.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "ustack.h"
#include "check.h"

typedef struct ustack_file *(*open_fn)(const char *);
typedef void (*close_fn)(struct ustack_file *);
typedef int (*iterate_fn)(struct ustack_file *, int, ustack_join_cb, void *,
			  struct ustack_join_stats *);

struct fns {
	open_fn		open;
	close_fn	close;
	iterate_fn	it10, it11, it12;
};

/* events by status, USTACK_LOST and beyond in the last */
struct counts {
	int	n;
	int	status[USTACK_LOST + 1];
};

static int count_cb(const struct ustack_event *ev, void *data)
{
	struct counts *c = data;

	c->n++;
	c->status[ev->status < USTACK_LOST ? ev->status : USTACK_LOST]++;
	return 0;
}

static int load(void *h, struct fns *f)
{
	f->open = (open_fn)dlsym(h, "ustack_file_open");
	f->close = (close_fn)dlsym(h, "ustack_file_close");
	f->it10 = (iterate_fn)dlvsym(h, "ustack_file_iterate", "LIBUSTACK_1.0");
	f->it11 = (iterate_fn)dlvsym(h, "ustack_file_iterate", "LIBUSTACK_1.1");
	f->it12 = (iterate_fn)dlvsym(h, "ustack_file_iterate", "LIBUSTACK_1.2");
	CHECK(f->open && f->close && f->it10 && f->it11 && f->it12 &&
	      f->it10 != f->it11 && f->it11 != f->it12,
	      "ustack_file_iterate@1.0/1.1/1.2: %p %p %p", (void *)f->it10,
	      (void *)f->it11, (void *)f->it12);
	CHECK(dlvsym(h, "ustack_join_get_stats", "LIBUSTACK_1.0") &&
	      dlvsym(h, "ustack_join_get_stats", "LIBUSTACK_1.1") &&
	      dlvsym(h, "ustack_frame_plausible", "LIBUSTACK_1.1"),
	      "ustack_join_get_stats@1.0/1.1, ustack_frame_plausible@1.1");
	CHECK(dlvsym(h, "ustack_join_alloc", "LIBUSTACK_1.0") &&
	      dlvsym(h, "ustack_join_alloc", "LIBUSTACK_1.2") &&
	      dlvsym(h, "ustack_live_open", "LIBUSTACK_1.0") &&
	      dlvsym(h, "ustack_live_open", "LIBUSTACK_1.2"),
	      "ustack_join_alloc, ustack_live_open @1.0/1.2");
	CHECK(dlvsym(h, "ustack_unwinder_name", "LIBUSTACK_1.6") &&
	      !dlvsym(h, "ustack_unwinder_name", "LIBUSTACK_1.0"),
	      "ustack_unwinder_name@1.6 only");
	CHECK(dlvsym(h, "ustack_syms_add_trace_dir", "LIBUSTACK_1.7") &&
	      !dlvsym(h, "ustack_syms_add_trace_dir", "LIBUSTACK_1.6"),
	      "ustack_syms_add_trace_dir@1.7 only");
	return f->open && f->close && f->it10 && f->it11 && f->it12 ? 0 : -1;
}

/* 1.0's stats structure is the head of 1.1's; nothing written past it. */
static void test_stats(const struct fns *f, const char *path)
{
	size_t old = offsetof(struct ustack_join_stats, bad_kernel_frames);
	unsigned char raw[sizeof(struct ustack_join_stats) + 16];
	struct ustack_join_stats st, *p = (void *)raw;
	struct counts n10 = { 0 }, n11 = { 0 };
	struct ustack_file *file = f->open(path);

	begin("ABI: 1.0 programs get the 1.0 stats structure, 1.1 the new one");
	CHECK(file, "open %s", path);
	if (file) {
		memset(raw, 0xa5, sizeof(raw));
		CHECK(f->it10(file, -1, count_cb, &n10, p) == 0, "iterate@1.0");
		CHECK(raw[old] == 0xa5 && raw[sizeof(raw) - 1] == 0xa5,
		      "iterate@1.0 writes past the 1.0 structure");
		CHECK(f->it11(file, -1, count_cb, &n11, &st) == 0, "iterate@1.1");
		CHECK(n10.n > 0 && n10.n == n11.n && st.records == p->records &&
		      !memcmp(&st, raw, old), "1.0 and 1.1 disagree: %d/%d events",
		      n10.n, n11.n);
		f->close(file);
	}
	end();
}

/* USTACK_LOST for 1.2 programs only */
static void test_lost(const struct fns *f, const char *path)
{
	struct counts n11 = { 0 }, n12 = { 0 };
	struct ustack_join_stats s11, s12;
	struct ustack_file *file = f->open(path);

	begin("ABI: lost stacks are USTACK_LOST for 1.2, never-arrived before");
	CHECK(file, "open %s", path);
	if (file) {
		CHECK(f->it11(file, -1, count_cb, &n11, &s11) == 0, "iterate@1.1");
		CHECK(f->it12(file, -1, count_cb, &n12, &s12) == 0, "iterate@1.2");
		CHECK(n12.status[USTACK_LOST] == 2 && s12.lost == 2 &&
		      s12.never_arrived == 0, "1.2: %d lost, stats %llu/%llu",
		      n12.status[USTACK_LOST], s12.lost, s12.never_arrived);
		CHECK(!n11.status[USTACK_LOST] && !s11.lost &&
		      n11.status[USTACK_NEVER_ARRIVED] == 2 &&
		      s11.never_arrived == 2 && n11.n == n12.n,
		      "1.1: %d lost, %d never-arrived of %d",
		      n11.status[USTACK_LOST],
		      n11.status[USTACK_NEVER_ARRIVED], n11.n);
		f->close(file);
	}
	end();
}

int main(int argc, char **argv)
{
	struct fns f;
	void *h;

	if (argc < 4)
		return 2;
	begin("ABI: the versioned symbols");
	h = dlopen(argv[1], RTLD_NOW);
	CHECK(h, "dlopen: %s", dlerror());
	if (!h || load(h, &f)) {
		end();
		return 1;
	}
	end();
	test_stats(&f, argv[2]);
	test_lost(&f, argv[3]);
	dlclose(h);
	return failures ? 1 : 0;
}
