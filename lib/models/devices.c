/* SPDX-License-Identifier: MIT */
/* devices.c — the FPS model's device table and device specifications (devices.h). */
#include "devices.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/readfile.h"
#include "refuse.h"

/* models/devices.table, embedded at build time (lib/models/meson.build). */
extern const char og_model_devices_table[];

static const char *const field_names[OG_MODEL_FIELDS] = {
	[OG_MODEL_GFLOPS] = "gflops",
	[OG_MODEL_USI_MAX] = "usi-max",
	[OG_MODEL_USI_PER_GFLOPS] = "usi-per-gflops",
	[OG_MODEL_TMUS] = "tmus",
	[OG_MODEL_CORES] = "cores",
	[OG_MODEL_MHZ] = "mhz",
	[OG_MODEL_FMA_PER_CORE] = "fma-per-core",
	[OG_MODEL_USI_PER_CLOCK] = "usi-per-clock",
	[OG_MODEL_EGPU] = "egpu",
	[OG_MODEL_ETMU] = "etmu",
};

/* Each field's range (docs/models.md, "Ranges"): wide enough for any GPU
 * the model can be asked about, narrow enough that a slip (1e-300, 1e300)
 * is refused rather than predicting 0 or infinity. */
static const struct {
	double min, max;
} field_range[OG_MODEL_FIELDS] = {
	[OG_MODEL_GFLOPS] = { 1e-3, 1e7 },
	[OG_MODEL_USI_MAX] = { 1.0, 1e16 },
	[OG_MODEL_USI_PER_GFLOPS] = { 1.0, 1e12 },
	[OG_MODEL_TMUS] = { 1.0, 1e5 },
	[OG_MODEL_CORES] = { 1.0, 1e5 },
	[OG_MODEL_MHZ] = { 1.0, 1e5 },
	[OG_MODEL_FMA_PER_CORE] = { 1e-3, 1e5 },
	[OG_MODEL_USI_PER_CLOCK] = { 1e-3, 1e5 },
	[OG_MODEL_EGPU] = { 0.0, 100.0 },
	[OG_MODEL_ETMU] = { 0.0, 100.0 },
};

const char *og_model_field_name(enum og_model_field f)
{
	return f < OG_MODEL_FIELDS ? field_names[f] : "?";
}

bool og_model_parse_number(const char *text, double *out)
{
	if (!text || !*text || isspace((unsigned char)*text))
		return false;
	/* Digits, a point, an exponent: strtod's hex, inf and nan are not numbers here. */
	const char *p = text;
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return false;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno == ERANGE || !isfinite(v))
		return false;
	for (const char *q = text; q < end; q++)
		if (*q == 'x' || *q == 'X')
			return false;
	double scale = 1.0;
	if (*end == 'k')
		scale = 1e3, end++;
	else if (*end == 'M')
		scale = 1e6, end++;
	else if (*end == 'G')
		scale = 1e9, end++;
	if (*end)
		return false;
	*out = v * scale;
	return isfinite(*out);
}

bool og_model_device_set(struct og_model_device *d, const char *key, const char *text,
                         enum og_model_origin origin, char *err, size_t errlen)
{
	for (int f = 0; f < OG_MODEL_FIELDS; f++) {
		if (strcmp(key, field_names[f]) != 0)
			continue;
		double v;
		if (!og_model_parse_number(text, &v))
			return og_model_refuse(err, errlen, "%s=%s: not a number (digits, an optional exponent, "
			                       "an optional k, M or G)", key, text);
		bool percent = f == OG_MODEL_EGPU || f == OG_MODEL_ETMU;
		if (!(v >= field_range[f].min && v <= field_range[f].max))
			return og_model_refuse(err, errlen, "%s=%s: must be %s from %g to %g%s", key, text,
			                       percent ? "a percentage" : "above 0:", field_range[f].min,
			                       field_range[f].max, percent ? " (percent)" : "");
		d->value[f] = v;
		d->origin[f] = origin;
		return true;
	}
	char known[256] = "";
	for (int f = 0; f < OG_MODEL_FIELDS; f++) {
		strncat(known, f ? ", " : "", sizeof known - strlen(known) - 1);
		strncat(known, field_names[f], sizeof known - strlen(known) - 1);
	}
	return og_model_refuse(err, errlen, "unknown key '%s' (a device has %s)", key, known);
}

/* ---- the table file --------------------------------------------------- */

