/* SPDX-License-Identifier: MIT */
/*
 * listen.c — `opengpa stat --listen` and `--openmetrics` (listen.h): each
 * interval the reader thread copies its values under a lock (and renders
 * and writes the file, with --openmetrics); the listener thread renders
 * the document only when a client asks for it and the values changed since
 * its last rendering, so a run scraped every second renders once a second
 * whatever its interval.  The listener serves at most OM_MAX_CLIENTS
 * clients at a time, each with a bounded request and a deadline.  What it
 * renders from (names, groups, units, device, backend) is its own copy:
 * the report's rows and the GPA context may be gone before it stops.  HTTP/1.1 without keep-alive: one request per connection, the
 * answer, then close (what Prometheus's scraper and curl expect of a small
 * exporter).
 */
#include "listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "openmetrics.h"
#include "output.h"
#include "stat.h"

struct client {
	int fd;              /* -1: a free slot */
	char req[OM_MAX_REQUEST + 1];
	size_t len;
	uint64_t deadline_ms;
	char *resp;          /* the answer, once the request is whole */
	size_t resp_len, sent;
};

struct om_export {
	int lfd;             /* the listening socket, -1 without --listen */
	int wake[2];         /* the stop signal to the listener */
	pthread_t thread;
	bool running;
	struct client *clients; /* OM_MAX_CLIENTS, the listener's alone */

	/* Under lock: the latest values, and the documents last rendered. */
	pthread_mutex_t lock;
	bool prepared;       /* run, fam, help and the values exist */
	double *latest, *totals;
	uint32_t *counted;
	uint64_t intervals, version, rendered; /* rendered: the version in doc_* */
	char *doc_om, *doc_text;
	size_t len_om, len_text;

	const char *file;    /* --openmetrics, or NULL */
	bool file_failed;
	struct tl_run run;   /* a copy: every string below is the export's own */
	struct tl_series *series;
	struct om_family *fam;
	char **help;
	char *device, *backend;
	char instance[256];
};

/* Renders both documents from the values when they changed (under lock).
 * false: nothing to serve (no run yet, or out of memory). */
static bool render_latest(struct om_export *e)
{
	if (!e->prepared)
		return false;
	if (e->doc_om && e->rendered == e->version)
		return true;
	struct om_values v = { .instance = e->instance, .help = (const char *const *)e->help,
		               .latest = e->latest, .totals = e->totals, .counted = e->counted,
		               .intervals = e->intervals };
	struct om_text om = { 0 }, text = { 0 };
	if (om_render(&om, &e->run, e->fam, &v, OM_OPENMETRICS) ||
	    om_render(&text, &e->run, e->fam, &v, OM_PROMETHEUS)) {
		om_text_free(&om);
		om_text_free(&text);
		return e->doc_om != NULL; /* out of memory: the previous document */
	}
	free(e->doc_om);
	free(e->doc_text);
	e->doc_om = om.data;
	e->len_om = om.len;
	e->doc_text = text.data;
	e->len_text = text.len;
	e->rendered = e->version;
	return true;
}

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void drop(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->resp);
	c->fd = -1;
	c->resp = NULL;
	c->len = c->resp_len = c->sent = 0;
}

