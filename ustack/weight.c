// SPDX-License-Identifier: GPL-2.0
/*
 * ustack --weight=latency: an event is weighed by the time from it to
 * its pair in the same task: syscalls:sys_enter_X to the task's next
 * sys_exit_X (raw_syscalls:sys_enter to sys_exit), and sched:sched_switch
 * out of a task (prev_pid) to the next that switches it back in
 * (next_pid): off-CPU time.  An exit event has the weight of its pair
 * too.
 *
 * The join delivers events when their user stack has come, so not in
 * time order: an exit without a stack may come before the enter that
 * waits for its own.  Each (task, kind) keeps its starts and ends sorted
 * by time, and pairs them only once WINDOW more have come after them (or
 * at the end): a start with the end that follows it, when no other start
 * lies between.  Memory is per task and kind, not per event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weight.h"

#define WINDOW		64

enum kind_type { K_UNKNOWN = 0, K_NONE, K_START, K_END, K_SWITCH };

struct event_kind {
	enum kind_type		type;
	int			kind;		/* index in kinds[] */
	struct tep_format_field	*next_pid;	/* sched_switch */
	struct tep_format_field	*prev_pid;
};

struct item {
	unsigned long long	ts;
	bool			start;
	char			*key;		/* NULL: not shown */
};

struct list {
	int			tid;
	int			kind;
	struct item		*items;		/* sorted by ts */
	int			nr, alloc;
};

struct weights {
	weight_apply		apply;
	void			*data;
	struct event_kind	*ev;		/* by event id */
	int			nr_ev;
	char			**kinds;
	int			nr_kinds;
	struct list		*lists;		/* open addressing */
	size_t			size, used;
	struct weights_stats	st;
};

struct weights *weights_alloc(weight_apply apply, void *data)
{
	struct weights *w = calloc(1, sizeof(*w));

	if (w) {
		w->apply = apply;
		w->data = data;
	}
	return w;
}

void weights_free(struct weights *w)
{
	size_t i;
	int j;

	if (!w)
		return;
	for (i = 0; i < w->size; i++) {
		for (j = 0; j < w->lists[i].nr; j++)
			free(w->lists[i].items[j].key);
		free(w->lists[i].items);
	}
	for (j = 0; j < w->nr_kinds; j++)
		free(w->kinds[j]);
	free(w->kinds);
	free(w->lists);
	free(w->ev);
	free(w);
}

static int kind_id(struct weights *w, const char *name)
{
	char **k;
	int i;

	for (i = 0; i < w->nr_kinds; i++)
		if (!strcmp(w->kinds[i], name))
			return i;
	k = realloc(w->kinds, (w->nr_kinds + 1) * sizeof(*k));
	if (!k)
		return -1;
	w->kinds = k;
	k[w->nr_kinds] = strdup(name);
	if (!k[w->nr_kinds])
		return -1;
	return w->nr_kinds++;
}

/* what an event is, worked out once per event format */
static struct event_kind *classify(struct weights *w, struct tep_event *e)
{
	struct event_kind *k;
	const char *n = e->name;

	if (e->id < 0)
		return NULL;
	if (e->id >= w->nr_ev) {
		int nr = e->id + 64;

		k = realloc(w->ev, nr * sizeof(*k));
		if (!k)
			return NULL;
		memset(k + w->nr_ev, 0, (nr - w->nr_ev) * sizeof(*k));
		w->ev = k;
		w->nr_ev = nr;
	}
	k = &w->ev[e->id];
	if (k->type != K_UNKNOWN)
		return k;
	k->type = K_NONE;
	if (!strcmp(e->system, "syscalls") && !strncmp(n, "sys_enter_", 10)) {
		k->type = K_START;
		k->kind = kind_id(w, n + 10);
	} else if (!strcmp(e->system, "syscalls") && !strncmp(n, "sys_exit_", 9)) {
		k->type = K_END;
		k->kind = kind_id(w, n + 9);
	} else if (!strcmp(e->system, "raw_syscalls") &&
		   (!strcmp(n, "sys_enter") || !strcmp(n, "sys_exit"))) {
		k->type = n[4] == 'e' && n[5] == 'n' ? K_START : K_END;
		k->kind = kind_id(w, "[raw_syscalls]");
	} else if (!strcmp(e->system, "sched") && !strcmp(n, "sched_switch")) {
		k->next_pid = tep_find_field(e, "next_pid");
		k->prev_pid = tep_find_field(e, "prev_pid");
		if (k->next_pid && k->prev_pid) {
			k->type = K_SWITCH;
			k->kind = kind_id(w, "[off-cpu]");
		}
	}
	if (k->kind < 0) {
		k->type = K_UNKNOWN;	/* ENOMEM: try again */
		return NULL;
	}
	return k;
}

