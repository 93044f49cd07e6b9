/* SPDX-License-Identifier: MIT */
/*
 * test_perf_pfm.c — CPU events by name: libpfm4's tables, the sysfs
 * fallback, and what is said when neither knows a name.
 *
 * libpfm4 decides once per process which core it is on, so each case is a
 * program run of its own, chosen by argv[1] (tests/backends/perf/meson.build
 * sets LIBPFM_FORCE_PMU for it):
 *
 *   model    a core model named by LIBPFM_FORCE_PMU (skl on x86, arm_n2 on
 *            arm64): encodings of known events, the kernel gets them, the
 *            catalogue lists them, refusals say why;
 *   arm      Arm's Neoverse N2 by name, where this libpfm4 has Arm tables:
 *            every event of counters/neoverse-n2.counters has the code
 *            libpfm4 gives it (skipped on builds without them);
 *   real     whatever libpfm4 finds on this machine (skipped where it
 *            knows no core PMU), and another core's event refused by name;
 *   unknown  a CPU libpfm4 does not know: names come from sysfs;
 *   absent   the backend built without libpfm4 (perf_pfm_absent.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "fake_perf.h"
#include "perf/perf_internal.h"

#ifndef OG_TEST_PFM_ABSENT
#include <perfmon/pfmlib_perf_event.h>
#include <strings.h>

#include "catalog/counterfile.h"
#endif

extern const struct og_backend_ops og_backend_perf;
static const struct og_backend_ops *ops = &og_backend_perf;

#define PMU "/sys/bus/event_source/devices/"

static struct fake_perf K;
static struct fake_log L;
static struct og_backend_host H;
static struct og_device_info I;
static void *S;

static int setup(void **unused)
{
	(void)unused;
	fake_perf_init(&K);
	fake_host_init(&H, &K, &L);
	K.pmu = true;
	K.hw_slots = 4;
	S = NULL;
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	if (S)
		ops->close(S);
	S = NULL;
	assert_int_equal(fake_perf_open_fds(&K), 0);
	fake_perf_free(&K);
	assert_int_equal(K.file_opens, K.file_closes);
	return 0;
}

static void open_backend(void)
{
	assert_int_equal(ops->open(&H, "", &S, &I), GPA_STATUS_OK);
}



static const struct og_perf_bound *bound(uint32_t id)
{
	const struct og_perf_state *st = S;
	assert_true(id < st->nbound);
	return &st->bound[id];
}

/* Binds source; returns the raw id, or UINT32_MAX with *why set. */
static uint32_t bind_or_why(const char *source, GPA_Status want, const char **why)
{
	uint32_t id = UINT32_MAX;
	*why = NULL;
	GPA_Status s = ops->bind_raw(S, "X", source, &id, why);
	if (s != want)
		fail_msg("bind_raw(%s) gave %d, not %d (why: %s; log: %s)", source, s, want,
		         *why ? *why : "-", L.all);
	return id;
}

static uint32_t bind_ok(const char *source)
{
	const char *why;
	return bind_or_why(source, GPA_STATUS_OK, &why);
}

static void assert_contains(const char *text, const char *needle)
{
	if (!text || !strstr(text, needle))
		fail_msg("\"%s\" lacks \"%s\"", text ? text : "(null)", needle);
}

