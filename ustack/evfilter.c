// SPDX-License-Identifier: GPL-2.0
/*
 * ustack's choice of the events it shows, after the join (an event that
 * is not shown still had its stacks joined, so hiding one never loses
 * another's user stack):
 *
 *   -F FILTER    libtraceevent's filter syntax, as trace-cmd report -F;
 *                repeatable, an event is shown when one of them matches
 *   --pid LIST   the thread ids (common_pid), comma-separated
 *   --comm LIST  the task names, comma-separated
 *   --time S,E   the event's time stamp within [S, E], in seconds as the
 *                event line prints them; either side may be left out
 *
 * The kinds combine with "and".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evfilter.h"

/* the -F filters built against one tep (buffer instances may differ) */
struct tep_filters {
	struct tep_handle	*tep;
	struct tep_event_filter	**filters;	/* one per -F */
};

struct evfilter {
	char			**strs;		/* -F */
	int			nr_strs;
	struct tep_filters	*teps;
	int			nr_teps;
	int			*pids;		/* --pid */
	int			nr_pids;
	char			**comms;	/* --comm */
	int			nr_comms;
	bool			has_start;	/* --time */
	bool			has_end;
	unsigned long long	start;
	unsigned long long	end;
};

struct evfilter *evfilter_alloc(void)
{
	return calloc(1, sizeof(struct evfilter));
}

static void free_filters(struct evfilter *f, struct tep_filters *t)
{
	int i;

	for (i = 0; t->filters && i < f->nr_strs; i++)
		if (t->filters[i])
			tep_filter_free(t->filters[i]);
	free(t->filters);
}

void evfilter_free(struct evfilter *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->nr_teps; i++)
		free_filters(f, &f->teps[i]);
	free(f->teps);
	for (i = 0; i < f->nr_strs; i++)
		free(f->strs[i]);
	free(f->strs);
	for (i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	free(f->comms);
	free(f->pids);
	free(f);
}

static int nomem(void)
{
	fprintf(stderr, "ustack: %s\n", strerror(ENOMEM));
	return -1;
}

/* Appends a copy of s to *arr */
static int push_str(char ***arr, int *nr, const char *s, size_t len)
{
	char **a = realloc(*arr, (*nr + 1) * sizeof(*a));

	if (!a)
		return nomem();
	*arr = a;
	a[*nr] = strndup(s, len);
	if (!a[*nr])
		return nomem();
	(*nr)++;
	return 0;
}

int evfilter_add_filter(struct evfilter *f, const char *str)
{
	if (f->nr_teps) {
		/* filters are added before any is built */
		errno = EBUSY;
		return -1;
	}
	return push_str(&f->strs, &f->nr_strs, str, strlen(str));
}

int evfilter_add_pids(struct evfilter *f, const char *list)
{
	const char *p = list;
	char *end;
	long pid;
	int *a;

	do {
		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || pid < 0 || pid > 0x7fffffff ||
		    (*end && *end != ',')) {
			fprintf(stderr, "ustack: bad --pid '%s' (PID[,PID...])\n",
				list);
			return -1;
		}
		a = realloc(f->pids, (f->nr_pids + 1) * sizeof(*a));
		if (!a)
			return nomem();
		f->pids = a;
		f->pids[f->nr_pids++] = pid;
		p = end + 1;
	} while (*end);
	return 0;
}

int evfilter_add_comms(struct evfilter *f, const char *list)
{
	const char *p = list, *e;

	do {
		e = strchrnul(p, ',');
		if (e == p) {
			fprintf(stderr, "ustack: bad --comm '%s' (COMM[,COMM...])\n",
				list);
			return -1;
		}
		if (push_str(&f->comms, &f->nr_comms, p, e - p))
			return -1;
		p = e + 1;
	} while (*e);
	return 0;
}

/*
 * Seconds as the event line prints them, "S", "S.F" (at most 9 digits
 * after the point), into nanoseconds, exactly.  Returns the end of what
 * was read, or NULL.
 */
static const char *parse_secs(const char *s, unsigned long long *ns)
{
	unsigned long long sec = 0, frac = 0;
	int digits = 0, n = 0;

	for (; *s >= '0' && *s <= '9'; s++, n++) {
		if (sec > 1000000000000ULL)	/* 31,700 years */
			return NULL;
		sec = sec * 10 + (*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (digits == 9)
				return NULL;
			frac = frac * 10 + (*s - '0');
		}
	}
	if (!n && !digits)
		return NULL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return s;
}

