/* SPDX-License-Identifier: MIT */
/*
 * kinstr_parse.c — see kinstr_parse.h.  The rules are the kernel's own
 * (reference mali-kinstr-prfcnt.md 2.4-2.8): 32-byte enumeration and request
 * items, 48-byte metadata items (or the larger stride SETUP reports), each
 * starting with a {type, version} header; a sample is SAMPLE, CLOCK, one
 * BLOCK per enabled instance, then the all-zero sentinel, and each BLOCK
 * points at its block's 64-bit values inside the mapping.
 */
#include "kinstr_parse.h"

#include <stdio.h>
#include <string.h>

#include "mali_vec.h"

#define BAD(...) (snprintf(why, why_len, __VA_ARGS__), false)

static const char *type_name(uint32_t t)
{
	return og_mali_block_name(t);
}

bool og_kinstr_parse_enum(const void *items, size_t n, size_t item_size,
                          struct og_kinstr_enum *out, char *why, size_t why_len)
{
	memset(out, 0, sizeof *out);
	if (item_size != sizeof(struct og_kinstr_enum_item))
		return BAD("ENUM_INFO items are %zu bytes; the kinstr_prfcnt API opengpa speaks "
		           "(version 0) has %zu-byte items", item_size,
		           sizeof(struct og_kinstr_enum_item));
	if (n == 0 || n > OG_KINSTR_MAX_ENUM_ITEMS)
		return BAD("ENUM_INFO lists %zu items (expected 1..%u)", n, OG_KINSTR_MAX_ENUM_ITEMS);
	unsigned modes = 0, enables = 0, infos = 0;
	bool first_set = true, ended = false;
	for (size_t i = 0; i < n; i++) {
		struct og_kinstr_enum_item it;
		memcpy(&it, (const uint8_t *)items + i * item_size, sizeof it);
		if (ended)
			return BAD("ENUM_INFO has items after its sentinel (item %zu)", i);
		if (it.hdr.item_version != OG_KINSTR_API_VERSION)
			return BAD("ENUM_INFO item %zu (type 0x%04x) has version %u; opengpa speaks "
			           "version 0", i, it.hdr.item_type, it.hdr.item_version);
		switch (it.hdr.item_type) {
		case OG_KINSTR_ENUM_BLOCK: {
			uint32_t t = it.u.block.block_type;
			if (it.u.block.num_instances == 0 && it.u.block.num_values == 0) {
				ended = true; /* the sentinel shares the BLOCK type code */
				break;
			}
			if (t >= OG_MALI_BLOCK_TYPES) {
				out->unknown_types++; /* a newer block (e.g. the neural engine) */
				break;
			}
			if (out->types & (1u << t))
				return BAD("ENUM_INFO lists block type %s twice", type_name(t));
			if (it.u.block.num_instances == 0)
				break; /* listed but none available: nothing to enable */
			uint32_t inst = it.u.block.num_instances, vals = it.u.block.num_values;
			uint32_t max_inst = t == OG_MALI_L2 ? OG_MALI_MAX_L2_SLICES : OG_KINSTR_MAX_INSTANCES;
			if (inst > max_inst)
				return BAD("ENUM_INFO lists %u %s blocks (at most %u)", inst, type_name(t),
				           max_inst);
			if (vals < 16 || vals > OG_MALI_MAX_VALUES || vals % 16)
				return BAD("ENUM_INFO gives %s blocks %u values (expected 64 or 128)",
				           type_name(t), vals);
			if (!first_set && it.u.block.set != out->set)
				return BAD("ENUM_INFO lists blocks in counter sets %u and %u; the kernel "
				           "counts one set", out->set, it.u.block.set);
			out->set = it.u.block.set;
			first_set = false;
			out->types |= 1u << t;
			out->instances[t] = (uint16_t)inst;
			out->values[t] = (uint16_t)vals;
			break;
		}
		case OG_KINSTR_ENUM_REQUEST: {
			uint32_t rt = it.u.request.request_item_type;
			bool v0 = it.u.request.versions_mask & 1u;
			if (rt == 0 || rt == 1) {
				if (!v0)
					return BAD("ENUM_INFO: the kernel accepts no version-0 %s requests "
					           "(versions mask 0x%x)", rt ? "ENABLE" : "MODE",
					           (unsigned)it.u.request.versions_mask);
				if (rt == 0)
					modes++;
				else
					enables++;
			}
			break; /* SCOPE and newer request kinds are not needed */
		}
		case OG_KINSTR_ENUM_SAMPLE_INFO:
			infos++;
			out->num_clock_domains = it.u.sample_info.num_clock_domains;
			if (out->num_clock_domains > OG_KINSTR_MAX_DOMAINS)
				return BAD("ENUM_INFO reports %u clock domains (at most %u)",
				           (unsigned)out->num_clock_domains, OG_KINSTR_MAX_DOMAINS);
			break;
		default:
			return BAD("ENUM_INFO item %zu has unknown type 0x%04x; refusing a list this "
			           "opengpa cannot read (report the driver version)", i,
			           it.hdr.item_type);
		}
	}
	if (!ended)
		return BAD("ENUM_INFO's list does not end with a sentinel");
	if (modes != 1 || enables != 1)
		return BAD("ENUM_INFO lists %u MODE and %u ENABLE requests (expected one of each)",
		           modes, enables);
	if (infos != 1)
		return BAD("ENUM_INFO lists %u SAMPLE_INFO items (expected one)", infos);
	const uint32_t classic = 1u << OG_MALI_FE | 1u << OG_MALI_TILER | 1u << OG_MALI_L2 |
	                         1u << OG_MALI_SC;
	if ((out->types & classic) != classic)
		return BAD("ENUM_INFO lacks a front-end, tiler, memory or shader-core block (types "
		           "listed: 0x%x)", (unsigned)out->types);
	return true;
}

