/* SPDX-License-Identifier: MIT */
/*
 * table_query.c — counter and device metadata for GPA 3.x/4.x (table.h):
 * names, groups, descriptions, types, UUIDs, counter lookup by name, the
 * device's identity.
 */
#include <string.h>

#include "api/table.h"
#include "api/uuid.h"

int ot_data_type(const struct og_counter *c)
{
	return c->type == GPA_TYPE_FLOAT32 || c->type == GPA_TYPE_FLOAT64 ? OT_DATA_TYPE_FLOAT64
	                                                                  : OT_DATA_TYPE_UINT64;
}

/* The two GpaUuid layouts: data_1 is an unsigned long in 3.17 (24 bytes on
 * LP64), an unsigned int in 4.x (16 bytes).  The UUID's bytes go in as a
 * GUID holds them, so the usual text form of the fields is the RFC one. */
struct uuid3 {
	unsigned long data_1;
	unsigned short data_2, data_3;
	unsigned char data_4[8];
};
struct uuid4 {
	unsigned int data_1;
	unsigned short data_2, data_3;
	unsigned char data_4[8];
};
_Static_assert(sizeof(struct uuid4) == 16, "GPA 4.x's GpaUuid");

/* GPUTime as GPA 3.x/4.x define it (table_view.c): kGpaUsageTypeNanoseconds,
 * and the UUID of every GPA table, cbd338f2-de6c-7b14-92ad-ba724ca2e501, as
 * its text reads (Windows GPA's fields; Linux GPA's parse of it leaves them
 * mostly unset, ../shared/reference/gpa-vulkan.md §5). */
static const uint8_t gputime_uuid[16] = {
	0xcb, 0xd3, 0x38, 0xf2, 0xde, 0x6c, 0x7b, 0x14,
	0x92, 0xad, 0xba, 0x72, 0x4c, 0xa2, 0xe5, 0x01,
};
static const char gputime_text[] =
	"GPU time of the sample's commands, in nanoseconds, from the application's API's own "
	"timer: from when the GPU reached the sample's first command to when it finished its "
	"last, idle gaps inside the sample included.";

/* Counter `index` as 3.x/4.x number it (table_view.c). */
static void counter_query(const struct og_context *ctx, uint32_t index, enum ot_query q,
                          void *out)
{
	uint32_t cat = ot_view_cat(ctx, index);
	const struct og_counter *c = &ctx->cat.counters[cat];
	bool gputime = ot_view_is_gputime(ctx, cat);
	uint8_t b[16];
	unsigned int d1;
	switch (q) {
	case OT_Q_NAME: *(const char **)out = c->name; return;
	case OT_Q_GROUP: *(const char **)out = c->group; return;
	case OT_Q_DESCRIPTION: *(const char **)out = gputime ? gputime_text : c->text; return;
	case OT_Q_DATA_TYPE: *(int *)out = ot_data_type(c); return;
	case OT_Q_USAGE: /* same numbers in 3.x/4.x as the catalogue's 2.x ones */
		*(int *)out = gputime ? OT_USAGE_NANOSECONDS : (int)c->usage;
		return;
	case OT_Q_SAMPLE_TYPE: *(int *)out = 1; return; /* kGpaCounterSampleTypeDiscrete */
	case OT_Q_UUID3:
	case OT_Q_UUID4:
		if (gputime)
			memcpy(b, gputime_uuid, sizeof(b));
		else
			og_counter_uuid(c->set, c->name, b);
		d1 = (unsigned int)b[0] << 24 | (unsigned int)b[1] << 16 | (unsigned int)b[2] << 8 | b[3];
		if (q == OT_Q_UUID3) {
			struct uuid3 *u = out;
			*u = (struct uuid3){ d1, (unsigned short)(b[4] << 8 | b[5]),
			                     (unsigned short)(b[6] << 8 | b[7]), { 0 } };
			memcpy(u->data_4, b + 8, 8);
		} else {
			struct uuid4 *u = out;
			*u = (struct uuid4){ d1, (unsigned short)(b[4] << 8 | b[5]),
			                     (unsigned short)(b[6] << 8 | b[7]), { 0 } };
			memcpy(u->data_4, b + 8, 8);
		}
		return;
	}
}

