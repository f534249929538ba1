// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the join and the record decoding, in-process and
 * structure-aware.  Records are built with the event formats of trace.dat
 * files (FUZZ_FORMATS, a colon-separated list, each opened once) and fed
 * to ustack_join_add_record(), which decodes them with
 * libustack/src/unwind-record.h and feeds the join.
 *
 * Raw bytes alone rarely make a cookie of one record match the cookie and
 * task of another, so most operations build well-formed records whose
 * task, CPU and cookie come from small tables: events meet their cookies
 * (with kernel stacks) and user stacks often, and small limits make the
 * eviction of pending cookies, of open events and of cached tasks run.
 * Damage comes from two operations: one that overwrites a byte of (or
 * truncates) the next record, one that feeds raw bytes as a record of a
 * chosen event.
 *
 * Input: a 4-byte header, then operations.
 *   h0: bits 0-1 format file, bit 2 USTACK_JOIN_ALL_EVENTS, bits 3-7 stop
 *       after that many callbacks (0: never)
 *   h1, h2, h3: max cookies (1-16), events (1-32), tasks (1-16); bit 7
 *       set: the library's default
 * Each operation is [op][where] and more: op bits 0-2 the kind, bits 3-7
 * its argument (arg); where: bits 0-2 the CPU, bits 3-7 the task (both
 * from tables below).
 *   0 EVENT   an event of another kind (arg picks it; one id has no format)
 *   1 KSTACK  [n]: ftrace:kernel_stack, n & 15 frames (n & 64: 120 more);
 *             arg bit 0: its size field lies
 *   2 COOKIE  ftrace:user_stack_cookie, cookie arg & 7; arg bit 3:
 *             NO_USER_STACK, bit 4: 3 kernel frames (else none)
 *   3 USTACK  [n][t]: ftrace:user_stack_deferred, cookie arg & 7,
 *             n & 63 frames (n & 64: 120 more), t: tgid (bits 0-1),
 *             flags (2-3: none, TRUNCATED, LATE, TRUNCATED and reserved
 *             bits), frames (4-6), a depth that lies (7)
 *   4 RAW     [len][bytes]: a record of raw bytes; arg & 3: its type id
 *             is kept (0) or set to the kernel stack, cookie, user stack's
 *   5 DAMAGE  [p][v]: the next built record gets byte p set to v (arg
 *             bit 0 clear) or is cut to p bytes (set)
 *   6 FLUSH   ustack_join_flush() in the middle of the stream
 *   7 PAIR    event + cookie arg & 7 with arg >> 3 kernel frames, the
 *             group the kernel writes for one request
 *
 * Checked besides ASan/LSan: the pending counts stay within the limits,
 * a flush empties them, the status counters add up, no callback after
 * one asked to stop, and with USTACK_JOIN_ALL_EVENTS every event fed is
 * delivered exactly once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>

#include "ustack-local.h"
#include "ustack-file.h"
#include "unwind-record.h"

#define MAX_TEPS	4
#define MAX_EVENTS	32
#define REC_MAX		(32 + 260 * 8)

struct fmt {
	struct ustack_file	*file;
	struct tep_handle	*tep;
	struct tep_event	*kstack, *cookie, *ustack;
	int			events[MAX_EVENTS];	/* other ids */
	int			nr_events;
};

static struct fmt fmts[MAX_TEPS];
static int nr_fmts;
static int debug;	/* FUZZ_DEBUG: the join's counters of each input */

static const int cpus[8] = { 0, 1, 0, 1, 2, 3, 31, 100 };
static const unsigned long long cookies[8] = {
	1, 2, 3, 0x100000001ULL, 0x7fffffff00000001ULL, 0, ~0ULL,
	(1ULL << 48) | 5,
};
static const unsigned long long kpool[8] = {
	0xffffffff81000010ULL, 0xffffffffc0001234ULL, 0xffffffff810f4f2aULL,
	~0ULL, 0, 0x7f0000001000ULL, 0xffffffff80000000ULL,
	0xf7ffffff810f4f2aULL,
};
static const unsigned long long upool[8] = {
	0x555555555234ULL, 0x7ffff7a00042ULL, 0, 1, 0x7fffffffffffULL,
	0x800000000000ULL, 0x401000ULL, ~0ULL,
};

/* the state of one input */
struct run {
	const struct fmt	*f;
	struct ustack_join	*join;
	unsigned long long	ts;
	size_t			max_cookies, max_events;
	unsigned int		calls, stop_after;
	unsigned long long	events_fed;
	int			stopped;
	int			all_events;
	/* DAMAGE for the next record */
	int			damage;		/* 0 none, 1 byte, 2 cut */
	unsigned int		dpos;
	unsigned char		dval;
};