static const struct og_raw_desc *find_desc(const char *name)
{
	size_t n = 0;
	const struct og_raw_desc *d = ops->extra_raw(S, &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return &d[i];
	return NULL;
}

/* An Arm core PMU in sysfs, as the kernel's arm_pmuv3 driver shows one. */
static void add_arm_sysfs(void)
{
	fake_perf_set_file(&K, PMU "armv8_pmuv3_0/type", "8\n");
	fake_perf_set_file(&K, PMU "armv8_pmuv3_0/format/event", "config:0-15\n");
	fake_perf_set_file(&K, PMU "armv8_pmuv3_0/events/l1d_tlb_refill", "event=0x0005\n");
}

/* STALL_SLOT, which the fake sysfs lacks, is refused saying `libpfm4` (why
 * libpfm4 could not name it), that sysfs was asked, and to use the code;
 * pfm: asks libpfm4 alone. */
static void check_unnamed(const char *libpfm4)
{
	const char *why;
	bind_or_why("STALL_SLOT", GPA_STATUS_ERROR_NOT_FOUND, &why);
	assert_contains(why, libpfm4);
	assert_contains(why, "sysfs aliases");
	assert_contains(why, "raw:0xNN");
	bind_or_why("pfm:L1D_TLB_REFILL", GPA_STATUS_ERROR_NOT_FOUND, &why);
	assert_contains(why, libpfm4);
}

/* ---- absent: built without libpfm4 ---------------------------------------- */

static void test_absent_sysfs_only(void **unused)
{
	(void)unused;
	add_arm_sysfs();
	open_backend();
	/* The kernel's alias still names the event... */
	uint32_t id = bind_ok("L1D_TLB_REFILL");
	assert_int_equal(bound(id)->type, 8);
	assert_int_equal(bound(id)->config, 5);
	assert_int_equal(bound(id)->kind, OG_PERF_KIND_HW);
	/* ...and what it does not name is refused with how to get libpfm4. */
	check_unnamed("built without libpfm4");
	/* Codes need no name. */
	assert_int_equal(bound(bind_ok("raw:0x3f"))->config, 0x3f);
	/* The catalogue has the sysfs alias and nothing of libpfm4's. */
	assert_non_null(find_desc("sysfs_armv8_pmuv3_0_l1d_tlb_refill"));
	assert_null(find_desc("L1D_TLB_REFILL"));
}

#ifndef OG_TEST_PFM_ABSENT

/* With natives=all: the catalogue lists every libpfm4 event of this CPU. */
static void open_backend_natives(void)
{
	assert_int_equal(ops->open(&H, "natives=all", &S, &I), GPA_STATUS_OK);
}

/* libpfm4 as a name look-up would find it: loaded, this CPU's PMUs noted. */
static struct og_perf_state *pfm_state(void)
{
	og_perf_pfm_load(S);
	return S;
}

/* ---- model: a core model by name ------------------------------------------ */

struct model {
	const char *pmu;          /* LIBPFM_FORCE_PMU */
	const char *event;        /* libpfm4's spelling */
	const char *perf_event;   /* the same in perf's spelling */
	const char *counter;      /* its name in the catalogue */
	uint64_t config;          /* its encoding */
	const char *needs_umask;  /* an event refused without a unit mask, or NULL */
	const char *foreign;      /* an event of another architecture */
};

#if defined(__x86_64__) || defined(__i386__)
static const struct model M = { "skl", "INST_RETIRED:ANY_P", "inst_retired.any_p",
	                         "INST_RETIRED_ANY_P", 0xc0, "CYCLE_ACTIVITY", "L1D_TLB_REFILL" };
#elif defined(__aarch64__)
static const struct model M = { "arm_n2", "L1D_TLB_REFILL", "l1d_tlb_refill",
	                         "L1D_TLB_REFILL", 0x05, NULL, "INST_RETIRED:ANY_P" };
#else
static const struct model M = { "", "", "", "", 0, NULL, "" };
#endif

static void skip_without_model(void)
{
	const struct og_perf_state *st = pfm_state();
	if (!M.pmu[0] || strcmp(st->pfm_pmus, M.pmu) != 0) {
		fprintf(stderr, "libpfm4 did not take the %s model here (it has: '%s', %s); "
		        "skipped\n", M.pmu[0] ? M.pmu : "(none for this architecture)",
		        st->pfm_pmus, st->pfm_why ? st->pfm_why : "");
		skip();
	}
}

static void test_model_encodings(void **unused)
{
	(void)unused;
	open_backend();
	skip_without_model();
	/* libpfm4's spelling, perf's, and pfm: with the PMU named. */
	char pfm[128];
	snprintf(pfm, sizeof pfm, "pfm:%s::%s", M.pmu, M.event);
	uint32_t ids[3] = { bind_ok(M.event), bind_ok(M.perf_event), bind_ok(pfm) };
	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(bound(ids[k])->type, PERF_TYPE_RAW);
		assert_int_equal(bound(ids[k])->config, M.config);
		assert_int_equal(bound(ids[k])->kind, OG_PERF_KIND_HW);
	}
	uint32_t a = ids[0];
	/* The kernel gets libpfm4's encoding with the backend's own policy:
	 * one group, exclusions as the probe found them. */
	assert_int_equal(ops->begin_pass(S, &a, 1), GPA_STATUS_OK);
	struct fake_event *e = fake_perf_find(&K, PERF_TYPE_RAW, M.config);
	assert_non_null(e);
	const struct og_perf_state *st = S;
	assert_int_equal(e->attr.exclude_kernel, st->exclude_kernel);
	assert_int_equal(ops->begin_sample(S), GPA_STATUS_OK);
	uint64_t v = 0;
	assert_int_equal(ops->end_sample(S, &v), GPA_STATUS_OK);
	assert_true(v > 0);
	assert_int_equal(ops->end_pass(S), GPA_STATUS_OK);
}

