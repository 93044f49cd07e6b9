/* SPDX-License-Identifier: MIT */
/* client.c — see client.h. */
#include "client.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

static unsigned problems;

static bool parse_expect(struct client_options *o, const char *arg, bool at_least)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(o->expect[0].name) ||
	    o->nexpect == CLIENT_MAX_EXPECT)
		return false;
	struct client_expect *e = &o->expect[o->nexpect++];
	memcpy(e->name, arg, (size_t)(eq - arg));
	e->name[eq - arg] = '\0';
	char *end;
	e->value = strtod(eq + 1, &end);
	e->at_least = at_least;
	return *end == '\0';
}

bool client_options(int argc, char **argv, const char *program, struct client_options *o)
{
	*o = (struct client_options){ .library = "libGPUPerfAPIGL.so", .frames = 3 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;
		if (strcmp(a, "--hardware") == 0)
			o->hardware = true;
		else if (strcmp(a, "--verify") == 0)
			o->verify = true;
		else if (!v)
			ok = false;
		else if (strcmp(a, "--library") == 0)
			o->library = argv[++i];
		else if (strcmp(a, "--counters") == 0)
			o->counters = argv[++i];
		else if (strcmp(a, "--csv") == 0)
			o->csv = argv[++i];
		else if (strcmp(a, "--frames") == 0)
			ok = (o->frames = (unsigned)strtoul(argv[++i], NULL, 10)) > 0;
		else if (strcmp(a, "--expect") == 0 || strcmp(a, "--expect-min") == 0)
			ok = parse_expect(o, argv[++i], strcmp(a, "--expect-min") == 0);
		else
			ok = false;
		if (!ok) {
			fprintf(stderr,
			        "usage: %s [--library PATH] [--counters A,B,...] [--frames N] "
			        "[--hardware]\n"
			        "       [--verify] [--expect NAME=VALUE] [--expect-min NAME=VALUE] "
			        "[--csv FILE]\n", program);
			return false;
		}
	}
	return true;
}

static volatile double sink;

void client_draw(unsigned id)
{
	double x = id;
	for (int i = 0; i < 100000; i++)
		x = x * 1.0000001 + 0.5;
	sink = x;
	size_t len = 64 * 4096;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	munmap(p, len);
}

void client_check(struct client_options *o, const char *name, bool percentage, double value)
{
	if (o->verify && (!isfinite(value) || value < 0 || (percentage && value > 100))) {
		fprintf(stderr, "verify: %s = %g is out of range\n", name, value);
		problems++;
	}
	for (unsigned i = 0; i < o->nexpect; i++) {
		struct client_expect *e = &o->expect[i];
		if (strcasecmp(e->name, name) != 0)
			continue;
		e->seen++;
		bool good = e->at_least ? value >= e->value
		                        : fabs(value - e->value) <= 1e-9 * fabs(e->value);
		if (!good) {
			fprintf(stderr, "verify: %s = %.17g, expected %s%.17g\n", name, value,
			        e->at_least ? "at least " : "", e->value);
			problems++;
		}
	}
}

unsigned client_problems(const struct client_options *o)
{
	unsigned n = problems;
	for (unsigned i = 0; i < o->nexpect; i++)
		if (!o->expect[i].seen) {
			fprintf(stderr, "verify: no value of %s was read\n", o->expect[i].name);
			n++;
		}
	return n;
}
