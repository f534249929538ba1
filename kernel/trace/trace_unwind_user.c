// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user space stack traces for trace instances
 *
 * One unwind_deferred client serves all of tracing.  An instance that
 * wants user stacks (a stacktrace:defer trigger, or the
 * userstacktrace_defer option) is given a slot, a bit in the task's
 * struct trace_unwind_task.  When one of its events asks, the request
 * records the deferred unwind cookie, with the event's kernel stack, in
 * the instance's buffer and sets the instance's bit.  The deferred
 * callback runs in task context right before the task returns to user
 * space and writes the user stack into every instance whose bit is set
 * for that kernel entry, once per instance.
 *
 * A single client, instead of one per instance, keeps the number of
 * instances independent of the few free bits of the unwind mask.  The
 * slot goes back when the instance's last trigger or option goes and
 * another instance needs it: until then, stacks still pending for it are
 * delivered.
 */
#include <linux/trace_unwind_user.h>
#include <linux/unwind_deferred.h>
#include <linux/sched/task.h>
#include <linux/ring_buffer.h>
#include <linux/sched/signal.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "trace.h"

/*
 * Most frames one user_stack_deferred event carries.  Below the size of the
 * per-task unwind cache, so a stack the unwinder had to cut is always
 * marked as truncated here too.
 */
#define TRACE_UNWIND_MAX_FRAMES		256

/* Never a cookie: the per-task record is being reset for a new entry */
#define TRACE_UNWIND_RESETTING		U64_MAX

/*
 * Instances that can use deferred user stacks at one time: a bit each in
 * every task's record, so a constant rather than a Kconfig choice
 */
#define TRACE_UNWIND_MAX_INSTANCES	128

/* Tasks given a record per pass over the task list: see below */
#define TRACE_UNWIND_BATCH		64

/**
 * struct trace_unwind_task - which trace instances want this task's user stack
 * @cookie: the deferred unwind cookie (kernel entry) the record describes
 * @delivered: set once the deferred callback ran for the entry of @cookie
 * @pid: the pid of the task when @cookie was first asked for, which the
 *	user stack records carry: a thread that execs takes the pid of its
 *	group leader in de_thread(), in the middle of a kernel entry
 * @asked: a bit per instance slot: that instance recorded @cookie
 * @served: a bit per instance slot: that instance was given the user stack
 * @nmi_asked: slots of instances that asked from an NMI while the record
 *	was being reset; not cleared by the reset, so that the context that
 *	resets it adds them to @asked
 *
 * A request from any context, NMI included, notes itself here without
 * locks or allocation, so every user task gets its record before the first
 * instance can ask: tasks already running when the first slot is given,
 * tasks forked later in copy_process().  Until then task_struct only pays
 * for the pointer.  The record is freed with the task.  It is only ever
 * written by the task itself (or by an interrupt or NMI on top of it),
 * except for slot teardown when an instance gives its slot up.
 */
struct trace_unwind_task {
	u64		cookie;
	u32		delivered;
	pid_t		pid;
	DECLARE_BITMAP(asked, TRACE_UNWIND_MAX_INSTANCES);
	DECLARE_BITMAP(served, TRACE_UNWIND_MAX_INSTANCES);
	DECLARE_BITMAP(nmi_asked, TRACE_UNWIND_MAX_INSTANCES);
};

/* What the event that asks for a user stack records with its cookie */
struct trace_unwind_ask {
	unsigned int	trace_ctx;
	bool		kernel_stack;
	int		skip;
	struct pt_regs	*regs;
};

static struct unwind_work trace_unwind_work;
static bool trace_unwind_ready __read_mostly;

static struct kmem_cache *trace_unwind_task_cache __ro_after_init;
/*
 * Under trace_unwind_mutex: set when tasks begin to be given records, and
 * once every task has one, before the first slot is given
 */
static bool trace_unwind_tasks_on;
static bool trace_unwind_tasks_given;

/* Instances by slot, under trace_unwind_mutex, read under RCU */
static struct trace_array __rcu *trace_unwind_slots[TRACE_UNWIND_MAX_INSTANCES];
static DEFINE_MUTEX(trace_unwind_mutex);