static void test_model_refusals(void **unused)
{
	(void)unused;
	open_backend();
	skip_without_model();
	const char *why;
	/* Another architecture's event: neither libpfm4 nor sysfs knows it. */
	bind_or_why(M.foreign, GPA_STATUS_ERROR_NOT_FOUND, &why);
	assert_contains(why, "libpfm4 knows no event");
	assert_contains(why, M.pmu);
	assert_contains(why, "sysfs aliases");
	if (M.needs_umask) {
		bind_or_why(M.needs_umask, GPA_STATUS_ERROR_NOT_FOUND, &why);
		assert_contains(why, "libpfm4 refused");
	}
	/* pfm: asks libpfm4 alone. */
	bind_or_why("pfm:NO_SUCH_EVENT_ANYWHERE", GPA_STATUS_ERROR_NOT_FOUND, &why);
	assert_contains(why, "libpfm4 knows no event NO_SUCH_EVENT_ANYWHERE");
	/* Not a name at all: the counter file is wrong, and the log says how. */
	bind_or_why("two words", GPA_STATUS_ERROR_FAILED, &why);
	assert_contains(L.all, "unknown source 'two words'");
}

static void test_model_catalogue(void **unused)
{
	(void)unused;
	open_backend_natives();
	skip_without_model();
	size_t n = 0;
	const struct og_raw_desc *d = ops->extra_raw(S, &n);
	assert_true(n > 50);
	const struct og_raw_desc *ev = find_desc(M.counter);
	assert_non_null(ev);
	assert_null(ev->why_not);
	assert_true(strlen(ev->description) > 10);
	assert_int_equal(bound(ev->raw_id)->config, M.config);
	/* Names are unique: the core needs them so. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcasecmp(d[i].name, d[j].name) == 0)
				fail_msg("%s listed twice", d[i].name);
	fprintf(stderr, "%zu events of %s listed\n", n, M.pmu);
}

/* An event the kernel refuses is listed, not offered. */
static void test_model_catalogue_refused(void **unused)
{
	(void)unused;
	K.open_fail_errno = ENOENT;
	K.open_fail_match = true;
	K.open_fail_type = PERF_TYPE_RAW;
	K.open_fail_config = M.config;
	open_backend_natives();
	skip_without_model();
	const struct og_raw_desc *ev = find_desc(M.counter);
	assert_non_null(ev);
	assert_contains(ev->why_not, "perf_event_open refused this event here");
}

static void test_model_catalogue_no_pmu(void **unused)
{
	(void)unused;
	K.pmu = false;
	open_backend_natives();
	skip_without_model();
	const struct og_raw_desc *ev = find_desc(M.counter);
	assert_non_null(ev);
	assert_contains(ev->why_not, "no hardware PMU");
	const char *why;
	bind_or_why(M.event, GPA_STATUS_ERROR_NOT_FOUND, &why);
	assert_contains(why, "no hardware PMU");
}

/* A plain open, its catalogue and the sources of the built-in sets never
 * ask libpfm4 (issue 29: its table walked on every open cost ~6 ms); an
 * event named in a counter file (or by opengpa stat -e) is looked up by its
 * name, in libpfm4's spelling or the catalogue's. */
static void test_model_lazy(void **unused)
{
	(void)unused;
	open_backend();
	size_t n = 0;
	assert_non_null(ops->extra_raw(S, &n));
	assert_null(find_desc(M.counter));
	uint32_t sw = bind_ok("sw:task-clock");
	bind_ok("time:enabled");
	assert_int_equal(ops->begin_pass(S, &sw, 1), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(S), GPA_STATUS_OK);
	uint64_t v = 0;
	assert_int_equal(ops->end_sample(S, &v), GPA_STATUS_OK);
	assert_int_equal(ops->end_pass(S), GPA_STATUS_OK);
	const struct og_perf_state *st = S;
	assert_false(st->pfm_asked);
	assert_int_equal(st->pfm_lookups, 0);
	assert_null(strstr(L.all, "libpfm4"));
	/* The catalogue's spelling, then libpfm4's, each one look-up. */
	uint32_t id = bind_ok(M.counter);
	skip_without_model();
	assert_true(st->pfm_lookups >= 1);
	assert_int_equal(bound(id)->type, PERF_TYPE_RAW);
	assert_int_equal(bound(id)->config, M.config);
	unsigned before = st->pfm_lookups;
	assert_int_equal(bound(bind_ok(M.event))->config, M.config);
	assert_int_equal(st->pfm_lookups, before + 1);
	assert_contains(L.all, "libpfm4 names this CPU's events");
}

/* natives= is an open option: the list is made once per open. */
static void test_model_natives_option(void **unused)
{
	(void)unused;
	assert_int_equal(ops->open(&H, "natives=some", &S, &I), GPA_STATUS_ERROR_FAILED);
	assert_contains(L.all, "natives=all");
	open_backend();
	assert_int_equal(ops->set_option(S, "natives", "all"), GPA_STATUS_ERROR_FAILED);
	assert_contains(L.all, "before GPA_OpenContext");
}

/* ---- arm: Neoverse N2 by name --------------------------------------------- */

static void test_arm_n2_codes(void **unused)
{
	(void)unused;
	pfm_pmu_info_t info;
	memset(&info, 0, sizeof info);
	info.size = sizeof info;
	open_backend();
	if (pfm_get_pmu_info(PFM_PMU_ARM_N2, &info) != PFM_SUCCESS) {
		fprintf(stderr, "this libpfm4 build has no Arm Neoverse N2 tables (libpfm4 builds "
		        "for x86 carry x86 models only); skipped\n");
		skip();
	}
	const struct og_perf_state *st = pfm_state();
	if (strcmp(st->pfm_pmus, "arm_n2") != 0) {
		fprintf(stderr, "libpfm4 did not take the arm_n2 model (it has '%s'); skipped\n",
		        st->pfm_pmus);
		skip();
	}
	char path[512], err[256];
	struct og_cf_file file;
	snprintf(path, sizeof path, "%s/neoverse-n2.counters", OG_PERF_COUNTERS_DIR);
	if (!og_cf_load(path, &file, err, sizeof err))
		fail_msg("%s", err);
	size_t checked = 0;
	for (size_t i = 0; i < file.count; i++) {
		const struct og_cf_entry *e = &file.entries[i];
		if (e->kind != OG_CF_RAW)
			continue;
		/* libpfm4's code for Arm's event name is the file's raw:CODE. */
		uint32_t id = bind_ok(e->name);
		char want[32];
		snprintf(want, sizeof want, "raw:0x%llx", (unsigned long long)bound(id)->config);
		if (strcmp(want, e->field[OG_F_SOURCE]) != 0)
			fail_msg("%s: libpfm4 encodes 0x%llx, the file says %s", e->name,
			         (unsigned long long)bound(id)->config, e->field[OG_F_SOURCE]);
		checked++;
	}
	og_cf_free(&file);
	fprintf(stderr, "%zu Neoverse N2 events agree with libpfm4's arm_n2 table\n", checked);
}

/* ---- real: this machine ------------------------------------------------------ */

static void first_native(void *arg, const char *event, const char *name, const char *desc)
{
	(void)name;
	(void)desc;
	char *out = arg;
	if (!out[0])
		snprintf(out, 256, "%s", event);
}

static void test_real_cpu(void **unused)
{
	(void)unused;
	K.pmu = true;
	open_backend();
	struct og_perf_state *st = pfm_state();
	if (!st->pfm_pmus[0]) {
		fprintf(stderr, "libpfm4 knows no core PMU on this machine (%s); skipped\n",
		        st->pfm_why ? st->pfm_why : "");
		skip();
	}
	fprintf(stderr, "libpfm4 finds PMU %s here\n", st->pfm_pmus);
	char event[256] = "";
	og_perf_pfm_each(st, first_native, event);
	assert_true(event[0] != '\0');
	uint32_t id = bind_ok(event);
	assert_int_equal(bound(id)->kind, OG_PERF_KIND_HW);
	/* An event another core of libpfm4's tables has and this one lacks is
	 * refused with that core's name. */
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof info);
		info.size = sizeof info;
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE)
			continue;
		for (int idx = info.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			pfm_event_info_t ev;
			memset(&ev, 0, sizeof ev);
			ev.size = sizeof ev;
			if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT, &ev) != PFM_SUCCESS)
				continue;
			if (pfm_find_event(ev.name) >= 0)
				continue; /* this CPU has one of that name */
			const char *why;
			bind_or_why(ev.name, GPA_STATUS_ERROR_NOT_FOUND, &why);
			assert_contains(why, "in libpfm4's tables, not of this CPU");
			assert_contains(why, info.name);
			fprintf(stderr, "%s: %s\n", ev.name, why);
			return;
		}
	}
	fprintf(stderr, "no event of another core to refuse here\n");
}

