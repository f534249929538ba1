// SPDX-License-Identifier: LGPL-2.1
/*
 * What the hosts do not give a print plugin, in one place.
 *
 * plugin_unwind_deferred.c is a libtraceevent plugin as libtraceevent's
 * own are: options, a handler per record, loader and unloader.  But a
 * print plugin is called for one record at a time, only for the events it
 * registered, and is not told which file it reads, while the stacks it
 * merges are an event, its cookie record just after it, and a user stack
 * record that comes later in the file.  What stock trace-cmd (3.1.6,
 * 3.4) users see (merged stacks, under the event's name, with named user
 * frames) needs the five workarounds below.  Each says why it is here and
 * which host API would remove it.  The series' trace-cmd report needs
 * none of them: it sets TEP_EVENT_FL_NOHANDLE on the two stack records,
 * so this plugin's handlers are never called there, and it prints the
 * stacks under each event itself (libustack's join and printer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <event-utils.h>
#include <kbuffer.h>

#include "plugin_unwind_deferred.h"

#define UD_MAX_SUBBUF_EVENTS	65536	/* bound of a sub-buffer walk */

struct ud_wrap;

/* libtracecmd's tracecmd_record_page() */
typedef void *(*ud_record_page_func)(void *handle, struct tep_record *record);

struct ud_host {
	char			*own_file;	/* 2 */
	int			wrapped;	/* 3 */
	struct ud_wrap		*wraps;
	ud_record_page_func	record_page;	/* 4: NULL unless needed */
	const char		*hiding;	/* 5 */
	int			hidden_counted;
};

/* ------------------------------------------------------------------ */
/*
 * 1. Two copies of the plugin.  libtraceevent loads every
 * plugin_unwind_deferred.so it finds (its system directory,
 * ~/.local/lib/traceevent/plugins, TRACEEVENT_PLUGIN_DIR), RTLD_GLOBAL;
 * two copies would both register their handlers (libtraceevent calls
 * the last one's) and both feed a join, and under report -F the copy
 * never called would say at exit that -F hid every stack record.  The
 * first copy loaded serves the handle: a later copy asks the claim
 * function dlsym() finds (the first copy's) whether the handle is
 * served, and if so warns and stays idle.  Removed by: a loader that
 * loads one plugin of a name.
 */
int unwind_deferred_plugin_claim(struct tep_handle *tep, int claim);

/* Whether this copy serves @tep; @claim is not used any more. */
int unwind_deferred_plugin_claim(struct tep_handle *tep, int claim)
{
	(void)claim;
	return ud_find_state(tep) != NULL;
}

typedef int (*ud_claim_func)(struct tep_handle *tep, int claim);

int ud_host_other_copy(struct tep_handle *tep)
{
	ud_claim_func claim;

	/* the first copy's (even a call to ours would be interposed) */
	claim = (ud_claim_func)dlsym(RTLD_DEFAULT,
				     "unwind_deferred_plugin_claim");
	if (!claim || !claim(tep, 0))
		return 0;
	tep_warning("unwind_deferred: another copy of the plugin is loaded; this one is not used\n");
	return 1;
}

/* ------------------------------------------------------------------ */
/*
 * 2. The trace file.  The user frames are named from the maps saved in
 * the trace file and the binaries next to it, and a plugin is not told
 * which file it reads.  When libtracecmd loads the plugins for a handle,
 * it has just opened that handle's file: the open trace file (trace-cmd's
 * magic at its start) with the highest descriptor (report -i A -i B opens
 * A, loads the plugins for it, then B).  -O unwind_deferred:file=PATH
 * names it instead.  Removed by: a way to ask the tep handle's owner for
 * its file (or for the saved maps themselves).
 */
static char *newest_trace_file(void)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				      'i', 'n', 'g' };
	char link[64], path[PATH_MAX], head[sizeof(magic)];
	char *found = NULL;
	struct dirent *de;
	struct stat st;
	int best = -1;
	ssize_t n;
	DIR *dir;
	int fd;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return NULL;
	while ((de = readdir(dir))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd == dirfd(dir) || fd <= best)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    pread(fd, head, sizeof(head), 0) != sizeof(head) ||
		    memcmp(head, magic, sizeof(magic)))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		free(found);
		found = strdup(path);
		best = fd;
	}
	closedir(dir);
	return found;
}

char *ud_host_trace_file(struct ud_state *st)
{
	return st->host->own_file ? strdup(st->host->own_file) : NULL;
}

