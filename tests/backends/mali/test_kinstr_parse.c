/* SPDX-License-Identifier: MIT */
/*
 * test_kinstr_parse.c — the kinstr_prfcnt lists as the kernel hands them over,
 * checked without a device: every rule of the enumeration and of a sample's
 * metadata refuses what breaks it, nothing outside the mapping is read (a
 * guard page after it), and the sums match a plain 64-bit sum written here,
 * saturating where they would wrap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "mali/kinstr_parse.h"

/* ---- an enumeration ---- */

struct list {
	struct og_kinstr_enum_item it[32];
	size_t n;
};

static void add_request(struct list *l, uint16_t kind, uint32_t versions)
{
	struct og_kinstr_enum_item *it = &l->it[l->n++];
	memset(it, 0, sizeof *it);
	it->hdr.item_type = OG_KINSTR_ENUM_REQUEST;
	it->u.request.request_item_type = kind;
	it->u.request.versions_mask = versions;
}

static void add_block(struct list *l, uint8_t type, uint8_t set, uint16_t inst, uint16_t vals)
{
	struct og_kinstr_enum_item *it = &l->it[l->n++];
	memset(it, 0, sizeof *it);
	it->hdr.item_type = OG_KINSTR_ENUM_BLOCK;
	it->u.block.block_type = type;
	it->u.block.set = set;
	it->u.block.num_instances = inst;
	it->u.block.num_values = vals;
	it->u.block.counter_mask[0] = it->u.block.counter_mask[1] = ~0ull;
}

static void add_info(struct list *l, uint32_t domains)
{
	struct og_kinstr_enum_item *it = &l->it[l->n++];
	memset(it, 0, sizeof *it);
	it->hdr.item_type = OG_KINSTR_ENUM_SAMPLE_INFO;
	it->u.sample_info.num_clock_domains = domains;
}

static void add_end(struct list *l)
{
	memset(&l->it[l->n++], 0, sizeof l->it[0]);
}

/* A CSF GPU: 2 L2 slices, 4 cores, FW and 2 CSG blocks, 128 values. */
static void good(struct list *l)
{
	l->n = 0;
	add_request(l, 0, 1);
	add_request(l, 1, 1);
	add_info(l, 2);
	add_block(l, OG_MALI_FW, 0, 1, 128);
	add_block(l, OG_MALI_CSG, 0, 2, 128);
	add_block(l, OG_MALI_FE, 0, 1, 128);
	add_block(l, OG_MALI_TILER, 0, 1, 128);
	add_block(l, OG_MALI_L2, 0, 2, 128);
	add_block(l, OG_MALI_SC, 0, 4, 128);
	add_end(l);
}

static void refused(struct list *l, const char *needle)
{
	struct og_kinstr_enum e;
	char why[256] = "";
	if (og_kinstr_parse_enum(l->it, l->n, sizeof l->it[0], &e, why, sizeof why))
		fail_msg("accepted a list that should fail with '%s'", needle);
	if (!strstr(why, needle))
		fail_msg("'%s' lacks '%s'", why, needle);
}

