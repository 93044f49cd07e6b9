/* SPDX-License-Identifier: MIT */
/*
 * The OpenMetrics writer (tools/opengpa/output/openmetrics.h) on hostile
 * input: counter names that are not metric names, two counters whose names
 * meet, label values with quotes, backslashes and line breaks, series with
 * no value yet, and the two formats' differences; and --listen's
 * ADDR:PORT parser.  test_prometheus.py
 * checks the same writer against Prometheus and promtool.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "openmetrics.h"
#include "stat.h"

static void names_follow_the_python_exporter(void **state)
{
	(void)state;
	/* python/opengpa/exporter.py's metric_name() on the same inputs. */
	static const char *const cases[][2] = {
		{ "GPUActiveCycles", "opengpa_gpu_active_cycles" },
		{ "L2CacheReadMissPercentage", "opengpa_l2_cache_read_miss_percentage" },
		{ "TaskClock", "opengpa_task_clock" },
		{ "L1D_TLB_REFILL", "opengpa_l1_d_tlb_refill" },
		{ "cpu-cycles", "opengpa_cpu_cycles" },
		{ "ABcDEf", "opengpa_a_bc_d_ef" },
		{ "__x__", "opengpa_x" },
		{ "a  b\xc3\xa9\n\"c", "opengpa_a_b_c" },
		{ "", "opengpa_counter" },
		{ "%%%", "opengpa_counter" },
		{ "9Lives", "opengpa_9_lives" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[OM_NAME_MAX];
		om_metric_name(cases[i][0], out, sizeof out);
		assert_string_equal(out, cases[i][1]);
	}
	char tiny[12];
	om_metric_name("GPUActiveCycles", tiny, sizeof tiny);
	assert_string_equal(tiny, "opengpa_gpu");
}

static const struct tl_series series[] = {
	{ .name = "GPUActive", .group = "GPU \"Usage\"\\x\ny", .unit = "cycles", .usage = "cycles" },
	{ .name = "GPU_Active", .group = "g", .unit = "cycles", .usage = "cycles" },
	{ .name = "Busy", .group = "g", .unit = "%", .usage = "percentage" },
	{ .name = "Idle", .group = "g", .unit = "%", .usage = "percentage" },
	{ .name = "Reads", .group = "g", .unit = "B", .usage = "bytes" },
};
static const struct tl_run run = { .device = "Mali-G710 MC10", .backend = "mali",
	                           .series = series, .nseries = 5 };

static void colliding_names_made_unique(void **state)
{
	(void)state;
	struct om_family f[5];
	om_families(&run, f);
	assert_string_equal(f[0].name, "opengpa_gpu_active");
	assert_string_equal(f[1].name, "opengpa_gpu_active_2");
	assert_false(f[0].gauge);
	assert_true(f[2].gauge);
	assert_null(f[0].unit);            /* the name does not end with it */
	assert_null(f[4].unit);
	static const struct tl_series c[] = {
		{ .name = "ActiveCycles", .usage = "cycles" },
		{ .name = "Active", .usage = "cycles" },
		{ .name = "ActiveTotal", .usage = "cycles" }, /* opengpa_active's sample */
	};
	struct tl_run r = { .series = c, .nseries = 3 };
	struct om_family g[3];
	om_families(&r, g);
	assert_string_equal(g[0].unit, "cycles");
	assert_string_equal(g[1].name, "opengpa_active");
	assert_string_equal(g[2].name, "opengpa_active_total_2");
}

