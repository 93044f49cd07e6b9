/* SPDX-License-Identifier: MIT */
/*
 * output.h — the files `opengpa stat` writes, whole or untouched.
 *
 * A regular file is written to a temporary file in its own directory and
 * renamed over its name only when the run succeeded, so a failed run, or
 * opengpa killed by any signal, leaves what was there before byte for
 * byte, and a reader never sees half a report.  Where the kernel can
 * (O_TMPFILE: ext4, xfs, btrfs, tmpfs), the temporary file has no name
 * until it is committed, so even SIGKILL leaves nothing behind; elsewhere
 * it is `.NAME.opengpa-XXXXXX`, removed on every path opengpa controls.
 *
 * Standard output (`-`), pipes, FIFOs, terminals and devices cannot be
 * renamed: they are written in place, and the writers hand them whole
 * records (one interval, one report) with a flush after each, so a reader
 * following them live never sees half of one.
 */
#ifndef OPENGPA_TOOLS_OUTPUT_H
#define OPENGPA_TOOLS_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct cli_output {
	FILE *f;
	const char *path;  /* as the user gave it */
	char *dir, *base;  /* where the file goes (a symlink followed) */
	int dirfd;         /* dir, O_PATH; -1 when written in place */
	bool in_place;     /* stdout, a FIFO, a device: no rename */
	bool named;        /* the temporary file has a name: tmp */
	char tmp[64];      /* its name in dir */
};

/* Opens `path` ("-": standard output) for writing, as a temporary file
 * beside it where it is (or will be) a regular file; with `append`, the
 * temporary file starts as a copy of the existing one.  The new file gets
 * the mode a plain open would give it (0666 less the umask), or the
 * replaced file's permission bits.  An existing file opengpa may not write
 * is refused as a plain open would refuse it.  0, or 1 after printing why
 * (naming the path). */
int cli_output_open(struct cli_output *out, const char *path, bool append);

/* Ends the output: with `commit`, flushed, synced and renamed over its
 * name (1 after printing why when any of that failed: the old file is
 * then still there); without, the temporary file is dropped and the old
 * file stays as it was.  Safe on a zeroed or already closed output. */
int cli_output_close(struct cli_output *out, bool commit);

/* One output option and its path, for cli_outputs_distinct(). */
struct cli_output_name {
	const char *option; /* "-o", "--trace" */
	const char *path;   /* NULL: not given */
};

/* Refuses two outputs that name one file: the same device and inode where
 * the file exists, the same directory (its real path) and name where it
 * does not.  `-` (standard output) and character devices (/dev/null, a
 * terminal) are not compared: nothing there can be corrupted by two
 * writers of whole records.  Returns 0, or 2 after printing a usage error
 * that names both options and the path. */
int cli_outputs_distinct(const char *command, const struct cli_output_name *names, size_t n);

#endif