/* The answer to a whole request (or to one too long: status 431). */
static void answer(struct om_export *e, struct client *c, bool too_long)
{
	const char *status = "400 Bad Request", *type = "text/plain; charset=utf-8";
	const char *body = "opengpa: not an HTTP request\n";
	char *doc = NULL;
	size_t body_len = 0;
	bool head = false, allow = false;
	c->req[c->len] = '\0';
	char method[8] = "", target[64] = "", version[16] = "";
	if (too_long) {
		status = "431 Request Header Fields Too Large";
		body = "opengpa: a request is at most 8192 bytes\n";
	} else if (sscanf(c->req, "%7[A-Z] %63[^ \r\n] %15[^ \r\n]", method, target, version) == 3 &&
	           strncmp(version, "HTTP/1.", 7) == 0) {
		head = strcmp(method, "HEAD") == 0;
		size_t path_len = strcspn(target, "?");
		if (strcmp(method, "GET") != 0 && !head) {
			status = "405 Method Not Allowed";
			body = "opengpa: only GET and HEAD\n";
			allow = true;
		} else if (path_len != 8 || strncmp(target, "/metrics", 8) != 0) {
			status = "404 Not Found";
			body = "opengpa: the metrics are at /metrics\n";
		} else {
			/* OpenMetrics to a client that names it (Prometheus does). */
			bool om = false;
			for (const char *l = strchr(c->req, '\n'); l && l[1]; l = strchr(l + 1, '\n'))
				if (strncasecmp(l + 1, "accept:", 7) == 0) {
					const char *end = strchr(l + 1, '\n');
					const char *hit = strstr(l + 1, "application/openmetrics-text");
					om = om || (hit && (!end || hit < end));
				}
			pthread_mutex_lock(&e->lock);
			bool any = render_latest(e);
			const char *pub = om ? e->doc_om : e->doc_text;
			size_t len = om ? e->len_om : e->len_text;
			if (any && pub && (doc = malloc(len + 1)) != NULL) {
				memcpy(doc, pub, len + 1);
				body_len = len;
			}
			pthread_mutex_unlock(&e->lock);
			if (doc) {
				status = "200 OK";
				type = om ? OM_CONTENT_TYPE : OM_TEXT_CONTENT_TYPE;
				body = doc;
			} else {
				status = "503 Service Unavailable";
				body = "opengpa: no interval counted yet\n";
			}
		}
	}
	if (!doc)
		body_len = strlen(body);
	char header[256];
	int n = snprintf(header, sizeof header,
	                 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
	                 "Connection: close\r\n\r\n",
	                 status, type, body_len, allow ? "Allow: GET, HEAD\r\n" : "");
	size_t total = (size_t)n + (head ? 0 : body_len);
	c->resp = malloc(total);
	if (!c->resp || n < 0 || (size_t)n >= sizeof header) {
		free(doc);
		drop(c);
		return;
	}
	memcpy(c->resp, header, (size_t)n);
	if (!head)
		memcpy(c->resp + n, body, body_len);
	c->resp_len = total;
	c->sent = 0;
	free(doc);
}

/* Reads what the client sent; answers once the header has ended. */
static void receive(struct om_export *e, struct client *c)
{
	for (;;) {
		if (c->len == OM_MAX_REQUEST) {
			answer(e, c, true);
			return;
		}
		ssize_t n = recv(c->fd, c->req + c->len, OM_MAX_REQUEST - c->len, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			drop(c); /* gone before asking */
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		c->len += (size_t)n;
		c->req[c->len] = '\0';
		if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
			answer(e, c, false);
			return;
		}
		if (memchr(c->req, '\0', c->len)) { /* a NUL: not HTTP */
			answer(e, c, false);
			return;
		}
	}
}

static void transmit(struct client *c)
{
	while (c->sent < c->resp_len) {
		ssize_t n = send(c->fd, c->resp + c->sent, c->resp_len - c->sent,
		                 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			drop(c);
			return;
		}
		c->sent += (size_t)n;
	}
	shutdown(c->fd, SHUT_WR);
	drop(c);
}

