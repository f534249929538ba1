// SPDX-License-Identifier: GPL-2.0
/*
 * ustack: print each event with its kernel stack and its deferred user
 * stack, from a trace.dat file or live from a tracefs instance, as text,
 * as folded stacks for flame graphs or as a summary of the call paths
 * per event; the events chosen as trace-cmd report chooses them (-F,
 * --pid, --comm) and by time (evfilter.c).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <trace-cmd.h>
#include <event-utils.h>

#include "ustack.h"
#include "ustack-file.h"
#include "evfilter.h"
#include "ustack-local.h"
#include "tree.h"
#include "weight.h"
#include "flame.h"
#include "json.h"

#define EXIT_SYMS	2	/* done, but some ELF file could not be read */
#define EXIT_DAMAGED	3	/* done, but the trace is damaged */

#ifndef USTACK_VERSION
#define USTACK_VERSION	"unknown"
#endif

/* long options without a letter */
enum {
	OPT_TRACEFS	= 256,
	OPT_FOLDED,
	OPT_SUMMARY,
	OPT_INLINE,
	OPT_PID,
	OPT_COMM,
	OPT_TIME,
	OPT_TRACER_FRAMES,
	OPT_NO_ANNOTATE,
	OPT_TREE,
	OPT_PERCENT_LIMIT,
	OPT_MAX_STACK,
	OPT_SORT,
	OPT_NO_KERNEL,
	OPT_WEIGHT,
	OPT_JSON,
	OPT_FLAMEGRAPH,
	OPT_ARCHIVE,
};

struct ctx {
	struct ustack_syms	*syms;
	bool			raw;
	bool			quiet;		/* -q: no warnings */
	bool			folded;
	bool			summary;	/* --summary */
	bool			inline_frames;	/* --inline */
	bool			tracer_frames;	/* --tracer-frames */
	bool			no_annotate;	/* --no-annotate: no _[k] */
	bool			tree;		/* --tree */
	bool			no_kernel;	/* --no-kernel */
	struct tree_opts	topts;		/* --tree's */
	struct weights		*weights;	/* --weight=latency */
	bool			json;		/* --json */
	bool			flame;		/* --flamegraph (folded set too) */
	const char		*archive;	/* --archive: into this directory */
	bool			archiving;	/* --archive given */
	int			archive_missing;
	bool			said;		/* an error was told */
	struct evfilter		*filter;	/* -F, --pid, --comm, --time */
	bool			live;
	bool			multi;		/* several buffer instances */
	int			arch;		/* USTACK_FRAME_S390X or 0 */
	struct folded		*tab;		/* open addressing */
	size_t			tab_size;
	size_t			tab_used;
	int			*loaded;	/* live: tgids whose maps we read */
	int			nr_loaded;
	char			*buf;
	size_t			buf_size;
	size_t			buf_len;
	int			error;
	bool			write_error;
	int			sym_errors;
	/* kernel frames that kallsyms names, and those it does not */
	unsigned long long	kframes_named;
	unsigned long long	kframes_unnamed;
	/* user frames in their process's maps, and those outside */
	unsigned long long	uframes_mapped;
	unsigned long long	uframes_unmapped;
	/* ... of an image before an exec whose maps were not saved, and
	 * of processes whose maps were not saved at all */
	unsigned long long	uframes_before_exec;
	unsigned long long	uframes_no_maps;
	unsigned long long	ts;		/* of the event being shown */
	struct ustack_join_stats stats;	/* of the whole run */
};

static struct ustack_live *live_handle;
/* errors libustack has told the user about, in ustack's name */
static int lib_errors;

/*
 * The libraries' messages go through libtraceevent's tep_vprint().
 * libustack's (those its log level lets through) say what failed
 * precisely ("X: not a readable trace.dat file"): print them as
 * ustack's own, and do not repeat them in vaguer words.  The other
 * libraries' are printed as libtraceevent prints them.
 */
int tep_vprint(const char *name, enum tep_loglevel level, bool print_err,
	       const char *fmt, va_list ap)
{
	if (!name || strcmp(name, "libustack"))
		return __tep_vprint(name, level, print_err, fmt, ap);
	fprintf(stderr, "ustack: %s", level > TEP_LOG_ERROR ? "warning: " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (level <= TEP_LOG_ERROR)
		lib_errors++;
	return 0;
}

/*
 * Every write counts: a full disk must not look like success.  err is
 * the error a write already saw, if any.  Returns 0, or -1 after saying
 * so on stderr.
 */
static int check_stdout(int err)
{
	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout) || err) {
		if (errno)
			err = errno;
		fprintf(stderr, "ustack: write error: %s\n",
			strerror(err ? err : EIO));
		return -1;
	}
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: ustack [OPTIONS] [FILE]          (FILE defaults to trace.dat)\n"
"       ustack -i INSTANCE [OPTIONS]     read live from tracefs\n"
"\n"
"Each event that asked for a deferred user stack, with its kernel frames\n"
"then its user frames as function+offset (binary).\n"
"\n"
"  -F FILTER             only the events FILTER matches, in trace-cmd\n"
"                        report's -F syntax ('sys_enter_getppid',\n"
"                        'sched/sched_switch: prev_pid==5', '.*:COMM==\"x\"');\n"
"                        repeatable: the events any of them matches\n"
"      --pid PID[,PID]   only the events of these threads (common_pid)\n"
"      --comm COMM[,..]  only the events of tasks of these names\n"
"      --time START,END  only the events from START to END (seconds, as the\n"
"                        event lines print them; either may be left out)\n"
"      --folded          folded stacks (event;comm;frame;... count),\n"
"                        outermost first, one line per distinct stack\n"
"      --summary         per event, its distinct user call paths (callers\n"
"                        first) with counts and percentages, most first\n"
"      --inline          user frames with their source lines and the\n"
"                        functions inlined there, as trace-cmd report\n"
"      --tracer-frames   also the tracer's own kernel frames (the event's\n"
"                        probe, tracepoint and trigger), hidden by default\n"
"      --no-annotate     --folded: kernel frames without the _[k] mark\n"
"      --tree[=caller|callee]  per event, the functions on its stacks with\n"
"                        their shares (children, self), each with its\n"
"                        callees (caller, the default) or its callers\n"
"      --sort KEYS       --tree's entries by comm,dso,sym (the default)\n"
"      --percent-limit P --tree: no entry or branch under P%%\n"
"      --max-stack N     --tree: the N innermost frames of each stack\n"
"      --no-kernel       --tree: user frames only\n"
"      --json            one JSON object per event, a line each\n"
"      --flamegraph      the folded stacks as a flame graph, an SVG\n"
"      --archive[=DIR]   print no events: copy the binaries their user\n"
"                        frames are in into DIR (default: .debug in FILE's\n"
"                        directory) by build ID, where every reader looks\n"
"                        for them\n"
"      --weight=latency  --folded, --flamegraph, --summary, --tree: each\n"
"                        event weighs the time to its pair (sys_enter_X\n"
"                        to sys_exit_X, sched_switch out to back in), ns\n"
"  -B, --buffer NAME     only this buffer instance of FILE (top: \"top\")\n"
"  -s, --symdir DIR      look for the binaries named in the maps in DIR\n"
"                        (repeatable; FILE's directory is searched too)\n"
"  -r, --raw             addresses only, no symbols\n"
"  -q, --quiet           no warnings\n"
"      --stats           join statistics on stderr\n"
"  live:\n"
"  -i, --instance NAME   tracefs instance (\"top\" for the top one); created\n"
"                        and removed again if it does not exist\n"
"  -e, --event SYS:EV    put stacktrace:defer on SYS:EV and enable it\n"
"  -f, --filter FILTER   filter for that trigger\n"
"  -c, --count N         count for that trigger\n"
"  -O, --option          set options stacktrace and userstacktrace_defer\n"
"  -d, --duration SEC    stop after SEC seconds (default: at Ctrl-C)\n"
"      --tracefs DIR     tracefs is mounted at DIR (default: found)\n"
"  -v, --verbose         also show the messages of libtracecmd,\n"
"                        libtraceevent and libtracefs\n"
"  -V, --version         print the version and exit\n"
"  -h, --help            print this help and exit\n"
"\n"
"Exit status: 0 done; 1 error; 2 done, but a binary could not be read;\n"
"3 done, but the trace is damaged (see the warning on stderr).\n");
}