static struct og_model_device *find_mut(struct og_model_table *t, const char *id)
{
	for (size_t i = 0; i < t->count; i++)
		if (strcasecmp(t->devices[i].id, id) == 0)
			return &t->devices[i];
	return NULL;
}

const struct og_model_device *og_model_table_find(const struct og_model_table *t, const char *id)
{
	return find_mut((struct og_model_table *)t, id);
}

static bool valid_id(const char *id)
{
	size_t n = strlen(id);
	if (n == 0 || n >= OG_MODEL_ID_LEN)
		return false;
	for (const char *c = id; *c; c++)
		if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '-')
			return false;
	return true;
}

/* Copies text into a fixed field, refusing what does not fit. */
static bool put_text(char *dst, size_t cap, const char *text, const char *key, char *err,
                     size_t errlen)
{
	if (strlen(text) >= cap)
		return og_model_refuse(err, errlen, "%s: longer than %zu characters", key, cap - 1);
	memcpy(dst, text, strlen(text) + 1);
	return true;
}

static bool set_field(struct og_model_device *d, const char *key, const char *value, char *err,
                      size_t errlen)
{
	static const struct {
		const char *key;
		size_t off, cap;
	} texts[] = {
		{ "name", offsetof(struct og_model_device, name), OG_MODEL_TEXT_LEN },
		{ "gpu", offsetof(struct og_model_device, gpu), OG_MODEL_TEXT_LEN },
		{ "family", offsetof(struct og_model_device, family), OG_MODEL_TEXT_LEN },
		{ "match", offsetof(struct og_model_device, match), OG_MODEL_TEXT_LEN },
		{ "source", offsetof(struct og_model_device, source), OG_MODEL_NOTE_LEN },
		{ "note", offsetof(struct og_model_device, note), OG_MODEL_NOTE_LEN },
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		if (strcmp(key, texts[i].key) == 0)
			return put_text((char *)d + texts[i].off, texts[i].cap, value, key, err, errlen);
	/* egpu and etmu describe a measurement, not a device: specs only. */
	if (strcmp(key, "egpu") == 0 || strcmp(key, "etmu") == 0)
		return og_model_refuse(err, errlen, "%s is measured per scene: give it on the command line "
		                       "(--to ID,%s=PERCENT), not in a table", key, key);
	return og_model_device_set(d, key, value, OG_MODEL_FROM_TABLE, err, errlen);
}

/* One entry being read: its kind and the device it fills. */
struct entry {
	enum { NONE, CONSTANT, DEVICE } kind;
	unsigned line;
	struct og_model_device dev;
	bool have_value;
	double value;
};

static bool finish_entry(struct og_model_table *t, struct entry *e, const char *origin, char *err,
                         size_t errlen)
{
	if (e->kind == CONSTANT) {
		if (!e->have_value)
			return og_model_refuse(err, errlen, "%s:%u: constant usi-per-gflops has no value:", origin,
			                       e->line);
		t->usi_per_gflops = e->value;
		t->have_usi_per_gflops = true;
	} else if (e->kind == DEVICE) {
		struct og_model_device *old = find_mut(t, e->dev.id);
		if (old) {
			/* A known id: the new entry's fields replace the old ones. */
			for (int f = 0; f < OG_MODEL_FIELDS; f++)
				if (e->dev.origin[f]) {
					old->value[f] = e->dev.value[f];
					old->origin[f] = e->dev.origin[f];
				}
#define KEEP(field) if (e->dev.field[0]) memcpy(old->field, e->dev.field, sizeof old->field)
			KEEP(name);
			KEEP(gpu);
			KEEP(family);
			KEEP(match);
			KEEP(source);
			KEEP(note);
#undef KEEP
		} else {
			if (!e->dev.name[0])
				return og_model_refuse(err, errlen, "%s:%u: device %s has no name:", origin, e->line,
				                       e->dev.id);
			if (t->count == t->cap) {
				size_t cap = t->cap ? t->cap * 2 : 32;
				if (cap > 4096)
					return og_model_refuse(err, errlen, "%s:%u: more than 4096 devices", origin, e->line);
				struct og_model_device *d = realloc(t->devices, cap * sizeof(*d));
				if (!d)
					return og_model_refuse(err, errlen, "out of memory");
				t->devices = d;
				t->cap = cap;
			}
			t->devices[t->count++] = e->dev;
		}
	}
	e->kind = NONE;
	return true;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* The value of the field being continued, to append a continuation line. */
static char *continued(struct entry *e, const char *key, size_t *cap)
{
	if (strcmp(key, "source") == 0) {
		*cap = sizeof e->dev.source;
		return e->dev.source;
	}
	if (strcmp(key, "note") == 0) {
		*cap = sizeof e->dev.note;
		return e->dev.note;
	}
	return NULL;
}

bool og_model_table_parse(struct og_model_table *t, const char *origin, const char *text,
                          char *err, size_t errlen)
{
	char *copy = strdup(text ? text : "");
	if (!copy)
		return og_model_refuse(err, errlen, "out of memory");
	struct entry *e = calloc(1, sizeof *e);
	if (!e) {
		free(copy);
		return og_model_refuse(err, errlen, "out of memory");
	}
	bool ok = true;
	char last_key[32] = "";
	unsigned lineno = 0;
	char *save = NULL;
	char field_err[256];
	/* strtok_r would skip empty lines, which only matter for numbering. */
	for (char *line = copy, *next; ok && line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		bool indented = line[0] == ' ' || line[0] == '\t';
		char *s = trim(line);
		if (!*s)
			continue;
		if (!indented) {
			ok = finish_entry(t, e, origin, err, errlen);
			if (!ok)
				break;
			memset(e, 0, sizeof *e);
			last_key[0] = '\0';
			char *kind = strtok_r(s, " \t", &save);
			char *name = strtok_r(NULL, " \t", &save);
			char *extra = strtok_r(NULL, " \t", &save);
			e->line = lineno;
			if (kind && strcmp(kind, "device") == 0 && name && !extra) {
				if (!valid_id(name)) {
					ok = og_model_refuse(err, errlen, "%s:%u: device id '%s': lower-case letters, "
					                     "digits and '-', at most %d", origin, lineno, name,
					                     OG_MODEL_ID_LEN - 1);
					break;
				}
				e->kind = DEVICE;
				memcpy(e->dev.id, name, strlen(name) + 1);
			} else if (kind && strcmp(kind, "constant") == 0 && name &&
			           strcmp(name, "usi-per-gflops") == 0 && !extra) {
				e->kind = CONSTANT;
			} else {
				ok = og_model_refuse(err, errlen, "%s:%u: expected 'device ID' or 'constant "
				                     "usi-per-gflops'", origin, lineno);
			}
			continue;
		}
		if (e->kind == NONE) {
			ok = og_model_refuse(err, errlen, "%s:%u: an indented line outside an entry", origin, lineno);
			break;
		}
		char *colon = strchr(s, ':');
		bool is_field = colon && colon > s && strspn(s, "abcdefghijklmnopqrstuvwxyz-") ==
		                                          (size_t)(colon - s);
		if (!is_field) {
			size_t cap = 0;
			char *dst = continued(e, last_key, &cap);
			if (dst && e->kind == CONSTANT)
				continue; /* a constant's source and note are for reviewers */
			if (!dst) {
				ok = og_model_refuse(err, errlen, "%s:%u: expected 'key: value'", origin, lineno);
				break;
			}
			if (strlen(dst) + 1 + strlen(s) >= cap) {
				ok = og_model_refuse(err, errlen, "%s:%u: %s longer than %zu characters", origin, lineno,
				                     last_key, cap - 1);
				break;
			}
			strcat(dst, " ");
			strcat(dst, s);
			continue;
		}
		*colon = '\0';
		char *key = s, *value = trim(colon + 1);
		if (strlen(key) >= sizeof last_key) {
			ok = og_model_refuse(err, errlen, "%s:%u: unknown key '%s'", origin, lineno, key);
			break;
		}
		if (e->kind == CONSTANT) {
			if (strcmp(key, "value") == 0) {
				if (!og_model_parse_number(value, &e->value) ||
				    !(e->value >= field_range[OG_MODEL_USI_PER_GFLOPS].min &&
				      e->value <= field_range[OG_MODEL_USI_PER_GFLOPS].max)) {
					ok = og_model_refuse(err, errlen, "%s:%u: value: not a number above 0 "
					                     "from %g to %g", origin, lineno,
					                     field_range[OG_MODEL_USI_PER_GFLOPS].min,
					                     field_range[OG_MODEL_USI_PER_GFLOPS].max);
					break;
				}
				e->have_value = true;
			} else if (strcmp(key, "source") != 0 && strcmp(key, "note") != 0) {
				ok = og_model_refuse(err, errlen, "%s:%u: a constant has value, source and note",
				                     origin, lineno);
				break;
			}
		} else if (!set_field(&e->dev, key, value, field_err, sizeof field_err)) {
			ok = og_model_refuse_with(err, errlen, field_err, "%s:%u", origin, lineno);
			break;
		}
		memcpy(last_key, key, strlen(key) + 1);
	}
	if (ok)
		ok = finish_entry(t, e, origin, err, errlen);
	free(e);
	free(copy);
	return ok;
}

bool og_model_table_builtin(struct og_model_table *t, char *err, size_t errlen)
{
	return og_model_table_parse(t, "models/devices.table", og_model_devices_table, err, errlen);
}

/* Device tables as readfile.h opens them: never a FIFO or a device. */
static const struct og_file_kind table_kind = {
	.what = "device table",
	.max_bytes = OG_READ_MAX_DEVICE_TABLE,
	.fix = "give a text file in models/devices.table's format (docs/models.md)",
};

bool og_model_table_load(struct og_model_table *t, const char *path, char *err, size_t errlen)
{
	size_t n;
	char *buf = og_read_regular(path, &table_kind, &n, err, errlen);
	if (!buf)
		return false;
	bool ok;
	if (memchr(buf, '\0', n))
		ok = og_model_refuse(err, errlen, "%s: not a text file (it has NUL bytes)", path);
	else
		ok = og_model_table_parse(t, path, buf, err, errlen);
	free(buf);
	return ok;
}

void og_model_table_free(struct og_model_table *t)
{
	free(t->devices);
	memset(t, 0, sizeof *t);
}

const struct og_model_device *og_model_table_match(const struct og_model_table *t,
                                                   const char *description)
{
	if (!description)
		return NULL;
	for (size_t i = 0; i < t->count; i++) {
		const char *m = t->devices[i].match;
		size_t n = strlen(m);
		if (n && strncasecmp(description, m, n) == 0 &&
		    (description[n] == '\0' || description[n] == ' '))
			return &t->devices[i];
	}
	return NULL;
}

void og_model_table_ids(const struct og_model_table *t, char *buf, size_t len)
{
	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < t->count; i++) {
		size_t used = strlen(buf);
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", t->devices[i].id);
		if (n < 0 || (size_t)n >= len - used) {
			/* Cut at the last whole id. */
			char *comma = strrchr(buf, ',');
			if (comma && (size_t)(comma - buf) + 6 < len)
				strcpy(comma, ", ...");
			break;
		}
	}
}

bool og_model_device_parse_spec(const struct og_model_table *t, const char *spec,
                                struct og_model_device *out, char *err, size_t errlen)
{
	if (!spec || !*spec)
		return og_model_refuse(err, errlen, "no device named");
	size_t idlen = strcspn(spec, ",");
	char id[OG_MODEL_ID_LEN];
	const struct og_model_device *d = NULL;
	if (idlen < sizeof id) {
		memcpy(id, spec, idlen);
		id[idlen] = '\0';
		d = og_model_table_find(t, id);
	}
	if (!d) {
		char known[1024];
		og_model_table_ids(t, known, sizeof known);
		return og_model_refuse(err, errlen, "unknown device '%.*s'; the known devices are: %s",
		                       (int)(idlen < 64 ? idlen : 64), spec, known);
	}
	*out = *d;
	const char *p = spec + idlen;
	while (*p == ',') {
		p++;
		size_t n = strcspn(p, ",");
		char pair[128];
		if (n == 0 || n >= sizeof pair)
			return og_model_refuse(err, errlen, "%s: expected KEY=VALUE after each ','", spec);
		memcpy(pair, p, n);
		pair[n] = '\0';
		char *eq = strchr(pair, '=');
		if (!eq)
			return og_model_refuse(err, errlen, "%s: '%s' is not KEY=VALUE", d->id, pair);
		*eq = '\0';
		char field_err[256];
		if (!og_model_device_set(out, pair, eq + 1, OG_MODEL_FROM_USER, field_err,
		                         sizeof field_err))
			return og_model_refuse_with(err, errlen, field_err, "%s", d->id);
		p += n;
	}
	return true;
}

/* ---- the numbers the model needs ------------------------------------- */

static bool has(const struct og_model_device *d, enum og_model_field f)
{
	return d->origin[f] != OG_MODEL_UNSET;
}

static const char *said_by(const struct og_model_device *d, enum og_model_field f)
{
	switch (d->origin[f]) {
	case OG_MODEL_FROM_USER: return "given";
	case OG_MODEL_FROM_PROFILE: return "measured device";
	default: return "table";
	}
}

bool og_model_device_resolve(const struct og_model_device *d, const struct og_model_table *t,
                             struct og_fps_device *out, struct og_model_working *how, char *err,
                             size_t errlen)
{
	struct og_model_working scratch;
	if (!how)
		how = &scratch;
	memset(out, 0, sizeof *out);
	memset(how, 0, sizeof *how);
	const double *v = d->value;
	bool clocked = has(d, OG_MODEL_CORES) && has(d, OG_MODEL_MHZ);

	if (has(d, OG_MODEL_GFLOPS)) {
		out->gflops = v[OG_MODEL_GFLOPS];
		snprintf(how->gflops, sizeof how->gflops, "%s", said_by(d, OG_MODEL_GFLOPS));
	} else if (clocked && has(d, OG_MODEL_FMA_PER_CORE)) {
		out->gflops = v[OG_MODEL_CORES] * v[OG_MODEL_FMA_PER_CORE] * 2.0 * v[OG_MODEL_MHZ] / 1000.0;
		snprintf(how->gflops, sizeof how->gflops, "%g cores x %g FMA x 2 x %g MHz",
		         v[OG_MODEL_CORES], v[OG_MODEL_FMA_PER_CORE], v[OG_MODEL_MHZ]);
	} else if (!has(d, OG_MODEL_FMA_PER_CORE)) {
		return og_model_refuse(err, errlen, "%s: its GFLOPS are not known: give gflops=, or "
		                       "fma-per-core= with cores= and mhz=%s%s", d->name,
		                       d->note[0] ? " (table note: " : "", d->note[0] ? d->note : "");
	} else {
		return og_model_refuse(err, errlen, "%s: its GFLOPS (cores x %g FMA x 2 x clock) need the core "
		                       "count and clock: give cores= and mhz= (or gflops=)", d->name,
		                       v[OG_MODEL_FMA_PER_CORE]);
	}
	if (has(d, OG_MODEL_USI_PER_GFLOPS)) {
		out->usi_per_gflops = v[OG_MODEL_USI_PER_GFLOPS];
		snprintf(how->usi_per_gflops, sizeof how->usi_per_gflops, "%s",
		         said_by(d, OG_MODEL_USI_PER_GFLOPS));
	} else if (has(d, OG_MODEL_USI_PER_CLOCK) && has(d, OG_MODEL_FMA_PER_CORE)) {
		out->usi_per_gflops = v[OG_MODEL_USI_PER_CLOCK] * 1e9 / (2.0 * v[OG_MODEL_FMA_PER_CORE]);
		snprintf(how->usi_per_gflops, sizeof how->usi_per_gflops,
		         "%g per clock / (2 x %g FMA), per core", v[OG_MODEL_USI_PER_CLOCK],
		         v[OG_MODEL_FMA_PER_CORE]);
	} else if (t && t->have_usi_per_gflops) {
		out->usi_per_gflops = t->usi_per_gflops;
		snprintf(how->usi_per_gflops, sizeof how->usi_per_gflops, "the paper's constant");
	} else {
		return og_model_refuse(err, errlen, "%s: its USI per GFLOPS is not known: give usi-per-gflops=",
		                       d->name);
	}
	if (has(d, OG_MODEL_USI_MAX)) {
		out->usi_max = v[OG_MODEL_USI_MAX];
		snprintf(how->usi_max, sizeof how->usi_max, "%s", said_by(d, OG_MODEL_USI_MAX));
	} else if (clocked && has(d, OG_MODEL_USI_PER_CLOCK)) {
		out->usi_max = v[OG_MODEL_CORES] * v[OG_MODEL_USI_PER_CLOCK] * v[OG_MODEL_MHZ] * 1e6;
		snprintf(how->usi_max, sizeof how->usi_max, "%g cores x %g per clock x %g MHz",
		         v[OG_MODEL_CORES], v[OG_MODEL_USI_PER_CLOCK], v[OG_MODEL_MHZ]);
	} else {
		out->usi_max = out->gflops * out->usi_per_gflops;
		snprintf(how->usi_max, sizeof how->usi_max, "GF_Device x USI_GFLOPS");
	}
	if (!isfinite(out->gflops) || !isfinite(out->usi_max) || !isfinite(out->usi_per_gflops))
		return og_model_refuse(err, errlen, "%s: the device's numbers overflow", d->name);
	return true;
}