size_t og_kinstr_build_requests(const struct og_kinstr_enum *e, uint8_t mode, uint64_t period_ns,
                                struct og_kinstr_request_item *out)
{
	size_t n = 0;
	memset(out, 0, OG_KINSTR_MAX_REQUESTS * sizeof *out);
	out[n].hdr.item_type = OG_KINSTR_REQUEST_MODE;
	out[n].u.mode.mode = mode;
	out[n].u.mode.period_ns = mode == OG_KINSTR_MODE_PERIODIC ? period_ns : 0;
	n++;
	for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES; t++) {
		if (!(e->types & (1u << t)))
			continue;
		out[n].hdr.item_type = OG_KINSTR_REQUEST_ENABLE;
		out[n].u.enable.block_type = (uint8_t)t;
		out[n].u.enable.set = e->set;
		uint32_t v = e->values[t];
		out[n].u.enable.enable_mask[0] = v >= 64 ? ~0ull : (1ull << v) - 1;
		out[n].u.enable.enable_mask[1] = v <= 64 ? 0 : v >= 128 ? ~0ull : (1ull << (v - 64)) - 1;
		n++;
	}
	n++; /* the zeroed sentinel */
	return n;
}

static og_kinstr_sum_fn *pick_sum(void);

bool og_kinstr_layout_init(struct og_kinstr_layout *l, const struct og_kinstr_enum *e,
                           uint64_t core_mask, uint32_t item_size, size_t map_size,
                           char *why, size_t why_len)
{
	memset(l, 0, sizeof *l);
	unsigned cores = (unsigned)__builtin_popcountll(core_mask);
	if (e->instances[OG_MALI_SC] != cores)
		return BAD("ENUM_INFO lists %u shader cores but the GPU properties' core mask "
		           "0x%llx has %u; refusing to number cores it cannot match",
		           (unsigned)e->instances[OG_MALI_SC], (unsigned long long)core_mask, cores);
	if (item_size < sizeof(struct og_kinstr_metadata) || item_size > 4096)
		return BAD("SETUP reports %u-byte metadata items (expected %zu to 4096)",
		           (unsigned)item_size, sizeof(struct og_kinstr_metadata));
	l->en = *e;
	l->core_mask = core_mask;
	l->item_size = item_size;
	l->map_size = map_size;
	for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES; t++)
		l->nblocks += e->instances[t];
	l->sum = pick_sum();
	return true;
}

