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
	l->sum = og_kinstr_pick_sum();
	return true;
}

/* Why item i (of n, at p) is not what was due: the slow path, for the log. */
__attribute__((cold, noinline)) static enum og_kinstr_parse_result
bad_item(const struct og_kinstr_layout *l, const uint8_t *p, size_t i, size_t n, char *why,
         size_t why_len)
{
	struct og_kinstr_metadata m;
	memcpy(&m, p, sizeof m);
	uint32_t want = i == 0 ? OG_KINSTR_META_SAMPLE
	              : i == 1 ? OG_KINSTR_META_CLOCK
	              : i + 1 == n ? OG_KINSTR_ITEM_NONE : OG_KINSTR_META_BLOCK;
	bool known = m.hdr.item_type == OG_KINSTR_META_SAMPLE ||
	             m.hdr.item_type == OG_KINSTR_META_CLOCK ||
	             m.hdr.item_type == OG_KINSTR_META_BLOCK || m.hdr.item_type == OG_KINSTR_ITEM_NONE;
	if (!known)
		snprintf(why, why_len, "metadata item %zu has unknown type 0x%04x", i, m.hdr.item_type);
	else if (m.hdr.item_version != OG_KINSTR_API_VERSION)
		snprintf(why, why_len, "metadata item %zu has version %u (opengpa speaks 0)", i,
		         m.hdr.item_version);
	else if (m.hdr.item_type != want)
		snprintf(why, why_len, "metadata item %zu is type 0x%04x where 0x%04x was due (%u "
		         "blocks expected)", i, m.hdr.item_type, want, (unsigned)l->nblocks);
	else if (want == OG_KINSTR_META_CLOCK)
		snprintf(why, why_len, "its clock item reports %u domains (ENUM_INFO: %u)",
		         (unsigned)m.u.clock.num_domains, (unsigned)l->en.num_clock_domains);
	else {
		uint32_t t = m.u.block.block_type, idx = m.u.block.block_idx;
		if (t >= OG_MALI_BLOCK_TYPES || !(l->en.types & (1u << t)))
			snprintf(why, why_len, "it names block type %u, which ENUM_INFO did not list",
			         (unsigned)t);
		else if (m.u.block.set != l->en.set)
			snprintf(why, why_len, "its %s block %u is from counter set %u, not %u",
			         type_name(t), (unsigned)idx, (unsigned)m.u.block.set, (unsigned)l->en.set);
		else
			snprintf(why, why_len, "the values of its %s block %u (offset %u, %u values) run "
			         "past the %zu-byte mapping", type_name(t), (unsigned)idx,
			         (unsigned)m.u.block.values_offset, (unsigned)l->en.values[t],
			         l->map_size);
	}
	return OG_KINSTR_BAD;
}

/* A block out of place: an index that is not the next, a type whose blocks
 * were cut short or come twice.  Only a shader core's numbering may be
 * what is off (OG_KINSTR_BAD_CORE_IDX): early drivers number them by bit. */
__attribute__((cold, noinline)) static enum og_kinstr_parse_result
bad_order(const struct og_kinstr_layout *l, uint32_t cur, uint32_t next, uint32_t t,
          uint32_t idx, char *why, size_t why_len)
{
	/* The first block can carry the walk's "no type yet" value as its type,
	 * which the type check (made when the type changes) never sees. */
	if (t >= OG_MALI_BLOCK_TYPES) {
		snprintf(why, why_len, "a block of type %u, which ENUM_INFO did not list",
		         (unsigned)t);
		return OG_KINSTR_BAD;
	}
	if (t != cur && cur < OG_MALI_BLOCK_TYPES && next != l->en.instances[cur]) {
		snprintf(why, why_len, "it lists %u of the %u %s blocks ENUM_INFO announced, then %s",
		         (unsigned)next, (unsigned)l->en.instances[cur], type_name(cur),
		         t < OG_MALI_BLOCK_TYPES ? type_name(t) : "stops");
		return cur == OG_MALI_SC ? OG_KINSTR_BAD_CORE_IDX : OG_KINSTR_BAD;
	}
	if (t != cur) {
		snprintf(why, why_len, "its %s blocks come in two groups", type_name(t));
		return OG_KINSTR_BAD;
	}
	snprintf(why, why_len, "its %s block index %u is not the next (%u of %u instances, cores "
	         "%s)", type_name(t), (unsigned)idx, (unsigned)next, (unsigned)l->en.instances[t],
	         l->cores_by_bit ? "numbered by core-mask bit" : "numbered densely");
	return t == OG_MALI_SC ? OG_KINSTR_BAD_CORE_IDX : OG_KINSTR_BAD;
}