static void accept_clients(struct om_export *e)
{
	for (size_t i = 0; i < OM_MAX_CLIENTS; i++) {
		struct client *c = &e->clients[i];
		if (c->fd >= 0)
			continue;
		int fd = accept4(e->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return; /* none waiting (EAGAIN), or one that left already */
		c->fd = fd;
		c->len = 0;
		c->deadline_ms = now_ms() + OM_CLIENT_MS;
	}
}

static void *listener(void *arg)
{
	struct om_export *e = arg;
	struct pollfd p[2 + OM_MAX_CLIENTS];
	size_t slot[2 + OM_MAX_CLIENTS];
	for (;;) {
		size_t n = 0, busy = 0;
		uint64_t now = now_ms(), next = UINT64_MAX;
		p[n++] = (struct pollfd){ .fd = e->wake[0], .events = POLLIN };
		for (size_t i = 0; i < OM_MAX_CLIENTS; i++) {
			struct client *c = &e->clients[i];
			if (c->fd < 0)
				continue;
			if (now >= c->deadline_ms) {
				drop(c); /* silent, or too slow to take the answer */
				continue;
			}
			busy++;
			next = c->deadline_ms < next ? c->deadline_ms : next;
			slot[n] = i;
			p[n++] = (struct pollfd){ .fd = c->fd, .events = c->resp ? POLLOUT : POLLIN };
		}
		size_t listening = n;
		if (busy < OM_MAX_CLIENTS) /* full: new ones wait in the backlog */
			p[n++] = (struct pollfd){ .fd = e->lfd, .events = POLLIN };
		int timeout = next == UINT64_MAX ? -1 : (int)(next - now + 1);
		int r = poll(p, n, timeout);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		if (p[0].revents)
			break; /* om_export_close */
		for (size_t k = 1; k < listening; k++) {
			struct client *c = &e->clients[slot[k]];
			if (!p[k].revents)
				continue;
			if (c->resp)
				transmit(c);
			else
				receive(e, c);
		}
		if (listening < n && p[listening].revents)
			accept_clients(e);
	}
	for (size_t i = 0; i < OM_MAX_CLIENTS; i++)
		drop(&e->clients[i]);
	return NULL;
}

/* Binds ADDR:PORT, prints the address served.  Returns 0, or 1 after
 * printing why. */
static int bind_listener(struct om_export *e, const char *listen_at)
{
	char host[64], shown[128];
	unsigned port;
	bool v6;
	if (!stat_parse_listen(listen_at, host, sizeof host, &port, &v6)) {
		fprintf(stderr, "opengpa stat: --listen %s: not ADDR:PORT\n",
		        cli_escape(listen_at, shown, sizeof shown));
		return 1;
	}
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof ss);
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, host, &a->sin6_addr);
		len = sizeof *a;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, host, &a->sin_addr);
		len = sizeof *a;
	}
	e->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (e->lfd < 0 || setsockopt(e->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
	    (v6 && setsockopt(e->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) ||
	    bind(e->lfd, (struct sockaddr *)&ss, len) != 0 || listen(e->lfd, 64) != 0) {
		int err = errno;
		fprintf(stderr, "opengpa stat: --listen %s: %s%s\n",
		        cli_escape(listen_at, shown, sizeof shown), strerror(err),
		        err == EADDRINUSE ? " (another program serves that port: choose another, or "
		                            "port 0 for any free one)"
		        : err == EADDRNOTAVAIL ? " (not an address of this machine: 127.0.0.1, [::1], "
		                                 "0.0.0.0 or [::] for every address)"
		        : err == EACCES ? " (ports below 1024 need privileges: choose 9464 or above)"
		        : "");
		return 1;
	}
	if (getsockname(e->lfd, (struct sockaddr *)&ss, &len) == 0)
		port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
		                : ((struct sockaddr_in *)&ss)->sin_port);
	fprintf(stderr, "opengpa stat: serving http://%s%s%s:%u/metrics\n", v6 ? "[" : "", host,
	        v6 ? "]" : "", port);
	fflush(stderr);
	return 0;
}

static int start_listener(struct om_export *e)
{
	e->clients = calloc(OM_MAX_CLIENTS, sizeof *e->clients);
	if (!e->clients)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	for (size_t i = 0; i < OM_MAX_CLIENTS; i++)
		e->clients[i].fd = -1;
	if (pipe2(e->wake, O_CLOEXEC) != 0) {
		fprintf(stderr, "opengpa stat: --listen: cannot make a pipe: %s\n", strerror(errno));
		e->wake[0] = e->wake[1] = -1;
		return 1;
	}
	/* The command's signals (^C) stay with the main thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int err = pthread_create(&e->thread, NULL, listener, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		fprintf(stderr, "opengpa stat: --listen: cannot start the listener: %s\n",
		        strerror(err));
		return 1;
	}
	e->running = true;
	return 0;
}

int om_export_open(struct om_export **out, const char *listen_at, const char *file)
{
	*out = NULL;
	if (!listen_at && !file)
		return 0;
	struct om_export *e = calloc(1, sizeof *e);
	if (!e)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	e->lfd = e->wake[0] = e->wake[1] = -1;
	pthread_mutex_init(&e->lock, NULL);
	e->file = file;
	if (gethostname(e->instance, sizeof e->instance - 1) != 0)
		e->instance[0] = '\0';
	/* The file's directory takes a temporary file now, or the run is
	 * refused before it starts; the file itself is first written after
	 * the first interval. */
	struct cli_output probe;
	if (file && cli_output_open(&probe, file, false) == 0)
		cli_output_close(&probe, false);
	else if (file) {
		om_export_close(e);
		return 1;
	}
	if (listen_at && (bind_listener(e, listen_at) || start_listener(e))) {
		om_export_close(e);
		return 1;
	}
	*out = e;
	return 0;
}