/* ---- unknown: a CPU libpfm4 does not know ------------------------------------ */

static void test_unknown_cpu(void **unused)
{
	(void)unused;
	add_arm_sysfs();
	open_backend();
	const struct og_perf_state *st = pfm_state();
	assert_string_equal(st->pfm_pmus, "");
	assert_contains(st->pfm_why, "libpfm4 does not know this CPU");
	uint32_t id = bind_ok("L1D_TLB_REFILL");
	assert_int_equal(bound(id)->type, 8);
	assert_int_equal(bound(id)->config, 5);
	check_unnamed("libpfm4 does not know this CPU");
	/* Nothing of libpfm4's in the catalogue: the sysfs alias only. */
	assert_non_null(find_desc("sysfs_armv8_pmuv3_0_l1d_tlb_refill"));
	assert_null(find_desc("L1D_TLB_REFILL"));
}

#endif /* OG_TEST_PFM_ABSENT */

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

#ifndef OG_TEST_PFM_ABSENT
/* The core PMU libpfm4 finds here ("" for none); meson shows a case whose
 * model this libpfm4 lacks as skipped (exit 77), with the reason. */
static const char *present_core_pmu(void)
{
	static char name[64];
	name[0] = '\0';
	if (pfm_initialize() != PFM_SUCCESS)
		return name;
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof info);
		info.size = sizeof info;
		if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && info.is_present &&
		    info.type == PFM_PMU_TYPE_CORE && !name[0])
			snprintf(name, sizeof name, "%s", info.name);
	}
	return name;
}

