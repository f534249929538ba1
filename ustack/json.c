// SPDX-License-Identifier: GPL-2.0
/*
 * ustack --json: each event as one JSON object on a line of its own
 * (JSON Lines), every field always there (null when not known), so that
 * a script needs no awk.  The fields and their meaning: ustack(1), JSON
 * OUTPUT; a field is never renamed or given another meaning, new ones
 * may come.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "json.h"

/* a JSON string: escaped, and bytes that are not UTF-8 as \u00XX */
static bool ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && !strcmp(s + a - b, end);
}

static void jstr(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*p) {
		int n = 0, i;

		if (*p == '"' || *p == '\\') {
			fputc('\\', out);
			fputc(*p++, out);
			continue;
		}
		if (*p < 0x20) {
			fprintf(out, "\\u%04x", *p++);
			continue;
		}
		if (*p < 0x80) {
			fputc(*p++, out);
			continue;
		}
		if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
			n = 1;
		else if ((*p & 0xf0) == 0xe0)
			n = 2;
		else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
			n = 3;
		for (i = 1; i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				break;
		if (!n || i <= n) {	/* not UTF-8: the byte as Latin-1 */
			fprintf(out, "\\u%04x", *p++);
			continue;
		}
		fwrite(p, 1, n + 1, out);
		p += n + 1;
	}
	fputc('"', out);
}

static void jhex(FILE *out, unsigned long long v)
{
	fprintf(out, "\"0x%llx\"", v);
}

/*
 * The source lines of a user frame from ustack_syms_format_lines():
 * "func [inlined] file:line" lines, innermost first, then the frame's
 * own, ending in " file:line" after what ustack_syms_format() writes.
 */
static void jlines(FILE *out, struct ustack_syms *syms, int pid,
		   unsigned long long addr)
{
	char lines[8192], plain[2048], *p, *e, *c;
	size_t plen;
	bool first = true;

	if (ustack_syms_format(syms, pid, addr, plain, sizeof(plain)) < 0 ||
	    ustack_syms_format_lines(syms, pid, addr, lines, sizeof(lines)) < 0) {
		fputs(",\"inlined\":[],\"file\":null,\"line\":null", out);
		return;
	}
	plen = strlen(plain);
	fputs(",\"inlined\":[", out);
	for (p = lines; (e = strchr(p, '\n')); p = e + 1) {
		*e = '\0';
		c = strstr(p, " [inlined] ");
		if (!c)
			continue;
		*c = '\0';
		c += strlen(" [inlined] ");
		fprintf(out, "%s{\"symbol\":", first ? "" : ",");
		jstr(out, p);
		first = false;
		e[0] = '\0';
		p = strrchr(c, ':');
		if (p) {
			*p++ = '\0';
			fputs(",\"file\":", out);
			jstr(out, c);
			fprintf(out, ",\"line\":%ld}", strtol(p, NULL, 10));
		} else {
			fputs(",\"file\":null,\"line\":null}", out);
		}
	}
	fputc(']', out);
	/* p: the frame's own line */
	if (!strncmp(p, plain, plen) && p[plen] == ' ' && (c = strrchr(p + plen + 1, ':'))) {
		*c++ = '\0';
		fputs(",\"file\":", out);
		jstr(out, p + plen + 1);
		fprintf(out, ",\"line\":%ld", strtol(c, NULL, 10));
	} else {
		fputs(",\"file\":null,\"line\":null", out);
	}
}

