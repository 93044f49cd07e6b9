/* SPDX-License-Identifier: MIT */
/* sample_clock.c — the slow side of og_sample_clock_ns (sample_clock.h):
 * deciding, taking pairs, rating the counter, giving up on it. */
#include "core/sample_clock.h"

#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"

static uint64_t monotonic_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t given(struct og_sample_clock *c, uint64_t ns)
{
	if (ns < c->last_ns)
		ns = c->last_ns;
	c->last_ns = ns;
	return ns;
}

#if defined(__x86_64__)

/* The kernel's current clock source is the time-stamp counter: "tsc\n". */
static bool tsc_is_the_clock(void)
{
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
	              O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char text[16];
	ssize_t n = read(fd, text, sizeof text);
	close(fd);
	return (n == 3 || n == 4) && memcmp(text, "tsc\n", (size_t)n) == 0;
}

static uint64_t scaled(uint64_t ticks, uint64_t mult)
{
	return (uint64_t)(((unsigned __int128)ticks * mult) >> 32);
}

uint64_t og_sample_clock_slow(struct og_sample_clock *c)
{
	if (c->mode == OG_SAMPLE_CLOCK_UNDECIDED)
		c->mode = tsc_is_the_clock() ? OG_SAMPLE_CLOCK_TSC : OG_SAMPLE_CLOCK_SYSTEM;
	if (c->mode != OG_SAMPLE_CLOCK_TSC)
		return given(c, monotonic_ns());
	uint64_t before = monotonic_ns();
	if (!c->rated && c->base_ns && before - c->base_ns < OG_SAMPLE_CLOCK_SPAN_NS)
		return given(c, before); /* a pair now would be too soon to rate */
	uint64_t tsc = __builtin_ia32_rdtsc();
	uint64_t ns = monotonic_ns();
	if (ns - before > OG_SAMPLE_CLOCK_PAIR_NS)
		return given(c, ns); /* disturbed: no pair this time */
	ns = before + (ns - before) / 2;
	c->pairs++;
	if (!c->base_ns || tsc <= c->base_tsc || ns <= c->base_ns) {
		/* The first pair, or the counter went back: start over. */
		c->rated = false;
		c->base_tsc = tsc;
		c->base_ns = ns;
		return given(c, ns);
	}
	uint64_t ticks = tsc - c->base_tsc, elapsed = ns - c->base_ns;
	if (c->rated && ticks < 2 * c->span) {
		/* A pair where the counter would still have been used: how far
		 * off was it there? */
		uint64_t guess = c->base_ns + scaled(ticks, c->mult);
		uint64_t off = guess > ns ? guess - ns : ns - guess;
		if (off > OG_SAMPLE_CLOCK_GIVE_UP_NS) {
			c->mode = OG_SAMPLE_CLOCK_SYSTEM;
			c->rated = false;
			og_log(OG_LOG_MESSAGE, "sample times: the CPU's time-stamp counter was %.1f us "
			       "off CLOCK_MONOTONIC after %.1f ms (the kernel's clock source is tsc); "
			       "sample times come from clock_gettime from now on",
			       (double)off / 1e3, (double)elapsed / 1e6);
			return given(c, ns);
		}
	}
	if (elapsed < OG_SAMPLE_CLOCK_SPAN_NS)
		return given(c, ns); /* too short to rate (the counter wrapped): the base stays */
	uint64_t mult = (uint64_t)(((unsigned __int128)elapsed << 32) / ticks);
	uint64_t span = mult ? (uint64_t)(((unsigned __int128)OG_SAMPLE_CLOCK_SPAN_NS << 32) / mult)
	                     : 0;
	c->rated = mult && span;
	c->mult = mult;
	c->span = span;
	c->base_tsc = tsc;
	c->base_ns = ns;
	return given(c, ns);
}

#else

uint64_t og_sample_clock_slow(struct og_sample_clock *c)
{
	c->mode = OG_SAMPLE_CLOCK_SYSTEM;
	return given(c, monotonic_ns());
}

#endif
