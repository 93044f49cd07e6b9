/* SPDX-License-Identifier: MIT */
/* expr.c — expressions: parser (recursive descent to postfix, folding numbers)
 * and evaluator (an accumulator machine).
 *
 * Postfix is the form expressions are inlined into one another in, and the
 * one og_expr_single_raw() and og_expr_for_each_raw() read.  Compiling then
 * turns it into code for an accumulator machine: the value being computed
 * stays in a CPU register and each instruction combines it with one operand
 * named in the instruction, so a / b is one load and one "divide by raw
 * counter" where the stack machine had three operations and stack traffic.
 * The first load and the percentage clamp around most ratios cost no
 * dispatch (see og_expr_eval).  Measured in bench/backends/mali and bench/expr.
 *
 * A counter another one names is inlined once per expression: its code is
 * copied the first time, and each later use, direct or through another
 * counter, reads the value it left (SHARE/SHARED, expr.h).  Every compiled
 * expression remembers where the code of each counter it inlined lies in
 * its postfix (its regions), so that an expression inlining it can skip the
 * code of a counter it already has.  Compile time and size therefore grow
 * with the number of distinct counters an expression depends on, whatever
 * the number of paths to them.
 */
#include "expr.h"
#include "arith.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Postfix ---- */

static bool is_leaf(const struct og_expr_op *op)
{
	return op->code == OG_OP_NUMBER || op->code == OG_OP_RAW || op->code == OG_OP_CONSTANT ||
	       op->code == OG_OP_SHARED;
}

static double fold(enum og_expr_op_code code, double x, double y)
{
	switch (code) {
	case OG_OP_ADD: return x + y;
	case OG_OP_SUB: return x - y;
	case OG_OP_MUL: return x * y;
	case OG_OP_DIV: return og_arith_div(x, y);
	case OG_OP_MIN: return og_arith_min(x, y);
	case OG_OP_MAX: return og_arith_max(x, y);
	default: return 0.0; /* not a binary operation */
	}
}

/* ---- Accumulator machine ----
 *
 * An instruction is an operation on the accumulator and one operand: a leaf
 * (raw counter, constant or number) or a temporary the accumulator was saved
 * to.  The R operations take the accumulator as their right operand, for
 * when the left one was computed first; ADD and MUL need none, IEEE addition
 * and multiplication being commutative bit for bit.  A temporary is only
 * ever a left operand (the accumulator, computed later, is the right one),
 * so only the operations below take one. */
#define ACC_OPERATIONS(X) \
	X(LOAD) X(ADD) X(SUB) X(RSUB) X(MUL) X(DIV) X(RDIV) X(MIN) X(RMIN) X(MAX) X(RMAX)
#define LEAF_KINDS(X, op) X(op, RAW) X(op, CONSTANT) X(op, NUMBER) X(op, SHARED)
#define TEMP_OPERATIONS(X) X(ADD) X(RSUB) X(MUL) X(RDIV) X(RMIN) X(RMAX)

#define ACC_OPERATION_NAME(op) A_##op,
enum acc_operation { ACC_OPERATIONS(ACC_OPERATION_NAME) };
#define LEAF_KIND_NAME(op, kind) K_##kind,
enum leaf_kind { LEAF_KINDS(LEAF_KIND_NAME, unused) LEAF_KIND_COUNT };

#define LEAF_INSN_NAME(op, kind) I_##op##_##kind,
#define LEAF_INSN_NAMES(op) LEAF_KINDS(LEAF_INSN_NAME, op)
#define TEMP_INSN_NAME(op) I_##op##_TEMP,
enum insn_code {
	ACC_OPERATIONS(LEAF_INSN_NAMES) /* = operation * LEAF_KIND_COUNT + kind */
	TEMP_OPERATIONS(TEMP_INSN_NAME)
	I_NEG,
	I_SAVE, /* temp[index] = accumulator; a SHARE saves to OG_EXPR_MAX_DEPTH + its slot */
	INSN_CODE_COUNT
};

