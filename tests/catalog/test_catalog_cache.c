/* SPDX-License-Identifier: MIT */
/*
 * test_catalog_cache.c — catalogues kept between opens (catalog/catalog_cache.h).
 * A kept catalogue is shared only while the backend answers every question
 * as it did: a raw counter that stops binding, a constant that changes,
 * another virtual device (product, core mask, L2 slices) each get a
 * catalogue of their own, equal to the one a fresh process builds; a user's
 * counter file is read again by every open; the cache stays bounded and
 * frees what no context uses; opening and closing from several threads
 * keeps every context's counters whole; a backend's answers_key, when the
 * same, stands for its answers and, when not, the questions are asked.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog/builtin.h"
#include "catalog/catalog_cache.h"
#include "core/core.h"
#include "core/registry.h"
#include "core/testing.h"
#include "opengpa.h"
#include "vmali.h"

/* ---- og_catalog_get with a binder of the test's own ----------------------- */

static const char *off_source; /* bind answers NOT_FOUND for this source */
static double constant_value = 5;
static int backend_tag;
static unsigned binds;      /* t_bind's calls */
static uint32_t answers_of; /* t_answers_key's bytes; 0: it gives none */

static GPA_Status t_bind(void *ud, const char *name, const char *source, uint32_t *id,
                         const char **why_not)
{
	(void)ud, (void)name;
	binds++;
	if (off_source && strcmp(source, off_source) == 0) {
		*why_not = "switched off by the test";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	uint32_t h = 2166136261u;
	for (const char *p = source; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	*id = h;
	return GPA_STATUS_OK;
}

static GPA_Status t_constant(void *ud, const char *name, double *value)
{
	(void)ud, (void)name;
	*value = constant_value;
	return GPA_STATUS_OK;
}

static size_t t_answers_key(void *ud, void *buf, size_t max)
{
	(void)ud;
	if (!answers_of || max < sizeof answers_of)
		return 0;
	memcpy(buf, &answers_of, sizeof answers_of);
	return sizeof answers_of;
}

static const struct og_binder binder = {
	.backend = "mali", .bind_raw = t_bind, .constant = t_constant,
	.answers_key = t_answers_key,
};

static const struct og_builtin_set *g71(void)
{
	const struct og_builtin_set *set = og_builtin_find("mali-g71");
	assert_non_null(set);
	return set;
}

static struct og_catalog_entry *get(struct og_catalog_cache *cache, struct og_catalog *cat)
{
	struct og_cf_file *files = malloc(sizeof(*files));
	assert_non_null(files);
	files[0] = g71()->file;
	const struct og_catalog_request req = {
		.backend = &backend_tag, .files = files, .nfiles = 1, .nbuiltin = 1,
		.binder = &binder,
	};
	struct og_catalog_entry *e = (struct og_catalog_entry *)1;
	char err[256];
	assert_int_equal(og_catalog_get(cache, &req, cat, &e, err, sizeof(err)), GPA_STATUS_OK);
	return e;
}

static const struct og_raw *raw_of(const struct og_catalog *cat, const char *source)
{
	for (size_t i = 0; i < cat->nraw; i++)
		if (strcmp(cat->raws[i].source, source) == 0)
			return &cat->raws[i];
	fail_msg("no raw counter with source %s", source);
	return NULL;
}

/* The first constant the file leaves to the backend. */
static double backend_constant(const struct og_catalog *cat)
{
	for (size_t i = 0; i < cat->nconst; i++)
		if (!cat->constants[i].decl->field[OG_F_VALUE])
			return cat->const_values[i];
	fail_msg("no constant without a value");
	return 0;
}

static void test_shared_while_answers_match(void **unused)
{
	(void)unused;
	struct og_catalog_cache cache = { 0 };
	struct og_catalog a, b, c, d;
	off_source = NULL;
	constant_value = 5;

	struct og_catalog_entry *ea = get(&cache, &a);
	assert_non_null(ea);
	struct og_catalog_entry *eb = get(&cache, &b);
	assert_ptr_equal(ea, eb); /* same answers: shared */
	assert_ptr_equal(a.counters, b.counters);
	assert_int_equal(a.ncounters, b.ncounters);
	size_t used;
	assert_int_equal(og_catalog_cache_count(&cache, &used), 1);
	assert_int_equal(used, 1);

	/* A raw counter stops binding: a catalogue of its own, where it is
	 * unavailable; the kept one is untouched. */
	const char *source = a.raws[0].source;
	off_source = source;
	struct og_catalog_entry *ec = get(&cache, &c);
	assert_non_null(ec);
	assert_ptr_not_equal(ec, ea);
	assert_false(raw_of(&c, source)->available);
	assert_true(raw_of(&a, source)->available);
	assert_true(c.nunavailable > a.nunavailable);

	/* Answers as the first again: the first catalogue. */
	off_source = NULL;
	struct og_catalog_entry *ed = get(&cache, &d);
	assert_ptr_equal(ed, ea);
	og_catalog_release(&cache, &d, ed);

	/* A constant's value changes: its own catalogue, with the new value. */
	constant_value = 7;
	ed = get(&cache, &d);
	assert_ptr_not_equal(ed, ea);
	assert_true(backend_constant(&d) == 7);
	assert_true(backend_constant(&a) == 5);
	og_catalog_release(&cache, &d, ed);

	og_catalog_release(&cache, &a, ea);
	og_catalog_release(&cache, &b, eb);
	og_catalog_release(&cache, &c, ec);
	assert_int_equal(og_catalog_cache_count(&cache, &used), 3);
	assert_int_equal(used, 0);
	/* Unused, still kept: the next open with the same answers takes it. */
	constant_value = 5;
	assert_ptr_equal(get(&cache, &a), ea);
	og_catalog_release(&cache, &a, ea);
	og_catalog_cache_trim(&cache);
	assert_int_equal(og_catalog_cache_count(&cache, NULL), 0);
	assert_null(cache.entries);
}

/* A binder's answers_key: the same bytes stand for every bind and constant
 * answer (none is asked again, so a change the key does not show is not
 * seen: the backend's promise); other bytes, or none, and every question
 * is asked as before. */
static void test_answers_key(void **unused)
{
	(void)unused;
	struct og_catalog_cache cache = { 0 };
	struct og_catalog a, b, c, d, e;
	off_source = NULL;
	constant_value = 5;
	answers_of = 1;

	struct og_catalog_entry *ea = get(&cache, &a);
	assert_non_null(ea);
	assert_true(binds > 0);
	/* Same key: taken without one bind. */
	binds = 0;
	struct og_catalog_entry *eb = get(&cache, &b);
	assert_ptr_equal(eb, ea);
	assert_int_equal(binds, 0);

	/* Other bytes: every question asked; the same answers still share. */
	answers_of = 2;
	struct og_catalog_entry *ec = get(&cache, &c);
	assert_ptr_equal(ec, ea);
	assert_true(binds > 0);

	/* Other bytes and another answer: a catalogue of its own. */
	const char *source = a.raws[0].source;
	off_source = source;
	answers_of = 3;
	struct og_catalog_entry *ed = get(&cache, &d);
	assert_ptr_not_equal(ed, ea);
	assert_false(raw_of(&d, source)->available);

	/* That catalogue's key again: taken, its answers not asked. */
	off_source = NULL;
	binds = 0;
	struct og_catalog_entry *ee = get(&cache, &e);
	assert_ptr_equal(ee, ed);
	assert_int_equal(binds, 0);
	assert_false(raw_of(&e, source)->available);
	og_catalog_release(&cache, &e, ee);

	/* No key: asked, and the first catalogue's answers are back. */
	answers_of = 0;
	ee = get(&cache, &e);
	assert_ptr_equal(ee, ea);
	assert_true(binds > 0);
	og_catalog_release(&cache, &e, ee);

	og_catalog_release(&cache, &a, ea);
	og_catalog_release(&cache, &b, eb);
	og_catalog_release(&cache, &c, ec);
	og_catalog_release(&cache, &d, ed);
	og_catalog_cache_trim(&cache);
	assert_int_equal(og_catalog_cache_count(&cache, NULL), 0);
}

/* Many devices one after another: at most OG_CATALOG_CACHE_UNUSED unused
 * catalogues stay; those in use always do. */
static void test_bounded(void **unused)
{
	(void)unused;
	struct og_catalog_cache cache = { 0 };
	struct og_catalog held, cat;
	off_source = NULL;
	constant_value = 1;
	struct og_catalog_entry *eh = get(&cache, &held);
	for (int i = 0; i < 20; i++) {
		constant_value = 100 + i;
		struct og_catalog_entry *e = get(&cache, &cat);
		assert_true(backend_constant(&cat) == 100 + i);
		og_catalog_release(&cache, &cat, e);
		size_t used, n = og_catalog_cache_count(&cache, &used);
		assert_int_equal(used, 1);
		assert_true(n <= 1 + OG_CATALOG_CACHE_UNUSED);
	}
	constant_value = 1;
	assert_true(backend_constant(&held) == 1);
	assert_ptr_equal(get(&cache, &cat), eh); /* in use: never dropped */
	og_catalog_release(&cache, &cat, eh);
	og_catalog_release(&cache, &held, eh);
	og_catalog_cache_trim(&cache);
	assert_null(cache.entries);
}

/* Built from text (og_catalog_text_only): never kept. */
static void test_text_not_kept(void **unused)
{
	(void)unused;
	struct og_catalog_cache cache = { 0 };
	struct og_catalog cat;
	og_catalog_text_only = true;
	struct og_catalog_entry *e = get(&cache, &cat);
	og_catalog_text_only = false;
	assert_null(e);
	assert_true(cat.ncounters > 0);
	og_catalog_release(&cache, &cat, e);
	assert_null(cache.entries);
}

/* ---- contexts on virtual devices -------------------------------------------- */

#define DEVICES 6

static const struct vmali_config configs[DEVICES] = {
	{ .core_mask = 0xFF, .l2_slices = 2 },                  /* Mali-G71 MP8 */
	{ .core_mask = 0x0F, .l2_slices = 1 },                  /* Mali-G71 MP4 */
	{ .core_mask = 0xF0, .l2_slices = 1 },                  /* MP4, other cores */
	{ .gpu_id = 0x6001, .core_mask = 0xFF, .l2_slices = 2 }, /* Mali-G72 MP8 */
	{ .core_mask = 0xFF, .l2_slices = 4 },                  /* G71 MP8, 4 slices */
	/* The first again on a driver before UK 11.27, whose reader reports no
	 * cycle counts: only the reader's own state differs (the Mali
	 * backend's answers_key must carry it). */
	{ .core_mask = 0xFF, .l2_slices = 2, .uk_major = 11, .uk_minor = 26 },
};

static struct vmali *vm[DEVICES];

struct view {
	gpa_uint32 n, unavailable;
	uint64_t names; /* a hash of every counter's name, in order */
	double cores, slices;
	const struct og_counter *counters;
	const struct og_catalog_entry *entry;
};

static double constant_named(const struct og_catalog *cat, const char *name)
{
	for (size_t i = 0; i < cat->nconst; i++)
		if (strcmp(cat->constants[i].decl->name, name) == 0)
			return cat->const_values[i];
	return -1;
}

static struct view view_current(void)
{
	struct view v = { 0 };
	assert_int_equal(GPA_GetNumCounters(&v.n), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_GetUnavailableCount(&v.unavailable), GPA_STATUS_OK);
	v.names = 1469598103934665603ull;
	for (gpa_uint32 i = 0; i < v.n; i++) {
		const char *s;
		assert_int_equal(GPA_GetCounterName(i, &s), GPA_STATUS_OK);
		for (; *s; s++)
			v.names = (v.names ^ (uint8_t)*s) * 1099511628211ull;
	}
	og_lock();
	const struct og_context *c = og_context_current();
	v.cores = constant_named(&c->cat, "MaliConstantsShaderCoreCount");
	v.slices = constant_named(&c->cat, "MaliConstantsL2SliceCount");
	v.counters = c->cat.counters;
	v.entry = c->cat_entry;
	og_unlock();
	return v;
}

static void use_mali(void)
{
	assert_int_equal(OpenGPA_SetBackend("mali", NULL), GPA_STATUS_OK);
}

/* Nothing open or kept; the next contexts on device d. */
static void fresh_on(int d)
{
	og_testing_reset();
	use_mali();
	og_testing_set_sys(vmali_sys(vm[d]));
}

static int setup_devices(void **unused)
{
	(void)unused;
	for (int d = 0; d < DEVICES; d++) {
		vm[d] = vmali_create(&configs[d]);
		if (!vm[d])
			return -1;
	}
	return 0;
}

static int teardown_devices(void **unused)
{
	(void)unused;
	og_testing_set_sys(NULL);
	og_testing_reset();
	for (int d = 0; d < DEVICES; d++)
		vmali_destroy(vm[d]);
	return 0;
}

static void assert_same_view(const struct view *a, const struct view *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->unavailable, b->unavailable);
	assert_true(a->names == b->names);
	assert_true(a->cores == b->cores);
	assert_true(a->slices == b->slices);
}

/* Several devices open at once in one process: each context has the
 * counters a process with only that device would give it. */
static void test_devices_get_their_own(void **unused)
{
	(void)unused;
	static int key[DEVICES], again[DEVICES];
	struct view alone[DEVICES], now[DEVICES], second[DEVICES];
	for (int d = 0; d < DEVICES; d++) {
		fresh_on(d); /* no catalogue kept */
		assert_int_equal(GPA_OpenContext(&key[d]), GPA_STATUS_OK);
		alone[d] = view_current();
		assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	}
	assert_true(alone[0].cores == 8 && alone[1].cores == 4 && alone[4].slices == 4);
	assert_true(alone[0].names != alone[3].names); /* G71 and G72 differ */

	og_testing_reset();
	use_mali();
	for (int d = 0; d < DEVICES; d++) {
		og_testing_set_sys(vmali_sys(vm[d]));
		assert_int_equal(GPA_OpenContext(&key[d]), GPA_STATUS_OK);
		now[d] = view_current();
		assert_int_equal(GPA_OpenContext(&again[d]), GPA_STATUS_OK);
		second[d] = view_current();
	}
	for (int d = 0; d < DEVICES; d++) {
		assert_int_equal(GPA_SelectContext(&key[d]), GPA_STATUS_OK);
		struct view v = view_current();
		assert_same_view(&v, &alone[d]);
		assert_same_view(&now[d], &alone[d]);
		assert_same_view(&second[d], &alone[d]);
		/* The second context on a device shares the first's catalogue. */
		assert_non_null(now[d].entry);
		assert_ptr_equal(second[d].entry, now[d].entry);
		assert_ptr_equal(second[d].counters, now[d].counters);
	}
	/* Devices that answer differently never share ... */
	assert_ptr_not_equal(now[0].entry, now[1].entry);
	assert_ptr_not_equal(now[0].entry, now[3].entry);
	assert_ptr_not_equal(now[0].entry, now[4].entry);
	assert_ptr_not_equal(now[0].entry, now[5].entry);
	assert_true(alone[5].unavailable > alone[0].unavailable);
	/* ... those that answer alike may (other cores, same count), while
	 * no per-instance counters are asked for ... */
	assert_ptr_equal(now[1].entry, now[2].entry);
	gpa_uint32 at;
	assert_int_not_equal(GPA_GetCounterIndex("ShaderCore3:FragmentActiveCycles", &at), 0);
	/* ... but with them, devices with as many cores at other bits do not:
	 * their per-core counters are named by the cores' bits (ShaderCore0..3
	 * on 0x0F, ShaderCore4..7 on 0xF0; docs/api.md, "Per-instance
	 * counters"), and neither shares the catalogue made without them. */
	static int inst[2];
	assert_int_equal(OpenGPA_SetInstanceCounters(1), GPA_STATUS_OK);
	og_testing_set_sys(vmali_sys(vm[1]));
	assert_int_equal(GPA_OpenContext(&inst[0]), GPA_STATUS_OK);
	struct view i1 = view_current();
	assert_int_equal(GPA_GetCounterIndex("ShaderCore3:FragmentActiveCycles", &at), 0);
	og_testing_set_sys(vmali_sys(vm[2]));
	assert_int_equal(GPA_OpenContext(&inst[1]), GPA_STATUS_OK);
	struct view i2 = view_current();
	assert_int_not_equal(GPA_GetCounterIndex("ShaderCore3:FragmentActiveCycles", &at), 0);
	assert_int_equal(GPA_GetCounterIndex("ShaderCore4:FragmentActiveCycles", &at), 0);
	assert_ptr_not_equal(i1.entry, i2.entry);
	assert_ptr_not_equal(i1.entry, now[1].entry);
	assert_ptr_not_equal(i2.entry, now[2].entry);
	assert_int_equal(OpenGPA_SetInstanceCounters(0), GPA_STATUS_OK);

	while (GPA_CloseContext() == GPA_STATUS_OK)
		;
	size_t used;
	assert_true(og_catalog_cache_count(&og_registry()->catalogs, &used) > 0);
	assert_int_equal(used, 0);
	assert_int_equal(GPA_Destroy(), GPA_STATUS_OK); /* frees them */
	assert_int_equal(og_catalog_cache_count(&og_registry()->catalogs, NULL), 0);
}

/* A constant the user sets is seen by the next open. */
static void test_user_constant(void **unused)
{
	(void)unused;
	static int key;
	fresh_on(0);
	double clock[3] = { 100e6, 200e6, 100e6 };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(OpenGPA_SetConstant("DeviceMaxClockHz", clock[i]), GPA_STATUS_OK);
		assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
		og_lock();
		double got = constant_named(&og_context_current()->cat, "DeviceMaxClockHz");
		og_unlock();
		assert_true(got == clock[i]);
		assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	}
}

