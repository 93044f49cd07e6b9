/* SPDX-License-Identifier: MIT */
/*
 * plain_kinstr_client.c — a third-party kinstr_prfcnt client of /dev/mali0
 * that knows nothing of opengpa or vmali: its own struct definitions and the
 * call sequence a profiler like Arm's libGPUCounters makes, as
 * /work/shared/reference/mali-kinstr-prfcnt.md §8 lays it out, with plain
 * libc calls.  Run under LD_PRELOAD=libopengpa-vmali.so it must find the GPU
 * it is told to expect and read samples that are consistent.
 *
 *   vmali-plain-kinstr-client PRODUCT_ID CORES VALUES_PER_BLOCK jm|csf
 *     -> exit 0 on success, 1 with a line on stderr otherwise
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct version_check { uint16_t major, minor; };
struct uk_version_check { uint32_t id, ret; uint16_t major, minor; uint32_t pad; };
struct set_flags { uint32_t create_flags; };
struct get_gpuprops { uint64_t buffer; uint32_t size, flags; };
struct glb_iface { uint32_t w[6]; };
struct enum_info { uint32_t item_size, item_count; uint64_t list_ptr; };
struct setup_args { uint32_t count, size; uint64_t ptr; };
struct control_cmd { uint16_t cmd, pad[3]; uint64_t user_data; };
struct sample_access { uint64_t sequence, offset; };

#define K_UK_VERSION_CHECK _IOWR(0x80, 0, struct uk_version_check)
#define K_VERSION_CHECK_JM _IOWR(0x80, 0, struct version_check)
#define K_VERSION_CHECK_CSF _IOWR(0x80, 52, struct version_check)
#define K_SET_FLAGS _IOW(0x80, 1, struct set_flags)
#define K_GET_GPUPROPS _IOW(0x80, 3, struct get_gpuprops)
#define K_CS_GET_GLB_IFACE _IOWR(0x80, 51, struct glb_iface)
#define K_ENUM_INFO _IOWR(0x80, 56, struct enum_info)
#define K_SETUP _IOWR(0x80, 57, struct setup_args)
#define R_CMD _IOW(0xBF, 0x00, struct control_cmd)
#define R_GET_SAMPLE _IOR(0xBF, 0x01, struct sample_access)
#define R_PUT_SAMPLE _IOW(0xBF, 0x10, struct sample_access)

enum { CMD_START = 1, CMD_STOP = 2, CMD_SAMPLE_SYNC = 3 };

static int fail(const char *what)
{
	fprintf(stderr, "plain-kinstr-client: %s: %s\n", what, errno ? strerror(errno) : "bad data");
	return 1;
}

static uint16_t u16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}
static uint64_t u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* What the enumeration said, per block type (0 FE .. 5 CSG). */
struct blocks {
	uint32_t instances[8], values, domains;
	uint8_t set;
	uint32_t types;
};

