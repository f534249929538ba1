// SPDX-License-Identifier: LGPL-2.1
/*
 * Call trees (ustack_tree(3)): ustack --tree's, and the KernelShark
 * plugin's view of the stacks in range, in the shape of
 * perf report --children --stdio.  Per event, the entries (by --sort:
 * task name, object, function) with their share of the event's events
 * (or weight) whose stacks hold them (Children) and whose innermost
 * frame they are (Self), most first; under each, the call graph through
 * it: its callees (--tree=caller, from the outermost place it holds in
 * each stack) or its callers (--tree=callee, from the innermost).
 * Works on the table of distinct stacks only: its cost is per distinct
 * stack, not per event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "ustack-local.h"

#define KERNEL_DSO	USTACK_TREE_KERNEL_OBJECT

/* a stack's key: fields separated by TREE_SEP: the event, the task's
 * name, then the frames outermost first, each "name" or "name" TREE_DSO
 * "object" */
#define TREE_SEP	'\x1e'
#define TREE_DSO	'\x1f'

enum {
	TREE_SORT_COMM	= 1 << 0,
	TREE_SORT_DSO	= 1 << 1,
	TREE_SORT_SYM	= 1 << 2,
};

struct tree_opts {
	bool		callee;		/* callers under each entry */
	double		limit;		/* percent */
	int		max_stack;	/* 0: all */
	int		sort[3];	/* TREE_SORT_*, in order */
	int		nr_sort;
	bool		weight;		/* values are weights (ns) */
};

/* a distinct stack: its key, its value */
struct folded {
	char			*stack;
	unsigned long long	count;
};

struct ustack_tree {
	struct tree_opts	o;
	unsigned int		flags;
	struct folded		*tab;		/* open addressing */
	size_t			size, used;
};

static int parse_sort(struct tree_opts *o, const char *keys)
{
	char *dup = strdup(keys), *p, *save = NULL;
	int k, i;

	if (!dup)
		return -1;
	o->nr_sort = 0;
	for (p = strtok_r(dup, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!strcmp(p, "comm"))
			k = TREE_SORT_COMM;
		else if (!strcmp(p, "dso"))
			k = TREE_SORT_DSO;
		else if (!strcmp(p, "sym"))
			k = TREE_SORT_SYM;
		else
			goto bad;
		for (i = 0; i < o->nr_sort; i++)
			if (o->sort[i] == k)
				goto bad;
		o->sort[o->nr_sort++] = k;
	}
	free(dup);
	if (!o->nr_sort)
		goto bad_nofree;
	return 0;
bad:
	free(dup);
bad_nofree:
	errno = EINVAL;
	return -1;
}

/* strings interned: an id each */
struct strtab {
	char		**str;
	size_t		nr, alloc;
	int		*hash;		/* open addressing: id + 1 */
	size_t		hsize;
};

