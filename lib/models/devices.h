/* SPDX-License-Identifier: MIT */
/*
 * devices.h — the FPS model's device table (models/devices.table, built
 * in; users add files of the same format) and device specifications such
 * as "mali-g76,cores=10,mhz=720": a table entry with fields overridden.
 *
 * A device becomes the numbers the model needs (struct og_fps_device) in
 * og_model_device_resolve, which also says how it got each one, so that
 * `opengpa predict` can show its working.
 */
#ifndef OPENGPA_MODELS_DEVICES_H
#define OPENGPA_MODELS_DEVICES_H

#include <stdbool.h>
#include <stddef.h>

#include "fps.h"

/* The numeric fields of a device, in the table's spelling. */
enum og_model_field {
	OG_MODEL_GFLOPS,         /* gflops */
	OG_MODEL_USI_MAX,        /* usi-max */
	OG_MODEL_USI_PER_GFLOPS, /* usi-per-gflops */
	OG_MODEL_TMUS,           /* tmus */
	OG_MODEL_CORES,          /* cores */
	OG_MODEL_MHZ,            /* mhz */
	OG_MODEL_FMA_PER_CORE,   /* fma-per-core */
	OG_MODEL_USI_PER_CLOCK,  /* usi-per-clock */
	OG_MODEL_EGPU,           /* egpu: the target's measured efficiency, % */
	OG_MODEL_ETMU,           /* etmu: percentage points from more TMUs */
	OG_MODEL_FIELDS
};

/* Where a field's value came from, for the report. */
enum og_model_origin {
	OG_MODEL_UNSET = 0,
	OG_MODEL_FROM_TABLE,   /* the table file (built in, or --devices) */
	OG_MODEL_FROM_USER,    /* a KEY=VALUE of the specification */
	OG_MODEL_FROM_PROFILE, /* the measured device (cores and clock of a profile) */
};

#define OG_MODEL_ID_LEN 32
#define OG_MODEL_TEXT_LEN 128
#define OG_MODEL_NOTE_LEN 768

struct og_model_device {
	char id[OG_MODEL_ID_LEN];        /* "mali-g71" */
	char name[OG_MODEL_TEXT_LEN];    /* "Mali-G71", "LG G4" */
	char gpu[OG_MODEL_TEXT_LEN];
	char family[OG_MODEL_TEXT_LEN];
	char match[OG_MODEL_TEXT_LEN];   /* a measured device's GPU name, or "" */
	char source[OG_MODEL_NOTE_LEN];
	char note[OG_MODEL_NOTE_LEN];
	double value[OG_MODEL_FIELDS];
	enum og_model_origin origin[OG_MODEL_FIELDS];
};

struct og_model_table {
	struct og_model_device *devices;
	size_t count, cap;
	double usi_per_gflops; /* the table's `constant usi-per-gflops` */
	bool have_usi_per_gflops;
};

/* The built-in table.  False with err only when the build's own file is
 * broken (a test catches that first). */
bool og_model_table_builtin(struct og_model_table *t, char *err, size_t errlen);

/* Reads a table file's text into t (after what it holds): a new id adds a
 * device, a known id replaces the fields the entry gives.  `origin` names
 * the file in messages ("devices.table:12: ...").  Returns false with one
 * line in err; t then holds part of the file and is only fit for freeing. */
bool og_model_table_parse(struct og_model_table *t, const char *origin, const char *text,
                          char *err, size_t errlen);
/* The same for a file on disk (at most 1 MiB). */
bool og_model_table_load(struct og_model_table *t, const char *path, char *err, size_t errlen);
void og_model_table_free(struct og_model_table *t);

/* The entry with this id (case-insensitive), or NULL. */
const struct og_model_device *og_model_table_find(const struct og_model_table *t, const char *id);
/* The entry whose `match` is the GPU of a measured device's description
 * ("Mali-G71 MP8" -> mali-g71: the match, then the end or a blank), or NULL. */
const struct og_model_device *og_model_table_match(const struct og_model_table *t,
                                                   const char *description);
/* "g4, g3-cat6, ..." into buf, for the message about an unknown id. */
void og_model_table_ids(const struct og_model_table *t, char *buf, size_t len);

/* "ID[,KEY=VALUE...]": a copy of entry ID with the keys applied (the keys
 * are the table's field names: gflops=, cores=, mhz=, egpu=, ...).  An
 * unknown ID's message lists the known ones. */
bool og_model_device_parse_spec(const struct og_model_table *t, const char *spec,
                                struct og_model_device *out, char *err, size_t errlen);

/* Sets numeric field `key` ("usi-max") from `text` ("83.2G"), with origin. */
bool og_model_device_set(struct og_model_device *d, const char *key, const char *text,
                         enum og_model_origin origin, char *err, size_t errlen);

/* A number as the table and the command line write them: decimal, an
 * optional exponent, an optional k, M or G suffix.  False for anything
 * else (trailing text, inf, nan). */
bool og_model_parse_number(const char *text, double *out);

/* How og_model_device_resolve got each number: one phrase each. */
struct og_model_working {
	char gflops[160];
	char usi_max[160];
	char usi_per_gflops[160];
};

/*
 * The model's numbers for a device: GF_Device (gflops, or cores ×
 * fma-per-core × 2 × mhz / 1000), USI_Max (usi-max, or cores ×
 * usi-per-clock × mhz × 1e6, or GF_Device × USI_GFLOPS) and USI_GFLOPS
 * (usi-per-gflops, or usi-per-clock / (2 × fma-per-core) G, or the
 * table's constant).  False with err naming what is missing and the key
 * that gives it ("Mali-G76: its GFLOPS need cores= and mhz= (or gflops=)").
 */
bool og_model_device_resolve(const struct og_model_device *d, const struct og_model_table *t,
                             struct og_fps_device *out, struct og_model_working *how, char *err,
                             size_t errlen);

/* The field's name in the table ("usi-max"). */
const char *og_model_field_name(enum og_model_field f);

#endif
