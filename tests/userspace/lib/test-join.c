// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the join, on synthetic event streams fed through the
 * join's internal interface (ustack_join_feed), and on raw records
 * decoded with real event formats (ustack_join_add_record).
 *
 * usage: test-join FORMATS_DIR
 * Prints "PASS: name" or "FAIL: name: why" per test.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-utils.h>
#include <trace-seq.h>

#include "ustack-local.h"
#include "unwind-record.h"

#define MAX_GOT	256

struct got {
	char			instance[32];
	int			pid;
	int			cpu;
	int			tgid;
	unsigned long long	ts;
	unsigned long long	cookie;
	enum ustack_status	status;
	unsigned int		flags;
	int			nr_k;
	unsigned long long	k[16];
	int			nr_u;
	unsigned long long	u[16];
	unsigned int		depth;
	int			event_id;
	unsigned long long	off;		/* record->offset */
	unsigned long long	coff;		/* cookie_offset */
	unsigned long long	soff;		/* stack_offset */
	unsigned int		unwinder;
};

struct log {
	int		n;
	struct got	g[MAX_GOT];
	int		stop_after;	/* >0: return 1 from that delivery */
};

#include "check.h"

static int log_cb(const struct ustack_event *ev, void *data)
{
	struct log *l = data;
	struct got *g;
	int i;

	if (l->n >= MAX_GOT)
		return -1;
	g = &l->g[l->n++];
	memset(g, 0, sizeof(*g));
	snprintf(g->instance, sizeof(g->instance), "%s", ev->instance);
	g->pid = ev->pid;
	g->cpu = ev->cpu;
	g->tgid = ev->tgid;
	g->ts = ev->ts;
	g->cookie = ev->cookie;
	g->status = ev->status;
	g->flags = ev->flags;
	g->nr_k = ev->nr_kernel;
	for (i = 0; i < ev->nr_kernel && i < 16; i++)
		g->k[i] = ev->kernel[i];
	g->nr_u = ev->nr_user;
	for (i = 0; i < ev->nr_user && i < 16; i++)
		g->u[i] = ev->user[i];
	g->depth = ev->depth;
	g->off = ev->record->offset;
	g->coff = ev->cookie_offset;
	g->soff = ev->stack_offset;
	g->unwinder = ev->unwinder;
	g->event_id = ev->event ? ev->event->id : -1;
	/* the record copy is readable */
	if (ev->record->size >= 4)
		g->event_id = ev->event ? ev->event->id :
			*(unsigned short *)ev->record->data;
	if (l->stop_after && l->n == l->stop_after)
		return 1;
	return 0;
}

/* ---- synthetic stream helpers ---- */

static unsigned long long ts_now;

static int ev(struct ustack_join *j, int cpu, int pid, unsigned short id)
{
	struct ustack_input in = { .type = USTACK_IN_EVENT, .cpu = cpu,
				   .pid = pid, .ts = ++ts_now };
	unsigned char data[8] = { 0 };

	memcpy(data, &id, 2);
	memcpy(data + 4, &pid, 4);
	in.data = data;
	in.size = sizeof(data);
	return ustack_join_feed(j, &in);
}

static int kst(struct ustack_join *j, int cpu, int pid, int nr,
	       unsigned long long base)
{
	unsigned long long f[16];
	struct ustack_input in = { .type = USTACK_IN_KSTACK, .cpu = cpu,
				   .pid = pid, .ts = ++ts_now, .nr = nr,
				   .frames = f };
	int i;

	for (i = 0; i < nr; i++)
		f[i] = base + i;
	return ustack_join_feed(j, &in);
}

/* A cookie record with flags and nr kernel frames from base on. */
static int ckx(struct ustack_join *j, int cpu, int pid,
	       unsigned long long cookie, int nr, unsigned long long base,
	       unsigned int flags)
{
	unsigned long long f[16];
	struct ustack_input in = { .type = USTACK_IN_COOKIE, .cpu = cpu,
				   .pid = pid, .ts = ++ts_now,
				   .cookie = cookie, .flags = flags, .nr = nr,
				   .frames = f };
	int i;

	for (i = 0; i < nr; i++)
		f[i] = base + i;
	return ustack_join_feed(j, &in);
}

/* A cookie record with its event's kernel stack */
static int ckk(struct ustack_join *j, int cpu, int pid,
	       unsigned long long cookie, int nr, unsigned long long base)
{
	return ckx(j, cpu, pid, cookie, nr, base, 0);
}

/* A cookie record without kernel frames */
static int ck(struct ustack_join *j, int cpu, int pid,
	      unsigned long long cookie)
{
	return ckx(j, cpu, pid, cookie, 0, 0, 0);
}

/* A user stack record; truncated (flags) ones had 10 frames more */
static int us(struct ustack_join *j, int cpu, int pid, int tgid,
	      unsigned long long cookie, int nr, unsigned long long base,
	      unsigned int flags)
{
	unsigned long long f[16];
	struct ustack_input in = { .type = USTACK_IN_USTACK, .cpu = cpu,
				   .pid = pid, .ts = ++ts_now,
				   .cookie = cookie, .tgid = tgid, .nr = nr,
				   .frames = f, .flags = flags, .depth = nr };
	int i;

	if (flags & USTACK_STACK_TRUNCATED)
		in.depth = nr + 10;

	for (i = 0; i < nr; i++)
		f[i] = base + i;
	return ustack_join_feed(j, &in);
}

static struct ustack_join *new_join(struct log *l)
{
	memset(l, 0, sizeof(*l));
	return ustack_join_alloc_raw(log_cb, l);
}

static struct got *find(struct log *l, int pid, unsigned short id)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->g[i].pid == pid && l->g[i].event_id == id)
			return &l->g[i];
	return NULL;
}

/* ---- tests ---- */

static void test_basic(void)
{
	struct ustack_join *j;
	struct log l;
	struct got *g;

	begin("basic: event, cookie with kernel stack, user stack on another CPU");
	j = new_join(&l);
	ev(j, 0, 100, 7);
	ckk(j, 0, 100, 0x42, 3, 0xffffffff81000000ULL);
	CHECK(l.n == 0, "delivered before its user stack (%d)", l.n);
	us(j, 1, 100, 99, 0x42, 4, 0x401000, 0);
	CHECK(l.n == 1, "delivered %d events", l.n);
	g = &l.g[0];
	CHECK(g->status == USTACK_COMPLETE, "status %d", g->status);
	CHECK(g->cookie == 0x42, "cookie %llx", g->cookie);
	CHECK(g->tgid == 99, "tgid %d", g->tgid);
	CHECK(g->nr_k == 3 && g->k[0] == 0xffffffff81000000ULL &&
	      g->k[2] == 0xffffffff81000002ULL, "kernel frames");
	CHECK(g->nr_u == 4 && g->u[0] == 0x401000 && g->u[3] == 0x401003 &&
	      g->depth == 4, "user frames");
	CHECK(g->cpu == 0 && g->event_id == 7, "event cpu %d id %d", g->cpu,
	      g->event_id);
	ustack_join_flush(j);
	CHECK(l.n == 1, "flush delivered more");
	ustack_join_free(j);
	end();
}

static void test_unseen(void)
{
	struct ustack_join *j;
	struct ustack_join_stats st;
	struct log l;

	begin("unseen: a cookie record without its event (filtered out)");
	j = new_join(&l);
	ckk(j, 0, 100, 0x50, 2, 0xffffffff81000000ULL);
	us(j, 0, 100, 99, 0x50, 3, 0x401000, 0);
	CHECK(l.n == 0, "without the flag: delivered %d", l.n);
	ustack_join_get_stats(j, &st);
	CHECK(st.stray == 1 && st.orphan_stacks == 0, "stray %llu",
	      st.stray);
	CHECK(ustack_join_set_flags(j, 1 << 7) == -1 && errno == EINVAL,
	      "an unknown flag is refused");
	CHECK(!ustack_join_set_flags(j, USTACK_JOIN_UNSEEN_EVENTS),
	      "set the flag");
	ckk(j, 1, 100, 0x51, 2, 0xffffffff81000000ULL);
	ev(j, 1, 100, 7);
	ckk(j, 1, 100, 0x51, 2, 0xffffffff81000010ULL);
	CHECK(l.n == 0, "delivered before its user stack (%d)", l.n);
	us(j, 0, 100, 99, 0x51, 3, 0x402000, 0);
	CHECK(l.n == 2, "with the flag: delivered %d", l.n);
	CHECK(l.g[0].event_id == -1 && (l.g[0].flags & USTACK_EV_UNSEEN) &&
	      l.g[0].status == USTACK_COMPLETE && l.g[0].nr_k == 2 &&
	      l.g[0].k[0] == 0xffffffff81000000ULL && l.g[0].nr_u == 3 &&
	      l.g[0].u[0] == 0x402000 && l.g[0].cookie == 0x51,
	      "the request alone: its kernel and user stack, no event");
	CHECK(l.g[1].event_id == 7 && !(l.g[1].flags & USTACK_EV_UNSEEN) &&
	      l.g[1].k[0] == 0xffffffff81000010ULL,
	      "the request with its event: named");
	ustack_join_flush(j);
	CHECK(l.n == 2, "flush delivered more");
	ustack_join_free(j);
	end();
}

static void test_reorder(void)
{
	struct ustack_join_stats st;
	struct ustack_join *j;
	struct log l;
	struct got *g;

	begin("reordering across CPUs: user stack merged before its cookie");
	j = new_join(&l);
	/* task 200 on cpu 0, task 300 on cpu 1, interleaved */
	ev(j, 0, 200, 1);
	ev(j, 1, 300, 2);
	/* cpu 1's clock is behind: 200's user stack sorts before its cookie */
	us(j, 1, 200, 200, 0x1111, 3, 0x500000, 0);
	ckk(j, 1, 300, 0x2222, 2, 0xa000);
	ckk(j, 0, 200, 0x1111, 2, 0xb000);
	CHECK(l.n == 1, "early user stack not matched (%d)", l.n);
	us(j, 0, 300, 300, 0x2222, 2, 0x600000, 0);
	CHECK(l.n == 2, "delivered %d", l.n);
	g = find(&l, 200, 1);
	CHECK(g && g->status == USTACK_COMPLETE && g->nr_k == 2 &&
	      g->k[0] == 0xb000 && g->nr_u == 3 && g->u[0] == 0x500000,
	      "task 200 wrong");
	g = find(&l, 300, 2);
	CHECK(g && g->status == USTACK_COMPLETE && g->nr_k == 2 &&
	      g->k[0] == 0xa000 && g->nr_u == 2 && g->u[0] == 0x600000,
	      "task 300 wrong");
	ustack_join_flush(j);
	ustack_join_get_stats(j, &st);
	CHECK(st.early_stacks == 1, "early_stacks %llu", st.early_stacks);
	CHECK(st.complete == 2 && st.never_arrived == 0, "stats");
	ustack_join_free(j);
	end();
}

static void test_never(void)
{
	struct ustack_join_stats st;
	struct ustack_join *j;
	struct log l;

	begin("user stack never arrives: flushed as never-arrived");
	j = new_join(&l);
	ev(j, 0, 10, 1);
	ckk(j, 0, 10, 0x77, 2, 0xc000);
	ev(j, 1, 11, 1);
	ckk(j, 1, 11, 0x78, 2, 0xd000);
	us(j, 1, 11, 11, 0x78, 1, 0x1000, 0);
	CHECK(l.n == 1, "delivered %d before flush", l.n);
	ustack_join_flush(j);
	CHECK(l.n == 2, "delivered %d after flush", l.n);
	CHECK(l.g[1].pid == 10 && l.g[1].status == USTACK_NEVER_ARRIVED &&
	      l.g[1].nr_u == 0 && l.g[1].nr_k == 2 && l.g[1].tgid == -1 &&
	      !(l.g[1].flags & USTACK_EV_EVICTED), "never-arrived event wrong");
	ustack_join_get_stats(j, &st);
	CHECK(st.pending_cookies == 0 && st.pending_events == 0,
	      "still pending after flush");
	ustack_join_free(j);
	end();
}