static unsigned long hash_str(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static int intern(struct strtab *t, char *s)
{
	size_t i;

	if ((t->nr + 1) * 2 > t->hsize) {
		size_t n = t->hsize ? t->hsize * 2 : 256, j;
		int *h = calloc(n, sizeof(*h));

		if (!h)
			return -1;
		for (j = 0; j < t->nr; j++) {
			i = hash_str(t->str[j]) & (n - 1);
			while (h[i])
				i = (i + 1) & (n - 1);
			h[i] = j + 1;
		}
		free(t->hash);
		t->hash = h;
		t->hsize = n;
	}
	i = hash_str(s) & (t->hsize - 1);
	while (t->hash[i]) {
		if (!strcmp(t->str[t->hash[i] - 1], s))
			return t->hash[i] - 1;
		i = (i + 1) & (t->hsize - 1);
	}
	if (t->nr == t->alloc) {
		size_t n = t->alloc ? t->alloc * 2 : 256;
		char **p = realloc(t->str, n * sizeof(*p));

		if (!p)
			return -1;
		t->str = p;
		t->alloc = n;
	}
	t->str[t->nr] = s;		/* points into the table's keys */
	t->hash[i] = t->nr + 1;
	return t->nr++;
}

static void strtab_free(struct strtab *t)
{
	free(t->str);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

struct frame {
	int		sym;
	int		dso;
};

struct path {
	int			comm;
	int			nr;
	struct frame		*frames;	/* outermost first */
	unsigned long long	value;
};

struct entry {
	int			key[3];		/* comm, dso, sym; -1: any */
	unsigned long long	children;
	unsigned long long	self;
	size_t			stamp;		/* last path counted + 1 */
};

struct node {
	int			sym, dso;
	unsigned long long	value;
	int			child, sibling;	/* -1: none */
};

struct tree {
	const struct tree_opts	*o;
	struct trace_seq	*s;
	struct strtab		syms, dsos, comms;
	struct path		*paths;
	size_t			nr_paths;
	struct entry		*ents;
	size_t			nr_ents, alloc_ents;
	int			*ehash;
	size_t			ehsize;
	struct node		*nodes;
	size_t			nr_nodes, alloc_nodes;
	unsigned long long	total;
	int			vwidth;
	int			kernel_dso;	/* id of KERNEL_DSO, or -1 */
};

static bool has_sort(const struct tree_opts *o, int k)
{
	int i;

	for (i = 0; i < o->nr_sort; i++)
		if (o->sort[i] == k)
			return true;
	return false;
}

static unsigned long hash_key(const int *k)
{
	return (unsigned long)(k[0] + 1) * 1000003UL ^
	       (unsigned long)(k[1] + 1) * 7919UL ^ (unsigned long)(k[2] + 1);
}

static struct entry *entry_get(struct tree *t, const int *key)
{
	size_t i;

	if ((t->nr_ents + 1) * 2 > t->ehsize) {
		size_t n = t->ehsize ? t->ehsize * 2 : 256, j;
		int *h = calloc(n, sizeof(*h));

		if (!h)
			return NULL;
		for (j = 0; j < t->nr_ents; j++) {
			i = hash_key(t->ents[j].key) & (n - 1);
			while (h[i])
				i = (i + 1) & (n - 1);
			h[i] = j + 1;
		}
		free(t->ehash);
		t->ehash = h;
		t->ehsize = n;
	}
	i = hash_key(key) & (t->ehsize - 1);
	while (t->ehash[i]) {
		struct entry *e = &t->ents[t->ehash[i] - 1];

		if (!memcmp(e->key, key, sizeof(e->key)))
			return e;
		i = (i + 1) & (t->ehsize - 1);
	}
	if (t->nr_ents == t->alloc_ents) {
		size_t n = t->alloc_ents ? t->alloc_ents * 2 : 256;
		struct entry *p = realloc(t->ents, n * sizeof(*p));

		if (!p)
			return NULL;
		t->ents = p;
		t->alloc_ents = n;
	}
	memset(&t->ents[t->nr_ents], 0, sizeof(*t->ents));
	memcpy(t->ents[t->nr_ents].key, key, sizeof(t->ents->key));
	t->ehash[i] = t->nr_ents + 1;
	return &t->ents[t->nr_ents++];
}

/* the entry key of frame @f of path @p (f NULL: the path's task alone) */
static void frame_key(const struct tree *t, const struct path *p,
		      const struct frame *f, int *key)
{
	key[0] = has_sort(t->o, TREE_SORT_COMM) ? p->comm : -1;
	key[1] = f && has_sort(t->o, TREE_SORT_DSO) ? f->dso : -1;
	key[2] = f && has_sort(t->o, TREE_SORT_SYM) ? f->sym : -1;
}

static bool frame_keyed(const struct tree_opts *o)
{
	return has_sort(o, TREE_SORT_DSO) || has_sort(o, TREE_SORT_SYM);
}

static bool matches(const struct entry *e, const struct path *p,
		    const struct frame *f)
{
	return (e->key[0] < 0 || e->key[0] == p->comm) &&
	       (e->key[1] < 0 || e->key[1] == f->dso) &&
	       (e->key[2] < 0 || e->key[2] == f->sym);
}

/* one key of the table, split in place, as a path; -1 on ENOMEM */
static int parse_path(struct tree *t, char *key, unsigned long long value,
		      struct path *p)
{
	char *f, *next, *dso;
	int n = 0, alloc = 0;

	memset(p, 0, sizeof(*p));
	p->value = value;
	next = strchr(key, TREE_SEP);	/* past the event */
	if (!next)
		return 0;
	f = next + 1;
	next = strchr(f, TREE_SEP);
	if (next)
		*next = '\0';
	p->comm = intern(&t->comms, f);
	if (p->comm < 0)
		return -1;
	while (next) {
		f = next + 1;
		next = strchr(f, TREE_SEP);
		if (next)
			*next = '\0';
		if (!*f)
			continue;
		if (n == alloc) {
			struct frame *q;

			alloc = alloc ? alloc * 2 : 16;
			q = realloc(p->frames, alloc * sizeof(*q));
			if (!q)
				return -1;
			p->frames = q;
		}
		dso = strchr(f, TREE_DSO);
		if (dso)
			*dso++ = '\0';
		p->frames[n].sym = intern(&t->syms, f);
		p->frames[n].dso = intern(&t->dsos, dso ? dso : (char *)"");
		if (p->frames[n].sym < 0 || p->frames[n].dso < 0)
			return -1;
		n++;
	}
	p->nr = n;
	/* --max-stack: the innermost frames */
	if (t->o->max_stack > 0 && n > t->o->max_stack) {
		memmove(p->frames, p->frames + n - t->o->max_stack,
			t->o->max_stack * sizeof(*p->frames));
		p->nr = t->o->max_stack;
	}
	return 0;
}

static int node_new(struct tree *t, const struct frame *f)
{
	if (t->nr_nodes == t->alloc_nodes) {
		size_t n = t->alloc_nodes ? t->alloc_nodes * 2 : 256;
		struct node *p = realloc(t->nodes, n * sizeof(*p));

		if (!p)
			return -1;
		t->nodes = p;
		t->alloc_nodes = n;
	}
	t->nodes[t->nr_nodes] = (struct node){ f->sym, f->dso, 0, -1, -1 };
	return t->nr_nodes++;
}

/* adds the frames of @p from @from, one step @step at a time, under root 0 */
static int graph_add(struct tree *t, const struct path *p, int from, int step)
{
	int n = 0, c, j;

	t->nodes[0].value += p->value;
	for (j = from; j >= 0 && j < p->nr; j += step) {
		const struct frame *f = &p->frames[j];

		for (c = t->nodes[n].child; c >= 0; c = t->nodes[c].sibling)
			if (t->nodes[c].sym == f->sym && t->nodes[c].dso == f->dso)
				break;
		if (c < 0) {
			c = node_new(t, f);
			if (c < 0)
				return -1;
			t->nodes[c].sibling = t->nodes[n].child;
			t->nodes[n].child = c;
		}
		t->nodes[c].value += p->value;
		n = c;
	}
	return 0;
}

static double pct(const struct tree *t, unsigned long long v)
{
	return t->total ? 100.0 * v / t->total : 0.0;
}

static const struct tree *cmp_tree;

static int node_cmp(const void *a, const void *b)
{
	const struct node *x = &cmp_tree->nodes[*(const int *)a];
	const struct node *y = &cmp_tree->nodes[*(const int *)b];

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return strcmp(cmp_tree->syms.str[x->sym], cmp_tree->syms.str[y->sym]);
}

static int graph_print(struct tree *t, int n, int depth)
{
	int c, nr = 0, i, *kids;

	for (c = t->nodes[n].child; c >= 0; c = t->nodes[c].sibling)
		nr++;
	if (!nr)
		return 0;
	kids = malloc(nr * sizeof(*kids));
	if (!kids)
		return -1;
	for (nr = 0, c = t->nodes[n].child; c >= 0; c = t->nodes[c].sibling)
		kids[nr++] = c;
	cmp_tree = t;
	qsort(kids, nr, sizeof(*kids), node_cmp);
	for (i = 0; i < nr; i++) {
		const struct node *k = &t->nodes[kids[i]];

		if (pct(t, k->value) < t->o->limit)
			continue;
		trace_seq_printf(t->s, "%21s%7.2f%%  %*llu  %*s%s%s\n", "", pct(t, k->value),
		       t->vwidth, k->value, 2 * depth, "", t->syms.str[k->sym],
		       k->dso == t->kernel_dso ? " [k]" : "");
		if (graph_print(t, kids[i], depth + 1) < 0) {
			free(kids);
			return -1;
		}
	}
	free(kids);
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int i, r;

	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	for (i = 0; i < 3; i++) {
		const struct strtab *s = i == 0 ? &cmp_tree->comms :
					 i == 1 ? &cmp_tree->dsos : &cmp_tree->syms;

		if (x->key[i] < 0 || y->key[i] < 0)
			continue;
		r = strcmp(s->str[x->key[i]], s->str[y->key[i]]);
		if (r)
			return r;
	}
	return 0;
}

/* a kernel function's entry: its object, or the first frame it matches */
static bool entry_kernel(const struct tree *t, const struct entry *en)
{
	size_t i;
	int j;

	if (en->key[1] >= 0)
		return en->key[1] == t->kernel_dso;
	for (i = 0; i < t->nr_paths; i++)
		for (j = 0; j < t->paths[i].nr; j++)
			if (matches(en, &t->paths[i], &t->paths[i].frames[j]))
				return t->paths[i].frames[j].dso == t->kernel_dso;
	return false;
}

static const char *base(const char *s)
{
	const char *b = strrchr(s, '/');

	return b && b[1] ? b + 1 : s;
}

/* the tree of one event: the paths t->paths, parsed */
static int event_print(struct tree *t, const char *event, size_t len,
		       bool first)
{
	size_t i, e;
	int j, w[3] = { 7, 13, 6 }, key[3], k;
	unsigned long long events = 0;
	char num[32];

	t->nr_ents = 0;
	t->total = 0;
	memset(t->ehash, 0, t->ehsize * sizeof(*t->ehash));
	for (i = 0; i < t->nr_paths; i++) {
		struct path *p = &t->paths[i];
		struct entry *en;

		t->total += p->value;
		if (!frame_keyed(t->o)) {
			frame_key(t, p, NULL, key);
			en = entry_get(t, key);
			if (!en)
				return -1;
			en->children += p->value;
			en->self += p->value;
			continue;
		}
		for (j = 0; j < p->nr; j++) {
			frame_key(t, p, &p->frames[j], key);
			en = entry_get(t, key);
			if (!en)
				return -1;
			if (en->stamp != i + 1) {
				en->stamp = i + 1;
				en->children += p->value;
			}
			if (j == p->nr - 1)
				en->self += p->value;
		}
	}
	cmp_tree = t;
	if (t->nr_ents)
		qsort(t->ents, t->nr_ents, sizeof(*t->ents), entry_cmp);
	t->vwidth = snprintf(num, sizeof(num), "%llu", t->total);
	if (t->vwidth < 5)
		t->vwidth = 5;
	for (e = 0; e < t->nr_ents; e++) {
		const struct entry *en = &t->ents[e];

		if (en->key[0] >= 0 && (int)strlen(t->comms.str[en->key[0]]) > w[0])
			w[0] = strlen(t->comms.str[en->key[0]]);
		if (en->key[1] >= 0 && (int)strlen(base(t->dsos.str[en->key[1]])) > w[1])
			w[1] = strlen(base(t->dsos.str[en->key[1]]));
	}
	for (i = 0; i < t->nr_paths; i++)
		events += t->paths[i].value;
	trace_seq_printf(t->s, "%s# %.*s: %llu %s, %zu call path%s (%s)\n#\n", first ? "" : "\n",
	       (int)len, event, t->total, t->o->weight ? "ns" : "events",
	       t->nr_paths, t->nr_paths == 1 ? "" : "s",
	       t->o->callee ? "callers under each entry" :
			      "callees under each entry");
	trace_seq_printf(t->s, "# Children      Self  %*s", t->vwidth, t->o->weight ? "ns" : "Count");
	for (k = 0; k < t->o->nr_sort; k++) {
		int s = t->o->sort[k];

		if (s == TREE_SORT_COMM)
			trace_seq_printf(t->s, "  %-*s", w[0], "Command");
		else if (s == TREE_SORT_DSO)
			trace_seq_printf(t->s, "  %-*s", w[1], "Shared Object");
		else
			trace_seq_puts(t->s, "  Symbol");
	}
	trace_seq_puts(t->s, "\n#\n");
	for (e = 0; e < t->nr_ents; e++) {
		const struct entry *en = &t->ents[e];
		int from;

		if (pct(t, en->children) < t->o->limit)
			break;		/* sorted by children */
		trace_seq_printf(t->s, "%9.2f%% %8.2f%%  %*llu", pct(t, en->children),
		       pct(t, en->self), t->vwidth, en->children);
		for (k = 0; k < t->o->nr_sort; k++) {
			int s = t->o->sort[k];

			if (s == TREE_SORT_COMM)
				trace_seq_printf(t->s, "  %-*s", w[0], t->comms.str[en->key[0]]);
			else if (s == TREE_SORT_DSO)
				trace_seq_printf(t->s, "  %-*s", w[1], *t->dsos.str[en->key[1]] ?
				       base(t->dsos.str[en->key[1]]) : "[unknown]");
			else	/* perf's mark: [k] kernel, [.] user */
				trace_seq_printf(t->s, "  [%c] %s", entry_kernel(t, en) ? 'k' : '.',
				       t->syms.str[en->key[2]]);
		}
		trace_seq_putc(t->s, '\n');
		/* the graph through the entry */
		t->nr_nodes = 0;
		if (node_new(t, &(struct frame){ -1, -1 }) < 0)
			return -1;
		for (i = 0; i < t->nr_paths; i++) {
			const struct path *p = &t->paths[i];

			if (en->key[0] >= 0 && en->key[0] != p->comm)
				continue;
			if (!frame_keyed(t->o)) {
				from = t->o->callee ? p->nr - 1 : 0;
			} else if (!t->o->callee) {
				for (from = 0; from < p->nr; from++)
					if (matches(en, p, &p->frames[from]))
						break;
				if (from == p->nr)
					continue;
			} else {
				for (from = p->nr - 1; from >= 0; from--)
					if (matches(en, p, &p->frames[from]))
						break;
				if (from < 0)
					continue;
			}
			if (graph_add(t, p, from, t->o->callee ? -1 : 1) < 0)
				return -1;
		}
		if (graph_print(t, 0, 0) < 0)
			return -1;
	}
	return 0;
}

static size_t event_len(const char *key)
{
	const char *e = strchr(key, TREE_SEP);

	return e ? (size_t)(e - key) : strlen(key);
}

static int key_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;
	size_t lx = event_len(x->stack), ly = event_len(y->stack);
	int r = memcmp(x->stack, y->stack, lx < ly ? lx : ly);

	if (r || lx != ly)
		return r ? r : (lx > ly) - (lx < ly);
	return strcmp(x->stack, y->stack);
}

struct group {
	size_t			first, nr;
	unsigned long long	total;
};

static const struct folded *grp_tab;

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return key_cmp(&grp_tab[x->first], &grp_tab[y->first]);
}

