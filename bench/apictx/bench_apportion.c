/* SPDX-License-Identifier: MIT */
/*
 * bench_apportion.c — what sharing a Vulkan command list's device counts
 * among its samples by GPU time costs (og_vk_apportion, lib/apictx/vk_share.c):
 * one call per raw counter of the pass, per list with several samples.
 *
 *   build/bench/apictx/bench-apictx-apportion [SAMPLES [RAWS [ROUNDS]]]
 *
 * Prints, per round, the time of RAWS calls over SAMPLES samples (random
 * weights, counts around 10^9: products in 64 bits, as most are) and that
 * time per sample and raw.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "apictx/vk.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000;
	uint32_t raws = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 100;
	uint32_t rounds = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 5;
	uint64_t *w = malloc((n ? n : 1) * sizeof(*w)), *s = malloc((n ? n : 1) * sizeof(*s));
	if (!n || !w || !s) {
		fprintf(stderr, "usage: %s [SAMPLES>0 [RAWS [ROUNDS]]]\n", argv[0]);
		return 2;
	}
	uint64_t seed = 1, check = 0;
	for (uint32_t k = 0; k < n; k++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		w[k] = 1000 + (seed >> 44); /* ticks: 1 us .. 1 ms at 1 ns a tick */
	}
	for (uint32_t r = 0; r < rounds; r++) {
		double t0 = now_ms();
		for (uint32_t i = 0; i < raws; i++) {
			og_vk_apportion(1000000007ull + (uint64_t)i * 7919u, w, n, s);
			check += s[i % n];
		}
		double ms = now_ms() - t0;
		printf("round %u: %u raws x %u samples: %.3f ms, %.1f ns a sample and raw\n", r, raws,
		       n, ms, ms * 1e6 / ((double)raws * n));
	}
	printf("(checksum %llu)\n", (unsigned long long)check);
	free(w);
	free(s);
	return 0;
}
