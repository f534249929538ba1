// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user space stack traces for trace instances
 *
 * One unwind_deferred client serves all of tracing.  An instance that
 * wants user stacks (a stacktrace:defer trigger, or the
 * userstacktrace_defer option) is given a slot.  When one of its events
 * asks, the request records the deferred unwind cookie in the instance's
 * buffer and marks the slot in the task's struct trace_unwind_task.  The
 * deferred callback runs in task context right before the task returns to
 * user space and writes the user stack into every instance marked for
 * that kernel entry, once per instance.
 *
 * A single client, instead of one per instance, keeps the number of
 * instances independent of the few free bits of the unwind mask.
 */
#include <linux/unwind_deferred.h>
#include <linux/ring_buffer.h>
#include <linux/sched/signal.h>
#include <linux/rcupdate.h>
#include <linux/bitmap.h>
#include <linux/mutex.h>
#include <linux/sched.h>

#include "trace.h"

#define CREATE_TRACE_POINTS
#include <trace/events/unwind.h>

/*
 * Most frames one user_stack_deferred event carries.  Below the size of the
 * per-task unwind cache, so a stack the unwinder had to cut is always
 * marked as truncated here too.
 */
#define TRACE_UNWIND_MAX_FRAMES		256

/* Never a cookie: the per-task record is being reset for a new entry */
#define TRACE_UNWIND_RESETTING		U64_MAX

static struct unwind_work trace_unwind_work;
static bool trace_unwind_ready __read_mostly;

/*
 * Instances by slot.  A slot is taken the first time an instance asks for
 * deferred user stacks and kept until the instance is removed, so that
 * stacks still pending when a trigger or the option goes are delivered.
 */
static struct trace_array __rcu *trace_unwind_slots[TRACE_UNWIND_MAX_INSTANCES];
static DEFINE_MUTEX(trace_unwind_mutex);

/**
 * trace_unwind_user_enable - let an instance ask for deferred user stacks
 * @tr: the trace instance
 *
 * Called in process context before a stacktrace:defer trigger or the
 * userstacktrace_defer option takes effect in @tr.
 *
 * Return: 0 on success, -ENODEV when deferred unwinding is not available,
 * -ENOSPC when every slot is taken.
 */
int trace_unwind_user_enable(struct trace_array *tr)
{
	unsigned int slot;

	if (!trace_unwind_ready)
		return -ENODEV;

	guard(mutex)(&trace_unwind_mutex);

	if (tr->unwind_slot)
		return 0;

	for (slot = 0; slot < TRACE_UNWIND_MAX_INSTANCES; slot++) {
		if (!rcu_access_pointer(trace_unwind_slots[slot]))
			break;
	}
	if (slot == TRACE_UNWIND_MAX_INSTANCES)
		return -ENOSPC;

	rcu_assign_pointer(trace_unwind_slots[slot], tr);
	/*
	 * Pairs with the acquire in trace_unwind_user_request(): a request
	 * that finds the slot number also finds the slot filled, and so
	 * does the callback that the request leads to.
	 */
	smp_store_release(&tr->unwind_slot, slot + 1);
	return 0;
}

/**
 * trace_unwind_task_init - start the record of a new task empty
 * @task: the task being created
 *
 * Called from copy_process(): the record copied from the parent
 * describes the parent's requests, none of which the child made.
 */
void trace_unwind_task_init(struct task_struct *task)
{
	memset(&task->trace_unwind, 0, sizeof(task->trace_unwind));
}

/* Drop every trace of @slot from a task's record */
static void trace_unwind_task_forget(struct trace_unwind_task *rec,
				     unsigned int slot)
{
	unsigned int i, val;

	clear_bit(slot, rec->asked);
	clear_bit(slot, rec->served);
	for (i = 0; i < TRACE_UNWIND_NMI_SLOTS; i++) {
		val = slot + 1;
		try_cmpxchg(&rec->nmi_slots[i], &val, 0);
	}
}

/**
 * trace_unwind_user_remove - release the slot of an instance being removed
 * @tr: the trace instance
 *
 * Called after the events of @tr are disabled, so no new request for @tr
 * can come, and before its buffers are freed.  Waits for callbacks that
 * may still write to @tr, then clears the slot in every task, so that an
 * instance given the slot later does not inherit pending requests.
 */
void trace_unwind_user_remove(struct trace_array *tr)
{
	struct task_struct *g, *t;
	unsigned int slot;

	guard(mutex)(&trace_unwind_mutex);

	slot = tr->unwind_slot;
	if (!slot)
		return;
	slot--;

	RCU_INIT_POINTER(trace_unwind_slots[slot], NULL);
	WRITE_ONCE(tr->unwind_slot, 0);
	synchronize_rcu();

	scoped_guard(rcu) {
		for_each_process_thread(g, t)
			trace_unwind_task_forget(&t->trace_unwind, slot);
	}

	/*
	 * A callback that read one of the bits just cleared may not have
	 * looked up the slot yet.  Until it is done, the slot must not be
	 * given to another instance, which would then get the stack of a
	 * request it never made: wait for it, with trace_unwind_mutex held.
	 */
	synchronize_rcu();
}

