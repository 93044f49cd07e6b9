/* SPDX-License-Identifier: MIT */
/*
 * test_perf_spe.c — SPE: the packet decoder on every packet type and on
 * damaged bytes, the counts made from records, and the perf backend's SPE
 * counters over the simulated arm_spe PMU (fake_spe.c): buffers mapped and
 * read as the kernel lays them out, aux wrap, truncation, collisions, lost
 * records, a damaged ring, and each reason SPE cannot be used here.
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
#include "fake_spe.h"
#include "perf/perf_internal.h"
#include "perf/spe_decode.h"
#include "perf/spe_stats.h"
#include "spe_bytes.h"

extern const struct og_backend_ops og_backend_perf;
static const struct og_backend_ops *ops = &og_backend_perf;

/* ---- packets ------------------------------------------------------------ */

static void expect_packet(const struct spe_bytes *b, size_t at, int len,
                          enum og_spe_packet_type type, unsigned index, uint64_t payload)
{
	struct og_spe_packet p;
	int n = og_spe_packet_at(b->b + at, b->n - at, at, &p);
	assert_int_equal(n, len);
	assert_int_equal(p.type, type);
	assert_int_equal(p.index, index);
	assert_true(p.payload == payload);
	/* Every shorter view of the same packet asks for more bytes. */
	for (int cut = 0; cut < len && type != OG_SPE_PAD && type != OG_SPE_END; cut++)
		assert_int_equal(og_spe_packet_at(b->b + at, (size_t)cut, at, &p), OG_SPE_NEED_MORE);
}

static void test_every_packet_type(void **unused)
{
	(void)unused;
	struct spe_bytes b = { .n = 0 };
	spe_pad(&b);                                     /* 0 */
	spe_end(&b);                                     /* 1 */
	spe_timestamp(&b, 0x1122334455667788ull);        /* 2 */
	spe_address(&b, 0, 0x0000ffff12345678ull);       /* 11 */
	spe_address(&b, 9, 0x42);                        /* 20: extended header */
	spe_counter(&b, 2, 0x0abc);                      /* 30 */
	spe_counter(&b, 10, 7);                          /* 33: extended header */
	spe_context(&b, 1, 0xdeadbeef);                  /* 37 */
	spe_op(&b, 1, 0x01);                             /* 42 */
	spe_events(&b, 0x8a, 0);                         /* 44 */
	spe_events(&b, 0x0102, 1);                       /* 46 */
	spe_events(&b, 0x01020304, 2);                   /* 49 */
	spe_events(&b, 0x0102030405060708ull, 3);        /* 54 */
	spe_source(&b, 0xe, 0);                          /* 63 */
	spe_source(&b, 0x0b00, 1);                       /* 65 */
	expect_packet(&b, 0, 1, OG_SPE_PAD, 0, 0);
	expect_packet(&b, 1, 1, OG_SPE_END, 0, 0);
	expect_packet(&b, 2, 9, OG_SPE_TIMESTAMP, 0, 0x1122334455667788ull);
	expect_packet(&b, 11, 9, OG_SPE_ADDRESS, 0, 0x0000ffff12345678ull);
	expect_packet(&b, 20, 10, OG_SPE_ADDRESS, 9, 0x42);
	expect_packet(&b, 30, 3, OG_SPE_COUNTER, 2, 0x0abc);
	expect_packet(&b, 33, 4, OG_SPE_COUNTER, 10, 7);
	expect_packet(&b, 37, 5, OG_SPE_CONTEXT, 1, 0xdeadbeef);
	expect_packet(&b, 42, 2, OG_SPE_OP_TYPE, 1, 0x01);
	expect_packet(&b, 44, 2, OG_SPE_EVENTS, 0, 0x8a);
	expect_packet(&b, 46, 3, OG_SPE_EVENTS, 0, 0x0102);
	expect_packet(&b, 49, 5, OG_SPE_EVENTS, 0, 0x01020304);
	expect_packet(&b, 54, 9, OG_SPE_EVENTS, 0, 0x0102030405060708ull);
	expect_packet(&b, 63, 2, OG_SPE_DATA_SOURCE, 0, 0xe);
	expect_packet(&b, 65, 3, OG_SPE_DATA_SOURCE, 0, 0x0b00);
	assert_int_equal(b.n, 68);
}

