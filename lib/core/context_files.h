/* SPDX-License-Identifier: MIT */
/* context_files.h — the counter files a context opens with (context_files.c). */
#ifndef OPENGPA_CORE_CONTEXT_FILES_H
#define OPENGPA_CORE_CONTEXT_FILES_H

#include "core/core.h"

/* Counter files in the order the catalogue takes them. */
struct og_file_list {
	struct og_cf_file *files;
	size_t count, cap;
	size_t user_bytes; /* of the user's files read so far */
};

/* Appends to fl the backend's sets (info->counter_sets); for a context on
 * an application's API (api), GPA's Timing sets; then the user's files
 * (OpenGPA_AddCounterFile, OPENGPA_COUNTER_PATH).  *nbuiltin: how many of
 * them are the build's.  Lock held; each failure logged.  On a failure
 * the caller frees fl (og_file_list_free); else the files go to the
 * catalogue (og_catalog_get takes them). */
GPA_Status og_context_files(const struct og_device_info *info, bool api, struct og_file_list *fl,
                            size_t *nbuiltin);
void og_file_list_free(struct og_file_list *fl);

#endif
