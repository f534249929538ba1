/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What plugin_unwind_deferred.c (the plugin: options, handlers,
 * loader) and plugin_unwind_deferred_host.c (what the hosts' APIs do not
 * give a plugin) share.  Nothing here is exported from the .so.
 */
#ifndef _PLUGIN_UNWIND_DEFERRED_H
#define _PLUGIN_UNWIND_DEFERRED_H

#include <event-parse.h>
#include <trace-seq.h>

#include "ustack.h"
#include "ustack-file.h"

#pragma GCC visibility push(hidden)

#define UD_ALIAS	"unwind_deferred"

enum ud_role {
	UD_OTHER,	/* an event that may ask */
	UD_KSTACK,	/* ftrace:kernel_stack: never asks, may sit between */
	UD_COOKIE,
	UD_DEFERRED,
	UD_PRERELEASE,	/* unwind:user_stack_cookie, unwind:user_stack_deferred */
	UD_UNKNOWN,	/* a record of no known event */
};

struct ud_cpu;
struct ud_host;

/* Per tep handle. */
struct ud_state {
	struct ud_state		*next;
	struct tep_handle	*tep;
	int			prerelease_said;
	struct ud_cpu		**cpus;
	int			nr_cpus;
	/* libustack's join; join_failed: the formats are not its */
	struct ustack_join	*join;
	int			join_failed;
	/* what the join delivered while the current record was fed:
	 * the blocks of the events it completed, the evictions' notes */
	int			collect;
	struct trace_seq	blocks;
	int			nr_blocks;
	enum ustack_status	first_status;
	struct trace_seq	notes;
	int			noted_pid;
	unsigned long long	noted_cookie;
	unsigned long		evicted;
	/* the last record seen, to ignore it when printed again */
	int			have_last;
	int			last_cpu;
	unsigned long long	last_offset;
	unsigned long long	last_ts;
	/* the names of user frames: the trace file's maps, its binaries */
	int			syms_tried;
	struct ustack_file	*file;
	struct ustack_syms	*syms;
	/* the stack records printed (plugin_unwind_deferred_host.c) */
	unsigned long long	stack_records;
	struct ud_host		*host;
};

/* plugin_unwind_deferred.c */
extern struct ud_state *ud_states;
struct ud_state *ud_find_state(struct tep_handle *tep);
enum ud_role ud_event_role(struct tep_event *event);
void ud_note_record(struct ud_state *st, struct tep_record *record);
void ud_feed_asker(struct ud_state *st, struct tep_record *record);

/* plugin_unwind_deferred_host.c */
int ud_host_other_copy(struct tep_handle *tep);
int ud_host_load(struct ud_state *st);
void ud_host_unload(struct ud_state *st);
void ud_host_seen(struct ud_state *st);
void ud_host_asker(struct ud_state *st, struct tep_record *record);
char *ud_host_trace_file(struct ud_state *st);
const char *ud_host_hiding(struct ud_state *st);

#pragma GCC visibility pop

#endif /* _PLUGIN_UNWIND_DEFERRED_H */