/* The extended header with a second byte of 0 pads to an alignment. */
static void test_alignment_packet(void **unused)
{
	(void)unused;
	uint8_t buf[32] = { 0x21, 0x00 }; /* align to 2^(1+1) = 4 */
	struct og_spe_packet p;
	assert_int_equal(og_spe_packet_at(buf, sizeof buf, 0, &p), 4);
	assert_int_equal(p.type, OG_SPE_PAD);
	assert_int_equal(og_spe_packet_at(buf, sizeof buf, 5, &p), 3); /* from 5 to 8 */
	assert_int_equal(og_spe_packet_at(buf, 2, 0, &p), OG_SPE_NEED_MORE);
	assert_int_equal(og_spe_packet_at(buf, 1, 0, &p), OG_SPE_NEED_MORE);
}

static void test_bad_headers(void **unused)
{
	(void)unused;
	/* Headers the architecture gives no packet. */
	static const uint8_t bad[] = { 0x02, 0x10, 0x30, 0x80, 0xff, 0x9f ^ 0x40, 0xc0 };
	for (size_t i = 0; i < sizeof bad; i++) {
		struct og_spe_packet p;
		uint8_t buf[16] = { bad[i] };
		if (og_spe_packet_at(buf, sizeof buf, 0, &p) != OG_SPE_BAD)
			fail_msg("header 0x%02x decoded as a packet", bad[i]);
	}
	/* An extended header whose second byte is neither address nor counter. */
	uint8_t ext[16] = { 0x20, 0x42 };
	struct og_spe_packet p;
	assert_int_equal(og_spe_packet_at(ext, sizeof ext, 0, &p), OG_SPE_BAD);
}

/* ---- records --------------------------------------------------------------- */

struct seen {
	struct og_spe_record r[16];
	size_t n;
};

static void keep(void *arg, const struct og_spe_record *r)
{
	struct seen *s = arg;
	if (s->n < 16)
		s->r[s->n++] = *r;
}

static void test_records(void **unused)
{
	(void)unused;
	struct spe_bytes b = { .n = 0 };
	spe_load(&b, 0x400100, 120, OG_SPE_EV_L1D_ACCESS | OG_SPE_EV_L1D_REFILL, 0x8);
	spe_pad(&b);
	spe_pad(&b);
	spe_branch(&b, 0x400200, 1);
	/* A kernel PC (EL1, NS): the top byte comes back. */
	spe_address(&b, 0, 1ull << 63 | 1ull << 61 | 0x00ff800012345678ull);
	spe_op(&b, 0, 0x00);
	spe_timestamp(&b, 99); /* a timestamp ends a record too */
	struct seen s = { .n = 0 };
	struct og_spe_walk w = { 0 };
	og_spe_walk(b.b, b.n, keep, &s, &w);
	assert_int_equal(s.n, 3);
	assert_int_equal(w.records, 3);
	assert_int_equal(w.padding, 2);
	assert_int_equal(w.bad_bytes + w.dropped + w.truncated, 0);
	assert_true(og_spe_is_load(&s.r[0]));
	assert_true(s.r[0].pc == 0x400100);
	assert_int_equal(s.r[0].total_lat, 120);
	assert_int_equal(s.r[0].issue_lat, 1);
	assert_true(s.r[0].data_source == 0x8);
	assert_true(s.r[0].va == 0x0000aaaabbbb0000ull + 0x400100);
	assert_true(og_spe_is_branch(&s.r[1]));
	assert_true(s.r[1].events & OG_SPE_EV_MISPRED);
	assert_true(s.r[1].target == 0x400240);
	assert_true(s.r[2].pc == 0xffff800012345678ull);
	assert_int_equal(s.r[2].el, 1);
	assert_int_equal(s.r[2].timestamp, 99);
	assert_int_equal(s.r[2].op_class, OG_SPE_OP_OTHER);
}