static void jframe(FILE *out, struct ustack_syms *syms, int pid,
		   unsigned long long addr, bool kernel, const struct json_opts *o,
		   unsigned long long ts)
{
	struct ustack_sym s;
	int r = -1;

	fputs("{\"addr\":", out);
	jhex(out, addr);
	if (!ustack_frame_plausible(addr, (kernel ? USTACK_FRAME_KERNEL :
					   USTACK_FRAME_USER) | o->arch)) {
		fputs(",\"mark\":\"not-an-address\"", out);
		goto none;
	}
	if (kernel && addr == USTACK_FTRACE_TRAMPOLINE) {
		fputs(",\"mark\":\"ftrace-trampoline\"", out);
		goto none;
	}
	if (!o->raw)
		r = kernel ? ustack_syms_resolve_kernel(syms, addr, &s) :
			     ustack_syms_resolve(syms, pid, addr, &s);
	if (!kernel && !o->raw && r == 0 && !s.name && !s.file &&
	    ustack_syms_execs_after(syms, pid, ts) > 0 &&
	    !ustack_syms_maps_known(syms, pid, ts)) {
		fputs(",\"mark\":\"before-exec\"", out);
		goto none;
	}
	if (r < 0) {
		fputs(",\"mark\":null", out);
		goto none;
	}
	/*
	 * An object that could not be read: which number addr2line takes
	 * is not known (ustack_syms_format() writes both candidates).  The
	 * same when the file there now is not the one mapped (its build
	 * ID, or its type or layout, differ): the name is not given.
	 */
	if (!kernel && !s.name && s.file) {
		char plain[2048], simple[2048];
		const char *mark = "object-not-read";

		snprintf(simple, sizeof(simple), "%s+0x%llx", s.file, s.file_addr);
		if (ustack_syms_format(syms, pid, addr, plain, sizeof(plain)) >= 0 &&
		    strcmp(plain, simple) &&
		    !ustack_syms_resolve(syms, pid, addr, &s) && s.file) {
			if (ends_with(plain, " [not the file mapped]"))
				mark = "not-the-file-mapped";
			else if (ends_with(plain, " [build-id mismatch]"))
				mark = "build-id-mismatch";
			fprintf(out, ",\"mark\":\"%s\",\"symbol\":null,\"offset\":null,\"object\":",
				mark);
			jstr(out, s.file);
			fputs(",\"file_addr\":null,\"inlined\":[],\"file\":null,\"line\":null}", out);
			return;
		}
		if (ustack_syms_resolve(syms, pid, addr, &s) < 0)
			goto none;
	}
	fputs(",\"mark\":null", out);
	fputs(",\"symbol\":", out);
	jstr(out, s.name);
	if (s.name)
		fprintf(out, ",\"offset\":%llu", s.offset);
	else
		fputs(",\"offset\":null", out);
	if (kernel) {
		fputs(",\"object\":\"[kernel.kallsyms]\",\"file_addr\":null", out);
		fputs(",\"inlined\":[],\"file\":null,\"line\":null}", out);
		return;
	}
	fputs(",\"object\":", out);
	jstr(out, s.file);
	fputs(",\"file_addr\":", out);
	if (s.file)
		jhex(out, s.file_addr);
	else
		fputs("null", out);
	jlines(out, syms, pid, addr);
	fputc('}', out);
	return;
none:
	fputs(",\"symbol\":null,\"offset\":null,\"object\":null,\"file_addr\":null", out);
	fputs(",\"inlined\":[],\"file\":null,\"line\":null}", out);
}

void json_event(FILE *out, const struct ustack_event *ev,
		struct ustack_syms *syms, const struct json_opts *o)
{
	const char *comm = NULL, *uw;
	char name[512];
	int i;

	if (ev->flags & USTACK_EV_UNSEEN)
		snprintf(name, sizeof(name), "unseen-event");
	else if (ev->event)
		snprintf(name, sizeof(name), "%s:%s", ev->event->system,
			 ev->event->name);
	else
		snprintf(name, sizeof(name), "unknown-event");
	if (ev->tep)
		comm = tep_data_comm_from_pid(ev->tep, ev->pid);
	if (comm && !strcmp(comm, "<...>"))
		comm = NULL;
	fputs("{\"event\":", out);
	jstr(out, name);
	fprintf(out, ",\"time\":\"%llu.%09llu\",\"ts\":%llu,\"cpu\":%d,\"tid\":%d,\"pid\":",
		ev->ts / 1000000000ULL, ev->ts % 1000000000ULL, ev->ts,
		ev->cpu, ev->pid);
	if (ev->tgid >= 0)
		fprintf(out, "%d", ev->tgid);
	else
		fputs("null", out);
	fputs(",\"comm\":", out);
	jstr(out, comm);
	fputs(",\"instance\":", out);
	jstr(out, ev->instance && *ev->instance ? ev->instance : "top");
	fputs(",\"status\":", out);
	jstr(out, ustack_status_name(ev->status));
	fprintf(out, ",\"late\":%s,\"evicted\":%s,\"cookie\":",
		ev->flags & USTACK_EV_LATE ? "true" : "false",
		ev->flags & USTACK_EV_EVICTED ? "true" : "false");
	if (ev->cookie)
		jhex(out, ev->cookie);
	else
		fputs("null", out);
	uw = ev->unwinder ? ustack_unwinder_name(ev->unwinder) : NULL;
	fputs(",\"unwinder\":", out);
	jstr(out, uw && *uw ? uw : NULL);
	if (ev->tgid >= 0)
		fprintf(out, ",\"depth\":%u", ev->depth);
	else
		fputs(",\"depth\":null", out);
	fputs(",\"kernel\":[", out);
	for (i = 0; i < ev->nr_kernel; i++) {
		if (i)
			fputc(',', out);
		jframe(out, syms, 0, ev->kernel[i], true, o, ev->ts);
	}
	fputs("],\"user\":[", out);
	for (i = 0; i < ev->nr_user; i++) {
		if (i)
			fputc(',', out);
		jframe(out, syms, ev->tgid, ev->user[i], false, o, ev->ts);
	}
	fputs("]}\n", out);
}