static void test_two_instances(void)
{
	struct ustack_join *a, *b;
	struct log la, lb;

	begin("two instances: a join per instance stream");
	a = new_join(&la);
	b = new_join(&lb);
	ustack_join_set_instance(a, "inst_a");
	ustack_join_set_instance(b, "inst_b");
	/* the same kernel entry asked in both instances */
	ev(a, 0, 50, 1);
	ckk(a, 0, 50, 0x99, 1, 0xe000);
	ev(b, 0, 50, 2);
	ck(b, 0, 50, 0x99);
	/* only instance a asked for this one */
	ev(a, 0, 51, 1);
	ck(a, 0, 51, 0x9a);
	us(a, 1, 50, 50, 0x99, 2, 0x7000, 0);
	us(a, 1, 51, 51, 0x9a, 2, 0x7100, 0);
	CHECK(la.n == 2 && lb.n == 0, "a %d b %d", la.n, lb.n);
	us(b, 0, 50, 50, 0x99, 2, 0x7000, 0);
	CHECK(lb.n == 1 && lb.g[0].status == USTACK_COMPLETE &&
	      lb.g[0].nr_k == 0 && lb.g[0].u[0] == 0x7000, "b wrong");
	CHECK(!strcmp(la.g[0].instance, "inst_a") &&
	      !strcmp(lb.g[0].instance, "inst_b"), "instance names");
	ustack_join_flush(a);
	ustack_join_flush(b);
	CHECK(la.n == 2 && lb.n == 1, "flush delivered more");
	ustack_join_free(a);
	ustack_join_free(b);
	end();
}

static void test_many_per_cookie(void)
{
	struct ustack_join *j;
	struct log l;
	int i;

	begin("many events per cookie: each gets the one user stack");
	j = new_join(&l);
	for (i = 0; i < 20; i++) {
		ev(j, i % 2, 60, 10 + i);
		ckk(j, i % 2, 60, 0x5555, i % 3 ? 2 : 0, 0x10000 * (i + 1));
	}
	CHECK(l.n == 0, "early delivery");
	us(j, 1, 60, 60, 0x5555, 5, 0x800000, 0);
	CHECK(l.n == 20, "delivered %d", l.n);
	for (i = 0; i < l.n; i++) {
		struct got *g = &l.g[i];

		CHECK(g->event_id == 10 + i, "order: %d at %d", g->event_id, i);
		CHECK(g->status == USTACK_COMPLETE && g->nr_u == 5 &&
		      g->u[4] == 0x800004, "user stack of %d", i);
		if (i % 3)
			CHECK(g->nr_k == 2 && g->k[0] == 0x10000ULL * (i + 1),
			      "kernel stack of %d", i);
		else
			CHECK(g->nr_k == 0, "kernel stack of %d", i);
	}
	ustack_join_flush(j);
	ustack_join_free(j);
	end();
}

static void test_cookie_reuse(void)
{
	struct ustack_join_stats st;
	struct ustack_join *j;
	struct log l;

	begin("cookie reuse: a request after delivery is a late request of the same entry");
	j = new_join(&l);
	ev(j, 0, 70, 1);
	ckk(j, 0, 70, 0xabc, 1, 0xf000);
	us(j, 0, 70, 70, 0xabc, 3, 0x900000, 0);
	CHECK(l.n == 1 && !(l.g[0].flags & USTACK_EV_LATE), "first");
	/* e.g. sched_switch on the way out: no second user stack comes */
	ev(j, 1, 70, 2);
	ckk(j, 1, 70, 0xabc, 1, 0xf100);
	CHECK(l.n == 2, "late request not served from the entry (%d)", l.n);
	CHECK(l.n == 2 && l.g[1].status == USTACK_COMPLETE &&
	      (l.g[1].flags & USTACK_EV_LATE) && l.g[1].nr_u == 3 &&
	      l.g[1].u[0] == 0x900000 && l.g[1].k[0] == 0xf100,
	      "late event wrong");
	/* the task's next entry has a new cookie */
	ev(j, 0, 70, 3);
	ck(j, 0, 70, 0xabd);
	CHECK(l.n == 2, "new cookie matched an old stack");
	us(j, 0, 70, 70, 0xabd, 2, 0x910000, 0);
	CHECK(l.n == 3 && l.g[2].u[0] == 0x910000 &&
	      !(l.g[2].flags & USTACK_EV_LATE), "second entry");
	/* another task's cookie with the same value is a different key */
	ev(j, 0, 71, 4);
	ck(j, 0, 71, 0xabc);
	CHECK(l.n == 3, "matched across tasks");
	ustack_join_flush(j);
	CHECK(l.n == 4 && l.g[3].pid == 71 &&
	      l.g[3].status == USTACK_NEVER_ARRIVED, "other task");
	ustack_join_get_stats(j, &st);
	CHECK(st.late == 1, "late %llu", st.late);
	ustack_join_free(j);
	end();
}

static void test_truncated(void)
{
	struct ustack_join *j;
	struct log l;

	begin("TRUNCATED: status truncated, the depth found; empty user stacks");
	j = new_join(&l);
	ev(j, 0, 80, 1);
	ck(j, 0, 80, 0x1);
	us(j, 0, 80, 80, 0x1, 16, 0x400000, USTACK_STACK_TRUNCATED);
	ev(j, 0, 81, 1);
	ck(j, 0, 81, 0x2);
	us(j, 0, 81, 81, 0x2, 0, 0, 0);
	CHECK(l.n == 2, "delivered %d", l.n);
	CHECK(l.g[0].status == USTACK_TRUNCATED && l.g[0].nr_u == 16 &&
	      l.g[0].depth == 26, "truncated: status %d nr %d depth %u",
	      l.g[0].status, l.g[0].nr_u, l.g[0].depth);
	CHECK(l.g[1].status == USTACK_EMPTY && l.g[1].nr_u == 0 &&
	      l.g[1].depth == 0, "empty: status %d", l.g[1].status);
	ustack_join_flush(j);
	ustack_join_free(j);
	end();
}

static void test_cookie_kernel(void)
{
	struct ustack_join *j;
	struct log l;

	begin("kernel frames of an event with a cookie are the cookie record's");
	j = new_join(&l);
	/* a plain kernel_stack (stacktrace trigger) before the cookie */
	ev(j, 0, 40, 1);
	kst(j, 0, 40, 2, 0x1000);
	ckk(j, 0, 40, 0x5, 3, 0x2000);
	/* a cookie without kernel frames (option, no stacktrace) */
	ev(j, 0, 41, 2);
	kst(j, 0, 41, 2, 0x3000);
	ck(j, 0, 41, 0x6);
	us(j, 1, 40, 40, 0x5, 1, 0x400000, 0);
	us(j, 1, 41, 41, 0x6, 1, 0x400000, 0);
	CHECK(l.n == 2, "delivered %d", l.n);
	CHECK(l.g[0].nr_k == 3 && l.g[0].k[0] == 0x2000,
	      "the cookie's kernel stack: %d frames, 0x%llx", l.g[0].nr_k,
	      l.g[0].k[0]);
	CHECK(l.g[1].nr_k == 0, "an empty kernel array: %d frames",
	      l.g[1].nr_k);
	ustack_join_flush(j);
	ustack_join_free(j);
	end();
}

static void test_lost(void)
{
	struct ustack_join_stats st;
	struct ustack_join *j;
	struct log l;

	begin("NO_USER_STACK: lost at once, counted as lost, not never-arrived");
	j = new_join(&l);
	ev(j, 0, 45, 1);
	ckx(j, 0, 45, 0x9, 2, 0x7000, USTACK_COOKIE_NO_USER_STACK);
	CHECK(l.n == 1, "not delivered at once (%d)", l.n);
	CHECK(l.n == 1 && l.g[0].status == USTACK_LOST &&
	      l.g[0].cookie == 0x9 && l.g[0].nr_k == 2 &&
	      l.g[0].k[0] == 0x7000 && l.g[0].nr_u == 0 &&
	      l.g[0].tgid == -1 && l.g[0].depth == 0, "lost event wrong");
	CHECK(!strcmp(ustack_status_name(USTACK_LOST), "lost"),
	      "status name %s", ustack_status_name(USTACK_LOST));
	/* other bits are reserved: a cookie with them waits as usual */
	ev(j, 0, 45, 2);
	ckx(j, 0, 45, 0xa, 0, 0, ~USTACK_COOKIE_NO_USER_STACK);
	CHECK(l.n == 1, "reserved bits taken for NO_USER_STACK");
	ustack_join_flush(j);
	ustack_join_get_stats(j, &st);
	CHECK(st.lost == 1 && st.never_arrived == 1 && st.delivered == 2 &&
	      st.pending_cookies == 0, "lost %llu never %llu delivered %llu",
	      st.lost, st.never_arrived, st.delivered);
	ustack_join_free(j);

	/* the entry's user stack is known already: given, not lost */
	j = new_join(&l);
	ev(j, 0, 46, 1);
	ck(j, 0, 46, 0xb);
	us(j, 1, 46, 46, 0xb, 2, 0x400000, 0);
	ev(j, 0, 46, 2);
	ckx(j, 0, 46, 0xb, 0, 0, USTACK_COOKIE_NO_USER_STACK);
	CHECK(l.n == 2 && l.g[1].status == USTACK_COMPLETE &&
	      (l.g[1].flags & USTACK_EV_LATE) && l.g[1].nr_u == 2,
	      "a known stack not given");
	ustack_join_flush(j);
	ustack_join_free(j);
	end();
}

static void test_late_flag(void)
{
	struct ustack_join_stats st;
	struct ustack_join *j;
	struct log l;

	begin("LATE: the kernel answered from its cache, every event flagged late");
	j = new_join(&l);
	ev(j, 0, 48, 1);
	ck(j, 0, 48, 0xd);
	ev(j, 0, 48, 2);
	ck(j, 0, 48, 0xd);
	us(j, 1, 48, 48, 0xd, 3, 0x400000, USTACK_STACK_LATE);
	CHECK(l.n == 2 && (l.g[0].flags & USTACK_EV_LATE) &&
	      (l.g[1].flags & USTACK_EV_LATE) &&
	      l.g[0].status == USTACK_COMPLETE && l.g[0].nr_u == 3,
	      "late events wrong");
	/* and one asking after that, served by the join */
	ev(j, 0, 48, 3);
	ck(j, 0, 48, 0xd);
	CHECK(l.n == 3 && (l.g[2].flags & USTACK_EV_LATE), "third");
	/* a stack without the flag: not late */
	ev(j, 0, 49, 1);
	ck(j, 0, 49, 0xe);
	us(j, 1, 49, 49, 0xe, 3, 0x400000, 0);
	CHECK(l.n == 4 && !(l.g[3].flags & USTACK_EV_LATE), "not late");
	ustack_join_flush(j);
	ustack_join_get_stats(j, &st);
	CHECK(st.late == 3, "late %llu", st.late);
	ustack_join_free(j);
	end();
}

static void test_unwinder(void)
{
	static const struct {
		unsigned int	flags;		/* the record's */
		unsigned int	want;
		const char	*name;
	} c[] = {
		{ USTACK_STACK_UNWIND_FP, USTACK_UNWINDER_FP, "fp" },
		{ USTACK_STACK_UNWIND_SFRAME, USTACK_UNWINDER_SFRAME, "sframe" },
		{ USTACK_STACK_UNWIND_FP | USTACK_STACK_UNWIND_SFRAME,
		  USTACK_UNWINDER_FP | USTACK_UNWINDER_SFRAME, "sframe+fp" },
		{ 0, 0, "" },
		/* with TRUNCATED, LATE and the reserved bits */
		{ ~USTACK_STACK_UNWIND_FP, USTACK_UNWINDER_SFRAME, "sframe" },
		{ ~USTACK_STACK_UNWIND_SFRAME, USTACK_UNWINDER_FP, "fp" },
		{ ~(USTACK_STACK_UNWIND_FP | USTACK_STACK_UNWIND_SFRAME), 0, "" },
	};
	struct ustack_join *j;
	struct log l;
	size_t i;

	begin("unwinder: the record's UNWIND_FP and UNWIND_SFRAME, named");
	j = new_join(&l);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ev(j, 0, 60 + i, 1);
		ck(j, 0, 60 + i, 0x100 + i);
		us(j, 1, 60 + i, 60 + i, 0x100 + i, 3, 0x400000, c[i].flags);
		CHECK(l.n == (int)i + 1 && l.g[i].unwinder == c[i].want,
		      "flags 0x%x: unwinder 0x%x, want 0x%x", c[i].flags,
		      l.n == (int)i + 1 ? l.g[i].unwinder : ~0U, c[i].want);
		CHECK(!strcmp(ustack_unwinder_name(c[i].want), c[i].name),
		      "name of 0x%x: \"%s\"", c[i].want,
		      ustack_unwinder_name(c[i].want));
	}
	/* a late request given the entry's stack by the join: its unwinder */
	ev(j, 0, 61, 2);
	ck(j, 0, 61, 0x101);
	CHECK(l.n == (int)i + 1 && (l.g[i].flags & USTACK_EV_LATE) &&
	      l.g[i].unwinder == USTACK_UNWINDER_SFRAME,
	      "late request: unwinder 0x%x", l.n > (int)i ? l.g[i].unwinder : ~0U);
	/* no user stack: 0 */
	ev(j, 0, 70, 1);
	ckx(j, 0, 70, 0x200, 1, 0x7000, USTACK_COOKIE_NO_USER_STACK);
	ev(j, 0, 71, 1);
	ck(j, 0, 71, 0x201);
	ustack_join_flush(j);
	CHECK(l.n == (int)i + 3 && l.g[i + 1].status == USTACK_LOST &&
	      !l.g[i + 1].unwinder && l.g[i + 2].status == USTACK_NEVER_ARRIVED &&
	      !l.g[i + 2].unwinder, "lost, never arrived: not 0");
	CHECK(!strcmp(ustack_unwinder_name(~0U), "sframe+fp") &&
	      !strcmp(ustack_unwinder_name(~0U & ~USTACK_UNWINDER_FP), "sframe"),
	      "other bits of the argument not ignored");
	ustack_join_free(j);
	end();
}

