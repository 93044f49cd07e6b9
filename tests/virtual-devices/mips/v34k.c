/* SPDX-License-Identifier: MIT */
/* v34k.c — the virtual 34K's registers, its /proc/perf text and its workload model. */
#include "v34k.h"

#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_HANDLES 64
#define TXTBUFSZ 1024 /* the vendor module truncates a write here */
#define FD_BASE 7000  /* sys-table descriptors, far from real ones */

enum kind { K_NONE = 0, K_PERF = 1, K_CPUINFO = 2 };

struct handle {
	bool used;
	enum kind kind;
	int flags;
	char text[4096];
	size_t len, off;
};

struct v34k {
	struct v34k_config cfg;
	uint32_t ctl[4];
	uint32_t hw[4];
	uint64_t ext[4];
	char *override;
	unsigned perf_mode; /* st_mode fstat gives the counter file; 0 = regular */
	unsigned writes;
	struct handle h[MAX_HANDLES];
	struct og_sys sys;
};

/* ---- workload model ---------------------------------------------------- */

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t v34k_model_count(uint64_t c, unsigned bank, unsigned event)
{
	/* Base quantities, each a fixed share of the cycles. */
	uint64_t instr = c * 4 / 5;
	uint64_t stalls = c * 17 / 100; /* the remaining 3% is other work */
	uint64_t br = instr / 6, mispred = br / 10;
	uint64_t jr31 = br / 8, jrxx = br / 16;
	uint64_t icacc = instr / 2, icmiss = icacc / 60;
	uint64_t dcacc = instr * 3 / 10, dcmiss = dcacc / 20, wb = dcmiss / 3;
	uint64_t loads = dcacc * 2 / 3, stores = dcacc - loads;
	uint64_t itlbm = icacc / 500, dtlbm = dcacc / 300;
	uint64_t l2acc = icmiss + dcmiss + wb, l2miss = l2acc / 5;
	uint64_t fpu = instr / 50, muldiv = instr / 40, dsp = instr / 100;
	uint64_t sc = instr / 2000, pf = instr / 500, unc = instr / 10000;
	uint64_t ext = c / 5000;
	bool odd = bank & 1;
	switch (event) {
	case 0: return c;
	case 1: return instr;
	case 2: return odd ? mispred : br;
	case 3: return odd ? jr31 / 20 : jr31;
	case 4: return odd ? jr31 / 40 : jrxx;
	case 5: return odd ? itlbm : icacc;
	case 6: return odd ? dtlbm : dcacc;
	case 7: return odd ? itlbm / 4 : itlbm;
	case 8: return odd ? dtlbm / 4 : dtlbm;
	case 9: return odd ? icmiss : icacc;
	case 10: return odd ? wb : dcacc;
	case 11: return dcmiss;
	case 12: return ext;
	case 13: return odd ? ext / 2 : ext / 4;
	case 14: return odd ? instr * 7 / 10 : fpu;
	case 15: return odd ? stores : loads;
	case 16: return odd ? 0 : br / 4;
	case 17: return odd ? muldiv : instr / 30;
	case 18: return odd ? stalls / 100 : stalls;
	case 19: return odd ? sc / 10 : sc;
	case 20: return odd ? pf / 2 : pf;
	case 21: return odd ? l2acc : wb / 2;
	case 22: return l2miss;
	case 23: return odd ? 0 : c / 100000;
	case 24: return odd ? stalls / 1000 : stalls / 50;
	case 25: return odd ? stalls - stalls * 2 / 5 : stalls * 2 / 5;
	case 26: return odd ? dsp / 10 : dsp;
	case 27: return odd ? dsp / 20 : 0;
	case 33: return odd ? unc / 2 : unc;
	case 37: return min64(stalls, odd ? dcmiss * 4 : icmiss * 10);
	case 38: return min64(stalls, l2miss * 10);
	case 39: return min64(c, odd ? l2miss * 40 : dcmiss * 30);
	case 40: return odd ? 0 : min64(stalls, unc * 5);
	case 41: return min64(stalls, odd ? fpu * 2 : muldiv * 2);
	case 45: return min64(stalls, odd ? loads / 40 : loads / 20);
	case 46: return min64(stalls, odd ? mispred * 3 : instr / 100);
	case 48: return odd ? icmiss + dcmiss : stalls / 2000;
	case 50: case 52: case 54: return odd ? c / 4 : c / 2;
	case 51: case 53: case 55: return odd ? c / 200 : c / 8;
	default: return 0;
	}
}

