/* SPDX-License-Identifier: MIT */
/* profile.c — profiles and the FPS model's measured inputs (profile.h). */
#include "profile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "util/readfile.h"
#include "refuse.h"

/*
 * The counters that play each role, preferred first (docs/models.md, "Where
 * the inputs come from").  Arm's machine names are aliases in every Mali set,
 * so one list serves every Mali GPU; the Mali-G71's reviewed set has some of
 * them only as raw hardware counters (`--hardware`).  The Adreno sets
 * (tools/adreno-counters/generate.py) name theirs as below; no Adreno
 * countable counts frames.
 */
static const char *const instruction_names[] = {
	"MaliEngInstr",      /* Bifrost: EXEC_INSTR_COUNT, every instruction issued */
	"MaliEngArithInstr", /* Valhall, 5th gen: EXEC_INSTR_FMA + _CVT + _SFU */
	"MaliCoreInstructionsExecutedInstructions", /* Mali-G71 set: EXEC_INSTR_COUNT */
	"UnifiedShaderInstructions", /* Adreno sets: SP_VS + SP_FS instructions */
	NULL,
};
static const char *const active_names[] = {
	"MaliGPUActiveCy", /* every Mali set (an alias of GPUActiveCycles) */
	"GPUActiveCycles", /* Adreno sets: RBBM_STATUS_MASKED, GPU busy */
	NULL,
};
static const char *const frame_names[] = {
	"MaliFragQueueJob", /* job manager JS0_JOBS; CSF ITER_FRAG_JOB_COMPLETED */
	"MaliMainQueueJob", /* 5th generation: main-phase (fragment) jobs */
	"MaliHwJM_JS0_JOBS", /* Mali-G71 set, raw: fragment jobs of job slot 0 */
	NULL,
};
static const char *const core_names[] = { "ShaderCoreCount", NULL };
static const char *const clock_names[] = { "MaxClockMHz", NULL };

static const struct og_model_role_info roles[OG_MODEL_ROLES] = {
	[OG_ROLE_INSTRUCTIONS] = { "shader instructions", instruction_names },
	[OG_ROLE_GPU_ACTIVE] = { "GPU active cycles", active_names },
	[OG_ROLE_FRAMES] = { "render passes", frame_names },
	[OG_ROLE_CORES] = { "shader core count", core_names },
	[OG_ROLE_MAX_CLOCK] = { "maximum GPU clock", clock_names },
};

const struct og_model_role_info *og_model_role(enum og_model_role role)
{
	return role < OG_MODEL_ROLES ? &roles[role] : NULL;
}

/* ---- profiles ---------------------------------------------------------- */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

bool og_profile_init(struct og_profile *p, const char *origin, const char *device,
                     const char *backend, double seconds)
{
	memset(p, 0, sizeof *p);
	p->origin = strdup(origin ? origin : "the profile");
	p->device = dup_or_null(device);
	p->backend = dup_or_null(backend);
	p->seconds = seconds;
	p->runs = p->passes = 1;
	return p->origin && (!device || p->device) && (!backend || p->backend);
}

bool og_profile_add(struct og_profile *p, const char *name, const char *aliases, bool counted,
                    double value)
{
	if (!name)
		return false;
	if (p->count == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct og_profile_counter *c = realloc(p->counters, cap * sizeof(*c));
		if (!c)
			return false;
		p->counters = c;
		p->cap = cap;
	}
	struct og_profile_counter *c = &p->counters[p->count];
	c->name = strdup(name);
	c->aliases = aliases && *aliases ? strdup(aliases) : NULL;
	c->counted = counted && isfinite(value);
	c->value = c->counted ? value : 0.0;
	if (!c->name || (aliases && *aliases && !c->aliases)) {
		free(c->name);
		free(c->aliases);
		return false;
	}
	p->count++;
	return true;
}

void og_profile_free(struct og_profile *p)
{
	for (size_t i = 0; i < p->count; i++) {
		free(p->counters[i].name);
		free(p->counters[i].aliases);
	}
	free(p->counters);
	free(p->origin);
	free(p->device);
	free(p->backend);
	memset(p, 0, sizeof *p);
}

/* Whether `name` is one of the blank-separated words of `list`. */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *w = list; w && *w;) {
		w += strspn(w, " \t");
		size_t len = strcspn(w, " \t");
		if (len == n && strncasecmp(w, name, n) == 0)
			return true;
		w += len;
	}
	return false;
}

