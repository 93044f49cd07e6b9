/* SPDX-License-Identifier: MIT */
/* output.c — outputs that are whole or untouched (output.h). */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"

static int say_cannot(const char *what, const char *path, int e)
{
	char name[256];
	fprintf(stderr, "opengpa: cannot %s %s: %s\n", what, cli_escape(path, name, sizeof name),
	        strerror(e));
	return 1;
}

/* A fresh name for a temporary file beside `base`: ".base.opengpa-XXXXXX",
 * hidden from ls and from globs like *.csv. */
static void temporary_name(char *buf, size_t len, const char *base, unsigned attempt)
{
	uint64_t r = 0;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		r = (uint64_t)t.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 20 ^ attempt;
	}
	snprintf(buf, len, ".%.24s.opengpa-%06llx", base, (unsigned long long)(r & 0xffffff));
}

/* Splits `where` into a directory and a name (both allocated). */
static int split(const char *where, char **dir, char **base)
{
	const char *slash = strrchr(where, '/');
	*dir = slash ? strndup(where, slash == where ? 1 : (size_t)(slash - where)) : strdup(".");
	*base = strdup(slash ? slash + 1 : where);
	return *dir && *base ? 0 : -1;
}

/* A named temporary file in out->dir; its fd, or -1 with errno. */
static int open_named(struct cli_output *out)
{
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		temporary_name(out->tmp, sizeof out->tmp, out->base, attempt);
		int fd = openat(out->dirfd, out->tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
		if (fd >= 0) {
			out->named = true;
			return fd;
		}
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* The temporary file: unnamed where the filesystem can, else named.  Mode
 * 0666 less the umask, as open(2) would create the file. */
static int open_temporary(struct cli_output *out)
{
#ifdef O_TMPFILE
	int fd = openat(out->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd >= 0) {
		/* It is given a name through /proc at the end (linkat): without
		 * /proc, a named one from the start. */
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		if (access(proc, F_OK) == 0)
			return fd;
		close(fd);
	} else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		return -1;
	}
#endif
	return open_named(out);
}

static int copy_into(int to, const char *path)
{
	int from = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (from < 0)
		return -1;
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while (rc == 0 && (n = read(from, buf, sizeof buf)) != 0) {
		if (n < 0) {
			rc = errno == EINTR ? 0 : -1;
			continue;
		}
		for (ssize_t done = 0; done < n && rc == 0;) {
			ssize_t w = write(to, buf + done, (size_t)(n - done));
			if (w < 0 && errno != EINTR)
				rc = -1;
			else if (w > 0)
				done += w;
		}
	}
	int e = errno;
	close(from);
	errno = e;
	return rc;
}

static void drop(struct cli_output *out)
{
	if (out->dirfd >= 0)
		close(out->dirfd);
	free(out->dir);
	free(out->base);
	out->dirfd = -1;
	out->dir = out->base = NULL;
	out->f = NULL;
}

/* Written in place, as before: a FIFO, a device, or a file in a directory
 * opengpa cannot create files in. */
static int open_in_place(struct cli_output *out, const char *path, bool append)
{
	out->in_place = true;
	out->f = fopen(path, append ? "ae" : "we");
	if (!out->f) {
		int e = errno;
		drop(out);
		return say_cannot("open", path, e);
	}
	return 0;
}

int cli_output_open(struct cli_output *out, const char *path, bool append)
{
	memset(out, 0, sizeof *out);
	out->dirfd = -1;
	out->path = path;
	if (strcmp(path, "-") == 0) {
		out->f = stdout;
		out->in_place = true;
		return 0;
	}
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode))
		return open_in_place(out, path, append);
	/* The permission a plain open would check: the file's, not the
	 * directory's, which rename needs. */
	if (exists && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
		return say_cannot("open", path, errno);
	/* A symbolic link: the file it names is replaced, not the link. */
	char *real = exists ? realpath(path, NULL) : NULL;
	int rc = split(real ? real : path, &out->dir, &out->base);
	free(real);
	if (rc != 0) {
		drop(out);
		return say_cannot("open", path, ENOMEM);
	}
	if (!out->base[0]) {
		drop(out);
		return say_cannot("open", path, EISDIR);
	}
	out->dirfd = open(out->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (out->dirfd < 0) {
		int e = errno;
		drop(out);
		return say_cannot("open", path, e);
	}
	int fd = open_temporary(out);
	if (fd < 0 && exists && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		/* The file may be written but its directory may not: in place, as
		 * opengpa always did, and the user hears what that costs. */
		char name[256];
		fprintf(stderr, "opengpa: %s is written in place (its directory does not let opengpa "
		        "create a temporary file beside it): a run that fails or is killed leaves it "
		        "cut short\n", cli_escape(path, name, sizeof name));
		drop(out);
		return open_in_place(out, path, append);
	}
	if (fd < 0) {
		int e = errno;
		drop(out);
		return say_cannot("open", path, e);
	}
	if (exists) {
		/* Replacing a file keeps its permissions, and its owner where
		 * opengpa may give it (root, or the owner's own group). */
		if (fchmod(fd, st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID)) != 0) {
			/* a filesystem without modes: its default stays */
		}
		if (fchown(fd, st.st_uid, st.st_gid) != 0) {
			/* not allowed: the new file is the user's own */
		}
	}
	if (append && exists && copy_into(fd, path) != 0) {
		int e = errno;
		close(fd);
		if (out->named)
			unlinkat(out->dirfd, out->tmp, 0);
		drop(out);
		return say_cannot("read", path, e);
	}
	out->f = fdopen(fd, "w");
	if (!out->f) {
		int e = errno;
		close(fd);
		if (out->named)
			unlinkat(out->dirfd, out->tmp, 0);
		drop(out);
		return say_cannot("open", path, e);
	}
	return 0;
}

