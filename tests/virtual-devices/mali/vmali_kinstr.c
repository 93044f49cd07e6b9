/* SPDX-License-Identifier: MIT */
/*
 * vmali_kinstr.c — kinstr_prfcnt as a kbase driver of the configured version
 * has it (/work/shared/reference/mali-kinstr-prfcnt.md §2, §3, §8): the
 * ENUM_INFO list, SETUP with the kernel's own checks, a reader fd whose
 * memfd holds a ring of 32 samples (metadata items, then every block's
 * 64-bit values, then the clock cycles), START / STOP / SAMPLE_SYNC /
 * SAMPLE_ASYNC / DISCARD, GET_SAMPLE / PUT_SAMPLE, poll and periodic mode.
 *
 * Driver generations: from JM 11.34 / CSF 1.10 the interface exists; before
 * JM 11.37 / CSF 1.17 it numbers shader-core blocks by their bit in the
 * core mask, still has SAMPLE_ASYNC and takes no STOP sample when the ring
 * is full.  From JM 11.41 / CSF 1.23 blocks report their power state.
 *
 * Items are written byte by byte at the offsets the reference gives,
 * independently of the backend's structs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vmali_internal.h"

#define RING_SAMPLES VMALI_KINSTR_BUFFERS
#define ENUM_MAX_ITEMS 16u
#define REQUEST_MAX_BYTES 1024u

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static bool early(const struct vmali *vm)
{
	return !vmali_uk_at_least(&vm->cfg, 37, 17);
}

/* Unconsumed samples that fill the ring: early drivers let samples take
 * every slot, later ones keep the last for STOP's sample. */
static uint64_t room(const struct vmali *vm)
{
	return early(vm) ? RING_SAMPLES : RING_SAMPLES - 1;
}

static bool available(const struct vmali *vm)
{
	return vmali_uk_at_least(&vm->cfg, 34, 10) && !vm->faults.kinstr_absent;
}

/* A device-fd call this driver does not have (ENOTTY, as the kernel's
 * ioctl switch), or one without an argument (EFAULT): errno set. */
static bool refused(const struct vmali *vm, const void *arg)
{
	int e = !available(vm) ? ENOTTY : !arg ? EFAULT : 0;
	if (e) /* a call that succeeds leaves errno alone */
		errno = e;
	return e != 0;
}

/* Instances kinstr_prfcnt lists: shader cores present, the rest all. */
static uint32_t listed(const struct vmali_geom *g, uint32_t t)
{
	return t == VMALI_BLOCK_SC ? (uint32_t)__builtin_popcountll(g->core_mask) : g->count[t];
}

/* Block types in metadata order. */
static const uint32_t order[] = { VMALI_BLOCK_FW, VMALI_BLOCK_CSG, VMALI_BLOCK_FE,
	                          VMALI_BLOCK_TILER, VMALI_BLOCK_L2, VMALI_BLOCK_SC };

/* The enumeration; returns its item count, writes it when buf is set. */
static uint32_t enum_items(const struct vmali *vm, uint8_t *buf, uint32_t item_size)
{
	const struct vmali_geom *g = &vm->geom;
	uint32_t n = 0;
#define ITEM (buf ? buf + (size_t)n * item_size : NULL)
	/* The two requests it accepts, version 0 only. */
	for (uint16_t rt = 0; rt < 2; rt++, n++)
		if (buf) {
			put16(ITEM, VMALI_KINSTR_TYPE_ENUM_REQUEST);
			put16(ITEM + 8, rt);
			put32(ITEM + 12, 1u);
		}
	if (buf) {
		put16(ITEM, VMALI_KINSTR_TYPE_ENUM_SAMPLE_INFO);
		put32(ITEM + 8, g->clock_domains);
	}
	n++;
	if (vm->faults.enum_unknown_item) {
		if (buf)
			put16(ITEM, 0x0003u);
		n++;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint32_t t = order[i];
		if (!g->count[t])
			continue;
		if (buf) {
			ITEM[8] = (uint8_t)t;
			ITEM[9] = vm->cfg.counter_set;
			put16(ITEM + 12, (uint16_t)listed(g, t));
			put16(ITEM + 14, (uint16_t)g->values);
			put64(ITEM + 16, ~0ull); /* the kernel's placeholder: all ones */
			put64(ITEM + 24, ~0ull);
		}
		n++;
	}
	if (vm->cfg.neural_engine) {
		if (buf) {
			ITEM[8] = VMALI_KINSTR_BLOCK_NE;
			ITEM[9] = vm->cfg.counter_set;
			put16(ITEM + 12, 1);
			put16(ITEM + 14, (uint16_t)g->values);
		}
		n++;
	}
	n++; /* the sentinel: all zero */
#undef ITEM
	return n;
}