/* ---- registers --------------------------------------------------------- */

static uint32_t read_ctl(const struct v34k *v, unsigned n)
{
	/* M (bit 31) says another pair follows: set on counters 0..2. */
	return (v->ctl[n] & 0x3fff0fffu) | (n < 3 ? 0x80000000u : 0);
}

static void add_count(struct v34k *v, unsigned n, uint64_t delta)
{
	bool fold = v->cfg.extension && (v->ctl[n] & 0x10);
	while (delta) {
		/* At most 2^31 at a time, so a folding kernel sees bit 31 before
		 * the register wraps, as its interrupt would. */
		uint64_t step = min64(delta, 0x80000000u);
		uint64_t sum = (uint64_t)v->hw[n] + step;
		delta -= step;
		if (fold && (sum & 0x80000000u)) {
			v->ext[n] += sum;
			v->hw[n] = 0;
		} else {
			v->hw[n] = (uint32_t)sum;
		}
	}
}

/* Table 3 again, written independently of the backend's table so that the
 * tests cross-check the two: which events a bank lacks, and each event's
 * scope (T per TC, V per VPE, P processor-wide). */
enum scope { PER_TC, PER_VPE, PER_CORE, RESERVED };

static enum scope event_scope(unsigned bank, unsigned event)
{
	if (event > 55 || event == 36 || event == 49)
		return RESERVED;
	if (bank == 0 && event == 27)
		return RESERVED;
	if (bank == 1 && (event == 23 || event == 44 || event == 47))
		return RESERVED;
	if (bank == 0 && event == 47)
		return PER_VPE;
	if (event >= 50 || event == 0 || event == 12 || event == 13 || event == 21 ||
	    event == 22 || event == 25 || event == 38 || event == 39 || event == 44 ||
	    (bank == 0 && event == 18) || (bank == 1 && event == 48))
		return PER_CORE;
	return PER_TC;
}

static bool filter_matches(uint32_t ctl, enum scope scope, unsigned vpe, unsigned tc)
{
	unsigned mt = (ctl >> 20) & 3;
	if (scope == PER_CORE || mt == 0)
		return true;
	if (mt == 1)
		return ((ctl >> 16) & 0xf) == vpe;
	if (mt == 2)
		return scope == PER_TC ? ((ctl >> 22) & 0xff) == tc : true;
	return false; /* MT_EN = 3 is reserved */
}

void v34k_run(struct v34k *v, uint64_t cycles, enum v34k_mode mode, unsigned vpe, unsigned tc)
{
	for (unsigned n = 0; n < 4; n++) {
		uint32_t ctl = v->ctl[n];
		unsigned event = (ctl >> 5) & 0x7f;
		if (!(ctl & (uint32_t)mode))
			continue;
		enum scope scope = event_scope(n & 1, event);
		if (scope == RESERVED || !filter_matches(ctl, scope, vpe, tc))
			continue;
		add_count(v, n, v34k_model_count(cycles, n & 1, event));
	}
}

uint32_t v34k_ctl(const struct v34k *v, unsigned counter)
{
	return counter < 4 ? read_ctl(v, counter) : 0;
}

uint64_t v34k_count(const struct v34k *v, unsigned counter)
{
	return counter < 4 ? v->ext[counter] + v->hw[counter] : 0;
}

void v34k_set_ctl(struct v34k *v, unsigned counter, uint32_t ctl)
{
	if (counter < 4)
		v->ctl[counter] = ctl;
}

void v34k_set_hw(struct v34k *v, unsigned counter, uint32_t value)
{
	if (counter < 4)
		v->hw[counter] = value;
}

void v34k_set_text(struct v34k *v, const char *text)
{
	free(v->override);
	v->override = text ? strdup(text) : NULL;
}

void v34k_set_file_mode(struct v34k *v, unsigned mode)
{
	v->perf_mode = mode;
}

void v34k_set_read_only(struct v34k *v, bool read_only)
{
	v->cfg.read_only = read_only;
}

unsigned v34k_writes(const struct v34k *v)
{
	return v->writes;
}