static unsigned long list_hash(int tid, int kind)
{
	return (unsigned long)tid * 2654435761UL ^ (unsigned long)kind * 40503UL;
}

static struct list *list_get(struct weights *w, int tid, int kind)
{
	size_t i;

	if ((w->used + 1) * 2 > w->size) {
		size_t n = w->size ? w->size * 2 : 256, j;
		struct list *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;
		for (j = 0; j < w->size; j++) {
			if (!w->lists[j].alloc)
				continue;
			i = list_hash(w->lists[j].tid, w->lists[j].kind) & (n - 1);
			while (t[i].alloc)
				i = (i + 1) & (n - 1);
			t[i] = w->lists[j];
		}
		free(w->lists);
		w->lists = t;
		w->size = n;
	}
	i = list_hash(tid, kind) & (w->size - 1);
	while (w->lists[i].alloc) {
		if (w->lists[i].tid == tid && w->lists[i].kind == kind)
			return &w->lists[i];
		i = (i + 1) & (w->size - 1);
	}
	w->lists[i].items = calloc(4, sizeof(struct item));
	if (!w->lists[i].items)
		return NULL;
	w->lists[i].alloc = 4;
	w->lists[i].tid = tid;
	w->lists[i].kind = kind;
	w->used++;
	return &w->lists[i];
}

static int give(struct weights *w, struct item *it, unsigned long long weight)
{
	int r = 0;

	if (it->key) {
		w->st.paired++;
		r = w->apply(w->data, it->key, weight);
		free(it->key);
		it->key = NULL;
	}
	return r;
}

static void drop(struct weights *w, struct item *it)
{
	if (it->key) {
		w->st.unpaired++;
		free(it->key);
		it->key = NULL;
	}
}

/* pairs the oldest items while more than @keep are left */
static int settle(struct weights *w, struct list *l, int keep)
{
	int n = 0, r = 0;

	while (l->nr - n > keep && !r) {
		struct item *a = &l->items[n];

		if (a->start && n + 1 < l->nr && !l->items[n + 1].start) {
			struct item *b = &l->items[n + 1];

			r = give(w, a, b->ts - a->ts);
			if (!r)
				r = give(w, b, b->ts - a->ts);
			n += 2;
		} else {
			drop(w, a);
			n++;
		}
	}
	memmove(l->items, l->items + n, (l->nr - n) * sizeof(*l->items));
	l->nr -= n;
	return r;
}

static int add(struct weights *w, int tid, int kind, unsigned long long ts,
	       bool start, const char *key)
{
	struct list *l;
	char *copy = NULL;
	int i;

	if (tid <= 0)		/* the idle task, or none */
		return 0;
	l = list_get(w, tid, kind);
	if (!l)
		return -1;
	if (l->nr == l->alloc) {
		struct item *p = realloc(l->items, 2 * l->alloc * sizeof(*p));

		if (!p)
			return -1;
		l->items = p;
		l->alloc *= 2;
	}
	if (key) {
		copy = strdup(key);
		if (!copy)
			return -1;
	}
	/* in time order; mostly at the end */
	for (i = l->nr; i > 0 && l->items[i - 1].ts > ts; i--)
		;
	memmove(l->items + i + 1, l->items + i, (l->nr - i) * sizeof(*l->items));
	l->items[i] = (struct item){ ts, start, copy };
	l->nr++;
	return l->nr > WINDOW ? settle(w, l, WINDOW) : 0;
}

int weights_observe(struct weights *w, const struct ustack_event *ev,
		    const char *key)
{
	struct event_kind *k;
	unsigned long long v;
	int r;

	if (!ev->event || !ev->record || (ev->flags & USTACK_EV_UNSEEN)) {
		if (key)
			w->st.no_kind++;
		return 0;
	}
	k = classify(w, ev->event);
	if (!k) {
		errno = ENOMEM;
		return -1;
	}
	switch (k->type) {
	case K_START:
	case K_END:
		return add(w, ev->pid, k->kind, ev->ts, k->type == K_START, key);
	case K_SWITCH:
		/* out: the task that leaves (its stack, if any); in: the next */
		if (tep_read_number_field(k->prev_pid, ev->record->data, &v))
			break;
		r = add(w, (int)v, k->kind, ev->ts, true, key);
		if (r || tep_read_number_field(k->next_pid, ev->record->data, &v))
			return r;
		return add(w, (int)v, k->kind, ev->ts, false, NULL);
	default:
		break;
	}
	if (key)
		w->st.no_kind++;
	return 0;
}

int weights_flush(struct weights *w)
{
	size_t i;
	int r = 0;

	for (i = 0; i < w->size && !r; i++)
		if (w->lists[i].alloc)
			r = settle(w, &w->lists[i], 0);
	return r;
}

void weights_get_stats(struct weights *w, struct weights_stats *st)
{
	*st = w->st;
}