static int pid_of(unsigned int i)
{
	static const int special[4] = { 0, 1, -1, 4 * 1024 * 1024 };

	return i < 28 ? 1000 + (int)i : special[i - 28];
}

static int cb(const struct ustack_event *ev, void *data)
{
	struct run *r = data;
	unsigned long long sum = 0;
	int i;

	if (r->stopped)
		abort();	/* called after it asked to stop */
	if (ev->nr_kernel < 0 || ev->nr_user < 0 ||
	    (ev->nr_kernel && !ev->kernel) || (ev->nr_user && !ev->user) ||
	    ev->status > USTACK_LOST || !ev->record)
		abort();
	/* read all of it: ASan sees a frame or byte past its allocation */
	for (i = 0; i < ev->nr_kernel; i++)
		sum += ev->kernel[i];
	for (i = 0; i < ev->nr_user; i++)
		sum += ev->user[i];
	for (i = 0; i < ev->record->size; i++)
		sum += ((unsigned char *)ev->record->data)[i];
	if (sum == 42)
		r->ts++;
	r->calls++;
	if (r->stop_after && r->calls >= r->stop_after) {
		r->stopped = 1;
		return 1;
	}
	return 0;
}

static void check_stats(struct run *r, int flushed)
{
	struct ustack_join_stats st;

	if (ustack_join_get_stats(r->join, &st))
		abort();
	if (st.pending_cookies > r->max_cookies ||
	    st.pending_events > r->max_events ||
	    st.pending_cookies > st.pending_events)
		abort();
	if (flushed && (st.pending_cookies || st.pending_events))
		abort();
	if (st.delivered != st.complete + st.truncated + st.empty +
	    st.never_arrived + st.no_cookie + st.lost ||
	    st.evicted > st.never_arrived)
		abort();
	if (!r->stopped && st.delivered != r->calls)
		abort();
	if (flushed && r->all_events && st.delivered != r->events_fed)
		abort();
}

static void put(unsigned char *buf, const struct tep_format_field *f,
		unsigned long long v)
{
	if (f && f->offset >= 0 && f->size > 0 && f->size <= 8 &&
	    f->offset + f->size <= REC_MAX)
		memcpy(buf + f->offset, &v, f->size);	/* little-endian */
}

static void put_common(const struct fmt *f, unsigned char *buf, int id,
		       int pid)
{
	uint16_t type = id;
	int32_t p = pid;

	(void)f;
	memcpy(buf, &type, sizeof(type));	/* common_type */
	memcpy(buf + 4, &p, sizeof(p));		/* common_pid */
}

/* Feed one record of len bytes (copied to an exact allocation). */
static void emit(struct run *r, const unsigned char *buf, size_t len,
		 int cpu, int apply_damage)
{
	struct tep_record rec;
	int type;

	if (apply_damage && r->damage && len) {
		if (r->damage == 1)
			((unsigned char *)buf)[r->dpos % len] = r->dval;
		else
			len = r->dpos % len;
		r->damage = 0;
	}
	if (r->stopped)
		return;		/* a source stops feeding */
	memset(&rec, 0, sizeof(rec));
	rec.ts = r->ts++;
	rec.cpu = cpu;
	rec.size = len;
	rec.data = len ? malloc(len) : NULL;
	if (len && !rec.data)
		return;
	if (len)
		memcpy(rec.data, buf, len);
	if (len >= 8) {
		type = tep_data_type(r->f->tep, &rec);
		if ((!r->f->kstack || type != r->f->kstack->id) &&
		    (!r->f->cookie || type != r->f->cookie->id) &&
		    (!r->f->ustack || type != r->f->ustack->id))
			r->events_fed++;
	}
	ustack_join_add_record(r->join, &rec);
	free(rec.data);
	check_stats(r, 0);
}

static size_t build_kstack(const struct fmt *f, unsigned char *buf, int pid,
			   int nr, int lie, unsigned int x)
{
	struct tep_format_field *size_f, *caller;
	size_t len;
	int i;

	size_f = tep_find_field(f->kstack, "size");
	caller = tep_find_field(f->kstack, "caller");
	if (!caller || caller->offset < 0 || caller->offset > 64)
		return 0;
	len = caller->offset + (size_t)nr * 8;
	memset(buf, 0, len);
	put_common(f, buf, f->kstack->id, pid);
	put(buf, size_f, lie ? (x & 1 ? (unsigned long long)-1 : nr + 5) : nr);
	for (i = 0; i < nr; i++)
		memcpy(buf + caller->offset + i * 8, &kpool[(x + i) & 7], 8);
	return len;
}

/*
 * The __data_loc array f, last of the fixed fields, with nr addresses
 * from pool (from index x on) right after it.  Returns the record's size.
 */