int v34k_state_format(const struct v34k *v, char *buf, unsigned long len)
{
	int n = 0;
	for (unsigned c = 0; c < 4 && n >= 0 && (unsigned long)n < len; c++)
		n += snprintf(buf + n, len - (unsigned long)n, "%x %x %llx ", (unsigned)v->ctl[c],
		              (unsigned)v->hw[c], (unsigned long long)v->ext[c]);
	return n;
}

bool v34k_state_parse(struct v34k *v, const char *text)
{
	unsigned ctl[4], hw[4];
	unsigned long long ext[4];
	if (sscanf(text, "%x %x %llx %x %x %llx %x %x %llx %x %x %llx", &ctl[0], &hw[0], &ext[0],
	           &ctl[1], &hw[1], &ext[1], &ctl[2], &hw[2], &ext[2], &ctl[3], &hw[3],
	           &ext[3]) != 12)
		return false;
	for (unsigned c = 0; c < 4; c++) {
		v->ctl[c] = ctl[c];
		v->hw[c] = hw[c];
		v->ext[c] = ext[c];
	}
	return true;
}

/* ---- the files ----------------------------------------------------------- */

int v34k_file_kind(const struct v34k *v, const char *path)
{
	if ((v->cfg.proc_perf && strcmp(path, "/proc/perf") == 0) ||
	    (v->cfg.proc_mips_perf && strcmp(path, "/proc/mips/perf") == 0))
		return K_PERF;
	if (v->cfg.bogomips > 0 && strcmp(path, "/proc/cpuinfo") == 0)
		return K_CPUINFO;
	return K_NONE;
}

static void render(struct v34k *v, struct handle *h)
{
	int n = 0;
	if (h->kind == K_CPUINFO) {
		n = snprintf(h->text, sizeof h->text,
		             "system type\t\t: MIPS Malta (virtual)\nprocessor\t\t: 0\n"
		             "cpu model\t\t: MIPS 34Kc V1.4\nBogoMIPS\t\t: %.2f\n",
		             v->cfg.bogomips);
	} else if (v->override) {
		n = snprintf(h->text, sizeof h->text, "%s", v->override);
	} else {
		for (unsigned c = 0; c < 4; c++)
			n += snprintf(h->text + n, sizeof h->text - (size_t)n,
			              "PerfCnt[%u].Ctl : 0x%08x\nPerfCnt[%u].Cnt : %llu\n", c,
			              (unsigned)read_ctl(v, c), c,
			              (unsigned long long)(v->ext[c] + v->hw[c]));
	}
	h->len = n < 0 ? 0 : (size_t)n >= sizeof h->text ? sizeof h->text - 1 : (size_t)n;
	h->off = 0;
}

int v34k_open_handle(struct v34k *v, const char *path, int flags)
{
	enum kind kind = (enum kind)v34k_file_kind(v, path);
	if (kind == K_NONE)
		return -ENOENT;
	int acc = flags & O_ACCMODE;
	if (acc != O_RDONLY && (kind == K_CPUINFO || v->cfg.read_only))
		return -EACCES;
	for (int i = 0; i < MAX_HANDLES; i++) {
		if (v->h[i].used)
			continue;
		v->h[i].used = true;
		v->h[i].kind = kind;
		v->h[i].flags = flags;
		render(v, &v->h[i]);
		return i;
	}
	return -EMFILE;
}

static struct handle *get(struct v34k *v, int handle)
{
	return handle >= 0 && handle < MAX_HANDLES && v->h[handle].used ? &v->h[handle] : NULL;
}

