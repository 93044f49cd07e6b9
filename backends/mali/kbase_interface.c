/* SPDX-License-Identifier: MIT */
/*
 * kbase_interface.c — which counter interface a kbase driver offers, by its
 * UK version, and which one to use (reference mali-kinstr-prfcnt.md 1.2).
 *
 * JM and CSF drivers number their versions in two separate series:
 *
 *                         JM UK     CSF UK
 *   kinstr_prfcnt first   11.34     1.10
 *   its defects fixed     11.37     1.17
 *   vinstr removed        11.40     1.21
 *
 * Where both exist vinstr is chosen, as Arm's own library does: it is the
 * older, more travelled path.  The exception is a GPU with 128 values per
 * block (Mali-G615/G715 and later): vinstr hands out only the first 64, so
 * kinstr_prfcnt is preferred wherever the driver has it.
 */
#include <stdio.h>

#include "kbase_internal.h"
#include "mali_uapi.h"

struct thresholds {
	uint16_t major, kinstr, fixed, removed;
};

static const struct thresholds *thresholds_of(enum og_kbase_kind kind)
{
	static const struct thresholds jm = {OG_KBASE_JM_MAJOR, OG_KBASE_JM_KINSTR_MINOR,
	                                     OG_KBASE_JM_KINSTR_FIXED_MINOR,
	                                     OG_KBASE_JM_READER_REMOVED_MINOR};
	static const struct thresholds csf = {OG_KBASE_CSF_MAJOR, OG_KBASE_CSF_KINSTR_MINOR,
	                                      OG_KBASE_CSF_KINSTR_FIXED_MINOR,
	                                      OG_KBASE_CSF_READER_REMOVED_MINOR};
	return kind == OG_KBASE_CSF ? &csf : &jm;
}

void og_kbase_offer(const struct og_kbase_version *v, struct og_kbase_offer *out)
{
	const struct thresholds *t = thresholds_of(v->kind);
	/* A later major (none exists yet) is taken to keep the latest minor's
	 * interfaces; an earlier one has neither. */
	uint32_t minor = v->major > t->major ? UINT16_MAX : v->major < t->major ? 0u : v->minor;
	bool known = v->major >= t->major;
	out->vinstr = known && minor < t->removed;
	out->kinstr = known && minor >= t->kinstr;
	out->kinstr_early = out->kinstr && minor < t->fixed;
}

void og_kbase_version_text(const struct og_kbase_version *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s UK %u.%u", v->kind == OG_KBASE_CSF ? "CSF" : "JM", v->major,
	         v->minor);
}

const char *og_kbase_iface_name(enum og_kbase_iface iface)
{
	switch (iface) {
	case OG_KBASE_IFACE_VINSTR:
		return "vinstr";
	case OG_KBASE_IFACE_KINSTR:
		return "kinstr_prfcnt";
	default:
		return "auto";
	}
}

/* og_kbase_choose's reason, formatted only when asked for. */
#define WHY(...)                                            \
	do {                                                \
		if (len)                                    \
			snprintf(why, len, __VA_ARGS__);    \
	} while (0)

enum og_kbase_iface og_kbase_choose(const struct og_kbase_version *v, uint32_t values_per_block,
                                    enum og_kbase_iface forced, char *why, size_t len)
{
	const struct thresholds *t = thresholds_of(v->kind);
	const char *kind = v->kind == OG_KBASE_CSF ? "CSF" : "JM";
	/* The reason is written only where one is asked for (len > 0): an
	 * open that logs nothing formats nothing. */
	char ver[32] = "";
	if (len)
		og_kbase_version_text(v, ver, sizeof ver);
	struct og_kbase_offer o;
	og_kbase_offer(v, &o);

	if (forced == OG_KBASE_IFACE_VINSTR) {
		if (o.vinstr) {
			WHY("interface=vinstr%s", values_per_block > 64
			         ? "; this GPU's blocks have 128 values, vinstr carries the first 64"
			         : "");
			return OG_KBASE_IFACE_VINSTR;
		}
		WHY("interface=vinstr, but %s has no vinstr reader (%s UK %u.%u "
		         "removed it); use interface=kinstr_prfcnt or leave interface unset",
		         ver, kind, t->major, t->removed);
		return OG_KBASE_IFACE_AUTO;
	}
	if (forced == OG_KBASE_IFACE_KINSTR) {
		if (o.kinstr) {
			WHY("interface=kinstr_prfcnt%s", o.kinstr_early
			         ? " (an early release: opengpa works around its defects)" : "");
			return OG_KBASE_IFACE_KINSTR;
		}
		WHY("interface=kinstr_prfcnt, but %s predates it (first in %s UK "
		         "%u.%u); use interface=vinstr or leave interface unset",
		         ver, kind, t->major, t->kinstr);
		return OG_KBASE_IFACE_AUTO;
	}
	if (o.kinstr && (!o.vinstr || values_per_block > 64)) {
		if (!o.vinstr)
			WHY("%s has no vinstr reader, removed in %s UK %u.%u%s", ver,
			         kind, t->major, t->removed,
			         o.kinstr_early ? "; an early kinstr_prfcnt, worked around" : "");
		else
			WHY("this GPU's blocks have %u values and vinstr carries 64%s",
			         (unsigned)values_per_block,
			         o.kinstr_early ? "; an early kinstr_prfcnt, worked around" : "");
		return OG_KBASE_IFACE_KINSTR;
	}
	if (o.vinstr) {
		if (values_per_block > 64)
			WHY("%s has no kinstr_prfcnt, first in %s UK %u.%u: vinstr "
			         "carries the first 64 of this GPU's %u values per block",
			         ver, kind, t->major, t->kinstr, (unsigned)values_per_block);
		else if (o.kinstr)
			WHY("%s still has vinstr, until %s UK %u.%u; "
			         "interface=kinstr_prfcnt picks the newer one", ver, kind, t->major,
			         t->removed);
		else
			WHY("%s predates kinstr_prfcnt, first in %s UK %u.%u", ver,
			         kind, t->major, t->kinstr);
		return OG_KBASE_IFACE_VINSTR;
	}
	WHY("%s offers no counter interface opengpa speaks: it needs vinstr (%s UK "
	         "%u.x below %u.%u) or kinstr_prfcnt (%s UK %u.%u or later)", ver, kind, t->major,
	         t->major, t->removed, kind, t->major, t->kinstr);
	return OG_KBASE_IFACE_AUTO;
}