static void test_kthread(void)
{
	struct ustack_join *j;
	struct log l;
	int i;

	begin("kernel thread: kernel stack, no cookie");
	j = new_join(&l);
	ev(j, 0, 2, 1);			/* kworker */
	kst(j, 0, 2, 2, 0x123000);
	for (i = 0; i < 3; i++)
		ev(j, 0, 2, 5);		/* not asking, no stack */
	ustack_join_flush(j);
	CHECK(l.n == 1, "delivered %d", l.n);
	CHECK(l.g[0].status == USTACK_NO_COOKIE && l.g[0].nr_k == 2 &&
	      l.g[0].cookie == 0, "status %d", l.g[0].status);
	ustack_join_free(j);

	j = new_join(&l);
	ustack_join_set_flags(j, USTACK_JOIN_ALL_EVENTS);
	ev(j, 0, 2, 1);
	kst(j, 0, 2, 2, 0x123000);
	for (i = 0; i < 20; i++)
		ev(j, 0, 3, 5);
	CHECK(l.n >= 1 && l.g[0].status == USTACK_NO_COOKIE,
	      "kthread event not pushed out by later events");
	ustack_join_flush(j);
	CHECK(l.n == 21, "ALL_EVENTS delivered %d", l.n);
	ustack_join_free(j);
	end();
}

static void test_nested(void)
{
	struct ustack_join *j;
	struct log l;
	struct got *g;

	begin("an interrupt nests a whole event/cookie group");
	j = new_join(&l);
	ev(j, 0, 90, 1);
	/* irq on the same CPU in the same task */
	ev(j, 0, 90, 2);
	ckk(j, 0, 90, 0xc0, 1, 0x2000);
	ckk(j, 0, 90, 0xc0, 1, 0x1000);
	us(j, 0, 90, 90, 0xc0, 1, 0x3000, 0);
	CHECK(l.n == 2, "delivered %d", l.n);
	g = find(&l, 90, 1);
	CHECK(g && g->nr_k == 1 && g->k[0] == 0x1000 && g->nr_u == 1,
	      "outer event");
	g = find(&l, 90, 2);
	CHECK(g && g->nr_k == 1 && g->k[0] == 0x2000 && g->nr_u == 1,
	      "nested event");
	/* a stack or cookie of another task never attaches */
	ev(j, 1, 91, 3);
	kst(j, 1, 92, 1, 0x4000);
	ckk(j, 1, 93, 0xc1, 1, 0x6000);
	ck(j, 1, 91, 0xc1);
	us(j, 1, 91, 91, 0xc1, 1, 0x5000, 0);
	g = find(&l, 91, 3);
	CHECK(g && g->nr_k == 0, "foreign kernel stack attached");
	ustack_join_flush(j);
	ustack_join_free(j);
	end();
}

static void test_bounded(void)
{
	struct ustack_join_stats st;
	struct ustack_join *j;
	struct log l;
	int i, evicted = 0;

	begin("memory bound: oldest pending cookies evicted as never-arrived");
	j = new_join(&l);
	ustack_join_set_limits(j, 10, 0, 0);
	for (i = 0; i < 100; i++) {
		ev(j, 0, 1000 + i, 1);
		ck(j, 0, 1000 + i, 0x100 + i);
	}
	ustack_join_get_stats(j, &st);
	CHECK(st.pending_cookies == 10, "pending %llu", st.pending_cookies);
	CHECK(st.peak_cookies <= 11, "peak %llu", st.peak_cookies);
	CHECK(l.n == 90, "evicted %d", l.n);
	for (i = 0; i < l.n; i++)
		if (l.g[i].status == USTACK_NEVER_ARRIVED &&
		    (l.g[i].flags & USTACK_EV_EVICTED) &&
		    l.g[i].pid == 1000 + i)
			evicted++;
	CHECK(evicted == 90, "evicted in order: %d", evicted);
	/* the newest are still there */
	us(j, 0, 1099, 1099, 0x100 + 99, 1, 0x1, 0);
	CHECK(l.n == 91 && l.g[90].status == USTACK_COMPLETE, "newest lost");
	/* an evicted one's stack comes late: counted, nothing delivered */
	us(j, 0, 1000, 1000, 0x100, 1, 0x1, 0);
	CHECK(l.n == 91, "evicted one delivered twice");
	ustack_join_flush(j);
	ustack_join_get_stats(j, &st);
	CHECK(l.n == 100 && st.evicted == 90 && st.orphan_stacks == 1,
	      "n %d evicted %llu orphan %llu", l.n, st.evicted,
	      st.orphan_stacks);
	ustack_join_free(j);

	/* the event limit, and the task cache limit */
	j = new_join(&l);
	ustack_join_set_limits(j, 0, 5, 3);
	for (i = 0; i < 12; i++) {
		ev(j, 0, 7, 1);
		ck(j, 0, 7, 0x9);
	}
	ustack_join_get_stats(j, &st);
	CHECK(st.pending_events <= 5, "pending events %llu",
	      st.pending_events);
	for (i = 0; i < 10; i++)
		us(j, 0, 500 + i, 500 + i, 0x1, 1, 0x1, 0);
	ustack_join_flush(j);
	ustack_join_get_stats(j, &st);
	CHECK(st.orphan_stacks == 10, "orphans %llu", st.orphan_stacks);
	ustack_join_free(j);
	end();
}

static void test_stop(void)
{
	struct ustack_join *j;
	struct log l;
	int i, ret = 0;

	begin("a callback stops the join");
	j = new_join(&l);
	l.stop_after = 2;
	for (i = 0; i < 5; i++) {
		ev(j, 0, 20 + i, 1);
		ck(j, 0, 20 + i, 0x10 + i);
	}
	for (i = 0; i < 5; i++)
		ret = us(j, 0, 20 + i, 20 + i, 0x10 + i, 1, 0x1, 0);
	(void)ret;
	CHECK(l.n == 2, "delivered %d after stop", l.n);
	CHECK(ustack_join_stopped(j) == 1, "stopped");
	ustack_join_flush(j);
	CHECK(l.n == 2, "flush delivered after stop");
	ustack_join_free(j);
	end();
}

static void test_free_pending(void)
{
	struct ustack_join *j;
	struct log l;
	int i;

	begin("free with events pending and open (no leaks)");
	j = new_join(&l);
	for (i = 0; i < 50; i++) {
		ev(j, i % 4, 30 + i, 1);
		kst(j, i % 4, 30 + i, 3, 0x1);
		if (i % 2)
			ck(j, i % 4, 30 + i, i);
		us(j, 0, 900 + i, 900 + i, i, 2, 0x1, 0);
	}
	CHECK(ustack_join_feed(j, &(struct ustack_input){ .type = 99 }) < 0,
	      "bad input type accepted");
	CHECK(ustack_join_feed(j, &(struct ustack_input){
		.type = USTACK_IN_EVENT, .cpu = -1 }) < 0, "cpu -1 accepted");
	ustack_join_free(j);
	end();
}

/* ---- decoding raw records with real formats ---- */

static char *read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *buf;
	long n;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, fp) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	*len = n;
	fclose(fp);
	return buf;
}

static struct tep_handle *load_tep(const char *dir, const char **names,
				   int nr)
{
	struct tep_handle *tep = tep_alloc();
	char path[4096], sys[64];
	const char *base;
	size_t len;
	char *buf;
	int i;

	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		buf = read_file(path, &len);
		if (!buf) {
			printf("cannot read %s\n", path);
			tep_free(tep);
			return NULL;
		}
		base = strrchr(names[i], '/');
		snprintf(sys, sizeof(sys), "%s", base ? base + 1 : names[i]);
		*strchr(sys, '_') = '\0';
		if (tep_parse_event(tep, buf, len, sys)) {
			printf("cannot parse %s\n", path);
			free(buf);
			tep_free(tep);
			return NULL;
		}
		free(buf);
	}
	return tep;
}

static void put16(unsigned char *p, unsigned int v) { memcpy(p, &v, 2); }
static void put32(unsigned char *p, unsigned int v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, unsigned long long v) { memcpy(p, &v, 8); }

static int add(struct ustack_join *j, unsigned char *data, int size, int cpu,
	       unsigned long long ts)
{
	struct tep_record r = { .ts = ts, .cpu = cpu, .size = size,
				.data = data };

	return ustack_join_add_record(j, &r);
}

/* ---- records, laid out as in Documentation/contract.md ---- */

#define ID_KSTACK	4
#define ID_COOKIE	21
#define ID_USTACK	22
#define ID_ENTER	195	/* lib/data/formats/syscalls_sys_enter_getppid */

static int rec_event(unsigned char *b, int pid)
{
	memset(b, 0, 16);
	put16(b, ID_ENTER);
	put32(b + 4, pid);
	return 16;
}

static void put_frames(unsigned char *p, const unsigned long long *f, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		put64(p + 8 * i, f[i]);
}

/* cookie @8, flags @16, kernel @20 (data at 24) */
static int rec_cookie(unsigned char *b, int pid, unsigned long long cookie,
		      unsigned int flags, const unsigned long long *k, int nr)
{
	memset(b, 0, 24 + 8 * nr);
	put16(b, ID_COOKIE);
	put32(b + 4, pid);
	put64(b + 8, cookie);
	put32(b + 16, flags);
	put32(b + 20, (nr * 8) << 16 | 24);
	put_frames(b + 24, k, nr);
	return 24 + 8 * nr;
}

/* cookie @8, tgid @16, flags @20, depth @24, frames @28 (data at 32) */
static int rec_ustack(unsigned char *b, int pid, unsigned long long cookie,
		      int tgid, unsigned int flags, unsigned int depth,
		      const unsigned long long *u, int nr)
{
	memset(b, 0, 32 + 8 * nr);
	put16(b, ID_USTACK);
	put32(b + 4, pid);
	put64(b + 8, cookie);
	put32(b + 16, tgid);
	put32(b + 20, flags);
	put32(b + 24, depth);
	put32(b + 28, (nr * 8) << 16 | 32);
	put_frames(b + 32, u, nr);
	return 32 + 8 * nr;
}

/* size @8, caller[] @16: nr addresses in room slots */
static int rec_kstack(unsigned char *b, int pid, unsigned int size,
		      const unsigned long long *k, int nr, int room)
{
	memset(b, 0, 16 + 8 * room);
	put16(b, ID_KSTACK);
	put32(b + 4, pid);
	put32(b + 8, size);
	put_frames(b + 16, k, nr);
	return 16 + 8 * room;
}

struct rec_env {
	struct tep_handle	*tep;
	struct ustack_join	*j;
	struct log		l;
	unsigned char		b[512];
	unsigned long long	ts;
};

static int env_open(struct rec_env *e, const char *dir)
{
	static const char *names[] = {
		"ftrace_kernel_stack", "ftrace_user_stack_cookie",
		"../formats-nopid/ftrace_user_stack_deferred",
		"syscalls_sys_enter_getppid",
	};

	memset(e, 0, sizeof(*e));
	e->tep = load_tep(dir, names, 4);
	CHECK(e->tep, "formats");
	if (!e->tep)
		return -1;
	e->j = ustack_join_alloc(e->tep, log_cb, &e->l);
	CHECK(e->j, "alloc: %s", strerror(errno));
	if (e->j)
		return 0;
	tep_free(e->tep);
	return -1;
}

static void env_close(struct rec_env *e)
{
	ustack_join_free(e->j);
	tep_free(e->tep);
}

/* Feed the record of size bytes in e->b. */
static int feed(struct rec_env *e, int size, int cpu)
{
	return add(e->j, e->b, size, cpu, ++e->ts);
}

static const unsigned long long kgood[3] = {
	0xffffffff81000100ULL, 0xffffffff81000101ULL, 0xffffffff81000102ULL,
};
static const unsigned long long ugood[4] = {
	0x555555555000ULL, 0x555555555001ULL, 0x555555555002ULL,
	0x555555555003ULL,
};