/* A bad byte inside a record costs that record only; the next one decodes. */
static void test_corrupt_record(void **unused)
{
	(void)unused;
	struct spe_bytes b = { .n = 0 };
	spe_pc(&b, 0x1000);
	spe_put(&b, 0x02, 1); /* no packet has this header */
	spe_op(&b, 1, 0);
	spe_end(&b);
	spe_load(&b, 0x2000, 10, 0, 0);
	spe_put(&b, 0xff, 1); /* between records: skipped, nothing lost */
	spe_load(&b, 0x3000, 11, 0, 0);
	struct seen s = { .n = 0 };
	struct og_spe_walk w = { 0 };
	og_spe_walk(b.b, b.n, keep, &s, &w);
	assert_int_equal(s.n, 2);
	assert_true(s.r[0].pc == 0x2000 && s.r[1].pc == 0x3000);
	assert_int_equal(w.bad_bytes, 2);
	assert_int_equal(w.dropped, 1);
}

/* A buffer that ends inside a packet, or inside a record, is truncated:
 * what was complete is kept, the rest is not made up. */
static void test_truncated(void **unused)
{
	(void)unused;
	struct spe_bytes b = { .n = 0 };
	spe_load(&b, 0x1000, 5, 0, 0);
	size_t whole = b.n;
	spe_load(&b, 0x2000, 6, 0, 0);
	for (size_t cut = whole + 1; cut < b.n; cut++) {
		struct seen s = { .n = 0 };
		struct og_spe_walk w = { 0 };
		og_spe_walk(b.b, cut, keep, &s, &w);
		assert_int_equal(s.n, 1);
		assert_int_equal(w.truncated, 1);
	}
}

/* ---- counts ---------------------------------------------------------------- */

static void test_levels(void **unused)
{
	(void)unused;
	struct og_spe_record r;
	memset(&r, 0, sizeof r);
	r.present = OG_SPE_HAS_DATA_SOURCE | OG_SPE_HAS_EVENTS;
	static const struct {
		uint64_t source;
		enum og_spe_level level;
	} common[] = { { 0x0, OG_SPE_L1 },  { 0x8, OG_SPE_L2 },     { 0x9, OG_SPE_L2 },
		       { 0xa, OG_SPE_LLC }, { 0xb, OG_SPE_LLC },    { 0xc, OG_SPE_LLC },
		       { 0xd, OG_SPE_REMOTE }, { 0xe, OG_SPE_DRAM } };
	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) {
		r.data_source = common[i].source;
		assert_int_equal(og_spe_level_of(OG_SPE_SOURCES_COMMON, &r), common[i].level);
	}
	/* An encoding this CPU does not share, or an unknown code: the events. */
	r.data_source = 0x7;
	r.events = OG_SPE_EV_L1D_ACCESS;
	assert_int_equal(og_spe_level_of(OG_SPE_SOURCES_COMMON, &r), OG_SPE_L1);
	r.data_source = 0x0;
	r.events = OG_SPE_EV_L1D_ACCESS | OG_SPE_EV_L1D_REFILL;
	assert_int_equal(og_spe_level_of(OG_SPE_SOURCES_EVENTS, &r), OG_SPE_L2);
	r.events |= OG_SPE_EV_LLC_ACCESS;
	assert_int_equal(og_spe_level_of(OG_SPE_SOURCES_EVENTS, &r), OG_SPE_LLC);
	r.events |= OG_SPE_EV_LLC_MISS;
	assert_int_equal(og_spe_level_of(OG_SPE_SOURCES_EVENTS, &r), OG_SPE_DRAM);
	r.events |= OG_SPE_EV_REMOTE;
	assert_int_equal(og_spe_level_of(OG_SPE_SOURCES_EVENTS, &r), OG_SPE_REMOTE);
	r.present = 0;
	assert_int_equal(og_spe_level_of(OG_SPE_SOURCES_EVENTS, &r), OG_SPE_UNKNOWN);
}

