/* SPDX-License-Identifier: MIT */
/*
 * listen.h — `opengpa stat -I MS --listen ADDR:PORT` and `--openmetrics
 * FILE`: a periodic run's counters for Prometheus (docs/farm.md).
 *
 * The interval reader (timeline_run.c) hands each interval to
 * om_export_interval(), which renders the document (openmetrics.h) in both
 * text formats, publishes it for the listener and writes the file.  The
 * listener is one thread of its own that owns the listening socket's
 * clients: one poll() over the socket, at most OM_MAX_CLIENTS connections,
 * each with a bounded request (OM_MAX_REQUEST bytes) and a deadline
 * (OM_CLIENT_MS from its accept to its last byte sent), so a slow, silent
 * or hostile client costs a slot for a few seconds and nothing else.
 *
 * In the order timeline_run.c calls it:
 *   om_export_open      with the other outputs: socket bound (its address
 *                       printed), file checked, listener started
 *   om_export_prepare   with the run's series
 *   om_export_interval  per interval, from the reader thread
 *   om_export_close     listener stopped and joined, every descriptor closed
 */
#ifndef OPENGPA_TOOLS_LISTEN_H
#define OPENGPA_TOOLS_LISTEN_H

#include <stdint.h>

#include "opengpa.h"
#include "timeline.h"

#define OM_MAX_CLIENTS 16
#define OM_MAX_REQUEST 8192
#define OM_CLIENT_MS 5000

struct om_export;

/* listen: "ADDR:PORT" (stat_parse_listen checked it) or NULL; file: the
 * textfile or NULL.  *out is NULL when neither is asked.  Returns 0, or 1
 * after printing why (the address taken, the file's directory not
 * writable). */
int om_export_open(struct om_export **out, const char *listen, const char *file);

/* The run's series (run outlives the export) and their counters' indexes,
 * for the descriptions.  Returns 0, or 1 after printing why. */
int om_export_prepare(struct om_export *e, const struct tl_run *run, const gpa_uint32 *index);

/* One interval: each series' value (NAN: none), its sum and how many
 * intervals had one, and the intervals so far. */
void om_export_interval(struct om_export *e, const double *latest, const double *sums,
                        const uint32_t *counted, uint64_t intervals);

/* Stops the listener and frees everything; NULL is fine. */
void om_export_close(struct om_export *e);

#endif