/* An event, its cookie record and its user stack record. */
static void request(struct rec_env *e, int pid, unsigned long long cookie,
		    unsigned int cflags, int nk, unsigned int uflags,
		    unsigned int depth, int nu)
{
	feed(e, rec_event(e->b, pid), 1);
	feed(e, rec_cookie(e->b, pid, cookie, cflags, kgood, nk), 1);
	if (!(cflags & USTACK_COOKIE_NO_USER_STACK))
		feed(e, rec_ustack(e->b, pid, cookie, pid - 4, uflags, depth,
				   ugood, nu), 0);
}

static void test_records_good(const char *dir)
{
	struct ustack_join_stats st;
	struct rec_env e;
	struct got *g;

	begin("records decoded with the event formats: each flag");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	request(&e, 1234, 0xdeadbeef00000001ULL, 0, 3, 0, 4, 4);
	g = find(&e.l, 1234, ID_ENTER);
	CHECK(g && g->nr_k == 3 && g->k[2] == kgood[2] && g->nr_u == 4 &&
	      g->u[3] == ugood[3] && g->tgid == 1230 && g->depth == 4 &&
	      g->status == USTACK_COMPLETE && !g->flags, "complete");
	request(&e, 1235, 0x2, 0, 3, USTACK_STACK_TRUNCATED, 300, 2);
	g = find(&e.l, 1235, ID_ENTER);
	CHECK(g && g->status == USTACK_TRUNCATED && g->nr_u == 2 &&
	      g->depth == 300, "TRUNCATED: status %d depth %u",
	      g ? (int)g->status : -1, g ? g->depth : 0);
	request(&e, 1236, 0x3, USTACK_COOKIE_NO_USER_STACK, 3, 0, 0, 0);
	g = find(&e.l, 1236, ID_ENTER);
	CHECK(g && g->status == USTACK_LOST && g->nr_k == 3 && !g->nr_u,
	      "NO_USER_STACK: not lost at once");
	request(&e, 1237, 0x4, 0, 3, USTACK_STACK_LATE, 4, 4);
	g = find(&e.l, 1237, ID_ENTER);
	CHECK(g && g->status == USTACK_COMPLETE &&
	      (g->flags & USTACK_EV_LATE), "LATE: not late");
	/* reserved bits, no kernel frames, no user frames */
	request(&e, 1238, 0x5, ~USTACK_COOKIE_NO_USER_STACK, 0,
		~USTACK_STACK_TRUNCATED & ~USTACK_STACK_LATE, 0, 0);
	g = find(&e.l, 1238, ID_ENTER);
	CHECK(g && g->status == USTACK_EMPTY && !g->nr_k && !g->flags,
	      "reserved bits not ignored");
	/* an empty array whose data_loc is 0 */
	feed(&e, rec_event(e.b, 1239), 1);
	rec_cookie(e.b, 1239, 0x6, 0, NULL, 0);
	put32(e.b + 20, 0);
	feed(&e, 24, 1);
	ustack_join_flush(e.j);
	ustack_join_get_stats(e.j, &st);
	CHECK(e.l.n == 6 && st.lost == 1 && st.late == 1 &&
	      st.truncated == 1 && st.never_arrived == 1,
	      "delivered %d lost %llu late %llu", e.l.n, st.lost, st.late);
	CHECK(!st.malformed && !st.bad_kernel_frames && !st.bad_user_frames,
	      "good records counted as damage: %llu malformed, %llu/%llu frames",
	      st.malformed, st.bad_kernel_frames, st.bad_user_frames);
	/* the unwinder flags (bits 2 and 3), none above */
	g = find(&e.l, 1234, ID_ENTER);
	CHECK(g && !g->unwinder, "no unwinder flag: unwinder 0x%x",
	      g ? g->unwinder : 0);
	request(&e, 1240, 0x7, 0, 3, USTACK_STACK_UNWIND_SFRAME, 4, 4);
	g = find(&e.l, 1240, ID_ENTER);
	CHECK(g && g->status == USTACK_COMPLETE &&
	      g->unwinder == USTACK_UNWINDER_SFRAME, "UNWIND_SFRAME: 0x%x",
	      g ? g->unwinder : 0);
	request(&e, 1241, 0x8, 0, 3, USTACK_STACK_UNWIND_SFRAME |
		USTACK_STACK_UNWIND_FP | USTACK_STACK_TRUNCATED, 300, 2);
	g = find(&e.l, 1241, ID_ENTER);
	CHECK(g && g->status == USTACK_TRUNCATED &&
	      g->unwinder == (USTACK_UNWINDER_SFRAME | USTACK_UNWINDER_FP),
	      "UNWIND_SFRAME|UNWIND_FP: 0x%x", g ? g->unwinder : 0);
	request(&e, 1242, 0x9, 0, 3, USTACK_STACK_UNWIND_FP, 4, 4);
	g = find(&e.l, 1242, ID_ENTER);
	CHECK(g && g->unwinder == USTACK_UNWINDER_FP, "UNWIND_FP: 0x%x",
	      g ? g->unwinder : 0);
	env_close(&e);
	end();
}

/* Feed the record of size bytes in e->b, read at file offset off. */
static int feed_at(struct rec_env *e, int size, int cpu,
		   unsigned long long off)
{
	struct tep_record r = { .ts = ++e->ts, .cpu = cpu, .size = size,
				.data = e->b, .offset = off };

	return ustack_join_add_record(e->j, &r);
}

static struct got *find_cookie(struct log *l, unsigned long long cookie)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->g[i].cookie == cookie)
			return &l->g[i];
	return NULL;
}

/*
 * cookie @8, pid @16, tgid @20, flags @24, depth @28, frames @32 (data at
 * 40): the record with the pid of the entry's first request
 */
static int rec_ustack_pid(unsigned char *b, int pid, int first_pid,
			  unsigned long long cookie, int tgid,
			  const unsigned long long *u, int nr)
{
	memset(b, 0, 40 + 8 * nr);
	put16(b, ID_USTACK);
	put32(b + 4, pid);
	put64(b + 8, cookie);
	put32(b + 16, first_pid);
	put32(b + 20, tgid);
	put32(b + 28, nr);
	put32(b + 32, (nr * 8) << 16 | 40);
	put_frames(b + 40, u, nr);
	return 40 + 8 * nr;
}

/*
 * A thread (pid 201) that is not the leader (pid 200) asks, execs (and
 * becomes 200), asks again under 200 in the same entry: one stack
 * record, under 200, with pid 201.  Both events get it, none is late
 * but the one after it, no stack is an orphan.  The same when the stack
 * came before the exec (under the thread's pid, 401): the request under
 * the tgid (400) after it gets it, late.  A trace of a kernel without
 * the field joins by common_pid alone, as it always did.
 */
static void test_records_exec_pid(const char *dir)
{
	const char *names[] = {
		"ftrace_kernel_stack", "ftrace_user_stack_cookie",
		"ftrace_user_stack_deferred",
		"syscalls_sys_enter_getppid",
	};
	struct ustack_join_stats st;
	struct rec_env e_old;
	struct ustack_join *j;
	struct tep_handle *tep;
	struct log l;
	struct got *g;
	unsigned char b[512];
	unsigned long long ts = 0;
	int i, after = 0;

	begin("records: one stack for a cookie asked under two pids (exec)");
	tep = load_tep(dir, names, 4);
	CHECK(tep, "formats");
	if (!tep) {
		end();
		return;
	}
	j = ustack_join_alloc(tep, log_cb, &l);
	memset(&l, 0, sizeof(l));
	CHECK(j, "alloc: %s", strerror(errno));
	if (!j) {
		tep_free(tep);
		end();
		return;
	}
	add(j, b, rec_event(b, 201), 1, ++ts);
	add(j, b, rec_cookie(b, 201, 0x77, 0, kgood, 3), 1, ++ts);
	add(j, b, rec_event(b, 200), 1, ++ts);
	add(j, b, rec_cookie(b, 200, 0x77, 0, kgood, 2), 1, ++ts);
	add(j, b, rec_ustack_pid(b, 200, 201, 0x77, 200, ugood, 4), 1, ++ts);
	/* a late request under the new pid */
	add(j, b, rec_event(b, 200), 1, ++ts);
	add(j, b, rec_cookie(b, 200, 0x77, 0, kgood, 1), 1, ++ts);
	/*
	 * Thread 401 of process 400 asks and gets its stack before the exec
	 * (under 401); after de_thread(), as 400, it asks again
	 */
	add(j, b, rec_event(b, 401), 1, ++ts);
	add(j, b, rec_cookie(b, 401, 0x7b, 0, kgood, 3), 1, ++ts);
	add(j, b, rec_ustack_pid(b, 401, 401, 0x7b, 400, ugood + 1, 3), 1, ++ts);
	add(j, b, rec_event(b, 400), 1, ++ts);
	add(j, b, rec_cookie(b, 400, 0x7b, 0, kgood, 1), 1, ++ts);
	/* another task's entry: its field is its own pid */
	add(j, b, rec_event(b, 300), 0, ++ts);
	add(j, b, rec_cookie(b, 300, 0x79, 0, kgood, 3), 0, ++ts);
	add(j, b, rec_ustack_pid(b, 300, 300, 0x79, 300, ugood, 2), 0, ++ts);
	ustack_join_flush(j);
	ustack_join_get_stats(j, &st);
	g = find(&l, 201, ID_ENTER);
	CHECK(g && g->status == USTACK_COMPLETE && g->nr_u == 4 &&
	      g->u[3] == ugood[3] && g->tgid == 200 && g->nr_k == 3 &&
	      !(g->flags & USTACK_EV_LATE),
	      "the request before the exec: status %d, %d user frames",
	      g ? (int)g->status : -1, g ? g->nr_u : -1);
	for (i = 0; i < l.n; i++) {
		g = &l.g[i];
		if (g->pid != 200 || g->status != USTACK_COMPLETE ||
		    g->nr_u != 4 || g->u[0] != ugood[0])
			continue;
		if (g->nr_k == 2 && !(g->flags & USTACK_EV_LATE))
			after |= 1;
		if (g->nr_k == 1 && (g->flags & USTACK_EV_LATE))
			after |= 2;
	}
	CHECK(l.n == 6 && after == 3,
	      "the requests after it: %d delivered, found 0x%x", l.n, after);
	g = find(&l, 401, ID_ENTER);
	CHECK(g && g->status == USTACK_COMPLETE && g->nr_u == 3 &&
	      g->u[0] == ugood[1], "stack before the exec: its own request");
	g = find(&l, 400, ID_ENTER);
	CHECK(g && g->status == USTACK_COMPLETE && g->nr_u == 3 &&
	      g->u[0] == ugood[1] && (g->flags & USTACK_EV_LATE),
	      "stack before the exec: the request under the tgid after it "
	      "(status %d)", g ? (int)g->status : -1);
	g = find(&l, 300, ID_ENTER);
	CHECK(g && g->status == USTACK_COMPLETE && g->nr_u == 2,
	      "a stack whose pid is its common_pid");
	CHECK(!st.never_arrived && !st.orphan_stacks && !st.malformed,
	      "%llu never arrived, %llu orphan stacks, %llu malformed",
	      st.never_arrived, st.orphan_stacks, st.malformed);
	ustack_join_free(j);
	tep_free(tep);

	/* the same without the field: joined by common_pid */
	if (env_open(&e_old, dir))
		goto out;
	feed(&e_old, rec_event(e_old.b, 201), 1);
	feed(&e_old, rec_cookie(e_old.b, 201, 0x77, 0, kgood, 3), 1);
	feed(&e_old, rec_event(e_old.b, 200), 1);
	feed(&e_old, rec_cookie(e_old.b, 200, 0x77, 0, kgood, 2), 1);
	feed(&e_old, rec_ustack(e_old.b, 200, 0x77, 200, 0, 4, ugood, 4), 1);
	ustack_join_flush(e_old.j);
	ustack_join_get_stats(e_old.j, &st);
	g = find(&e_old.l, 200, ID_ENTER);
	CHECK(g && g->status == USTACK_COMPLETE && g->nr_u == 4,
	      "old format: the stack's own pid");
	g = find(&e_old.l, 201, ID_ENTER);
	CHECK(g && g->status == USTACK_NEVER_ARRIVED && st.never_arrived == 1,
	      "old format: another pid's cookie joined (status %d)",
	      g ? (int)g->status : -1);
	env_close(&e_old);
out:
	end();
}