/* ------------------------------------------------------------------ */
/*
 * 3. The records of other events.  The join needs the event before each
 * cookie record (its name, its time), and libtraceevent calls a plugin
 * only for the events it registered.  So the plugin wraps the handler of
 * every other event: the wrapper gives the record to the join, then calls
 * the handler that was there (or lets libtraceevent print the event as
 * usual): output unchanged, and the unloader puts the handlers back.
 * The handlers can only be wrapped once the formats are parsed: at load
 * in a reader that parses them first, else (libtracecmd loads plugins
 * before it reads the formats) at the first call of one of the plugin's
 * own handlers; 4 covers the records before that.  4 alone, for every
 * cookie, is not enough: a cookie that starts its sub-buffer loses its
 * event (one in tests/fixtures/option-T.dat).  A catch-all handler
 * registered at load is not a way out: libtraceevent gives each event the
 * last matching handler, so it would take the events of the plugins
 * loaded before this one and of trace-cmd's own handlers.  Removed by:
 * a hook called for every record (or a registered "observer" that does
 * not replace the event's handler).
 */
struct ud_wrap {
	struct ud_wrap		*next;
	struct ud_state		*st;
	struct tep_event	*event;
	tep_event_handler_func	orig;
	void			*orig_ctx;
};

static int ud_wrapper(struct trace_seq *s, struct tep_record *record,
		      struct tep_event *event, void *context)
{
	struct ud_wrap *w = context;

	ud_note_record(w->st, record);
	if (w->orig)
		return w->orig(s, record, event, w->orig_ctx);
	return 1;	/* libtraceevent prints it as usual */
}

static void wrap_all(struct ud_state *st)
{
	struct tep_event *event;
	struct ud_wrap *w;
	int i, n;

	st->host->wrapped = 1;
	n = tep_get_events_count(st->tep);
	for (i = 0; i < n; i++) {
		event = tep_get_event(st->tep, i);
		if (!event || event->handler == ud_wrapper)
			continue;
		/* the plugin's own records have its handlers */
		switch (ud_event_role(event)) {
		case UD_COOKIE:
		case UD_DEFERRED:
		case UD_PRERELEASE:
			continue;
		default:
			break;
		}
		w = calloc(1, sizeof(*w));
		if (!w)
			return;
		w->st = st;
		w->event = event;
		w->orig = event->handler;
		w->orig_ctx = event->context;
		w->next = st->host->wraps;
		st->host->wraps = w;
		event->handler = ud_wrapper;
		event->context = w;
	}
}

static void unwrap_all(struct ud_state *st)
{
	struct ud_wrap *w;

	while ((w = st->host->wraps)) {
		st->host->wraps = w->next;
		if (w->event->handler == ud_wrapper && w->event->context == w) {
			w->event->handler = w->orig;
			w->event->context = w->orig_ctx;
		}
		free(w);
	}
}

/* At each call of the plugin's handlers: wrap, once */
void ud_host_seen(struct ud_state *st)
{
	if (!st->host->wrapped)
		wrap_all(st);
}

/* ------------------------------------------------------------------ */
/*
 * 4. The event before a cookie whose CPU had no record seen before it:
 * under libtracecmd the records before the first cookie record (3), and
 * the first record after lost events.  libtracecmd keeps the ring-buffer
 * sub-buffer of each record it returns in memory, and
 * tracecmd_record_page() (exported, not in its public header; found with
 * dlsym() so that the plugin needs libtraceevent alone) gives its start.
 * The walk, with libtraceevent's kbuffer, must reach the cookie's own
 * data, or nothing is taken from it.  When an event of the cookie's task
 * is just before it (kernel_stack records of that task may sit between),
 * that event goes to the join first, so that the cookie finds it.  A
 * cookie that is the first record of its sub-buffer stays "(event not
 * seen)".  Removed by: 3's hook, or plugins loaded after the formats.
 */
void ud_host_asker(struct ud_state *st, struct tep_record *record)
{
	unsigned long long t, rec_t = 0, ev_t = 0;
	int cand = 0, cand_pid = 0, found = 0, n;
	struct tep_handle *tep = st->tep;
	struct tep_record r, ask;
	void *page, *data, *cand_data = NULL;
	int cand_size = 0;
	struct tep_event *ev;
	struct kbuffer *kbuf;

	if (!st->host->record_page || !record->priv || !record->data)
		return;
	page = st->host->record_page(NULL, record);
	if (!page)
		return;
	kbuf = tep_kbuffer(tep);
	if (!kbuf)
		return;
	if (tep_is_old_format(tep))
		kbuffer_set_old_format(kbuf);
	if (kbuffer_load_subbuffer(kbuf, page) < 0)
		goto out;
	memset(&r, 0, sizeof(r));
	data = kbuffer_read_event(kbuf, &t);
	for (n = 0; data && n < UD_MAX_SUBBUF_EVENTS; n++) {
		if (data == record->data) {
			found = 1;
			rec_t = t;
			break;
		}
		r.data = data;
		r.size = kbuffer_event_size(kbuf);
		ev = r.size >= 8 ? tep_find_event(tep, tep_data_type(tep, &r)) :
			NULL;
		switch (ud_event_role(ev)) {
		case UD_OTHER:
			cand = 1;
			cand_pid = tep_data_pid(tep, &r);
			cand_data = data;
			cand_size = r.size;
			ev_t = t;
			break;
		case UD_KSTACK:
			if (cand && tep_data_pid(tep, &r) != cand_pid)
				cand = 0;
			break;
		default:
			cand = 0;
			break;
		}
		data = kbuffer_next_event(kbuf, &t);
	}
	if (found && cand && cand_pid == tep_data_pid(tep, record)) {
		memset(&ask, 0, sizeof(ask));
		ask.data = cand_data;
		ask.size = cand_size;
		ask.record_size = cand_size;
		ask.cpu = record->cpu;
		/* record->ts is the reader's time (offsets, clocks): keep the gap */
		ask.ts = record->ts - (rec_t >= ev_t ? rec_t - ev_t : 0);
		ask.ref_count = 1;
		ud_feed_asker(st, &ask);
	}
out:
	kbuffer_free(kbuf);
}