static int tree_print(struct trace_seq *s, struct folded *tab, size_t n,
		      const struct tree_opts *o)
{
	struct tree t = { .o = o, .s = s, .kernel_dso = -1 };
	struct group *g = NULL;
	char **copies = NULL;
	size_t i, j, nr_g = 0;
	int ret = -1;

	if (!n)
		return 0;
	qsort(tab, n, sizeof(*tab), key_cmp);
	g = calloc(n, sizeof(*g));
	t.paths = calloc(n, sizeof(*t.paths));
	copies = calloc(n, sizeof(*copies));
	if (!g || !t.paths || !copies)
		goto out;
	for (i = 0; i < n; i++) {
		if (!i || event_len(tab[i].stack) != event_len(tab[i - 1].stack) ||
		    memcmp(tab[i].stack, tab[i - 1].stack, event_len(tab[i].stack)))
			g[nr_g++].first = i;
		g[nr_g - 1].nr++;
		g[nr_g - 1].total += tab[i].count;
	}
	grp_tab = tab;
	qsort(g, nr_g, sizeof(*g), group_cmp);
	for (i = 0; i < nr_g; i++) {
		const struct folded *f = &tab[g[i].first];

		strtab_free(&t.syms);
		strtab_free(&t.dsos);
		strtab_free(&t.comms);
		t.kernel_dso = -1;
		for (j = 0; j < g[i].nr; j++) {
			copies[j] = strdup(f[j].stack);
			if (!copies[j] ||
			    parse_path(&t, copies[j], f[j].count, &t.paths[j]) < 0) {
				t.nr_paths = j + 1;
				goto out;
			}
		}
		t.nr_paths = g[i].nr;
		for (j = 0; j < t.dsos.nr; j++)
			if (!strcmp(t.dsos.str[j], KERNEL_DSO))
				t.kernel_dso = j;
		if (event_print(&t, f->stack, event_len(f->stack), !i) < 0)
			goto out;
		for (j = 0; j < t.nr_paths; j++) {
			free(t.paths[j].frames);
			free(copies[j]);
			copies[j] = NULL;
		}
		t.nr_paths = 0;
	}
	ret = 0;
out:
	for (j = 0; j < t.nr_paths; j++) {
		free(t.paths[j].frames);
		free(copies[j]);
	}
	strtab_free(&t.syms);
	strtab_free(&t.dsos);
	strtab_free(&t.comms);
	free(t.ents);
	free(t.ehash);
	free(t.nodes);
	free(t.paths);
	free(copies);
	free(g);
	if (ret)
		errno = ENOMEM;
	return ret;
}