static void test_records_offsets(const char *dir)
{
	struct rec_env e;
	struct got *g;

	begin("offsets: the event's, its cookie record's, its user stack's");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	ustack_join_set_flags(e.j, USTACK_JOIN_UNSEEN_EVENTS);
	/* a request: event 0x1000, cookie 0x1010, user stack 0x2000 */
	feed_at(&e, rec_event(e.b, 100), 1, 0x1000);
	feed_at(&e, rec_cookie(e.b, 100, 0x11, 0, kgood, 3), 1, 0x1010);
	feed_at(&e, rec_ustack(e.b, 100, 0x11, 100, 0, 4, ugood, 4), 0,
		0x2000);
	g = find_cookie(&e.l, 0x11);
	CHECK(g && g->off == 0x1000 && g->coff == 0x1010 && g->soff == 0x2000,
	      "complete: %llx %llx %llx", g ? g->off : 0, g ? g->coff : 0,
	      g ? g->soff : 0);
	/* a late request of the same entry: the stack read before */
	feed_at(&e, rec_event(e.b, 100), 1, 0x1100);
	feed_at(&e, rec_cookie(e.b, 100, 0x11, 0, kgood, 3), 1, 0x1110);
	CHECK(e.l.n == 2 && e.l.g[1].off == 0x1100 &&
	      e.l.g[1].coff == 0x1110 && e.l.g[1].soff == 0x2000 &&
	      (e.l.g[1].flags & USTACK_EV_LATE), "late request");
	/* a request whose event is not in the trace */
	feed_at(&e, rec_cookie(e.b, 101, 0x12, 0, kgood, 3), 2, 0x3010);
	feed_at(&e, rec_ustack(e.b, 101, 0x12, 101, 0, 4, ugood, 4), 2,
		0x3020);
	g = find_cookie(&e.l, 0x12);
	CHECK(g && (g->flags & USTACK_EV_UNSEEN) && g->off == 0x3010 &&
	      g->coff == 0x3010 && g->soff == 0x3020,
	      "unseen: record is the cookie record");
	/* lost: no user stack record */
	feed_at(&e, rec_event(e.b, 102), 1, 0x4000);
	feed_at(&e, rec_cookie(e.b, 102, 0x13, USTACK_COOKIE_NO_USER_STACK,
			       kgood, 3), 1, 0x4010);
	g = find_cookie(&e.l, 0x13);
	CHECK(g && g->status == USTACK_LOST && g->off == 0x4000 &&
	      g->coff == 0x4010 && !g->soff, "lost");
	/* never arrived */
	feed_at(&e, rec_event(e.b, 103), 3, 0x5000);
	feed_at(&e, rec_cookie(e.b, 103, 0x14, 0, kgood, 3), 3, 0x5010);
	ustack_join_flush(e.j);
	g = find_cookie(&e.l, 0x14);
	CHECK(g && g->status == USTACK_NEVER_ARRIVED && g->off == 0x5000 &&
	      g->coff == 0x5010 && !g->soff, "never arrived");
	/* no cookie: a kernel stack alone, no cookie or stack offset */
	feed_at(&e, rec_event(e.b, 104), 3, 0x6000);
	feed_at(&e, rec_kstack(e.b, 104, 3, kgood, 3, 3), 3, 0x6010);
	ustack_join_flush(e.j);
	g = &e.l.g[e.l.n - 1];
	CHECK(g->status == USTACK_NO_COOKIE && g->pid == 104 &&
	      g->off == 0x6000 && !g->coff && !g->soff, "no cookie");
	env_close(&e);
	end();
}

/*
 * ustack_feed_record(): the one feeder.  A record inside its page goes
 * to the symbols (an exec) and to the join; one running past its page
 * goes to neither (EBADMSG); each side alone, and bad arguments.
 */