static void write_file(const char *path, const char *name)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "counter %s\n    group: Test\n    usage: cycles\n    type: uint64\n"
	           "    description: A user's counter.\n    expression: MaliGPUCyclesGPUActive\n",
	        name);
	assert_int_equal(fclose(f), 0);
}

/* A user's counter file is read again by every open: an edit is seen. */
static void test_user_file_edited(void **unused)
{
	(void)unused;
	static int key;
	char path[] = "/tmp/opengpa-cache-XXXXXX.counters";
	int fd = mkstemps(path, 9);
	assert_true(fd >= 0);
	close(fd);
	fresh_on(0);
	assert_int_equal(setenv("OPENGPA_COUNTER_PATH", path, 1), 0);
	const char *names[2] = { "CacheTestFirst", "CacheTestSecond" };
	for (int i = 0; i < 2; i++) {
		write_file(path, names[i]);
		assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
		gpa_uint32 index;
		assert_int_equal(GPA_GetCounterIndex(names[i], &index), GPA_STATUS_OK);
		assert_int_not_equal(GPA_GetCounterIndex(names[1 - i], &index), GPA_STATUS_OK);
		og_lock();
		assert_null(og_context_current()->cat_entry); /* not kept */
		og_unlock();
		assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	}
	unsetenv("OPENGPA_COUNTER_PATH");
	unlink(path);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	gpa_uint32 index;
	assert_int_not_equal(GPA_GetCounterIndex(names[1], &index), GPA_STATUS_OK);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
}

