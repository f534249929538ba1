// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user space stack traces for trace instances
 *
 * One unwind_deferred client serves all of tracing.  An instance that
 * wants user stacks (a stacktrace:defer trigger, or the
 * userstacktrace_defer option) is given a slot.  When one of its events
 * asks, the request records the deferred unwind cookie, with the event's
 * kernel stack, in the instance's buffer and marks the slot in the task's
 * struct trace_unwind_task.  The deferred callback runs in task context
 * right before the task returns to user space and writes the user stack
 * into every instance marked for that kernel entry, once per instance.
 *
 * A single client, instead of one per instance, keeps the number of
 * instances independent of the few free bits of the unwind mask.
 */
#include <linux/unwind_deferred.h>
#include <linux/ring_buffer.h>
#include <linux/sched/signal.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/sched.h>

#include "trace.h"
#include "trace_output.h"

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

/* In trace_unwind_task::asked: that instance was given the user stack */
#define TRACE_UNWIND_SERVED		BIT(31)

/* What the event that asks for a user stack records with its cookie */
struct trace_unwind_ask {
	unsigned int	trace_ctx;
	bool		kernel_stack;
	int		skip;
	struct pt_regs	*regs;
};

static struct unwind_work trace_unwind_work;
static bool trace_unwind_ready __read_mostly;

/*
 * Instances by slot.  A slot is taken the first time an instance asks for
 * deferred user stacks and kept until the instance is removed, so that
 * stacks still pending when a trigger or the option goes are delivered.
 */
static struct trace_array __rcu *trace_unwind_slots[TRACE_UNWIND_MAX_INSTANCES];
static DEFINE_MUTEX(trace_unwind_mutex);

/*
 * Counts the slots given, so that a broadcast can tell the instances that
 * had their slot when it was made (see trace_unwind_task::broadcast_gen).
 */
static u32 trace_unwind_gen;

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

	WRITE_ONCE(trace_unwind_gen, trace_unwind_gen + 1);
	tr->unwind_gen = trace_unwind_gen;
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

	for (i = 0; i < TRACE_UNWIND_TASK_SLOTS; i++) {
		val = READ_ONCE(rec->asked[i]);
		if ((val & ~TRACE_UNWIND_SERVED) == slot + 1)
			try_cmpxchg(&rec->asked[i], &val, 0);
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
	 * A callback that read one of the entries just cleared may not have
	 * looked up the slot yet.  Until it is done, the slot must not be
	 * given to another instance, which would then get the stack of a
	 * request it never made: wait for it, with trace_unwind_mutex held.
	 */
	synchronize_rcu();
}

/*
 * Make the task's record describe the kernel entry of @cookie, forgetting
 * the previous entry.  Runs with interrupts disabled, so only an NMI can
 * find the record half reset; it then returns false and the NMI sets
 * rec->nmi, which the resetting context turns into a broadcast.
 */
static bool trace_unwind_claim(struct trace_unwind_task *rec, u64 cookie)
{
	u64 old = READ_ONCE(rec->cookie);
	unsigned int i;

	do {
		if (old == cookie)
			return true;
		if (old == TRACE_UNWIND_RESETTING)
			return false;
	} while (!try_cmpxchg64(&rec->cookie, &old, TRACE_UNWIND_RESETTING));

	for (i = 0; i < TRACE_UNWIND_TASK_SLOTS; i++)
		WRITE_ONCE(rec->asked[i], 0);
	WRITE_ONCE(rec->broadcast, 0);
	WRITE_ONCE(rec->broadcast_gen, 0);
	WRITE_ONCE(rec->delivered, 0);
	barrier();
	WRITE_ONCE(rec->cookie, cookie);
	return true;
}

/*
 * An NMI asked during the reset just done: it could not say which
 * instance, so this entry's stack goes to every instance.
 */
static void trace_unwind_drain_nmi(struct trace_unwind_task *rec)
{
	if (READ_ONCE(rec->nmi) && xchg(&rec->nmi, 0))
		WRITE_ONCE(rec->broadcast, 1);
}

/* The entry of @slot in rec->asked, or -1 */
static int trace_unwind_find(struct trace_unwind_task *rec, unsigned int slot)
{
	unsigned int i;

	for (i = 0; i < TRACE_UNWIND_TASK_SLOTS; i++) {
		if ((READ_ONCE(rec->asked[i]) & ~TRACE_UNWIND_SERVED) == slot + 1)
			return i;
	}
	return -1;
}