/**
 * ustack_tree_alloc - a call tree of stacks, empty
 * @flags: USTACK_TREE_CALLEE (each entry's callers, not its callees),
 *	   USTACK_TREE_WEIGHT (the values are weights in ns, not counts);
 *	   for ustack_tree_add_event(): USTACK_TREE_TRACER_FRAMES (keep
 *	   the tracer's own kernel frames), USTACK_TREE_NO_KERNEL (no
 *	   kernel frames)
 *
 * Returns the tree (sorted by comm,dso,sym, no limits), or NULL with
 * errno set (EINVAL for an unknown flag, ENOMEM).
 */
struct ustack_tree *ustack_tree_alloc(unsigned int flags)
{
	struct ustack_tree *tree;

	if (flags & ~(USTACK_TREE_CALLEE | USTACK_TREE_WEIGHT |
		      USTACK_TREE_TRACER_FRAMES | USTACK_TREE_NO_KERNEL)) {
		errno = EINVAL;
		return NULL;
	}
	tree = calloc(1, sizeof(*tree));
	if (!tree)
		return NULL;
	tree->flags = flags;
	tree->o.callee = flags & USTACK_TREE_CALLEE;
	tree->o.weight = flags & USTACK_TREE_WEIGHT;
	parse_sort(&tree->o, "comm,dso,sym");
	return tree;
}

