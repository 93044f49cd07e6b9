/* SPDX-License-Identifier: MIT */
/*
 * datafile.h — the counter sets a build does not carry, read at run time
 * from one data file installed beside the library (issue 29).
 *
 * A build chooses its built-in sets (-Dcounter_sets, docs/building.md); the
 * others are packed by counters/pack.py into LIBDIR/opengpa/counter-sets.dat.
 * When a device needs a set the build lacks, the library maps that file
 * read-only (one mapping per process, the pages shared with every process
 * that maps it) and parses the set's text with the reader of every counter
 * file (og_cf_parse).  Before any of it is used the file is checked: its
 * header and index (magic, version, counts, every offset and length inside
 * the file, names of [a-z0-9-] ending in a NUL, a hash over the index), and
 * the set's text (inside the file, ending in its NUL, holding no other,
 * its own hash).  A damaged or truncated file is refused with a message
 * naming it; nothing is read outside it.
 *
 * Mapped, the file must be replaced, not rewritten: a new file renamed over
 * it (install(1), dpkg, mv) leaves running processes the old one, while
 * writing into it (cp onto it) truncates pages a process may still read,
 * which the kernel answers with SIGBUS.  docs/building.md says so.
 *
 * The file is looked for at $OPENGPA_COUNTER_SETS (a file), then in
 * opengpa/counter-sets.dat beside the loaded libopengpa (the build tree
 * lays it out the same), then at the installed path.
 *
 * Layout: counters/pack.py's docstring.
 */
#ifndef OPENGPA_CATALOG_DATAFILE_H
#define OPENGPA_CATALOG_DATAFILE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "opengpa.h"

#define OG_DATAFILE_NAME "counter-sets.dat"
/* The largest data file mapped: every set's text, with room to grow. */
#define OG_DATAFILE_MAX_BYTES (64u << 20)

/* Checks the header and index of the data file in bytes[0 .. size).  False
 * with "what is wrong" in err. */
bool og_datafile_check(const unsigned char *bytes, size_t size, char *err, size_t errlen);

/* In a file og_datafile_check accepted: the text of set `name`, NUL-
 * terminated, *len bytes before the NUL, once its own checks pass.
 * GPA_STATUS_ERROR_NOT_FOUND: no such set; GPA_STATUS_ERROR_FAILED: its
 * text is damaged (err says how). */
GPA_Status og_datafile_find(const unsigned char *bytes, size_t size, const char *name,
                            const char **text, size_t *len, char *err, size_t errlen);

/* The process's data file: looked for and mapped on the first set a build
 * lacks, then kept (parsed files point at nothing in it, og_cf_parse
 * copies; another context may need another set).  The registry owns the
 * one instance (core/registry.h); OG_DATAFILE_INIT initialises it. */
struct og_datafile {
	pthread_mutex_t lock;
	bool tried;
	GPA_Status status; /* of finding, mapping and checking it */
	const unsigned char *bytes;
	size_t size;
	char path[1024];
	char err[1400];
};
#define OG_DATAFILE_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

/* The set's text from df (mapped on first use, kept for the process).
 * NOT_FOUND: no data file, or none holding the set (err names where it
 * looked); FAILED: a damaged file or text (err says which and how).
 * *path: the file's path, for messages (valid as long as df). */
GPA_Status og_datafile_text(struct og_datafile *df, const char *name, const char **text, size_t *len,
                            const char **path, char *err, size_t errlen);

#endif