/*
 * Note that @slot asked in this entry.  Interrupts and NMIs on top may
 * note themselves at the same time: entries are taken with cmpxchg.
 * Returns the entry, or -1 when every entry is taken.
 */
static int trace_unwind_note(struct trace_unwind_task *rec, unsigned int slot)
{
	unsigned int i, val;
	int found;

	found = trace_unwind_find(rec, slot);
	if (found >= 0)
		return found;
	for (i = 0; i < TRACE_UNWIND_TASK_SLOTS; i++) {
		val = 0;
		if (try_cmpxchg(&rec->asked[i], &val, slot + 1))
			return i;
		if ((val & ~TRACE_UNWIND_SERVED) == slot + 1)
			return i;
	}
	return -1;
}

/* Has @slot asked in this entry, or will the broadcast serve it? */
static bool trace_unwind_asked(struct trace_unwind_task *rec,
			       unsigned int slot)
{
	return READ_ONCE(rec->broadcast) || trace_unwind_find(rec, slot) >= 0;
}

/*
 * A user_stack_cookie record: the cookie, and the kernel stack of the
 * event that asks when it wants one.  One reservation for both, laid out
 * by the event's own offsets code.  Always inlined, so that the kernel
 * stack is taken in trace_unwind_user_request()'s frame.
 */