/**
 * ustack_tree_free - free a call tree
 * @tree: the tree, or NULL
 */
void ustack_tree_free(struct ustack_tree *tree)
{
	size_t i;

	if (!tree)
		return;
	for (i = 0; i < tree->size; i++)
		free(tree->tab[i].stack);
	free(tree->tab);
	free(tree);
}

/**
 * ustack_tree_set_sort - what the tree's entries are
 * @tree: the tree
 * @keys: "comm", "dso" and "sym", comma-separated, each at most once, in
 *	  the order of the columns (perf report's --sort)
 *
 * Returns 0, or -1 with errno set: EINVAL for a bad key (the tree keeps
 * its sort), ENOMEM.
 */
int ustack_tree_set_sort(struct ustack_tree *tree, const char *keys)
{
	struct tree_opts o;

	if (!tree || !keys) {
		errno = EINVAL;
		return -1;
	}
	o = tree->o;
	if (parse_sort(&o, keys) < 0)
		return -1;
	tree->o = o;
	return 0;
}

/**
 * ustack_tree_set_limits - leave out small branches, cut deep stacks
 * @tree: the tree
 * @percent: no entry or branch under this share (0 to 100; 0: all)
 * @max_stack: only the innermost @max_stack frames of each stack (0: all)
 *
 * Returns 0, or -1 with errno EINVAL for a value out of range.
 */