/* The profiler's own rules for the list (libGPUCounters' parser, §2.5). */
static int read_enum(int fd, struct blocks *b)
{
	struct enum_info q = { 0, 0, 0 };
	if (ioctl(fd, K_ENUM_INFO, &q) != 0)
		return fail("ENUM_INFO (count)");
	errno = 0;
	if (q.item_size != 32 || q.item_count == 0 || q.item_count > 64)
		return fail("ENUM_INFO item size or count");
	uint8_t *items = calloc(q.item_count, 32);
	q.list_ptr = (uintptr_t)items;
	if (!items || ioctl(fd, K_ENUM_INFO, &q) != 0)
		return fail("ENUM_INFO (list)");
	unsigned mode = 0, enable = 0, info = 0;
	bool ended = false;
	memset(b, 0, sizeof(*b));
	for (uint32_t i = 0; i < q.item_count; i++) {
		const uint8_t *it = items + 32 * i;
		errno = 0;
		if (ended || u16(it + 2) != 0)
			return fail("ENUM_INFO item after the sentinel, or of a version above 0");
		switch (u16(it)) {
		case 0x0000: {
			uint16_t inst = u16(it + 12), vals = u16(it + 14);
			if (!inst && !vals) {
				ended = true;
				break;
			}
			if (it[8] > 5)
				break; /* a block type this profiler does not know */
			if ((b->types >> it[8] & 1) || (b->values && (vals != b->values || it[9] != b->set)))
				return fail("ENUM_INFO blocks of different sets or sizes, or listed twice");
			b->types |= 1u << it[8];
			b->instances[it[8]] = inst;
			b->values = vals;
			b->set = it[9];
			break;
		}
		case 0x0001:
			if (!(u32(it + 12) & 1))
				return fail("ENUM_INFO request without version 0");
			mode += u16(it + 8) == 0;
			enable += u16(it + 8) == 1;
			break;
		case 0x0002:
			info++;
			b->domains = u32(it + 8);
			break;
		default:
			return fail("ENUM_INFO unknown item type");
		}
	}
	free(items);
	errno = 0;
	if (!ended || mode != 1 || enable != 1 || info != 1 || b->domains > 4)
		return fail("ENUM_INFO structure");
	return 0;
}

struct session {
	int fd;
	uint32_t item_size, map_size;
	const uint8_t *map;
};

static int start_session(int dev, const struct blocks *b, uint32_t types, bool sc_probe,
                         struct session *s)
{
	uint8_t req[32 * 8] = { 0 };
	uint32_t n = 0;
	uint16_t type = 0x1000; /* MODE, in CPU order as every field; manual */
	memcpy(req, &type, 2);
	n++;
	for (uint32_t t = 0; t < 6; t++) {
		if (!(types >> t & 1))
			continue;
		uint8_t *it = req + 32 * n++;
		type = 0x1001; /* ENABLE */
		memcpy(it, &type, 2);
		it[8] = (uint8_t)t;
		it[9] = b->set;
		uint64_t lo = sc_probe ? 0xF : ~0ull, hi = sc_probe ? 0 : ~0ull;
		memcpy(it + 16, &lo, 8);
		memcpy(it + 24, &hi, 8);
	}
	n++; /* sentinel */
	struct setup_args a = { n, 32, (uintptr_t)req };
	s->fd = ioctl(dev, K_SETUP, &a);
	if (s->fd < 0)
		return fail("SETUP");
	uint32_t out[2];
	memcpy(out, &a, sizeof(out));
	s->item_size = out[0];
	s->map_size = out[1];
	errno = 0;
	if (s->item_size < 48 || s->map_size == 0)
		return fail("SETUP's answer");
	void *m = mmap(NULL, s->map_size, PROT_READ, MAP_PRIVATE, s->fd, 0);
	if (m == MAP_FAILED)
		return fail("mmap");
	s->map = m;
	return 0;
}

static void end_session(struct session *s)
{
	munmap((void *)(uintptr_t)s->map, s->map_size);
	close(s->fd);
}

static int rank_of(uint64_t mask, unsigned bit)
{
	if (bit >= 64 || !(mask >> bit & 1))
		return -1;
	return __builtin_popcountll(mask & ((1ull << bit) - 1));
}

/* One sample: poll, GET, check every item as the profiler does, read the
 * front end's values, PUT.  sum gets the sum of the front end's counters. */
