// SPDX-License-Identifier: LGPL-2.1
/*
 * The requests of a trace, kept for a viewer that shows a stack when the
 * user selects a record, not in the order of the trace (the KernelShark
 * plugin): fed the two records, the join gives each request its status
 * and where its records are; the viewer reads them again when shown
 * (ustack_event_parse()).  ustack_index(3).
 */
#include <errno.h>
#include <stdlib.h>

#include "ustack-local.h"

struct ustack_index {
	struct ustack_join	*join;
	struct ustack_request	*reqs;
	size_t			nr, alloc;
	unsigned long long	damaged;
};

static int keep(const struct ustack_event *ev, void *data)
{
	struct ustack_index *index = data;
	struct ustack_request *q;
	size_t n;

	if (ev->status == USTACK_NO_COOKIE || !ev->cookie_offset)
		return 0;
	if (index->nr == index->alloc) {
		n = index->alloc * 2 + 64;
		q = realloc(index->reqs, n * sizeof(*q));
		if (!q)
			return 1;	/* stop the feeder: ENOMEM */
		index->reqs = q;
		index->alloc = n;
	}
	index->reqs[index->nr++] = (struct ustack_request){
		.ts = ev->ts, .cpu = ev->cpu, .pid = ev->pid,
		.tgid = ev->tgid >= 0 ? ev->tgid : ev->pid,
		.status = ev->status, .flags = ev->flags,
		.unwinder = ev->unwinder, .cookie_offset = ev->cookie_offset,
		.stack_offset = ev->stack_offset,
	};
	return 0;
}

/**
 * ustack_index_alloc - keep the requests of a trace
 * @tep: the trace's event formats
 *
 * The records given to ustack_index_add_record() go to a join
 * (ustack_join(3)) with USTACK_JOIN_UNSEEN_EVENTS: a host that gives it
 * only the two records of deferred stacks gets each request, its cookie
 * record standing for its event (ustack_record_find_event() finds the
 * event among the host's entries).
 *
 * Returns the index, or NULL with errno set: EINVAL, ENOMEM, or as
 * ustack_join_alloc() (ENOENT: @tep has not the records' formats;
 * ENOTSUP: the pre-release ones).
 */
struct ustack_index *ustack_index_alloc(struct tep_handle *tep)
{
	struct ustack_index *index = calloc(1, sizeof(*index));

	if (!index)
		return NULL;
	index->join = ustack_join_alloc(tep, keep, index);
	if (!index->join ||
	    ustack_join_set_flags(index->join, USTACK_JOIN_UNSEEN_EVENTS)) {
		ustack_index_free(index);
		return NULL;
	}
	return index;
}

/**
 * ustack_index_free - free an index and its requests
 * @index: the index, or NULL
 */
void ustack_index_free(struct ustack_index *index)
{
	if (!index)
		return;
	ustack_join_free(index->join);
	free(index->reqs);
	free(index);
}

/**
 * ustack_index_add_record - give an index the next record
 * @index: the index
 * @record: the record in the trace's order (libtracecmd's merge of the
 *	    CPUs), with its offset; NULL for one the host could not read
 *
 * Through ustack_feed_record(): a record outside its page, or one the
 * host could not read, counts as damage (ustack_index_damaged()).
 *
 * Returns 0, or -1 with errno set: EBADMSG (or EINVAL for a NULL
 * record) for damage, after which the host goes on; ENOMEM, after which
 * it stops (the requests kept so far stay).
 */
int ustack_index_add_record(struct ustack_index *index,
			    struct tep_record *record)
{
	int r;

	if (!index) {
		errno = EINVAL;
		return -1;
	}
	r = record ? ustack_feed_record(index->join, NULL, NULL, record) : -1;
	if (r > 0)
		errno = ENOMEM;
	else if (r < 0 && (!record || errno != ENOMEM))
		index->damaged++;
	if (r < 0 && !record)
		errno = EINVAL;
	return r ? -1 : 0;
}

/**
 * ustack_index_flush - the end of the trace
 * @index: the index
 *
 * The requests whose user stacks never came get their status.
 *
 * Returns 0, or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_index_flush(struct ustack_index *index)
{
	if (!index) {
		errno = EINVAL;
		return -1;
	}
	return ustack_join_flush(index->join);
}

/**
 * ustack_index_requests - the requests kept
 * @index: the index
 * @nr: set to their number
 *
 * In the order the join gave them (a request when its user stack came,
 * or was known never to come).  Valid until the next call on @index.
 *
 * Returns the array (NULL when empty), or NULL with errno EINVAL.
 */
const struct ustack_request *ustack_index_requests(struct ustack_index *index,
						   size_t *nr)
{
	if (!index || !nr) {
		if (nr)
			*nr = 0;
		errno = EINVAL;
		return NULL;
	}
	*nr = index->nr;
	return index->reqs;
}

/**
 * ustack_index_damaged - how many records could not be read
 * @index: the index
 *
 * The records given that lay outside their page or that the host could
 * not read, and those at odds with their format (the join's malformed).
 *
 * Returns their number, or -1 with errno EINVAL.
 */
long long ustack_index_damaged(struct ustack_index *index)
{
	struct ustack_join_stats st;

	if (!index) {
		errno = EINVAL;
		return -1;
	}
	if (ustack_join_get_stats(index->join, &st))
		return -1;
	return index->damaged + st.malformed;
}
