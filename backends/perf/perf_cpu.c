/* SPDX-License-Identifier: MIT */
/* perf_cpu.c — which CPU this is, from /proc/cpuinfo and sysfs. */
#include "perf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIDR_PATH "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1"

/* Copies the value of the first "key<blanks>: value" line into out. */
static bool cpuinfo_field(const char *text, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0)
			continue;
		const char *q = p + klen;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != ':')
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		size_t n = strcspn(q, "\n");
		if (n >= len)
			n = len - 1;
		memcpy(out, q, n);
		out[n] = '\0';
		return true;
	}
	return false;
}

static bool cpuinfo_number(const char *text, const char *key, unsigned long *v)
{
	char buf[32];
	if (!cpuinfo_field(text, key, buf, sizeof buf))
		return false;
	char *end;
	*v = strtoul(buf, &end, 0);
	return end != buf;
}

/* Implementers whose parts opengpa names: Arm's own cores, and Microsoft's
 * Azure Cobalt 100, an N2 under another implementer code. */
#define MIDR_IMPL_ARM 0x41
#define MIDR_IMPL_MICROSOFT 0x6d

static const char *arm_part_name(uint32_t midr)
{
	uint32_t impl = midr >> 24, part = (midr >> 4) & 0xfff;
	if (impl == MIDR_IMPL_MICROSOFT && part == 0xd49)
		return "Microsoft Azure Cobalt 100 (Neoverse-N2)";
	if (impl != MIDR_IMPL_ARM)
		return NULL;
	switch (part) {
	case 0xd0c: return "Arm Neoverse-N1";
	case 0xd49: return "Arm Neoverse-N2";
	case 0xd40: return "Arm Neoverse-V1";
	case 0xd4f: return "Arm Neoverse-V2";
	case 0xd8e: return "Arm Neoverse-N3";
	case 0xd84: return "Arm Neoverse-V3";
	case 0xd83: return "Arm Neoverse-V3AE";
	default: return NULL;
	}
}

/* N2 r0p3 changed what the slot events count, so it has formulas of its
 * own (Arm's data keys it by the full MIDR, 0x410fd493 and 0x6d0fd493).
 * No later N2 revision is published; one would count as r0p3 does, so
 * r0p3 and later take the r0p3 set. */
static const char *n2_counter_set(uint32_t midr)
{
	uint32_t variant = (midr >> 20) & 0xf, rev = midr & 0xf;
	return variant > 0 || rev >= 3 ? "neoverse-n2-r0p3" : "neoverse-n2";
}

/* The counter set for an Arm core, NULL when there is none for it.  The
 * revision rules are the part's, whoever the implementer: a Cobalt 100
 * that reports r0p3 is an N2 r0p3. */
static const char *arm_counter_set(uint32_t midr)
{
	uint32_t impl = midr >> 24, part = (midr >> 4) & 0xfff;
	if (impl == MIDR_IMPL_MICROSOFT && part == 0xd49)
		return n2_counter_set(midr);
	if (impl != MIDR_IMPL_ARM)
		return NULL;
	switch (part) {
	case 0xd0c: return "neoverse-n1";
	case 0xd49: return n2_counter_set(midr);
	case 0xd40: return "neoverse-v1";
	case 0xd4f: return "neoverse-v2";
	case 0xd8e: return "neoverse-n3";
	case 0xd84: return "neoverse-v3";
	/* V3AE (Linux cputype.h ARM_CPU_PART_NEOVERSE_V3AE 0xD83): Arm's
	 * top-down data gives it the V3's metrics. */
	case 0xd83: return "neoverse-v3";
	default: return NULL;
	}
}

/* The MIDR from sysfs, or assembled from the cpuinfo fields; 0 if neither. */
static uint32_t arm_midr(const struct og_backend_host *host, const char *cpuinfo)
{
	char text[40];
	if (og_perf_read_text(host, MIDR_PATH, text, sizeof text) > 0) {
		char *end;
		unsigned long long v = strtoull(text, &end, 16);
		if (end != text && v != 0 && v <= UINT32_MAX)
			return (uint32_t)v;
	}
	unsigned long impl, variant = 0, part, rev = 0;
	if (!cpuinfo_number(cpuinfo, "CPU implementer", &impl) ||
	    !cpuinfo_number(cpuinfo, "CPU part", &part) || impl > 0xff || part > 0xfff)
		return 0;
	cpuinfo_number(cpuinfo, "CPU variant", &variant);
	cpuinfo_number(cpuinfo, "CPU revision", &rev);
	return (uint32_t)(impl << 24 | (variant & 0xf) << 20 | 0xfu << 16 | part << 4 | (rev & 0xf));
}

/* Whether the block [text, end) has a line "key<blanks>:". */
static bool block_has(const char *text, const char *end, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && p < end; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0 &&
		    p[klen + strspn(p + klen, " \t")] == ':')
			return true;
	return false;
}

