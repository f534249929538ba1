/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack's choice of the events it shows: -F FILTER (libtraceevent's
 * filters, as trace-cmd report -F), --pid, --comm and --time.
 */
#ifndef _USTACK_EVFILTER_H
#define _USTACK_EVFILTER_H

#include <stdbool.h>
#include <event-parse.h>

#include "ustack.h"

struct evfilter;

struct evfilter *evfilter_alloc(void);
void evfilter_free(struct evfilter *f);
/* Each returns 0, or -1 after saying why on stderr */
int evfilter_add_filter(struct evfilter *f, const char *str);
int evfilter_add_pids(struct evfilter *f, const char *list);
int evfilter_add_comms(struct evfilter *f, const char *list);
int evfilter_set_time(struct evfilter *f, const char *range);
/* true when no option chose events: every event is shown */
bool evfilter_empty(const struct evfilter *f);
/* Builds the filters against the events of tep: 0, or -1 after saying
 * why on stderr (a filter that does not parse).  quiet: no warnings. */
int evfilter_prepare(struct evfilter *f, struct tep_handle *tep, bool quiet);
/* Whether ev is shown: -1 when a filter cannot be built for its tep */
int evfilter_match(struct evfilter *f, const struct ustack_event *ev);

#endif /* _USTACK_EVFILTER_H */
