/* SPDX-License-Identifier: MIT */
/*
 * replay.c — runs a libFuzzer target where libFuzzer is not there (gcc).
 *
 *   fuzz-NAME ITERATIONS DICT [FILE...]
 *
 * Each FILE is run as one input (a crash libFuzzer saved, say).  Then
 * ITERATIONS inputs are made from the dictionary's tokens and random bytes,
 * each mutated from the last (tokens inserted, bytes flipped, cut short,
 * spliced), with a fixed seed, so every run tries the same inputs and a
 * failure repeats.  Not coverage-guided: libFuzzer (clang, scripts/fuzz.sh)
 * does that; this keeps every build's `meson test` trying malformed input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TOKENS 256
#define MAX_INPUT 4096

struct token {
	uint8_t b[16];
	size_t n;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* name="\x20\x00" lines; '#' comments. */
static size_t read_dict(const char *path, struct token *t)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(2);
	}
	char line[256];
	size_t n = 0;
	while (n < MAX_TOKENS && fgets(line, sizeof line, f)) {
		char *q = strchr(line, '"');
		if (line[0] == '#' || !q)
			continue;
		t[n].n = 0;
		for (char *p = q + 1; *p && *p != '"' && t[n].n < sizeof t[n].b; p++) {
			if (p[0] == '\\' && p[1] == 'x' && hex(p[2]) >= 0 && hex(p[3]) >= 0) {
				t[n].b[t[n].n++] = (uint8_t)(hex(p[2]) << 4 | hex(p[3]));
				p += 3;
			} else {
				t[n].b[t[n].n++] = (uint8_t)*p;
			}
		}
		n += t[n].n > 0;
	}
	fclose(f);
	return n;
}

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s ITERATIONS DICT [FILE...]\n", argv[0]);
		return 2;
	}
	long iterations = strtol(argv[1], NULL, 10);
	static struct token tokens[MAX_TOKENS];
	size_t ntokens = read_dict(argv[2], tokens);
	for (int i = 3; i < argc; i++)
		run_file(argv[i]);
	static uint8_t in[MAX_INPUT];
	size_t len = 0;
	for (long it = 0; it < iterations; it++) {
		unsigned op = (unsigned)(next() % 8);
		if (op < 3 && ntokens && len + 16 + 8 < MAX_INPUT) {
			/* A token and a random payload after it, somewhere. */
			const struct token *t = &tokens[next() % ntokens];
			size_t at = len ? (size_t)(next() % (len + 1)) : 0;
			size_t payload = (size_t)(next() % 9);
			memmove(in + at + t->n + payload, in + at, len - at);
			memcpy(in + at, t->b, t->n);
			for (size_t k = 0; k < payload; k++)
				in[at + t->n + k] = (uint8_t)next();
			len += t->n + payload;
		} else if (op == 3 && len) {
			in[next() % len] ^= (uint8_t)(1u << (next() % 8)); /* flip a bit */
		} else if (op == 4 && len) {
			len = (size_t)(next() % len); /* cut short */
		} else if (op == 5 && len + 1 < MAX_INPUT) {
			in[len++] = (uint8_t)next();
		} else if (op == 6 && len > 1) {
			size_t a = (size_t)(next() % len), b = (size_t)(next() % len);
			uint8_t c = in[a];
			in[a] = in[b];
			in[b] = c;
		} else if (op == 7 && it % 64 == 0) {
			len = 0; /* start over now and then */
		}
		LLVMFuzzerTestOneInput(in, len);
	}
	printf("%ld inputs, %zu dictionary tokens: no failure\n", iterations, ntokens);
	return 0;
}