int vmali_kinstr_enum_info(struct vmali *vm, void *arg)
{
	if (refused(vm, arg))
		return -1;
	struct vmali_kinstr_enum_info q;
	memcpy(&q, arg, sizeof(q));
	uint32_t size = vm->faults.enum_item_size ? vm->faults.enum_item_size
	                                          : VMALI_KINSTR_ENUM_ITEM_SIZE;
	uint32_t count = enum_items(vm, NULL, size);
	if (!q.info_list_ptr) {
		q.info_item_size = size;
		q.info_item_count = count;
		memcpy(arg, &q, sizeof(q));
		return 0;
	}
	if (q.info_item_size != size || q.info_item_count != count) {
		errno = EINVAL;
		return -1;
	}
	uint8_t *buf = (uint8_t *)(uintptr_t)q.info_list_ptr;
	memset(buf, 0, (size_t)size * count);
	enum_items(vm, buf, size);
	return 0;
}

/* ---- SETUP ---- */

static bool type_exists(const struct vmali *vm, uint32_t t)
{
	return t < VMALI_BLOCK_TYPES && vm->geom.count[t] > 0;
}

static int einval(void)
{
	errno = EINVAL;
	return -1;
}

/* Validates the request list as the kernel does; fills k. */
static int parse_requests(struct vmali *vm, const uint8_t *items, uint32_t count,
                          struct vmali_kinstr *k)
{
	bool have_mode = false, have_scope = false, have_set = false;
	uint8_t scope = 0;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *it = items + (size_t)i * VMALI_KINSTR_REQUEST_ITEM_SIZE;
		uint16_t type = get16(it), version = get16(it + 2);
		if (i + 1 == count) {
			if (type != 0 || version != 0)
				return einval(); /* the list must end with the sentinel */
			break;
		}
		if (version > 0)
			return einval();
		switch (type) {
		case VMALI_KINSTR_TYPE_REQ_MODE: {
			uint8_t mode = it[8];
			uint64_t period = get64(it + 16);
			if (mode > VMALI_KINSTR_MODE_PERIODIC || (have_mode && mode != k->mode))
				return einval();
			if (mode == VMALI_KINSTR_MODE_PERIODIC) {
				if (period == 0)
					return einval();
				if (period < VMALI_KINSTR_PERIOD_MIN_NS)
					period = VMALI_KINSTR_PERIOD_MIN_NS;
				k->period_ns = period;
			}
			k->mode = mode;
			have_mode = true;
			break;
		}
		case VMALI_KINSTR_TYPE_REQ_ENABLE: {
			uint32_t t = it[8];
			uint8_t set = it[9];
			if (!type_exists(vm, t))
				return einval();
			if (set != vm->cfg.counter_set || (have_set && set != k->set))
				return einval();
			k->set = set;
			have_set = true;
			k->enabled |= 1u << t;
			k->mask[t][0] |= get64(it + 16); /* repeated requests are OR-ed */
			k->mask[t][1] |= get64(it + 24);
			break;
		}
		case VMALI_KINSTR_TYPE_REQ_SCOPE:
			if (have_scope && it[8] != scope)
				return einval();
			scope = it[8];
			have_scope = true;
			break;
		default:
			return einval();
		}
	}
	if (!have_mode || !have_set)
		return einval();
	return 0;
}