int ot_query3(const char *fn, const void *context, uint32_t index, enum ot_query q, void *out)
{
	struct og_context *ctx;
	int st = out ? ot_context(fn, context, &ctx) : ot_null(fn, "the output pointer");
	if (st == OT_OK)
		st = ot_index(fn, ctx, index);
	if (st == OT_OK)
		counter_query(ctx, index, q, out);
	return st;
}

/* GPA 4.3's queries take a session: initialised first, then the handle. */
static int session4(const char *fn, const void *session, struct og_xsession **x)
{
	int st = ot_initialized(fn);
	return st == OT_OK ? ot_session(fn, session, x) : st;
}

int ot_query4(const char *fn, const void *session, uint32_t index, enum ot_query q, void *out)
{
	struct og_xsession *x = NULL;
	int st = session4(fn, session, &x);
	if (st == OT_OK)
		st = ot_index(fn, x->ctx, index);
	if (st == OT_OK && !out)
		st = ot_null(fn, "the output pointer");
	if (st == OT_OK)
		counter_query(x->ctx, index, q, out);
	return st;
}

int ot_num_counters3(const char *fn, const void *context, uint32_t *count)
{
	struct og_context *ctx;
	int st = count ? ot_context(fn, context, &ctx) : ot_null(fn, "the count pointer");
	if (st == OT_OK)
		*count = (uint32_t)ctx->cat.ncounters;
	return st;
}

int ot_num_counters4(const char *fn, const void *session, uint32_t *count)
{
	struct og_xsession *x = NULL;
	int st = session4(fn, session, &x);
	if (st == OT_OK && !count)
		st = ot_null(fn, "the count pointer");
	if (st == OT_OK)
		*count = (uint32_t)x->ctx->cat.ncounters;
	return st;
}

static int find_counter(const char *fn, const struct og_context *ctx, const char *name,
                        uint32_t *index)
{
	if (!og_catalog_find(&ctx->cat, name, index))
		return ot_error(OT_COUNTER_NOT_FOUND, "%s: no counter is named '%s' on this device",
		                fn, name);
	*index = ot_view_index(ctx, *index);
	return OT_OK;
}

int ot_counter_index3(const char *fn, const void *context, const char *name, uint32_t *index)
{
	struct og_context *ctx;
	if (!name)
		return ot_null(fn, "the counter name");
	if (!index)
		return ot_null(fn, "the index pointer");
	int st = ot_context(fn, context, &ctx);
	return st == OT_OK ? find_counter(fn, ctx, name, index) : st;
}

int ot_counter_index4(const char *fn, const void *session, const char *name, uint32_t *index)
{
	struct og_xsession *x = NULL;
	int st = session4(fn, session, &x);
	if (st == OT_OK && !name)
		st = ot_null(fn, "the counter name");
	if (st == OT_OK && !index)
		st = ot_null(fn, "the index pointer");
	return st == OT_OK ? find_counter(fn, x->ctx, name, index) : st;
}

int ot_device_id(const char *fn, const struct og_context *ctx, uint32_t *device,
                 uint32_t *revision)
{
	if (!ctx->info.device_id)
		return ot_error(OT_FAILED, "%s: the %s backend did not identify the device", fn,
		                ctx->ops->name);
	*device = ctx->info.device_id;
	*revision = ctx->info.revision_id;
	return OT_OK;
}

int ot_device_name(const char *fn, const struct og_context *ctx, const char **name)
{
	if (!ctx->info.description[0])
		return ot_error(OT_FAILED, "%s: the %s backend did not name the device", fn,
		                ctx->ops->name);
	*name = ctx->info.description;
	return OT_OK;
}