int ustack_tree_set_limits(struct ustack_tree *tree, double percent,
			   int max_stack)
{
	if (!tree || !(percent >= 0 && percent <= 100) || max_stack < 0) {
		errno = EINVAL;
		return -1;
	}
	tree->o.limit = percent;
	tree->o.max_stack = max_stack;
	return 0;
}

static int key_add(char **buf, size_t *len, size_t *alloc, char sep,
		   const char *s)
{
	size_t n = strlen(s), i;
	char *p;

	if (*len + n + 2 > *alloc) {
		*alloc = (*len + n + 2) * 2;
		p = realloc(*buf, *alloc);
		if (!p)
			return -1;
		*buf = p;
	}
	if (sep)
		(*buf)[(*len)++] = sep;
	for (i = 0; i < n; i++)	/* the key's separators, and newlines */
		(*buf)[(*len)++] = s[i] == TREE_SEP || s[i] == TREE_DSO ||
				   s[i] == '\n' ? '_' : s[i];
	(*buf)[*len] = '\0';
	return 0;
}

static int table_add(struct ustack_tree *tree, char *key,
		     unsigned long long value)
{
	struct folded *t;
	size_t i, j, n;

	if (tree->used * 2 >= tree->size) {
		n = tree->size ? tree->size * 2 : 1024;
		t = calloc(n, sizeof(*t));
		if (!t)
			return -1;
		for (i = 0; i < tree->size; i++) {
			if (!tree->tab[i].stack)
				continue;
			j = hash_str(tree->tab[i].stack) & (n - 1);
			while (t[j].stack)
				j = (j + 1) & (n - 1);
			t[j] = tree->tab[i];
		}
		free(tree->tab);
		tree->tab = t;
		tree->size = n;
	}
	i = hash_str(key) & (tree->size - 1);
	while (tree->tab[i].stack && strcmp(tree->tab[i].stack, key))
		i = (i + 1) & (tree->size - 1);
	if (tree->tab[i].stack) {
		free(key);
	} else {
		tree->tab[i].stack = key;
		tree->used++;
	}
	tree->tab[i].count += value;
	return 0;
}