/* Drop every trace of @slot from a task's record */
static void trace_unwind_task_forget(struct trace_unwind_task *rec,
				     unsigned int slot)
{
	clear_bit(slot, rec->asked);
	clear_bit(slot, rec->served);
	clear_bit(slot, rec->nmi_asked);
}

/*
 * Take the slot away from @tr.  Its events no longer ask for user stacks
 * (no trigger or option is left, or the instance is going), so no new
 * request for it can come once the requests in flight are done.  Waits
 * for them and for callbacks that may still write to @tr, then clears the
 * slot in every task, so that an instance given the slot later does not
 * inherit pending requests.
 */
static void trace_unwind_release(struct trace_array *tr)
{
	struct task_struct *g, *t;
	unsigned int slot;

	lockdep_assert_held(&trace_unwind_mutex);

	slot = tr->unwind_slot;
	if (!slot)
		return;
	slot--;

	RCU_INIT_POINTER(trace_unwind_slots[slot], NULL);
	WRITE_ONCE(tr->unwind_slot, 0);
	tr->unwind_users = 0;
	synchronize_rcu();

	scoped_guard(rcu) {
		struct trace_unwind_task *rec;

		for_each_process_thread(g, t) {
			rec = READ_ONCE(t->trace_unwind);
			if (rec)
				trace_unwind_task_forget(rec, slot);
		}
	}

	/*
	 * A callback that read one of the bits just cleared, in its RCU
	 * section, may not have looked up the slot yet.  Until it is done,
	 * the slot must not be given to another instance, which would then
	 * get the stack of a request it never made: wait for it, with
	 * trace_unwind_mutex held.
	 */
	synchronize_rcu();
}

/* Whether @task can have a user stack, and so needs a record */
static bool trace_unwind_task_wanted(struct task_struct *task)
{
	return !(task->flags & (PF_KTHREAD | PF_USER_WORKER));
}

/* Give @task an empty record unless it has one: false when out of memory */
static bool trace_unwind_task_give(struct task_struct *task)
{
	struct trace_unwind_task *rec;

	if (READ_ONCE(task->trace_unwind))
		return true;
	rec = kmem_cache_zalloc(trace_unwind_task_cache, GFP_KERNEL);
	if (!rec)
		return false;
	/* The fork of @task may be giving it one too */
	if (cmpxchg(&task->trace_unwind, NULL, rec))
		kmem_cache_free(trace_unwind_task_cache, rec);
	return true;
}

/* Up to TRACE_UNWIND_BATCH tasks without a record, each with a reference */
static unsigned int trace_unwind_tasks_without(struct task_struct **batch)
{
	struct task_struct *g, *t;
	unsigned int nr = 0;

	guard(rcu)();
	for_each_process_thread(g, t) {
		if (!trace_unwind_task_wanted(t) || READ_ONCE(t->trace_unwind))
			continue;
		batch[nr++] = get_task_struct(t);
		if (nr == TRACE_UNWIND_BATCH)
			return nr;
	}
	return nr;
}

/*
 * Give every user task a record before the first slot is given, so that
 * no request ever needs to allocate.  Records cannot be allocated under
 * RCU: take the tasks a batch at a time.  Tasks forked from now on get
 * theirs in trace_unwind_task_fork().
 */