/* ------------------------------------------------------------------ */
/*
 * 5. Report's filters.  trace-cmd report --cpu, -F, -I and -S show only
 * some records, and a plugin is called only for the records shown: the
 * ones that complete a stack (its cookie record, the user stack on
 * another CPU) may not be.  The plugin finds these options in its
 * process's command line and says once on stderr, at exit (report -F may
 * exit without unloading), what it could not show and what shows it:
 * - no stack record was shown (-F without the stack records): the filter
 *   took them out, and adding them to -F shows the stacks;
 * - else the events shown that asked for a user stack and still wait for
 *   it: their user stack record was hidden, or never recorded.
 * It does not read the hidden records itself (a second look-ahead beside
 * the series' report: decisions.md, "Filters, and report's cost").
 * Removed by: a host that tells a plugin its filters, or calls it at the
 * end of the trace.
 */
static const char *report_hiding_option(void)
{
	static const char *const opts[] = { "--cpu", "-F", "-I", "-S" };
	char buf[8192];
	const char *arg, *found = NULL;
	ssize_t n;
	int fd, i, report = 0;

	fd = open("/proc/self/cmdline", O_RDONLY);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (arg = buf; arg < buf + n; arg += strlen(arg) + 1) {
		if (!strcmp(arg, "report"))
			report = 1;
		for (i = 0; report && !found && i < 4; i++) {
			size_t len = strlen(opts[i]);

			/* --cpu 0, --cpu=0, -F filter, -Ffilter */
			if (!strncmp(arg, opts[i], len) &&
			    (!arg[len] || arg[len] == '=' || i == 1))
				found = opts[i];
		}
	}
	return found;
}

const char *ud_host_hiding(struct ud_state *st)
{
	return st->host->hiding;
}

/* What the handles' reports hid, added up at unload */
static struct {
	const char		*option;
	unsigned long long	stack_records;
	unsigned long long	waiting;
	int			said;
} hidden;

static void count_hidden(struct ud_state *st)
{
	struct ustack_join_stats js;

	if (!st->host->hiding || st->host->hidden_counted ||
	    !tep_find_event_by_name(st->tep, USTACK_RECORD_SYSTEM,
				    USTACK_RECORD_COOKIE))
		return;
	st->host->hidden_counted = 1;
	hidden.option = st->host->hiding;
	hidden.stack_records += st->stack_records;
	if (st->join && !ustack_join_get_stats(st->join, &js))
		hidden.waiting += js.pending_events;
}

static void say_hidden_at_exit(void)
{
	struct ud_state *st;

	for (st = ud_states; st; st = st->next)
		count_hidden(st);
	if (!hidden.option || hidden.said)
		return;
	hidden.said = 1;
	if (!hidden.stack_records && !strcmp(hidden.option, "-F"))
		fprintf(stderr,
			"unwind_deferred: report -F filtered out the stack records (%s, %s): add -F %s -F %s to see them, or use ustack or the series' trace-cmd report\n",
			USTACK_RECORD_COOKIE, USTACK_RECORD_STACK,
			USTACK_RECORD_COOKIE, USTACK_RECORD_STACK);
	else if (hidden.waiting)
		fprintf(stderr,
			"unwind_deferred: report %s: %llu events shown here asked for a user stack that this report does not show (filtered out by %s, or never recorded); ustack or the series' trace-cmd report shows them\n",
			hidden.option, hidden.waiting, hidden.option);
}

/* ------------------------------------------------------------------ */

int ud_host_load(struct ud_state *st)
{
	static int registered;
	struct ud_host *h;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -1;
	st->host = h;
	h->own_file = newest_trace_file();		/* 2 */
	h->hiding = report_hiding_option();		/* 5 */
	if (h->hiding && !registered++)
		atexit(say_hidden_at_exit);
	if (tep_get_events_count(st->tep) > 0)		/* 3 */
		wrap_all(st);
	else						/* 4 */
		h->record_page = (ud_record_page_func)
			dlsym(RTLD_DEFAULT, "tracecmd_record_page");
	return 0;
}

void ud_host_unload(struct ud_state *st)
{
	if (!st->host)
		return;
	count_hidden(st);
	unwrap_all(st);
	free(st->host->own_file);
	free(st->host);
	st->host = NULL;
}