static int described; /* the backend's line about the device was logged */

static void on_message(GPA_Logging_Type type, const char *msg)
{
	if ((type & GPA_LOGGING_MESSAGE) && strncmp(msg, "mali: Mali-G71", 14) == 0 &&
	    strstr(msg, "counters through"))
		described++;
}

/* The backend describes the device only for someone listening (its
 * host's log_wants), and still does for them. */
static void test_described_when_listened_to(void **unused)
{
	(void)unused;
	static int key;
	fresh_on(0);
	described = 0;
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_MESSAGE, on_message),
	                 GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL), GPA_STATUS_OK);
	assert_int_equal(described, 1);
}

/* ---- threads ------------------------------------------------------------------- */

#define THREADS 4
#define ROUNDS 150

static size_t expected_counters;
static unsigned thread_errors; /* atomic */

static void *open_close(void *arg)
{
	(void)arg;
	int key; /* this thread's contexts */
	for (int i = 0; i < ROUNDS; i++) {
		struct og_context *ctx;
		og_lock();
		GPA_Status st = og_context_open(OG_FRONT_GPA2, &key, NULL, &ctx);
		bool ok = st == GPA_STATUS_OK && ctx->cat.ncounters == expected_counters &&
		          ctx->cat.counters[ctx->cat.ncounters - 1].name != NULL;
		if (st == GPA_STATUS_OK)
			og_context_close(ctx);
		og_unlock();
		if (!ok)
			__atomic_add_fetch(&thread_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_threads_open_close(void **unused)
{
	(void)unused;
	static int key;
	fresh_on(0);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	gpa_uint32 n;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	expected_counters = n;
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, open_close, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(thread_errors, 0);
	/* One catalogue served them all, and the context held throughout is
	 * whole. */
	size_t used;
	assert_int_equal(og_catalog_cache_count(&og_registry()->catalogs, &used), 1);
	assert_int_equal(used, 1);
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	assert_int_equal(n, expected_counters);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_while_answers_match),
		cmocka_unit_test(test_answers_key),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_text_not_kept),
		cmocka_unit_test(test_devices_get_their_own),
		cmocka_unit_test(test_user_constant),
		cmocka_unit_test(test_user_file_edited),
		cmocka_unit_test(test_described_when_listened_to),
		cmocka_unit_test(test_threads_open_close),
	};
	return cmocka_run_group_tests(tests, setup_devices, teardown_devices);
}