static struct og_spe_stats stats;
static struct og_spe_pc pc_table[OG_SPE_MAX_PCS];

static void test_percentiles(void **unused)
{
	(void)unused;
	memset(&stats, 0, sizeof stats);
	struct og_spe_record r;
	memset(&r, 0, sizeof r);
	r.present = OG_SPE_HAS_OP | OG_SPE_HAS_TOTAL_LAT;
	r.op_class = OG_SPE_OP_LDST;
	assert_int_equal(og_spe_latency_percentile(&stats, 50), 0);
	for (uint32_t v = 1; v <= 100; v++) {
		r.total_lat = v;
		og_spe_stats_add(&stats, &r);
	}
	assert_int_equal(og_spe_latency_percentile(&stats, 50), 50);
	assert_int_equal(og_spe_latency_percentile(&stats, 90), 90);
	assert_int_equal(og_spe_latency_percentile(&stats, 99), 99);
	assert_int_equal(og_spe_latency_percentile(&stats, 100), 100);
	assert_int_equal(stats.lat_sum, 5050);
	/* Above 4095 cycles: 64-cycle buckets, given by their lower bound. */
	og_spe_stats_reset(&stats);
	r.total_lat = 5000;
	og_spe_stats_add(&stats, &r);
	assert_int_equal(og_spe_latency_percentile(&stats, 50), 4096 + 64 * 14);
	r.total_lat = 70000; /* wider than the counter: the last bucket */
	og_spe_stats_add(&stats, &r);
	assert_int_equal(og_spe_latency_percentile(&stats, 100), 4096 + 64 * 959);
}

static void test_hot_pcs(void **unused)
{
	(void)unused;
	memset(&stats, 0, sizeof stats);
	og_spe_stats_track_pcs(&stats, pc_table);
	struct og_spe_record r;
	memset(&r, 0, sizeof r);
	r.present = OG_SPE_HAS_PC | OG_SPE_HAS_OP | OG_SPE_HAS_EVENTS;
	r.op_class = OG_SPE_OP_BRANCH;
	r.events = OG_SPE_EV_MISPRED;
	for (int i = 0; i < 5; i++) {
		r.pc = 0x100;
		og_spe_stats_add(&stats, &r);
	}
	for (int i = 0; i < 9; i++) {
		r.pc = 0x200;
		og_spe_stats_add(&stats, &r);
	}
	r.pc = 0x300;
	og_spe_stats_add(&stats, &r);
	struct og_spe_pc top[2];
	size_t n = og_spe_top_pcs(&stats, offsetof(struct og_spe_pc, mispredicts), top, 2);
	assert_int_equal(n, 2);
	assert_true(top[0].pc == 0x200 && top[0].mispredicts == 9);
	assert_true(top[1].pc == 0x100 && top[1].mispredicts == 5);
	assert_int_equal(og_spe_top_pcs(&stats, offsetof(struct og_spe_pc, loads), top, 2), 0);
	/* More PCs than the table holds: the rest are counted, not stored. */
	og_spe_stats_reset(&stats);
	for (uint64_t pc = 0; pc < OG_SPE_MAX_PCS; pc++) {
		r.pc = pc * 4;
		og_spe_stats_add(&stats, &r);
	}
	assert_true(stats.npcs < OG_SPE_MAX_PCS);
	assert_int_equal(stats.npcs + stats.untracked, OG_SPE_MAX_PCS);
	og_spe_stats_track_pcs(&stats, NULL);
}

/* ---- the backend over the simulated arm_spe PMU ---------------------------------- */

static struct fake_perf K;
static struct fake_spe P;
static struct fake_log L;
static struct og_backend_host H;
static struct og_device_info I;
static void *St;

static int setup(void **unused)
{
	(void)unused;
	fake_spe_host(&P, &K, &H, &L, "0x410fd493\n");
	K.pmu = true;
	K.hw_slots = 6;
	St = NULL;
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	if (St)
		ops->close(St);
	St = NULL;
	assert_int_equal(fake_perf_open_fds(&K), 0);
	assert_int_equal(P.opens, P.closes);
	assert_int_equal(P.maps, P.unmaps);
	fake_spe_free(&P);
	fake_perf_free(&K);
	return 0;
}