/* --openmetrics: the 0.0.4 document to the file, whole (output.h). */
static void write_file(struct om_export *e, const struct om_values *v)
{
	struct om_text text = { 0 };
	if (om_render(&text, &e->run, e->fam, v, OM_PROMETHEUS) != 0) {
		om_text_free(&text);
		return; /* out of memory: the previous file stays */
	}
	struct cli_output f;
	bool ok = cli_output_open(&f, e->file, false) == 0;
	if (ok) {
		ok = fwrite(text.data, 1, text.len, f.f) == text.len;
		ok = cli_output_close(&f, ok) == 0 && ok;
	}
	om_text_free(&text);
	if (!ok) {
		char shown[256];
		fprintf(stderr, "opengpa stat: --openmetrics %s: not written again in this run (it "
		        "keeps the last whole document)\n", cli_escape(e->file, shown, sizeof shown));
		e->file_failed = true;
	}
}

static char *copy(const char *s)
{
	return strdup(s ? s : "");
}

int om_export_prepare(struct om_export *e, const struct tl_run *run, const gpa_uint32 *index)
{
	if (!e)
		return 0;
	size_t n = run->nseries;
	e->series = calloc(n + 1, sizeof *e->series);
	e->fam = calloc(n + 1, sizeof *e->fam);
	e->help = calloc(n + 1, sizeof *e->help);
	e->latest = calloc(n + 1, sizeof *e->latest);
	e->totals = calloc(n + 1, sizeof *e->totals);
	e->counted = calloc(n + 1, sizeof *e->counted);
	e->device = copy(run->device);
	e->backend = copy(run->backend);
	if (!e->series || !e->fam || !e->help || !e->latest || !e->totals || !e->counted ||
	    !e->device || !e->backend)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	e->run = (struct tl_run){ .device = e->device, .backend = e->backend,
		                  .series = e->series, .nseries = n };
	for (size_t i = 0; i < n; i++) {
		const struct tl_series *s = &run->series[i];
		/* Only what the writer reads; NULL strings read as "". */
		e->series[i] = (struct tl_series){ .name = copy(s->name), .group = copy(s->group),
			                           .unit = copy(s->unit), .usage = copy(s->usage),
			                           .integer = s->integer };
		e->latest[i] = NAN;
		const char *d = NULL;
		if (GPA_GetCounterDescription(index[i], &d) != GPA_STATUS_OK || !d)
			continue;
		/* GPA's "#Group#text": the group is a label already. */
		if (d[0] == '#' && strchr(d + 1, '#'))
			d = strchr(d + 1, '#') + 1;
		e->help[i] = strdup(d);
	}
	cli_clear_error();
	om_families(&e->run, e->fam);
	/* Served from now on: the labels, no value yet. */
	pthread_mutex_lock(&e->lock);
	e->prepared = true;
	e->version++;
	pthread_mutex_unlock(&e->lock);
	return 0;
}

void om_export_interval(struct om_export *e, const double *latest, const double *sums,
                        const uint32_t *counted, uint64_t intervals)
{
	if (!e || !e->prepared)
		return;
	size_t n = e->run.nseries;
	if (e->lfd >= 0) {
		pthread_mutex_lock(&e->lock);
		memcpy(e->latest, latest, n * sizeof *latest);
		memcpy(e->totals, sums, n * sizeof *sums);
		memcpy(e->counted, counted, n * sizeof *counted);
		e->intervals = intervals;
		e->version++;
		pthread_mutex_unlock(&e->lock);
	}
	if (e->file && !e->file_failed) {
		struct om_values v = { .instance = e->instance,
			               .help = (const char *const *)e->help, .latest = latest,
			               .totals = sums, .counted = counted, .intervals = intervals };
		write_file(e, &v);
	}
}

void om_export_close(struct om_export *e)
{
	if (!e)
		return;
	if (e->running) {
		char one = 1;
		while (write(e->wake[1], &one, 1) < 0 && errno == EINTR)
			;
		pthread_join(e->thread, NULL);
	}
	if (e->wake[0] >= 0)
		close(e->wake[0]);
	if (e->wake[1] >= 0)
		close(e->wake[1]);
	if (e->lfd >= 0)
		close(e->lfd);
	for (size_t i = 0; i < e->run.nseries; i++) {
		free(e->help[i]);
		free((char *)e->series[i].name);
		free((char *)e->series[i].group);
		free((char *)e->series[i].unit);
		free((char *)e->series[i].usage);
	}
	free(e->help);
	free(e->series);
	free(e->fam);
	free(e->latest);
	free(e->totals);
	free(e->counted);
	free(e->device);
	free(e->backend);
	free(e->clients);
	free(e->doc_om);
	free(e->doc_text);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
