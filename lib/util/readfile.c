/* SPDX-License-Identifier: MIT */
/* readfile.c — opening a file by a name the program did not create (readfile.h). */
#include "readfile.h"
#include "quote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *og_file_type_name(mode_t mode)
{
	return S_ISREG(mode) ? "a regular file" : S_ISDIR(mode) ? "a directory"
	     : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
	     : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket"
	     : S_ISLNK(mode) ? "a symbolic link" : "not a regular file";
}

/* "PATH: <cause>; <fix>" into err, the path quoted (quote.h). */
__attribute__((format(printf, 5, 6))) static void refuse(char *err, size_t errlen,
                                                         const char *path,
                                                         const struct og_file_kind *kind,
                                                         const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	char q[256];
	int n = snprintf(err, errlen, "%s: ", og_quote(path, q, sizeof q));
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	if (m >= 0 && (size_t)(n + m) < errlen && kind->fix)
		snprintf(err + n + m, errlen - (size_t)(n + m), "; %s", kind->fix);
}

/* "a" or "an" before `word`. */
static const char *article(const char *word)
{
	return strchr("AEIOUaeiou", word[0]) && word[0] ? "an" : "a";
}

/* A regular file of at most the cap; else refused (errno set). */
static bool acceptable(const struct stat *st, const char *path, const struct og_file_kind *kind,
                       char *err, size_t errlen)
{
	if (!S_ISREG(st->st_mode)) {
		refuse(err, errlen, path, kind, "is %s, not %s %s (only regular files are read: "
		       "opening anything else could block or act on a device)",
		       og_file_type_name(st->st_mode), article(kind->what), kind->what);
		errno = EINVAL;
		return false;
	}
	if (st->st_size < 0 || (uint64_t)st->st_size > kind->max_bytes) {
		refuse(err, errlen, path, kind, "is %lld bytes; %s %s may have at most %llu",
		       (long long)st->st_size, article(kind->what), kind->what, (unsigned long long)kind->max_bytes);
		errno = EFBIG;
		return false;
	}
	return true;
}

int og_open_regular(const char *path, const struct og_file_kind *kind, struct stat *st,
                    char *err, size_t errlen)
{
	struct stat mine;
	if (!st)
		st = &mine;
	if (err && errlen)
		err[0] = '\0';
	if (!path || !*path) {
		refuse(err, errlen, "", kind, "no file named");
		errno = ENOENT;
		return -1;
	}
	/* Looked at before it is opened: a device may act on open. */
	if (stat(path, st) != 0) {
		int e = errno;
		refuse(err, errlen, path, kind, "%s", strerror(e));
		errno = e;
		return -1;
	}
	if (!acceptable(st, path, kind, err, errlen))
		return -1;
	/* Non-blocking: what the name points at may have changed since. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		refuse(err, errlen, path, kind, "cannot open: %s", strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, st) != 0) {
		int e = errno;
		refuse(err, errlen, path, kind, "cannot read: %s", strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if (!acceptable(st, path, kind, err, errlen)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		int e = errno;
		refuse(err, errlen, path, kind, "cannot read: %s", strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

char *og_read_regular(const char *path, const struct og_file_kind *kind, size_t *len, char *err,
                      size_t errlen)
{
	struct stat st;
	*len = 0;
	int fd = og_open_regular(path, kind, &st, err, errlen);
	if (fd < 0)
		return NULL;
	/* Never more than the cap, whatever the size said: one byte more shows
	 * a file that grew past it. */
	uint64_t limit = kind->max_bytes + 1;
	size_t cap = (size_t)st.st_size + 1, have = 0;
	if (cap > limit)
		cap = (size_t)limit;
	char *buf = malloc(cap + 1);
	int saved = 0;
	bool ok = buf != NULL;
	while (ok) {
		if (have == cap) {
			if (cap == limit)
				break;
			size_t grown = 2 * (uint64_t)cap > limit ? (size_t)limit : 2 * cap;
			char *more = realloc(buf, grown + 1);
			if (!more) {
				ok = false;
				break;
			}
			buf = more;
			cap = grown;
		}
		ssize_t n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved = errno;
			ok = false;
		} else if (n == 0) {
			break;
		} else {
			have += (size_t)n;
		}
	}
	close(fd);
	if (!ok) {
		free(buf);
		refuse(err, errlen, path, kind, "cannot read: %s", saved ? strerror(saved) : "out of memory");
		return NULL;
	}
	if (have > kind->max_bytes) {
		free(buf);
		refuse(err, errlen, path, kind, "grew past %llu bytes while read; %s %s has at most that",
		       (unsigned long long)kind->max_bytes, article(kind->what), kind->what);
		errno = EFBIG;
		return NULL;
	}
	buf[have] = '\0';
	*len = have;
	return buf;
}
