/* SPDX-License-Identifier: MIT */
/*
 * test_vmali_kinstr.c — the virtual device's kinstr_prfcnt against the
 * kernel behaviour the reference describes (mali-kinstr-prfcnt.md §2, §3):
 * which drivers have it, the ENUM_INFO list, SETUP's checks, the commands,
 * GET/PUT_SAMPLE, poll, the sample layout and its values, a full ring, the
 * early drivers' differences and periodic mode.  Items are read byte by byte
 * at the reference's offsets.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cmocka.h>

#include "vmali_testlib.h"

static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
/* The kernel's structs are in CPU byte order. */
static void wr16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

struct dev {
	struct vmali *vm;
	const struct og_sys *s;
	int fd;
};

static void dev_open(struct dev *d, const struct vmali_config *cfg)
{
	d->vm = vmali_create(cfg);
	assert_non_null(d->vm);
	d->s = vmali_sys(d->vm);
	d->fd = tl_open_kbase(d->s);
	assert_true(d->fd >= 0);
}

static void dev_close(struct dev *d)
{
	d->s->close(d->s->ctx, d->fd);
	struct vmali_stats st;
	vmali_get_stats(d->vm, &st);
	assert_int_equal(st.open_fds, 0);
	vmali_destroy(d->vm);
}

static struct vmali_config cfg_of(uint32_t id, bool csf, uint16_t minor, uint64_t mask,
                                  uint32_t slices)
{
	return (struct vmali_config){ .gpu_id = id, .csf = csf, .uk_major = csf ? 1 : 11,
		                      .uk_minor = minor, .core_mask = mask, .l2_slices = slices,
		                      .manual_frames = true };
}

/* ENUM_INFO: count, then the list. */
static uint32_t enum_list(struct dev *d, uint8_t *items, size_t cap)
{
	struct vmali_kinstr_enum_info q = { 0, 0, 0 };
	assert_int_equal(tl_ioctl(d->s, d->fd, VMALI_KBASE_KINSTR_ENUM_INFO, &q), 0);
	assert_int_equal(q.info_item_size, 32);
	assert_true((size_t)q.info_item_count * 32 <= cap);
	q.info_list_ptr = (uint64_t)(uintptr_t)items;
	assert_int_equal(tl_ioctl(d->s, d->fd, VMALI_KBASE_KINSTR_ENUM_INFO, &q), 0);
	return q.info_item_count;
}

/* A request list: MODE, ENABLE for each type in `types` (every value), the
 * sentinel.  Returns the count. */
static uint32_t requests(uint8_t *buf, uint8_t mode, uint64_t period, uint32_t types, uint8_t set)
{
	uint32_t n = 0;
	memset(buf, 0, 32 * 10);
	uint8_t *it = buf;
	wr16(it, 0x1000); /* MODE */
	it[8] = mode;
	memcpy(it + 16, &period, 8);
	n++;
	for (uint32_t t = 0; t < 6; t++) {
		if (!(types >> t & 1))
			continue;
		it = buf + 32 * n++;
		wr16(it, 0x1001); /* ENABLE */
		it[8] = (uint8_t)t;
		it[9] = set;
		memset(it + 16, 0xFF, 16);
	}
	return n + 1; /* the sentinel, already zero */
}

struct client {
	int fd;
	uint32_t item, size;
	const uint8_t *map;
};