const struct og_profile_counter *og_profile_find(const struct og_profile *p, const char *name)
{
	for (size_t i = 0; p && i < p->count; i++)
		if (strcasecmp(p->counters[i].name, name) == 0 || in_list(p->counters[i].aliases, name))
			return &p->counters[i];
	return NULL;
}

static bool json_uint(const struct og_json *v, unsigned *out)
{
	if (!v || v->type != OG_JSON_NUMBER || !(v->number >= 1.0) || v->number > 1e9 ||
	    v->number != floor(v->number))
		return false;
	*out = (unsigned)v->number;
	return true;
}

/* A counter's aliases: a string of blank-separated names, or an array of
 * strings; joined with blanks into buf. */
static bool json_aliases(const struct og_json *v, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!v || v->type == OG_JSON_NULL)
		return true;
	if (v->type == OG_JSON_STRING)
		return snprintf(buf, len, "%s", v->string) < (int)len;
	if (v->type != OG_JSON_ARRAY)
		return false;
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i].type != OG_JSON_STRING)
			return false;
		size_t used = strlen(buf);
		if (snprintf(buf + used, len - used, "%s%s", i ? " " : "", v->items[i].string) >=
		    (int)(len - used))
			return false;
	}
	return true;
}

static bool read_counters(struct og_profile *p, const struct og_json *list, char *err,
                          size_t errlen)
{
	if (!list || list->type != OG_JSON_ARRAY)
		return og_model_refuse(err, errlen, "%s: no \"counters\" array (is it an `opengpa stat --json` "
		                       "report?)", p->origin);
	for (size_t i = 0; i < list->n; i++) {
		const struct og_json *c = &list->items[i];
		const struct og_json *name = og_json_get(c, "name");
		const struct og_json *value = og_json_get(c, "value");
		char aliases[512];
		if (c->type != OG_JSON_OBJECT || !name || name->type != OG_JSON_STRING || !*name->string)
			return og_model_refuse(err, errlen, "%s: counter %zu has no \"name\"", p->origin, i + 1);
		if (!value || (value->type != OG_JSON_NUMBER && value->type != OG_JSON_NULL))
			return og_model_refuse(err, errlen, "%s: counter %s: \"value\" is neither a number nor "
			                       "null", p->origin, name->string);
		if (!json_aliases(og_json_get(c, "aliases"), aliases, sizeof aliases))
			return og_model_refuse(err, errlen, "%s: counter %s: \"aliases\" is neither a string nor "
			                       "an array of strings", p->origin, name->string);
		bool counted = value->type == OG_JSON_NUMBER;
		if (!og_profile_add(p, name->string, aliases, counted, counted ? value->number : 0.0))
			return og_model_refuse(err, errlen, "out of memory");
	}
	return true;
}

bool og_profile_from_json(struct og_profile *p, const char *origin, const char *text, size_t len,
                          char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	struct og_json doc;
	char jerr[256];
	if (!og_json_parse(text, len, &doc, jerr, sizeof jerr)) {
		og_json_free(&doc);
		return og_model_refuse(err, errlen, "%s: not JSON (%s)", origin, jerr);
	}
	bool ok = false;
	const struct og_json *device = og_json_get(&doc, "device");
	const struct og_json *backend = og_json_get(&doc, "backend");
	const struct og_json *seconds = og_json_get(&doc, "seconds_per_run");
	if (doc.type != OG_JSON_OBJECT)
		og_model_refuse(err, errlen, "%s: not an `opengpa stat --json` report (not a JSON "
		                "object)", origin);
	else if (!device || device->type != OG_JSON_STRING)
		og_model_refuse(err, errlen, "%s: no \"device\" string (is it an `opengpa stat --json` report?)",
		                origin);
	else if (!seconds || seconds->type != OG_JSON_NUMBER)
		og_model_refuse(err, errlen, "%s: no \"seconds_per_run\" number", origin);
	else if (!og_profile_init(p, origin, device->string,
	                          backend && backend->type == OG_JSON_STRING ? backend->string : NULL,
	                          seconds->number))
		og_model_refuse(err, errlen, "out of memory");
	else if (og_json_get(&doc, "runs") && !json_uint(og_json_get(&doc, "runs"), &p->runs))
		og_model_refuse(err, errlen, "%s: \"runs\" is not a whole number above 0", origin);
	else if (og_json_get(&doc, "passes") && !json_uint(og_json_get(&doc, "passes"), &p->passes))
		og_model_refuse(err, errlen, "%s: \"passes\" is not a whole number above 0", origin);
	else
		ok = read_counters(p, og_json_get(&doc, "counters"), err, errlen);
	og_json_free(&doc);
	if (!ok)
		og_profile_free(p);
	return ok;
}