static size_t put_array(unsigned char *buf, const struct tep_format_field *f,
			const unsigned long long *pool, unsigned int x, int nr)
{
	unsigned int off = f->offset + f->size;
	int i;

	/* __rel_loc counts from the end of the field */
	put(buf, f, (f->flags & TEP_FIELD_IS_RELATIVE ? 0 : off) |
		    (unsigned long long)(nr * 8) << 16);
	for (i = 0; i < nr; i++)
		memcpy(buf + off + i * 8, &pool[(x + i) & 7], 8);
	return off + (size_t)nr * 8;
}

static const struct tep_format_field *array_field(struct tep_event *event,
						  const char *name)
{
	struct tep_format_field *f = tep_find_field(event, name);

	if (!f || f->offset < 0 || f->offset > 64 || f->size != 4)
		return NULL;
	return f;
}

static size_t build_cookie(const struct fmt *f, unsigned char *buf, int pid,
			   unsigned long long cookie, unsigned int flags,
			   int nk, unsigned int x)
{
	const struct tep_format_field *kernel;

	kernel = array_field(f->cookie, "kernel");
	if (!kernel)
		return 0;
	memset(buf, 0, kernel->offset + kernel->size + (size_t)nk * 8);
	put_common(f, buf, f->cookie->id, pid);
	put(buf, tep_find_field(f->cookie, "cookie"), cookie);
	put(buf, tep_find_field(f->cookie, "flags"), flags);
	return put_array(buf, kernel, kpool, x, nk);
}

static size_t build_ustack(const struct fmt *f, unsigned char *buf, int pid,
			   unsigned long long cookie, int nr, unsigned int t)
{
	static const unsigned int uflags[4] = {
		0, USTACK_STACK_TRUNCATED, USTACK_STACK_LATE,
		USTACK_STACK_TRUNCATED | 0xfc,
	};
	const struct tep_format_field *frames;
	int tgids[4] = { pid, 0, 4 * 1024 * 1024, pid + 1 };
	unsigned int flags = uflags[(t >> 2) & 3];
	unsigned int depth = flags & USTACK_STACK_TRUNCATED ? nr + 5 : nr;

	frames = array_field(f->ustack, "frames");
	if (!frames)
		return 0;
	if (t & 0x80)
		depth = nr ? nr - 1 : 3;	/* a depth that lies */
	memset(buf, 0, frames->offset + frames->size + (size_t)nr * 8);
	put_common(f, buf, f->ustack->id, pid);
	put(buf, tep_find_field(f->ustack, "cookie"), cookie);
	put(buf, tep_find_field(f->ustack, "tgid"), tgids[t & 3]);
	put(buf, tep_find_field(f->ustack, "flags"), flags);
	put(buf, tep_find_field(f->ustack, "depth"), depth);
	return put_array(buf, frames, upool, (t >> 4) & 7, nr);
}