static int setup(struct dev *d, const uint8_t *req, uint32_t count, struct client *c)
{
	struct vmali_kinstr_setup_in in = { count, 32, (uint64_t)(uintptr_t)req };
	int fd = tl_ioctl(d->s, d->fd, VMALI_KBASE_KINSTR_SETUP, &in);
	if (fd < 0)
		return fd;
	struct vmali_kinstr_setup_out out;
	memcpy(&out, &in, sizeof(out));
	c->fd = fd;
	c->item = out.prfcnt_metadata_item_size;
	c->size = out.prfcnt_mmap_size_bytes;
	void *m = d->s->mmap(d->s->ctx, NULL, c->size, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	c->map = m;
	return fd;
}

static void client_close(struct dev *d, struct client *c)
{
	d->s->munmap(d->s->ctx, (void *)(uintptr_t)c->map, c->size);
	d->s->close(d->s->ctx, c->fd);
}

static int cmd(struct dev *d, struct client *c, uint16_t code, uint64_t user_data)
{
	struct vmali_kinstr_control_cmd k = { code, { 0 }, user_data };
	return tl_ioctl(d->s, c->fd, VMALI_KINSTR_IOCTL_CMD, &k);
}

static int get(struct dev *d, struct client *c, struct vmali_kinstr_sample_access *a)
{
	return tl_ioctl(d->s, c->fd, VMALI_KINSTR_IOCTL_GET_SAMPLE, a);
}

static int put(struct dev *d, struct client *c, const struct vmali_kinstr_sample_access *a)
{
	struct vmali_kinstr_sample_access copy = *a;
	return tl_ioctl(d->s, c->fd, VMALI_KINSTR_IOCTL_PUT_SAMPLE, &copy);
}

static bool readable(struct dev *d, struct client *c, int timeout_ms)
{
	struct pollfd p = { c->fd, POLLIN, 0 };
	return d->s->poll(d->s->ctx, &p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

/* ---- which drivers have it ---- */

static void test_versions(void **unused)
{
	(void)unused;
	static const struct {
		bool csf;
		uint16_t minor;
		bool kinstr, vinstr;
	} cases[] = {
		{ false, 31, false, true }, { false, 33, false, true }, { false, 34, true, true },
		{ false, 39, true, true },  { false, 40, true, false }, { true, 9, false, true },
		{ true, 10, true, true },   { true, 20, true, true },   { true, 21, true, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct dev d;
		struct vmali_config c = cfg_of(cases[i].csf ? 0xa002 : 0x6000, cases[i].csf,
		                               cases[i].minor, 0xF, 1);
		dev_open(&d, &c);
		struct vmali_kinstr_enum_info q = { 0, 0, 0 };
		assert_int_equal(tl_ioctl(d.s, d.fd, VMALI_KBASE_KINSTR_ENUM_INFO, &q),
		                 cases[i].kinstr ? 0 : -ENOTTY);
		struct tl_reader r;
		int e = tl_reader_open(d.s, d.fd, 4, NULL, &r);
		assert_int_equal(e < 0 ? e : 0, cases[i].vinstr ? 0 : -ENOTTY);
		if (!e)
			tl_reader_close(d.s, &r);
		dev_close(&d);
	}
}

/* ---- ENUM_INFO ---- */

static void test_enum_info(void **unused)
{
	(void)unused;
	struct dev d;
	struct vmali_config c = cfg_of(0xc000, true, 21, 0x5B, 3); /* G720, 5 cores, 3 slices */
	dev_open(&d, &c);
	uint8_t items[32 * 16];
	uint32_t n = enum_list(&d, items, sizeof items);
	/* MODE, ENABLE, SAMPLE_INFO, FW, CSG, FE, TILER, MEMORY, SC, sentinel */
	assert_int_equal(n, 10);
	assert_int_equal(rd16(items), 0x0001);
	assert_int_equal(rd16(items + 8), 0);
	assert_int_equal(rd32(items + 12) & 1, 1);
	assert_int_equal(rd16(items + 32 + 8), 1);
	assert_int_equal(rd16(items + 64), 0x0002);
	assert_int_equal(rd32(items + 64 + 8), 2); /* clock domains */
	static const struct {
		uint8_t type;
		uint16_t instances;
	} blocks[] = { { 4, 1 }, { 5, 2 }, { 0, 1 }, { 1, 1 }, { 2, 3 }, { 3, 5 } };
	for (int b = 0; b < 6; b++) {
		const uint8_t *it = items + 32 * (3 + b);
		assert_int_equal(rd16(it), 0x0000);
		assert_int_equal(it[8], blocks[b].type);
		assert_int_equal(it[9], 0);
		assert_int_equal(rd16(it + 12), blocks[b].instances);
		assert_int_equal(rd16(it + 14), 128);
		assert_true(rd64(it + 16) == ~0ull && rd64(it + 24) == ~0ull);
	}
	static const uint8_t zero[32];
	assert_memory_equal(items + 32 * 9, zero, 32);
	/* The list call must repeat the count and give a pointer. */
	struct vmali_kinstr_enum_info q = { 32, 9, (uint64_t)(uintptr_t)items };
	assert_int_equal(tl_ioctl(d.s, d.fd, VMALI_KBASE_KINSTR_ENUM_INFO, &q), -EINVAL);
	q = (struct vmali_kinstr_enum_info){ 48, 10, (uint64_t)(uintptr_t)items };
	assert_int_equal(tl_ioctl(d.s, d.fd, VMALI_KBASE_KINSTR_ENUM_INFO, &q), -EINVAL);
	dev_close(&d);

	/* A job-manager GPU: no firmware or CSG blocks, one clock domain. */
	c = cfg_of(0x6000, false, 40, 0xFF, 1);
	dev_open(&d, &c);
	n = enum_list(&d, items, sizeof items);
	assert_int_equal(n, 8);
	assert_int_equal(rd32(items + 64 + 8), 1);
	assert_int_equal(items[32 * 3 + 8], 0);
	assert_int_equal(rd16(items + 32 * 6 + 12), 8);
	assert_int_equal(rd16(items + 32 * 6 + 14), 64);
	dev_close(&d);
}

/* ---- SETUP's checks ---- */

static void test_setup_rules(void **unused)
{
	(void)unused;
	struct dev d;
	struct vmali_config c = cfg_of(0x6000, false, 40, 0xFF, 2);
	dev_open(&d, &c);
	uint8_t req[32 * 40];
	struct client cl = { -1, 0, 0, NULL };
	uint32_t n = requests(req, 0, 0, 0xF, 0);
	struct vmali_kinstr_setup_in in;

	/* Null list, fewer than 2 items, zero item size, too many items. */
	in = (struct vmali_kinstr_setup_in){ n, 32, 0 };
	assert_int_equal(tl_ioctl(d.s, d.fd, VMALI_KBASE_KINSTR_SETUP, &in), -EINVAL);
	in = (struct vmali_kinstr_setup_in){ 1, 32, (uint64_t)(uintptr_t)req };
	assert_int_equal(tl_ioctl(d.s, d.fd, VMALI_KBASE_KINSTR_SETUP, &in), -EINVAL);
	in = (struct vmali_kinstr_setup_in){ n, 0, (uint64_t)(uintptr_t)req };
	assert_int_equal(tl_ioctl(d.s, d.fd, VMALI_KBASE_KINSTR_SETUP, &in), -EINVAL);
	in = (struct vmali_kinstr_setup_in){ 17, 32, (uint64_t)(uintptr_t)req }; /* > 2 x 8 */
	assert_int_equal(tl_ioctl(d.s, d.fd, VMALI_KBASE_KINSTR_SETUP, &in), -EINVAL);

	/* No sentinel at the end. */
	memset(req + 32 * (n - 1), 0, 32);
	wr16(req + 32 * (n - 1), 0x1001);
	assert_int_equal(setup(&d, req, n, &cl), -EINVAL);
	/* An item of version 1, an unknown item type. */
	n = requests(req, 0, 0, 0xF, 0);
	wr16(req + 32 + 2, 1);
	assert_int_equal(setup(&d, req, n, &cl), -EINVAL);
	n = requests(req, 0, 0, 0xF, 0);
	wr16(req + 32, 0x1007);
	assert_int_equal(setup(&d, req, n, &cl), -EINVAL);
	/* A mode that is not manual or periodic; periodic without a period. */
	n = requests(req, 2, 0, 0xF, 0);
	assert_int_equal(setup(&d, req, n, &cl), -EINVAL);
	n = requests(req, 1, 0, 0xF, 0);
	assert_int_equal(setup(&d, req, n, &cl), -EINVAL);
	/* A block type this GPU lacks (firmware on a job-manager GPU). */
	n = requests(req, 0, 0, 0x1F, 0);
	assert_int_equal(setup(&d, req, n, &cl), -EINVAL);
	/* A set that is not the driver's. */
	n = requests(req, 0, 0, 0xF, 1);
	assert_int_equal(setup(&d, req, n, &cl), -EINVAL);
	/* No ENABLE at all. */
	n = requests(req, 0, 0, 0, 0);
	assert_int_equal(setup(&d, req, n, &cl), -EINVAL);

	/* A good list: the fd, 48-byte items, 32 samples of the slot size. */
	n = requests(req, 0, 0, 0xF, 0);
	assert_true(setup(&d, req, n, &cl) >= 0);
	assert_int_equal(cl.item, 48);
	uint32_t blocks = 1 + 1 + 2 + 8, all = 1 + 1 + 2 + 8;
	uint32_t slot = 48 * (blocks + 3) + all * 64 * 8 + 8 * 1;
	assert_int_equal(cl.size, 32 * slot);
	client_close(&d, &cl);
	dev_close(&d);
}

/* ---- commands, GET/PUT, poll, the sample's contents ---- */

static void test_manual_samples(void **unused)
{
	(void)unused;
	struct dev d;
	struct vmali_config c = cfg_of(0xa002, true, 21, 0x2D, 2); /* cores 0,2,3,5 */
	dev_open(&d, &c);
	uint8_t req[32 * 10];
	struct client cl = { -1, 0, 0, NULL };
	/* Front end and shader cores only, and of the front end only the
	 * first 16 values: the rest read zero. */
	uint32_t n = requests(req, 0, 0, (1u << 0) | (1u << 3), 0);
	memset(req + 32 + 16, 0, 16);
	wr64(req + 32 + 16, 0xFFFF);
	assert_true(setup(&d, req, n, &cl) >= 0);
	struct vmali_kinstr_sample_access a;

	assert_int_equal(cmd(&d, &cl, 3, 7), -EINVAL); /* SYNC before START */
	assert_int_equal(cmd(&d, &cl, 2, 7), -EINVAL); /* STOP before START */
	assert_int_equal(get(&d, &cl, &a), -EINVAL);   /* nothing ready */
	assert_false(readable(&d, &cl, 0));
	assert_int_equal(cmd(&d, &cl, 1, 100), 0);
	assert_int_equal(cmd(&d, &cl, 1, 100), 0); /* START again: nothing */
	assert_int_equal(cmd(&d, &cl, 4, 7), -EINVAL); /* no SAMPLE_ASYNC since 1.17 */
	assert_int_equal(cmd(&d, &cl, 9, 7), -EINVAL);

	uint64_t prev_end = 0;
	for (uint64_t k = 0; k < 3; k++) {
		uint64_t fe0 = vmali_total(d.vm, VMALI_BLOCK_FE, VMALI_ALL, 4);
		uint64_t fe20 = vmali_total(d.vm, VMALI_BLOCK_FE, VMALI_ALL, 20);
		uint64_t sc[6];
		for (int core = 0; core < 6; core++)
			sc[core] = vmali_total(d.vm, VMALI_BLOCK_SC, core, 9);
		vmali_run_frames(d.vm, 2);
		assert_int_equal(cmd(&d, &cl, 3, 1000 + k), 0);
		assert_true(readable(&d, &cl, 0));
		assert_int_equal(get(&d, &cl, &a), 0);
		struct vmali_kinstr_sample_access a2;
		assert_int_equal(get(&d, &cl, &a2), -EBUSY); /* one out, nothing more ready: kbase says EBUSY */
		assert_false(readable(&d, &cl, 0)); /* fetched: not ready again */
		assert_int_equal(a.sequence, k);
		const uint8_t *m = cl.map + a.sample_offset_bytes;
		assert_int_equal(a.sample_offset_bytes % (cl.size / 32), 0);
		assert_int_equal(rd16(m), 0x2000);
		assert_int_equal(rd64(m + 24), k);           /* seq */
		assert_int_equal(rd64(m + 32), 1000 + k);    /* user_data */
		assert_int_equal(rd32(m + 40), 0);           /* flags */
		uint64_t ts0 = rd64(m + 8), ts1 = rd64(m + 16);
		assert_true(ts1 >= ts0);
		if (k)
			assert_int_equal(ts0, prev_end);
		prev_end = ts1;
		assert_int_equal(rd16(m + 48), 0x2001);
		assert_int_equal(rd32(m + 48 + 8), 2);
		/* The front end, then the four present cores numbered 0..3. */
		const uint8_t *b = m + 96;
		assert_int_equal(rd16(b), 0x2002);
		assert_int_equal(b[8], 0);
		const uint8_t *v = cl.map + rd32(b + 16);
		assert_int_equal(rd64(v + 8 * 4), vmali_total(d.vm, VMALI_BLOCK_FE, VMALI_ALL, 4) - fe0);
		assert_true(rd64(v + 8 * 4) > 0);
		assert_true(vmali_total(d.vm, VMALI_BLOCK_FE, VMALI_ALL, 20) > fe20);
		assert_int_equal(rd64(v + 8 * 20), 0); /* not enabled */
		assert_int_equal(rd64(v + 8 * 2), 0x000F); /* PRFCNT_EN: values 0..15 */
		static const int bits[4] = { 0, 2, 3, 5 };
		for (int core = 0; core < 4; core++) {
			b = m + 96 + 48 * (1 + core);
			assert_int_equal(rd16(b), 0x2002);
			assert_int_equal(b[8], 3);
			assert_int_equal(b[9], core);
			v = cl.map + rd32(b + 16);
			assert_true(rd32(b + 16) >= a.sample_offset_bytes + 48 * 8);
			assert_int_equal(rd64(v + 8 * 9),
			                 vmali_total(d.vm, VMALI_BLOCK_SC, bits[core], 9) - sc[bits[core]]);
		}
		static const uint8_t zero[48];
		assert_memory_equal(m + 96 + 48 * 5, zero, 48);
		struct vmali_kinstr_sample_access bad = a;
		bad.sequence++;
		assert_int_equal(put(&d, &cl, &bad), -EINVAL);
		bad = a;
		bad.sample_offset_bytes += 48;
		assert_int_equal(put(&d, &cl, &bad), -EINVAL);
		assert_int_equal(put(&d, &cl, &a), 0);
		assert_int_equal(put(&d, &cl, &a), -EINVAL); /* nothing out */
	}
	/* One out at a time, even with another ready. */
	assert_int_equal(cmd(&d, &cl, 3, 1), 0);
	assert_int_equal(cmd(&d, &cl, 3, 2), 0);
	assert_int_equal(get(&d, &cl, &a), 0);
	struct vmali_kinstr_sample_access a3;
	assert_int_equal(get(&d, &cl, &a3), -EBUSY);
	assert_int_equal(put(&d, &cl, &a), 0);
	assert_int_equal(get(&d, &cl, &a), 0);
	assert_int_equal(put(&d, &cl, &a), 0);
	/* As kbase: a second GET while one is out is EBUSY even with nothing
	 * more ready (EINVAL only when nothing is unread). */
	struct vmali_kinstr_sample_access first, next;
	assert_int_equal(cmd(&d, &cl, 3, 7), 0);
	assert_int_equal(get(&d, &cl, &first), 0);
	assert_int_equal(first.sequence, a.sequence + 1);
	assert_int_equal(get(&d, &cl, &a3), -EBUSY);
	assert_int_equal(put(&d, &cl, &first), 0);
	assert_int_equal(get(&d, &cl, &a3), -EINVAL);
	/* As kbase: a PUT of the oldest unread sample without a GET returns 0
	 * and changes nothing; the sample is still there to GET. */
	assert_true(a.sequence % 32 != 31 && first.sequence % 32 != 31); /* no ring wrap */
	uint64_t stride = first.sample_offset_bytes - a.sample_offset_bytes;
	assert_int_equal(cmd(&d, &cl, 3, 8), 0);
	next.sequence = first.sequence + 1;
	next.sample_offset_bytes = first.sample_offset_bytes + stride;
	assert_int_equal(put(&d, &cl, &next), 0);
	assert_int_equal(get(&d, &cl, &a3), 0);
	assert_int_equal(a3.sequence, next.sequence);
	assert_int_equal(a3.sample_offset_bytes, next.sample_offset_bytes);
	assert_int_equal(put(&d, &cl, &a3), 0);
	/* STOP writes a last sample with its own user_data. */
	assert_int_equal(cmd(&d, &cl, 2, 55), 0);
	assert_int_equal(get(&d, &cl, &a), 0);
	assert_int_equal(rd64(cl.map + a.sample_offset_bytes + 32), 55);
	assert_int_equal(put(&d, &cl, &a), 0);
	assert_int_equal(cmd(&d, &cl, 2, 55), -EINVAL);

	/* DISCARD drops what was not fetched. */
	assert_int_equal(cmd(&d, &cl, 1, 1), 0);
	for (int k = 0; k < 3; k++)
		assert_int_equal(cmd(&d, &cl, 3, 1), 0);
	assert_int_equal(cmd(&d, &cl, 5, 0), 0);
	assert_false(readable(&d, &cl, 0));
	assert_int_equal(get(&d, &cl, &a), -EINVAL);
	client_close(&d, &cl);
	dev_close(&d);
}

/* The ring: SAMPLE_SYNC refused with 31 waiting (one slot stays for STOP's
 * sample), START refused with 32. */
static void test_full_ring(void **unused)
{
	(void)unused;
	for (int early = 0; early <= 1; early++) {
		struct dev d;
		struct vmali_config c = cfg_of(0x6000, false, early ? 35 : 40, 0xF, 1);
		dev_open(&d, &c);
		uint8_t req[32 * 10];
		struct client cl = { -1, 0, 0, NULL };
		assert_true(setup(&d, req, requests(req, 0, 0, 0xF, 0), &cl) >= 0);
		assert_int_equal(cmd(&d, &cl, 1, 0), 0);
		int room = early ? 32 : 31;
		for (int k = 0; k < room; k++)
			assert_int_equal(cmd(&d, &cl, 3, (uint64_t)k), 0);
		assert_int_equal(cmd(&d, &cl, 3, 99), -EBUSY);
		/* STOP's sample: there on fixed drivers, lost on early ones. */
		assert_int_equal(cmd(&d, &cl, 2, 77), 0);
		assert_int_equal(cmd(&d, &cl, 1, 0), -EBUSY); /* 32 waiting */
		struct vmali_kinstr_sample_access a;
		int got = 0;
		uint64_t last = 0;
		while (get(&d, &cl, &a) == 0) {
			last = rd64(cl.map + a.sample_offset_bytes + 32);
			assert_int_equal(put(&d, &cl, &a), 0);
			got++;
		}
		assert_int_equal(got, 32);
		assert_int_equal(last, early ? 31 : 77);
		client_close(&d, &cl);
		dev_close(&d);
	}
}

/* Early drivers: cores by their bit, SAMPLE_ASYNC completing later. */
static void test_early_driver(void **unused)
{
	(void)unused;
	struct dev d;
	struct vmali_config c = cfg_of(0xa007, true, 12, 0x2D, 1);
	dev_open(&d, &c);
	uint8_t req[32 * 10];
	struct client cl = { -1, 0, 0, NULL };
	assert_true(setup(&d, req, requests(req, 0, 0, 1u << 3, 0), &cl) >= 0);
	assert_int_equal(cmd(&d, &cl, 1, 0), 0);
	assert_int_equal(cmd(&d, &cl, 4, 42), 0);
	assert_int_equal(cmd(&d, &cl, 4, 43), -EBUSY); /* one in flight */
	assert_true(readable(&d, &cl, 1000));
	struct vmali_kinstr_sample_access a;
	assert_int_equal(get(&d, &cl, &a), 0);
	const uint8_t *m = cl.map + a.sample_offset_bytes;
	assert_int_equal(rd64(m + 32), 42);
	static const int bits[4] = { 0, 2, 3, 5 };
	for (int k = 0; k < 4; k++)
		assert_int_equal(m[96 + 48 * k + 9], bits[k]);
	assert_int_equal(put(&d, &cl, &a), 0);
	client_close(&d, &cl);
	dev_close(&d);
}

/* Periodic: samples on their own, START's user_data, and OVERFLOW on the
 * one after the ring was full. */
static void test_periodic(void **unused)
{
	(void)unused;
	struct dev d;
	struct vmali_config c = cfg_of(0x6000, false, 40, 0xF, 1);
	dev_open(&d, &c);
	uint8_t req[32 * 10];
	struct client cl = { -1, 0, 0, NULL };
	/* A period below the floor is raised to 100 us. */
	assert_true(setup(&d, req, requests(req, 1, 1000, 0xF, 0), &cl) >= 0);
	assert_int_equal(cmd(&d, &cl, 3, 0), -EINVAL); /* no manual samples */
	assert_int_equal(cmd(&d, &cl, 1, 5), 0);
	struct timespec t = { 0, 20 * 1000 * 1000 }; /* 20 ms: 200 periods, ring of 32 */
	nanosleep(&t, NULL);
	vmali_run_frames(d.vm, 1);
	struct vmali_kinstr_sample_access a;
	int n = 0;
	uint32_t overflowed = 0;
	while (readable(&d, &cl, 0) && get(&d, &cl, &a) == 0) {
		const uint8_t *m = cl.map + a.sample_offset_bytes;
		assert_int_equal(rd64(m + 32), 5);
		overflowed |= rd32(m + 40) & 1;
		assert_int_equal(put(&d, &cl, &a), 0);
		n++;
		if (n == 31) {
			/* Now the ring has room again: the next sample says what it
			 * missed. */
			t.tv_nsec = 300 * 1000;
			nanosleep(&t, NULL);
		}
	}
	assert_true(n >= 31);
	assert_int_equal(overflowed, 1);
	struct vmali_stats st;
	vmali_get_stats(d.vm, &st);
	assert_true(st.periodic_dropped > 0);
	assert_int_equal(cmd(&d, &cl, 2, 6), 0);
	client_close(&d, &cl);
	dev_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_enum_info),
		cmocka_unit_test(test_setup_rules),
		cmocka_unit_test(test_manual_samples),
		cmocka_unit_test(test_full_ring),
		cmocka_unit_test(test_early_driver),
		cmocka_unit_test(test_periodic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