long v34k_read_handle(struct v34k *v, int handle, void *buf, unsigned long len)
{
	struct handle *h = get(v, handle);
	if (!h || (h->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	size_t n = h->len - h->off < len ? h->len - h->off : len;
	memcpy(buf, h->text + h->off, n);
	h->off += n;
	return (long)n;
}

/* sscanf("%d %lx %Ld") four times over, as the vendor module parses. */
static void apply_write(struct v34k *v, const char *text)
{
	const char *p = text;
	for (int t = 0; t < 4; t++) {
		char *end;
		long n = strtol(p, &end, 10);
		if (end == p)
			return;
		p = end;
		unsigned long ctl = strtoul(p, &end, 16);
		if (end == p)
			return;
		p = end;
		long long count = strtoll(p, &end, 10);
		if (end == p)
			return;
		p = end;
		if (n < 0 || n > 3)
			continue;
		v->ctl[n] = (uint32_t)ctl & 0x3fff0fffu;
		if (count != -1) {
			if (v->cfg.extension) {
				v->ext[n] = (uint64_t)count;
				v->hw[n] = 0;
			} else {
				v->ext[n] = 0;
				v->hw[n] = (uint32_t)count;
			}
		}
	}
}

long v34k_write_handle(struct v34k *v, int handle, const void *buf, unsigned long len)
{
	struct handle *h = get(v, handle);
	if (!h || (h->flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	char text[TXTBUFSZ];
	size_t n = len < sizeof text - 1 ? len : sizeof text - 1;
	memcpy(text, buf, n);
	text[n] = '\0';
	apply_write(v, text);
	v->writes++;
	return (long)len;
}

/* procfs: a regular file of size 0 whatever it prints; the counter file is
 * root-writable, cpuinfo read-only. */
unsigned v34k_handle_mode(const struct v34k *v, int handle)
{
	const struct handle *h =
	        handle >= 0 && handle < MAX_HANDLES && v->h[handle].used ? &v->h[handle] : NULL;
	if (!h)
		return 0;
	if (h->kind == K_CPUINFO)
		return S_IFREG | 0444;
	return v->perf_mode ? v->perf_mode : S_IFREG | 0644;
}

int v34k_close_handle(struct v34k *v, int handle)
{
	struct handle *h = get(v, handle);
	if (!h)
		return -EBADF;
	h->used = false;
	return 0;
}

/* ---- the og_sys table ------------------------------------------------------ */

static int ret_errno(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

static int sys_open(void *ctx, const char *path, int flags, mode_t mode)
{
	(void)mode;
	int h = v34k_open_handle(ctx, path, flags);
	return h < 0 ? ret_errno(h) : h + FD_BASE;
}

static int sys_close(void *ctx, int fd)
{
	return ret_errno(v34k_close_handle(ctx, fd - FD_BASE));
}

static ssize_t sys_read(void *ctx, int fd, void *buf, size_t len)
{
	long r = v34k_read_handle(ctx, fd - FD_BASE, buf, len);
	return r < 0 ? ret_errno(r) : (ssize_t)r;
}

static ssize_t sys_write(void *ctx, int fd, const void *buf, size_t len)
{
	long r = v34k_write_handle(ctx, fd - FD_BASE, buf, len);
	return r < 0 ? ret_errno(r) : (ssize_t)r;
}

static int sys_fstat(void *ctx, int fd, mode_t *mode, int64_t *size)
{
	unsigned m = v34k_handle_mode(ctx, fd - FD_BASE);
	if (!m) {
		errno = EBADF;
		return -1;
	}
	*mode = (mode_t)m;
	*size = 0;
	return 0;
}

static int sys_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	errno = ENOTTY;
	return -1;
}

static void *sys_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	errno = ENODEV;
	return (void *)-1;
}

static int sys_munmap(void *ctx, void *addr, size_t len)
{
	errno = EINVAL;
	return -1;
}

static int sys_poll(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	for (nfds_t i = 0; i < nfds; i++)
		fds[i].revents = (short)(fds[i].events & (POLLIN | POLLOUT));
	return (int)nfds;
}

static int sys_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                               int group_fd, unsigned long flags)
{
	errno = ENOENT; /* an SMTC kernel has no perf_event for these counters */
	return -1;
}

struct v34k *v34k_new(const struct v34k_config *config)
{
	struct v34k *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	if (config) {
		v->cfg = *config;
	} else {
		v->cfg.proc_perf = true;
		v->cfg.proc_mips_perf = true;
		v->cfg.bogomips = 500;
	}
	v->sys = (struct og_sys){
		.ctx = v,
		.open = sys_open,
		.close = sys_close,
		.ioctl = sys_ioctl,
		.mmap = sys_mmap,
		.munmap = sys_munmap,
		.poll = sys_poll,
		.read = sys_read,
		.write = sys_write,
		.perf_event_open = sys_perf_event_open,
		.fstat = sys_fstat,
	};
	return v;
}

void v34k_free(struct v34k *v)
{
	if (!v)
		return;
	free(v->override);
	free(v);
}

struct og_sys *v34k_sys(struct v34k *v)
{
	return &v->sys;
}