static void open_backend(const char *options)
{
	assert_int_equal(ops->open(&H, options, &St, &I), GPA_STATUS_OK);
}

static uint32_t bind(const char *source)
{
	uint32_t id = UINT32_MAX;
	const char *why = NULL;
	GPA_Status s = ops->bind_raw(St, "X", source, &id, &why);
	if (s != GPA_STATUS_OK)
		fail_msg("bind %s: %d (%s; log %s)", source, s, why ? why : "-", L.all);
	return id;
}

static const char *const all_q[] = {
	"spe:samples", "spe:loads", "spe:stores", "spe:branches", "spe:other",
	"spe:memory-ops", "spe:tlb-walks", "spe:mispredicts", "spe:loads-sourced",
	"spe:loads-l1", "spe:loads-l2", "spe:loads-llc", "spe:loads-dram", "spe:loads-remote",
	"spe:latency-count", "spe:latency-sum", "spe:latency-p50", "spe:latency-p90",
	"spe:latency-p99", "spe:lost", "spe:truncated", "spe:damaged",
};
#define NQ (sizeof all_q / sizeof all_q[0])
enum { SAMPLES, LOADS, STORES, BRANCHES, OTHER, MEMOPS, TLBW, MISP, SOURCED, L1, L2, LLC,
       DRAM, REMOTE, LATN, LATSUM, P50, P90, P99, LOST, TRUNC, DAMAGED };

static uint32_t ids[NQ + 1];
static uint64_t v[NQ + 1];

/* A pass with every spe: quantity and the task clock. */
static void begin_spe_pass(void)
{
	for (size_t i = 0; i < NQ; i++)
		ids[i] = bind(all_q[i]);
	ids[NQ] = bind("sw:task-clock");
	assert_true(ops->fits(St, ids, NQ + 1));
	assert_int_equal(ops->begin_pass(St, ids, NQ + 1), GPA_STATUS_OK);
}

static struct fake_spe_event *spe_event(void)
{
	struct fake_spe_event *e = fake_spe_event(&P, -1);
	assert_non_null(e);
	return e;
}

static void sample(const struct spe_bytes *b)
{
	assert_int_equal(ops->begin_sample(St), GPA_STATUS_OK);
	if (b)
		fake_spe_write(spe_event(), b->b, b->n);
	assert_int_equal(ops->end_sample(St, v), GPA_STATUS_OK);
}