static size_t build_event(const struct fmt *f, unsigned char *buf, int pid,
			  unsigned int arg)
{
	size_t len = 8 + 8 * (arg & 3);

	memset(buf, 0, len);
	put_common(f, buf, f->events[arg % f->nr_events], pid);
	buf[len - 1] = arg;
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char buf[REC_MAX];
	const uint8_t *p = data, *end = data + size;
	size_t max_tasks;
	struct run r;

	if (size < 4)
		return 0;
	memset(&r, 0, sizeof(r));
	r.f = &fmts[p[0] % 4 % nr_fmts];
	r.all_events = !!(p[0] & 4);
	r.stop_after = p[0] >> 3;
	r.max_cookies = p[1] & 0x80 ? USTACK_DEFAULT_MAX_COOKIES : 1 + (p[1] & 15);
	r.max_events = p[2] & 0x80 ? USTACK_DEFAULT_MAX_EVENTS : 1 + (p[2] & 31);
	max_tasks = p[3] & 0x80 ? USTACK_DEFAULT_MAX_TASKS : 1 + (p[3] & 15);
	p += 4;
	r.join = ustack_join_alloc(r.f->tep, cb, &r);
	if (!r.join)
		return 0;
	ustack_join_set_limits(r.join, r.max_cookies, r.max_events, max_tasks);
	if (r.all_events)
		ustack_join_set_flags(r.join, USTACK_JOIN_ALL_EVENTS);

	while (end - p >= 2) {
		unsigned int op = p[0] & 7, arg = p[0] >> 3;
		int cpu = cpus[p[1] & 7], pid = pid_of(p[1] >> 3);
		size_t len = 0, i;

		p += 2;
		switch (op) {
		case 0:		/* EVENT */
			len = build_event(r.f, buf, pid, arg);
			emit(&r, buf, len, cpu, 1);
			break;
		case 1:		/* KSTACK [n] */
			if (p == end)
				break;
			i = (*p & 15) + (*p & 64 ? 120 : 0);
			if (r.f->kstack)
				len = build_kstack(r.f, buf, pid, i, arg & 1,
						   *p >> 4);
			p++;
			if (len)
				emit(&r, buf, len, cpu, 1);
			break;
		case 2:		/* COOKIE */
			if (r.f->cookie)
				len = build_cookie(r.f, buf, pid,
						   cookies[arg & 7],
						   arg & 8 ? USTACK_COOKIE_NO_USER_STACK : 0,
						   arg & 16 ? 3 : 0, arg);
			if (len)
				emit(&r, buf, len, cpu, 1);
			break;
		case 3:		/* USTACK [n][t] */
			if (end - p < 2)
				break;
			i = (p[0] & 63) + (p[0] & 64 ? 120 : 0);
			if (r.f->ustack)
				len = build_ustack(r.f, buf, pid,
						   cookies[arg & 7], i, p[1]);
			p += 2;
			if (len)
				emit(&r, buf, len, cpu, 1);
			break;
		case 4: {	/* RAW [len][bytes] */
			const struct tep_event *as[4] = {
				NULL, r.f->kstack, r.f->cookie, r.f->ustack
			};

			if (p == end)
				break;
			len = *p++;
			if (len > (size_t)(end - p))
				len = end - p;
			memcpy(buf, p, len);
			p += len;
			if (len >= 2 && as[arg & 3]) {
				uint16_t id = as[arg & 3]->id;

				memcpy(buf, &id, 2);
			}
			emit(&r, buf, len, cpu, 0);
			break;
		}
		case 5:		/* DAMAGE [p][v] */
			if (end - p < 2)
				break;
			r.damage = arg & 1 ? 2 : 1;
			r.dpos = p[0];
			r.dval = p[1];
			p += 2;
			break;
		case 6:		/* FLUSH */
			ustack_join_flush(r.join);
			check_stats(&r, 1);
			break;
		case 7:		/* PAIR */
			len = build_event(r.f, buf, pid, arg);
			emit(&r, buf, len, cpu, 1);
			len = 0;
			if (r.f->cookie)
				len = build_cookie(r.f, buf, pid,
						   cookies[arg & 7], 0,
						   arg >> 3, arg);
			if (len)
				emit(&r, buf, len, cpu, 1);
			break;
		}
	}
	ustack_join_flush(r.join);
	check_stats(&r, 1);
	if (debug) {
		struct ustack_join_stats st;

		ustack_join_get_stats(r.join, &st);
		fprintf(stderr, "records %llu delivered %llu: complete %llu truncated %llu empty %llu never %llu (evicted %llu) lost %llu no-cookie %llu late %llu early %llu orphan %llu stray %llu malformed %llu peak %llu/%llu\n",
			st.records, st.delivered, st.complete, st.truncated,
			st.empty, st.never_arrived, st.evicted, st.lost,
			st.no_cookie,
			st.late, st.early_stacks, st.orphan_stacks, st.stray,
			st.malformed, st.peak_cookies, st.peak_events);
	}
	ustack_join_free(r.join);
	return 0;
}

static void load(char *path)
{
	struct fmt *f = &fmts[nr_fmts];
	struct tep_event **all;
	int i;

	f->file = ustack_file_open(path);
	if (!f->file) {
		fprintf(stderr, "fuzz-records: %s: cannot open\n", path);
		return;
	}
	f->tep = ustack_file_tep(f->file);
	f->kstack = tep_find_event_by_name(f->tep, "ftrace", "kernel_stack");
	f->cookie = tep_find_event_by_name(f->tep, USTACK_RECORD_SYSTEM,
					   USTACK_RECORD_COOKIE);
	f->ustack = tep_find_event_by_name(f->tep, USTACK_RECORD_SYSTEM,
					   USTACK_RECORD_STACK);
	all = tep_list_events(f->tep, TEP_EVENT_SORT_ID);
	for (i = 0; all && all[i] && f->nr_events < MAX_EVENTS - 1; i++)
		if (all[i] != f->kstack && all[i] != f->cookie &&
		    all[i] != f->ustack)
			f->events[f->nr_events++] = all[i]->id;
	f->events[f->nr_events++] = 65000;	/* no format has it */
	nr_fmts++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *list = getenv("FUZZ_FORMATS"), *s, *save = NULL;

	(void)argc;
	(void)argv;
	ustack_set_loglevel(TEP_LOG_NONE);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	debug = !!getenv("FUZZ_DEBUG");
	list = list ? strdup(list) : NULL;
	for (s = list ? strtok_r(list, ":", &save) : NULL;
	     s && nr_fmts < MAX_TEPS; s = strtok_r(NULL, ":", &save))
		load(s);
	free(list);
	if (!nr_fmts) {
		fprintf(stderr, "set FUZZ_FORMATS to trace.dat files (colon-separated)\n");
		exit(1);
	}
	fprintf(stderr, "fuzz-records: %d format files\n", nr_fmts);
	return 0;
}