/**
 * ustack_tree_add - add a stack to a call tree
 * @tree: the tree
 * @event: the event's name ("system:event"): each event has a tree
 * @comm: the task's name
 * @frames: the frames, outermost first: each its name (function, or
 *	    what stands for it: an address, a status such as "[truncated]")
 *	    and its object (the binary's path, USTACK_TREE_KERNEL_OBJECT for
 *	    a kernel frame, NULL when none is said)
 * @nr: how many
 * @value: its count (1 for an event) or its weight
 *
 * The same stack added again adds to its value.  Separators of the
 * tree's keys (0x1e, 0x1f) and newlines in the names become '_'.
 *
 * Returns 0, or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_tree_add(struct ustack_tree *tree, const char *event,
		    const char *comm, const struct ustack_tree_frame *frames,
		    int nr, unsigned long long value)
{
	size_t len = 0, alloc = 0;
	char *key = NULL;
	int i, err;

	if (!tree || !event || !comm || nr < 0 || (nr && !frames)) {
		errno = EINVAL;
		return -1;
	}
	err = key_add(&key, &len, &alloc, 0, event) ||
	      key_add(&key, &len, &alloc, TREE_SEP, comm);
	for (i = 0; !err && i < nr; i++) {
		err = !frames[i].name ||
		      key_add(&key, &len, &alloc, TREE_SEP, frames[i].name) ||
		      (frames[i].object &&
		       key_add(&key, &len, &alloc, TREE_DSO, frames[i].object));
		if (!frames[i].name)
			errno = EINVAL;
	}
	if (err || table_add(tree, key, value) < 0) {
		free(key);
		return -1;
	}
	return 0;
}

#define NAME_SIZE	1024

/* a frame named as ustack --tree names it: no offset (ustack/ustack.c) */
static void frame_name(const struct ustack_event *ev, struct ustack_syms *syms,
		       unsigned long long addr, bool kernel, char *out,
		       struct ustack_tree_frame *f)
{
	int arch = ustack_frame_arch(ev->tep), r = -1;
	struct ustack_sym s = { 0 };
	const char *base;

	f->name = out;
	f->object = kernel ? KERNEL_DSO : "";
	if (!ustack_frame_plausible(addr, kernel | arch)) {
		snprintf(out, NAME_SIZE, "0x%llx_%s", addr, USTACK_BAD_FRAME_TEXT);
		return;
	}
	if (kernel && addr == USTACK_FTRACE_TRAMPOLINE) {
		snprintf(out, NAME_SIZE, "%s", USTACK_TRAMPOLINE_TEXT);
		return;
	}
	if (syms)
		r = kernel ? ustack_syms_resolve_kernel(syms, addr, &s) :
			     ustack_syms_resolve(syms, ev->tgid, addr, &s);
	if (!kernel && r == 0 && s.file)
		f->object = s.file;
	if (!kernel && r == 0 && !s.name && !s.file &&
	    ustack_syms_execs_after(syms, ev->tgid, ev->ts) > 0 &&
	    !ustack_syms_maps_known(syms, ev->tgid, ev->ts)) {
		snprintf(out, NAME_SIZE, "0x%llx_%s", addr, USTACK_BEFORE_EXEC_TEXT);
	} else if (r < 0 || (!s.name && !s.file)) {
		snprintf(out, NAME_SIZE, "0x%llx", addr);
	} else if (s.name) {
		snprintf(out, NAME_SIZE, "%s", s.name);
	} else {
		base = strrchr(s.file, '/');
		snprintf(out, NAME_SIZE, "%s+0x%llx", base ? base + 1 : s.file,
			 s.offset);
	}
}