static __always_inline void
trace_unwind_write_cookie(struct trace_array *tr, u64 cookie,
			  unsigned int flags, const struct trace_unwind_ask *ask)
{
	struct trace_event_data_offsets_user_stack_cookie offsets;
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct trace_event_raw_user_stack_cookie *entry;
	struct ring_buffer_event *event;
	unsigned long *calls = NULL;
	unsigned int nr = 0, max;
	int token = -1, size;

	if (ask->kernel_stack)
		token = ftrace_stack_get(tr, ask->skip, ask->regs, &calls, &nr);

	/* A kernel stack too deep for a sub-buffer keeps its inner frames */
	max = (ring_buffer_max_event_size(buffer) - sizeof(*entry)) /
		sizeof(unsigned long);
	nr = min(nr, max);

	size = trace_event_get_offsets_user_stack_cookie(&offsets, cookie,
							 flags, calls, nr);
	event = trace_buffer_lock_reserve(buffer,
					  event_user_stack_cookie.event.type,
					  sizeof(*entry) + size, ask->trace_ctx);
	if (event) {
		entry = ring_buffer_event_data(event);
		entry->cookie = cookie;
		entry->flags = flags;
		entry->__data_loc_kernel = offsets.kernel;
		if (nr)
			memcpy((void *)entry + (offsets.kernel & 0xffff), calls,
			       nr * sizeof(unsigned long));
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

/* Returns false when @tr cannot record now: nothing was written */
static bool trace_unwind_write_stack(struct trace_array *tr,
				     const unsigned long *frames,
				     unsigned int nr, unsigned int flags,
				     u64 cookie, unsigned int trace_ctx)
{
	struct trace_event_data_offsets_user_stack_deferred offsets;
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct trace_event_raw_user_stack_deferred *entry;
	struct ring_buffer_event *event;
	unsigned int max, depth = nr;
	int size;

	/* The event must fit in one sub-buffer of this instance */
	max = (ring_buffer_max_event_size(buffer) - sizeof(*entry)) /
		sizeof(unsigned long);
	max = min(max, TRACE_UNWIND_MAX_FRAMES);
	if (nr >= max) {
		if (nr > max)
			flags |= TRACE_UNWIND_TRUNCATED;
		nr = max;
	}

	size = trace_event_get_offsets_user_stack_deferred(&offsets, cookie,
							   flags, depth,
							   frames, nr);
	event = trace_buffer_lock_reserve(buffer,
					  event_user_stack_deferred.event.type,
					  sizeof(*entry) + size, trace_ctx);
	if (!event)
		return false;

	entry = ring_buffer_event_data(event);
	entry->cookie = cookie;
	entry->tgid = current->tgid;
	entry->flags = flags;
	entry->depth = depth;
	entry->__data_loc_frames = offsets.frames;
	if (nr)
		memcpy((void *)entry + (offsets.frames & 0xffff), frames,
		       nr * sizeof(unsigned long));
	__buffer_unlock_commit(buffer, event);
	return true;
}

/*
 * Give @tr, noted in rec->asked[@i], the user stack of this entry, once.
 * When @tr cannot record right now (recording off, this CPU outside its
 * tracing_cpumask, a full buffer that does not overwrite), the entry is
 * left unserved, so that a later request of the same entry tries again
 * from the unwind cache.
 */
static void trace_unwind_serve(struct trace_unwind_task *rec, int i,
			       struct trace_array *tr,
			       const unsigned long *frames, unsigned int nr,
			       unsigned int flags, u64 cookie,
			       unsigned int trace_ctx)
{
	u32 val = READ_ONCE(rec->asked[i]);

	if (!val || (val & TRACE_UNWIND_SERVED) ||
	    !try_cmpxchg(&rec->asked[i], &val, val | TRACE_UNWIND_SERVED))
		return;
	if (!trace_unwind_write_stack(tr, frames, nr, flags, cookie, trace_ctx))
		cmpxchg(&rec->asked[i], val | TRACE_UNWIND_SERVED, val);
}

/* Results of trace_unwind_late_entry() that are not an entry */
#define TRACE_UNWIND_LATE_NO_ROOM	-1
#define TRACE_UNWIND_LATE_DONE		-2

/*
 * The deferred callback of this entry already ran, so no other will come
 * for a request of @slot: the entry to serve it from the unwind cache
 * (serving a served entry does nothing), TRACE_UNWIND_LATE_DONE when the
 * callback's broadcast wrote to the instance (one it could not write to
 * is noted), or TRACE_UNWIND_LATE_NO_ROOM
 * when the instance got its slot after the broadcast and there is no room
 * to note it: no stack will come.
 */
static int trace_unwind_late_entry(struct trace_unwind_task *rec,
				   struct trace_array *tr, unsigned int slot)
{
	u32 gen;
	int i;

	i = trace_unwind_find(rec, slot);
	if (i >= 0)
		return i;
	gen = READ_ONCE(rec->broadcast_gen);
	if (gen && tr->unwind_gen <= gen)
		return TRACE_UNWIND_LATE_DONE;
	i = trace_unwind_note(rec, slot);
	return i >= 0 ? i : TRACE_UNWIND_LATE_NO_ROOM;
}

/*
 * Answer from the task's unwind cache, which holds this entry's user stack
 * until the task returns to user space.  Reading it needs no fault.
 */
static void trace_unwind_serve_late(struct trace_unwind_task *rec, int i,
				    struct trace_array *tr, u64 cookie,
				    unsigned int trace_ctx)
{
	struct unwind_cache *cache = current->unwind_info.cache;

	trace_unwind_serve(rec, i, tr, cache ? cache->entries : NULL,
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
	struct trace_unwind_task *rec = &current->trace_unwind;
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
	unsigned long flags;
	unsigned int slot;
	u64 cookie;
	int late;

	/* Pairs with the release in trace_unwind_user_enable() */
	slot = smp_load_acquire(&tr->unwind_slot);
	if (!slot || !trace_unwind_user_task())
		goto kernel_only;
	slot--;

	/*
	 * The later events of an entry that this instance already asked
	 * for: another request would only return the same cookie.  The
	 * task's unwind id is that cookie until it returns to user space.
	 */
	cookie = READ_ONCE(current->unwind_info.id.id);
	if (cookie && READ_ONCE(rec->cookie) == cookie &&
	    trace_unwind_asked(rec, slot))
		goto write;

	/* On error the cookie may be set anyway: it means nothing */
	if (unwind_deferred_request(&trace_unwind_work, &cookie) < 0)
		goto kernel_only;

	local_irq_save(flags);
	if (trace_unwind_claim(rec, cookie)) {
		trace_unwind_drain_nmi(rec);
		/* No room to say which instance: give the stack to all */
		if (trace_unwind_note(rec, slot) < 0)
			WRITE_ONCE(rec->broadcast, 1);
	} else {
		/* Found the record half reset: the resetting context will see */
		WRITE_ONCE(rec->nmi, 1);
	}
	local_irq_restore(flags);

write:
	/*
	 * A request after the callback ran in this entry (for example from
	 * sched_switch on the way out) gets no callback of its own.  Looked
	 * at after noting the request, which the callback looks at after
	 * marking the entry delivered.
	 */
	barrier();
	late = TRACE_UNWIND_LATE_DONE;
	if (READ_ONCE(rec->delivered) == cookie)
		late = trace_unwind_late_entry(rec, tr, slot);

	trace_unwind_write_cookie(tr, cookie,
				  late == TRACE_UNWIND_LATE_NO_ROOM ?
				  TRACE_UNWIND_NO_USER_STACK : 0, &ask);
	if (late >= 0)
		trace_unwind_serve_late(rec, late, tr, cookie, trace_ctx);
	return;

kernel_only:
	/* No user stack to ask for: the kernel stack alone, as stacktrace */
	if (kernel_stack)
		__ftrace_trace_stack(tr, tr->array_buffer.buffer, trace_ctx,
				     regs ? 0 : skip + 1, regs);
}

/*
 * The broadcast could not write to the instance of @slot: note it, not
 * served, so that a later request of the instance in this entry is served
 * from the unwind cache, as when the write to a noted instance fails.
 * Room is a free entry or the served entry of an instance that the
 * broadcast loop has passed: the broadcast generation covers that one
 * from now on.  Without room the stack is lost to the instance, as any
 * event it could not record now.
 */
static void trace_unwind_note_failed(struct trace_unwind_task *rec,
				     unsigned int slot)
{
	unsigned int i, val;

	for (i = 0; i < TRACE_UNWIND_TASK_SLOTS; i++) {
		val = READ_ONCE(rec->asked[i]);
		if (val && (!(val & TRACE_UNWIND_SERVED) ||
			    (val & ~TRACE_UNWIND_SERVED) > slot))
			continue;
		if (try_cmpxchg(&rec->asked[i], &val, slot + 1))
			return;
	}
}

/* Every instance that held a slot at the broadcast and is not noted */
static void trace_unwind_broadcast(struct trace_unwind_task *rec,
				   struct unwind_stacktrace *trace, u64 cookie,
				   u32 gen, unsigned int trace_ctx)
{
	struct trace_array *tr;
	unsigned int slot;

	for (slot = 0; slot < TRACE_UNWIND_MAX_INSTANCES; slot++) {
		tr = rcu_dereference(trace_unwind_slots[slot]);
		if (!tr || tr->unwind_gen > gen ||
		    trace_unwind_find(rec, slot) >= 0)
			continue;
		if (!trace_unwind_write_stack(tr, trace->entries, trace->nr,
					      trace_unwind_type_flags(trace->types),
					      cookie, trace_ctx))
			trace_unwind_note_failed(rec, slot);
	}
}

static void trace_unwind_callback(struct unwind_work *work,
				  struct unwind_stacktrace *trace, u64 cookie)
{
	struct trace_unwind_task *rec = &current->trace_unwind;
	unsigned int trace_ctx = tracing_gen_ctx();
	struct trace_array *tr;
	unsigned long flags;
	u32 val, gen = 0;
	unsigned int i;

	local_irq_save(flags);
	/* Only an NMI can fail to claim, and this is not one */
	WARN_ON_ONCE(!trace_unwind_claim(rec, cookie));
	trace_unwind_drain_nmi(rec);
	/* From here on, requests of this entry deliver by themselves */
	WRITE_ONCE(rec->delivered, cookie);
	local_irq_restore(flags);

	/*
	 * After marking the entry delivered: a request noted before that
	 * is served here, one noted after serves itself.  The instances
	 * given a slot after this point are not in the broadcast.
	 */
	barrier();
	if (READ_ONCE(rec->broadcast)) {
		gen = READ_ONCE(trace_unwind_gen);
		WRITE_ONCE(rec->broadcast_gen, gen);
	}

	guard(rcu)();
	for (i = 0; i < TRACE_UNWIND_TASK_SLOTS; i++) {
		val = READ_ONCE(rec->asked[i]) & ~TRACE_UNWIND_SERVED;
		if (!val)
			continue;
		tr = rcu_dereference(trace_unwind_slots[val - 1]);
		if (tr)
			trace_unwind_serve(rec, i, tr, trace->entries,
					   trace->nr,
					   trace_unwind_type_flags(trace->types),
					   cookie, trace_ctx);
	}
	if (gen)
		trace_unwind_broadcast(rec, trace, cookie, gen, trace_ctx);
}

/*
 * The frames of a record's array, or none when its __data_loc points
 * outside the entry (a buffer kept from the last boot may be damaged).
 */
static const unsigned long *trace_unwind_array(struct trace_iterator *iter,
					       u32 loc, unsigned int *nr)
{
	unsigned int off = loc & 0xffff, len = loc >> 16;

	*nr = 0;
	if (off > iter->ent_size || len > iter->ent_size - off)
		return NULL;
	*nr = len / sizeof(unsigned long);
	return (void *)iter->ent + off;
}

/*
 * The trace file shows the kernel stack of a user_stack_cookie record by
 * name, the way it shows ftrace:kernel_stack.  The print format in the
 * event's format file is for readers of the binary records.
 */
static enum print_line_t trace_unwind_cookie_print(struct trace_iterator *iter,
						   int flags,
						   struct trace_event *event)
{
	struct trace_event_raw_user_stack_cookie *field = (void *)iter->ent;
	struct trace_seq *s = &iter->seq;
	const unsigned long *calls;
	unsigned int i, nr;
	int ret;

	ret = trace_raw_output_prep(iter, event);
	if (ret != TRACE_TYPE_HANDLED)
		return ret;

	trace_seq_printf(s, "cookie=0x%llx%s\n", field->cookie,
			 field->flags & TRACE_UNWIND_NO_USER_STACK ?
			 " (no user stack)" : "");

	calls = trace_unwind_array(iter, field->__data_loc_kernel, &nr);
	for (i = 0; i < nr && !trace_seq_has_overflowed(s); i++) {
		trace_seq_puts(s, " => ");
		if (calls[i] == FTRACE_TRAMPOLINE_MARKER)
			trace_seq_puts(s, "[FTRACE TRAMPOLINE]");
		else
			seq_print_ip_sym(s, trace_adjust_address(iter->tr,
								 calls[i]),
					 flags);
		trace_seq_putc(s, '\n');
	}
	return trace_handle_return(s);
}

/* The unwinder flags of user_stack_deferred, as trace prints them */
static const struct {
	unsigned int	flag;
	const char	*name;
} trace_unwind_names[] = {
	{ TRACE_UNWIND_SFRAME,		"sframe" },
	{ TRACE_UNWIND_FP,		"fp" },
	{ TRACE_UNWIND_BACKCHAIN,	"backchain" },
};

/* The user frames in hex, as __print_array() prints them */
static enum print_line_t trace_unwind_stack_print(struct trace_iterator *iter,
						  int flags,
						  struct trace_event *event)
{
	struct trace_event_raw_user_stack_deferred *field = (void *)iter->ent;
	struct trace_seq *s = &iter->seq;
	const unsigned long *frames;
	const char *sep;
	unsigned int i, nr;
	int ret;

	ret = trace_raw_output_prep(iter, event);
	if (ret != TRACE_TYPE_HANDLED)
		return ret;

	frames = trace_unwind_array(iter, field->__data_loc_frames, &nr);
	trace_seq_printf(s, "cookie=0x%llx tgid=%d nr=%u", field->cookie,
			 field->tgid, nr);
	if (field->depth != nr)
		trace_seq_printf(s, " depth=%u", field->depth);
	if (field->flags & TRACE_UNWIND_TRUNCATED)
		trace_seq_puts(s, " (truncated)");
	if (field->flags & TRACE_UNWIND_LATE)
		trace_seq_puts(s, " (late)");
	/* in the order the walk tries them: sframe, sframe+fp, backchain... */
	sep = " unwinder=";
	for (i = 0; i < ARRAY_SIZE(trace_unwind_names); i++) {
		if (!(field->flags & trace_unwind_names[i].flag))
			continue;
		trace_seq_printf(s, "%s%s", sep, trace_unwind_names[i].name);
		sep = "+";
	}
	trace_seq_puts(s, " frames={");
	for (i = 0; i < nr && !trace_seq_has_overflowed(s); i++)
		trace_seq_printf(s, "%s0x%lx", i ? "," : "", frames[i]);
	trace_seq_puts(s, "}\n");
	return trace_handle_return(s);
}

static struct trace_event_functions trace_unwind_cookie_funcs = {
	.trace		= trace_unwind_cookie_print,
};

static struct trace_event_functions trace_unwind_stack_funcs = {
	.trace		= trace_unwind_stack_print,
};

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

	/*
	 * Before the events are registered: the records are written by
	 * this file alone, so they have no enable, filter or trigger file,
	 * and the trace file prints them with the functions above.
	 */
	event_user_stack_cookie.flags |= TRACE_EVENT_FL_IGNORE_ENABLE;
	event_user_stack_cookie.event.funcs = &trace_unwind_cookie_funcs;
	event_user_stack_deferred.flags |= TRACE_EVENT_FL_IGNORE_ENABLE;
	event_user_stack_deferred.event.funcs = &trace_unwind_stack_funcs;

	ret = unwind_deferred_init(&trace_unwind_work, trace_unwind_callback);
	if (ret) {
		pr_warn("tracing: no deferred user stacks: %d\n", ret);
		return;
	}
	trace_unwind_ready = true;
}
