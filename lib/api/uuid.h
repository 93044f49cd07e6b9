/* SPDX-License-Identifier: MIT */
/*
 * uuid.h — counter UUIDs for the GPA 3.x/4.x GetCounterUuid entry.
 *
 * A counter's UUID is the name-based (version 5, SHA-1) UUID of the text
 * "<set>/<name>" in opengpa's namespace a7855c79-c412-5bbb-832b-53ec7c9d3f47
 * (itself the version 5 UUID of "opengpa:counters" in the URL namespace).
 * <set> is the counter file's name without ".counters" ("mali-g71") or, for
 * a raw counter a backend discovered, the backend's name.  The same set and
 * name give the same UUID in every run and every release; Python's
 * uuid.uuid5() computes it too.
 */
#ifndef OPENGPA_API_UUID_H
#define OPENGPA_API_UUID_H

#include <stdint.h>

void og_counter_uuid(const char *set, const char *name, uint8_t uuid[16]);

#endif