void vmali_kinstr_free(struct vmali_kinstr *k)
{
	if (!k)
		return;
	if (k->ring)
		vmali_os_munmap(k->ring, k->ring_len);
	free(k->acc.v);
	free(k);
}

int vmali_kinstr_setup(struct vmali *vm, void *arg)
{
	if (refused(vm, arg))
		return -1;
	struct vmali_kinstr_setup_in in;
	memcpy(&in, arg, sizeof(in));
	uint32_t enum_count = enum_items(vm, NULL, VMALI_KINSTR_ENUM_ITEM_SIZE);
	/* The kernel copies count x its own item size; request_item_size is
	 * only checked for being non-zero. */
	if (!in.requests_ptr || in.request_item_count < 2 || in.request_item_size == 0 ||
	    in.request_item_count > 2 * enum_count ||
	    (uint64_t)in.request_item_count * VMALI_KINSTR_REQUEST_ITEM_SIZE > REQUEST_MAX_BYTES)
		return einval();
	if (vm->faults.setup_ebusy) {
		errno = EBUSY;
		return -1;
	}
	struct vmali_kinstr *k = calloc(1, sizeof(*k));
	if (!k || vmali_acc_init(vm, &k->acc)) {
		vmali_kinstr_free(k);
		errno = ENOMEM;
		return -1;
	}
	if (parse_requests(vm, (const uint8_t *)(uintptr_t)in.requests_ptr, in.request_item_count,
	                   k)) {
		vmali_kinstr_free(k);
		return -1;
	}
	const struct vmali_geom *g = &vm->geom;
	for (uint32_t t = 0; t < VMALI_BLOCK_TYPES; t++)
		if (k->enabled >> t & 1)
			k->nmeta_blocks += listed(g, t);
	k->meta_bytes = (size_t)(k->nmeta_blocks + 3) * VMALI_KINSTR_META_ITEM_SIZE;
	k->dump_bytes = (size_t)g->nblocks * g->values * 8u;
	k->sample_size = k->meta_bytes + k->dump_bytes + 8u * g->clock_domains;
	k->ring_len = k->sample_size * RING_SAMPLES;
	int fd = vmali_fd_new(vm, VMALI_FD_KINSTR, k->ring_len);
	if (fd < 0) {
		vmali_kinstr_free(k);
		return -1;
	}
	void *ring = vmali_os_mmap(NULL, k->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct vmali_fd *f = vmali_fd_lookup(vm, fd);
	if (ring == MAP_FAILED) {
		int e = errno;
		vmali_fd_release(vm, f); /* its client is still NULL */
		vmali_kinstr_free(k);
		errno = e;
		return -1;
	}
	k->ring = ring;
	f->u.kinstr = k;
	struct vmali_kinstr_setup_out out = { VMALI_KINSTR_META_ITEM_SIZE, (uint32_t)k->ring_len, 0 };
	memcpy(arg, &out, sizeof(out));
	return fd;
}

/* ---- samples ---- */

static size_t slot_offset(const struct vmali_kinstr *k, uint64_t seq)
{
	return (size_t)(seq % RING_SAMPLES) * k->sample_size;
}

static bool enabled_value(const struct vmali_kinstr *k, uint32_t t, uint32_t i)
{
	return (k->mask[t][i / 64] >> (i % 64)) & 1;
}

/* The 32-bit PRFCNT_EN the hardware got: bit n enables values 4n..4n+3 of
 * the first 64, bit 16 + n those of the next 64. */
static uint32_t prfcnt_en(const struct vmali_kinstr *k, uint32_t t, uint32_t values)
{
	uint32_t en = 0;
	for (uint32_t i = 0; i < values; i++)
		if (enabled_value(k, t, i) || i < 4)
			en |= 1u << (i / 4 % 16 + (i >= 64 ? 16 : 0));
	return en;
}

/* One sample ending at `now` (CLOCK_MONOTONIC_RAW ns): a periodic sample
 * ends at its due time, even when it is written later. */
static void write_sample(struct vmali *vm, struct vmali_kinstr *k, uint64_t user_data,
                         uint32_t flags, uint64_t now)
{
	const struct vmali_geom *g = &vm->geom;
	size_t base = slot_offset(k, k->write_seq);
	uint8_t *s = k->ring + base;
	memset(s, 0, k->sample_size);
	uint8_t *it = s;
	put16(it, VMALI_KINSTR_TYPE_META_SAMPLE);
	put64(it + 8, k->last_ts);
	put64(it + 16, now);
	put64(it + 24, k->write_seq);
	put64(it + 32, user_data);
	put32(it + 40, flags | vm->faults.sample_flags);
	it += VMALI_KINSTR_META_ITEM_SIZE;
	uint32_t domains = g->clock_domains < 4 ? g->clock_domains : 4;
	put16(it, VMALI_KINSTR_TYPE_META_CLOCK);
	put32(it + 8, domains);
	for (uint32_t d = 0; d < domains && d < 2; d++)
		put64(it + 16 + 8 * d, k->acc.cycles[d]);
	it += VMALI_KINSTR_META_ITEM_SIZE;
	bool by_bit = early(vm) || vm->faults.cores_by_bit;
	const bool states = vmali_uk_at_least(&vm->cfg, 41, 23);
	const uint64_t off = states ? vm->faults.cores_powered_off : 0;
	uint32_t state = states ? VMALI_KINSTR_STATE_AVAILABLE |
	                                  (vm->faults.protected_mode ? VMALI_KINSTR_STATE_PROTECTED
	                                                             : VMALI_KINSTR_STATE_NORMAL)
	                        : 0;
	uint8_t *first_block = it, *last_block = NULL;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint32_t t = order[i];
		if (!(k->enabled >> t & 1))
			continue;
		uint32_t dense = 0;
		for (uint32_t inst = 0; inst < g->count[t]; inst++) {
			uint32_t b = g->first[t] + inst;
			if (!vmali_block_present(g, b))
				continue;
			put16(it, VMALI_KINSTR_TYPE_META_BLOCK);
			it[8] = (uint8_t)t;
			it[9] = (uint8_t)(t == VMALI_BLOCK_SC && by_bit ? inst : dense);
			it[10] = k->set;
			uint32_t st = 0;
			if (states)
				st = state | (t == VMALI_BLOCK_SC && inst < 64 && (off >> inst & 1)
				                      ? VMALI_KINSTR_STATE_OFF
				                      : VMALI_KINSTR_STATE_ON);
			put32(it + 12, st ^ (states ? vm->faults.block_state_xor : 0));
			put32(it + 16, (uint32_t)(base + k->meta_bytes + (size_t)b * g->values * 8u));
			last_block = it;
			it += VMALI_KINSTR_META_ITEM_SIZE;
			dense++;
		}
	}
	/* it now points at the sentinel, already zero.  Faults: */
	if (vm->faults.meta_foreign_block && first_block < it)
		first_block[8] = vm->cfg.csf ? VMALI_KINSTR_BLOCK_NE : (uint8_t)VMALI_BLOCK_FW;
	if (vm->faults.meta_bad_offset && last_block)
		put32(last_block + 16, (uint32_t)(k->ring_len - 8));
	if (vm->faults.meta_unknown_item && last_block)
		put16(last_block, 0x2005u);
	/* Every block of the GPU, enabled values only, the header's enable word
	 * showing this client's own map. */
	uint8_t *dump = s + k->meta_bytes;
	for (uint32_t b = 0; b < g->nblocks; b++) {
		uint32_t inst;
		uint32_t t = vmali_block_type(g, b, &inst);
		if (!(k->enabled >> t & 1) || !vmali_block_present(g, b))
			continue;
		/* A powered-off core counts nothing: its counts are lost. */
		if (t == VMALI_BLOCK_SC && inst < 64 && (off >> inst & 1))
			continue;
		uint8_t *v = dump + (size_t)b * g->values * 8u;
		const uint64_t *c = k->acc.v + (size_t)b * g->values;
		put64(v + 16, prfcnt_en(k, t, g->values));
		for (uint32_t i = 4; i < g->values; i++)
			if (enabled_value(k, t, i))
				put64(v + 8u * i, c[i]);
	}
	uint8_t *clk = dump + k->dump_bytes;
	for (uint32_t d = 0; d < g->clock_domains && d < 2; d++)
		put64(clk + 8 * d, k->acc.cycles[d]);
	vmali_acc_clear(vm, &k->acc);
	k->last_ts = now;
	k->write_seq++;
	vm->stats.dumps++;
}