static void test_backend_counts(void **unused)
{
	(void)unused;
	open_backend("spe_interval=2048");
	assert_string_equal(I.counter_sets[2], "arm-spe");
	begin_spe_pass();
	/* The event as the arm_spe driver wants it: its type, the interval,
	 * jitter on, opened disabled and enabled once both buffers exist. */
	struct fake_spe_event *e = spe_event();
	assert_int_equal(e->attr.type, FAKE_SPE_TYPE);
	assert_int_equal(e->attr.sample_period, 2048);
	assert_true(e->attr.config & 1ull << 16);
	assert_true(e->attr.disabled);
	assert_true(e->enabled);
	assert_non_null(e->ring);
	assert_non_null(e->aux);
	/* Written before the sample: not the sample's. */
	struct spe_bytes before = { .n = 0 };
	spe_load(&before, 0x10, 500, 0, 0xe);
	fake_spe_write(e, before.b, before.n);

	struct spe_bytes b = { .n = 0 };
	spe_load(&b, 0x100, 4, OG_SPE_EV_L1D_ACCESS, 0x0);                 /* L1 */
	spe_load(&b, 0x104, 20, OG_SPE_EV_L1D_REFILL, 0x8);                /* L2 */
	spe_load(&b, 0x108, 60, OG_SPE_EV_L1D_REFILL | OG_SPE_EV_LLC_ACCESS, 0xb); /* LLC */
	spe_load(&b, 0x10c, 300, OG_SPE_EV_TLB_WALK | OG_SPE_EV_LLC_MISS, 0xe); /* DRAM */
	spe_branch(&b, 0x200, 1);
	spe_branch(&b, 0x204, 0);
	spe_pc(&b, 0x300);
	spe_op(&b, 1, 0x01); /* a store */
	spe_end(&b);
	spe_pc(&b, 0x400);
	spe_op(&b, 0, 0x00); /* another operation */
	spe_end(&b);
	sample(&b);
	assert_int_equal(v[SAMPLES], 8);
	assert_int_equal(v[LOADS], 4);
	assert_int_equal(v[STORES], 1);
	assert_int_equal(v[BRANCHES], 2);
	assert_int_equal(v[OTHER], 1);
	assert_int_equal(v[MEMOPS], 5);
	assert_int_equal(v[TLBW], 1);
	assert_int_equal(v[MISP], 1);
	assert_int_equal(v[SOURCED], 4);
	assert_int_equal(v[L1], 1);
	assert_int_equal(v[L2], 1);
	assert_int_equal(v[LLC], 1);
	assert_int_equal(v[DRAM], 1);
	assert_int_equal(v[REMOTE], 0);
	assert_int_equal(v[LATN], 4);
	assert_int_equal(v[LATSUM], 384);
	assert_int_equal(v[P50], 20);
	assert_int_equal(v[P90], 300);
	assert_int_equal(v[LOST] + v[TRUNC] + v[DAMAGED], 0);
	assert_true(e->enabled); /* sampling goes on for the next sample */
	/* An empty sample is all zeros. */
	sample(NULL);
	assert_int_equal(v[SAMPLES], 0);
	assert_int_equal(ops->end_pass(St), GPA_STATUS_OK);
}

/* The aux buffer and the data ring both wrap: records that straddle the
 * end of the aux buffer still decode, over many samples. */
static void test_wraps(void **unused)
{
	(void)unused;
	open_backend("spe_pages=2");
	begin_spe_pass();
	struct fake_spe_event *e = spe_event();
	static struct spe_bytes b;
	b.n = 0;
	/* About two fifths of the aux buffer per sample (whatever the page
	 * size), so the records straddle its end every few samples. */
	uint64_t per = e->aux_len * 2 / 5 / 33;
	if (per > sizeof b.b / 33)
		per = sizeof b.b / 33;
	for (uint64_t i = 0; i < per; i++)
		spe_load(&b, 0x1000 + 4 * i, (uint16_t)(i + 1), 0, 0x0);
	struct perf_event_mmap_page *pg = (void *)e->ring;
	/* Enough samples for the data ring (32-byte AUX records) to wrap twice. */
	uint64_t rounds = 2 * pg->data_size / 32 + 10, total = 0;
	for (uint64_t round = 0; round < rounds; round++) {
		sample(&b);
		assert_int_equal(v[SAMPLES], per);
		assert_int_equal(v[P50], (per + 1) / 2);
		assert_int_equal(v[LOST] + v[TRUNC] + v[DAMAGED], 0);
		total += v[SAMPLES];
	}
	assert_true(e->aux_head > 10 * e->aux_len);
	assert_true(pg->data_head > 2 * pg->data_size); /* the ring wrapped too */
	assert_true(pg->data_tail == pg->data_head);
	assert_true(pg->aux_tail == e->aux_head);
	assert_int_equal(total, per * rounds);
	assert_int_equal(ops->end_pass(St), GPA_STATUS_OK);
}

/* More than the aux buffer holds, a collision, lost records, bad bytes:
 * each has its own count, and the good records still count. */