static void test_enum(void **unused)
{
	(void)unused;
	struct list l;
	struct og_kinstr_enum e;
	char why[256];
	good(&l);
	assert_true(og_kinstr_parse_enum(l.it, l.n, sizeof l.it[0], &e, why, sizeof why));
	assert_int_equal(e.types, 0x3F);
	assert_int_equal(e.instances[OG_MALI_CSG], 2);
	assert_int_equal(e.values[OG_MALI_SC], 128);
	assert_int_equal(e.num_clock_domains, 2);

	/* A block type of a newer kernel is skipped, not refused. */
	good(&l);
	l.n--;
	add_block(&l, 6, 0, 1, 128);
	add_end(&l);
	assert_true(og_kinstr_parse_enum(l.it, l.n, sizeof l.it[0], &e, why, sizeof why));
	assert_int_equal(e.unknown_types, 1);

	good(&l);
	assert_false(og_kinstr_parse_enum(l.it, l.n, 40, &e, why, sizeof why));
	assert_non_null(strstr(why, "40 bytes"));
	good(&l);
	l.n--; /* no sentinel */
	refused(&l, "does not end with a sentinel");
	good(&l);
	add_info(&l, 1); /* after the sentinel */
	refused(&l, "after its sentinel");
	good(&l);
	l.it[0].hdr.item_version = 1;
	refused(&l, "version 1");
	good(&l);
	l.it[2].hdr.item_type = 0x0007;
	refused(&l, "unknown type 0x0007");
	good(&l);
	l.it[0].u.request.versions_mask = 2;
	refused(&l, "no version-0 MODE");
	good(&l);
	l.it[1].u.request.request_item_type = 0; /* two MODE, no ENABLE */
	refused(&l, "2 MODE and 0 ENABLE");
	good(&l);
	l.it[2].u.sample_info.num_clock_domains = 5;
	refused(&l, "5 clock domains");
	good(&l);
	l.it[2].hdr.item_type = OG_KINSTR_ENUM_REQUEST; /* no SAMPLE_INFO */
	l.it[2].u.request.request_item_type = 2;
	refused(&l, "0 SAMPLE_INFO");
	good(&l);
	l.it[8].u.block.num_values = 200;
	refused(&l, "200 values");
	good(&l);
	l.it[8].u.block.num_values = 60;
	refused(&l, "60 values");
	good(&l);
	l.it[7].u.block.num_instances = 17;
	refused(&l, "17 L2 blocks");
	good(&l);
	l.it[8].u.block.num_instances = 65;
	refused(&l, "65 SC blocks");
	good(&l);
	l.it[6].u.block.block_type = OG_MALI_FE; /* FE twice */
	refused(&l, "FE twice");
	good(&l);
	l.it[5].u.block.set = 1;
	refused(&l, "counter sets 0 and 1");
	good(&l);
	memmove(&l.it[7], &l.it[8], 2 * sizeof l.it[0]); /* no memory-system block */
	l.n--;
	refused(&l, "lacks a front-end, tiler, memory or shader-core block");
	good(&l);
	assert_false(og_kinstr_parse_enum(l.it, 0, sizeof l.it[0], &e, why, sizeof why));
	assert_false(og_kinstr_parse_enum(l.it, 257, sizeof l.it[0], &e, why, sizeof why));
}

static void test_requests(void **unused)
{
	(void)unused;
	struct list l;
	struct og_kinstr_enum e;
	char why[256];
	good(&l);
	l.it[8].u.block.num_values = 64;
	l.it[7].u.block.num_values = 64;
	l.it[6].u.block.num_values = 64;
	l.it[5].u.block.num_values = 64;
	l.it[4].u.block.num_values = 64;
	l.it[3].u.block.num_values = 64;
	assert_true(og_kinstr_parse_enum(l.it, l.n, sizeof l.it[0], &e, why, sizeof why));
	struct og_kinstr_request_item r[OG_KINSTR_MAX_REQUESTS];
	size_t n = og_kinstr_build_requests(&e, OG_KINSTR_MODE_PERIODIC, 123456, r);
	assert_int_equal(n, 8);
	assert_int_equal(r[0].hdr.item_type, OG_KINSTR_REQUEST_MODE);
	assert_int_equal(r[0].u.mode.mode, OG_KINSTR_MODE_PERIODIC);
	assert_int_equal(r[0].u.mode.period_ns, 123456);
	for (size_t i = 1; i < 7; i++) {
		assert_int_equal(r[i].hdr.item_type, OG_KINSTR_REQUEST_ENABLE);
		assert_int_equal(r[i].u.enable.block_type, i - 1);
		assert_true(r[i].u.enable.enable_mask[0] == ~0ull);
		assert_true(r[i].u.enable.enable_mask[1] == 0); /* 64 values only */
	}
	static const struct og_kinstr_request_item zero;
	assert_memory_equal(&r[7], &zero, sizeof zero);
}