static uint64_t unconsumed(const struct vmali_kinstr *k)
{
	return k->write_seq - k->read_seq;
}

bool vmali_kinstr_ready(const struct vmali_kinstr *k)
{
	return k->fetch_seq != k->write_seq;
}

static void deliver_lost(struct vmali *vm, struct vmali_kinstr *k);

uint64_t vmali_kinstr_catch_up(struct vmali *vm, struct vmali_kinstr *k, uint64_t limit)
{
	deliver_lost(vm, k);
	if (k->async_due_ns && k->async_due_ns <= limit) {
		k->async_due_ns = 0;
		vmali_advance_for_dump(vm);
		write_sample(vm, k, k->async_user_data, 0, vmali_now_ns());
	}
	while (k->started && k->mode == VMALI_KINSTR_MODE_PERIODIC && k->next_due_ns <= limit) {
		if (vm->faults.dumps_never_arrive || unconsumed(k) >= room(vm)) {
			/* No room (one slot stays for STOP's sample): the dump is
			 * skipped, the counts keep accumulating and the next sample
			 * says so. */
			if (!vm->faults.dumps_never_arrive) {
				k->overflowed = true;
				vm->stats.periodic_dropped++;
			}
		} else {
			vmali_advance_for_dump(vm);
			bool flag = k->overflowed && !vm->faults.overflow_unflagged;
			write_sample(vm, k, k->start_user_data, flag ? VMALI_KINSTR_FLAG_OVERFLOW : 0,
			             k->next_due_ns);
			k->overflowed = false;
		}
		k->next_due_ns += k->period_ns;
	}
	uint64_t p = k->started && k->mode == VMALI_KINSTR_MODE_PERIODIC ? k->next_due_ns : 0;
	return !p ? k->async_due_ns : !k->async_due_ns ? p : p < k->async_due_ns ? p : k->async_due_ns;
}

