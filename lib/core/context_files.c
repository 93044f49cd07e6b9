/* SPDX-License-Identifier: MIT */
/*
 * context_files.c — which counter files a context's catalogue is built
 * from, and reading them: the backend's built-in sets as the build made
 * them (or their text, where the build links it and asks for it), GPA's
 * Timing sets on an application's API, then the user's files and
 * directories, within the total size limit.  Building the catalogue from
 * them is context.c's (and lib/catalog/'s).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/builtin.h"
#include "catalog/datafile.h"
#include "catalog/embedded.h"
#include "core/context_files.h"
#include "core/registry.h"
#include "util/quote.h"

static struct og_cf_file *file_slot(struct og_file_list *fl)
{
	if (fl->count == fl->cap) {
		size_t cap = fl->cap ? fl->cap * 2 : 8;
		struct og_cf_file *f = realloc(fl->files, cap * sizeof(*f));
		if (!f)
			return NULL;
		fl->files = f;
		fl->cap = cap;
	}
	return &fl->files[fl->count];
}

void og_file_list_free(struct og_file_list *fl)
{
	for (size_t i = 0; i < fl->count; i++)
		og_cf_free(&fl->files[i]);
	free(fl->files);
}

/* The text is linked into tests and tools only (embedded.h): absent from
 * libopengpa, where these are NULL. */
#pragma weak og_embedded_sets
#pragma weak og_embedded_set_count

static bool embedded_exists(const char *name)
{
	if (!og_catalog_text_only && og_builtin_find(name))
		return true;
	for (size_t i = 0; &og_embedded_set_count && i < og_embedded_set_count; i++)
		if (strcmp(og_embedded_sets[i].name, name) == 0)
			return true;
	const char *text, *path;
	size_t len;
	char err[64];
	/* A damaged file says so when add_embedded reads a set the build lacks. */
	return og_datafile_text(&og_registry()->datafile, name, &text, &len, &path, err,
	                        sizeof(err)) == GPA_STATUS_OK;
}

/* A set the build does not carry (-Dcounter_sets), from the data file
 * installed beside the library (catalog/datafile.h), parsed like any
 * counter file. */
static GPA_Status add_from_datafile(struct og_file_list *fl, const char *name)
{
	const char *text, *path;
	size_t len;
	char err[1400];
	GPA_Status st =
	        og_datafile_text(&og_registry()->datafile, name, &text, &len, &path, err, sizeof(err));
	if (st == GPA_STATUS_ERROR_NOT_FOUND)
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "the backend asked for counter set '%s', which this build does not "
		                "carry (-Dcounter_sets) and its data file does not hold: %s; install "
		                "the data file of this build, or build with the set", name, err);
	if (st != GPA_STATUS_OK)
		return og_error(st, "counter set %s: %s", name, err);
	struct og_cf_file *f = file_slot(fl);
	char origin[128], why[512], q[256];
	if (!f)
		return og_error(GPA_STATUS_ERROR_FAILED, "out of memory loading counter set %s", name);
	/* Named as the built-in set would be: its set name and messages match. */
	snprintf(origin, sizeof(origin), "counters/%s.counters", name);
	if (!og_cf_parse(origin, text, f, why, sizeof(why)))
		return og_error(GPA_STATUS_ERROR_FAILED, "counter set %s in the data file %s: %s "
		                "(reinstall the data file built with this library)", name,
		                og_quote(path, q, sizeof(q)), why);
	fl->count++;
	return GPA_STATUS_OK;
}

static GPA_Status add_embedded(struct og_file_list *fl, const char *name)
{
	/* As the build read it (catalog/builtin.h): nothing to parse. */
	const struct og_builtin_set *set = og_catalog_text_only ? NULL : og_builtin_find(name);
	if (set) {
		struct og_cf_file *f = file_slot(fl);
		if (!f)
			return og_error(GPA_STATUS_ERROR_FAILED, "out of memory loading counter set %s", name);
		*f = set->file;
		fl->count++;
		return GPA_STATUS_OK;
	}
	for (size_t i = 0; &og_embedded_set_count && i < og_embedded_set_count; i++) {
		if (strcmp(og_embedded_sets[i].name, name) != 0)
			continue;
		struct og_cf_file *f = file_slot(fl);
		char err[512];
		if (!f)
			return og_error(GPA_STATUS_ERROR_FAILED, "out of memory loading counter set %s", name);
		if (!og_cf_parse(og_embedded_sets[i].file, og_embedded_sets[i].text, f, err, sizeof(err)))
			return og_error(GPA_STATUS_ERROR_FAILED, "built-in counter set: %s", err);
		fl->count++;
		return GPA_STATUS_OK;
	}
	return add_from_datafile(fl, name);
}

