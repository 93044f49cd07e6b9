/* SPDX-License-Identifier: MIT */
/*
 * compare_options.c — `opengpa compare`'s options: one case per option of
 * docs/man/opengpa-compare.1.txt (see options.h for adding one).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "compare.h"

bool compare_parse_rule(const char *text, struct compare_rule *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->text = text;
	const char *colon = strrchr(text, ':');
	if (!colon || colon == text) {
		cli_refuse(err, errlen, "not COUNTER:LIMIT (for example TaskClock:+5%% or '*:10%%')");
		return false;
	}
	size_t n = (size_t)(colon - text);
	if (n >= sizeof r->pattern) {
		cli_refuse(err, errlen, "a counter pattern of at most %zu bytes",
		           sizeof r->pattern - 1);
		return false;
	}
	memcpy(r->pattern, text, n);
	r->pattern[n] = '\0';
	const char *s = colon + 1;
	if (*s == '+' || *s == '-')
		r->direction = *s++ == '+' ? 1 : -1;
	char *end = NULL;
	double v = *s >= '0' && *s <= '9' ? strtod(s, &end) : NAN;
	if (end && *end == '%') {
		r->percent = true;
		end++;
	}
	if (!end || *end || !isfinite(v) || v < 0.0) {
		cli_refuse(err, errlen, "the limit after ':' is not [+|-]NUMBER[%%] (+5%%: an increase "
		           "of more than 5 %%; -5%%: a decrease; 5%%: either; without %% in the "
		           "counter's unit)");
		return false;
	}
	r->limit = v;
	return true;
}

static enum cli_error apply(void *ctx, int key, const struct cli_option *opt, const char *value,
                            char *err, size_t errlen)
{
	struct compare_options *o = ctx;
	(void)opt;
	switch ((enum compare_opt)key) {
	case COMPARE_OPT_FAIL_ON:
		if (o->nrules == COMPARE_MAX_RULES)
			return cli_refuse(err, errlen, "more than %d --fail-on rules", COMPARE_MAX_RULES);
		if (!compare_parse_rule(value, &o->rules[o->nrules], err, errlen))
			return CLI_ERR_BAD_VALUE;
		o->nrules++;
		return CLI_OK;
	case COMPARE_OPT_CONFIDENCE: {
		char *end = NULL;
		double v = strtod(value, &end);
		if (!*value || *end || !(v >= 50.0 && v <= 99.999))
			return cli_refuse(err, errlen, "a confidence level in percent, from 50 to 99.999");
		o->confidence = v;
		return CLI_OK;
	}
	case COMPARE_OPT_SEP:
		if (cli_check_separator(value, err, errlen) != CLI_OK)
			return CLI_ERR_BAD_VALUE;
		o->sep = value;
		return CLI_OK;
	case COMPARE_OPT_JSON: o->json = true; return CLI_OK;
	case COMPARE_OPT_HELP: o->help = true; return CLI_OK;
	}
	return CLI_ERR_UNHANDLED;
}

int compare_parse(int argc, char **argv, struct compare_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->confidence = 95.0;
	/* Options may come before, between and after the two documents; after
	 * "--" every word is a document. */
	const char *docs[3] = { 0 };
	size_t ndocs = 0;
	int base = 0;
	bool dashdash = false;
	while (base < argc) {
		int n = argc - base, at = n;
		if (!dashdash) {
			if (cli_parse(&cli_command_compare, n, argv + base, apply, o, &at, err, errlen) !=
			    CLI_OK)
				return 2;
		} else {
			at = 1;
		}
		int operand = base + at;
		if (operand >= argc)
			break;
		if (!dashdash && strcmp(argv[operand - 1], "--") == 0)
			dashdash = true;
		if (ndocs < 3)
			docs[ndocs] = argv[operand];
		ndocs++;
		base = operand;
	}
	if (o->help)
		return 0;
	if (ndocs != 2) {
		cli_refuse(err, errlen, "two documents to compare, A.json and B.json (from opengpa "
		           "stat -r N --opengpa-json), not %zu", ndocs);
		return 2;
	}
	if (o->json && o->sep) {
		cli_refuse(err, errlen, "--json or -x, not both");
		return 2;
	}
	o->a = docs[0];
	o->b = docs[1];
	return 0;
}