/* Profiles as readfile.h opens them: never a FIFO or a device. */
static const struct og_file_kind profile_kind = {
	.what = "profile",
	.max_bytes = OG_JSON_MAX_BYTES,
	.fix = "give the JSON file `opengpa stat --opengpa-json -o FILE` wrote",
};

bool og_profile_load(struct og_profile *p, const char *path, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	size_t len;
	char *buf = og_read_regular(path, &profile_kind, &len, err, errlen);
	if (!buf)
		return false;
	bool ok = og_profile_from_json(p, path, buf, len, err, errlen);
	free(buf);
	return ok;
}

/* ---- the model's inputs ------------------------------------------------ */

/* The profile's counter for a role, counted; NULL when it has none. */
static const struct og_profile_counter *lookup(const struct og_profile *p, enum og_model_role r,
                                               bool *uncounted)
{
	for (const char *const *n = roles[r].names; *n; n++) {
		const struct og_profile_counter *c = og_profile_find(p, *n);
		if (c && c->counted)
			return c;
		if (c)
			*uncounted = true;
	}
	return NULL;
}

/* Appends "what (one of A, B or C)" to the list of what is missing. */
static void missing(char *buf, size_t len, enum og_model_role r, const char *instead)
{
	size_t used = strlen(buf);
	char names[256] = "";
	for (const char *const *n = roles[r].names; *n; n++) {
		strncat(names, n == roles[r].names ? "" : n[1] ? ", " : " or ",
		        sizeof names - strlen(names) - 1);
		strncat(names, *n, sizeof names - strlen(names) - 1);
	}
	snprintf(buf + used, len - used, "%s%s (%s%s%s%s)", used ? "; " : "", roles[r].what,
	         roles[r].names[1] ? "one of " : "", names, instead ? ", or " : "",
	         instead ? instead : "");
}

bool og_model_measure(const struct og_profile *p, const struct og_model_overrides *o,
                      struct og_model_measurement *out, char *err, size_t errlen)
{
	static const struct og_model_overrides none;
	if (!o)
		o = &none;
	memset(out, 0, sizeof *out);
	/* Every given number is checked first: a zero or negative one is an
	 * error, never a reason to fall back to the profile. */
	static const struct {
		size_t off;
		const char *what;
	} given[] = {
		{ offsetof(struct og_model_overrides, usi), "USI" },
		{ offsetof(struct og_model_overrides, gpuu), "GPU utilisation" },
		{ offsetof(struct og_model_overrides, fps), "frame rate" },
		{ offsetof(struct og_model_overrides, frames), "frame count" },
		{ offsetof(struct og_model_overrides, passes_per_frame), "render passes per frame" },
		{ offsetof(struct og_model_overrides, cores), "core count" },
		{ offsetof(struct og_model_overrides, clock_mhz), "clock" },
	};
	for (size_t i = 0; i < sizeof given / sizeof given[0]; i++) {
		double v = *(const double *)((const char *)o + given[i].off);
		if (!isfinite(v) || v < 0.0)
			return og_model_refuse(err, errlen, "the %s given (%g) must be a number above 0",
			                       given[i].what, v);
	}
	if (o->gpuu > 100.0)
		return og_model_refuse(err, errlen, "the GPU utilisation given (%g %%) is above 100 %%", o->gpuu);

	bool need_profile = !(o->usi > 0.0 && o->gpuu > 0.0 && o->fps > 0.0);
	if (need_profile && !p)
		return og_model_refuse(err, errlen, "without a profile the model needs USI, GPU utilisation and "
		                       "FPS given (--usi, --gpuu, --fps)");
	if (need_profile && !(isfinite(p->seconds) && p->seconds > 0.0))
		return og_model_refuse(err, errlen, "%s: the run lasted %g seconds; the model needs a run that "
		                       "took time", p->origin, p->seconds);
	out->seconds = p ? p->seconds : 0.0;

	char lacks[1024] = "";
	bool uncounted = false;
	const struct og_profile_counter *c;

