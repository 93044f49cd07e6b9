/* SPDX-License-Identifier: MIT */
/*
 * readfile.h — opening a file by a name the program did not create.
 *
 * A name from a command line, the environment, a configuration or a
 * profiled process's mappings (which that process controls) may name a
 * FIFO (open(2) blocks until a writer comes, read(2) until it writes), a
 * device (some act on open), a directory or a file of gigabytes.  Every
 * such file is opened here, and only here:
 *
 *   - stat(2) first, and refused unless a regular file, so that nothing
 *     else is even opened;
 *   - open(2) with O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, so that a
 *     FIFO swapped in since cannot block the open;
 *   - fstat(2) of what was opened, refused again unless a regular file of
 *     at most the kind's cap (bytes), then O_NONBLOCK cleared (it means
 *     nothing for a regular file, and the caller's reads should not see it);
 *   - reads never go past the cap, whatever the size said (a file may grow).
 *
 * A refusal fills err with "PATH: <cause>; <fix>", the path quoted (quote.h):
 * "x.json: is a FIFO, not a profile (only regular files are read: ...);
 * give the JSON file ...".  The caps are documented in docs/cli.md, "Files read by name".
 *
 * Pure C library and system calls, no GPA types: the build-time generators,
 * the models library and the command link it as well as libopengpa.
 */
#ifndef OPENGPA_UTIL_READFILE_H
#define OPENGPA_UTIL_READFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* What kind of file a caller reads: for the messages and the cap. */
struct og_file_kind {
	const char *what;   /* "profile", "device table", "counter file", "ELF file" */
	uint64_t max_bytes; /* the largest such file read */
	const char *fix;    /* how to name a good one: "give the JSON file `opengpa stat
	                     * --json -o FILE` wrote" */
};

/* The caps of the kinds read outside lib/core (counter files:
 * OG_CF_MAX_BYTES, profiles: OG_JSON_MAX_BYTES) (docs/cli.md, "Files read by name"). */
#define OG_READ_MAX_DEVICE_TABLE (1ull << 20)
#define OG_READ_MAX_ELF (4ull << 30)

/* "a FIFO", "a directory", "a character device"...: what st_mode is. */
const char *og_file_type_name(mode_t mode);

/* Opens path as described above.  Returns the descriptor (close it), with
 * *st (may be NULL) its fstat; or -1 with the reason in err and errno set
 * (ENOENT..., or EINVAL for a file of the wrong type, EFBIG for one over the
 * cap). */
int og_open_regular(const char *path, const struct og_file_kind *kind, struct stat *st,
                    char *err, size_t errlen);

/* Opens path with og_open_regular and reads all of it: a malloc'd buffer of
 * *len bytes plus a NUL (free it).  NULL with the reason in err (a read
 * error, no memory, more than the cap however the size changed). */
char *og_read_regular(const char *path, const struct og_file_kind *kind, size_t *len,
                      char *err, size_t errlen);

#endif
