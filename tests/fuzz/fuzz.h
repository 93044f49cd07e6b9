/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h — what the fuzz targets share (docs/testing.md, "Fuzzing").
 *
 * Each target is one LLVMFuzzerTestOneInput.  Built with clang, libFuzzer
 * drives it; in every other build replay.c's main() runs the committed
 * corpus and a series of mutated inputs through it, as a test
 * (tests/fuzz/meson.build).  A target aborts when an oracle it checks fails,
 * so the fuzzer reports that input like a crash.
 */
#ifndef OPENGPA_TESTS_FUZZ_H
#define OPENGPA_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An oracle failed: say which and abort, so the fuzzer keeps the input. */
#define FUZZ_CHECK(cond)                                                                      \
	do {                                                                                      \
		if (!(cond)) {                                                                        \
			fprintf(stderr, "%s:%d: oracle failed: %s\n", __FILE__, __LINE__, #cond);         \
			abort();                                                                          \
		}                                                                                     \
	} while (0)

/* A NUL-terminated copy of at most `max` bytes of data (stopping at a NUL,
 * as a C string would); free() it. */
static inline char *fuzz_text(const uint8_t *data, size_t size, size_t max)
{
	size_t n = 0;
	while (n < size && n < max && data[n])
		n++;
	char *s = malloc(n + 1);
	if (!s)
		abort();
	for (size_t i = 0; i < n; i++)
		s[i] = (char)data[i];
	s[n] = '\0';
	return s;
}

/* Deterministic values from the input, for counts and the like. */
static inline uint64_t fuzz_mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* No control character in a message (line breaks aside where `lines`):
 * text from the input is escaped in messages. */
static inline void fuzz_check_printable_lines(const char *msg, int lines)
{
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if ((*p >= 0x20 && *p != 0x7f) || (lines && *p == '\n'))
			continue;
		fprintf(stderr, "byte 0x%02x at offset %d of the message:", *p, (int)(p - (const unsigned char *)msg));
		for (const unsigned char *q = (const unsigned char *)msg; *q; q++)
			fprintf(stderr, *q >= 0x20 && *q < 0x7f ? "%c" : "\\x%02x", *q);
		fputc('\n', stderr);
		FUZZ_CHECK(!"a message carries a control character");
	}
}

static inline void fuzz_check_printable(const char *msg)
{
	fuzz_check_printable_lines(msg, 0);
}

#endif