	/* USI: shader instructions per second. */
	if (o->usi > 0.0) {
		out->m.usi = o->usi;
		out->usi_given = true;
	} else if ((c = lookup(p, OG_ROLE_INSTRUCTIONS, &uncounted))) {
		out->counter[OG_ROLE_INSTRUCTIONS] = c->name;
		out->instructions = c->value;
		out->m.usi = c->value / p->seconds;
	} else {
		missing(lacks, sizeof lacks, OG_ROLE_INSTRUCTIONS, "--usi");
	}

	/* GPUU: active cycles over the cycles of the run at the maximum clock. */
	if (o->gpuu > 0.0) {
		out->m.gpuu = o->gpuu;
		out->gpuu_given = true;
	} else {
		const struct og_profile_counter *active = lookup(p, OG_ROLE_GPU_ACTIVE, &uncounted);
		const struct og_profile_counter *clock = lookup(p, OG_ROLE_MAX_CLOCK, &uncounted);
		if (!active)
			missing(lacks, sizeof lacks, OG_ROLE_GPU_ACTIVE, "--gpuu");
		if (o->clock_mhz > 0.0)
			out->clock_mhz = o->clock_mhz;
		else if (clock)
			out->clock_mhz = clock->value, out->counter[OG_ROLE_MAX_CLOCK] = clock->name;
		else
			missing(lacks, sizeof lacks, OG_ROLE_MAX_CLOCK, "--on ID,mhz=MHZ, or --gpuu");
		if (active && out->clock_mhz > 0.0) {
			out->counter[OG_ROLE_GPU_ACTIVE] = active->name;
			out->active_cycles = active->value;
			out->m.gpuu = 100.0 * active->value / (p->seconds * out->clock_mhz * 1e6);
		}
	}

	/* FPS: frames over seconds. */
	if (o->fps > 0.0) {
		out->m.fps = o->fps;
		out->fps_given = true;
	} else if (o->frames > 0.0) {
		out->frames = o->frames;
		out->frames_given = true;
		out->frames_marked = o->frames_marked;
		out->m.fps = o->frames / p->seconds;
	} else if ((c = lookup(p, OG_ROLE_FRAMES, &uncounted))) {
		double per = o->passes_per_frame > 0.0 ? o->passes_per_frame : 1.0;
		out->counter[OG_ROLE_FRAMES] = c->name;
		out->render_passes = c->value;
		out->frames = c->value / per;
		out->m.fps = out->frames / p->seconds;
	} else {
		missing(lacks, sizeof lacks, OG_ROLE_FRAMES, "--frames or --fps");
	}

	/* The measured device's core count, for its GFLOPS. */
	if (o->cores > 0.0)
		out->cores = o->cores;
	else if (p && (c = lookup(p, OG_ROLE_CORES, &uncounted)))
		out->cores = c->value, out->counter[OG_ROLE_CORES] = c->name;

	if (lacks[0])
		return og_model_refuse(err, errlen, "%s lacks what the model needs: %s%s", p->origin, lacks,
		                       uncounted ? " (some of these are in it without a value: not countable "
		                          "on that device)" : "");
	if (!(out->m.usi > 0.0))
		return og_model_refuse(err, errlen, "%s: %s counted %g shader instructions: the model needs a "
		                       "run that executed shaders", p->origin, out->counter[OG_ROLE_INSTRUCTIONS],
		                       out->instructions);
	if (!(out->m.gpuu > 0.0))
		return og_model_refuse(err, errlen, "%s: %s counted %g: the GPU was idle, so its utilisation "
		                       "is 0 and the model has nothing to correct", p->origin,
		                       out->counter[OG_ROLE_GPU_ACTIVE], out->active_cycles);
	if (out->m.gpuu > 100.0)
		return og_model_refuse(err, errlen, "%s: GPU utilisation %.1f %% is above 100 %%: %g active "
		                       "cycles in %g s need a clock above the %g MHz taken as the maximum "
		                       "(give the right one: --on ID,mhz=MHZ)", p->origin, out->m.gpuu,
		                       out->active_cycles, p->seconds, out->clock_mhz);
	if (!(out->m.fps > 0.0))
		return og_model_refuse(err, errlen, "%s: %s counted %g render passes: no frame was rendered, "
		                       "so there is no frame rate (give --frames or --fps)", p->origin,
		                       out->counter[OG_ROLE_FRAMES], out->render_passes);
	return true;
}