bool og_kinstr_states_reported(bool csf, uint16_t major, uint16_t minor)
{
	uint16_t want_major = csf ? 1 : 11;
	uint16_t want_minor = csf ? OG_KINSTR_STATES_CSF_MINOR : OG_KINSTR_STATES_JM_MINOR;
	return major > want_major || (major == want_major && minor >= want_minor);
}

/* A block state with a bit the UAPI does not define, or both bits of a
 * pair: the sample cannot be read as the kernel meant it. */
static inline bool state_broken(uint32_t st)
{
	return (st & ~OG_KINSTR_STATE_ALL) != 0 ||
	       (st & (st >> 1) & (OG_KINSTR_STATE_ON | OG_KINSTR_STATE_AVAILABLE |
	                          OG_KINSTR_STATE_NORMAL)) != 0;
}

static enum og_kinstr_parse_result bad_state(uint32_t t, uint32_t idx, size_t i, uint32_t st,
                                             char *why, size_t why_len)
{
	snprintf(why, why_len, "item %zu (%s block %u) reports block state 0x%x: %s", i,
	         type_name(t), (unsigned)idx, (unsigned)st,
	         (st & ~OG_KINSTR_STATE_ALL) ? "bits the kinstr_prfcnt UAPI does not define"
	                                     : "both halves of a pair (on/off, available/"
	                                       "unavailable, normal/protected)");
	return OG_KINSTR_BAD;
}

/* An item header as the 4 bytes the kernel writes, read as one word. */
static inline uint32_t header_word(uint16_t type)
{
	struct og_kinstr_item_header h = {type, OG_KINSTR_API_VERSION};
	uint32_t w;
	memcpy(&w, &h, sizeof w);
	return w;
}

static bool is(const uint8_t *p, uint16_t type)
{
	struct og_kinstr_item_header h;
	memcpy(&h, p, sizeof h);
	return h.item_type == type && h.item_version == OG_KINSTR_API_VERSION;
}

/* Where the walk over the BLOCK items is: the current type, the index its
 * next block must have, its instances, the types done, the last offset its
 * values fit from, where its offsets go. */
struct walk {
	uint32_t cur, next, inst, done;
	uint64_t lim;
	uint32_t *at;
};

/* The BLOCK items, one after another (p: the CLOCK item before them).  By
 * value of by_bit the compiler makes two loops, neither asking per item. */
