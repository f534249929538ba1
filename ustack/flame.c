// SPDX-License-Identifier: GPL-2.0
/*
 * ustack --flamegraph: the folded stacks as a flame graph, written as
 * one SVG file, drawn the way FlameGraph's flamegraph.pl draws them, so
 * a user who would rather look than read needs no other tool: the root
 * ("all") at the bottom, each frame as wide as the events (or the time)
 * under it, siblings merged by name and ordered by it, frames narrower
 * than a tenth of a pixel left out.  Kernel frames (_[k]) are orange,
 * JIT frames (_[j]) green, user frames in the warm palette, each colour
 * fixed by the name (the same name has the same colour in every graph).
 * Each frame's <title> gives its name, value and share: a browser shows
 * it on hovering.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

#define IMG_WIDTH	1200
#define X_PAD		10
#define FRAME_H		16
#define FONT_SIZE	12
#define FONT_WIDTH	0.59	/* of the font size, as flamegraph.pl */
#define TOP		40	/* the title */
#define BOTTOM		10
#define MIN_WIDTH	0.1	/* pixels */

struct node {
	char			*name;
	unsigned long long	value;
	struct node		**kids;
	size_t			nr, alloc;
};

static struct node *node_new(const char *name, size_t len)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->name = strndup(name, len);
	if (!n->name) {
		free(n);
		return NULL;
	}
	return n;
}

static void node_free(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

/* the child of @n named @name[0..len), made if it is not there */
static struct node *node_child(struct node *n, const char *name, size_t len)
{
	struct node *k;
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (!strncmp(n->kids[i]->name, name, len) && !n->kids[i]->name[len])
			return n->kids[i];
	if (n->nr == n->alloc) {
		size_t a = n->alloc ? n->alloc * 2 : 4;
		struct node **kids = realloc(n->kids, a * sizeof(*kids));

		if (!kids)
			return NULL;
		n->kids = kids;
		n->alloc = a;
	}
	k = node_new(name, len);
	if (!k)
		return NULL;
	n->kids[n->nr++] = k;
	return k;
}

/* one folded stack under @root: 0, or -1 (ENOMEM); its depth in @depth */
static int add_stack(struct node *root, const char *key,
		     unsigned long long value, int *depth)
{
	struct node *n = root;
	int d = 0;

	root->value += value;
	while (*key) {
		size_t len = strcspn(key, ";");

		n = node_child(n, key, len);
		if (!n)
			return -1;
		n->value += value;
		d++;
		key += len;
		if (*key == ';')
			key++;
	}
	if (d > *depth)
		*depth = d;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct node *x = *(const struct node * const *)a;
	const struct node *y = *(const struct node * const *)b;

	return strcmp(x->name, y->name);
}

static void xml_str(FILE *out, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* no control characters in XML 1.0 */
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], out);
		}
	}
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static bool ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && !strcmp(s + a - b, end);
}

/* flamegraph.pl's palettes: hot for user code, orange for the kernel,
 * green for JIT code; the shade from the name */
static void color(const char *name, int *r, int *g, int *b)
{
	uint32_t h = name_hash(name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;

	if (ends_with(name, "_[k]")) {
		*r = 190 + 65 * v1; *g = 90 + 65 * v1; *b = 0;
	} else if (ends_with(name, "_[j]")) {
		*r = 50 * v1; *g = 200 + 55 * v2; *b = 50 * v1;
	} else {
		*r = 205 + 50 * v2; *g = 230 * v1; *b = 55 * (1 - v2);
	}
}

struct draw {
	FILE			*out;
	unsigned long long	total;
	double			scale;		/* pixels per unit */
	int			height;
	bool			weight;
};

static void value_str(const struct draw *d, unsigned long long v, char *buf,
		      size_t size)
{
	if (d->weight)
		snprintf(buf, size, "%.3f ms", v / 1e6);
	else
		snprintf(buf, size, "%llu event%s", v, v == 1 ? "" : "s");
}

static void draw_node(const struct draw *d, struct node *n, double x,
		      int depth)
{
	double w = n->value * d->scale, px = X_PAD + x * d->scale;
	int y = d->height - BOTTOM - (depth + 1) * FRAME_H;
	size_t fit = w / (FONT_SIZE * FONT_WIDTH), i;
	char val[64];
	int r, g, b;

	if (w < MIN_WIDTH)
		return;
	if (depth)
		color(n->name, &r, &g, &b);
	else
		r = g = b = 200;
	value_str(d, n->value, val, sizeof(val));
	fputs("<g><title>", d->out);
	xml_str(d->out, n->name, SIZE_MAX);
	fprintf(d->out, " (%s, %.2f%%)</title>", val, 100.0 * n->value / d->total);
	fprintf(d->out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		px, y, w, FRAME_H - 1, r, g, b);
	if (fit >= 3) {
		fprintf(d->out, "<text x=\"%.1f\" y=\"%d\">", px + 3, y + FRAME_H - 4);
		if (strlen(n->name) <= fit) {
			xml_str(d->out, n->name, SIZE_MAX);
		} else {
			xml_str(d->out, n->name, fit - 2);
			fputs("..", d->out);
		}
		fputs("</text>", d->out);
	}
	fputs("</g>\n", d->out);
	qsort(n->kids, n->nr, sizeof(*n->kids), by_name);
	for (i = 0; i < n->nr; i++) {
		draw_node(d, n->kids[i], x, depth + 1);
		x += n->kids[i]->value;
	}
}

int flame_print(FILE *out, const struct folded *tab, size_t n, bool weight)
{
	struct node *root = node_new("all", 3);
	struct draw d = { .out = out, .weight = weight };
	int depth = 0;
	char val[64];
	size_t i;

	if (!root)
		return -1;
	for (i = 0; i < n; i++) {
		if (add_stack(root, tab[i].stack, tab[i].count, &depth) < 0) {
			node_free(root);
			errno = ENOMEM;
			return -1;
		}
	}
	d.total = root->value ? root->value : 1;
	d.scale = (double)(IMG_WIDTH - 2 * X_PAD) / d.total;
	d.height = TOP + (depth + 1) * FRAME_H + BOTTOM;
	value_str(&d, root->value, val, sizeof(val));
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,248)\"/>\n"
		"<text x=\"%d\" y=\"24\" style=\"font-size: 17px\">Flame graph: ustack, %s</text>\n",
		IMG_WIDTH, d.height, IMG_WIDTH, d.height, FONT_SIZE,
		X_PAD, val);
	if (root->value)
		draw_node(&d, root, 0, 0);
	fputs("</svg>\n", out);
	node_free(root);
	return 0;
}