/*
 * Make the task's record describe the kernel entry of @cookie, forgetting
 * the previous entry.  Runs with interrupts disabled, so only an NMI can
 * find the record half reset; it then returns false and the NMI queues its
 * slot in nmi_slots, which the resetting context drains.
 */
static bool trace_unwind_claim(struct trace_unwind_task *rec, u64 cookie)
{
	u64 old = READ_ONCE(rec->cookie);

	do {
		if (old == cookie)
			return true;
		if (old == TRACE_UNWIND_RESETTING)
			return false;
	} while (!try_cmpxchg64(&rec->cookie, &old, TRACE_UNWIND_RESETTING));

	bitmap_zero(rec->asked, TRACE_UNWIND_MAX_INSTANCES);
	bitmap_zero(rec->served, TRACE_UNWIND_MAX_INSTANCES);
	WRITE_ONCE(rec->delivered, 0);
	barrier();
	WRITE_ONCE(rec->cookie, cookie);
	return true;
}

/* Move the slots NMIs queued during a reset into the asked bitmap */
static void trace_unwind_drain_nmi(struct trace_unwind_task *rec)
{
	unsigned int i, val;

	for (i = 0; i < TRACE_UNWIND_NMI_SLOTS; i++) {
		val = READ_ONCE(rec->nmi_slots[i]);
		if (val && try_cmpxchg(&rec->nmi_slots[i], &val, 0))
			set_bit(val - 1, rec->asked);
	}
}

static bool trace_unwind_queue_nmi(struct trace_unwind_task *rec,
				   unsigned int slot)
{
	unsigned int i, val;

	for (i = 0; i < TRACE_UNWIND_NMI_SLOTS; i++) {
		val = 0;
		if (try_cmpxchg(&rec->nmi_slots[i], &val, slot + 1))
			return true;
		if (val == slot + 1)
			return true;
	}
	return false;
}

static void trace_unwind_write_cookie(struct trace_buffer *buffer, u64 cookie,
				      unsigned int trace_ctx)
{
	struct trace_event_raw_user_stack_cookie *entry;
	struct ring_buffer_event *event;

	event = trace_buffer_lock_reserve(buffer,
					  event_user_stack_cookie.event.type,
					  sizeof(*entry), trace_ctx);
	if (!event)
		return;

	entry = ring_buffer_event_data(event);
	entry->cookie = cookie;
	__buffer_unlock_commit(buffer, event);
}

/* Returns false when @tr cannot record now: nothing was written */
static bool trace_unwind_write_stack(struct trace_array *tr,
				     const unsigned long *frames,
				     unsigned int nr, u64 cookie,
				     unsigned int trace_ctx)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct trace_event_raw_user_stack_deferred *entry;
	unsigned int max, size, offset;
	struct ring_buffer_event *event;
	bool truncated = false;

	/* Where the frames go, as the event's format file says */
	offset = offsetof(typeof(*entry), __data);

	/* The event must fit in one sub-buffer of this instance */
	max = (ring_buffer_max_event_size(buffer) - offset) /
		sizeof(unsigned long);
	max = min(max, TRACE_UNWIND_MAX_FRAMES);
	if (nr >= max) {
		truncated = nr > max;
		nr = max;
	}
	size = nr * sizeof(unsigned long);

	event = trace_buffer_lock_reserve(buffer,
					  event_user_stack_deferred.event.type,
					  offset + size, trace_ctx);
	if (!event)
		return false;

	entry = ring_buffer_event_data(event);
	entry->cookie = cookie;
	entry->tgid = current->tgid;
	entry->truncated = truncated;
	entry->__data_loc_frames = (size << 16) | offset;
	if (size)
		memcpy(entry->__data, frames, size);
	__buffer_unlock_commit(buffer, event);
	return true;
}

/*
 * Give @tr the user stack of this entry, once.  When @tr cannot record
 * right now (recording off, this CPU outside its tracing_cpumask, a full
 * buffer that does not overwrite), the slot is left unserved, so that a
 * later request of the same entry tries again from the unwind cache.
 */
static void trace_unwind_serve(struct trace_unwind_task *rec,
			       struct trace_array *tr, unsigned int slot,
			       const unsigned long *frames, unsigned int nr,
			       u64 cookie, unsigned int trace_ctx)
{
	if (test_and_set_bit(slot, rec->served))
		return;
	if (!trace_unwind_write_stack(tr, frames, nr, cookie, trace_ctx))
		clear_bit(slot, rec->served);
}

/*
 * The deferred callback of this entry already ran, so no other will come:
 * answer from the task's unwind cache, which holds this entry's user stack
 * until the task returns to user space.  Reading it needs no fault.
 */