void og_perf_read_cpuinfo(const struct og_backend_host *host, char *buf, size_t len)
{
	const struct og_sys *sys = host->sys;
	buf[0] = '\0';
	int fd = len > 1 ? sys->open(sys->ctx, "/proc/cpuinfo", O_RDONLY, 0) : -1;
	if (fd < 0)
		return;
	/* In pieces, so that a machine with many CPUs is not asked to format
	 * all of them: the x86 block has the family (and the model name), the
	 * Arm one the implementer and part, the MIPS one the cpu model.  Old
	 * 32-bit Arm kernels put the implementer after every CPU's block:
	 * there the text is read on. */
	size_t have = 0;
	while (have + 1 < len) {
		size_t want = len - 1 - have < 1024 ? len - 1 - have : 1024;
		ssize_t r = sys->read(sys->ctx, fd, buf + have, want);
		if (r < 0 && errno == EINTR)
			continue;
		/* A read that claims more than was asked is a lying kernel (or
		 * table): stop rather than run past buf. */
		if (r <= 0 || (size_t)r > want)
			break;
		have += (size_t)r;
		buf[have] = '\0';
		const char *end = strstr(buf, "\n\n");
		if (end && (block_has(buf, end, "cpu family") || block_has(buf, end, "CPU implementer") ||
		            block_has(buf, end, "cpu model")))
			break;
	}
	sys->close(sys->ctx, fd);
}

void og_perf_device_info(const struct og_backend_host *host, const char *cpuinfo,
                         struct og_device_info *info)
{
	info->counter_sets[0] = "perf-generic";
	snprintf(info->description, sizeof info->description, "Unknown CPU");

	unsigned long family, model, stepping = 0;
	if (cpuinfo_field(cpuinfo, "model name", info->description, sizeof info->description) &&
	    cpuinfo_number(cpuinfo, "cpu family", &family) &&
	    cpuinfo_number(cpuinfo, "model", &model)) {
		cpuinfo_number(cpuinfo, "stepping", &stepping);
		info->device_id = (uint32_t)((family & 0xffffff) << 8 | (model & 0xff));
		info->revision_id = (uint32_t)stepping;
		return;
	}
	uint32_t midr = arm_midr(host, cpuinfo);
	if (midr) {
		info->device_id = midr;
		info->revision_id = ((midr >> 20) & 0xf) << 4 | (midr & 0xf);
		const char *set = arm_counter_set(midr);
		if (set) {
			info->counter_sets[0] = set;
			info->counter_sets[1] = "perf-generic";
		}
		/* SPE's counters on any Arm core: where the CPU or kernel has no
		 * SPE, they are listed as not countable with the reason. */
		info->counter_sets[set ? 2 : 1] = "arm-spe";
		const char *name = arm_part_name(midr);
		if (name)
			snprintf(info->description, sizeof info->description, "%s r%up%u", name,
			         (unsigned)((midr >> 20) & 0xf), (unsigned)(midr & 0xf));
		else
			snprintf(info->description, sizeof info->description,
			         "CPU implementer 0x%02x part 0x%03x", (unsigned)(midr >> 24),
			         (unsigned)((midr >> 4) & 0xfff));
		return;
	}
	/* Other architectures: whatever names the CPU ("cpu model" on MIPS). */
	if (!cpuinfo_field(cpuinfo, "model name", info->description, sizeof info->description))
		cpuinfo_field(cpuinfo, "cpu model", info->description, sizeof info->description);
}

unsigned og_perf_online_cpus(const struct og_backend_host *host)
{
	char text[256];
	if (og_perf_read_text(host, "/sys/devices/system/cpu/online", text, sizeof text) <= 0)
		return 0;
	/* "0-3,5,7-8": a list of ranges. */
	unsigned long total = 0;
	for (const char *p = text; *p && *p != '\n';) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;
		if (end == p)
			return 0;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b < a)
				return 0;
		}
		total += b - a + 1;
		if (total > 1u << 20)
			return 0;
		p = *end == ',' ? end + 1 : end;
	}
	return (unsigned)total;
}

int og_perf_spe_sources_of(const struct og_device_info *info)
{
	bool arm = false;
	for (int i = 0; i < OG_MAX_COUNTER_SETS && info->counter_sets[i]; i++)
		arm |= strcmp(info->counter_sets[i], "arm-spe") == 0;
	uint32_t impl = info->device_id >> 24, part = (info->device_id >> 4) & 0xfff;
	if (!arm)
		return 0;
	/* The data source encoding Arm's TRMs give these cores (and the
	 * kernel's perf tool reads the same way); other cores' is their own. */
	if (impl == MIDR_IMPL_MICROSOFT && part == 0xd49)
		return 1;
	if (impl != MIDR_IMPL_ARM)
		return 0;
	switch (part) {
	case 0xd0c: /* Neoverse N1 */
	case 0xd49: /* Neoverse N2 */
	case 0xd40: /* Neoverse V1 */
	case 0xd4f: /* Neoverse V2 */
	case 0xd81: /* Cortex-A720 */
	case 0xd87: /* Cortex-A725 */
	case 0xd4c: /* Cortex-X1C */
	case 0xd4e: /* Cortex-X3 */
	case 0xd85: /* Cortex-X925 */
		return 1;
	default:
		return 0;
	}
}