static int skipped(const char *why)
{
	fprintf(stderr, "skipped: %s\n", why);
	return 77;
}
#endif

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "";
	if (strcmp(which, "absent") == 0) {
		const struct CMUnitTest tests[] = { T(test_absent_sysfs_only) };
		return cmocka_run_group_tests_name("perf-pfm-absent", tests, NULL, NULL);
	}
#ifndef OG_TEST_PFM_ABSENT
	if (strcmp(which, "model") == 0) {
		if (!M.pmu[0] || strcmp(present_core_pmu(), M.pmu) != 0)
			return skipped("this libpfm4 has no core model to force for this architecture");
		const struct CMUnitTest tests[] = {
			T(test_model_encodings),       T(test_model_refusals),
			T(test_model_catalogue),       T(test_model_catalogue_refused),
			T(test_model_catalogue_no_pmu), T(test_model_lazy),
			T(test_model_natives_option),
		};
		return cmocka_run_group_tests_name("perf-pfm-model", tests, NULL, NULL);
	}
	if (strcmp(which, "arm") == 0) {
		if (strcmp(present_core_pmu(), "arm_n2") != 0)
			return skipped("this libpfm4 build has no Arm Neoverse N2 tables (a build for "
			               "x86 carries x86 models only)");
		const struct CMUnitTest tests[] = { T(test_arm_n2_codes) };
		return cmocka_run_group_tests_name("perf-pfm-arm", tests, NULL, NULL);
	}
	if (strcmp(which, "real") == 0) {
		if (!present_core_pmu()[0])
			return skipped("libpfm4 knows no core PMU on this machine");
		const struct CMUnitTest tests[] = { T(test_real_cpu) };
		return cmocka_run_group_tests_name("perf-pfm-real", tests, NULL, NULL);
	}
	if (strcmp(which, "unknown") == 0) {
		const struct CMUnitTest tests[] = { T(test_unknown_cpu) };
		return cmocka_run_group_tests_name("perf-pfm-unknown", tests, NULL, NULL);
	}
#endif
	fprintf(stderr, "usage: %s absent|model|arm|real|unknown\n", argv[0]);
	return 2;
}