static void trace_unwind_deliver_late(struct trace_unwind_task *rec,
				      struct trace_array *tr, unsigned int slot,
				      u64 cookie, unsigned int trace_ctx)
{
	struct unwind_cache *cache = current->unwind_info.cache;

	if (cache)
		trace_unwind_serve(rec, tr, slot, cache->entries,
				   cache->nr_entries, cookie, trace_ctx);
	else
		trace_unwind_serve(rec, tr, slot, NULL, 0, cookie, trace_ctx);
}

/*
 * Kernel threads have no user stack, and the saved user registers of
 * user workers (io_uring, vhost) are not theirs: what perf checks.  An
 * exiting task has had its stack flushed already.
 */
static bool trace_unwind_user_task(void)
{
	return is_user_task(current) && !(current->flags & PF_EXITING);
}

/**
 * trace_unwind_user_request - ask for the user stack of the current task
 * @tr: the instance that asks
 * @trace_ctx: the trace context of the event that asks
 *
 * Writes a user_stack_cookie event into @tr.  The user_stack_deferred
 * event with the same cookie follows in @tr before the task returns to
 * user space.  Nothing is written for tasks without a user stack.
 * Safe in any context, NMI included.
 */
void trace_unwind_user_request(struct trace_array *tr, unsigned int trace_ctx)
{
	struct trace_unwind_task *rec = &current->trace_unwind;
	unsigned long flags;
	unsigned int slot;
	u64 cookie;

	/* Pairs with the release in trace_unwind_user_enable() */
	slot = smp_load_acquire(&tr->unwind_slot);
	if (!slot || !trace_unwind_user_task())
		return;
	slot--;

	/*
	 * The later events of an entry that this instance already asked
	 * for: another request would only return the same cookie.  The
	 * task's unwind id is that cookie until it returns to user space.
	 */
	cookie = READ_ONCE(current->unwind_info.id.id);
	if (cookie && READ_ONCE(rec->cookie) == cookie &&
	    test_bit(slot, rec->asked)) {
		trace_unwind_write_cookie(tr->array_buffer.buffer, cookie,
					  trace_ctx);
		/* The callback ran but could not write into @tr: try again */
		if (READ_ONCE(rec->delivered) == cookie &&
		    !test_bit(slot, rec->served))
			trace_unwind_deliver_late(rec, tr, slot, cookie,
						  trace_ctx);
		return;
	}

	/* On error the cookie may be set anyway: it means nothing */
	if (unwind_deferred_request(&trace_unwind_work, &cookie) < 0)
		return;

	local_irq_save(flags);
	if (trace_unwind_claim(rec, cookie)) {
		trace_unwind_drain_nmi(rec);
		set_bit(slot, rec->asked);
	} else if (!trace_unwind_queue_nmi(rec, slot)) {
		/* No room: better no cookie than one never answered */
		local_irq_restore(flags);
		return;
	}
	local_irq_restore(flags);

	trace_unwind_write_cookie(tr->array_buffer.buffer, cookie, trace_ctx);

	/*
	 * A request after the callback ran in this entry, for example from
	 * sched_switch on the way out, gets no callback of its own.
	 */
	if (READ_ONCE(rec->delivered) == cookie)
		trace_unwind_deliver_late(rec, tr, slot, cookie, trace_ctx);
}

static void trace_unwind_callback(struct unwind_work *work,
				  struct unwind_stacktrace *trace, u64 cookie)
{
	struct trace_unwind_task *rec = &current->trace_unwind;
	unsigned int trace_ctx = tracing_gen_ctx();
	struct trace_array *tr;
	unsigned long flags;
	unsigned int slot;

	local_irq_save(flags);
	/* Only an NMI can fail to claim, and this is not one */
	WARN_ON_ONCE(!trace_unwind_claim(rec, cookie));
	trace_unwind_drain_nmi(rec);
	/* From here on, requests of this entry deliver by themselves */
	WRITE_ONCE(rec->delivered, cookie);
	local_irq_restore(flags);

	guard(rcu)();
	for_each_set_bit(slot, rec->asked, TRACE_UNWIND_MAX_INSTANCES) {
		tr = rcu_dereference(trace_unwind_slots[slot]);
		if (tr)
			trace_unwind_serve(rec, tr, slot, trace->entries,
					   trace->nr, cookie, trace_ctx);
	}
}

/**
 * trace_unwind_user_init - register the deferred user stack client
 *
 * Called from tracer_alloc_buffers(), before the trace_options= and
 * trace_trigger= boot parameters are applied, so that they can ask for
 * deferred user stacks; perf registers its client as early, from
 * perf_event_init().  Registered once and never cancelled:
 * unwind_deferred_cancel() cannot race with requests, and one client
 * serves every instance anyway.
 */
void __init trace_unwind_user_init(void)
{
	int ret;

	ret = unwind_deferred_init(&trace_unwind_work, trace_unwind_callback);
	if (ret) {
		pr_warn("tracing: no deferred user stacks: %d\n", ret);
		return;
	}
	trace_unwind_ready = true;
}