struct insn {
	uint8_t code;
	uint32_t index;  /* raw counter, constant or temporary */
	double number;
};


/* Percentages are max(min(E * 100, 100), 0): a final multiplication by a
 * number and clamp by numbers form the epilogue, applied after the code
 * without a dispatch (with 1, +inf and -inf for the parts absent, which
 * change no result). */
struct og_expr {
	struct og_expr_op *ops; /* postfix, in the same allocation */
	size_t nops;
	/* Every counter inlined, by start then outermost first. */
	struct og_expr_region *regions;
	size_t nregions;
	const struct og_expr **slot_of; /* shared slot -> whose value it holds */
	size_t nslots;
	size_t ncode;   /* >= 1, and code[0] is a LOAD of a raw counter, constant or number */
	bool has_epilogue;
	double scale, high, low;
	struct insn code[];
};

/* Counters inlined so far into the expression being compiled -> the shared
 * slot meant to hold each one's value: open addressing on the pointer. */
struct known {
	const struct og_expr **key;
	uint32_t *slot;
	size_t cap, count;
};

static size_t known_hash(const struct og_expr *e, size_t cap)
{
	return (size_t)(((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

static bool known_find(const struct known *k, const struct og_expr *e, uint32_t *slot)
{
	if (!k->cap)
		return false;
	for (size_t i = known_hash(e, k->cap); k->key[i]; i = (i + 1) & (k->cap - 1))
		if (k->key[i] == e) {
			*slot = k->slot[i];
			return true;
		}
	return false;
}

static bool known_put(struct known *k, const struct og_expr *e, uint32_t slot)
{
	if (2 * (k->count + 1) > k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct known grown = { calloc(cap, sizeof(*grown.key)), calloc(cap, sizeof(*grown.slot)),
		                       cap, 0 };
		if (!grown.key || !grown.slot) {
			free(grown.key);
			free(grown.slot);
			return false;
		}
		for (size_t i = 0; i < k->cap; i++)
			if (k->key[i])
				known_put(&grown, k->key[i], k->slot[i]);
		free(k->key);
		free(k->slot);
		*k = grown;
	}
	size_t i = known_hash(e, k->cap);
	while (k->key[i])
		i = (i + 1) & (k->cap - 1);
	k->key[i] = e;
	k->slot[i] = slot;
	k->count++;
	return true;
}

struct parser {
	const char *text;
	const char *p;
	og_expr_resolve_fn resolve;
	void *ud;
	struct og_expr_op *ops;
	size_t count, cap;
	/* Counters inlined so far: where their code is, where their values go. */
	struct og_expr_region *regions;
	size_t nregions, regions_cap;
	const struct og_expr **slot_of;
	size_t nslots, slots_cap;
	struct known known;
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

/* Ops while compiling, SHAREs nothing uses yet included; finish() checks
 * the final count against OG_EXPR_MAX_OPS. */
#define MAX_WORKING_OPS (2 * OG_EXPR_MAX_OPS)

static void emit(struct parser *ps, struct og_expr_op op)
{
	if (ps->failed)
		return;
	if (ps->count == MAX_WORKING_OPS) {
		fail(ps, ps->p, "the expression compiles to more than %d operations, with the code of "
		                "the counters it names (docs/counter-files.md, \"Limits\")",
		     OG_EXPR_MAX_OPS);
		return;
	}
	if (ps->count == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 16;
		struct og_expr_op *ops = realloc(ps->ops, cap * sizeof(*ops));
		if (!ops) {
			fail(ps, ps->p, "out of memory");
			return;
		}
		ps->ops = ops;
		ps->cap = cap;
	}
	ps->ops[ps->count++] = op;
}

/* Emits a unary or binary operation, folding it when its operands are numbers
 * (in postfix, the last one or two ops are the operands when they are leaves). */
static void emit_operation(struct parser *ps, enum og_expr_op_code code)
{
	if (ps->failed)
		return;
	struct og_expr_op *last = ps->count ? &ps->ops[ps->count - 1] : NULL;
	if (code == OG_OP_NEG && last && last->code == OG_OP_NUMBER) {
		last->number = -last->number;
		return;
	}
	if (code != OG_OP_NEG && ps->count >= 2 && last->code == OG_OP_NUMBER &&
	    last[-1].code == OG_OP_NUMBER) {
		last[-1].number = fold(code, last[-1].number, last->number);
		ps->count--;
		return;
	}
	emit(ps, (struct og_expr_op){ .code = code });
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

/* c as a message shows it: 'x', or its code when it is not printable ASCII
 * (the text may come from a binary file). */
static const char *quote_char(char c, char buf[8])
{
	unsigned char u = (unsigned char)c;
	if (u >= 0x20 && u < 0x7f)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "byte %02x", u);
	return buf;
}

static void expect(struct parser *ps, char c, const char *context)
{
	char found[8];
	if (!accept(ps, c))
		fail(ps, ps->p, *ps->p ? "expected '%c' %s, found %s" : "expected '%c' %s, found the end",
		     c, context, quote_char(*ps->p, found));
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
	emit(ps, (struct og_expr_op){ .code = OG_OP_NUMBER, .number = v });
}

static bool grow(void **array, size_t *cap, size_t count, size_t size)
{
	if (count < *cap)
		return true;
	size_t n = *cap ? 2 * *cap : 16;
	void *p = realloc(*array, n * size);
	if (!p)
		return false;
	*array = p;
	*cap = n;
	return true;
}

/* Counter e's value is on the stack, computed by ops [start, count): records
 * the region and keeps the value in a new shared slot (a SHARE that
 * finish() drops if nothing reads it). */
static void keep_value(struct parser *ps, const struct og_expr *e, size_t start)
{
	if (ps->failed)
		return;
	if (!grow((void **)&ps->regions, &ps->regions_cap, ps->nregions, sizeof(*ps->regions)) ||
	    !grow((void **)&ps->slot_of, &ps->slots_cap, ps->nslots, sizeof(*ps->slot_of)) ||
	    !known_put(&ps->known, e, (uint32_t)ps->nslots)) {
		fail(ps, ps->p, "out of memory");
		return;
	}
	ps->regions[ps->nregions++] = (struct og_expr_region){ e, (uint32_t)start, (uint32_t)ps->count };
	ps->slot_of[ps->nslots] = e;
	emit(ps, (struct og_expr_op){ .code = OG_OP_SHARE, .index = (uint32_t)ps->nslots });
	ps->nslots++;
}

static void emit_shared(struct parser *ps, uint32_t slot)
{
	emit(ps, (struct og_expr_op){ .code = OG_OP_SHARED, .index = slot });
}

/* Copies e's postfix, except the code of counters whose value this
 * expression already has (read from their slots instead); each counter
 * whose code is copied gets a slot of this expression. */
static void copy_code(struct parser *ps, const struct og_expr *e)
{
	struct open {
		const struct og_expr_region *r;
		size_t start; /* in ps */
	} *open = malloc((e->nregions + 1) * sizeof(*open));
	if (!open) {
		fail(ps, ps->p, "out of memory");
		return;
	}
	size_t depth = 0, r = 0, i = 0;
	for (;;) {
		/* Regions that end here, innermost first: their values are ready. */
		while (depth && open[depth - 1].r->end == i) {
			depth--;
			keep_value(ps, open[depth].r->of, open[depth].start);
		}
		if (i == e->nops || ps->failed)
			break;
		while (r < e->nregions && e->regions[r].start < i)
			r++;
		/* Regions that start here, outermost first. */
		bool skipped = false;
		for (; r < e->nregions && e->regions[r].start == i; r++) {
			uint32_t slot;
			if (known_find(&ps->known, e->regions[r].of, &slot)) {
				emit_shared(ps, slot);
				i = e->regions[r].end;
				skipped = true;
				break;
			}
			open[depth++] = (struct open){ &e->regions[r], ps->count };
		}
		if (skipped)
			continue;
		const struct og_expr_op *op = &e->ops[i++];
		if (op->code == OG_OP_SHARE)
			continue; /* re-made above, where its region ends */
		if (op->code == OG_OP_SHARED) {
			uint32_t slot;
			if (known_find(&ps->known, e->slot_of[op->index], &slot))
				emit_shared(ps, slot);
			else
				fail(ps, ps->p, "internal error: a shared value read before it is kept");
			continue;
		}
		emit(ps, *op);
	}
	free(open);
}

static void inline_expr(struct parser *ps, const struct og_expr *e)
{
	uint32_t slot;
	if (e->nops == 1) {
		emit(ps, e->ops[0]); /* one leaf: as cheap to repeat as to share */
	} else if (known_find(&ps->known, e, &slot)) {
		emit_shared(ps, slot);
	} else {
		size_t start = ps->count;
		copy_code(ps, e);
		keep_value(ps, e, start);
	}
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
		/* min(a, b, c, ...) is min(min(a, b), c) ...: the same two-operand
		 * operation folded from the left, so generated code and folding
		 * need nothing new. */
		enum og_expr_op_code code = name[1] == 'i' ? OG_OP_MIN : OG_OP_MAX;
		ps->p++;
		parse_expr(ps);
		expect(ps, ',', "between the arguments of min()/max() (they take two or more)");
		do {
			parse_expr(ps);
			emit_operation(ps, code);
		} while (!ps->failed && accept(ps, ','));
		expect(ps, ')', "to close min()/max()");
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
		emit(ps, (struct og_expr_op){ .code = OG_OP_RAW, .index = ref.index });
		break;
	case OG_REF_CONSTANT:
		emit(ps, (struct og_expr_op){ .code = OG_OP_CONSTANT, .index = ref.index });
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
		emit_operation(ps, OG_OP_NEG);
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
			emit_operation(ps, OG_OP_MUL);
		} else if (accept(ps, '/')) {
			parse_unary(ps);
			emit_operation(ps, OG_OP_DIV);
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
			emit_operation(ps, OG_OP_ADD);
		} else if (accept(ps, '-')) {
			parse_term(ps);
			emit_operation(ps, OG_OP_SUB);
		} else {
			break;
		}
	}
}

/* Stack depth the program needs; checked once so evaluation never overflows. */
static size_t program_depth(const struct og_expr_op *ops, size_t count)
{
	size_t depth = 0, max = 0;
	for (size_t i = 0; i < count; i++) {
		if (is_leaf(&ops[i]))
			depth++;
		else if (ops[i].code != OG_OP_NEG && ops[i].code != OG_OP_SHARE)
			depth--;
		if (depth > max)
			max = depth;
	}
	return max;
}

/* ---- Postfix to accumulator code ----
 *
 * Walks the postfix once, keeping a compile-time stack of where each value
 * is: still a leaf nobody loaded, in the accumulator (at most one, always the
 * latest computed), or saved in the temporary named after its stack slot.
 * Loading a leaf while the accumulator holds a value lower on the stack saves
 * that value first.  Whenever an operation is reached, its right operand is a
 * leaf or the accumulator, and a saved value can only be a left operand. */

enum place { LEAF, IN_ACC, IN_TEMP };

struct slot {
	enum place place;
	struct og_expr_op leaf;
};

struct codegen {
	struct slot stack[OG_EXPR_MAX_DEPTH];
	size_t depth;
	size_t acc_slot; /* slot held in the accumulator, or SIZE_MAX */
	struct insn *code;
	size_t count;
};

static void put(struct codegen *g, enum insn_code code, uint32_t index, double number)
{
	g->code[g->count++] = (struct insn){ .code = (uint8_t)code, .index = index, .number = number };
}

static void put_with_leaf(struct codegen *g, enum acc_operation a, const struct og_expr_op *leaf)
{
	enum leaf_kind kind = leaf->code == OG_OP_RAW ? K_RAW
	                    : leaf->code == OG_OP_CONSTANT ? K_CONSTANT
	                    : leaf->code == OG_OP_SHARED ? K_SHARED : K_NUMBER;
	put(g, (enum insn_code)(a * LEAF_KIND_COUNT + kind), leaf->index, leaf->number);
}

#define TEMP_INSN_OF(op) [A_##op] = I_##op##_TEMP,
static const uint8_t temp_insn[] = { TEMP_OPERATIONS(TEMP_INSN_OF) };

/* Brings slot s (a leaf) into the accumulator. */
static void load(struct codegen *g, size_t s)
{
	if (g->acc_slot != SIZE_MAX) {
		put(g, I_SAVE, (uint32_t)g->acc_slot, 0.0);
		g->stack[g->acc_slot].place = IN_TEMP;
	}
	put_with_leaf(g, A_LOAD, &g->stack[s].leaf);
	g->stack[s].place = IN_ACC;
	g->acc_slot = s;
}

static enum acc_operation acc_operation(enum og_expr_op_code code, bool acc_is_right)
{
	switch (code) {
	case OG_OP_ADD: return A_ADD;
	case OG_OP_SUB: return acc_is_right ? A_RSUB : A_SUB;
	case OG_OP_MUL: return A_MUL;
	case OG_OP_DIV: return acc_is_right ? A_RDIV : A_DIV;
	case OG_OP_MIN: return acc_is_right ? A_RMIN : A_MIN;
	default: return acc_is_right ? A_RMAX : A_MAX;
	}
}

static void generate_binary(struct codegen *g, enum og_expr_op_code code)
{
	size_t l = g->depth - 2, r = g->depth - 1;
	struct slot *left = &g->stack[l], *right = &g->stack[r];
	if (left->place == LEAF && right->place == LEAF)
		load(g, l);
	if (left->place == IN_ACC) /* the right one is a leaf */
		put_with_leaf(g, acc_operation(code, false), &right->leaf);
	else if (left->place == LEAF)
		put_with_leaf(g, acc_operation(code, true), &left->leaf);
	else /* saved: the right one is in the accumulator */
		put(g, (enum insn_code)temp_insn[acc_operation(code, true)], (uint32_t)l, 0.0);
	left->place = IN_ACC;
	g->acc_slot = l;
	g->depth--;
}

/* code must have room for 2 * count instructions (a load and a save at most
 * per leaf).  Returns the number written. */
static size_t generate(const struct og_expr_op *ops, size_t count, struct insn *code)
{
	struct codegen g = { .acc_slot = SIZE_MAX, .code = code };
	for (size_t i = 0; i < count; i++) {
		if (is_leaf(&ops[i])) {
			g.stack[g.depth++] = (struct slot){ .place = LEAF, .leaf = ops[i] };
		} else if (ops[i].code == OG_OP_NEG) {
			if (g.stack[g.depth - 1].place == LEAF)
				load(&g, g.depth - 1);
			put(&g, I_NEG, 0, 0.0);
		} else if (ops[i].code == OG_OP_SHARE) {
			if (g.stack[g.depth - 1].place == LEAF)
				load(&g, g.depth - 1);
			put(&g, I_SAVE, OG_EXPR_MAX_DEPTH + ops[i].index, 0.0);
		} else {
			generate_binary(&g, ops[i].code);
		}
	}
	if (g.depth == 1 && g.stack[0].place == LEAF)
		load(&g, 0);
	return g.count;
}

static bool is_number_then(const struct og_expr_op *ops, size_t count, enum og_expr_op_code code)
{
	return count >= 3 && ops[count - 1].code == code && ops[count - 2].code == OG_OP_NUMBER;
}

/* Moves a final "* number", "min(., number)" and "max(., number)" (in that
 * order, as in max(min(E * k, high), low)) into e's epilogue.  Returns the
 * length of the postfix left for the code. */
static size_t split_epilogue(struct og_expr *e)
{
	size_t n = e->nops;
	e->scale = 1.0;
	e->high = INFINITY;
	e->low = -INFINITY;
	if (is_number_then(e->ops, n, OG_OP_MAX) && is_number_then(e->ops, n - 2, OG_OP_MIN)) {
		e->low = e->ops[n - 2].number;
		e->high = e->ops[n - 4].number;
		n -= 4;
	}
	if (is_number_then(e->ops, n, OG_OP_MUL)) {
		e->scale = e->ops[n - 2].number;
		n -= 2;
	}
	e->has_epilogue = n < e->nops;
	return n;
}

static int by_start_outermost_first(const void *a, const void *b)
{
	const struct og_expr_region *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* Drops the SHAREs whose value nothing reads, numbers the slots left from
 * 0, moves the regions with the ops, and checks the limits. */
static void finish(struct parser *ps)
{
	if (ps->failed)
		return;
	uint32_t *renumber = malloc((ps->nslots + 1) * sizeof(*renumber));
	size_t *removed = malloc((ps->count + 1) * sizeof(*removed)); /* SHAREs dropped before op i */
	if (!renumber || !removed) {
		free(renumber);
		free(removed);
		fail(ps, ps->text, "out of memory");
		return;
	}
	for (size_t k = 0; k < ps->nslots; k++)
		renumber[k] = UINT32_MAX;
	for (size_t i = 0; i < ps->count; i++)
		if (ps->ops[i].code == OG_OP_SHARED)
			renumber[ps->ops[i].index] = 0; /* read: kept */
	size_t kept = 0;
	for (size_t k = 0; k < ps->nslots; k++)
		if (renumber[k] != UINT32_MAX) {
			ps->slot_of[kept] = ps->slot_of[k];
			renumber[k] = (uint32_t)kept++;
		}
	size_t n = 0;
	for (size_t i = 0; i < ps->count; i++) {
		removed[i] = i - n;
		struct og_expr_op op = ps->ops[i];
		if (op.code == OG_OP_SHARE || op.code == OG_OP_SHARED) {
			if (renumber[op.index] == UINT32_MAX)
				continue;
			op.index = renumber[op.index];
		}
		ps->ops[n++] = op;
	}
	removed[ps->count] = ps->count - n;
	for (size_t r = 0; r < ps->nregions; r++) {
		ps->regions[r].start -= (uint32_t)removed[ps->regions[r].start];
		ps->regions[r].end -= (uint32_t)removed[ps->regions[r].end];
	}
	if (ps->nregions > 1)
		qsort(ps->regions, ps->nregions, sizeof(*ps->regions), by_start_outermost_first);
	ps->count = n;
	ps->nslots = kept;
	free(renumber);
	free(removed);
	if (n > OG_EXPR_MAX_OPS)
		fail(ps, ps->text, "the expression compiles to more than %d operations, with the code "
		                   "of the counters it names (docs/counter-files.md, \"Limits\")",
		     OG_EXPR_MAX_OPS);
	else if (kept > OG_EXPR_MAX_SHARED)
		fail(ps, ps->text, "the expression uses more than %d counters more than once "
		                   "(docs/counter-files.md, \"Limits\")", OG_EXPR_MAX_SHARED);
}

/* The compiled expression in one allocation: code, postfix, regions, slots. */
static struct og_expr *build(const struct parser *ps)
{
	size_t max_insns = 2 * ps->count;
	struct og_expr *e = malloc(sizeof(*e) + max_insns * sizeof(struct insn) +
	                           ps->count * sizeof(struct og_expr_op) +
	                           ps->nregions * sizeof(struct og_expr_region) +
	                           ps->nslots * sizeof(const struct og_expr *));
	if (!e)
		return NULL;
	e->ops = (struct og_expr_op *)(void *)&e->code[max_insns];
	e->nops = ps->count;
	memcpy(e->ops, ps->ops, ps->count * sizeof(*e->ops));
	e->regions = (struct og_expr_region *)(void *)&e->ops[e->nops];
	e->nregions = ps->nregions;
	if (ps->nregions)
		memcpy(e->regions, ps->regions, ps->nregions * sizeof(*e->regions));
	e->slot_of = (const struct og_expr **)(void *)&e->regions[e->nregions];
	e->nslots = ps->nslots;
	if (ps->nslots)
		memcpy(e->slot_of, ps->slot_of, ps->nslots * sizeof(*e->slot_of));
	size_t body = split_epilogue(e);
	e->ncode = generate(e->ops, body, e->code);
	/* og_expr_eval loads code[0] without a dispatch, knowing it reads no
	 * temporary: a shared value is only ever read after code that keeps it. */
	uint8_t first = e->code[0].code;
	if (first != I_LOAD_RAW && first != I_LOAD_CONSTANT && first != I_LOAD_NUMBER) {
		free(e);
		return NULL;
	}
	return e;
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
	if (!ps.failed && *ps.p) {
		char c[8];
		fail(&ps, ps.p, *ps.p == ')' ? "unbalanced ')'" : "unexpected %s after a complete expression",
		     quote_char(*ps.p, c));
	}
	finish(&ps);
	if (!ps.failed && program_depth(ps.ops, ps.count) > OG_EXPR_MAX_DEPTH)
		fail(&ps, text, "expression nests deeper than %d operands", OG_EXPR_MAX_DEPTH);

	struct og_expr *e = NULL;
	if (!ps.failed) {
		e = build(&ps);
		if (!e && err && errlen)
			snprintf(err, errlen, "column 1: out of memory");
	}
	free(ps.ops);
	free(ps.regions);
	free(ps.slot_of);
	free(ps.known.key);
	free(ps.known.slot);
	return e;
}

struct og_expr *og_expr_assemble(const struct og_expr_op *ops, size_t nops,
                                 const struct og_expr_region *regions, size_t nregions,
                                 const struct og_expr *const *slot_of, size_t nslots)
{
	if (!nops || nops > OG_EXPR_MAX_OPS || nslots > OG_EXPR_MAX_SHARED ||
	    program_depth(ops, nops) > OG_EXPR_MAX_DEPTH)
		return NULL;
	/* build() only reads the parser's results. */
	struct parser ps = {
		.ops = (struct og_expr_op *)ops, .count = nops,
		.regions = (struct og_expr_region *)regions, .nregions = nregions,
		.slot_of = (const struct og_expr **)slot_of, .nslots = nslots,
	};
	return build(&ps);
}

size_t og_expr_regions(const struct og_expr *e, const struct og_expr_region **regions)
{
	*regions = e->regions;
	return e->nregions;
}

size_t og_expr_shared(const struct og_expr *e, const struct og_expr *const **slot_of)
{
	*slot_of = e->slot_of;
	return e->nslots;
}

void og_expr_free(struct og_expr *e)
{
	free(e);
}

#define LEAF_INSN_TEXT(op, kind) [I_##op##_##kind] = #op " " #kind,
#define LEAF_INSN_TEXTS(op) LEAF_KINDS(LEAF_INSN_TEXT, op)
#define TEMP_INSN_TEXT(op) [I_##op##_TEMP] = #op " TEMP",
static const char *const insn_text[INSN_CODE_COUNT] = {
	ACC_OPERATIONS(LEAF_INSN_TEXTS)
	TEMP_OPERATIONS(TEMP_INSN_TEXT)
	[I_NEG] = "NEG",
	[I_SAVE] = "SAVE",
};

static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(*n < len ? buf + *n : NULL, *n < len ? len - *n : 0, fmt, ap);
	va_end(ap);
	*n += w > 0 ? (size_t)w : 0;
}

size_t og_expr_describe(const struct og_expr *e, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < e->ncode; i++) {
		const struct insn *in = &e->code[i];
		if (in->code == I_SAVE && in->index >= OG_EXPR_MAX_DEPTH) {
			append(buf, len, &n, "%sKEEP %" PRIu32, i ? "; " : "", in->index - OG_EXPR_MAX_DEPTH);
			continue;
		}
		append(buf, len, &n, "%s%s", i ? "; " : "", insn_text[in->code]);
		if (in->code < I_ADD_TEMP && in->code % LEAF_KIND_COUNT == K_NUMBER)
			append(buf, len, &n, " %.17g", in->number);
		else if (in->code != I_NEG)
			append(buf, len, &n, " %" PRIu32, in->index);
	}
	if (e->has_epilogue)
		append(buf, len, &n, " | * %.17g MIN %.17g MAX %.17g", e->scale, e->high, e->low);
	return n;
}

#define OPERAND_RAW ((double)raw[in->index])
#define OPERAND_CONSTANT (constants[in->index])
#define OPERAND_NUMBER (in->number)
#define OPERAND_TEMP (temp[in->index])
#define OPERAND_SHARED (temp[OG_EXPR_MAX_DEPTH + in->index])

#define APPLY_LOAD(acc, x) (x)
#define APPLY_ADD(acc, x) ((acc) + (x))
#define APPLY_SUB(acc, x) ((acc) - (x))
#define APPLY_RSUB(acc, x) ((x) - (acc))
#define APPLY_MUL(acc, x) ((acc) * (x))
#define APPLY_DIV(acc, x) og_arith_div(acc, x)
#define APPLY_RDIV(acc, x) og_arith_div(x, acc)
#define APPLY_MIN(acc, x) og_arith_min(acc, x)
#define APPLY_RMIN(acc, x) og_arith_min(x, acc)
#define APPLY_MAX(acc, x) og_arith_max(acc, x)
#define APPLY_RMAX(acc, x) og_arith_max(x, acc)

#define EVAL_CASE(op, kind) \
	case I_##op##_##kind: acc = APPLY_##op(acc, OPERAND_##kind); break;
#define EVAL_LEAF_CASES(op) LEAF_KINDS(EVAL_CASE, op)
#define EVAL_TEMP_CASE(op) EVAL_CASE(op, TEMP)

double og_expr_eval(const struct og_expr *e, const uint64_t *raw, const double *constants)
{
	/* Every temporary is saved before it is read: stack values, then the
	 * values a SHARE keeps (SAVE to OG_EXPR_MAX_DEPTH + slot). */
	double temp[OG_EXPR_MAX_DEPTH + OG_EXPR_MAX_SHARED];
	/* The first load is taken out of the loop: a conditional branch on its
	 * kind costs less than a dispatch, and counters that are one raw counter,
	 * or one times a number (40% of mali-g71's), then dispatch nothing. */
	const struct insn *in = e->code, *end = in + e->ncode;
	double acc = in->code == I_LOAD_RAW ? (double)raw[in->index]
	           : in->code == I_LOAD_CONSTANT ? constants[in->index] : in->number;
	for (in++; in < end; in++) {
		switch ((enum insn_code)in->code) {
		ACC_OPERATIONS(EVAL_LEAF_CASES)
		TEMP_OPERATIONS(EVAL_TEMP_CASE)
		case I_NEG:
			acc = -acc;
			break;
		case I_SAVE:
			temp[in->index] = acc;
			break;
		case INSN_CODE_COUNT:
			break;
		}
	}
	if (e->has_epilogue)
		acc = og_arith_max(og_arith_min(acc * e->scale, e->high), e->low);
	return og_arith_result(acc);
}

size_t og_expr_postfix(const struct og_expr *e, const struct og_expr_op **ops)
{
	*ops = e->ops;
	return e->nops;
}

bool og_expr_single_raw(const struct og_expr *e, uint32_t *index)
{
	if (e->nops != 1 || e->ops[0].code != OG_OP_RAW)
		return false;
	*index = e->ops[0].index;
	return true;
}

void og_expr_for_each_raw(const struct og_expr *e, void (*fn)(void *ud, uint32_t index), void *ud)
{
	for (size_t i = 0; i < e->nops; i++)
		if (e->ops[i].code == OG_OP_RAW)
			fn(ud, e->ops[i].index);
}