/* Samples asked for while they "never arrived" come once the switch is off,
 * late: the first carries every count since the last sample. */
static void deliver_lost(struct vmali *vm, struct vmali_kinstr *k)
{
	while (k->nlost && !vm->faults.dumps_never_arrive && unconsumed(k) < room(vm)) {
		write_sample(vm, k, k->lost_user_data[0], 0, vmali_now_ns());
		memmove(k->lost_user_data, k->lost_user_data + 1,
		        (k->nlost - 1) * sizeof(k->lost_user_data[0]));
		k->nlost--;
	}
}

static int command(struct vmali *vm, struct vmali_kinstr *k, const void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_kinstr_control_cmd c;
	memcpy(&c, arg, sizeof(c));
	uint64_t now = vmali_now_ns();
	switch (c.cmd) {
	case VMALI_KINSTR_CMD_START:
		if (k->started)
			return 0;
		if (unconsumed(k) >= RING_SAMPLES) {
			errno = EBUSY;
			return -1;
		}
		k->started = true;
		k->start_user_data = c.user_data;
		k->overflowed = false;
		vmali_acc_clear(vm, &k->acc);
		k->last_ts = now;
		if (k->mode == VMALI_KINSTR_MODE_PERIODIC)
			k->next_due_ns = (now / k->period_ns + 1) * k->period_ns;
		return 0;
	case VMALI_KINSTR_CMD_STOP:
		if (!k->started)
			return einval();
		/* The disable takes a last sample; early drivers drop it when the
		 * ring is full.  In periodic mode it is the next sample written
		 * after any the ring had no room for, so it carries OVERFLOW
		 * then, as a periodic one would. */
		if (unconsumed(k) < RING_SAMPLES) {
			uint32_t flags = vm->faults.stop_sample_flags;
			if (k->mode == VMALI_KINSTR_MODE_PERIODIC && k->overflowed &&
			    !vm->faults.overflow_unflagged)
				flags |= VMALI_KINSTR_FLAG_OVERFLOW;
			vmali_advance_for_dump(vm);
			write_sample(vm, k, c.user_data, flags, now);
			k->overflowed = false;
		}
		k->started = false;
		k->async_due_ns = 0;
		return 0;
	case VMALI_KINSTR_CMD_SAMPLE_ASYNC:
		if (!early(vm))
			return einval(); /* "RESERVED" since JM 11.37 / CSF 1.17 */
		__attribute__((fallthrough)); /* (clang ignores a comment) */
	case VMALI_KINSTR_CMD_SAMPLE_SYNC:
		if (!k->started || k->mode != VMALI_KINSTR_MODE_MANUAL)
			return einval();
		if (unconsumed(k) + k->nlost >= room(vm) || k->async_due_ns) {
			errno = EBUSY;
			return -1;
		}
		deliver_lost(vm, k);
		if (vm->faults.dumps_never_arrive) {
			if (k->nlost < RING_SAMPLES)
				k->lost_user_data[k->nlost++] = c.user_data;
			vm->stats.kinstr_lost++;
			return 0;
		}
		if (c.cmd == VMALI_KINSTR_CMD_SAMPLE_ASYNC) {
			k->async_due_ns = now + 1000000u; /* the dump completes a little later */
			k->async_user_data = c.user_data;
			return 0;
		}
		vmali_advance_for_dump(vm);
		write_sample(vm, k, c.user_data, 0, now);
		return 0;
	case VMALI_KINSTR_CMD_DISCARD:
		/* Every sample not yet fetched is dropped; a fetched one stays
		 * valid until it is put back. */
		if (k->fetch_seq == k->read_seq)
			k->read_seq = k->fetch_seq = k->write_seq;
		else {
			k->fetch_seq = k->write_seq;
			k->discard_on_put = true;
		}
		k->nlost = 0;
		return 0;
	default:
		return einval();
	}
}