/* ---- a sample in a mapping ---- */

struct ring {
	uint8_t *map;   /* the mapping; a PROT_NONE page follows it */
	size_t size, span;
	struct og_kinstr_layout l;
};

static void ring_init(struct ring *r, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	r->span = (size + (size_t)page - 1) / (size_t)page * (size_t)page;
	uint8_t *m = mmap(NULL, r->span + (size_t)page, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + r->span, (size_t)page, PROT_NONE), 0);
	/* The mapping ends right at the guard page. */
	r->map = m + r->span - size;
	r->size = size;
	memset(r->map, 0, size);
}

static void ring_fini(struct ring *r)
{
	munmap(r->map + r->size - r->span, r->span + (size_t)sysconf(_SC_PAGESIZE));
}

static uint8_t *item(struct ring *r, size_t offset, size_t i)
{
	return r->map + offset + i * r->l.item_size;
}

/* An item's header as the kernel stores it: two u16 in CPU order. */
static void set_header(uint8_t *it, uint16_t type, uint16_t version)
{
	struct og_kinstr_item_header h = { type, version };
	memcpy(it, &h, sizeof h);
}

/* A well-formed sample at `offset`: FE, TILER, 2 L2, 4 cores (dense), the
 * values after the metadata, each value = its block * 1000 + index. */
static size_t write_sample(struct ring *r, size_t offset, bool fw_csg)
{
	static const uint8_t types[] = { OG_MALI_FW, OG_MALI_CSG, OG_MALI_CSG, OG_MALI_FE,
		                         OG_MALI_TILER, OG_MALI_L2, OG_MALI_L2, OG_MALI_SC,
		                         OG_MALI_SC, OG_MALI_SC, OG_MALI_SC };
	static const uint8_t idx[] = { 0, 0, 1, 0, 0, 0, 1, 0, 1, 2, 3 };
	size_t first = fw_csg ? 0 : 3, n = sizeof types - first;
	struct og_kinstr_metadata m;
	memset(&m, 0, sizeof m);
	m.hdr.item_type = OG_KINSTR_META_SAMPLE;
	m.u.sample.timestamp_start = 100;
	m.u.sample.timestamp_end = 350;
	m.u.sample.seq = 7;
	m.u.sample.user_data = 42;
	memcpy(item(r, offset, 0), &m, sizeof m);
	memset(&m, 0, sizeof m);
	m.hdr.item_type = OG_KINSTR_META_CLOCK;
	m.u.clock.num_domains = 2;
	m.u.clock.cycles[0] = 1000;
	m.u.clock.cycles[1] = 1250;
	memcpy(item(r, offset, 1), &m, sizeof m);
	size_t values = offset + (n + 3) * r->l.item_size;
	for (size_t b = 0; b < n; b++) {
		memset(&m, 0, sizeof m);
		m.hdr.item_type = OG_KINSTR_META_BLOCK;
		m.u.block.block_type = types[first + b];
		m.u.block.block_idx = idx[first + b];
		m.u.block.values_offset = (uint32_t)(values + b * 128 * 8);
		memcpy(item(r, offset, 2 + b), &m, sizeof m);
		for (uint64_t v = 0; v < 128; v++) {
			uint64_t x = (b + 1) * 1000 + v;
			memcpy(r->map + values + (b * 128 + v) * 8, &x, 8);
		}
	}
	memset(item(r, offset, 2 + n), 0, r->l.item_size);
	return values + n * 128 * 8;
}

static void layout(struct ring *r, bool fw_csg, uint32_t item_size)
{
	struct list l;
	struct og_kinstr_enum e;
	char why[256];
	good(&l);
	if (!fw_csg) {
		memmove(&l.it[3], &l.it[5], 5 * sizeof l.it[0]);
		l.n -= 2;
	}
	assert_true(og_kinstr_parse_enum(l.it, l.n, sizeof l.it[0], &e, why, sizeof why));
	assert_true(og_kinstr_layout_init(&r->l, &e, 0xF, item_size, r->size, why, sizeof why));
}

