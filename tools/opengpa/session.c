/* SPDX-License-Identifier: MIT */
/* session.c — the command's side of the library: logging and the context. */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "cli.h"
#include "options.h"

/* The library calls back on the thread that called it: the main thread,
 * or during -I the interval reader (timeline_run.c), hence the lock. */
static char first_error[512];
static pthread_mutex_t first_error_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_log(GPA_Logging_Type type, const char *message)
{
	pthread_mutex_lock(&first_error_lock);
	if ((type & GPA_LOGGING_ERROR) && first_error[0] == '\0')
		snprintf(first_error, sizeof(first_error), "%s", message);
	else if (type & (GPA_LOGGING_MESSAGE | GPA_LOGGING_TRACE))
		fprintf(stderr, "opengpa: %s\n", message);
	pthread_mutex_unlock(&first_error_lock);
}

void cli_install_logger(void)
{
	/* Messages only when the user asks for them (OPENGPA_LOG does stderr
	 * itself); errors are collected and printed once by cli_fail(). */
	GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log);
	first_error[0] = '\0';
}

void cli_set_verbose(unsigned level)
{
	GPA_Logging_Type mask = GPA_LOGGING_ERROR;
	if (level >= 1)
		mask = GPA_LOGGING_ERROR_AND_MESSAGE;
	if (level >= 2)
		mask = GPA_LOGGING_ALL;
	GPA_RegisterLoggingCallback(mask, on_log);
}

void cli_clear_error(void)
{
	pthread_mutex_lock(&first_error_lock);
	first_error[0] = '\0';
	pthread_mutex_unlock(&first_error_lock);
}

void cli_take_error(char *buf, size_t len)
{
	pthread_mutex_lock(&first_error_lock);
	snprintf(buf, len, "%s", first_error);
	first_error[0] = '\0';
	pthread_mutex_unlock(&first_error_lock);
}

const char *cli_last_error(void)
{
	return first_error;
}

/* The library's message without the API function it names first
 * ("GPA_EnableCounterStr: ..."): a command's user called no function. */
static const char *user_words(const char *message)
{
	if (strncmp(message, "GPA_", 4) != 0 && strncmp(message, "OpenGPA_", 8) != 0 &&
	    strncmp(message, "Gpa", 3) != 0)
		return message;
	size_t n = strspn(message, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	return strncmp(message + n, ": ", 2) == 0 && message[n + 2] ? message + n + 2 : message;
}

int cli_fail(const char *what, GPA_Status status)
{
	pthread_mutex_lock(&first_error_lock);
	if (first_error[0])
		fprintf(stderr, "opengpa: %s\n", user_words(first_error));
	else
		fprintf(stderr, "opengpa: %s: %s\n", what, GPA_GetStatusAsStr(status));
	pthread_mutex_unlock(&first_error_lock);
	return 1;
}

/* Any non-NULL pointer names the context; the command has one. */
static int context_key;

GPA_Status cli_try_open(const char *backend, const char *options, bool hardware)
{
	GPA_Status st;
	if ((backend || options) &&
	    (st = OpenGPA_SetBackend(backend ? backend : "auto", options)) != GPA_STATUS_OK)
		return st;
	if (hardware) /* else OPENGPA_HARDWARE_COUNTERS decides */
		OpenGPA_SetHardwareCounters(1);
	GPA_Initialize();
	st = GPA_OpenContext(&context_key);
	if (st != GPA_STATUS_OK)
		GPA_Destroy();
	return st;
}

int cli_open(const char *backend, const char *options, bool hardware)
{
	GPA_Status st = cli_try_open(backend, options, hardware);
	return st == GPA_STATUS_OK ? 0 : cli_fail("cannot open a counter context", st);
}

void cli_close(void)
{
	GPA_CloseContext();
	GPA_Destroy();
}

int cli_usage_error(const char *command, const char *err)
{
	fprintf(stderr, "opengpa %s: %s (see opengpa %s --help)\n", command, err, command);
	return 2;
}

FILE *cli_open_output(const char *path, bool append)
{
	FILE *f = fopen(path, append ? "ae" : "we");
	if (!f) {
		char name[256];
		fprintf(stderr, "opengpa: cannot open %s for writing: %s\n",
		        cli_escape(path, name, sizeof name), strerror(errno));
	}
	return f;
}

int cli_close_output(FILE *f, const char *path)
{
	if (!f)
		return 0;
	int failed = ferror(f);
	if (f == stdout || f == stderr)
		failed |= fflush(f) != 0;
	else
		failed |= fclose(f) != 0;
	if (failed) {
		char name[256];
		fprintf(stderr, "opengpa: cannot write %s: %s\n",
		        path ? cli_escape(path, name, sizeof name) : "the report", strerror(errno));
	}
	return failed ? 1 : 0;
}
