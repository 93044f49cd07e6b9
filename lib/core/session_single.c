/* SPDX-License-Identifier: MIT */
/*
 * session_single.c — how the unlocked single read (GPA_GetSample*,
 * session_results.c) computes each counter of a session: recipe.one
 * (session_state.h), planned once when the session is laid out.  A counter
 * whose postfix is a raw value times a number, or a ratio of two raw values
 * times numbers between bounds, is computed in the read itself, with no
 * call (issue 29, docs/performance.md "P4").
 */
#include <math.h>

#include "core/session_state.h"

/* A number the single read's formula may use: with the row's counts (below
 * 2^64) and these bounds no step overflows, so the value is finite and the
 * interpreter's final og_arith_result changes nothing. */
static bool tame(double v)
{
	return v >= -0x1p900 && v <= 0x1p900;
}

/* The read takes min(d, high) as d < high ? d : high, and max(m, low) as
 * m > low ? m : low (one instruction each with the bound in memory), where
 * the postfix's are high < d ? high : d and low > m ? low : m.  Both agree
 * but for d or m NaN (never: tame numbers, counts below 2^64, a divisor
 * not 0) or a tie of +0 and -0: so a bound 0 must be +0, with the value
 * never -0, which na and n positive ensure (a count, its product with a
 * positive number and a quotient of those are +0 or more). */
static bool ties_agree(const struct recipe *r)
{
	bool positive = r->na > 0 && r->n > 0;
	return (r->high != 0 || (!signbit(r->high) && positive)) &&
	       (r->low != 0 || (!signbit(r->low) && positive));
}

/* Whether counter c's postfix is max(min(div(a * na, b) * n, high), low)
 * with parts left out (no divisor, a number 1, no bounds), each raw
 * counter one in the row: its operands into r. */
static bool simple_formula(const struct og_session *s, const struct og_catalog *cat,
                           const struct og_counter *c, struct recipe *r)
{
	const struct og_expr_op *op;
	size_t n = c->expr ? og_expr_postfix(c->expr, &op) : 0, i = 0;
	uint32_t raw[2] = { UINT32_MAX, UINT32_MAX };
	r->a = r->b = UINT32_MAX;
	r->na = r->n = 1.0;
	r->high = INFINITY;
	r->low = -INFINITY;
	/* a, a na MUL or na a MUL */
	if (i + 2 < n && op[i].code == OG_OP_NUMBER && op[i + 1].code == OG_OP_RAW &&
	    op[i + 2].code == OG_OP_MUL) {
		r->na = op[i].number;
		raw[0] = op[i + 1].index;
		i += 3;
	} else if (i < n && op[i].code == OG_OP_RAW) {
		raw[0] = op[i++].index;
		if (i + 1 < n && op[i].code == OG_OP_NUMBER && op[i + 1].code == OG_OP_MUL) {
			r->na = op[i].number;
			i += 2;
		}
	} else {
		return false;
	}
	/* then b DIV, n MUL, high MIN low MAX, each if there */
	if (i + 1 < n && op[i].code == OG_OP_RAW && op[i + 1].code == OG_OP_DIV) {
		raw[1] = op[i].index;
		i += 2;
	}
	if (i + 1 < n && op[i].code == OG_OP_NUMBER && op[i + 1].code == OG_OP_MUL) {
		r->n = op[i].number;
		i += 2;
	}
	if (i + 3 < n && op[i].code == OG_OP_NUMBER && op[i + 1].code == OG_OP_MIN &&
	    op[i + 2].code == OG_OP_NUMBER && op[i + 3].code == OG_OP_MAX) {
		r->high = op[i].number;
		r->low = op[i + 2].number;
		if (!isfinite(r->high) || !isfinite(r->low))
			return false;
		i += 4;
	}
	if (i != n || !tame(r->na) || !tame(r->n) || !tame(r->na * r->n))
		return false;
	for (int k = 0; k < 2; k++) {
		if (raw[k] == UINT32_MAX)
			continue;
		if (raw[k] >= cat->nraw || s->slot_of_raw[raw[k]].slot == UINT32_MAX)
			return false;
		(k ? &r->b : &r->a)[0] = s->slot_of_raw[raw[k]].slot;
	}
	if (raw[1] != UINT32_MAX)
		return ties_agree(r);
	/* No divisor: the scaled form, one product (of a and na * n, which is
	 * exact only when one of them is 1: a product of three rounds twice)
	 * and no bounds. */
	if ((r->na != 1.0 && r->n != 1.0) || r->high != INFINITY || r->low != -INFINITY)
		return false;
	r->n *= r->na;
	return true;
}

void og_session_plan_single(struct og_session *s, const struct og_catalog *cat)
{
	for (size_t k = 0; k < s->ncounters; k++) {
		struct recipe *r = &s->recipes[k];
		const struct og_counter *c = &cat->counters[s->counters[k]];
		unsigned how = ONE_NONE;
		if (r->kind == READ_RAW)
			how = ONE_RAW;
		else if (!r->api && simple_formula(s, cat, c, r))
			how = r->b == UINT32_MAX ? ONE_SCALED : r->na == 1.0 ? ONE_RATIO : ONE_RATIO_NA;
		else if (r->kind == READ_NATIVE)
			how = ONE_CALL;
		r->one = ONE_OF(how, r->type);
		/* A formula read fetches its dividend's line OG_READ_AHEAD
		 * samples on; 0 (its own row again) where that is too far. */
		r->ahead = 0;
		if (how == ONE_SCALED || how == ONE_RATIO || how == ONE_RATIO_NA) {
			uint64_t ahead = ((uint64_t)s->nslots * OG_READ_AHEAD + r->a) * sizeof(uint64_t);
			r->ahead = ahead <= UINT32_MAX ? (uint32_t)ahead : 0;
		}
	}
}

void og_session_single_kinds(const struct og_session *s, size_t out[ONE_KINDS])
{
	memset(out, 0, ONE_KINDS * sizeof(*out));
	for (size_t k = 0; k < s->ncounters; k++)
		out[(s->recipes[k].one & 0xff) % ONE_KINDS]++;
}