static int trace_unwind_give_tasks(void)
{
	struct task_struct *batch[TRACE_UNWIND_BATCH];
	unsigned int nr, i;
	bool ok = true;

	lockdep_assert_held(&trace_unwind_mutex);

	WRITE_ONCE(trace_unwind_tasks_on, true);
	/* Pairs with the barrier in trace_unwind_task_fork() */
	smp_mb();

	do {
		nr = trace_unwind_tasks_without(batch);
		for (i = 0; i < nr; i++) {
			ok = ok && trace_unwind_task_give(batch[i]);
			put_task_struct(batch[i]);
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	} while (ok && nr == TRACE_UNWIND_BATCH);

	return ok ? 0 : -ENOMEM;
}

/* A free slot, or the slot of an instance that no longer asks, or -1 */
static int trace_unwind_find_slot(void)
{
	struct trace_array *tr;
	unsigned int slot;

	lockdep_assert_held(&trace_unwind_mutex);

	for (slot = 0; slot < TRACE_UNWIND_MAX_INSTANCES; slot++) {
		if (!rcu_access_pointer(trace_unwind_slots[slot]))
			return slot;
	}
	for (slot = 0; slot < TRACE_UNWIND_MAX_INSTANCES; slot++) {
		tr = rcu_dereference_protected(trace_unwind_slots[slot], true);
		if (!tr->unwind_users) {
			trace_unwind_release(tr);
			return slot;
		}
	}
	return -1;
}

/**
 * trace_unwind_user_enable - let an instance ask for deferred user stacks
 * @tr: the trace instance
 *
 * Called in process context before a stacktrace:defer trigger or the
 * userstacktrace_defer option takes effect in @tr; each successful call
 * is paired with trace_unwind_user_disable() when it goes.
 *
 * The first call gives every user task its record.
 *
 * Return: 0 on success, -ENODEV when deferred unwinding is not available,
 * -ENOSPC when TRACE_UNWIND_MAX_INSTANCES other instances use it,
 * -ENOMEM or -EINTR when the tasks could not all be given a record.
 */
int trace_unwind_user_enable(struct trace_array *tr)
{
	int slot, ret;

	if (!trace_unwind_ready)
		return -ENODEV;

	guard(mutex)(&trace_unwind_mutex);

	if (tr->unwind_slot) {
		tr->unwind_users++;
		return 0;
	}

	if (!trace_unwind_tasks_given) {
		ret = trace_unwind_give_tasks();
		if (ret)
			return ret;
		trace_unwind_tasks_given = true;
	}

	slot = trace_unwind_find_slot();
	if (slot < 0)
		return -ENOSPC;

	tr->unwind_users = 1;
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
 * trace_unwind_user_disable - a trigger or the option of @tr went
 * @tr: the trace instance
 *
 * The instance keeps its slot, so that the stacks of requests it made
 * are still delivered, until another instance needs a slot and none is
 * free.
 */
void trace_unwind_user_disable(struct trace_array *tr)
{
	guard(mutex)(&trace_unwind_mutex);

	if (tr->unwind_slot && !WARN_ON_ONCE(!tr->unwind_users))
		tr->unwind_users--;
}

/**
 * trace_unwind_task_init - start a new task without a record
 * @task: the task being created
 *
 * Called from copy_process() early: the pointer copied from the parent is
 * the parent's record.
 */
void trace_unwind_task_init(struct task_struct *task)
{
	task->trace_unwind = NULL;
}

/**
 * trace_unwind_task_fork - give a new task its record when tracing asks
 * @task: the task being created, on the task list, not yet running
 *
 * Called from copy_process() once @task is on the task list, so that
 * trace_unwind_give_tasks() either finds it there or is seen here to have
 * begun.  Without memory the task gets no record: its events then record
 * no user stack.  Fork itself never fails for this.
 */
void trace_unwind_task_fork(struct task_struct *task)
{
	/* Pairs with the barrier in trace_unwind_give_tasks() */
	smp_mb();
	if (READ_ONCE(trace_unwind_tasks_on) && trace_unwind_task_wanted(task))
		trace_unwind_task_give(task);
}

/**
 * trace_unwind_task_free - free the record of a task being freed
 * @task: the task
 */
void trace_unwind_task_free(struct task_struct *task)
{
	if (task->trace_unwind)
		kmem_cache_free(trace_unwind_task_cache, task->trace_unwind);
}

/**
 * trace_unwind_user_remove - release the slot of an instance being removed
 * @tr: the trace instance
 *
 * Called after the events of @tr are disabled, so no new request for @tr
 * can come, and before its buffers are freed.
 */
void trace_unwind_user_remove(struct trace_array *tr)
{
	guard(mutex)(&trace_unwind_mutex);
	trace_unwind_release(tr);
}

/*
 * Make the task's record describe the kernel entry of @cookie, forgetting
 * the previous entry.  Runs with interrupts disabled, so only an NMI can
 * find the record half reset; it then returns false and the NMI notes its
 * slot in rec->nmi_asked, which the resetting context adds to rec->asked.
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

	/* Only NMIs can write meanwhile, and they keep off: see above */
	bitmap_zero(rec->asked, TRACE_UNWIND_MAX_INSTANCES);
	bitmap_zero(rec->served, TRACE_UNWIND_MAX_INSTANCES);
	WRITE_ONCE(rec->delivered, 0);
	WRITE_ONCE(rec->pid, current->pid);
	barrier();
	WRITE_ONCE(rec->cookie, cookie);
	return true;
}

/* Whether the callback ran for the entry of @cookie */
static bool trace_unwind_delivered(struct trace_unwind_task *rec, u64 cookie)
{
	if (READ_ONCE(rec->cookie) != cookie)
		return false;
	/* The reset clears delivered before it sets the cookie */
	barrier();
	return READ_ONCE(rec->delivered);
}

/* The instances that asked from an NMI during the reset just done */
static void trace_unwind_drain_nmi(struct trace_unwind_task *rec)
{
	unsigned long bits;
	unsigned int i;

	for (i = 0; i < BITS_TO_LONGS(TRACE_UNWIND_MAX_INSTANCES); i++) {
		if (!READ_ONCE(rec->nmi_asked[i]))
			continue;
		bits = xchg(&rec->nmi_asked[i], 0);
		atomic_long_or(bits, (atomic_long_t *)&rec->asked[i]);
	}
}

/* The __data_loc word of @nr addresses that follow an entry of @size */
static inline u32 trace_unwind_loc(size_t size, unsigned int nr)
{
	return (nr * sizeof(unsigned long)) << 16 | size;
}

/*
 * A user_stack_cookie entry: the cookie, and the kernel stack of the
 * event that asks when it wants one.  One reservation for both.  Always
 * inlined, so that the kernel stack is taken in
 * trace_unwind_user_request()'s frame.
 */
static __always_inline void
trace_unwind_write_cookie(struct trace_array *tr, u64 cookie,
			  unsigned int flags, const struct trace_unwind_ask *ask)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct user_stack_cookie_entry *entry;
	struct ring_buffer_event *event;
	unsigned long *calls = NULL;
	unsigned int nr = 0, max;
	int token = -1;

	if (ask->kernel_stack)
		token = ftrace_stack_get(tr, ask->skip, ask->regs, &calls, &nr);

	/* A kernel stack too deep for a sub-buffer keeps its inner frames */
	max = (ring_buffer_max_event_size(buffer) - sizeof(*entry)) /
		sizeof(unsigned long);
	nr = min(nr, max);

	event = trace_buffer_lock_reserve(buffer, TRACE_USER_STACK_COOKIE,
					  sizeof(*entry) +
					  nr * sizeof(unsigned long),
					  ask->trace_ctx);
	if (event) {
		entry = ring_buffer_event_data(event);
		entry->cookie = cookie;
		entry->flags = flags;
		entry->__data_loc_kernel =
			trace_unwind_loc(offsetof(typeof(*entry), caller), nr);
		if (nr)
			memcpy(entry->caller, calls, nr * sizeof(unsigned long));
		__buffer_unlock_commit(buffer, event);
	}

	if (token >= 0)
		ftrace_stack_put(token);
}