/* Gives the unnamed temporary file a name beside its target. */
static int link_unnamed(struct cli_output *out)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(out->f));
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		temporary_name(out->tmp, sizeof out->tmp, out->base, attempt);
		if (linkat(AT_FDCWD, proc, out->dirfd, out->tmp, AT_SYMLINK_FOLLOW) == 0) {
			out->named = true;
			return 0;
		}
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int cli_output_close(struct cli_output *out, bool commit)
{
	if (!out->f)
		return 0; /* never opened, or closed: nothing held */
	int failed = 0, e = 0;
	if (out->in_place) {
		failed = ferror(out->f);
		failed |= (out->f == stdout ? fflush(out->f) : fclose(out->f)) != 0;
		e = errno;
	} else {
		failed = fflush(out->f) != 0 || ferror(out->f);
		e = errno;
		/* Synced before the rename, so a crash of the machine leaves the
		 * old file or the new one, not an empty one. */
		if (commit && !failed && fsync(fileno(out->f)) != 0 && errno != EINVAL &&
		    errno != EROFS) {
			failed = 1;
			e = errno;
		}
		if (commit && !failed && !out->named && link_unnamed(out) != 0) {
			failed = 1;
			e = errno;
		}
		if (commit && !failed && renameat(out->dirfd, out->tmp, out->dirfd, out->base) != 0) {
			failed = 1;
			e = errno;
		}
		if ((!commit || failed) && out->named)
			unlinkat(out->dirfd, out->tmp, 0);
		fclose(out->f);
	}
	if (failed && (commit || out->in_place))
		say_cannot("write", out->path, e ? e : EIO);
	else
		failed = 0;
	drop(out);
	return failed ? 1 : 0;
}

/* Who a path is, for comparing two outputs. */
struct identity {
	bool skip, exists;
	dev_t dev;
	ino_t ino;
	char *norm; /* when it does not exist: real directory + "/" + name */
};

/* A path that does not exist, written as its real directory and its name,
 * after the symbolic links that lead to it (a dangling link names the file
 * an open would create). */
static char *normalise(const char *path)
{
	char *p = strdup(path);
	for (int depth = 0; p && depth < 40; depth++) {
		struct stat st;
		char target[PATH_MAX];
		ssize_t n;
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode) ||
		    (n = readlink(p, target, sizeof target - 1)) <= 0)
			break;
		target[n] = '\0';
		char *next = NULL, *dir = NULL, *base = NULL;
		if (target[0] == '/' || split(p, &dir, &base) != 0)
			next = strdup(target);
		else if (asprintf(&next, "%s/%s", dir, target) < 0)
			next = NULL;
		free(dir);
		free(base);
		free(p);
		p = next;
	}
	if (!p)
		return NULL;
	char *dir = NULL, *base = NULL, *norm = NULL;
	if (split(p, &dir, &base) == 0) {
		char *real = realpath(dir, NULL);
		if (real && asprintf(&norm, "%s/%s", strcmp(real, "/") ? real : "", base) < 0)
			norm = NULL;
		free(real);
	}
	free(dir);
	free(base);
	if (norm) {
		free(p);
		return norm;
	}
	return p;
}

static void identify(const char *path, struct identity *id)
{
	memset(id, 0, sizeof *id);
	struct stat st;
	if (strcmp(path, "-") == 0) {
		id->skip = true;
	} else if (stat(path, &st) == 0) {
		id->skip = S_ISCHR(st.st_mode);
		id->exists = true;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
	} else {
		id->norm = normalise(path);
		id->skip = !id->norm; /* out of memory: the open will say so */
	}
}

static bool same(const struct identity *a, const struct identity *b)
{
	if (a->skip || b->skip || a->exists != b->exists)
		return false;
	if (a->exists)
		return a->dev == b->dev && a->ino == b->ino;
	return strcmp(a->norm, b->norm) == 0;
}

int cli_outputs_distinct(const char *command, const struct cli_output_name *names, size_t n)
{
	struct identity ids[8];
	if (n > sizeof ids / sizeof ids[0])
		n = sizeof ids / sizeof ids[0];
	for (size_t i = 0; i < n; i++)
		identify(names[i].path ? names[i].path : "-", &ids[i]);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		for (size_t j = i + 1; j < n && !rc && names[i].path; j++) {
			if (!names[j].path || !same(&ids[i], &ids[j]))
				continue;
			char a[128], b[128], err[512];
			snprintf(err, sizeof err, "%s %s and %s %s are one file, and two outputs in one "
			         "file corrupt each other; give each output a file of its own",
			         names[i].option, cli_escape(names[i].path, a, sizeof a),
			         names[j].option, cli_escape(names[j].path, b, sizeof b));
			rc = cli_usage_error(command, err);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i].norm);
	return rc;
}
