/* SPDX-License-Identifier: MIT */
/* fuzz_options.h — a command line from fuzz input: NUL-separated words. */
#ifndef OPENGPA_TESTS_FUZZ_OPTIONS_H
#define OPENGPA_TESTS_FUZZ_OPTIONS_H

#include <string.h>

#include "fuzz.h"

#define FUZZ_MAX_WORDS 64

/* argv[0] is `command`; the input's NUL-separated words follow (at most
 * FUZZ_MAX_WORDS).  Returns argc; *storage is the copy argv points into
 * (free it). */
static inline int fuzz_argv(const char *command, const uint8_t *data, size_t size,
                            char *argv[FUZZ_MAX_WORDS + 2], char **storage)
{
	char *copy = malloc(size + 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	int argc = 0;
	argv[argc++] = (char *)command;
	for (size_t at = 0; at < size && argc <= FUZZ_MAX_WORDS; at += strlen(copy + at) + 1)
		argv[argc++] = copy + at;
	argv[argc] = NULL;
	*storage = copy;
	return argc;
}

#endif