static void render_both_formats(void **state)
{
	(void)state;
	struct om_family f[5];
	om_families(&run, f);
	const double latest[] = { 10, 20, 55.5, NAN, 4096 };
	const double totals[] = { 100, 200, 0, 0, 1e20 };
	const uint32_t counted[] = { 3, 3, 3, 0, 0 };
	const char *help[] = { "line\nbreak \\ \"q\"", NULL, NULL, NULL, NULL };
	struct om_values v = { .instance = "board-1", .help = help, .latest = latest,
		               .totals = totals, .counted = counted, .intervals = 3 };
	struct om_text om = { 0 }, text = { 0 };
	assert_int_equal(om_render(&om, &run, f, &v, OM_OPENMETRICS), 0);
	assert_int_equal(om_render(&text, &run, f, &v, OM_PROMETHEUS), 0);
	assert_non_null(strstr(om.data, "# TYPE opengpa_gpu_active counter\n"));
	assert_non_null(strstr(om.data, "# HELP opengpa_gpu_active line\\nbreak \\\\ \\\"q\\\" "
	                                "(cycles)\n"));
	assert_non_null(strstr(om.data, "opengpa_gpu_active_total{backend=\"mali\",counter="
	                                "\"GPUActive\",device=\"Mali-G710 MC10\",group=\"GPU "
	                                "\\\"Usage\\\"\\\\x\\ny\",instance=\"board-1\"} 100\n"));
	assert_non_null(strstr(om.data, "opengpa_gpu_active_last_interval{"));
	assert_non_null(strstr(om.data, "} 55.5\n"));
	assert_null(strstr(om.data, "opengpa_idle"));  /* no value yet */
	assert_null(strstr(om.data, "opengpa_reads")); /* not counted yet */
	assert_non_null(strstr(om.data, "opengpa_intervals_total{backend=\"mali\",device="
	                                "\"Mali-G710 MC10\",instance=\"board-1\"} 3\n# EOF\n"));
	size_t n = strlen(om.data);
	assert_true(n >= 6 && strcmp(om.data + n - 6, "# EOF\n") == 0);
	/* 0.0.4: TYPE on the sample's name, quotes kept in HELP, no EOF. */
	assert_non_null(strstr(text.data, "# TYPE opengpa_gpu_active_total counter\n"));
	assert_non_null(strstr(text.data, "# HELP opengpa_gpu_active_total line\\nbreak \\\\ "
	                                  "\"q\" (cycles)\n"));
	assert_null(strstr(text.data, "# EOF"));
	assert_null(strstr(text.data, "# UNIT"));
	om_text_free(&om);
	om_text_free(&text);
	/* Shortest round trip, and a big total as an exponent. */
	const uint32_t all[] = { 1, 1, 1, 1, 1 };
	v.counted = all;
	assert_int_equal(om_render(&text, &run, f, &v, OM_PROMETHEUS), 0);
	assert_non_null(strstr(text.data, "} 1e+20\n"));
	assert_non_null(strstr(text.data, "} 4096\n"));
	om_text_free(&text);
}

/* --per-core's copies join their counter's family with a block label; a
 * copy listed before its counter, copies without their counter in the run,
 * and perf's "cycles:u" (no instance number before the colon). */