static void test_feed(const char *dir)
{
	static const char header_page[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	static const char *names[] = { "sched_sched_process_exec" };
	struct tep_record r = { .cpu = 0 };
	struct ustack_join_stats st;
	struct ustack_syms *syms;
	struct tep_handle *tep;
	struct rec_env e;
	char path[4096];
	char *fmt;
	size_t len;

	begin("ustack_feed_record: page check, then symbols and join");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	tep = e.tep;
	snprintf(path, sizeof(path), "%s/%s", dir, names[0]);
	fmt = read_file(path, &len);
	syms = ustack_syms_alloc();
	CHECK(fmt && !tep_parse_event(tep, fmt, len, "sched") &&
	      !tep_parse_header_page(tep, (char *)header_page,
				     sizeof(header_page) - 1, 8) &&
	      tep_get_sub_buffer_size(tep) == 4096 && syms,
	      "setup: sub-buffer %d", tep_get_sub_buffer_size(tep));
	free(fmt);
	if (!syms || tep_get_sub_buffer_size(tep) != 4096) {
		ustack_syms_free(syms);
		env_close(&e);
		end();
		return;
	}
	/* sched_process_exec of pid 500 at 100, inside its page */
	memset(e.b, 0, 24);
	put16(e.b, 311);
	put32(e.b + 4, 500);
	put32(e.b + 8, (4 << 16) | 20);
	put32(e.b + 12, 500);
	put32(e.b + 16, 500);
	memcpy(e.b + 20, "/bin", 4);
	r.data = e.b;
	r.size = r.record_size = 24;
	r.ts = 100;
	r.offset = 0x2000 + 16;
	CHECK(ustack_feed_record(e.j, syms, NULL, &r) == 0 &&
	      ustack_syms_execs_after(syms, 500, 50) == 1 &&
	      !ustack_join_get_stats(e.j, &st) && st.records == 1,
	      "fed to both: execs %d records %llu",
	      ustack_syms_execs_after(syms, 500, 50), st.records);
	/* the same bytes said to end past the page: taken by neither */
	r.ts = 200;
	r.offset = 0x3000 - 8;
	errno = 0;
	CHECK(ustack_feed_record(e.j, syms, NULL, &r) < 0 && errno == EBADMSG &&
	      ustack_syms_execs_after(syms, 500, 150) == 0 &&
	      !ustack_join_get_stats(e.j, &st) && st.records == 1,
	      "past its page: errno %d execs %d records %llu", errno,
	      ustack_syms_execs_after(syms, 500, 150), st.records);
	/* the symbols alone (a first pass), the join alone */
	r.ts = 300;
	r.offset = 0x4000 + 16;
	CHECK(ustack_feed_record(NULL, syms, tep, &r) == 0 &&
	      ustack_syms_execs_after(syms, 500, 250) == 1 &&
	      !ustack_join_get_stats(e.j, &st) && st.records == 1,
	      "symbols alone");
	r.ts = 400;
	CHECK(ustack_feed_record(e.j, NULL, NULL, &r) == 0 &&
	      ustack_syms_execs_after(syms, 500, 350) == 0 &&
	      !ustack_join_get_stats(e.j, &st) && st.records == 2,
	      "join alone");
	CHECK(ustack_feed_record(NULL, NULL, tep, &r) < 0 && errno == EINVAL &&
	      ustack_feed_record(NULL, syms, NULL, &r) < 0 && errno == EINVAL &&
	      ustack_feed_record(e.j, syms, NULL, NULL) < 0 && errno == EINVAL,
	      "bad arguments");
	ustack_syms_free(syms);
	env_close(&e);
	end();
}

static void test_records_malformed(const char *dir)
{
	struct ustack_join_stats st;
	struct rec_env e;
	int i, n;

	begin("records at odds with their format: bounds, counted as malformed");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	/* a user stack whose data_loc points past the record: skipped */
	n = rec_ustack(e.b, 1234, 0x2, 1230, 0, 4, ugood, 4);
	put32(e.b + 28, (400 * 8) << 16 | 32);
	CHECK(feed(&e, n, 0) == 0, "bad data_loc");
	/* a kernel_stack whose size is bigger than the record: clamped */
	feed(&e, rec_event(e.b, 1), 0);
	feed(&e, rec_kstack(e.b, 1, 1000000, kgood, 1, 1), 0);
	/* records too short for their format */
	rec_cookie(e.b, 1, 0x1, 0, NULL, 0);
	CHECK(feed(&e, 10, 0) == 0, "short cookie");
	put16(e.b, ID_KSTACK);
	CHECK(feed(&e, 9, 0) == 0, "short kernel_stack");
	/* unknown event id */
	put16(e.b, 31000);
	CHECK(feed(&e, 16, 0) == 0, "unknown id");
	/* a cookie's kernel array outside the record: skipped */
	n = rec_cookie(e.b, 2, 0x7, 0, kgood, 3);
	put32(e.b + 20, (3 * 8) << 16 | 40);
	feed(&e, n, 0);
	/* kernel frames that end 8 bytes short, or overlap fixed fields */
	n = rec_cookie(e.b, 2, 0x8, 0, kgood, 3);
	put32(e.b + 20, (2 * 8) << 16 | 24);
	feed(&e, n, 0);
	put32(e.b + 20, (2 * 8) << 16 | 16);
	feed(&e, n, 0);
	ustack_join_flush(e.j);
	ustack_join_get_stats(e.j, &st);
	CHECK(st.malformed == 8, "malformed %llu, want 8", st.malformed);
	for (i = 0; i < e.l.n; i++)
		if (e.l.g[i].pid == 1)
			CHECK(e.l.g[i].nr_k == 1 && e.l.g[i].k[0] == kgood[0],
			      "clamped kernel stack: %d", e.l.g[i].nr_k);
	env_close(&e);
	end();
}

/* frames a damaged page gives (issue 6) */
static const unsigned long long kbad[3] = {
	0xf7ffffff810f4f2aULL, 0xffffffff810f4f2aULL, 0x7f0000001000ULL,
};
static const unsigned long long ubad[3] = {
	0x47f5b9d966350ULL, 0x55555555a000ULL, 0x10ULL,
};

/* User stacks at odds with their format, each malformed once. */
static void feed_bad_ustacks(struct rec_env *e)
{
	int n;

	/* frames that do not fill whole elements: skipped */
	n = rec_ustack(e->b, 77, 0x4e00000001ULL, 77, 0, 3, ubad, 3);
	put32(e->b + 28, 12 << 16 | 32);
	feed(e, n, 0);
	/* a depth that is not the frames' number, without TRUNCATED */
	feed(e, rec_ustack(e->b, 77, 0x4e, 77, 0, 5, ubad, 1), 0);
	/* frames that end 8 bytes before the record */
	n = rec_ustack(e->b, 77, 0x4f, 77, 0, 2, ubad, 3);
	put32(e->b + 28, 16 << 16 | 32);
	feed(e, n, 0);
	/* frames over the fixed fields (depth and the data_loc itself) */
	n = rec_ustack(e->b, 77, 0x50, 77, 0, 1, ugood, 1);
	put32(e->b + 28, 8 << 16 | 24);
	feed(e, n, 0);
	/* TRUNCATED with no more depth than frames, or without frames */
	feed(e, rec_ustack(e->b, 77, 0x51, 77, USTACK_STACK_TRUNCATED, 3,
			   ugood, 3), 0);
	feed(e, rec_ustack(e->b, 77, 0x52, 77, USTACK_STACK_TRUNCATED, 9,
			   ugood, 0), 0);
	/* no such process */
	feed(e, rec_ustack(e->b, 77, 0x53, 0, 0, 3, ugood, 3), 0);
}

static void test_records_damage(const char *dir)
{
	struct ustack_join_stats st;
	struct rec_env e;
	struct got *g;

	begin("damaged records: implausible frames and values counted, delivered");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	feed(&e, rec_event(e.b, 77), 1);
	feed(&e, rec_cookie(e.b, 77, 0x4d00000001ULL, 0, kbad, 3), 1);
	feed(&e, rec_ustack(e.b, 77, 0x4d00000001ULL, 77, 0, 3, ubad, 3), 0);
	feed_bad_ustacks(&e);
	/* a kernel stack of size 1 with 3 addresses: a damaged size */
	feed(&e, rec_kstack(e.b, 77, 1, kgood, 3, 3), 1);
	ustack_join_flush(e.j);
	ustack_join_get_stats(e.j, &st);
	CHECK(st.bad_kernel_frames == 2, "implausible kernel frames %llu, want 2",
	      st.bad_kernel_frames);
	/*
	 * 0x47f5b9d966350 and 0x10 in the first stack, 0x47f5.. in the
	 * depth and short-end ones, 0x0008001800000001 in the overlapping
	 */
	CHECK(st.bad_user_frames == 5, "implausible user frames %llu, want 5",
	      st.bad_user_frames);
	CHECK(st.malformed == 8, "malformed %llu, want 8", st.malformed);
	g = e.l.n ? &e.l.g[e.l.n - 1] : NULL;
	CHECK(g && g->pid == 77 && g->nr_k == 3 && g->nr_u == 3,
	      "the damaged event is delivered as it is");
	env_close(&e);
	end();
}

static void test_plausible(void)
{
	static const unsigned long long kernel_ok[] = {
		0xffffffff80000000ULL, 0xffffffff810f4f2aULL,
		0xffffffffc0a01234ULL, 0xfffffffffffff000ULL,
		USTACK_FTRACE_TRAMPOLINE,
	};
	static const unsigned long long kernel_bad[] = {
		0, 0x10, 0x7f0000001000ULL, 0xf7ffffff810f4f2aULL,
		0xffff800000000000ULL, 0xffffffff7fffffffULL, ~0ULL,
		0x7ffffffeULL, 0x80000000ULL,
	};
	static const unsigned long long user_ok[] = {
		0, 0x1000, 0x401136, 0xf7f0a123ULL, 0x55555555a000ULL,
		0x7ffff7dd1000ULL, 0x7fffffffefffULL,
	};
	static const unsigned long long user_bad[] = {
		1, 0xfff, 0x47f5b9d966350ULL, 0x800000000000ULL,
		0xffffffff810f4f2aULL, ~0ULL,
	};
	size_t i;

	begin("plausible frames on x86-64: the issue's examples are not");
	for (i = 0; i < sizeof(kernel_ok) / sizeof(*kernel_ok); i++)
		CHECK(ustack_frame_plausible(kernel_ok[i], USTACK_FRAME_KERNEL),
		      "kernel 0x%llx", kernel_ok[i]);
	for (i = 0; i < sizeof(kernel_bad) / sizeof(*kernel_bad); i++)
		CHECK(!ustack_frame_plausible(kernel_bad[i], USTACK_FRAME_KERNEL),
		      "kernel 0x%llx", kernel_bad[i]);
	for (i = 0; i < sizeof(user_ok) / sizeof(*user_ok); i++)
		CHECK(ustack_frame_plausible(user_ok[i], USTACK_FRAME_USER),
		      "user 0x%llx", user_ok[i]);
	for (i = 0; i < sizeof(user_bad) / sizeof(*user_bad); i++)
		CHECK(!ustack_frame_plausible(user_bad[i], USTACK_FRAME_USER),
		      "user 0x%llx", user_bad[i]);
	end();
}

static struct ustack_join *alloc_with(const char *dir, const char *sys,
				       const char *text)
{
	static const char *names[] = { "ftrace_kernel_stack" };
	struct ustack_join *j;
	struct tep_handle *tep;
	struct log l;

	tep = load_tep(dir, names, 1);
	CHECK(tep, "formats");
	if (!tep)
		return NULL;
	tep_parse_event(tep, text, strlen(text), sys);
	ustack_set_loglevel(TEP_LOG_NONE);
	j = ustack_join_alloc(tep, log_cb, &l);
	ustack_set_loglevel(TEP_LOG_WARNING);
	ustack_join_free(j);
	tep_free(tep);
	return j;
}

static void test_bad_format(const char *dir)
{
	static const char bad[] =
		"name: user_stack_deferred\nID: 22\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"%llx\", REC->cookie\n";

	begin("an event format the join does not know is an error (EINVAL)");
	CHECK(!alloc_with(dir, "ftrace", bad) && errno == EINVAL,
	      "accepted a user_stack_deferred without frames");
	end();
}

static void test_prerelease(const char *dir)
{
	static const char old[] =
		"name: user_stack_cookie\nID: 1601\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"cookie=0x%llx\", REC->cookie\n";

	begin("the pre-release unwind:user_stack_* formats are refused (ENOTSUP)");
	CHECK(!alloc_with(dir, "unwind", old) && errno == ENOTSUP,
	      "a pre-release trace accepted");
	end();
}

/* ---- a viewer's helpers: the asking event, an event from its records,
 * the index (ustack_record(3), ustack_index(3)) ---- */

/* a host's entries of one CPU, oldest first: event ids and pids */
struct steps {
	const int	*type, *pid;
	int		at;		/* the cursor */
	bool		fail;
};

static int step_back(void *data, int *type, int *pid)
{
	struct steps *s = data;

	if (s->fail) {
		errno = EIO;
		return -1;
	}
	if (s->at <= 0)
		return 1;
	s->at--;
	*type = s->type[s->at];
	*pid = s->pid[s->at];
	return 0;
}

/* the asking event of the cookie record at the end of @type: its index */
static int asking(struct tep_handle *tep, const int *type, const int *pid,
		  int n)
{
	struct steps s = { type, pid, n - 1, false };
	int r = ustack_record_find_event(tep, pid[n - 1], step_back, &s);

	return r > 0 ? s.at : r == 0 ? -2 : -3;
}

static void test_find_event(const char *dir)
{
	const int E = ID_ENTER, C = ID_COOKIE, U = ID_USTACK, K = ID_KSTACK;
	int type[40], pid[40], i, n;
	struct rec_env e;
	struct steps s = { type, pid, 1, true };

	begin("ustack_record_find_event: the newest event of the task not taken, bounded");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	CHECK(asking(e.tep, (int []){ E, C }, (int []){ 100, 100 }, 2) == 0,
	      "event, cookie");
	/* another task's event, a user stack and a kernel_stack between */
	CHECK(asking(e.tep, (int []){ E, E, U, K, C },
		     (int []){ 100, 200, 100, 100, 100 }, 5) == 0,
	      "others passed over");
	/* E1 E2 C2 C1: C2 took E2, C1's is E1 */
	CHECK(asking(e.tep, (int []){ E, E, C, C },
		     (int []){ 100, 100, 100, 100 }, 4) == 0,
	      "taken by a later cookie record");
	CHECK(asking(e.tep, (int []){ C, C }, (int []){ 100, 100 }, 2) == -2 &&
	      asking(e.tep, (int []){ E, C }, (int []){ 200, 100 }, 2) == -2 &&
	      asking(e.tep, (int []){ -1, C }, (int []){ 100, 100 }, 2) == -2,
	      "none: only a cookie, another task, an unknown entry");
	/* E0, then N events taken by N later cookie records, then ours:
	 * E0 found behind 7 (USTACK_JOIN_MAX_OPEN - 1), not behind 8 */
	for (int k = USTACK_JOIN_MAX_OPEN - 1; k <= USTACK_JOIN_MAX_OPEN; k++) {
		n = 0;
		type[n] = E, pid[n++] = 100;
		for (i = 0; i < k; i++)
			type[n] = E, pid[n++] = 100;
		for (i = 0; i < k; i++)
			type[n] = C, pid[n++] = 100;
		type[n] = C, pid[n++] = 100;
		CHECK(asking(e.tep, type, pid, n) == (k < USTACK_JOIN_MAX_OPEN ? 0 : -2),
		      "behind %d taken events: %d", k, asking(e.tep, type, pid, n));
	}
	errno = 0;
	CHECK(ustack_record_find_event(e.tep, 100, step_back, &s) < 0 &&
	      errno == EIO, "the host's error");
	CHECK(ustack_record_find_event(NULL, 100, step_back, &s) < 0 &&
	      errno == EINVAL &&
	      ustack_record_find_event(e.tep, 100, NULL, &s) < 0 &&
	      errno == EINVAL, "bad arguments");
	env_close(&e);
	end();
}

static void test_event_parse(const char *dir)
{
	unsigned long long kf[8], uf[8];
	unsigned char cb[128], ub[128];
	struct tep_record c = { .data = cb }, u = { .data = ub };
	struct ustack_event ev = { 0 };
	struct rec_env e;

	begin("ustack_event_parse: an event's stacks from its two records");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	ev.tep = e.tep;
	c.size = rec_cookie(cb, 100, 0x77, 0, kgood, 3);
	u.size = rec_ustack(ub, 100, 0x77, 96, USTACK_STACK_TRUNCATED, 9, ugood, 4);
	CHECK(!ustack_event_parse(&ev, &c, &u, kf, uf, 8) && ev.cookie == 0x77 &&
	      ev.nr_kernel == 3 && ev.kernel == kf && kf[2] == kgood[2] &&
	      ev.nr_user == 4 && ev.user == uf && uf[3] == ugood[3] &&
	      ev.depth == 9, "both: cookie %llx nr %d %d depth %u", ev.cookie,
	      ev.nr_kernel, ev.nr_user, ev.depth);
	CHECK(!ustack_event_parse(&ev, &c, NULL, kf, uf, 2) && ev.nr_kernel == 2 &&
	      ev.nr_user == 0 && ev.depth == 0, "no user stack, 2 frames room");
	/* a user stack record whose frames lie outside it */
	put32(ub + 28, (64 * 8) << 16 | 32);
	CHECK(!ustack_event_parse(&ev, &c, &u, kf, uf, 8) && ev.nr_user == 0,
	      "frames outside the record: none");
	put16(ub, ID_ENTER);
	errno = 0;
	CHECK(ustack_event_parse(&ev, &c, &u, kf, uf, 8) < 0 && errno == ENOENT &&
	      ev.nr_kernel == 3 && ev.nr_user == 0 && ev.cookie == 0x77,
	      "not a user stack record: its part empty, the other filled");
	CHECK(ustack_event_parse(&ev, NULL, &u, kf, uf, 8) < 0 && errno == EINVAL &&
	      ustack_event_parse(&ev, &c, &u, kf, uf, -1) < 0 && errno == EINVAL,
	      "bad arguments");
	env_close(&e);
	end();
}

static int index_feed(struct ustack_index *x, unsigned char *b, int size,
		      int cpu, unsigned long long ts, unsigned long long off)
{
	struct tep_record r = { .ts = ts, .cpu = cpu, .size = size,
				.record_size = size, .data = b, .offset = off };

	return ustack_index_add_record(x, &r);
}

static void test_index(const char *dir)
{
	const struct ustack_request *q;
	struct ustack_index *x;
	struct rec_env e;
	size_t nr = 9;

	begin("ustack_index: the requests of the two records, with their offsets");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	x = ustack_index_alloc(e.tep);
	CHECK(x, "alloc: %s", strerror(errno));
	if (!x) {
		env_close(&e);
		end();
		return;
	}
	/* complete (cookie at 0x1010, stack at 0x2000), lost, never arrived */
	index_feed(x, e.b, rec_cookie(e.b, 100, 0x11, 0, kgood, 3), 1, 10, 0x1010);
	index_feed(x, e.b, rec_ustack(e.b, 100, 0x11, 96, 0, 4, ugood, 4), 0, 20, 0x2000);
	index_feed(x, e.b, rec_cookie(e.b, 101, 0x12, USTACK_COOKIE_NO_USER_STACK,
				      kgood, 3), 1, 30, 0x3010);
	index_feed(x, e.b, rec_cookie(e.b, 102, 0x13, 0, kgood, 3), 1, 40, 0x4010);
	CHECK(ustack_index_add_record(x, NULL) < 0 && errno == EINVAL,
	      "a record the host could not read");
	CHECK(!ustack_index_flush(x), "flush");
	q = ustack_index_requests(x, &nr);
	CHECK(nr == 3 && q, "3 requests: %zu", nr);
	if (nr == 3 && q) {
		CHECK(q[0].pid == 100 && q[0].tgid == 96 && q[0].ts == 10 &&
		      q[0].cpu == 1 && q[0].status == USTACK_COMPLETE &&
		      q[0].cookie_offset == 0x1010 && q[0].stack_offset == 0x2000 &&
		      (q[0].flags & USTACK_EV_UNSEEN), "complete");
		CHECK(q[1].pid == 101 && q[1].tgid == 101 && q[1].status == USTACK_LOST &&
		      q[1].cookie_offset == 0x3010 && !q[1].stack_offset, "lost");
		CHECK(q[2].pid == 102 && q[2].status == USTACK_NEVER_ARRIVED &&
		      q[2].cookie_offset == 0x4010 && !q[2].stack_offset,
		      "never arrived");
	}
	CHECK(ustack_index_damaged(x) == 1, "damaged %lld", ustack_index_damaged(x));
	ustack_index_free(x);
	CHECK(!ustack_index_requests(NULL, &nr) && nr == 0 && errno == EINVAL &&
	      ustack_index_damaged(NULL) < 0 && ustack_index_flush(NULL) < 0 &&
	      ustack_index_add_record(NULL, NULL) < 0, "bad arguments");
	env_close(&e);
	end();
}

/* ---- ustack_ahead(3): a trace in an array, read ahead by offset ---- */

#define AHEAD_RECS	400

struct ahead_trace {
	struct {
		unsigned char	data[80];
		int		size, cpu;
		unsigned long long ts, offset;
	}			r[AHEAD_RECS];
	int			n, next, out;
	int			stop_at;	/* read says -1 there; 0: never */
	unsigned long long	off[2];		/* next offset per CPU */
};

static int at_push(struct ahead_trace *t, int size, const unsigned char *b,
		   int cpu)
{
	int i = t->n++;

	memcpy(t->r[i].data, b, size);
	t->r[i].size = size;
	t->r[i].cpu = cpu;
	t->r[i].ts = 1000 + i;
	t->r[i].offset = t->off[cpu] += 0x100;
	return i;
}

static struct tep_record at_record(struct ahead_trace *t, int i)
{
	return (struct tep_record){ .ts = t->r[i].ts, .offset = t->r[i].offset,
				    .cpu = t->r[i].cpu, .size = t->r[i].size,
				    .record_size = t->r[i].size,
				    .data = t->r[i].data };
}

static int at_read(void *data, struct tep_record **record)
{
	struct ahead_trace *t = data;

	if (t->stop_at && t->next == t->stop_at)
		return -1;
	if (t->next == t->n)
		return 0;
	*record = malloc(sizeof(**record));
	if (!*record)
		return -1;
	**record = at_record(t, t->next++);
	t->out++;
	return 1;
}

static void at_release(void *data, struct tep_record *record)
{
	((struct ahead_trace *)data)->out--;
	free(record);
}

/*
 * A: pid 100 asks on CPU 1, its user stack on CPU 0 after 2 records.
 * N: pid 200, no cookie.  C: a cookie record of pid 300 whose event is
 * not in the trace.  S: pid 400 asks, then 150 events of pid 500 on CPU
 * 0, then S's user stack (the task stayed in the kernel).
 */
static void at_fill(struct ahead_trace *t, unsigned char *b, int *a, int *n,
		    int *c, int *st)
{
	int i;

	memset(t, 0, sizeof(*t));
	*a = at_push(t, rec_event(b, 100), b, 1);
	at_push(t, rec_cookie(b, 100, 0x10, 0, kgood, 3), b, 1);
	*n = at_push(t, rec_event(b, 200), b, 0);
	at_push(t, rec_ustack(b, 100, 0x10, 96, 0, 4, ugood, 4), b, 0);
	*c = at_push(t, rec_cookie(b, 300, 0x30, 0, kgood, 2), b, 1);
	at_push(t, rec_ustack(b, 300, 0x30, 300, 0, 2, ugood, 2), b, 1);
	*st = at_push(t, rec_event(b, 400), b, 1);
	at_push(t, rec_cookie(b, 400, 0x40, 0, kgood, 1), b, 1);
	for (i = 0; i < 150; i++)
		at_push(t, rec_event(b, 500), b, 0);
	at_push(t, rec_ustack(b, 400, 0x40, 400, 0, 3, ugood, 3), b, 0);
}

static void test_ahead(const char *dir)
{
	const struct ustack_event *ev, *ev2;
	struct ahead_trace *t = calloc(1, sizeof(*t));
	struct ustack_ahead *ah;
	struct tep_record r;
	struct rec_env e;
	int a, n, c, st, i, ret;

	begin("ustack_ahead: each event's stacks read ahead, a window, the index");
	if (!t || env_open(&e, dir)) {
		free(t);
		end();
		return;
	}
	/* without the index: S is given up on after the window */
	at_fill(t, e.b, &a, &n, &c, &st);
	ah = ustack_ahead_alloc(e.tep, 2, 64, at_read, at_release, t);
	CHECK(ah, "alloc: %s", strerror(errno));
	if (!ah)
		goto out;
	r = at_record(t, a);
	ret = ustack_ahead_get(ah, &r, &ev);
	CHECK(ret == 1 && ev->status == USTACK_COMPLETE && ev->pid == 100 &&
	      ev->tgid == 96 && ev->nr_kernel == 3 && ev->kernel[2] == kgood[2] &&
	      ev->nr_user == 4 && ev->user[3] == ugood[3] && !ev->record &&
	      !(ev->flags & USTACK_EV_UNSEEN), "A: %d", ret);
	CHECK(t->next <= 4, "A read ahead only to its user stack: %d", t->next);
	ret = ustack_ahead_get(ah, &r, &ev2);
	CHECK(ret == 1 && ev2 == ev, "A asked again: the same stacks");
	r = at_record(t, n);
	CHECK(!ustack_ahead_get(ah, &r, &ev) && !ev, "N: no stacks");
	r = at_record(t, c);
	ret = ustack_ahead_get(ah, &r, &ev);
	CHECK(ret == 1 && (ev->flags & USTACK_EV_UNSEEN) && ev->pid == 300 &&
	      ev->nr_user == 2, "C: the request at its cookie record: %d", ret);
	r = at_record(t, st);
	CHECK(!ustack_ahead_get(ah, &r, &ev), "S: given up on, no index");
	CHECK(t->next < t->n, "S: the look-ahead stopped at the window (%d of %d)",
	      t->next, t->n);
	CHECK(t->out == 0, "every record given back: %d out", t->out);
	ustack_ahead_free(ah);

	/* with the index of a first pass: S gets its stacks */
	at_fill(t, e.b, &a, &n, &c, &st);
	ah = ustack_ahead_alloc(e.tep, 2, 64, at_read, at_release, t);
	CHECK(ah, "alloc: %s", strerror(errno));
	if (!ah)
		goto out;
	for (i = 0; i < t->n; i++) {
		r = at_record(t, i);
		CHECK(!ustack_ahead_index_record(ah, &r), "index %d", i);
	}
	CHECK(!ustack_ahead_index_flush(ah), "flush");
	r = at_record(t, 0);
	CHECK(ustack_ahead_index_record(ah, &r) < 0 && errno == EINVAL,
	      "no index record after the flush");
	r = at_record(t, st);
	ret = ustack_ahead_get(ah, &r, &ev);
	CHECK(ret == 1 && ev->status == USTACK_COMPLETE && ev->pid == 400 &&
	      ev->nr_user == 3, "S from the index: %d", ret);
	ustack_ahead_free(ah);

	/* the end settles what waits; a damaged record does not */
	for (i = 0; i < 2; i++) {
		at_fill(t, e.b, &a, &n, &c, &st);
		t->n = st + 2;		/* S's user stack never comes */
		t->stop_at = i ? st + 2 : 0;
		ah = ustack_ahead_alloc(e.tep, 2, 64, at_read, at_release, t);
		if (!ah)
			break;
		r = at_record(t, st);
		ret = ustack_ahead_get(ah, &r, &ev);
		if (i)
			CHECK(ret == 0, "at a damaged record: unsettled (%d)", ret);
		else
			CHECK(ret == 1 && ev->status == USTACK_NEVER_ARRIVED,
			      "at the end: never arrived (%d)", ret);
		ustack_ahead_free(ah);
	}
	CHECK(!ustack_ahead_alloc(e.tep, 2, 1, at_read, at_release, t) &&
	      errno == EINVAL && !ustack_ahead_alloc(NULL, 2, 64, at_read,
						      at_release, t) &&
	      ustack_ahead_get(NULL, &r, &ev) < 0 && errno == EINVAL &&
	      ustack_ahead_index_record(NULL, &r) < 0 &&
	      ustack_ahead_index_flush(NULL) < 0, "bad arguments");
	ustack_ahead_free(NULL);
out:
	env_close(&e);
	free(t);
	end();
}

/*
 * ustack_syms_set_print_cache(): a stack printed again comes from its
 * text, but only with the same key: the kernel names (tep) and the maps
 * at the event's time (an exec between two events of one task)
 */
static void test_print_cache(const char *dir)
{
	static char kallsyms[] = "ffffffff81000000 T kfunc\nffffffff81001000 T kend\n";
	const unsigned long long k[1] = { 0xffffffff81000010ULL };
	const unsigned long long u[1] = { 0x555555555100ULL };
	struct ustack_event ev = { .status = USTACK_COMPLETE, .tgid = 96,
				   .nr_kernel = 1, .kernel = k,
				   .nr_user = 1, .user = u, .depth = 1 };
	struct tep_handle *named = NULL, *plain = NULL;
	struct ustack_syms *syms = ustack_syms_alloc();
	char *text[4] = { 0 };
	struct trace_seq s;
	struct rec_env e;
	int i;

	begin("ustack_syms_set_print_cache: kept text, keyed with the tep and the maps' changes");
	if (!syms || env_open(&e, dir)) {
		ustack_syms_free(syms);
		end();
		return;
	}
	named = e.tep;
	plain = tep_alloc();
	CHECK(plain && !tep_parse_kallsyms(named, kallsyms), "kallsyms");
	CHECK(!ustack_syms_set_print_cache(syms, 16, 1 << 20) &&
	      !ustack_syms_add_map(syms, 96, 0x555555554000ULL,
				   0x555555556000ULL, 0, "/nonexistent/prog") &&
	      !ustack_syms_add_exec(syms, 96, 50), "set up");
	/* 0, 1: named kernel frames at time 100, twice; 2: another tep;
	 * 3: the same frames at time 10, before the exec */
	for (i = 0; i < 4; i++) {
		ev.tep = i == 2 ? plain : named;
		ev.ts = i == 3 ? 10 : 100;
		trace_seq_init(&s);
		CHECK(!ustack_event_print(&s, &ev, syms, 0), "print %d", i);
		trace_seq_terminate(&s);
		text[i] = strdup(s.buffer);
		trace_seq_destroy(&s);
	}
	CHECK(text[0] && strstr(text[0], "kfunc+0x10") &&
	      strstr(text[0], "/nonexistent/prog"), "named: %s", text[0]);
	CHECK(text[1] && text[0] && !strcmp(text[0], text[1]), "again: %s", text[1]);
	CHECK(text[2] && !strstr(text[2], "kfunc"), "another tep: %s", text[2]);
	CHECK(text[3] && strstr(text[3], USTACK_BEFORE_EXEC_TEXT),
	      "before the exec: %s", text[3]);
	CHECK(ustack_syms_set_print_cache(NULL, 1, 1) < 0 && errno == EINVAL &&
	      !ustack_syms_set_print_cache(syms, 0, 0), "off, bad arguments");
	for (i = 0; i < 4; i++)
		free(text[i]);
	tep_free(plain);
	ustack_syms_free(syms);
	env_close(&e);
	end();
}

static void test_tree(void)
{
	struct ustack_tree_frame a[] = {
		{ "main", "/bin/p" }, { "work", "/bin/p" },
		{ "do_syscall_64", USTACK_TREE_KERNEL_OBJECT },
	}, b[] = { { "main", "/bin/p" }, { "odd\x1ename\n", NULL } };
	struct ustack_tree *t = ustack_tree_alloc(0);
	struct trace_seq s;

	begin("ustack_tree: stacks added, the same one summed, printed");
	trace_seq_init(&s);
	CHECK(t && !ustack_tree_add(t, "sys:ev", "p", a, 3, 2) &&
	      !ustack_tree_add(t, "sys:ev", "p", a, 3, 1) &&
	      !ustack_tree_add(t, "sys:ev", "p", b, 2, 1) &&
	      !ustack_tree_print(&s, t), "add, print: %s", strerror(errno));
	trace_seq_terminate(&s);
	CHECK(s.buffer && strstr(s.buffer, "# sys:ev: 4 events, 2 call paths") &&
	      strstr(s.buffer, "   100.00%     0.00%      4  p        p  ") &&
	      strstr(s.buffer, "[k] do_syscall_64\n") &&
	      strstr(s.buffer, "    75.00%    75.00%      3  p        [kernel.kallsyms]") &&
	      strstr(s.buffer, "[.] odd_name_\n"), "text:\n%s", s.buffer);
	CHECK(ustack_tree_set_sort(t, "sym,comm,sym") < 0 && errno == EINVAL &&
	      ustack_tree_set_sort(t, "pid") < 0 && errno == EINVAL &&
	      !ustack_tree_set_sort(t, "sym") &&
	      ustack_tree_set_limits(t, 101, 0) < 0 && errno == EINVAL &&
	      ustack_tree_set_limits(t, 5, -1) < 0 && errno == EINVAL &&
	      !ustack_tree_set_limits(t, 5, 2) &&
	      !ustack_tree_alloc(1 << 9) && errno == EINVAL &&
	      ustack_tree_add(t, NULL, "p", a, 3, 1) < 0 && errno == EINVAL &&
	      ustack_tree_add(t, "e", "p", (struct ustack_tree_frame []){ { NULL, NULL } },
			      1, 1) < 0 && errno == EINVAL &&
	      ustack_tree_print(NULL, t) < 0 && errno == EINVAL,
	      "bad arguments: %s", strerror(errno));
	trace_seq_destroy(&s);
	ustack_tree_free(t);
	end();
}

/* ---- ustack_view: a viewer's records, read back through the host ---- */

struct store {
	struct {
		unsigned long long	ts, offset;
		int			cpu, size;
		unsigned char		data[256];
	}			r[16];
	int			n, out;		/* records; read, not released */
	int			syms_calls, syms_ret;
};

static struct tep_record *store_read(void *data, unsigned long long offset)
{
	struct store *st = data;
	struct tep_record *r;
	int i;

	for (i = 0; i < st->n && st->r[i].offset != offset; i++)
		;
	if (i == st->n || !(r = calloc(1, sizeof(*r))))
		return NULL;
	*r = (struct tep_record){ .ts = st->r[i].ts, .offset = offset,
				  .cpu = st->r[i].cpu, .size = st->r[i].size,
				  .record_size = st->r[i].size,
				  .data = st->r[i].data };
	st->out++;
	return r;
}

static void store_release(void *data, struct tep_record *r)
{
	((struct store *)data)->out--;
	free(r);
}

/* a map of the user frames' process to a file that is not there */
static int store_syms(void *data, struct ustack_syms *syms)
{
	struct store *st = data;

	st->syms_calls++;
	return st->syms_ret ?: ustack_syms_add_map(syms, 96, 0x555555554000ULL,
						   0x555555556000ULL, 0,
						   "/nonexistent/ustack-test-bin");
}

static void store_add(struct store *st, unsigned char *b, int size, int cpu)
{
	st->r[st->n].ts = 10 * (st->n + 1);
	st->r[st->n].offset = 0x1000 * (st->n + 1);
	st->r[st->n].cpu = cpu;
	st->r[st->n].size = size;
	memcpy(st->r[st->n].data, b, size);
	st->n++;
}

/* every record to the view, last first; the refs: &st->r[i] */
static int store_give(struct store *st, struct ustack_view *v)
{
	struct tep_record r;
	int i, kept = 0;

	for (i = st->n - 1; i >= 0; i--) {
		r = (struct tep_record){ .ts = st->r[i].ts, .cpu = st->r[i].cpu,
					 .offset = st->r[i].offset,
					 .size = st->r[i].size,
					 .record_size = st->r[i].size,
					 .data = st->r[i].data };
		kept += ustack_view_add_record(v, &r, &st->r[i]) > 0;
	}
	return kept;
}

static int vprints;

int tep_vprint(const char *name, enum tep_loglevel level, bool print_err,
	       const char *fmt, va_list ap)
{
	vprints++;
	return __tep_vprint(name, level, print_err, fmt, ap);
}

static const char *selected(struct ustack_view *v, struct trace_seq *s,
			    const void *ref, void **links, int max, int *n)
{
	trace_seq_reset(s);
	*n = ustack_view_print_selected(v, s, ref, links, max, 0);
	trace_seq_terminate(s);
	return s->buffer;
}

static void test_view(const char *dir)
{
	const struct ustack_view_request *q;
	struct store st = { .n = 0 };
	struct ustack_view *v;
	struct trace_seq s;
	void *links[4];
	struct rec_env e;
	const char *t;
	size_t nr = 9;
	int n;

	begin("ustack_view: requests of records given in any order, their blocks, links, tree, messages");
	if (env_open(&e, dir)) {
		end();
		return;
	}
	trace_seq_init(&s);
	/* 0-2: a complete request (pid 100, cookie 0x11); 3-4: a lost one
	 * (101); 5: a kernel_stack (not taken); 6-7: two events of pid 103
	 * asking in one kernel entry (cookie 0x14) and 8: their user stack;
	 * 9: a cookie record cut short; 10: never arrived (102) */
	store_add(&st, e.b, rec_event(e.b, 100), 1);
	store_add(&st, e.b, rec_cookie(e.b, 100, 0x11, 0, kgood, 3), 1);
	store_add(&st, e.b, rec_ustack(e.b, 100, 0x11, 96, 0, 4, ugood, 4), 0);
	store_add(&st, e.b, rec_event(e.b, 101), 1);
	store_add(&st, e.b, rec_cookie(e.b, 101, 0x12, USTACK_COOKIE_NO_USER_STACK,
				       kgood, 3), 1);
	store_add(&st, e.b, rec_kstack(e.b, 100, 24, kgood, 3, 3), 1);
	store_add(&st, e.b, rec_cookie(e.b, 103, 0x14, 0, kgood, 2), 1);
	store_add(&st, e.b, rec_cookie(e.b, 103, 0x14, 0, kgood, 3), 1);
	store_add(&st, e.b, rec_ustack(e.b, 103, 0x14, 96, 0, 2, ugood, 2), 0);
	/* cut before its cookie */
	store_add(&st, e.b, rec_cookie(e.b, 104, 0x15, 0, kgood, 3) * 0 + 12, 1);
	store_add(&st, e.b, rec_cookie(e.b, 102, 0x13, 0, kgood, 3), 1);
	v = ustack_view_alloc(e.tep, store_read, store_release, &st);
	CHECK(v && !ustack_view_set_syms_func(v, store_syms), "alloc: %s",
	      strerror(errno));
	if (!v)
		goto out;
	CHECK(store_give(&st, v) == 7, "kept: the 7 records of stacks");
	CHECK(ustack_view_damaged(v) == 1, "damaged: %lld", ustack_view_damaged(v));
	CHECK(!ustack_view_requests(v, &nr) && nr == 0, "no requests before built");
	CHECK(!ustack_view_build(v), "build: %s", strerror(errno));
	q = ustack_view_requests(v, &nr);
	CHECK(q && nr == 5, "5 requests: %zu", nr);
	if (!q || nr != 5)
		goto out;
	/* in the join's order: 100 (stack came), 101 (lost), 103 twice,
	 * 102 (never arrived, at the end) */
	CHECK(q[0].request.pid == 100 && q[0].request.status == USTACK_COMPLETE &&
	      q[0].cookie == &st.r[1] && q[0].stack == &st.r[2] && !q[0].event &&
	      q[0].ts == st.r[1].ts && q[0].type == -1 &&
	      (q[0].request.flags & USTACK_EV_UNSEEN), "complete, its records' refs");
	CHECK(q[1].request.pid == 101 && q[1].request.status == USTACK_LOST &&
	      q[1].cookie == &st.r[4] && !q[1].stack, "lost");
	CHECK(q[2].cookie == &st.r[6] && q[3].cookie == &st.r[7] &&
	      q[2].stack == &st.r[8] && q[3].stack == &st.r[8], "one user stack, two requests");
	CHECK(q[4].request.pid == 102 && q[4].request.status == USTACK_NEVER_ARRIVED &&
	      !q[4].stack, "never arrived");
	CHECK(ustack_view_add_record(v, &(struct tep_record){ .data = e.b, .size = 16 },
				     NULL) < 0 && errno == EBUSY, "no record after build");

	/* the cookie record of an event not seen: its block, a link to
	 * its user stack; the frames named through the host's function,
	 * its message kept, not printed */
	vprints = 0;
	t = selected(v, &s, &st.r[1], links, 4, &n);
	CHECK(!strncmp(t, "(event not seen) pid=100 cpu=1 cookie=0x11\ntime 0.000000\n <kernel stack>\n", 72) &&
	      strstr(t, " <user stack>\n => /nonexistent/ustack-test-bin+0x1000 (0x555555555000)\n") &&
	      n == 1 && links[0] == &st.r[2], "a cookie record: %d links, text:\n%s", n, t);
	CHECK(strstr(t, "\nDamaged file: 1 records of the deferred stacks could not be read\n"
		      "libustack: /nonexistent/ustack-test-bin: not found, frames in it stay unresolved\n") &&
	      vprints == 0 && st.syms_calls == 1, "damage, then the message (%d printed, %d calls)",
	      vprints, st.syms_calls);
	/* the event found by the host */
	CHECK(!ustack_view_set_event(v, 0, ID_ENTER, 5, 1, &st.r[0]) &&
	      !(q[0].request.flags & USTACK_EV_UNSEEN) && q[0].event == &st.r[0] &&
	      q[0].ts == 5, "set_event");
	t = selected(v, &s, &st.r[0], links, 4, &n);
	CHECK(!strncmp(t, "sys_enter_getppid pid=100 cpu=1 cookie=0x11\n", 44) &&
	      n == 1 && links[0] == &st.r[2], "the event: %d links, text:\n%s", n, t);
	t = selected(v, &s, &st.r[2], links, 4, &n);
	CHECK(!strncmp(t, "This user stack completes:\nsys_enter_getppid pid=100", 52) &&
	      n == 1 && links[0] == &st.r[0], "its user stack: links to the event");
	/* a user stack of two requests: max of them listed */
	t = selected(v, &s, &st.r[8], links, 4, &n);
	CHECK(n == 2 && links[0] == &st.r[6] && links[1] == &st.r[7] &&
	      strstr(strstr(t, "cookie=0x14") + 1, "cookie=0x14"), "two requests");
	t = selected(v, &s, &st.r[8], links, 1, &n);
	CHECK(n == 1 && !strstr(strstr(t, "cookie=0x14") + 1, "cookie=0x14"),
	      "max 1: the first one");
	t = selected(v, &s, &st.r[5], links, 4, &n);
	CHECK(n == 0 && !strncmp(t, "This event did not ask for a deferred user stack\n", 49),
	      "a record of no request");
	/* the tree: all, a task, a range */
	trace_seq_reset(&s);
	CHECK(ustack_view_tree(v, &s, 0, ~0ULL, -1, 0) == 5 &&
	      ustack_view_tree(v, &s, 0, ~0ULL, 103, 0) == 2 &&
	      ustack_view_tree(v, &s, 0, 5, -1, 0) == 1, "tree counts");
	n = s.len;
	CHECK(ustack_view_tree(v, &s, 1000, ~0ULL, -1, 0) == 0 && s.len == (unsigned)n,
	      "an empty range: nothing printed");
	CHECK(st.out == 0 && st.syms_calls == 1, "every record read released (%d), syms made once",
	      st.out);
	/* a new load */
	CHECK(!ustack_view_reset(v) && !ustack_view_requests(v, &nr) && nr == 0 &&
	      ustack_view_damaged(v) == 0 && store_give(&st, v) == 7 &&
	      !ustack_view_build(v) && ustack_view_requests(v, &nr) && nr == 5,
	      "reset, the same again");
	ustack_view_free(v);
	/* no names when the host's function fails; called once */
	st.syms_ret = -1;
	st.syms_calls = 0;
	v = ustack_view_alloc(e.tep, store_read, store_release, &st);
	ustack_view_set_syms_func(v, store_syms);
	store_give(&st, v);
	ustack_view_build(v);
	t = selected(v, &s, &st.r[1], links, 4, &n);
	CHECK(strstr(t, " => 0x555555555000\n") && st.syms_calls == 1 &&
	      selected(v, &s, &st.r[1], links, 4, &n) && st.syms_calls == 1,
	      "the host's function failed: addresses");
	ustack_view_free(v);
	CHECK(!ustack_view_alloc(NULL, store_read, store_release, NULL) && errno == EINVAL &&
	      !ustack_view_alloc(e.tep, NULL, store_release, NULL) && errno == EINVAL &&
	      ustack_view_build(NULL) < 0 && errno == EINVAL &&
	      ustack_view_print(NULL, &s, 0, 0) < 0 &&
	      ustack_view_print_selected(NULL, &s, &st, links, 1, 0) < 0 &&
	      ustack_view_tree(NULL, &s, 0, 1, -1, 0) < 0 &&
	      ustack_view_damaged(NULL) < 0 && ustack_view_set_event(NULL, 0, 0, 0, 0, &st) < 0,
	      "bad arguments");
out:
	trace_seq_destroy(&s);
	env_close(&e);
	end();
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FORMATS_DIR\n", argv[0]);
		return 2;
	}
	test_basic();
	test_unseen();
	test_reorder();
	test_never();
	test_two_instances();
	test_many_per_cookie();
	test_cookie_reuse();
	test_truncated();
	test_cookie_kernel();
	test_lost();
	test_late_flag();
	test_unwinder();
	test_kthread();
	test_nested();
	test_bounded();
	test_stop();
	test_free_pending();
	test_plausible();
	test_records_good(argv[1]);
	test_records_offsets(argv[1]);
	test_records_exec_pid(argv[1]);
	test_feed(argv[1]);
	test_records_malformed(argv[1]);
	test_records_damage(argv[1]);
	test_bad_format(argv[1]);
	test_prerelease(argv[1]);
	test_find_event(argv[1]);
	test_event_parse(argv[1]);
	test_index(argv[1]);
	test_ahead(argv[1]);
	test_print_cache(argv[1]);
	test_tree();
	test_view(argv[1]);
	return failures ? 1 : 0;
}