static void test_losses(void **unused)
{
	(void)unused;
	open_backend("spe_pages=2");
	begin_spe_pass();
	struct fake_spe_event *e = spe_event();
	struct spe_bytes b = { .n = 0 };
	while (b.n + 64 < sizeof b.b)
		spe_load(&b, 0x1000, 7, 0, 0x0);
	size_t per = b.n;
	assert_int_equal(ops->begin_sample(St), GPA_STATUS_OK);
	fake_spe_write(e, b.b, b.n); /* 8 KiB into an aux buffer of 2 pages */
	fake_spe_write(e, b.b, b.n);
	assert_int_equal(ops->end_sample(St, v), GPA_STATUS_OK);
	if (e->aux_len < 2 * per) {
		assert_int_equal(v[TRUNC], 1);
		assert_true(v[SAMPLES] < 2 * per / 32 && v[SAMPLES] > 0);
		assert_non_null(strstr(L.all, "SPE lost samples"));
	}
	/* A collision flag, and lost records in the data ring. */
	assert_int_equal(ops->begin_sample(St), GPA_STATUS_OK);
	struct spe_bytes one = { .n = 0 };
	spe_load(&one, 0x2000, 9, 0, 0x0);
	fake_spe_write(e, one.b, one.n);
	fake_spe_publish(e, PERF_AUX_FLAG_COLLISION);
	uint64_t lost[2] = { 1, 5 };
	assert_true(fake_spe_ring_record(e, PERF_RECORD_LOST, lost, sizeof lost));
	uint64_t itrace[1] = { 42 };
	assert_true(fake_spe_ring_record(e, PERF_RECORD_ITRACE_START, itrace, sizeof itrace));
	/* Bad bytes inside one record, then a good one. */
	struct spe_bytes bad = { .n = 0 };
	spe_pc(&bad, 0x3000);
	spe_put(&bad, 0x02, 1);
	spe_end(&bad);
	spe_load(&bad, 0x3004, 11, 0, 0x0);
	fake_spe_write(e, bad.b, bad.n);
	assert_int_equal(ops->end_sample(St, v), GPA_STATUS_OK);
	assert_int_equal(v[SAMPLES], 2);
	assert_int_equal(v[LOST], 5);
	assert_int_equal(v[TRUNC], 1);
	assert_int_equal(v[DAMAGED], 2); /* the dropped record, and bad bytes seen */
	assert_int_equal(ops->end_pass(St), GPA_STATUS_OK);
}

/* A ring whose head the kernel (or a fault) put too far: said once, the
 * ring is skipped, and the next samples count again. */
static void test_damaged_ring(void **unused)
{
	(void)unused;
	open_backend("");
	begin_spe_pass();
	struct fake_spe_event *e = spe_event();
	struct perf_event_mmap_page *pg = (void *)e->ring;
	assert_int_equal(ops->begin_sample(St), GPA_STATUS_OK);
	pg->data_head += pg->data_size * 4;
	assert_int_equal(ops->end_sample(St, v), GPA_STATUS_OK);
	assert_non_null(strstr(L.all, "data ring is inconsistent"));
	/* An AUX record that points outside the unread part of the buffer. */
	assert_int_equal(ops->begin_sample(St), GPA_STATUS_OK);
	uint64_t rec[3] = { 0, e->aux_len * 2, 0 };
	assert_true(fake_spe_ring_record(e, PERF_RECORD_AUX, rec, sizeof rec));
	assert_int_equal(ops->end_sample(St, v), GPA_STATUS_OK);
	assert_int_equal(v[SAMPLES], 0);
	/* A record of size 0 would loop forever: it ends the read. */
	assert_int_equal(ops->begin_sample(St), GPA_STATUS_OK);
	uint8_t *data = e->ring + pg->data_offset;
	memset(data + pg->data_head % pg->data_size, 0, 8);
	pg->data_head += 8;
	assert_int_equal(ops->end_sample(St, v), GPA_STATUS_OK);
	assert_int_equal(L.errors, 1);
	struct spe_bytes b = { .n = 0 };
	spe_load(&b, 0x100, 4, 0, 0x0);
	sample(&b);
	assert_int_equal(v[SAMPLES], 1);
	assert_int_equal(ops->end_pass(St), GPA_STATUS_OK);
}

/* ---- absence and refusals -------------------------------------------------------- */

