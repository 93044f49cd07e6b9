/* SPDX-License-Identifier: MIT */
/* datafile.c — checking and reading the counter-set data file (datafile.h). */
#include "catalog/datafile.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "catalog/counterfile.h"
#include "datafile_path.h" /* OG_DATAFILE_INSTALLED, lib/meson.build */
#include "util/quote.h"
#include "util/readfile.h"

#define HEADER 32u
#define RECORD 32u
#define MAX_SETS 4096u
#define MAX_NAME 64u

static const char magic[8] = { 'O', 'G', 'P', 'A', 'S', 'E', 'T', 'S' };

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint64_t fnv1a64(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

#define FNV_START 0xcbf29ce484222325ull

/* The record of set i, in a file whose index was checked. */
static const unsigned char *record(const unsigned char *bytes, uint32_t i)
{
	return bytes + HEADER + (size_t)i * RECORD;
}

bool og_datafile_check(const unsigned char *bytes, size_t size, char *err, size_t errlen)
{
	if (size < HEADER) {
		snprintf(err, errlen, "%zu bytes, shorter than the %u-byte header (truncated)", size,
		         HEADER);
		return false;
	}
	if (memcmp(bytes, magic, sizeof(magic)) != 0) {
		snprintf(err, errlen, "does not start with \"OGPASETS\" (not a counter-set data file)");
		return false;
	}
	uint32_t version = le32(bytes + 8), nsets = le32(bytes + 12), index = le32(bytes + 16);
	if (version != 1) {
		snprintf(err, errlen, "format version %u; this library reads version 1 (install the "
		         "data file built with this library)", version);
		return false;
	}
	if (nsets > MAX_SETS || (uint64_t)nsets * RECORD > index || le32(bytes + 20) != 0) {
		snprintf(err, errlen, "header damaged (%u sets in an index of %u bytes)", nsets, index);
		return false;
	}
	if ((uint64_t)HEADER + index > size) {
		snprintf(err, errlen, "index of %u bytes runs past the end of the file's %zu "
		         "(truncated)", index, size);
		return false;
	}
	uint64_t hash = fnv1a64(bytes + HEADER, index, fnv1a64(bytes, 24, FNV_START));
	if (hash != le64(bytes + 24)) {
		snprintf(err, errlen, "index damaged (its hash does not match)");
		return false;
	}
	/* The names lie in the index past the records; the texts past the index. */
	uint64_t names_at = HEADER + (uint64_t)nsets * RECORD, texts_at = HEADER + (uint64_t)index;
	for (uint32_t i = 0; i < nsets; i++) {
		const unsigned char *r = record(bytes, i);
		uint64_t name = le32(r), nlen = le32(r + 4), text = le32(r + 8), tlen = le32(r + 12);
		if (name < names_at || nlen == 0 || nlen > MAX_NAME || name + nlen >= texts_at ||
		    bytes[name + nlen] != '\0') {
			snprintf(err, errlen, "set %u: name out of place (offset %llu, length %llu)", i,
			         (unsigned long long)name, (unsigned long long)nlen);
			return false;
		}
		for (uint64_t k = 0; k < nlen; k++) {
			unsigned char c = bytes[name + k];
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
				snprintf(err, errlen, "set %u: name holds byte 0x%02x (only a-z, 0-9 and -)",
				         i, c);
				return false;
			}
		}
		if (text < texts_at || tlen > OG_CF_MAX_BYTES || text + tlen >= size) {
			snprintf(err, errlen, "set %s: text out of place (offset %llu, length %llu, "
			         "file %zu bytes%s)", (const char *)bytes + name,
			         (unsigned long long)text, (unsigned long long)tlen, size,
			         text + tlen >= size ? ": truncated" : "");
			return false;
		}
		if (le64(r + 24) != 0) {
			snprintf(err, errlen, "set %s: record damaged", (const char *)bytes + name);
			return false;
		}
	}
	return true;
}

GPA_Status og_datafile_find(const unsigned char *bytes, size_t size, const char *name,
                            const char **text, size_t *len, char *err, size_t errlen)
{
	uint32_t nsets = le32(bytes + 12);
	for (uint32_t i = 0; i < nsets; i++) {
		const unsigned char *r = record(bytes, i);
		if (strcmp((const char *)bytes + le32(r), name) != 0)
			continue;
		size_t at = le32(r + 8), n = le32(r + 12);
		/* og_datafile_check placed [at, at + n] inside the file. */
		if (bytes[at + n] != '\0' || memchr(bytes + at, '\0', n) != NULL) {
			snprintf(err, errlen, "set %s: text damaged (not one NUL-terminated text)", name);
			return GPA_STATUS_ERROR_FAILED;
		}
		if (fnv1a64(bytes + at, n, FNV_START) != le64(r + 16)) {
			snprintf(err, errlen, "set %s: text damaged (its hash does not match)", name);
			return GPA_STATUS_ERROR_FAILED;
		}
		*text = (const char *)bytes + at;
		*len = n;
		return GPA_STATUS_OK;
	}
	(void)size;
	snprintf(err, errlen, "holds no set '%s'", name);
	return GPA_STATUS_ERROR_NOT_FOUND;
}