__attribute__((always_inline)) static inline enum og_kinstr_parse_result
walk_blocks(const struct og_kinstr_layout *l, const uint8_t **pp, size_t n,
            struct og_kinstr_sample *out, struct walk *w, bool by_bit, char *why, size_t why_len)
{
	const uint32_t set_want = l->en.set, stride = l->item_size;
	const uint64_t core_mask = l->core_mask;
	const bool states = l->states;
	const uint32_t block_hdr = header_word(OG_KINSTR_META_BLOCK);
	const uint8_t *p = *pp;
	uint32_t cur = w->cur, next = w->next, inst = w->inst, done = w->done;
	uint64_t lim = w->lim;
	uint32_t *at = w->at;
	for (size_t i = 2; i + 1 < n; i++) {
		p += stride;
		uint32_t hdr, values_offset;
		memcpy(&hdr, p, sizeof hdr);
		memcpy(&values_offset, p + 16, sizeof values_offset);
		uint32_t t = p[8], idx = p[9];
		if (hdr != block_hdr || p[10] != set_want)
			return bad_item(l, p, i, n, why, why_len);
		if (t != cur) {
			/* A new type: listed, fits, not seen; the one before complete. */
			uint64_t need = t < OG_MALI_BLOCK_TYPES ? (uint64_t)l->en.values[t] * 8u : 0;
			if (t >= OG_MALI_BLOCK_TYPES || !(l->en.types & (1u << t)) || need > l->map_size)
				return bad_item(l, p, i, n, why, why_len);
			if (next != inst || (done >> t & 1))
				return bad_order(l, cur, next, t, idx, why, why_len);
			done |= 1u << t;
			cur = t;
			next = 0;
			inst = l->en.instances[t];
			lim = l->map_size - need;
			at = out->at[t];
		}
		if (values_offset > lim)
			return bad_item(l, p, i, n, why, why_len);
		if (states) {
			uint32_t st;
			memcpy(&st, p + 12, sizeof st);
			if (state_broken(st))
				return bad_state(t, idx, i, st, why, why_len);
			out->state_any[t] |= st;
			out->blocks_off[t] += (uint16_t)(st >> 1 & 1u);
			out->blocks_unavailable[t] += (uint16_t)(st >> 3 & 1u);
			out->blocks_protected[t] += (uint16_t)(st >> 5 & 1u);
		}
		/* Early drivers number shader cores by their bit in the core mask;
		 * the rank of that bit is the dense index. */
		uint32_t k = idx;
		if (by_bit && t == OG_MALI_SC)
			k = idx < 64 && (core_mask >> idx & 1)
			            ? (uint32_t)__builtin_popcountll(core_mask & ((1ull << idx) - 1))
			            : OG_KINSTR_MAX_INSTANCES;
		if (k != next || k >= inst)
			return bad_order(l, cur, next, t, idx, why, why_len);
		at[k] = values_offset;
		next++;
	}
	*pp = p;
	*w = (struct walk){cur, next, inst, done, lim, at};
	return OG_KINSTR_OK;
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
	const uint8_t *p = map + offset;
	if (!is(p, OG_KINSTR_META_SAMPLE))
		return bad_item(l, p, 0, n, why, why_len);
#define FIELD(dst, item, member)                                                             \
	memcpy(&(dst), (item) + offsetof(struct og_kinstr_metadata, member), sizeof(dst))
	FIELD(out->ts_start, p, u.sample.timestamp_start);
	FIELD(out->ts_end, p, u.sample.timestamp_end);
	FIELD(out->seq, p, u.sample.seq);
	FIELD(out->user_data, p, u.sample.user_data);
	FIELD(out->flags, p, u.sample.flags);
	p += l->item_size;
	uint32_t dom;
	FIELD(dom, p, u.clock.num_domains);
	if (!is(p, OG_KINSTR_META_CLOCK) || dom > OG_KINSTR_MAX_DOMAINS ||
	    dom > l->en.num_clock_domains)
		return bad_item(l, p, 1, n, why, why_len);
	out->num_domains = dom;
	FIELD(out->cycles, p, u.clock.cycles);
	for (uint32_t d = dom; d < OG_KINSTR_MAX_DOMAINS; d++)
		out->cycles[d] = 0; /* what the kernel did not count */
#undef FIELD

	/* The kernel lists each type's blocks together, indices 0, 1, 2...
	 * (libGPUCounters relies on it too): so one type at a time, and the
	 * next index it must have, are all there is to track. */
	memset(out->state_any, 0, sizeof out->state_any);
	memset(out->blocks_off, 0, sizeof out->blocks_off);
	memset(out->blocks_unavailable, 0, sizeof out->blocks_unavailable);
	memset(out->blocks_protected, 0, sizeof out->blocks_protected);
	struct walk w = {OG_MALI_BLOCK_TYPES, 0, 0, 0, 0, NULL};
	enum og_kinstr_parse_result r = l->cores_by_bit
	                                        ? walk_blocks(l, &p, n, out, &w, true, why, why_len)
	                                        : walk_blocks(l, &p, n, out, &w, false, why, why_len);
	if (r != OG_KINSTR_OK)
		return r;
	p += l->item_size;
	if (!is(p, OG_KINSTR_ITEM_NONE))
		return bad_item(l, p, n - 1, n, why, why_len);
	/* nblocks items, each type's complete and no type twice: all there. */
	if (w.next != w.inst)
		return bad_order(l, w.cur, w.next, OG_MALI_BLOCK_TYPES, 0, why, why_len);
	for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES; t++)
		out->count[t] = l->en.instances[t];
	return OG_KINSTR_OK;
}
