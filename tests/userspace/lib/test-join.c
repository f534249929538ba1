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

#include "ustack-local.h"

/* compat.c: ustack_join_get_stats@LIBTRACEFS_EXT_1.0 */
int __ustack_join_get_stats_1_0(struct ustack_join *join,
				struct ustack_join_stats *stats);

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
	int			event_id;
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

static int ck(struct ustack_join *j, int cpu, int pid,
	      unsigned long long cookie)
{
	struct ustack_input in = { .type = USTACK_IN_COOKIE, .cpu = cpu,
				   .pid = pid, .ts = ++ts_now,
				   .cookie = cookie };

	return ustack_join_feed(j, &in);
}

static int us(struct ustack_join *j, int cpu, int pid, int tgid,
	      unsigned long long cookie, int nr, unsigned long long base,
	      unsigned int truncated)
{
	unsigned long long f[16];
	struct ustack_input in = { .type = USTACK_IN_USTACK, .cpu = cpu,
				   .pid = pid, .ts = ++ts_now,
				   .cookie = cookie, .tgid = tgid, .nr = nr,
				   .frames = f, .truncated = truncated };
	int i;

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

	begin("basic: event, kernel stack, cookie, user stack on another CPU");
	j = new_join(&l);
	ev(j, 0, 100, 7);
	kst(j, 0, 100, 3, 0xffffffff81000000ULL);
	ck(j, 0, 100, 0x42);
	CHECK(l.n == 0, "delivered before its user stack (%d)", l.n);
	us(j, 1, 100, 99, 0x42, 4, 0x401000, 0);
	CHECK(l.n == 1, "delivered %d events", l.n);
	g = &l.g[0];
	CHECK(g->status == USTACK_COMPLETE, "status %d", g->status);
	CHECK(g->cookie == 0x42, "cookie %llx", g->cookie);
	CHECK(g->tgid == 99, "tgid %d", g->tgid);
	CHECK(g->nr_k == 3 && g->k[0] == 0xffffffff81000000ULL &&
	      g->k[2] == 0xffffffff81000002ULL, "kernel frames");
	CHECK(g->nr_u == 4 && g->u[0] == 0x401000 && g->u[3] == 0x401003,
	      "user frames");
	CHECK(g->cpu == 0 && g->event_id == 7, "event cpu %d id %d", g->cpu,
	      g->event_id);
	ustack_join_flush(j);
	CHECK(l.n == 1, "flush delivered more");
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
	kst(j, 1, 300, 2, 0xa000);
	kst(j, 0, 200, 2, 0xb000);
	/* cpu 1's clock is behind: 200's user stack sorts before its cookie */
	us(j, 1, 200, 200, 0x1111, 3, 0x500000, 0);
	ck(j, 1, 300, 0x2222);
	ck(j, 0, 200, 0x1111);
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
	kst(j, 0, 10, 2, 0xc000);
	ck(j, 0, 10, 0x77);
	ev(j, 1, 11, 1);
	kst(j, 1, 11, 2, 0xd000);
	ck(j, 1, 11, 0x78);
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
	kst(a, 0, 50, 1, 0xe000);
	ck(a, 0, 50, 0x99);
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
		if (i % 3)
			kst(j, i % 2, 60, 2, 0x10000 * (i + 1));
		ck(j, i % 2, 60, 0x5555);
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
	kst(j, 0, 70, 1, 0xf000);
	ck(j, 0, 70, 0xabc);
	us(j, 0, 70, 70, 0xabc, 3, 0x900000, 0);
	CHECK(l.n == 1 && !(l.g[0].flags & USTACK_EV_LATE), "first");
	/* e.g. sched_switch on the way out: no second user stack comes */
	ev(j, 1, 70, 2);
	kst(j, 1, 70, 1, 0xf100);
	ck(j, 1, 70, 0xabc);
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

	begin("truncated and empty user stacks");
	j = new_join(&l);
	ev(j, 0, 80, 1);
	ck(j, 0, 80, 0x1);
	us(j, 0, 80, 80, 0x1, 16, 0x400000, 1);
	ev(j, 0, 81, 1);
	ck(j, 0, 81, 0x2);
	us(j, 0, 81, 81, 0x2, 0, 0, 0);
	CHECK(l.n == 2, "delivered %d", l.n);
	CHECK(l.g[0].status == USTACK_TRUNCATED && l.g[0].nr_u == 16,
	      "truncated: status %d nr %d", l.g[0].status, l.g[0].nr_u);
	CHECK(l.g[1].status == USTACK_EMPTY && l.g[1].nr_u == 0,
	      "empty: status %d", l.g[1].status);
	ustack_join_flush(j);
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

	begin("an interrupt nests a whole event/stack/cookie group");
	j = new_join(&l);
	ev(j, 0, 90, 1);
	kst(j, 0, 90, 1, 0x1000);
	/* irq on the same CPU in the same task */
	ev(j, 0, 90, 2);
	kst(j, 0, 90, 1, 0x2000);
	ck(j, 0, 90, 0xc0);
	ck(j, 0, 90, 0xc0);
	us(j, 0, 90, 90, 0xc0, 1, 0x3000, 0);
	CHECK(l.n == 2, "delivered %d", l.n);
	g = find(&l, 90, 1);
	CHECK(g && g->nr_k == 1 && g->k[0] == 0x1000 && g->nr_u == 1,
	      "outer event");
	g = find(&l, 90, 2);
	CHECK(g && g->nr_k == 1 && g->k[0] == 0x2000 && g->nr_u == 1,
	      "nested event");
	/* a stack of another task never attaches */
	ev(j, 1, 91, 3);
	kst(j, 1, 92, 1, 0x4000);
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
		snprintf(sys, sizeof(sys), "%s", names[i]);
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

static void test_records(const char *dir)
{
	static const char *names[] = {
		"ftrace_kernel_stack", "unwind_user_stack_cookie",
		"unwind_user_stack_deferred", "syscalls_sys_enter_getppid",
	};
	unsigned char b[256];
	struct ustack_join_stats st;
	struct ustack_join *j;
	struct tep_handle *tep;
	struct log l;
	int i;

	begin("records decoded with the event formats (data_loc, bounds)");
	tep = load_tep(dir, names, 4);
	CHECK(tep, "formats");
	if (!tep) {
		end();
		return;
	}
	memset(&l, 0, sizeof(l));
	j = ustack_join_alloc(tep, log_cb, &l);
	CHECK(j, "alloc: %s", strerror(errno));
	if (!j) {
		tep_free(tep);
		end();
		return;
	}
	/* sys_enter_getppid */
	memset(b, 0, sizeof(b));
	put16(b, 200);
	put32(b + 4, 1234);
	add(j, b, 16, 1, 1000);
	/* kernel_stack: size 3, then 0 fill */
	memset(b, 0, sizeof(b));
	put16(b, 4);
	put32(b + 4, 1234);
	put32(b + 8, 3);
	for (i = 0; i < 3; i++)
		put64(b + 16 + 8 * i, 0xffffffff81000100ULL + i);
	add(j, b, 16 + 8 * 8, 1, 1001);
	/* cookie */
	memset(b, 0, sizeof(b));
	put16(b, 1601);
	put32(b + 4, 1234);
	put64(b + 8, 0xdeadbeef00000001ULL);
	add(j, b, 16, 1, 1002);
	/* user stack on cpu 0: 4 frames at offset 28 */
	memset(b, 0, sizeof(b));
	put16(b, 1602);
	put32(b + 4, 1234);
	put64(b + 8, 0xdeadbeef00000001ULL);
	put32(b + 16, 1230);
	put32(b + 20, 0);
	put32(b + 24, (4 * 8) << 16 | 28);
	for (i = 0; i < 4; i++)
		put64(b + 28 + 8 * i, 0x555555555000ULL + i);
	add(j, b, 28 + 32, 0, 1003);
	CHECK(l.n == 1, "delivered %d", l.n);
	CHECK(l.n == 1 && l.g[0].nr_k == 3 &&
	      l.g[0].k[2] == 0xffffffff81000102ULL, "kernel frames %d",
	      l.g[0].nr_k);
	CHECK(l.n == 1 && l.g[0].nr_u == 4 && l.g[0].u[3] == 0x555555555003ULL &&
	      l.g[0].tgid == 1230 && l.g[0].event_id == 200 &&
	      l.g[0].status == USTACK_COMPLETE, "user frames");

	/* a user stack whose data_loc points past the record: ignored */
	put16(b, 1602);
	put64(b + 8, 0x2);
	put32(b + 24, (400 * 8) << 16 | 28);
	CHECK(add(j, b, 28 + 32, 0, 1004) == 0, "bad data_loc");
	/* a kernel_stack whose size is bigger than the record */
	memset(b, 0, sizeof(b));
	put16(b, 200);
	put32(b + 4, 1);
	add(j, b, 16, 0, 1005);
	put16(b, 4);
	put32(b + 8, 1000000);
	put64(b + 16, 0xffffffff81000200ULL);
	add(j, b, 24, 0, 1006);
	/* records too short for their format */
	put16(b, 1601);
	CHECK(add(j, b, 10, 0, 1007) == 0, "short cookie");
	put16(b, 4);
	CHECK(add(j, b, 9, 0, 1008) == 0, "short kernel_stack");
	/* unknown event id */
	put16(b, 31000);
	CHECK(add(j, b, 16, 0, 1009) == 0, "unknown id");
	ustack_join_flush(j);
	ustack_join_get_stats(j, &st);
	/* bad data_loc, size past the record, 2 short records, unknown id */
	CHECK(st.malformed == 5, "malformed %llu, want 5", st.malformed);
	for (i = 0; i < l.n; i++)
		if (l.g[i].pid == 1)
			CHECK(l.g[i].nr_k == 1 &&
			      l.g[i].k[0] == 0xffffffff81000200ULL,
			      "clamped kernel stack: %d", l.g[i].nr_k);
	CHECK(!st.bad_kernel_frames && !st.bad_user_frames,
	      "implausible frames in good records: %llu kernel, %llu user",
	      st.bad_kernel_frames, st.bad_user_frames);

	/* frames a damaged page gives (issue 6): counted, still delivered */
	memset(b, 0, sizeof(b));
	put16(b, 200);
	put32(b + 4, 77);
	add(j, b, 16, 1, 2000);
	put16(b, 4);
	put32(b + 8, 3);
	put64(b + 16, 0xf7ffffff810f4f2aULL);
	put64(b + 24, 0xffffffff810f4f2aULL);
	put64(b + 32, 0x7f0000001000ULL);
	add(j, b, 16 + 8 * 8, 1, 2001);
	memset(b, 0, sizeof(b));
	put16(b, 1601);
	put32(b + 4, 77);
	put64(b + 8, 0x4d00000001ULL);
	add(j, b, 16, 1, 2002);
	memset(b, 0, sizeof(b));
	put16(b, 1602);
	put32(b + 4, 77);
	put64(b + 8, 0x4d00000001ULL);
	put32(b + 16, 77);
	put32(b + 24, (3 * 8) << 16 | 28);
	put64(b + 28, 0x47f5b9d966350ULL);
	put64(b + 36, 0x55555555a000ULL);
	put64(b + 44, 0x10ULL);
	add(j, b, 28 + 24, 0, 2003);
	/* frames that do not fill whole elements; a truncation flag of 2 */
	put64(b + 8, 0x4e00000001ULL);
	put32(b + 24, 12 << 16 | 28);
	add(j, b, 28 + 24, 0, 2004);
	put32(b + 20, 2);
	put32(b + 24, 8 << 16 | 28);
	add(j, b, 28 + 24, 0, 2005);
	/* frames that end 8 bytes before the record: a damaged length */
	put32(b + 20, 0);
	put32(b + 24, 16 << 16 | 28);
	add(j, b, 28 + 24, 0, 2006);
	/* frames over the fixed fields (truncated, the data_loc itself) */
	put32(b + 24, 8 << 16 | 20);
	add(j, b, 28 + 24, 0, 2007);
	/* a kernel stack of size 1 with 3 addresses: a damaged size */
	memset(b, 0, sizeof(b));
	put16(b, 4);
	put32(b + 4, 77);
	put32(b + 8, 1);
	for (i = 0; i < 3; i++)
		put64(b + 16 + 8 * i, 0xffffffff81000300ULL + i);
	add(j, b, 16 + 8 * 3, 1, 2008);
	ustack_join_flush(j);
	ustack_join_get_stats(j, &st);
	CHECK(st.bad_kernel_frames == 2, "implausible kernel frames %llu, want 2",
	      st.bad_kernel_frames);
	/*
	 * 0x47f5b9d966350 and 0x10 in the first stack, 0x47f5.. at 2005 and
	 * 2006, 0x0008001400000000 at 2007
	 */
	CHECK(st.bad_user_frames == 5, "implausible user frames %llu, want 5",
	      st.bad_user_frames);
	/* 5 before, 2004 to 2008 */
	CHECK(st.malformed == 10, "malformed %llu, want 10", st.malformed);
	CHECK(l.n > 0 && l.g[l.n - 1].pid == 77 && l.g[l.n - 1].nr_k == 3 &&
	      l.g[l.n - 1].nr_u == 3, "the damaged event is delivered as it is");
	{
		/* the 1.0 ABI: the structure ends at peak_events */
		unsigned char raw[sizeof(st)];
		size_t old = offsetof(struct ustack_join_stats,
				      bad_kernel_frames);

		memset(raw, 0xa5, sizeof(raw));
		CHECK(__ustack_join_get_stats_1_0(j, (void *)raw) == 0,
		      "1.0 get_stats");
		CHECK(!memcmp(raw, &st, old) && raw[old] == 0xa5 &&
		      raw[sizeof(raw) - 1] == 0xa5,
		      "1.0 get_stats writes past the 1.0 structure");
	}
	ustack_join_free(j);
	tep_free(tep);
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

static void test_bad_format(const char *dir)
{
	static const char *names[] = { "ftrace_kernel_stack" };
	static const char bad[] =
		"name: user_stack_deferred\nID: 1602\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:u64 cookie;\toffset:8;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"%llx\", REC->cookie\n";
	struct tep_handle *tep;
	struct ustack_join *j;
	struct log l;

	begin("an event format the join does not know is an error");
	tep = load_tep(dir, names, 1);
	CHECK(tep, "formats");
	if (!tep) {
		end();
		return;
	}
	tep_parse_event(tep, bad, sizeof(bad) - 1, "unwind");
	ustack_set_loglevel(TEP_LOG_NONE);
	j = ustack_join_alloc(tep, log_cb, &l);
	ustack_set_loglevel(TEP_LOG_WARNING);
	CHECK(!j && errno == EINVAL, "accepted a user_stack_deferred without frames");
	ustack_join_free(j);
	tep_free(tep);
	end();
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FORMATS_DIR\n", argv[0]);
		return 2;
	}
	test_basic();
	test_reorder();
	test_never();
	test_two_instances();
	test_many_per_cookie();
	test_cookie_reuse();
	test_truncated();
	test_kthread();
	test_nested();
	test_bounded();
	test_stop();
	test_free_pending();
	test_plausible();
	test_records(argv[1]);
	test_bad_format(argv[1]);
	return failures ? 1 : 0;
}