enum og_kinstr_parse_result og_kinstr_parse_sample(const struct og_kinstr_layout *l,
                                                   const uint8_t *map, uint64_t offset,
                                                   struct og_kinstr_sample *out, char *why,
                                                   size_t why_len)
{
	const size_t n = (size_t)l->nblocks + 3;
	const size_t span = n * l->item_size;
	if (offset > l->map_size || l->map_size - offset < span) {
		snprintf(why, why_len, "its metadata (%zu items at offset %llu) runs past the "
		         "%zu-byte mapping", n, (unsigned long long)offset, l->map_size);
		return OG_KINSTR_BAD;
	}
	uint64_t seen[OG_MALI_BLOCK_TYPES] = {0};
	memset(out->count, 0, sizeof out->count);
	const uint8_t *p = map + offset;
	for (size_t i = 0; i < n; i++, p += l->item_size) {
		struct og_kinstr_metadata m;
		memcpy(&m, p, sizeof m);
		uint32_t want = i == 0 ? OG_KINSTR_META_SAMPLE
		              : i == 1 ? OG_KINSTR_META_CLOCK
		              : i + 1 == n ? OG_KINSTR_ITEM_NONE : OG_KINSTR_META_BLOCK;
		if (m.hdr.item_type != want || m.hdr.item_version != OG_KINSTR_API_VERSION) {
			bool known = m.hdr.item_type == OG_KINSTR_META_SAMPLE ||
			             m.hdr.item_type == OG_KINSTR_META_CLOCK ||
			             m.hdr.item_type == OG_KINSTR_META_BLOCK ||
			             m.hdr.item_type == OG_KINSTR_ITEM_NONE;
			if (!known)
				snprintf(why, why_len, "metadata item %zu has unknown type 0x%04x", i,
				         m.hdr.item_type);
			else if (m.hdr.item_version != OG_KINSTR_API_VERSION)
				snprintf(why, why_len, "metadata item %zu has version %u (opengpa speaks 0)",
				         i, m.hdr.item_version);
			else
				snprintf(why, why_len, "metadata item %zu is type 0x%04x where 0x%04x was "
				         "due (%u blocks expected)", i, m.hdr.item_type, want,
				         (unsigned)l->nblocks);
			return OG_KINSTR_BAD;
		}
		if (i == 0) {
			out->ts_start = m.u.sample.timestamp_start;
			out->ts_end = m.u.sample.timestamp_end;
			out->seq = m.u.sample.seq;
			out->user_data = m.u.sample.user_data;
			out->flags = m.u.sample.flags;
			continue;
		}
		if (i == 1) {
			uint32_t dom = m.u.clock.num_domains;
			if (dom > OG_KINSTR_MAX_DOMAINS || dom > l->en.num_clock_domains) {
				snprintf(why, why_len, "its clock item reports %u domains (ENUM_INFO: %u)",
				         (unsigned)dom, (unsigned)l->en.num_clock_domains);
				return OG_KINSTR_BAD;
			}
			out->num_domains = dom;
			memset(out->cycles, 0, sizeof out->cycles);
			memcpy(out->cycles, m.u.clock.cycles, dom * sizeof out->cycles[0]);
			continue;
		}
		if (i + 1 == n)
			break; /* the sentinel */
		uint32_t t = m.u.block.block_type, idx = m.u.block.block_idx;
		if (t >= OG_MALI_BLOCK_TYPES || !(l->en.types & (1u << t))) {
			snprintf(why, why_len, "it names block type %u, which ENUM_INFO did not list",
			         (unsigned)t);
			return OG_KINSTR_BAD;
		}
		if (m.u.block.set != l->en.set) {
			snprintf(why, why_len, "its %s block %u is from counter set %u, not %u",
			         type_name(t), (unsigned)idx, (unsigned)m.u.block.set,
			         (unsigned)l->en.set);
			return OG_KINSTR_BAD;
		}
		/* Early drivers number shader cores by their bit in the core mask;
		 * the rank of that bit is the dense index. */
		uint32_t k = idx;
		if (t == OG_MALI_SC && l->cores_by_bit)
			k = idx < 64 && (l->core_mask >> idx & 1)
			            ? (uint32_t)__builtin_popcountll(l->core_mask & ((1ull << idx) - 1))
			            : OG_KINSTR_MAX_INSTANCES;
		if (k >= l->en.instances[t] || (seen[t] >> k & 1)) {
			snprintf(why, why_len, "its %s block index %u is %s (%u instances, cores %s)",
			         type_name(t), (unsigned)idx,
			         k < l->en.instances[t] ? "repeated" : "out of range",
			         (unsigned)l->en.instances[t],
			         l->cores_by_bit ? "numbered by core-mask bit" : "numbered densely");
			return t == OG_MALI_SC ? OG_KINSTR_BAD_CORE_IDX : OG_KINSTR_BAD;
		}
		uint64_t end = (uint64_t)m.u.block.values_offset + (uint64_t)l->en.values[t] * 8u;
		if (end > l->map_size) {
			snprintf(why, why_len, "the values of its %s block %u (offset %u, %u values) run "
			         "past the %zu-byte mapping", type_name(t), (unsigned)idx,
			         (unsigned)m.u.block.values_offset, (unsigned)l->en.values[t],
			         l->map_size);
			return OG_KINSTR_BAD;
		}
		seen[t] |= 1ull << k;
		out->at[t][k] = m.u.block.values_offset;
		out->count[t]++;
	}
	return OG_KINSTR_OK;
}