/* The flags of a user stack record that name the unwinders of @types */
static unsigned int trace_unwind_type_flags(unsigned int types)
{
	unsigned int flags = 0;

	if (types & UNWIND_USER_TYPE_FP)
		flags |= TRACE_UNWIND_FP;
	if (types & UNWIND_USER_TYPE_SFRAME)
		flags |= TRACE_UNWIND_SFRAME;
	if (types & UNWIND_USER_TYPE_BACKCHAIN)
		flags |= TRACE_UNWIND_BACKCHAIN;
	return flags;
}

/*
 * The user stack record of this entry, under the task's pid, with the pid
 * of the entry's first request: they differ when a thread that is not the
 * group leader execs and de_thread() gives it the leader's pid after it
 * asked.  Returns false when @tr cannot record now: nothing was written.
 */
static bool trace_unwind_write_stack(struct trace_array *tr,
				     const unsigned long *frames,
				     unsigned int nr, unsigned int flags,
				     u64 cookie, unsigned int trace_ctx)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct user_stack_deferred_entry *entry;
	struct ring_buffer_event *event;
	unsigned int max, depth = nr;

	/* The event must fit in one sub-buffer of this instance */
	max = (ring_buffer_max_event_size(buffer) - sizeof(*entry)) /
		sizeof(unsigned long);
	max = min(max, TRACE_UNWIND_MAX_FRAMES);
	if (nr >= max) {
		if (nr > max)
			flags |= TRACE_UNWIND_TRUNCATED;
		nr = max;
	}

	event = trace_buffer_lock_reserve(buffer, TRACE_USER_STACK_DEFERRED,
					  sizeof(*entry) +
					  nr * sizeof(unsigned long),
					  trace_ctx);
	if (!event)
		return false;

	entry = ring_buffer_event_data(event);
	entry->cookie = cookie;
	entry->pid = READ_ONCE(current->trace_unwind->pid);
	entry->tgid = current->tgid;
	entry->flags = flags;
	entry->depth = depth;
	entry->__data_loc_frames = trace_unwind_loc(sizeof(*entry), nr);
	if (nr)
		memcpy(entry + 1, frames, nr * sizeof(unsigned long));
	__buffer_unlock_commit(buffer, event);
	return true;
}