static int get_sample(struct vmali_kinstr *k, void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	/* As kbase: nothing unread is EINVAL (not EAGAIN), judged by the read
	 * index, so a second GET while one is out is EBUSY even with nothing
	 * new ready. */
	if (k->read_seq == k->write_seq)
		return einval();
	if (k->fetch_seq != k->read_seq) {
		errno = EBUSY; /* one sample out at a time */
		return -1;
	}
	struct vmali_kinstr_sample_access a = { k->fetch_seq, slot_offset(k, k->fetch_seq) };
	memcpy(arg, &a, sizeof(a));
	k->fetch_seq++;
	return 0;
}

static int put_sample(struct vmali_kinstr *k, const void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_kinstr_sample_access a;
	memcpy(&a, arg, sizeof(a));
	/* As kbase: EINVAL only when nothing is unread or the sequence or offset
	 * is not the oldest unread sample's; a PUT without a GET then returns 0
	 * and changes nothing (the read index becomes the fetch index). */
	if (k->read_seq == k->write_seq || a.sequence != k->read_seq ||
	    a.sample_offset_bytes != slot_offset(k, k->read_seq))
		return einval();
	k->read_seq = k->fetch_seq;
	if (k->discard_on_put) {
		k->read_seq = k->fetch_seq;
		k->discard_on_put = false;
	}
	return 0;
}

int vmali_kinstr_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg)
{
	struct vmali_kinstr *k = f->u.kinstr;
	deliver_lost(vm, k);
	/* The kernel looks at the command number only. */
	switch (_IOC_NR(req)) {
	case VMALI_KINSTR_NR_CMD:
		return command(vm, k, arg);
	case VMALI_KINSTR_NR_GET_SAMPLE:
		return get_sample(k, arg);
	case VMALI_KINSTR_NR_PUT_SAMPLE:
		return put_sample(k, arg);
	default:
		return einval();
	}
}