static int read_sample(const struct session *s, const struct blocks *b, uint32_t types,
                       uint64_t core_mask, bool remap, uint64_t *sum, uint64_t *seq_out)
{
	struct pollfd p = { s->fd, POLLIN, 0 };
	if (poll(&p, 1, 1000) != 1)
		return fail("poll");
	struct sample_access a;
	if (ioctl(s->fd, R_GET_SAMPLE, &a) != 0)
		return fail("GET_SAMPLE");
	errno = 0;
	uint32_t nblocks = 0;
	for (uint32_t t = 0; t < 6; t++)
		if (types >> t & 1)
			nblocks += b->instances[t];
	if (a.offset > s->map_size || s->map_size - a.offset < (uint64_t)(nblocks + 3) * s->item_size)
		return fail("sample metadata out of the mapping");
	const uint8_t *m = s->map + a.offset;
	if (u16(m) != 0x2000 || u64(m + 24) != a.sequence || u32(m + 40) != 0 ||
	    u64(m + 16) < u64(m + 8))
		return fail("SAMPLE item");
	const uint8_t *clk = m + s->item_size;
	if (u16(clk) != 0x2001 || u32(clk + 8) != b->domains || (b->domains && !u64(clk + 16)))
		return fail("CLOCK item");
	uint32_t next[6] = { 0 };
	*sum = 0;
	for (uint32_t k = 0; k < nblocks; k++) {
		const uint8_t *it = m + (size_t)(2 + k) * s->item_size;
		unsigned t = it[8], idx = it[9];
		if (u16(it) != 0x2002 || t > 5 || !(types >> t & 1) || it[10] != b->set)
			return fail("BLOCK item");
		int dense = t == 3 && remap ? rank_of(core_mask, idx) : (int)idx;
		if (dense != (int)next[t]++)
			return fail("block index out of order");
		uint64_t off = u32(it + 16);
		if (off + (uint64_t)b->values * 8 > s->map_size)
			return fail("block values out of the mapping");
		const uint8_t *v = s->map + off;
		/* The header's enable word (bit n: values 4n..4n+3) has the header
		 * itself always on. */
		if (!(u64(v + 16) & 1))
			return fail("block header enable word");
		if (t == 0)
			for (uint32_t i = 4; i < b->values; i++)
				*sum += u64(v + 8 * i);
	}
	const uint8_t *end = m + (size_t)(2 + nblocks) * s->item_size;
	if (u16(end) != 0 || u16(end + 2) != 0)
		return fail("sentinel");
	for (uint32_t t = 0; t < 6; t++)
		if ((types >> t & 1) && next[t] != b->instances[t])
			return fail("block count");
	*seq_out = a.sequence;
	if (ioctl(s->fd, R_PUT_SAMPLE, &a) != 0)
		return fail("PUT_SAMPLE");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	uint32_t want_id = (uint32_t)strtoul(argv[1], NULL, 0);
	uint32_t want_cores = (uint32_t)strtoul(argv[2], NULL, 0);
	uint32_t want_values = (uint32_t)strtoul(argv[3], NULL, 0);
	bool want_csf = strcmp(argv[4], "csf") == 0;

	/* 1-6: the handle and the instance. */
	int fd = open("/dev/mali0", O_RDONLY);
	if (fd < 0)
		return fail("open /dev/mali0");
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
		return fail("not a character device");
	struct uk_version_check uk = { 0, 0, 0, 0, 0 };
	if (ioctl(fd, K_UK_VERSION_CHECK, &uk) == 0 && (uk.major || uk.minor))
		return fail("a pre-r21 driver");
	struct version_check v = { 0, 0 };
	bool csf = false;
	if (ioctl(fd, K_VERSION_CHECK_JM, &v) != 0 || (!v.major && !v.minor)) {
		v = (struct version_check){ 0, 0 };
		if (ioctl(fd, K_VERSION_CHECK_CSF, &v) != 0 || (!v.major && !v.minor))
			return fail("no version check answered");
		csf = true;
	}
	struct set_flags f = { 0x2 };
	if (ioctl(fd, K_SET_FLAGS, &f) != 0 && errno != EPERM && errno != EINVAL)
		return fail("SET_FLAGS");
	struct get_gpuprops q = { 0, 0, 0 };
	int need = ioctl(fd, K_GET_GPUPROPS, &q);
	if (need <= 0 || need > 65536)
		return fail("GET_GPUPROPS size");
	uint8_t *props = malloc((size_t)need);
	q.buffer = (uintptr_t)props;
	q.size = (uint32_t)need;
	int got = ioctl(fd, K_GET_GPUPROPS, &q);
	if (!props || got <= 0 || got > need)
		return fail("GET_GPUPROPS");
	uint64_t gpu_id = 0, groups = 0, mask = 0;
	uint32_t slices = 0;
	for (int pos = 0; pos + 4 <= got;) {
		/* The blob is little-endian whatever the CPU (the samples are the
		 * kernel's own stores, in CPU order). */
		uint32_t key = (uint32_t)le(props + pos, 4);
		int n = 1 << (key & 3);
		pos += 4;
		if (pos + n > got)
			break;
		uint64_t val = le(props + pos, n);
		pos += n;
		uint32_t id = key >> 2;
		if (id == 55)
			gpu_id = val;
		else if (id == 15)
			slices = (uint32_t)val;
		else if (id == 62)
			groups = val;
		else if (id >= 64 && id < 64 + groups)
			mask |= val;
	}
	free(props);
	uint32_t product = (uint32_t)(gpu_id >> 16) & 0xF00F;
	errno = 0;
	if (product != want_id || (uint32_t)__builtin_popcountll(mask) != want_cores ||
	    csf != want_csf || !slices) {
		fprintf(stderr, "plain-kinstr-client: product 0x%x, %d cores, %s\n", product,
		        __builtin_popcountll(mask), csf ? "CSF" : "JM");
		return 1;
	}
	if (csf) {
		struct glb_iface g;
		memset(&g, 0, sizeof(g));
		if (ioctl(fd, K_CS_GET_GLB_IFACE, &g) != 0 || !g.w[0])
			return fail("CS_GET_GLB_IFACE");
	}
	/* Early drivers (JM 11.34-11.36, CSF 1.10-1.16) number cores by bit. */
	bool remap = csf ? v.minor < 17 : v.minor < 37;

	/* 8: what the GPU can count. */
	struct blocks b;
	if (read_enum(fd, &b))
		return 1;
	errno = 0;
	if (b.values != want_values || b.instances[3] != want_cores || b.instances[2] != slices)
		return fail("the enumeration disagrees with the properties");

	/* 9: the probe session: shader cores only, the implicit STOP sample. */
	struct session s;
	uint64_t sum, seq;
	if (start_session(fd, &b, 1u << 3, true, &s))
		return 1;
	struct control_cmd c = { CMD_START, { 0 }, 0 };
	if (ioctl(s.fd, R_CMD, &c) != 0)
		return fail("START");
	c.cmd = CMD_STOP;
	if (ioctl(s.fd, R_CMD, &c) != 0)
		return fail("STOP");
	if (read_sample(&s, &b, 1u << 3, mask, remap, &sum, &seq))
		return 1;
	end_session(&s);

	/* 10: the real session: every block type it knows, three samples. */
	uint32_t types = b.types & 0x3F;
	if (start_session(fd, &b, types, false, &s))
		return 1;
	c = (struct control_cmd){ CMD_START, { 0 }, 0 };
	if (ioctl(s.fd, R_CMD, &c) != 0)
		return fail("START");
	uint64_t total = 0, prev_seq = 0;
	for (int i = 0; i < 3; i++) {
		c.cmd = CMD_SAMPLE_SYNC;
		if (ioctl(s.fd, R_CMD, &c) != 0)
			return fail("SAMPLE_SYNC");
		if (read_sample(&s, &b, types, mask, remap, &sum, &seq))
			return 1;
		errno = 0;
		if (i && seq != prev_seq + 1)
			return fail("sample numbers");
		prev_seq = seq;
		total += sum;
	}
	c.cmd = CMD_STOP;
	if (ioctl(s.fd, R_CMD, &c) != 0)
		return fail("STOP");
	end_session(&s);
	if (close(fd) != 0)
		return fail("close");
	printf("plain-kinstr-client: %s UK %u.%u, product 0x%04x, %u cores, %u values, front end "
	       "total %llu\n", csf ? "CSF" : "JM", v.major, v.minor, product, want_cores, b.values,
	       (unsigned long long)total);
	errno = 0;
	return total > 0 ? 0 : fail("the front end counted nothing");
}