static void bad_sample(struct ring *r, uint64_t offset, const char *needle)
{
	struct og_kinstr_sample s;
	char why[320] = "";
	if (og_kinstr_parse_sample(&r->l, r->map, offset, &s, why, sizeof why) == OG_KINSTR_OK)
		fail_msg("accepted a sample that should fail with '%s'", needle);
	if (!strstr(why, needle))
		fail_msg("'%s' lacks '%s'", why, needle);
}

static void test_sample(void **unused)
{
	(void)unused;
	for (uint32_t item_size = 48; item_size <= 64; item_size += 16) {
		struct ring r;
		size_t size = 14 * 64 + 11 * 128 * 8;
		ring_init(&r, size);
		layout(&r, true, item_size);
		size_t end = write_sample(&r, 0, true);
		assert_true(end <= size);
		struct og_kinstr_sample s;
		char why[320];
		assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why),
		                 OG_KINSTR_OK);
		assert_int_equal(s.seq, 7);
		assert_int_equal(s.user_data, 42);
		assert_int_equal(s.ts_end - s.ts_start, 250);
		assert_int_equal(s.cycles[1], 1250);
		struct og_mali_totals t;
		memset(&t, 0, sizeof t);
		og_kinstr_sum(&r.l, r.map, &s, &t);
		/* L2 = blocks 6 and 7 (1-based), cores 8..11. */
		assert_int_equal(og_mali_total(&t, OG_MALI_L2 * 128 + 5), 6005 + 7005);
		assert_int_equal(og_mali_total(&t, OG_MALI_SC * 128 + 127),
		                 8127 + 9127 + 10127 + 11127);
		assert_int_equal(og_mali_total(&t, OG_MALI_CSG * 128 + 9), 2009 + 3009);
		assert_int_equal(og_mali_total(&t, OG_MALI_FW * 128 + 4), 1004);
		ring_fini(&r);
	}
}

static void set_state(struct ring *r, size_t i, uint32_t st)
{
	memcpy(item(r, 0, i) + offsetof(struct og_kinstr_metadata, u.block.block_state), &st,
	       sizeof st);
}

/* Block states (JM 11.41 / CSF 1.23): every one of the 7-bit words on one
 * block, accepted exactly when no undefined bit and no pair is both set, and
 * counted per type; a driver before those versions is not read at all. */