static void expect_unavailable(const char *needle)
{
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(St, "X", "spe:loads", &id, &why), GPA_STATUS_ERROR_NOT_FOUND);
	if (!why || !strstr(why, needle))
		fail_msg("why '%s' lacks '%s'", why ? why : "(null)", needle);
	/* Nothing else is lost: the rest counts. */
	uint32_t tc = bind("sw:task-clock");
	assert_int_equal(ops->begin_pass(St, &tc, 1), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(St), GPA_STATUS_OK);
	assert_int_equal(ops->end_sample(St, v), GPA_STATUS_OK);
	assert_int_equal(ops->end_pass(St), GPA_STATUS_OK);
}

static void test_no_spe_pmu(void **unused)
{
	(void)unused;
	P.present = false;
	fake_perf_set_file(&K, "/sys/bus/event_source/devices/arm_spe_0/type", NULL);
	fake_perf_set_file(&K, "/sys/bus/event_source/devices/arm_spe_0/caps/min_interval", NULL);
	fake_perf_set_file(&K, "/sys/bus/event_source/devices/arm_spe_0/caps/count_size", NULL);
	fake_perf_set_file(&K, "/sys/bus/event_source/devices/arm_spe_0/cpumask", NULL);
	fake_perf_set_file(&K, "/sys/bus/event_source/devices/arm_spe_0/format/jitter", NULL);
	open_backend("");
	expect_unavailable("no SPE PMU");
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(St, "X", "spe:samples", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "CONFIG_ARM_SPE_PMU"));
	assert_non_null(strstr(why, "kpti=off"));
	assert_non_null(strstr(why, "virtual machine"));
}

static void test_not_permitted(void **unused)
{
	(void)unused;
	P.open_errno = EACCES;
	open_backend("");
	expect_unavailable("kernel.perf_event_paranoid is 2");
}

static void test_busy(void **unused)
{
	(void)unused;
	P.open_errno = EBUSY;
	open_backend("");
	expect_unavailable("another SPE session");
}

/* The aux buffer over the locked-memory budget: BeginPass fails naming the
 * knob, and closes what it opened. */
static void test_aux_over_mlock(void **unused)
{
	(void)unused;
	fake_perf_set_file(&K, "/proc/sys/kernel/perf_event_mlock_kb", "516\n");
	open_backend("spe_pages=1024");
	uint32_t id = bind("spe:samples");
	P.aux_errno = EPERM;
	assert_int_equal(ops->begin_pass(St, &id, 1), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(L.last, "perf_event_mlock_kb (now 516 KiB)"));
	assert_non_null(strstr(L.last, "spe_pages"));
}

/* Refused at BeginPass although the probe opened (the task moved to a CPU
 * without SPE): the line names the PMU's CPUs. */
static void test_wrong_cpu(void **unused)
{
	(void)unused;
	open_backend("");
	uint32_t id = bind("spe:samples");
	P.open_errno = ENOENT;
	assert_int_equal(ops->begin_pass(St, &id, 1), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_non_null(strstr(L.last, "CPUs 0-3"));
}

static void test_bad_options(void **unused)
{
	(void)unused;
	assert_int_equal(ops->open(&H, "spe_pages=3", &St, &I), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(L.last, "power of two"));
	assert_int_equal(ops->open(&H, "spe_interval=0", &St, &I), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(ops->open(&H, "spe_interval=x", &St, &I), GPA_STATUS_ERROR_FAILED);
	St = NULL;
	open_backend("");
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(St, "X", "spe:nonsense", &id, &why), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(L.last, "spe: takes samples"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_packet_type),
		cmocka_unit_test(test_alignment_packet),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_corrupt_record),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_hot_pcs),
		T(test_backend_counts),
		T(test_wraps),
		T(test_losses),
		T(test_damaged_ring),
		T(test_no_spe_pmu),
		T(test_not_permitted),
		T(test_busy),
		T(test_aux_over_mlock),
		T(test_wrong_cpu),
		T(test_bad_options),
	};
	return cmocka_run_group_tests_name("perf-spe", tests, NULL, NULL);
}