static GPA_Status add_user_file(struct og_file_list *fl, const char *path)
{
	struct og_cf_file *f = file_slot(fl);
	char err[512], q[256];
	if (!f)
		return og_error(GPA_STATUS_ERROR_FAILED, "out of memory loading %s",
		                og_quote(path, q, sizeof(q)));
	/* Each file is capped (og_cf_load); so are all of them together. */
	struct stat st;
	size_t size = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
	if (size > OG_CF_MAX_TOTAL_BYTES - fl->user_bytes)
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "counter file %s: with it the extra counter files would hold more than "
		                "%u bytes in all (docs/counter-files.md, \"Limits\"); load fewer",
		                og_quote(path, q, sizeof(q)), OG_CF_MAX_TOTAL_BYTES);
	if (!og_cf_load(path, f, err, sizeof(err)))
		return og_error(GPA_STATUS_ERROR_FAILED, "counter file %s (fix the file or remove it "
		                                         "from OPENGPA_COUNTER_PATH)", err);
	fl->user_bytes += size;
	fl->count++;
	return GPA_STATUS_OK;
}

/* A path is a counter file, or a directory whose *.counters files are read
 * in name order. */
static GPA_Status add_user_path(struct og_file_list *fl, const char *path)
{
	struct stat st;
	char q[256];
	if (stat(path, &st) != 0)
		return og_error(GPA_STATUS_ERROR_FAILED, "counter path %s: %s",
		                og_quote(path, q, sizeof(q)), strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return add_user_file(fl, path);
	struct dirent **names = NULL;
	int n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return og_error(GPA_STATUS_ERROR_FAILED, "counter directory %s: %s",
		                og_quote(path, q, sizeof(q)), strerror(errno));
	GPA_Status status = GPA_STATUS_OK;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		if (status == GPA_STATUS_OK && len > 9 && strcmp(name + len - 9, ".counters") == 0) {
			char *full = NULL;
			if (asprintf(&full, "%s/%s", path, name) < 0)
				status = og_error(GPA_STATUS_ERROR_FAILED, "out of memory");
			else
				status = add_user_file(fl, full);
			free(full);
		}
		free(names[i]);
	}
	free(names);
	return status;
}

/* The backend's sets; for a context on an application's API, GPA's Timing
 * group after them (gpa-timing, and gpa-timing-SET for a backend set SET
 * that has one: GPUBusy where the backend counts active cycles); then the
 * user's files. */
GPA_Status og_context_files(const struct og_device_info *info, bool api, struct og_file_list *fl,
                            size_t *nbuiltin)
{
	GPA_Status st = GPA_STATUS_OK;
	for (int i = 0; st == GPA_STATUS_OK && i < OG_MAX_COUNTER_SETS && info->counter_sets[i]; i++)
		st = add_embedded(fl, info->counter_sets[i]);
	if (api && st == GPA_STATUS_OK)
		st = add_embedded(fl, "gpa-timing");
	for (int i = 0; api && st == GPA_STATUS_OK && i < OG_MAX_COUNTER_SETS &&
	                info->counter_sets[i]; i++) {
		char name[96];
		snprintf(name, sizeof(name), "gpa-timing-%s", info->counter_sets[i]);
		if (embedded_exists(name))
			st = add_embedded(fl, name);
	}
	*nbuiltin = fl->count;
	const struct og_settings *set = og_settings();
	for (size_t i = 0; st == GPA_STATUS_OK && i < set->ncounter_files; i++)
		st = add_user_path(fl, set->counter_files[i]);
	const char *env = secure_getenv("OPENGPA_COUNTER_PATH");
	if (st == GPA_STATUS_OK && env && *env) {
		char *copy = strdup(env), *save = NULL;
		if (!copy)
			return og_error(GPA_STATUS_ERROR_FAILED, "out of memory");
		for (char *p = strtok_r(copy, ":", &save); st == GPA_STATUS_OK && p;
		     p = strtok_r(NULL, ":", &save))
			st = add_user_path(fl, p);
		free(copy);
	}
	return st;
}
