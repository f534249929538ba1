// SPDX-License-Identifier: LGPL-2.1
/*
 * Source: a live tracefs instance, read (and consumed) with libtracefs'
 * tracefs_iterate_raw_events(), which merges what the CPUs have in time
 * order.  Records of different reads may be out of order across CPUs; the
 * join matches by (task, cookie) and keeps a user stack that comes before
 * its cookie, so that is fine.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ustack-local.h"

struct ustack_live {
	struct tracefs_instance	*instance;
	struct tep_handle	*tep;
	struct ustack_join	*join;
	volatile sig_atomic_t	stop;
	unsigned long long	nr_read;
	int			ret;
};

/**
 * ustack_live_open - join the events of a tracefs instance as they come
 * @instance: the instance, NULL for the top one
 * @cb: called with each event and its stacks
 * @data: passed to @cb
 *
 * Reads the event formats of the running kernel and makes a join for
 * @instance's buffers; ustack_live_read() or ustack_live_run() read them.
 * Turning on the trigger or option, the events and tracing is the
 * caller's (ustack_control(3)).
 *
 * Returns the source (ustack_live_close() frees it), or NULL with errno
 * set: EINVAL for a NULL @cb, ENODEV without tracefs or its formats,
 * ENOTSUP on a kernel of the pre-release series, ENOMEM.
 */
struct ustack_live *ustack_live_open(struct tracefs_instance *instance,
				     ustack_join_cb cb, void *data)
{
	struct ustack_live *live;
	int err;

	if (!cb) {
		errno = EINVAL;
		return NULL;
	}
	if (!tracefs_tracing_dir()) {
		ustack_err("tracefs is not mounted");
		errno = ENODEV;
		return NULL;
	}
	live = calloc(1, sizeof(*live));
	if (!live)
		return NULL;
	live->instance = instance;
	live->tep = tracefs_local_events(NULL);
	if (!live->tep) {
		ustack_err("cannot read the event formats from tracefs");
		errno = ENODEV;
		goto fail;
	}
	live->join = ustack_join_alloc(live->tep, cb, data);
	if (!live->join)
		goto fail;
	ustack_join_set_instance(live->join,
				 instance ? tracefs_instance_get_name(instance) :
				 "");
	return live;
fail:
	err = errno;
	ustack_live_close(live);
	errno = err;
	return NULL;
}

/**
 * ustack_live_close - free a live source
 * @live: the source, or NULL
 *
 * Events the join still holds are dropped: ustack_live_flush() first
 * delivers them.
 */
void ustack_live_close(struct ustack_live *live)
{
	if (!live)
		return;
	ustack_join_free(live->join);
	tep_free(live->tep);
	free(live);
}

/**
 * ustack_live_tep - the event formats of a live source
 * @live: the source
 *
 * Returns the tep_handle read from tracefs (the source keeps it), or NULL
 * with errno EINVAL.
 */
struct tep_handle *ustack_live_tep(struct ustack_live *live)
{
	if (!live) {
		errno = EINVAL;
		return NULL;
	}
	return live->tep;
}

/**
 * ustack_live_join - the join of a live source
 * @live: the source
 *
 * For its limits, flags and counts (ustack_join_set_limits(),
 * ustack_join_set_flags(), ustack_join_get_stats()).
 *
 * Returns the join (the source keeps it), or NULL with errno EINVAL.
 */
struct ustack_join *ustack_live_join(struct ustack_live *live)
{
	if (!live) {
		errno = EINVAL;
		return NULL;
	}
	return live->join;
}

static int live_cb(struct tep_event *event, struct tep_record *record,
		   int cpu, void *data)
{
	struct ustack_live *live = data;
	int ret;

	(void)event;
	record->cpu = cpu;
	live->nr_read++;
	ret = ustack_feed_record(live->join, NULL, NULL, record);
	if (ret < 0 && errno == EBADMSG)
		return live->stop ? 1 : 0;	/* not read: go on */
	if (ret) {
		live->ret = ret;
		return 1;
	}
	return live->stop ? 1 : 0;
}

/**
 * ustack_live_read - feed what the instance's buffers hold now
 * @live: the source
 *
 * Reads the records in the buffers of every CPU, without waiting, into the
 * join.
 *
 * Returns 0 when it read records, -2 when there were none, the non-zero
 * value of a callback that stopped, or -1 with errno set (EINVAL for a
 * NULL @live, or what reading the buffers gave).
 */
int ustack_live_read(struct ustack_live *live)
{
	unsigned long long before;
	int ret;

	if (!live) {
		errno = EINVAL;
		return -1;
	}
	before = live->nr_read;
	live->ret = 0;
	ret = tracefs_iterate_raw_events(live->tep, live->instance, NULL, 0,
					 live_cb, live);
	if (live->ret)
		return live->ret < 0 ? -1 : live->ret;
	if (ret < 0 && !live->stop) {
		ustack_err("cannot read the trace buffers");
		return -1;
	}
	return live->nr_read != before ? 0 : -2;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/**
 * ustack_live_run - read an instance's buffers for a while
 * @live: the source
 * @duration_ms: how long, in milliseconds; 0 or less: until
 *	      ustack_live_stop() or a callback stops it
 *
 * Reads the buffers again and again (ustack_live_read()), sleeping while
 * they are empty.
 *
 * Returns 0, the non-zero value of a callback that stopped, or -1 with
 * errno set.
 */
int ustack_live_run(struct ustack_live *live, int duration_ms)
{
	long long end;
	int ret;

	if (!live) {
		errno = EINVAL;
		return -1;
	}
	end = now_ms() + duration_ms;
	while (!live->stop) {
		ret = ustack_live_read(live);
		if (ret == -1 || ret > 0)
			return ret;
		if (duration_ms > 0 && now_ms() >= end)
			break;
		if (ret == -2)
			usleep(100000);	/* nothing there: wait a bit */
	}
	/* what was written before the stop */
	live->stop = 0;
	ret = ustack_live_read(live);
	return ret == -1 || ret > 0 ? ret : 0;
}

/**
 * ustack_live_stop - make ustack_live_run() return
 * @live: the source, or NULL
 *
 * Safe to call from a signal handler.
 */
void ustack_live_stop(struct ustack_live *live)
{
	if (!live)
		return;
	live->stop = 1;
	tracefs_iterate_stop(live->instance);
}

/**
 * ustack_live_flush - deliver what a live source's join still holds
 * @live: the source
 *
 * As ustack_join_flush(): events whose user stack has not come are
 * delivered as USTACK_NEVER_ARRIVED (a task that has not returned to user
 * space yet, for one).
 *
 * Returns 0, the non-zero value of a callback that stopped, or -1 with
 * errno EINVAL.
 */
int ustack_live_flush(struct ustack_live *live)
{
	if (!live) {
		errno = EINVAL;
		return -1;
	}
	return ustack_join_flush(live->join);
}