/*
 * Give @tr, the instance of @slot, the user stack of this entry, once.
 * When @tr cannot record right now (recording off, this CPU outside its
 * tracing_cpumask, a full buffer that does not overwrite), it is left
 * unserved, so that a later request of the same entry tries again from
 * the unwind cache.
 */
static void trace_unwind_serve(struct trace_unwind_task *rec,
			       unsigned int slot, struct trace_array *tr,
			       const unsigned long *frames, unsigned int nr,
			       unsigned int flags, u64 cookie,
			       unsigned int trace_ctx)
{
	if (test_and_set_bit(slot, rec->served))
		return;
	if (!trace_unwind_write_stack(tr, frames, nr, flags, cookie, trace_ctx))
		clear_bit(slot, rec->served);
}

/*
 * Answer from the task's unwind cache, which holds this entry's user stack
 * until the task returns to user space.  Reading it needs no fault.
 */
static void trace_unwind_serve_late(struct trace_unwind_task *rec,
				    unsigned int slot, struct trace_array *tr,
				    u64 cookie, unsigned int trace_ctx)
{
	struct unwind_cache *cache = current->unwind_info.cache;

	trace_unwind_serve(rec, slot, tr, cache ? cache->entries : NULL,
			   cache ? cache->nr_entries : 0, TRACE_UNWIND_LATE |
			   (cache ? trace_unwind_type_flags(cache->types) : 0),
			   cookie, trace_ctx);
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
 * @kernel_stack: record the kernel stack too
 * @skip: kernel frames to skip, as for ftrace_stack_get()
 * @regs: the registers to take the kernel stack from, or NULL
 *
 * Writes a user_stack_cookie record into @tr, with the kernel stack when
 * @kernel_stack: one record for both.  The user_stack_deferred record
 * with the same cookie follows in @tr before the task returns to user
 * space.  A task without a user stack (a kernel thread, a user worker, an
 * exiting task) gets no cookie, only the kernel_stack record that the
 * stacktrace trigger would write when @kernel_stack.  Safe in any
 * context, NMI included.
 */
void trace_unwind_user_request(struct trace_array *tr, unsigned int trace_ctx,
			       bool kernel_stack, int skip,
			       struct pt_regs *regs)
{
	struct trace_unwind_task *rec = READ_ONCE(current->trace_unwind);
	struct trace_unwind_ask ask = {
		.trace_ctx	= trace_ctx,
		.kernel_stack	= kernel_stack,
		/*
		 * The stack is taken in this frame, which stands where
		 * __ftrace_trace_stack() stands for stacktrace: the same
		 * skip gives the same frames
		 */
		.skip		= regs ? 0 : skip,
		.regs		= regs,
	};
	unsigned int slot;
	u64 cookie;

	/* Pairs with the release in trace_unwind_user_enable() */
	slot = smp_load_acquire(&tr->unwind_slot);
	if (!slot || !rec || !trace_unwind_user_task())
		goto kernel_only;
	slot--;

	/*
	 * The later events of an entry that this instance already asked
	 * for: another request would only return the same cookie.  The
	 * task's unwind id is that cookie until it returns to user space.
	 */
	cookie = READ_ONCE(current->unwind_info.id.id);
	if (cookie && READ_ONCE(rec->cookie) == cookie &&
	    test_bit(slot, rec->asked))
		goto write;

	/* On error the cookie may be set anyway: it means nothing */
	if (unwind_deferred_request(&trace_unwind_work, &cookie) < 0)
		goto kernel_only;

	scoped_guard(irqsave) {
		if (trace_unwind_claim(rec, cookie)) {
			trace_unwind_drain_nmi(rec);
			set_bit(slot, rec->asked);
		} else {
			/* Found the record half reset: the resetter will see */
			set_bit(slot, rec->nmi_asked);
		}
	}

write:
	trace_unwind_write_cookie(tr, cookie, 0, &ask);
	/*
	 * A request after the callback ran in this entry (for example from
	 * sched_switch on the way out) gets no callback of its own: it is
	 * served from the cache here.  Looked at after setting the bit,
	 * which the callback looks at after marking the entry delivered.
	 */
	barrier();
	if (trace_unwind_delivered(rec, cookie))
		trace_unwind_serve_late(rec, slot, tr, cookie, trace_ctx);
	return;

kernel_only:
	/* No user stack to ask for: the kernel stack alone, as stacktrace */
	if (kernel_stack)
		__ftrace_trace_stack(tr, tr->array_buffer.buffer, trace_ctx,
				     regs ? 0 : skip + 1, regs);
}

static void trace_unwind_callback(struct unwind_work *work,
				  struct unwind_stacktrace *trace, u64 cookie)
{
	struct trace_unwind_task *rec = READ_ONCE(current->trace_unwind);
	unsigned int trace_ctx = tracing_gen_ctx();
	unsigned int flags = trace_unwind_type_flags(trace->types);
	DECLARE_BITMAP(asked, TRACE_UNWIND_MAX_INSTANCES);
	struct trace_array *tr;
	unsigned int slot, i;

	/* Only a task with a record asks */
	if (WARN_ON_ONCE(!rec))
		return;

	scoped_guard(irqsave) {
		/* Only an NMI can fail to claim, and this is not one */
		WARN_ON_ONCE(!trace_unwind_claim(rec, cookie));
		trace_unwind_drain_nmi(rec);
		/* From here on, requests of this entry serve themselves */
		WRITE_ONCE(rec->delivered, 1);
	}

	/* After marking the entry delivered: see trace_unwind_user_request() */
	barrier();
	/*
	 * The bits are read inside the RCU section that reads the slots:
	 * trace_unwind_release() clears the bits of a slot between two grace
	 * periods and gives the slot away only after the second one, so a bit
	 * read here names the instance that asked, or a slot found empty.
	 * Read before the section, a bit could outlive the release and name
	 * the slot's next owner, which never asked.
	 */
	guard(rcu)();
	for (i = 0; i < BITS_TO_LONGS(TRACE_UNWIND_MAX_INSTANCES); i++)
		asked[i] = READ_ONCE(rec->asked[i]);

	for_each_set_bit(slot, asked, TRACE_UNWIND_MAX_INSTANCES) {
		tr = rcu_dereference(trace_unwind_slots[slot]);
		if (tr)
			trace_unwind_serve(rec, slot, tr, trace->entries,
					   trace->nr, flags, cookie, trace_ctx);
	}
}

/**
 * trace_unwind_user_init - register the deferred user stack client
 *
 * Called from tracer_alloc_buffers(), before the trace events are
 * registered and before the trace_options= and
 * trace_trigger= boot parameters are applied, so that they can ask for
 * deferred user stacks; perf registers its client as early, from
 * perf_event_init().  Registered once and never cancelled:
 * unwind_deferred_cancel() cannot race with requests, and one client
 * serves every instance anyway.
 */
void __init trace_unwind_user_init(void)
{
	int ret;

	trace_unwind_task_cache = KMEM_CACHE(trace_unwind_task, 0);
	if (!trace_unwind_task_cache) {
		pr_warn("tracing: no deferred user stacks: no memory\n");
		return;
	}

	ret = unwind_deferred_init(&trace_unwind_work, trace_unwind_callback);
	if (ret) {
		pr_warn("tracing: no deferred user stacks: %d\n", ret);
		return;
	}
	trace_unwind_ready = true;
}