static void test_block_states(void **unused)
{
	(void)unused;
	assert_false(og_kinstr_states_reported(false, 11, 40));
	assert_true(og_kinstr_states_reported(false, 11, 41));
	assert_true(og_kinstr_states_reported(false, 12, 0));
	assert_false(og_kinstr_states_reported(true, 1, 22));
	assert_true(og_kinstr_states_reported(true, 1, 23));
	assert_true(og_kinstr_states_reported(true, 2, 0));
	assert_false(og_kinstr_states_reported(true, 0, 99));
	struct ring r;
	size_t size = 12 * 48 + 9 * 128 * 8;
	ring_init(&r, size);
	layout(&r, false, 48);
	struct og_kinstr_sample s;
	char why[320];
	/* Not trusted: a broken word is not even looked at. */
	write_sample(&r, 0, false);
	set_state(&r, 6, 0xFFFFFFFFu);
	assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why), OG_KINSTR_OK);
	assert_int_equal(s.blocks_off[OG_MALI_SC], 0);
	r.l.states = true;
	bad_sample(&r, 0, "bits the kinstr_prfcnt UAPI does not define");
	for (uint32_t st = 0; st < 0x80; st++) {
		write_sample(&r, 0, false);
		set_state(&r, 7, st); /* SC block 1 */
		bool ok = st < 0x40 && (st & 3u) != 3u && (st & 0xCu) != 0xCu &&
		          (st & 0x30u) != 0x30u;
		enum og_kinstr_parse_result res =
			og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why);
		if ((res == OG_KINSTR_OK) != ok)
			fail_msg("state 0x%x: %s (%s)", st, res == OG_KINSTR_OK ? "accepted" : "refused",
			         why);
		if (!ok) {
			assert_non_null(strstr(why, "SC block 1"));
			continue;
		}
		assert_int_equal(s.state_any[OG_MALI_SC], st);
		assert_int_equal(s.blocks_off[OG_MALI_SC], st >> 1 & 1);
		assert_int_equal(s.blocks_unavailable[OG_MALI_SC], st >> 3 & 1);
		assert_int_equal(s.blocks_protected[OG_MALI_SC], st >> 5 & 1);
		assert_int_equal(s.state_any[OG_MALI_L2] | s.blocks_off[OG_MALI_L2], 0);
	}
	write_sample(&r, 0, false);
	set_state(&r, 8, OG_KINSTR_STATE_NORMAL | OG_KINSTR_STATE_PROTECTED);
	bad_sample(&r, 0, "item 8 (SC block 2) reports block state 0x30: both halves of a pair");
	/* Counted per type, over several blocks; a parse starts from zero. */
	write_sample(&r, 0, false);
	set_state(&r, 2, OG_KINSTR_STATE_ON | OG_KINSTR_STATE_PROTECTED);
	set_state(&r, 4, OG_KINSTR_STATE_OFF | OG_KINSTR_STATE_NORMAL);
	set_state(&r, 5, OG_KINSTR_STATE_OFF | OG_KINSTR_STATE_UNAVAILABLE);
	set_state(&r, 9, OG_KINSTR_STATE_OFF);
	assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why), OG_KINSTR_OK);
	assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why), OG_KINSTR_OK);
	assert_int_equal(s.blocks_protected[OG_MALI_FE], 1);
	assert_int_equal(s.blocks_off[OG_MALI_FE], 0);
	assert_int_equal(s.blocks_off[OG_MALI_L2], 2);
	assert_int_equal(s.blocks_unavailable[OG_MALI_L2], 1);
	assert_int_equal(s.blocks_off[OG_MALI_SC], 1);
	assert_int_equal(s.state_any[OG_MALI_TILER], 0);
	ring_fini(&r);
}