/* ---- the process's data file (struct og_datafile, owned by the registry) -- */


static const struct og_file_kind datafile_kind = {
	.what = "counter-set data file",
	.max_bytes = OG_DATAFILE_MAX_BYTES,
	.fix = "reinstall the library's data file, or point OPENGPA_COUNTER_SETS at a good one",
};

/* Whether path names something, for the search. */
static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Where to look, in order: the first that exists is the file. */
static void find_path(char *out, size_t outlen, char *looked, size_t lookedlen)
{
	const char *env = secure_getenv("OPENGPA_COUNTER_SETS");
	if (env && *env) {
		snprintf(out, outlen, "%s", env);
		snprintf(looked, lookedlen, "OPENGPA_COUNTER_SETS=%s", env);
		return;
	}
	looked[0] = '\0';
	Dl_info info;
	/* The library's own file, links resolved: loaded by one of GPA's names
	 * (LIBDIR/opengpa/gpa/libGPUPerfAPIGL.so, a link), its directory is
	 * still the libdir. */
	char *self = dladdr((const void *)&og_datafile_text, &info) && info.dli_fname
	             ? realpath(info.dli_fname, NULL) : NULL;
	if (self) {
		const char *slash = strrchr(self, '/');
		int dir = slash ? (int)(slash - self) : 1;
		snprintf(out, outlen, "%.*s/opengpa/" OG_DATAFILE_NAME, dir, slash ? self : ".");
		snprintf(looked, lookedlen, "%s", out);
		free(self);
		if (exists(out))
			return;
	}
#ifdef OG_DATAFILE_INSTALLED
	size_t n = strlen(looked);
	snprintf(looked + n, lookedlen - n, "%s%s", n ? ", " : "", OG_DATAFILE_INSTALLED);
	snprintf(out, outlen, "%s", OG_DATAFILE_INSTALLED);
#endif
}

static void map_file(struct og_datafile *df)
{
	char looked[1200], why[512], q[256];
	find_path(df->path, sizeof(df->path), looked, sizeof(looked));
	struct stat st;
	int fd = df->path[0] ? og_open_regular(df->path, &datafile_kind, &st, why, sizeof(why))
	                      : -1;
	if (fd < 0) {
		bool absent = !df->path[0] || errno == ENOENT;
		df->status = absent ? GPA_STATUS_ERROR_NOT_FOUND : GPA_STATUS_ERROR_FAILED;
		if (absent)
			snprintf(df->err, sizeof(df->err), "no counter-set data file (looked for %s)",
			         looked);
		else
			snprintf(df->err, sizeof(df->err), "%s", why);
		return;
	}
	size_t size = (size_t)st.st_size;
	void *map = size ? mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	int mapped_errno = errno;
	close(fd);
	og_quote(df->path, q, sizeof(q));
	if (map == MAP_FAILED) {
		df->status = GPA_STATUS_ERROR_FAILED;
		snprintf(df->err, sizeof(df->err), "%s: %s; %s", q,
		         size ? strerror(mapped_errno) : "empty (truncated)", datafile_kind.fix);
		return;
	}
	if (!og_datafile_check(map, size, why, sizeof(why))) {
		munmap(map, size);
		df->status = GPA_STATUS_ERROR_FAILED;
		snprintf(df->err, sizeof(df->err), "%s: %s; %s", q, why, datafile_kind.fix);
		return;
	}
	df->bytes = map;
	df->size = size;
	df->status = GPA_STATUS_OK;
}

GPA_Status og_datafile_text(struct og_datafile *df, const char *name, const char **text, size_t *len,
                            const char **path, char *err, size_t errlen)
{
	pthread_mutex_lock(&df->lock);
	if (!df->tried) {
		df->tried = true;
		map_file(df);
	}
	GPA_Status st = df->status;
	*path = df->path;
	if (st != GPA_STATUS_OK) {
		snprintf(err, errlen, "%s", df->err);
	} else {
		char why[512], q[256];
		st = og_datafile_find(df->bytes, df->size, name, text, len, why, sizeof(why));
		if (st != GPA_STATUS_OK)
			snprintf(err, errlen, "%s: %s%s", og_quote(df->path, q, sizeof(q)), why,
			         st == GPA_STATUS_ERROR_FAILED ? "; " : "");
		if (st == GPA_STATUS_ERROR_FAILED) {
			size_t n = strlen(err);
			snprintf(err + n, errlen - n, "%s", datafile_kind.fix);
		}
	}
	pthread_mutex_unlock(&df->lock);
	return st;
}