static int buf_add(struct ctx *c, const char *s)
{
	size_t len = strlen(s);
	char *p;

	if (c->buf_len + len + 1 > c->buf_size) {
		size_t n = (c->buf_len + len + 1) * 2;

		p = realloc(c->buf, n);
		if (!p)
			return -1;
		c->buf = p;
		c->buf_size = n;
	}
	memcpy(c->buf + c->buf_len, s, len + 1);
	c->buf_len += len;
	return 0;
}

static unsigned long str_hash(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static int folded_add(struct ctx *c, const char *stack)
{
	size_t i;

	if (c->tab_used * 2 >= c->tab_size) {
		size_t n = c->tab_size ? c->tab_size * 2 : 1024;
		struct folded *t = calloc(n, sizeof(*t));

		if (!t)
			return -1;
		for (i = 0; i < c->tab_size; i++) {
			size_t j;

			if (!c->tab[i].stack)
				continue;
			j = str_hash(c->tab[i].stack) & (n - 1);
			while (t[j].stack)
				j = (j + 1) & (n - 1);
			t[j] = c->tab[i];
		}
		free(c->tab);
		c->tab = t;
		c->tab_size = n;
	}
	i = str_hash(stack) & (c->tab_size - 1);
	while (c->tab[i].stack && strcmp(c->tab[i].stack, stack))
		i = (i + 1) & (c->tab_size - 1);
	if (!c->tab[i].stack) {
		c->tab[i].stack = strdup(stack);
		if (!c->tab[i].stack)
			return -1;
		c->tab_used++;
	}
	c->tab[i].count++;
	return 0;
}

static int folded_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

/*
 * The distinct stacks of the table moved to its front, for the outputs
 * drawn from them at the end: their number
 */
static size_t table_compact(struct ctx *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->tab_size; i++)
		if (c->tab[i].stack)
			c->tab[n++] = c->tab[i];
	return n;
}

static void table_free(struct ctx *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(c->tab[i].stack);
	free(c->tab);
	c->tab = NULL;
}

static void folded_print(struct ctx *c)
{
	size_t i, n = table_compact(c);

	if (n)		/* no table at all when no event came */
		qsort(c->tab, n, sizeof(*c->tab), folded_cmp);
	for (i = 0; i < n; i++)
		printf("%s %llu\n", c->tab[i].stack, c->tab[i].count);
	table_free(c, n);
}

static int summary_print(struct ctx *c);

/* --tree at the end: each key split, the tree libustack's */
static int tree_out(struct ctx *c)
{
	size_t n = table_compact(c), i;
	struct ustack_tree *t = ustack_tree_alloc(c->topts.flags);
	struct ustack_tree_frame *fr = NULL;
	int nr, alloc = 0, ret = t ? 0 : -1;
	struct trace_seq s;
	char *p, *f, *o;

	if (t && ((c->topts.sort && ustack_tree_set_sort(t, c->topts.sort)) ||
		  ustack_tree_set_limits(t, c->topts.limit, c->topts.max_stack)))
		ret = -1;
	for (i = 0; !ret && i < n; i++) {
		/* event, comm, frames: each "name" or "name" TREE_DSO "object" */
		for (nr = 0, f = c->tab[i].stack; f && !ret; f = p, nr++) {
			p = strchr(f, TREE_SEP);
			if (p)
				*p++ = '\0';
			if (nr >= alloc) {
				alloc = alloc * 2 + 16;
				fr = realloc(fr, alloc * sizeof(*fr));
				ret = fr ? 0 : -1;
				if (ret)
					break;
			}
			o = strchr(f, TREE_DSO);
			if (o)
				*o++ = '\0';
			fr[nr] = (struct ustack_tree_frame){ f, o };
		}
		if (!ret && nr >= 2 &&
		    ustack_tree_add(t, fr[0].name, fr[1].name, fr + 2, nr - 2,
				    c->tab[i].count) < 0)
			ret = -1;
	}
	trace_seq_init(&s);
	if (!ret && !ustack_tree_print(&s, t))
		fwrite(s.buffer, 1, s.len, stdout);
	else
		ret = -1;
	trace_seq_destroy(&s);
	free(fr);
	ustack_tree_free(t);
	table_free(c, n);
	return ret;
}

/* --flamegraph at the end (flame.c) */
static int flame_out(struct ctx *c)
{
	size_t n = table_compact(c);
	int ret = flame_print(stdout, c->tab, n, c->weights != NULL);

	table_free(c, n);
	return ret;
}

/* --weight's callback: the weight of an event counted under @key */
static int add_weight(void *data, const char *key, unsigned long long weight)
{
	struct ctx *c = data;
	size_t i;

	if (!c->tab_size)
		return 0;
	i = str_hash(key) & (c->tab_size - 1);
	while (c->tab[i].stack && strcmp(c->tab[i].stack, key))
		i = (i + 1) & (c->tab_size - 1);
	if (c->tab[i].stack)
		c->tab[i].weight += weight;
	return 0;
}

/*
 * --weight=latency, at the end: the last pairs, then each stack's
 * weight in place of its count; the stacks of events without a pair
 * (no weight) leave the table, and a note says how many
 */
static int weights_finish(struct ctx *c)
{
	struct weights_stats st;
	size_t i;

	if (weights_flush(c->weights) < 0)
		return -1;
	for (i = 0; i < c->tab_size; i++) {
		if (!c->tab[i].stack)
			continue;
		c->tab[i].count = c->tab[i].weight;
		if (!c->tab[i].weight) {
			free(c->tab[i].stack);
			c->tab[i].stack = NULL;
		}
	}
	weights_get_stats(c->weights, &st);
	if (!c->quiet && (st.unpaired || st.no_kind))
		fprintf(stderr, "ustack: note: --weight=latency: %llu events weighed; %llu without their pair in the trace, %llu of events that have none: left out\n",
			st.paired, st.unpaired, st.no_kind);
	return 0;
}

