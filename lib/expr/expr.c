/* expr.c — parser (recursive descent) and evaluator (postfix stack machine). */
#include "expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op_code {
	OP_NUMBER,
	OP_RAW,
	OP_CONSTANT,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_NEG,
	OP_MIN,
	OP_MAX,
};

struct op {
	enum op_code code;
	uint32_t index;
	double number;
};

struct og_expr {
	size_t count;
	struct op ops[];
};

struct parser {
	const char *text;
	const char *p;
	og_expr_resolve_fn resolve;
	void *ud;
	struct op *ops;
	size_t count, cap;
	bool failed;
	unsigned nesting; /* parse_unary recursion: parentheses and unary minus */
	char *err;
	size_t errlen;
};

static void fail(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	if (!ps->err || ps->errlen == 0)
		return;
	int n = snprintf(ps->err, ps->errlen, "column %zu: ", (size_t)(at - ps->text) + 1);
	if (n < 0 || (size_t)n >= ps->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static void emit(struct parser *ps, struct op op)
{
	if (ps->failed)
		return;
	if (ps->count == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 16;
		struct op *ops = realloc(ps->ops, cap * sizeof(*ops));
		if (!ops) {
			fail(ps, ps->p, "out of memory");
			return;
		}
		ps->ops = ops;
		ps->cap = cap;
	}
	ps->ops[ps->count++] = op;
}

static void skip_blanks(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool accept(struct parser *ps, char c)
{
	skip_blanks(ps);
	if (*ps->p != c)
		return false;
	ps->p++;
	return true;
}

static void expect(struct parser *ps, char c, const char *context)
{
	if (!accept(ps, c))
		fail(ps, ps->p, *ps->p ? "expected '%c' %s, found '%c'" : "expected '%c' %s, found the end",
		     c, context, *ps->p);
}

static bool is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static void parse_expr(struct parser *ps);

static void parse_number(struct parser *ps)
{
	const char *start = ps->p;
	char *end;
	errno = 0;
	double v = strtod(start, &end);
	/* strtod also accepts hex, "inf" and "nan": the grammar does not. */
	if (end == start || errno == ERANGE || !isfinite(v) ||
	    (start[0] == '0' && (start[1] == 'x' || start[1] == 'X'))) {
		fail(ps, start, "malformed number");
		return;
	}
	ps->p = end;
	emit(ps, (struct op){ .code = OP_NUMBER, .number = v });
}

static void inline_expr(struct parser *ps, const struct og_expr *e)
{
	for (size_t i = 0; i < e->count; i++)
		emit(ps, e->ops[i]);
}

static void parse_name(struct parser *ps)
{
	const char *start = ps->p;
	bool dollar = *ps->p == '$';
	if (dollar)
		ps->p++;
	const char *name = ps->p;
	if (!is_name_start(*ps->p)) {
		fail(ps, start, dollar ? "expected a name after '$'" : "expected a number, a name or '('");
		return;
	}
	while (is_name_char(*ps->p))
		ps->p++;
	size_t len = (size_t)(ps->p - name);

	const char *after = ps->p;
	skip_blanks(ps);
	if (!dollar && *ps->p == '(' && len == 3 &&
	    (strncmp(name, "min", 3) == 0 || strncmp(name, "max", 3) == 0)) {
		enum op_code code = name[1] == 'i' ? OP_MIN : OP_MAX;
		ps->p++;
		parse_expr(ps);
		expect(ps, ',', "between the two arguments of min()/max()");
		parse_expr(ps);
		expect(ps, ')', "to close min()/max()");
		emit(ps, (struct op){ .code = code });
		return;
	}
	ps->p = after;

	struct og_expr_ref ref;
	if (!ps->resolve || !ps->resolve(ps->ud, name, len, &ref)) {
		fail(ps, start, "unknown name '%.*s'", (int)len, name);
		return;
	}
	switch (ref.kind) {
	case OG_REF_RAW:
		emit(ps, (struct op){ .code = OP_RAW, .index = ref.index });
		break;
	case OG_REF_CONSTANT:
		emit(ps, (struct op){ .code = OP_CONSTANT, .index = ref.index });
		break;
	case OG_REF_EXPR:
		if (!ref.expr)
			fail(ps, start, "'%.*s' has no expression", (int)len, name);
		else
			inline_expr(ps, ref.expr);
		break;
	}
}

static void parse_primary(struct parser *ps)
{
	skip_blanks(ps);
	char c = *ps->p;
	if (c == '(') {
		ps->p++;
		parse_expr(ps);
		expect(ps, ')', "to close '('");
	} else if (isdigit((unsigned char)c) || c == '.') {
		parse_number(ps);
	} else if (c == '\0') {
		fail(ps, ps->p, "expression ends where an operand was expected");
	} else {
		parse_name(ps);
	}
}

/* Every level of parentheses or unary minus recurses through here; a
 * hostile file must not exhaust the C stack. */
#define MAX_NESTING 256

static void parse_unary(struct parser *ps)
{
	if (ps->nesting >= MAX_NESTING) {
		fail(ps, ps->p, "nested deeper than %d levels of parentheses or signs", MAX_NESTING);
		return;
	}
	ps->nesting++;
	if (accept(ps, '-')) {
		parse_unary(ps);
		emit(ps, (struct op){ .code = OP_NEG });
	} else {
		parse_primary(ps);
	}
	ps->nesting--;
}

static void parse_term(struct parser *ps)
{
	parse_unary(ps);
	while (!ps->failed) {
		if (accept(ps, '*')) {
			parse_unary(ps);
			emit(ps, (struct op){ .code = OP_MUL });
		} else if (accept(ps, '/')) {
			parse_unary(ps);
			emit(ps, (struct op){ .code = OP_DIV });
		} else {
			break;
		}
	}
}

static void parse_expr(struct parser *ps)
{
	parse_term(ps);
	while (!ps->failed) {
		if (accept(ps, '+')) {
			parse_term(ps);
			emit(ps, (struct op){ .code = OP_ADD });
		} else if (accept(ps, '-')) {
			parse_term(ps);
			emit(ps, (struct op){ .code = OP_SUB });
		} else {
			break;
		}
	}
}

/* Stack depth the program needs; checked once so evaluation never overflows. */
static size_t program_depth(const struct op *ops, size_t count)
{
	size_t depth = 0, max = 0;
	for (size_t i = 0; i < count; i++) {
		switch (ops[i].code) {
		case OP_NUMBER:
		case OP_RAW:
		case OP_CONSTANT:
			depth++;
			break;
		case OP_NEG:
			break;
		default:
			depth--;
			break;
		}
		if (depth > max)
			max = depth;
	}
	return max;
}

struct og_expr *og_expr_compile(const char *text, og_expr_resolve_fn resolve, void *ud,
                                char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!text) {
		if (err && errlen)
			snprintf(err, errlen, "column 1: no expression");
		return NULL;
	}
	struct parser ps = {
		.text = text, .p = text, .resolve = resolve, .ud = ud, .err = err, .errlen = errlen,
	};
	parse_expr(&ps);
	skip_blanks(&ps);
	if (!ps.failed && *ps.p)
		fail(&ps, ps.p, *ps.p == ')' ? "unbalanced ')'" : "unexpected '%c' after a complete expression",
		     *ps.p);
	if (!ps.failed && program_depth(ps.ops, ps.count) > OG_EXPR_MAX_DEPTH)
		fail(&ps, text, "expression nests deeper than %d operands", OG_EXPR_MAX_DEPTH);

	struct og_expr *e = NULL;
	if (!ps.failed) {
		e = malloc(sizeof(*e) + ps.count * sizeof(struct op));
		if (e) {
			e->count = ps.count;
			memcpy(e->ops, ps.ops, ps.count * sizeof(struct op));
		} else if (err && errlen) {
			snprintf(err, errlen, "column 1: out of memory");
		}
	}
	free(ps.ops);
	return e;
}

void og_expr_free(struct og_expr *e)
{
	free(e);
}

double og_expr_eval(const struct og_expr *e, const uint64_t *raw, const double *constants)
{
	double stack[OG_EXPR_MAX_DEPTH];
	size_t sp = 0;
	for (size_t i = 0; i < e->count; i++) {
		const struct op *op = &e->ops[i];
		switch (op->code) {
		case OP_NUMBER:
			stack[sp++] = op->number;
			break;
		case OP_RAW:
			stack[sp++] = (double)raw[op->index];
			break;
		case OP_CONSTANT:
			stack[sp++] = constants[op->index];
			break;
		case OP_NEG:
			stack[sp - 1] = -stack[sp - 1];
			break;
		case OP_ADD:
			sp--;
			stack[sp - 1] += stack[sp];
			break;
		case OP_SUB:
			sp--;
			stack[sp - 1] -= stack[sp];
			break;
		case OP_MUL:
			sp--;
			stack[sp - 1] *= stack[sp];
			break;
		case OP_DIV:
			sp--;
			/* Policy: x / 0 is 0 (an idle device makes most ratios 0/0). */
			stack[sp - 1] = stack[sp] == 0.0 ? 0.0 : stack[sp - 1] / stack[sp];
			break;
		case OP_MIN:
			sp--;
			stack[sp - 1] = fmin(stack[sp - 1], stack[sp]);
			break;
		case OP_MAX:
			sp--;
			stack[sp - 1] = fmax(stack[sp - 1], stack[sp]);
			break;
		}
	}
	double v = sp ? stack[0] : 0.0;
	return isfinite(v) ? v : 0.0;
}

bool og_expr_single_raw(const struct og_expr *e, uint32_t *index)
{
	if (e->count != 1 || e->ops[0].code != OP_RAW)
		return false;
	*index = e->ops[0].index;
	return true;
}

void og_expr_for_each_raw(const struct og_expr *e, void (*fn)(void *ud, uint32_t index), void *ud)
{
	for (size_t i = 0; i < e->count; i++)
		if (e->ops[i].code == OP_RAW)
			fn(ud, e->ops[i].index);
}