static void test_sample_rules(void **unused)
{
	(void)unused;
	struct ring r;
	size_t size = 12 * 48 + 9 * 128 * 8;
	ring_init(&r, size);
	layout(&r, false, 48);
	struct og_kinstr_metadata m;
	/* Metadata past the end of the mapping, or from an absurd offset. */
	write_sample(&r, 0, false);
	bad_sample(&r, size - 100, "runs past");
	bad_sample(&r, UINT64_MAX - 10, "runs past");
	/* Items of the wrong kind, unknown type, version. */
	write_sample(&r, 0, false);
	set_header(item(&r, 0, 0), OG_KINSTR_META_CLOCK, OG_KINSTR_API_VERSION);
	bad_sample(&r, 0, "where 0x2000 was due");
	write_sample(&r, 0, false);
	set_header(item(&r, 0, 4), 0x2005, OG_KINSTR_API_VERSION);
	bad_sample(&r, 0, "unknown type 0x2005");
	write_sample(&r, 0, false);
	set_header(item(&r, 0, 1), OG_KINSTR_META_CLOCK, 1);
	bad_sample(&r, 0, "version 1");
	/* The sentinel missing (one block too many listed). */
	write_sample(&r, 0, false);
	memcpy(item(&r, 0, 10), item(&r, 0, 9), 48);
	bad_sample(&r, 0, "where 0x0000 was due");
	/* Clock domains above what ENUM_INFO said. */
	write_sample(&r, 0, false);
	memcpy(&m, item(&r, 0, 1), sizeof m);
	m.u.clock.num_domains = 3;
	memcpy(item(&r, 0, 1), &m, sizeof m);
	bad_sample(&r, 0, "3 domains");
	/* A block type ENUM_INFO did not list; another counter set. */
	write_sample(&r, 0, false);
	item(&r, 0, 2)[8] = OG_MALI_FW;
	bad_sample(&r, 0, "did not list");
	write_sample(&r, 0, false);
	item(&r, 0, 2)[8] = 9;
	bad_sample(&r, 0, "block type 9");
	write_sample(&r, 0, false);
	item(&r, 0, 3)[10] = 2;
	bad_sample(&r, 0, "counter set 2");
	/* An index that is not the next: out of range, repeated, skipped. */
	write_sample(&r, 0, false);
	item(&r, 0, 5)[9] = 2;
	bad_sample(&r, 0, "L2 block index 2 is not the next (1 of 2");
	write_sample(&r, 0, false);
	item(&r, 0, 8)[9] = 0;
	struct og_kinstr_sample s;
	char why[320];
	assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why),
	                 OG_KINSTR_BAD_CORE_IDX);
	assert_non_null(strstr(why, "SC block index 0 is not the next (2 of 4"));
	/* A type cut short, a type in two groups. */
	write_sample(&r, 0, false);
	memcpy(item(&r, 0, 5), item(&r, 0, 6), 48); /* one L2 block, then cores */
	item(&r, 0, 5)[9] = 0;
	item(&r, 0, 6)[9] = 1;
	bad_sample(&r, 0, "lists 1 of the 2 L2 blocks ENUM_INFO announced, then SC");
	write_sample(&r, 0, false);
	memcpy(item(&r, 0, 3), item(&r, 0, 2), 48); /* FE, FE, L2, L2, ... (no tiler) */
	memcpy(item(&r, 0, 2), item(&r, 0, 4), 48); /* L2#0, FE, L2#0... */
	bad_sample(&r, 0, "lists 1 of the 2 L2 blocks");
	write_sample(&r, 0, false);
	memcpy(item(&r, 0, 4), item(&r, 0, 2), 48); /* FE, TILER, FE again */
	bad_sample(&r, 0, "its FE blocks come in two groups");
	/* Values that would run past the mapping: the last byte of the
	 * mapping is the last byte a block may use. */
	write_sample(&r, 0, false);
	memcpy(&m, item(&r, 0, 9), sizeof m);
	m.u.block.values_offset = (uint32_t)(size - 128 * 8 + 8);
	memcpy(item(&r, 0, 9), &m, sizeof m);
	bad_sample(&r, 0, "run past the");
	m.u.block.values_offset = (uint32_t)(size - 128 * 8);
	memcpy(item(&r, 0, 9), &m, sizeof m);
	assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why),
	                 OG_KINSTR_OK);
	struct og_mali_totals t;
	og_kinstr_sum(&r.l, r.map, &s, &t); /* reads up to the guard page, not past */
	ring_fini(&r);
}

/* Early drivers: cores numbered by their bit in the core mask. */
static void test_cores_by_bit(void **unused)
{
	(void)unused;
	struct ring r;
	size_t size = 12 * 48 + 9 * 128 * 8;
	ring_init(&r, size);
	layout(&r, false, 48);
	r.l.core_mask = 0x2D; /* cores 0,2,3,5 */
	write_sample(&r, 0, false);
	static const uint8_t bits[] = { 0, 2, 3, 5 };
	for (int k = 0; k < 4; k++)
		item(&r, 0, 6 + k)[9] = bits[k];
	struct og_kinstr_sample s;
	char why[320];
	assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why),
	                 OG_KINSTR_BAD_CORE_IDX);
	r.l.cores_by_bit = true;
	assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why),
	                 OG_KINSTR_OK);
	item(&r, 0, 8)[9] = 4; /* a bit that is not a core */
	assert_int_equal(og_kinstr_parse_sample(&r.l, r.map, 0, &s, why, sizeof why),
	                 OG_KINSTR_BAD_CORE_IDX);
	ring_fini(&r);
}

/* Sums against a plain 64-bit sum, and saturation where they would wrap:
 * every copy of the sum this CPU runs (the one a layout picks included),
 * block lengths of whole chunks and not, blocks not vector-aligned. */