/* ---- summing ---- */

typedef uint64_t v64 __attribute__((vector_size(OG_VEC_BYTES)));
#define LANES64 (OG_VEC_BYTES / 8u)
#define CHUNK (4u * LANES64)
#define LOADV(v, p) memcpy(&(v), (p), sizeof(v64))
#define STOREV(p, v) memcpy((p), &(v), sizeof(v64))

/* Values [w, w + CHUNK) of k blocks, exactly, saturating: the slow path for
 * sums the vector lanes might have wrapped. */
static void chunk_saturating(const uint8_t *map, const uint32_t *at, uint32_t k, uint32_t w,
                             uint64_t *out)
{
	for (uint32_t j = 0; j < CHUNK; j++) {
		uint64_t s = 0;
		for (uint32_t i = 0; i < k; i++) {
			uint64_t x;
			memcpy(&x, map + at[i] + (size_t)(w + j) * 8u, 8);
			s = s + x < s ? UINT64_MAX : s + x;
		}
		out[w + j] = s;
	}
}

__attribute__((always_inline)) static inline void sum_type(const uint8_t *map,
                                                           const uint32_t *at, uint32_t k,
                                                           uint32_t nv, uint64_t *out)
{
	/* k values each below 2^(64 - ceil(log2 k)) cannot wrap a 64-bit lane. */
	uint32_t bits = k > 1 ? 32u - (uint32_t)__builtin_clz(k - 1) : 0u;
	for (uint32_t w = 0; w < nv; w += CHUNK) {
		v64 s0, s1, s2, s3;
		const uint8_t *p = map + at[0] + (size_t)w * 8u;
		LOADV(s0, p);
		LOADV(s1, p + OG_VEC_BYTES);
		LOADV(s2, p + 2 * OG_VEC_BYTES);
		LOADV(s3, p + 3 * OG_VEC_BYTES);
		v64 all = (s0 | s1) | (s2 | s3);
		for (uint32_t i = 1; i < k; i++) {
			v64 x0, x1, x2, x3;
			p = map + at[i] + (size_t)w * 8u;
			LOADV(x0, p);
			LOADV(x1, p + OG_VEC_BYTES);
			LOADV(x2, p + 2 * OG_VEC_BYTES);
			LOADV(x3, p + 3 * OG_VEC_BYTES);
			s0 += x0;
			s1 += x1;
			s2 += x2;
			s3 += x3;
			all |= (x0 | x1) | (x2 | x3);
		}
		STOREV(out + w, s0);
		STOREV(out + w + LANES64, s1);
		STOREV(out + w + 2 * LANES64, s2);
		STOREV(out + w + 3 * LANES64, s3);
		if (bits) {
			v64 over = all >> (64u - bits);
			uint64_t q[LANES64], any = 0;
			memcpy(q, &over, sizeof q);
			for (uint32_t j = 0; j < LANES64; j++)
				any |= q[j];
			if (any)
				chunk_saturating(map, at, k, w, out);
		}
	}
}

/* One copy per instruction set (mali_vec.h), the body inlined into each. */
#define SUM_COPY(name, target_attribute)                                                     \
	target_attribute static void name(const uint8_t *map, const uint32_t *at, uint32_t k, \
	                                  uint32_t nv, uint64_t *out)                          \
	{                                                                                       \
		sum_type(map, at, k, nv, out);                                                  \
	}

SUM_COPY(sum_default, )
#if defined(OG_SUM_AVX2_COPY)
SUM_COPY(sum_avx2, __attribute__((target("avx2"))))
#endif

static og_kinstr_sum_fn *pick_sum(void)
{
#if defined(OG_SUM_AVX2_COPY)
	if (og_cpu_has_avx2())
		return sum_avx2;
#endif
	return sum_default;
}

void og_kinstr_sum(const struct og_kinstr_layout *l, const uint8_t *map,
                   const struct og_kinstr_sample *s, struct og_mali_totals *totals)
{
	for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES; t++) {
		uint32_t k = s->count[t];
		if (!k)
			continue;
		l->sum(map, s->at[t], k, l->en.values[t], totals->v + t * OG_MALI_MAX_VALUES);
	}
}