/* --folded or --summary at the end: 0, or -1 after saying why */
static int aggregate_print(struct ctx *c)
{
	if (c->weights && weights_finish(c) < 0) {
		fprintf(stderr, "ustack: %s\n", strerror(ENOMEM));
		return -1;
	}
	if (c->summary && summary_print(c) < 0) {
		fprintf(stderr, "ustack: %s\n", strerror(ENOMEM));
		return -1;
	}
	if (c->flame && flame_out(c) < 0) {
		fprintf(stderr, "ustack: %s\n", strerror(ENOMEM));
		return -1;
	}
	if (c->folded && !c->flame)
		folded_print(c);
	if (c->tree && tree_out(c) < 0) {
		fprintf(stderr, "ustack: %s\n", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

static void load_live_maps(struct ctx *c, int tgid)
{
	int i, *p;

	if (!c->live || tgid <= 0)
		return;
	for (i = 0; i < c->nr_loaded; i++)
		if (c->loaded[i] == tgid)
			return;
	p = realloc(c->loaded, (c->nr_loaded + 1) * sizeof(*p));
	if (!p)
		return;
	c->loaded = p;
	c->loaded[c->nr_loaded++] = tgid;
	if (ustack_syms_load_pid(c->syms, tgid) < 0)
		fprintf(stderr, "ustack: warning: no maps for process %d (exited?)\n",
			tgid);
}

/*
 * A user frame outside every map of its process: a sign of damage, not
 * proof, unless the maps of its time were not saved (an image before an
 * exec, a process gone before a system-wide recording ended).  0 is what
 * the frame-pointer walker records for a saved 0, no frame to look up.
 */
static void count_user_frame(struct ctx *c, int tgid, unsigned long long addr,
			     bool mapped)
{
	if (mapped)
		c->uframes_mapped++;
	else if (!addr)
		return;
	else if (ustack_syms_maps_known(c->syms, tgid, c->ts) > 0)
		c->uframes_unmapped++;
	else if (ustack_syms_execs_after(c->syms, tgid, c->ts) > 0)
		c->uframes_before_exec++;
	else
		c->uframes_no_maps++;
}

/*
 * Makes a name safe in an aggregated stack: for --folded no ';' or
 * white space (flamegraph.pl's separators); for --summary, whose frames
 * are kept on lines of their own, no newline.
 */
static void sanitize(const struct ctx *c, char *s)
{
	for (; *s; s++)
		if (*s == '\n' || (c->folded && (*s == ';' || *s == ' ' ||
						 *s == '\t')) ||
		    (c->tree && (*s == TREE_SEP || *s == TREE_DSO)))
			*s = '_';
}

/* The separator of the frames of a --folded or --summary key */
static const char *key_sep(const struct ctx *c)
{
	static const char tree_sep[] = { TREE_SEP, '\0' };

	return c->folded ? ";" : c->tree ? tree_sep : "\n";
}

/* a frame's file is a JIT's perf-PID.map (the library names JIT code so) */
static bool jit_file(const char *file)
{
	const char *b = file ? strrchr(file, '/') : NULL;
	int pid, n = 0;

	b = b ? b + 1 : file;
	return b && sscanf(b, "perf-%d.map%n", &pid, &n) == 1 && n &&
	       !b[n];
}

/* A frame for the folded output: no offsets, no ';' or spaces. */
static void folded_frame(struct ctx *c, char *out, size_t size,
			 unsigned long long addr, bool kernel, int tgid)
{
	const char *base, *file = NULL;
	struct ustack_sym s;
	size_t len;
	int r;

	if (!ustack_frame_plausible(addr, kernel | c->arch)) {
		snprintf(out, size, "0x%llx_%s", addr, USTACK_BAD_FRAME_TEXT);
		goto clean;
	}
	if (kernel && addr == USTACK_FTRACE_TRAMPOLINE) {
		snprintf(out, size, "%s", USTACK_TRAMPOLINE_TEXT);
		goto clean;
	}
	if (c->raw)
		r = -1;
	else if (kernel)
		r = ustack_syms_resolve_kernel(c->syms, addr, &s);
	else
		r = ustack_syms_resolve(c->syms, tgid, addr, &s);
	if (kernel && !c->raw) {
		if (r == 0 && s.name)
			c->kframes_named++;
		else
			c->kframes_unnamed++;
	}
	if (!kernel && !c->raw && r == 0) {
		count_user_frame(c, tgid, addr, s.file);
		file = s.file;
	}
	if (!kernel && !c->raw && r == 0 && !s.name && !s.file &&
	    ustack_syms_execs_after(c->syms, tgid, c->ts) > 0 &&
	    !ustack_syms_maps_known(c->syms, tgid, c->ts)) {
		snprintf(out, size, "0x%llx_%s", addr, USTACK_BEFORE_EXEC_TEXT);
	} else if (r < 0 || (!s.name && !s.file)) {
		snprintf(out, size, "0x%llx", addr);
	} else if (s.name) {
		snprintf(out, size, "%s", s.name);
	} else {
		base = strrchr(s.file, '/');
		snprintf(out, size, "%s+0x%llx", base ? base + 1 : s.file,
			 s.offset);
	}
 clean:
	sanitize(c, out);
	/* flamegraph.pl colours them (stackcollapse-perf.pl's marks):
	 * kernel, and JIT (named in a perf-PID.map) */
	if (c->folded && !c->no_annotate && strlen(out) + 5 <= size &&
	    (kernel || jit_file(file)))
		strcat(out, kernel ? "_[k]" : "_[j]");
	/* --tree: the object after the name */
	len = strlen(out);
	if (c->tree)
		snprintf(out + len, size - len, "%c%s", TREE_DSO,
			 kernel ? "[kernel.kallsyms]" : file ? file : "");
}

/* The event's name as the text output prints it */
static void event_name(const struct ustack_event *ev, char *buf, size_t size)
{
	if (ev->flags & USTACK_EV_UNSEEN)
		snprintf(buf, size, "unseen-event");
	else if (ev->event)
		snprintf(buf, size, "%s:%s", ev->event->system, ev->event->name);
	else
		snprintf(buf, size, "unknown-event");
}

/*
 * --inline: after a user frame in an aggregated stack, the functions
 * inlined at its call, outermost first, each "name [inlined]" as
 * trace-cmd report names them (ustack_syms_format_lines() gives them
 * innermost first, one line each, "name [inlined] file:line", before
 * the frame's own line).
 */
static int add_inlined(struct ctx *c, int tgid, unsigned long long addr)
{
	char lines[8192], name[1024], *line[64], *p, *e;
	int i, n = 0;

	if (!c->inline_frames || c->raw ||
	    !ustack_frame_plausible(addr, USTACK_FRAME_USER | c->arch) ||
	    ustack_syms_format_lines(c->syms, tgid, addr, lines,
				     sizeof(lines)) < 0)
		return 0;
	for (p = lines; n < 64 && (e = strchr(p, '\n')); p = e + 1) {
		*e = '\0';
		line[n++] = p;
	}
	for (i = n - 1; i >= 0; i--) {
		e = strstr(line[i], " [inlined]");
		if (!e)
			continue;
		*e = '\0';
		snprintf(name, sizeof(name), "%s [inlined]", line[i]);
		sanitize(c, name);
		if (buf_add(c, key_sep(c)) || buf_add(c, name))
			return -1;
	}
	return 0;
}

/*
 * --folded: "event;comm;user frames;kernel frames", outermost first.
 * --summary: "event\ncomm\nuser frames", one per line: the call path.
 */
static int print_folded(struct ctx *c, const struct ustack_event *ev)
{
	const char *comm = NULL, *sep = key_sep(c);
	char frame[1024];
	int i;

	c->buf_len = 0;
	event_name(ev, frame, sizeof(frame));
	sanitize(c, frame);
	if (buf_add(c, frame) || buf_add(c, sep))
		return -1;
	if (ev->tep)
		comm = tep_data_comm_from_pid(ev->tep, ev->pid);
	snprintf(frame, sizeof(frame), "%s", comm && strcmp(comm, "<...>") ?
		 comm : "[unknown]");
	sanitize(c, frame);
	if (buf_add(c, frame))
		return -1;
	switch (ev->status) {
	case USTACK_NEVER_ARRIVED:
		snprintf(frame, sizeof(frame), "[user stack never arrived]");
		break;
	case USTACK_EMPTY:
		snprintf(frame, sizeof(frame), "[user stack empty]");
		break;
	case USTACK_TRUNCATED:
		snprintf(frame, sizeof(frame), "[truncated]");
		break;
	case USTACK_LOST:
		snprintf(frame, sizeof(frame), "[user stack lost]");
		break;
	case USTACK_NO_COOKIE:
		/* the kernel frames follow in folded stacks */
		snprintf(frame, sizeof(frame), "%s", c->summary ?
			 "[no user stack]" : "");
		break;
	default:
		frame[0] = '\0';
		break;
	}
	if (frame[0] && (buf_add(c, sep) || buf_add(c, frame)))
		return -1;
	for (i = ev->nr_user - 1; i >= 0; i--) {
		folded_frame(c, frame, sizeof(frame), ev->user[i], false,
			     ev->tgid);
		if (buf_add(c, sep) || buf_add(c, frame) ||
		    add_inlined(c, ev->tgid, ev->user[i]))
			return -1;
	}
	/* the summary is of the user call paths */
	for (i = ev->nr_kernel - 1; !c->summary && !c->no_kernel && i >= 0; i--) {
		folded_frame(c, frame, sizeof(frame), ev->kernel[i], true, 0);
		if (buf_add(c, sep) || buf_add(c, frame))
			return -1;
	}
	return folded_add(c, c->buf);
}

/* the length of the event's name at the start of a --summary key */
static size_t key_event_len(const char *key)
{
	return strchrnul(key, '\n') - key;
}

static int key_event_cmp(const char *a, const char *b)
{
	size_t la = key_event_len(a), lb = key_event_len(b);
	int r = memcmp(a, b, la < lb ? la : lb);

	return r ? r : (la > lb) - (la < lb);
}

/* by event, then most events first, then by path */
static int summary_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;
	int r = key_event_cmp(x->stack, y->stack);

	if (r)
		return r;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

struct sum_group {
	size_t			first;		/* in the sorted table */
	size_t			nr;		/* its paths */
	unsigned long long	total;		/* its events */
};

static const struct folded *sum_tab;

/* most events first, then by name */
static int group_cmp(const void *a, const void *b)
{
	const struct sum_group *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return key_event_cmp(sum_tab[x->first].stack, sum_tab[y->first].stack);
}

/*
 * --summary, in the shape of perf report --stdio's call graphs (callers
 * first): for each event, its distinct user call paths, each with its
 * share of the event's events and their number, the task's name first.
 *
 *   # syscalls:sys_enter_getppid: 5 events, 1 call path
 *   #
 *    100.00%  5  callchain
 *                main
 *                ...
 */
static int summary_print(struct ctx *c)
{
	struct sum_group *g = NULL;
	size_t i, j, n = table_compact(c), nr_g = 0;
	char num[32];
	int w, ret = 0;

	if (!n)		/* no table at all when no event came */
		goto out;
	qsort(c->tab, n, sizeof(*c->tab), summary_cmp);
	g = calloc(n, sizeof(*g));
	if (!g) {
		ret = -1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!i || key_event_cmp(c->tab[i].stack, c->tab[i - 1].stack))
			g[nr_g++].first = i;
		g[nr_g - 1].nr++;
		g[nr_g - 1].total += c->tab[i].count;
	}
	sum_tab = c->tab;
	qsort(g, nr_g, sizeof(*g), group_cmp);
	for (i = 0; i < nr_g; i++) {
		const struct folded *f = &c->tab[g[i].first];

		/* the first path has the most events */
		w = snprintf(num, sizeof(num), "%llu", f->count);
		printf("%s# %.*s: %llu %s, %zu call path%s\n#\n",
		       i ? "\n" : "", (int)key_event_len(f->stack), f->stack,
		       g[i].total, c->weights ? "ns" : g[i].total == 1 ?
		       "event" : "events", g[i].nr, g[i].nr == 1 ? "" : "s");
		for (j = 0; j < g[i].nr; j++, f++) {
			const char *p = f->stack + key_event_len(f->stack) + 1;
			const char *e = strchrnul(p, '\n');

			printf("%7.2f%%  %*llu  %.*s\n",
			       100.0 * f->count / g[i].total, w, f->count,
			       (int)(e - p), p);
			while (*e) {
				p = e + 1;
				e = strchrnul(p, '\n');
				printf("%*s%.*s\n", 12 + w, "", (int)(e - p), p);
			}
		}
	}
out:
	table_free(c, n);
	free(g);
	return ret;
}

/*
 * What the frames of @ev say of the trace: kernel frames that kallsyms
 * names and those it does not, user frames in their process's maps and
 * those outside (report_problems()).
 */
static void count_frames(struct ctx *c, const struct ustack_event *ev)
{
	unsigned long long addr;
	struct ustack_sym s;
	int i;

	if (c->raw)
		return;
	for (i = 0; i < ev->nr_kernel; i++) {
		addr = ev->kernel[i];
		if (!ustack_frame_plausible(addr, USTACK_FRAME_KERNEL | c->arch) ||
		    addr == USTACK_FTRACE_TRAMPOLINE)
			continue;
		if (!ustack_syms_resolve_kernel(c->syms, addr, &s) && s.name)
			c->kframes_named++;
		else
			c->kframes_unnamed++;
	}
	for (i = 0; i < ev->nr_user; i++) {
		addr = ev->user[i];
		if (ustack_frame_plausible(addr, USTACK_FRAME_USER | c->arch) &&
		    !ustack_syms_resolve(c->syms, ev->tgid, addr, &s))
			count_user_frame(c, ev->tgid, addr, s.file || s.name);
	}
}

static void print_text(struct ctx *c, const struct ustack_event *ev)
{
	const char *comm = NULL;
	struct trace_seq s;
	char name[512];

	if (ev->tep)
		comm = tep_data_comm_from_pid(ev->tep, ev->pid);
	printf("%s-%d [%03d] %llu.%09llu ", comm ? comm : "<...>", ev->pid,
	       ev->cpu, ev->ts / 1000000000ULL, ev->ts % 1000000000ULL);
	if (c->multi || (ev->instance && *ev->instance))
		printf("(%s) ", ev->instance && *ev->instance ?
		       ev->instance : "top");
	event_name(ev, name, sizeof(name));
	printf("%s", name);
	printf(" status=%s", ustack_status_name(ev->status));
	if (ev->flags & USTACK_EV_LATE)
		printf(",late");
	if (ev->flags & USTACK_EV_EVICTED)
		printf(",evicted");
	/* the unwinder only when SFrame took part: no mark is frame
	 * pointers, or a kernel that does not say */
	if (ev->unwinder & USTACK_UNWINDER_SFRAME)
		printf(",%s", ustack_unwinder_name(ev->unwinder));
	if (ev->cookie)
		printf(" cookie=0x%llx", ev->cookie);
	if (ev->tgid >= 0)
		printf(" tgid=%d", ev->tgid);
	if (ev->status == USTACK_TRUNCATED)
		printf(" depth=%u", ev->depth);
	printf("\n");
	trace_seq_init(&s);
	ustack_event_print(&s, ev, c->syms, USTACK_PRINT_LIST |
			   (c->raw ? USTACK_PRINT_RAW : 0) |
			   (c->inline_frames ? USTACK_PRINT_LINES : 0));
	trace_seq_do_printf(&s);
	trace_seq_destroy(&s);
	count_frames(c, ev);
	printf("\n");
}

/* --archive: look up the files of its user frames, print nothing */
static int archive_event(struct ctx *c, const struct ustack_event *ev)
{
	struct ustack_sym sym;
	int i;

	for (i = 0; i < ev->nr_user; i++)
		ustack_syms_resolve(c->syms, ev->tgid, ev->user[i], &sym);
	return 0;
}

static const char *const archive_said[] = {
	[USTACK_ARCHIVE_ADDED]		= "added",
	[USTACK_ARCHIVE_PRESENT]	= "present",
	[USTACK_ARCHIVE_NO_BUILD_ID]	= "not archived: no build ID recorded",
	[USTACK_ARCHIVE_NOT_FOUND]	= "not archived: no file of this build found",
};

/* One line per file: its build ID, its name, what was done */
static int archive_line(void *data, const char *name, const char *build_id,
			const char *path, enum ustack_archive_result result)
{
	(void)data;
	(void)path;
	printf("%s %s %s\n", build_id ? build_id : "-", name,
	       archive_said[result]);
	return 0;
}

/* --archive: the files looked up for the frames read, into c->archive */
static int archive_write(struct ctx *c, const char *path)
{
	char *copy = NULL, *dir = (char *)c->archive;
	int n;

	/* by default beside the trace, where every reader looks */
	if (!dir) {
		copy = strdup(path);
		if (!copy || asprintf(&dir, "%s/.debug", dirname(copy)) < 0) {
			perror("ustack");
			free(copy);
			return -1;
		}
		free(copy);
		copy = dir;
	}
	n = ustack_syms_archive(c->syms, dir, archive_line, c);
	if (n < 0)
		fprintf(stderr, "ustack: --archive %s: %s\n", dir,
			strerror(errno));
	else if (n)
		fprintf(stderr, "ustack: %d binar%s not archived: %s cannot name %s frames\n",
			n, n > 1 ? "ies" : "y", dir, n > 1 ? "their" : "its");
	free(copy);
	c->archive_missing = n > 0 ? n : 0;
	return n < 0 ? -1 : 0;
}

static int event_cb(const struct ustack_event *ev, void *data)
{
	struct ctx *c = data;
	struct ustack_event shown;
	int r;

	if (c->filter) {
		r = evfilter_match(c->filter, ev);
		if (r < 0) {
			/* evfilter said why */
			c->said = true;
			c->error = EINVAL;
			return -1;
		}
		if (!r)
			goto not_shown;
	}
	/* --weight: the events delivered only to be paired are not shown */
	if (c->weights && !ev->cookie && !ev->nr_kernel &&
	    !(ev->flags & USTACK_EV_UNSEEN))
		goto not_shown;
	load_live_maps(c, ev->tgid);
	/* the tracer's own frames: hidden unless asked for, or -r */
	if (!c->tracer_frames && !c->raw && ev->nr_kernel) {
		r = ustack_tracer_frames(c->syms, ev->kernel, ev->nr_kernel, c->arch,
					 true);
		if (r) {
			shown = *ev;
			shown.kernel += r;
			shown.nr_kernel -= r;
			ev = &shown;
		}
	}
	/* its user frames in the maps of its time */
	c->ts = ev->ts;
	ustack_syms_set_time(c->syms, ev->ts);
	if (c->archiving)
		return archive_event(c, ev);
	if (c->folded || c->summary || c->tree) {
		if (print_folded(c, ev) < 0 ||
		    (c->weights && weights_observe(c->weights, ev, c->buf) < 0)) {
			c->error = ENOMEM;
			return -1;
		}
		return 0;
	}
	if (c->json) {
		struct json_opts jo = { c->raw, c->arch, c->multi };

		json_event(stdout, ev, c->syms, &jo);
		count_frames(c, ev);
	} else {
		print_text(c, ev);
	}
	/* stdout failed (a full disk, a closed pipe): stop reading */
	if (ferror(stdout)) {
		c->error = errno ? errno : EIO;
		c->write_error = true;
		return -1;
	}
	return 0;
not_shown:
	/* its pair may be shown */
	if (c->weights && weights_observe(c->weights, ev, NULL) < 0) {
		c->error = ENOMEM;
		return -1;
	}
	return 0;
}

static void print_stats(const struct ustack_join_stats *s)
{
	fprintf(stderr,
		"records %llu, delivered %llu: complete %llu, truncated %llu, "
		"empty %llu, never-arrived %llu (evicted %llu), lost %llu, "
		"no-cookie %llu; "
		"late %llu, early stacks %llu, orphan stacks %llu, stray %llu, "
		"peak pending cookies %llu, events %llu; "
		"implausible kernel frames %llu, user frames %llu, "
		"malformed records %llu\n",
		s->records, s->delivered, s->complete, s->truncated, s->empty,
		s->never_arrived, s->evicted, s->lost, s->no_cookie, s->late,
		s->early_stacks, s->orphan_stacks, s->stray, s->peak_cookies,
		s->peak_events, s->bad_kernel_frames, s->bad_user_frames,
		s->malformed);
}

/* "N things" in the summary line, when N is not 0 */
static void report_count(const char **sep, unsigned long long n,
			 const char *one, const char *many)
{
	if (!n)
		return;
	fprintf(stderr, "%s%llu %s", *sep, n, n == 1 ? one : many);
	*sep = ", ";
}

/*
 * One line on stderr, unless -q, when the trace shows damage (frames that
 * cannot be return addresses, records at odds with their format) or
 * events whose user stack never came or was lost.  Returns true for
 * damage; a stack that never came can be legitimate (the task was still
 * in the kernel when tracing stopped), and a lost one is the kernel's
 * word that it could not ask for it.
 */
static bool report_problems(const struct ctx *c,
			    const struct ustack_join_stats *s)
{
	/*
	 * In kernel text, but no symbol there while others have one: a
	 * sign, not proof (a kallsyms saved without modules has gaps too)
	 */
	unsigned long long unnamed = c->kframes_named ? c->kframes_unnamed : 0;
	/* likewise user frames outside the maps while others are in them */
	unsigned long long unmapped = c->uframes_mapped ?
				      c->uframes_unmapped : 0;
	/* and frames of processes without maps, when others have them */
	unsigned long long no_maps = c->uframes_mapped ?
				     c->uframes_no_maps : 0;
	bool damaged = s->bad_kernel_frames || s->bad_user_frames ||
		       s->malformed;
	const char *sep = "";

	if (c->quiet || (!damaged && !s->never_arrived && !s->lost && !unnamed &&
			 !unmapped && !no_maps && !c->uframes_before_exec))
		return damaged;
	fprintf(stderr, "ustack: %s", damaged ?
		"warning: the trace looks damaged: " : "note: ");
	report_count(&sep, s->bad_kernel_frames, "implausible kernel frame",
		     "implausible kernel frames");
	report_count(&sep, s->bad_user_frames, "implausible user frame",
		     "implausible user frames");
	report_count(&sep, unnamed, "kernel frame outside the kernel's symbols",
		     "kernel frames outside the kernel's symbols");
	report_count(&sep, unmapped, "user frame outside its process's maps",
		     "user frames outside their process's maps");
	report_count(&sep, c->uframes_before_exec,
		     "user frame from before an exec whose maps were not saved ("
		     USTACK_BEFORE_EXEC_TEXT ")",
		     "user frames from before an exec whose maps were not saved ("
		     USTACK_BEFORE_EXEC_TEXT ")");
	report_count(&sep, no_maps,
		     "user frame of a process whose maps were not saved (gone before the recording ended?)",
		     "user frames of processes whose maps were not saved (gone before the recording ended?)");
	report_count(&sep, s->malformed, "malformed record",
		     "malformed records");
	report_count(&sep, s->never_arrived,
		     "event whose user stack never arrived",
		     "events whose user stack never arrived");
	report_count(&sep, s->lost,
		     "event whose user stack the kernel could not take (lost)",
		     "events whose user stack the kernel could not take (lost)");
	fprintf(stderr, " (--stats for details)\n");
	return damaged;
}

/* --tracefs DIR: libtracefs takes any string; say here if it is none */
static int set_tracefs(const char *dir)
{
	struct stat st;
	int err = 0;

	if (stat(dir, &st) < 0)
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	else if (tracefs_set_tracing_dir((char *)dir) < 0)
		err = errno ? errno : ENOMEM;
	if (!err)
		return 0;
	fprintf(stderr, "ustack: %s: %s\n", dir, strerror(err));
	return -1;
}

static void on_signal(int sig)
{
	(void)sig;
	if (live_handle)
		ustack_live_stop(live_handle);
}

struct live_opts {
	const char	*instance;
	char		**events;
	int		nr_events;
	const char	*filter;
	int		count;
	bool		option;
	int		duration;
	bool		stats;
};

static int run_live(struct ctx *c, struct live_opts *o)
{
	struct tracefs_instance *inst = NULL;
	struct ustack_join_stats st;
	bool created = false, opt_set = false, st_was = false;
	int i, nr_set = 0, ret = 1, r;

	if (!tracefs_tracing_dir()) {
		fprintf(stderr, "ustack: tracefs is not mounted\n");
		return 1;
	}
	if (strcmp(o->instance, "top")) {
		created = !tracefs_instance_exists(o->instance);
		if (created && !o->nr_events && !o->option) {
			fprintf(stderr, "ustack: no instance '%s' (use -e or -O to create one)\n",
				o->instance);
			return 1;
		}
		inst = tracefs_instance_create(o->instance);
		if (!inst) {
			fprintf(stderr, "ustack: cannot open instance '%s': %s\n",
				o->instance, strerror(errno));
			return 1;
		}
	}
	/* Reading an instance that cannot have any: say so, do not wait */
	if (!ustack_kernel_supported(inst)) {
		fprintf(stderr, "ustack: this kernel has no deferred user stacks (events/ftrace/user_stack_cookie, options/userstacktrace_defer)\n");
		goto out;
	}
	for (i = 0; i < o->nr_events; i++, nr_set++) {
		char *sys = o->events[i], *ev = strchr(sys, ':');

		if (!ev) {
			fprintf(stderr, "ustack: bad event '%s' (SYS:EVENT)\n", sys);
			goto out;
		}
		*ev++ = '\0';
		if (ustack_trigger_enable(inst, sys, ev, o->count, o->filter) < 0 ||
		    tracefs_event_enable(inst, sys, ev) < 0) {
			fprintf(stderr, "ustack: cannot trace %s:%s: %s\n", sys, ev,
				strerror(errno));
			ev[-1] = ':';
			goto out;
		}
		ev[-1] = ':';
	}
	if (o->option) {
		st_was = tracefs_option_is_enabled(inst, TRACEFS_OPTION_STACKTRACE);
		if (tracefs_option_enable(inst, TRACEFS_OPTION_STACKTRACE) < 0 ||
		    ustack_option_enable(inst) < 0) {
			fprintf(stderr, "ustack: cannot set the options: %s\n",
				strerror(errno));
			goto out;
		}
		opt_set = true;
	}
	live_handle = ustack_live_open(inst, event_cb, c);
	if (!live_handle) {
		fprintf(stderr, "ustack: cannot read instance '%s': %s\n",
			o->instance, strerror(errno));
		goto out;
	}
	ustack_join_set_flags(ustack_live_join(live_handle),
			      USTACK_JOIN_UNSEEN_EVENTS |
			      (c->weights ? USTACK_JOIN_ALL_EVENTS : 0));
	/* the comms of a live trace come as it runs: no warning */
	if (c->filter &&
	    evfilter_prepare(c->filter, ustack_live_tep(live_handle), true) < 0)
		goto out;
	if (!c->raw) {
		ustack_syms_set_tep(c->syms, ustack_live_tep(live_handle));
		if (ustack_syms_load_kallsyms(c->syms, NULL) < 0)
			fprintf(stderr, "ustack: warning: cannot read /proc/kallsyms\n");
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	tracefs_trace_on(inst);
	r = ustack_live_run(live_handle, o->duration * 1000);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (r < 0 && !c->write_error && !c->said)
		fprintf(stderr, "ustack: error reading the trace\n");
	if (ustack_live_flush(live_handle) < 0 || r < 0 || c->error)
		ret = 1;
	else
		ret = 0;
	if (!ustack_join_get_stats(ustack_live_join(live_handle), &st)) {
		c->stats = st;
		if (o->stats)
			print_stats(&st);
	}
out:
	for (i = 0; i < nr_set; i++) {
		char *sys = o->events[i], *ev = strchr(sys, ':');

		*ev++ = '\0';
		tracefs_event_disable(inst, sys, ev);
		ustack_trigger_disable(inst, sys, ev);
		ev[-1] = ':';
	}
	if (opt_set) {
		ustack_option_disable(inst);
		if (!st_was)
			tracefs_option_disable(inst, TRACEFS_OPTION_STACKTRACE);
	}
	ustack_live_close(live_handle);
	live_handle = NULL;
	if (inst) {
		if (created)
			tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	return ret;
}

static int run_file(struct ctx *c, const char *path, const char *buffer,
		    bool stats)
{
	struct ustack_join_stats st;
	struct ustack_file *file;
	int index = -1, i, n, ret, lib;

	lib = lib_errors;
	file = ustack_file_open(path);
	if (!file) {
		if (lib_errors == lib)
			fprintf(stderr, "ustack: cannot read %s: %s\n", path,
				strerror(errno));
		return 1;
	}
	/* a request whose event was filtered out still has its stacks */
	ustack_file_set_flags(file, USTACK_JOIN_UNSEEN_EVENTS |
			      (c->weights ? USTACK_JOIN_ALL_EVENTS : 0));
	n = ustack_file_instances(file);
	if (buffer) {
		for (i = 0; i < n; i++) {
			const char *name = ustack_file_instance_name(file, i);

			if (!strcmp(buffer, i ? name : "top")) {
				index = i;
				break;
			}
		}
		if (index < 0) {
			fprintf(stderr, "ustack: %s has no buffer instance '%s'\n",
				path, buffer);
			ustack_file_close(file);
			return 1;
		}
	}
	c->multi = n > 1 && index < 0;
	c->arch = ustack_frame_arch(ustack_file_tep(file));
	/* trace-cmd always saves the ftrace formats: this kernel has none */
	if (!c->quiet && !tep_find_event_by_name(ustack_file_tep(file), "ftrace",
						 "user_stack_deferred"))
		fprintf(stderr, "ustack: warning: %s has no ftrace:user_stack_deferred format: recorded on a kernel without deferred user stacks, no user stacks\n",
			path);
	/* with the maps, the trace file's directory, after the recorded
	 * paths */
	ustack_syms_set_file(c->syms, file);
	if (c->filter &&
	    evfilter_prepare(c->filter, ustack_file_tep(file), c->quiet) < 0) {
		ustack_file_close(file);
		return 1;
	}
	lib = lib_errors;
	ret = ustack_file_iterate(file, index, event_cb, c, &st);
	if (c->write_error || c->said) {
		ret = 1;	/* main() or the filter says so */
	} else if (ret < 0 && !c->error && lib_errors != lib) {
		ret = 1;	/* the library said what */
	} else if (ret < 0 || c->error) {
		fprintf(stderr, "ustack: failed reading %s%s%s\n", path,
			c->error ? ": " : "", c->error ? strerror(c->error) : "");
		ret = 1;
	} else {
		ret = 0;
	}
	c->stats = st;
	if (stats)
		print_stats(&st);
	if (!ret && c->archiving && archive_write(c, path) < 0)
		ret = 1;
	if (aggregate_print(c) < 0)
		ret = 1;
	/* the symbols use the file: drop them first */
	c->sym_errors = ustack_syms_errors(c->syms);
	ustack_syms_free(c->syms);
	c->syms = NULL;
	ustack_file_close(file);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "folded",	no_argument,		NULL, OPT_FOLDED },
		{ "summary",	no_argument,		NULL, OPT_SUMMARY },
		{ "inline",	no_argument,		NULL, OPT_INLINE },
		{ "tracer-frames", no_argument,		NULL, OPT_TRACER_FRAMES },
		{ "no-annotate", no_argument,		NULL, OPT_NO_ANNOTATE },
		{ "tree",	optional_argument,	NULL, OPT_TREE },
		{ "percent-limit", required_argument,	NULL, OPT_PERCENT_LIMIT },
		{ "max-stack",	required_argument,	NULL, OPT_MAX_STACK },
		{ "sort",	required_argument,	NULL, OPT_SORT },
		{ "no-kernel",	no_argument,		NULL, OPT_NO_KERNEL },
		{ "weight",	required_argument,	NULL, OPT_WEIGHT },
		{ "json",	no_argument,		NULL, OPT_JSON },
		{ "flamegraph",	no_argument,		NULL, OPT_FLAMEGRAPH },
		{ "archive",	optional_argument,	NULL, OPT_ARCHIVE },
		{ "pid",	required_argument,	NULL, OPT_PID },
		{ "comm",	required_argument,	NULL, OPT_COMM },
		{ "time",	required_argument,	NULL, OPT_TIME },
		{ "buffer",	required_argument,	NULL, 'B' },
		{ "symdir",	required_argument,	NULL, 's' },
		{ "raw",	no_argument,		NULL, 'r' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "stats",	no_argument,		NULL, 'S' },
		{ "instance",	required_argument,	NULL, 'i' },
		{ "event",	required_argument,	NULL, 'e' },
		{ "filter",	required_argument,	NULL, 'f' },
		{ "count",	required_argument,	NULL, 'c' },
		{ "option",	no_argument,		NULL, 'O' },
		{ "duration",	required_argument,	NULL, 'd' },
		{ "tracefs",	required_argument,	NULL, OPT_TRACEFS },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct live_opts lo = { 0 };
	struct ctx c = { 0 };
	const char *buffer = NULL, *tracefs = NULL, *last_filter = NULL;
	const char *tree_opt = NULL;
	struct ustack_tree *sort_check;
	bool weight = false;
	bool stats = false, verbose = false, damaged;
	char *end;
	int opt, ret, errors;

	c.syms = ustack_syms_alloc();
	c.filter = evfilter_alloc();
	if (!c.syms || !c.filter) {
		perror("ustack");
		goto fail;
	}
	while ((opt = getopt_long(argc, argv, "F:B:s:rqi:e:f:c:Od:vVh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'F':
			if (evfilter_add_filter(c.filter, optarg) < 0)
				goto fail;
			last_filter = optarg;
			break;
		case OPT_PID:
			if (evfilter_add_pids(c.filter, optarg) < 0)
				goto fail;
			break;
		case OPT_COMM:
			if (evfilter_add_comms(c.filter, optarg) < 0)
				goto fail;
			break;
		case OPT_TIME:
			if (evfilter_set_time(c.filter, optarg) < 0)
				goto fail;
			break;
		case OPT_FOLDED:
			c.folded = true;
			break;
		case OPT_SUMMARY:
			c.summary = true;
			break;
		case OPT_INLINE:
			c.inline_frames = true;
			break;
		case OPT_TRACER_FRAMES:
			c.tracer_frames = true;
			break;
		case OPT_NO_ANNOTATE:
			c.no_annotate = true;
			break;
		case OPT_TREE:
			c.tree = true;
			if (optarg && !strcmp(optarg, "callee")) {
				c.topts.flags |= USTACK_TREE_CALLEE;
			} else if (optarg && strcmp(optarg, "caller")) {
				fprintf(stderr, "ustack: bad --tree '%s' (caller or callee)\n",
					optarg);
				goto fail;
			}
			break;
		case OPT_PERCENT_LIMIT:
			c.topts.limit = strtod(optarg, &end);
			if (*end || end == optarg || !(c.topts.limit >= 0 &&
						       c.topts.limit <= 100)) {
				fprintf(stderr, "ustack: bad --percent-limit '%s' (0 to 100)\n",
					optarg);
				goto fail;
			}
			tree_opt = "--percent-limit";
			break;
		case OPT_MAX_STACK:
			c.topts.max_stack = strtol(optarg, &end, 0);
			if (*end || end == optarg || c.topts.max_stack < 1) {
				fprintf(stderr, "ustack: bad --max-stack '%s' (1 or more)\n",
					optarg);
				goto fail;
			}
			tree_opt = "--max-stack";
			break;
		case OPT_SORT:
			sort_check = ustack_tree_alloc(0);
			if (!sort_check || ustack_tree_set_sort(sort_check, optarg)) {
				ustack_tree_free(sort_check);
				fprintf(stderr, "ustack: bad --sort '%s' (keys: comm, dso, sym, comma-separated)\n",
					optarg);
				goto fail;
			}
			ustack_tree_free(sort_check);
			c.topts.sort = optarg;
			tree_opt = "--sort";
			break;
		case OPT_ARCHIVE:
			c.archiving = true;
			c.archive = optarg;
			break;
		case OPT_JSON:
			c.json = true;
			break;
		case OPT_FLAMEGRAPH:
			c.flame = true;
			break;
		case OPT_WEIGHT:
			if (!strcmp(optarg, "latency")) {
				weight = true;
			} else if (strcmp(optarg, "count")) {
				fprintf(stderr, "ustack: bad --weight '%s' (count or latency)\n",
					optarg);
				goto fail;
			}
			break;
		case OPT_NO_KERNEL:
			c.no_kernel = true;
			tree_opt = "--no-kernel";
			break;
		case 'B':
			buffer = optarg;
			break;
		case 's':
			ustack_syms_add_search_dir(c.syms, optarg);
			break;
		case 'r':
			c.raw = true;
			break;
		case 'q':
			ustack_set_loglevel(TEP_LOG_ERROR);
			c.quiet = true;
			break;
		case 'S':
			stats = true;
			break;
		case 'i':
			lo.instance = optarg;
			break;
		case 'e':
			lo.events = realloc(lo.events, (lo.nr_events + 1) *
					    sizeof(*lo.events));
			if (!lo.events) {
				perror("ustack");
				return 1;
			}
			lo.events[lo.nr_events++] = optarg;
			break;
		case 'f':
			lo.filter = optarg;
			break;
		case 'c':
			lo.count = strtol(optarg, &end, 0);
			if (*end || lo.count < 0) {
				fprintf(stderr, "ustack: bad count '%s'\n", optarg);
				goto fail;
			}
			break;
		case 'O':
			lo.option = true;
			break;
		case 'd':
			lo.duration = strtol(optarg, &end, 0);
			if (*end || lo.duration < 0) {
				fprintf(stderr, "ustack: bad duration '%s'\n",
					optarg);
				goto fail;
			}
			break;
		case 'v':
			verbose = true;
			break;
		case OPT_TRACEFS:
			tracefs = optarg;
			break;
		case 'V':
			printf("ustack (libustack) %s\n", USTACK_VERSION);
			ustack_syms_free(c.syms);
			evfilter_free(c.filter);
			return check_stdout(0) ? 1 : 0;
		case 'h':
			usage(stdout);
			ustack_syms_free(c.syms);
			evfilter_free(c.filter);
			return check_stdout(0) ? 1 : 0;
		default:
			usage(stderr);
			goto fail;
		}
	}
	/* ustack -F trace.dat: -F was folded stacks before it was report's filter */
	if (last_filter && !lo.instance && optind == argc &&
	    !access(last_filter, F_OK)) {
		fprintf(stderr, "ustack: -F '%s': a file, not a filter: -F is an event filter, as in trace-cmd report; folded stacks are --folded\n",
			last_filter);
		goto fail;
	}
	if (c.folded + c.summary + c.tree + c.json + c.archiving + c.flame > 1) {
		fprintf(stderr, "ustack: one of --folded, --summary, --tree, --json, --flamegraph and --archive\n");
		goto fail;
	}
	/* the flame graph is drawn from the folded stacks */
	if (c.flame)
		c.folded = true;
	if (tree_opt && !c.tree) {
		fprintf(stderr, "ustack: %s goes with --tree\n", tree_opt);
		goto fail;
	}
	if (weight && !c.folded && !c.summary && !c.tree) {
		fprintf(stderr, "ustack: --weight=latency goes with --folded, --flamegraph, --summary or --tree\n");
		goto fail;
	}
	if (weight) {
		c.weights = weights_alloc(add_weight, &c);
		if (!c.weights) {
			perror("ustack");
			goto fail;
		}
		c.topts.flags |= USTACK_TREE_WEIGHT;
	}
	if (evfilter_empty(c.filter)) {
		evfilter_free(c.filter);
		c.filter = NULL;
	}
	/*
	 * The libraries' own messages ("mmap: Unknown error -22") name
	 * their internals; ustack says what failed itself.  -v shows them.
	 */
	if (!verbose) {
		tracecmd_set_loglevel(TEP_LOG_NONE);
		tep_set_loglevel(TEP_LOG_NONE);
		tracefs_set_loglevel(TEP_LOG_NONE);
	}
	if (lo.instance) {
		if (optind < argc || buffer || c.archiving) {
			fprintf(stderr, "ustack: -i reads live: no FILE, -B or --archive\n");
			goto fail;
		}
		if (tracefs && set_tracefs(tracefs) < 0) {
			goto fail;
		}
		c.live = true;
		lo.stats = stats;
		ret = run_live(&c, &lo);
		if (aggregate_print(&c) < 0)
			ret = 1;
	} else {
		if (lo.nr_events || lo.option || lo.filter || lo.duration ||
		    tracefs) {
			fprintf(stderr, "ustack: -e, -f, -O, -d and --tracefs need -i\n");
			goto fail;
		}
		if (optind + 1 < argc) {
			usage(stderr);
			goto fail;
		}
		ret = run_file(&c, optind < argc ? argv[optind] : "trace.dat",
			       buffer, stats);
	}
	errors = c.sym_errors + ustack_syms_errors(c.syms);
	ustack_syms_free(c.syms);
	evfilter_free(c.filter);
	weights_free(c.weights);
	free(c.loaded);
	free(c.buf);
	free(lo.events);
	if (check_stdout(c.write_error ? c.error : 0))
		return 1;
	damaged = report_problems(&c, &c.stats);
	if (ret)
		return ret;
	if (damaged)
		return EXIT_DAMAGED;
	if (errors || c.archive_missing)
		return EXIT_SYMS;
	return 0;
fail:
	evfilter_free(c.filter);
	weights_free(c.weights);
	ustack_syms_free(c.syms);
	free(lo.events);
	return 1;
}