static void instances_are_labels(void **state)
{
	(void)state;
	static const struct tl_series c[] = {
		{ .name = "ShaderCore1:FragmentActiveCycles", .usage = "cycles" },
		{ .name = "FragmentActiveCycles", .usage = "cycles" },
		{ .name = "Busy", .usage = "percentage" },
		{ .name = "ShaderCore0:FragmentActiveCycles", .usage = "cycles" },
		{ .name = "L2Slice1:ReadLookups", .usage = "items" },
		{ .name = "L2Slice0:ReadLookups", .usage = "items" },
		{ .name = "cycles:u", .usage = "cycles" },
		{ .name = "ShaderCore1:Busy", .usage = "percentage" },
	};
	struct tl_run r = { .backend = "mali", .series = c, .nseries = 8 };
	struct om_family f[8];
	om_families(&r, f);
	for (size_t i = 0; i < 4; i += 3) {
		assert_string_equal(f[i].name, "opengpa_fragment_active_cycles");
		assert_string_equal(f[i].counter, "FragmentActiveCycles");
		assert_int_equal(f[i].first, 0);
	}
	assert_string_equal(f[0].block, "ShaderCore1");
	assert_string_equal(f[1].block, "");
	assert_int_equal(f[0].next, 1);
	assert_int_equal(f[1].next, 3);
	assert_int_equal(f[3].next, SIZE_MAX);
	assert_string_equal(f[4].name, "opengpa_read_lookups");
	assert_string_equal(f[5].name, "opengpa_read_lookups");
	assert_int_equal(f[5].first, 4);
	assert_string_equal(f[6].name, "opengpa_cycles_u");
	assert_string_equal(f[6].block, "");
	assert_string_equal(f[7].name, "opengpa_busy");
	assert_true(f[7].gauge);
	assert_int_equal(f[7].first, 2);

	const double latest[] = { 1, 2, 50, 3, 4, 5, 6, NAN };
	const double totals[] = { 10, 20, 0, 30, 40, 50, 60, 0 };
	const uint32_t counted[] = { 1, 1, 1, 1, 1, 0, 1, 1 };
	struct om_values v = { .latest = latest, .totals = totals, .counted = counted,
		               .intervals = 1 };
	struct om_text t = { 0 };
	assert_int_equal(om_render(&t, &r, f, &v, OM_PROMETHEUS), 0);
	assert_non_null(strstr(t.data,
		"# TYPE opengpa_fragment_active_cycles_total counter\n"
		"# HELP opengpa_fragment_active_cycles_total FragmentActiveCycles\n"
		"opengpa_fragment_active_cycles_total{backend=\"mali\",block=\"ShaderCore1\","
		"counter=\"FragmentActiveCycles\"} 10\n"
		"opengpa_fragment_active_cycles_total{backend=\"mali\",counter="
		"\"FragmentActiveCycles\"} 20\n"
		"opengpa_fragment_active_cycles_total{backend=\"mali\",block=\"ShaderCore0\","
		"counter=\"FragmentActiveCycles\"} 30\n"
		"# TYPE opengpa_fragment_active_cycles_last_interval gauge\n"));
	/* One TYPE a family; a copy without a value yet left out. */
	const char *type = strstr(t.data, "# TYPE opengpa_read_lookups_total");
	assert_non_null(type);
	assert_null(strstr(type + 1, "# TYPE opengpa_read_lookups_total"));
	assert_null(strstr(t.data, "block=\"L2Slice0\",counter=\"ReadLookups\"} 50"));
	assert_null(strstr(t.data, "block=\"ShaderCore1\",counter=\"Busy\""));
	assert_non_null(strstr(t.data, "opengpa_cycles_u_total{backend=\"mali\",counter="
	                               "\"cycles:u\"} 60\n"));
	om_text_free(&t);
}

static void listen_addresses(void **state)
{
	(void)state;
	static const struct {
		const char *text, *host;
		unsigned port;
		bool v6;
	} good[] = {
		{ "127.0.0.1:0", "127.0.0.1", 0, false },
		{ "0.0.0.0:65535", "0.0.0.0", 65535, false },
		{ "[::1]:9464", "::1", 9464, true },
		{ "[::]:1", "::", 1, true },
		{ "[fe80::1:2]:80", "fe80::1:2", 80, true },
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		char host[64];
		unsigned port = 7;
		bool v6 = !good[i].v6;
		assert_true(stat_parse_listen(good[i].text, host, sizeof host, &port, &v6));
		assert_string_equal(host, good[i].host);
		assert_int_equal(port, good[i].port);
		assert_int_equal(v6, good[i].v6);
	}
	static const char *const bad[] = {
		"::1:9464", "localhost:9464", "127.0.0.1:", ":9464", "127.0.0.1:65536",
		"[::1]", "[]:1", "127.0.0.1:+1", "127.0.0.1: 1", "1.2.3.4.5:1", "[127.0.0.1]:1",
		"127.0.0.1", "", ":", "[::1:1", "::1]:1", "127.0.0.1:99999999999999999999",
		"[0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0001]:1",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char host[64];
		unsigned port;
		bool v6;
		assert_false(stat_parse_listen(bad[i], host, sizeof host, &port, &v6));
	}
	char tiny[4];
	unsigned port;
	bool v6;
	assert_false(stat_parse_listen("127.0.0.1:1", tiny, sizeof tiny, &port, &v6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_follow_the_python_exporter),
		cmocka_unit_test(colliding_names_made_unique),
		cmocka_unit_test(render_both_formats),
		cmocka_unit_test(instances_are_labels),
		cmocka_unit_test(listen_addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
