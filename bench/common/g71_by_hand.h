/* SPDX-License-Identifier: MIT */
/*
 * g71_by_hand.h — the Mali-G71 counters of counters/mali-g71.counters, in
 * file order, written by hand in C from Arm's formulas: the yardstick the
 * benchmarks hold the library's evaluation against (bench/backends/mali, bench/api).
 * raw[] is indexed by dump position (block * 64 + counter) unless the includer
 * defines G71_AT(block, counter) to another layout (bench/api reads compact
 * rows, as the library does), k[] holds the
 * set's constants in file order: shader cores, L2 slices, bus width in
 * bits, then the cycle budget's maximum clock (Hz), target width, height,
 * frame rate and utilisation.
 */
#ifndef OPENGPA_BENCH_G71_BY_HAND_H
#define OPENGPA_BENCH_G71_BY_HAND_H

#include <stdint.h>

#define G71_BY_HAND_COUNTERS 88

static inline double dv(double a, double b)
{
	return b == 0 ? 0 : a / b;
}

static inline double pct(double r)
{
	double p = r * 100;
	return p > 100 ? 100 : p < 0 ? 0 : p;
}

#ifndef G71_AT
#define G71_AT(block, index) ((block) * 64 + (index))
#endif

/* The guide's formulas in C over raw[G71_AT(block, index)]. */
static inline void by_hand(const uint64_t *raw, const double *k, double *out)
{
#define J(i) ((double)raw[G71_AT(0, i)])
#define T(i) ((double)raw[G71_AT(1, i)])
#define L(i) ((double)raw[G71_AT(2, i)])
#define S(i) ((double)raw[G71_AT(3, i)])
	double ga = J(6), cores = k[0], slices = k[1], bus = k[2];
	double culled = T(12) + T(13) + T(14), total = culled + T(11), px = J(9) * 1024;
	double qr = S(11), ec = S(26), ls = S(44) + S(45) + S(46) + S(47) + S(48);
	int n = 0;
	out[n++] = ga; out[n++] = J(18); out[n++] = J(10); out[n++] = T(4); out[n++] = J(7);
	out[n++] = pct(dv(J(18), ga)); out[n++] = pct(dv(J(10), ga)); out[n++] = pct(dv(T(4), ga));
	out[n++] = L(32) * (bus / 8); out[n++] = L(47) * (bus / 8);
	out[n++] = pct(dv(dv(L(33), slices), ga)); out[n++] = pct(dv(dv(L(48), slices), ga));
	for (int i = 37; i <= 41; i++)
		out[n++] = L(i);
	out[n++] = L(32) - L(37) - L(38) - L(39) - L(40) - L(41);
	out[n++] = total; out[n++] = culled; out[n++] = T(11);
	out[n++] = pct(dv(T(11), total)); out[n++] = pct(dv(T(12), total));
	out[n++] = pct(dv(T(13), total - T(12))); out[n++] = pct(dv(T(14), total - T(12) - T(13)));
	out[n++] = T(21) * 4; out[n++] = T(37) * 4; out[n++] = dv(T(21) * 4, total);
	out[n++] = dv(T(37) * 4, T(11));
	out[n++] = px; out[n++] = dv(ga, px); out[n++] = dv(S(9) * 4, px);
	out[n++] = pct(dv(S(12), qr)); out[n++] = pct(dv(S(13), qr)); out[n++] = pct(dv(S(14), qr));
	out[n++] = pct(dv(qr - S(14) - S(9), qr)); out[n++] = pct(dv(S(15), qr));
	out[n++] = pct(dv(S(16), qr));
	out[n++] = S(24); out[n++] = S(9); out[n++] = dv(S(22), S(24) * 4); out[n++] = dv(S(4), S(9) * 4);
	out[n++] = pct(dv(dv(S(22), cores), ga)); out[n++] = pct(dv(dv(S(4), cores), ga));
	out[n++] = pct(dv(S(7), S(4))); out[n++] = pct(dv(dv(S(26), cores), ga));
	out[n++] = pct(dv(S(28), ec)); out[n++] = pct(dv(S(50) + S(51), ec));
	out[n++] = pct(dv(S(40), ec)); out[n++] = pct(dv(ls, ec));
	out[n++] = pct(dv(S(29), S(28))); out[n++] = pct(dv(S(10), S(9))); out[n++] = pct(dv(S(19), S(18)));
	out[n++] = S(50) + S(51); out[n++] = S(51); out[n++] = S(50);
	out[n++] = S(40); out[n++] = dv(S(40), S(35));
	out[n++] = pct(dv(S(37), S(35))); out[n++] = pct(dv(S(38), S(35)));
	out[n++] = pct(dv(S(39), S(35))); out[n++] = pct(dv(S(36), S(35)));
	out[n++] = dv(S(58) * 16, S(40)); out[n++] = dv(S(59) * 16, S(40));
	out[n++] = ls;
	for (int i = 44; i <= 48; i++)
		out[n++] = S(i);
	out[n++] = dv(S(56) * 16, S(44) + S(45)); out[n++] = dv(S(57) * 16, S(44) + S(45));
	out[n++] = dv(S(61) * 16, S(46) + S(47));
	out[n++] = S(54) * 16; out[n++] = S(56) * 16; out[n++] = S(58) * 16;
	out[n++] = S(55) * 16; out[n++] = S(57) * 16; out[n++] = S(59) * 16;
	out[n++] = S(61) * 16; out[n++] = S(62) * 16;
	out[n++] = cores; out[n++] = slices; out[n++] = bus / 8;
	/* The cycle budget (offered with a target and the clock). */
	double clock = k[3], budget = dv(cores * clock, k[4] * k[5] * k[6]);
	out[n++] = clock / 1000000; out[n++] = budget; out[n++] = k[7] * budget;
	out[n++] = dv(100 * cores * dv(ga, px), k[7] * budget);
#undef J
#undef T
#undef L
#undef S
}

#endif