static void test_sums(void **unused)
{
	(void)unused;
	static const uint64_t fills[] = { 0, 1, 0xFFFFFFFFull, 1ull << 57, 1ull << 62, UINT64_MAX };
	static const uint32_t lengths[] = { 128, 64, 16, 48, 80, 112 };
	enum { K = 64, V = 128 };
	uint8_t *buf = malloc((size_t)K * V * 8 + 8);
	assert_non_null(buf);
	uint32_t at[K];
	struct og_kinstr_layout l;
	memset(&l, 0, sizeof l);
	struct list li;
	struct og_kinstr_enum e;
	char why[256];
	good(&li);
	li.it[8].u.block.num_instances = K;
	assert_true(og_kinstr_parse_enum(li.it, li.n, sizeof li.it[0], &e, why, sizeof why));
	assert_true(og_kinstr_layout_init(&l, &e, ~0ull, 48, (size_t)K * V * 8 + 8, why,
	                                  sizeof why));
	struct og_kinstr_sum_copy copies[4];
	size_t ncopies = og_kinstr_sum_copies(copies, 4);
	assert_true(ncopies >= 1);
	assert_ptr_equal(l.sum, copies[0].sum); /* the widest this CPU runs */
	assert_string_equal(copies[ncopies - 1].name, "default");
#if defined(__ARM_NEON) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	assert_string_equal(copies[0].name, "neon"); /* UQADD, checked like the others */
#endif
	for (size_t c = 0; c < ncopies; c++)
		for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++)
			for (size_t n = 0; n < sizeof lengths / sizeof lengths[0]; n++)
				for (uint32_t k = 1; k <= K; k = k * 2 + 1) {
					uint32_t nv = lengths[n];
					for (uint32_t i = 0; i < k; i++) {
						at[i] = 8 + i * nv * 8; /* not vector-aligned */
						for (uint32_t v = 0; v < nv; v++) {
							uint64_t x = fills[f] ? fills[f] - v * (i + 1) % 7
							                      : v * 977u + i;
							memcpy(buf + at[i] + v * 8, &x, 8);
						}
					}
					uint64_t got[V + 1];
					got[nv] = 0xA5A5A5A5A5A5A5A5ull;
					copies[c].sum(buf, at, k, nv, got);
					assert_true(got[nv] == 0xA5A5A5A5A5A5A5A5ull); /* nothing past nv */
					for (uint32_t v = 0; v < nv; v++) {
						uint64_t want = 0;
						for (uint32_t i = 0; i < k; i++) {
							uint64_t x;
							memcpy(&x, buf + at[i] + v * 8, 8);
							want = want + x < want ? UINT64_MAX : want + x;
						}
						if (got[v] != want)
							fail_msg("%s copy, fill %zu, %u blocks of %u, value %u: "
							         "%llu, want %llu", copies[c].name, f, k, nv, v,
							         (unsigned long long)got[v],
							         (unsigned long long)want);
					}
				}
	/* og_kinstr_sum puts each type's sums at its place in the totals. */
	struct og_kinstr_sample s;
	memset(&s, 0, sizeof s);
	s.count[OG_MALI_SC] = 3;
	for (uint32_t i = 0; i < 3; i++) {
		s.at[OG_MALI_SC][i] = 8 + i * V * 8;
		for (uint32_t v = 0; v < V; v++) {
			uint64_t x = v + 1000u * i;
			memcpy(buf + s.at[OG_MALI_SC][i] + v * 8, &x, 8);
		}
	}
	struct og_mali_totals t;
	og_kinstr_sum(&l, buf, &s, &t);
	for (uint32_t v = 0; v < V; v++)
		assert_true(og_mali_total(&t, OG_MALI_SC * 128 + v) == 3u * v + 3000u);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_block_states),
		cmocka_unit_test(test_sample_rules),
		cmocka_unit_test(test_cores_by_bit),
		cmocka_unit_test(test_sums),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