/**
 * ustack_tree_add_event - add an event's stacks to a call tree
 * @tree: the tree
 * @ev: the event, as the join delivered it (or as ustack_event_parse()
 *	filled it)
 * @syms: names the frames (its time set to the event's), or NULL: the
 *	  frames as addresses
 * @value: its count (1) or its weight
 *
 * Adds the stack ustack --tree adds for @ev: its event's name, its
 * task's name, its status when the user stack is not complete (such as
 * "[truncated]"), its user frames then its kernel frames, outermost
 * first, each named without an offset, in its object.  The tracer's own
 * innermost kernel frames are left out unless the tree was made with
 * USTACK_TREE_TRACER_FRAMES; all kernel frames with USTACK_TREE_NO_KERNEL.
 *
 * Returns 0, or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_tree_add_event(struct ustack_tree *tree,
			  const struct ustack_event *ev,
			  struct ustack_syms *syms, unsigned long long value)
{
	int nr_k, i, n = 0, skip = 0, ret;
	struct ustack_tree_frame *fr;
	const char *comm = NULL;
	char event[256], *names;

	if (!tree || !ev || ev->nr_user < 0 || ev->nr_kernel < 0) {
		errno = EINVAL;
		return -1;
	}
	nr_k = tree->flags & USTACK_TREE_NO_KERNEL ? 0 : ev->nr_kernel;
	if (nr_k && syms && !(tree->flags & USTACK_TREE_TRACER_FRAMES))
		skip = ustack_tracer_frames(syms, ev->kernel, nr_k,
					    ustack_frame_arch(ev->tep), false);
	fr = calloc(ev->nr_user + nr_k + 1, sizeof(*fr));
	names = malloc((ev->nr_user + nr_k + 1) * NAME_SIZE);
	if (!fr || !names) {
		free(fr);
		free(names);
		return -1;
	}
	if (ev->flags & USTACK_EV_UNSEEN)
		snprintf(event, sizeof(event), "unseen-event");
	else if (ev->event)
		snprintf(event, sizeof(event), "%s:%s", ev->event->system,
			 ev->event->name);
	else
		snprintf(event, sizeof(event), "unknown-event");
	if (ev->tep)
		comm = tep_data_comm_from_pid(ev->tep, ev->pid);
	if (!comm || !strcmp(comm, "<...>"))
		comm = "[unknown]";
	fr[n].name = ev->status == USTACK_NEVER_ARRIVED ? "[user stack never arrived]" :
		     ev->status == USTACK_EMPTY ? "[user stack empty]" :
		     ev->status == USTACK_TRUNCATED ? "[truncated]" :
		     ev->status == USTACK_LOST ? "[user stack lost]" : NULL;
	n += !!fr[n].name;
	if (syms)
		ustack_syms_set_time(syms, ev->ts);
	for (i = ev->nr_user - 1; i >= 0; i--, n++)
		frame_name(ev, syms, ev->user[i], false, names + n * NAME_SIZE,
			   &fr[n]);
	for (i = nr_k - 1; i >= skip; i--, n++)
		frame_name(ev, syms, ev->kernel[i], true, names + n * NAME_SIZE,
			   &fr[n]);
	ret = ustack_tree_add(tree, event, comm, fr, n, value);
	free(fr);
	free(names);
	return ret;
}

/**
 * ustack_tree_print - print a call tree
 * @s: where to
 * @tree: the tree
 *
 * Per event (the most first), its entries (by the sort keys: task name,
 * object, function) with their share of the event's value whose stacks
 * hold them (Children) and whose innermost frame they are (Self), most
 * first, each followed by the call graph through it: its callees, or
 * with USTACK_TREE_CALLEE its callers.  The layout of ustack --tree
 * (ustack(1)), after perf report --children --stdio.
 *
 * Returns 0, or -1 with errno set (EINVAL, ENOMEM).
 */
int ustack_tree_print(struct trace_seq *s, struct ustack_tree *tree)
{
	struct folded *tab;
	size_t i, n = 0;
	int ret;

	if (!s || !tree) {
		errno = EINVAL;
		return -1;
	}
	/* the distinct stacks, in a copy that tree_print() reorders */
	tab = malloc((tree->used ? tree->used : 1) * sizeof(*tab));
	if (!tab)
		return -1;
	for (i = 0; i < tree->size; i++)
		if (tree->tab[i].stack)
			tab[n++] = tree->tab[i];
	ret = tree_print(s, tab, n, &tree->o);
	free(tab);
	if (!ret && s->state != TRACE_SEQ__GOOD) {
		errno = ENOMEM;
		ret = -1;
	}
	return ret;
}