int evfilter_set_time(struct evfilter *f, const char *range)
{
	const char *p = range, *comma = strchr(range, ',');

	if (!comma)
		goto bad;
	f->has_start = comma != range;
	if (f->has_start && parse_secs(p, &f->start) != comma)
		goto bad;
	p = comma + 1;
	f->has_end = *p;
	if (f->has_end) {
		p = parse_secs(p, &f->end);
		if (!p || *p)
			goto bad;
	}
	if (f->has_start && f->has_end && f->start > f->end)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "ustack: bad --time '%s' (START,END in seconds, as the event lines print them; one side may be empty)\n",
		range);
	return -1;
}

bool evfilter_empty(const struct evfilter *f)
{
	return !f->nr_strs && !f->nr_pids && !f->nr_comms && !f->has_start &&
	       !f->has_end;
}

/* The -F filters built against tep, or NULL after saying why */
static struct tep_filters *build(struct evfilter *f, struct tep_handle *tep)
{
	struct tep_filters *t, n = { .tep = tep };
	enum tep_errno err;
	char msg[256], *e;
	int i;

	for (i = 0; i < f->nr_teps; i++)
		if (f->teps[i].tep == tep)
			return &f->teps[i];
	n.filters = calloc(f->nr_strs, sizeof(*n.filters));
	if (!n.filters)
		goto nomem;
	for (i = 0; i < f->nr_strs; i++) {
		n.filters[i] = tep_filter_alloc(tep);
		if (!n.filters[i])
			goto nomem;
		err = tep_filter_add_filter_str(n.filters[i], f->strs[i]);
		if (err < 0) {
			if (tep_filter_strerror(n.filters[i], err, msg,
						sizeof(msg)) < 0)
				snprintf(msg, sizeof(msg), "cannot parse it");
			/* libtraceevent points at the error under the
			 * filter, over lines: its last line says what */
			while ((e = strrchr(msg, '\n')) && !e[1])
				*e = '\0';
			e = strrchr(msg, '\n');
			/* ustack -F trace.dat: -F meant --folded until 1.7 */
			fprintf(stderr, "ustack: -F '%s': %s%s\n", f->strs[i],
				e ? e + 1 : msg,
				access(f->strs[i], F_OK) ? "" :
				" (-F is an event filter, as in trace-cmd report; folded stacks are --folded)");
			goto fail;
		}
	}
	t = realloc(f->teps, (f->nr_teps + 1) * sizeof(*t));
	if (!t)
		goto nomem;
	f->teps = t;
	f->teps[f->nr_teps] = n;
	return &f->teps[f->nr_teps++];
nomem:
	nomem();
fail:
	free_filters(f, &n);
	return NULL;
}

int evfilter_prepare(struct evfilter *f, struct tep_handle *tep, bool quiet)
{
	int i;

	if (f->nr_strs && (!tep || !build(f, tep)))
		return -1;
	for (i = 0; tep && !quiet && i < f->nr_comms; i++)
		if (!tep_data_pid_from_comm(tep, f->comms[i], NULL))
			fprintf(stderr, "ustack: warning: --comm %s: no task of that name in the trace's saved comms\n",
				f->comms[i]);
	return 0;
}

static bool match_task(struct evfilter *f, const struct ustack_event *ev)
{
	const char *comm;
	int i;

	if (!f->nr_pids && !f->nr_comms)
		return true;
	for (i = 0; i < f->nr_pids; i++)
		if (ev->pid == f->pids[i])
			return true;
	if (!f->nr_comms || !ev->tep)
		return false;
	comm = tep_data_comm_from_pid(ev->tep, ev->pid);
	for (i = 0; comm && i < f->nr_comms; i++)
		if (!strcmp(comm, f->comms[i]))
			return true;
	return false;
}

int evfilter_match(struct evfilter *f, const struct ustack_event *ev)
{
	struct tep_filters *t;
	enum tep_errno r;
	int i;

	if ((f->has_start && ev->ts < f->start) ||
	    (f->has_end && ev->ts > f->end))
		return 0;
	if (!match_task(f, ev))
		return 0;
	if (!f->nr_strs)
		return 1;
	if (!ev->tep || !ev->record)
		return 0;
	t = build(f, ev->tep);
	if (!t)
		return -1;
	/* as trace-cmd report: shown when one -F matches */
	for (i = 0; i < f->nr_strs; i++) {
		r = tep_filter_match(t->filters[i], ev->record);
		if (r == TEP_ERRNO__FILTER_MATCH || r == TEP_ERRNO__NO_FILTER)
			return 1;
	}
	return 0;
}
