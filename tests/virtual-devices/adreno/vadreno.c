/* SPDX-License-Identifier: MIT */
/* vadreno.c — the virtual Adreno's KGSL device (see vadreno.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/ioctl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"
#include "vadreno.h"

#define NGROUPS 0x37u
#define NOT_USED 0xFFFFFFFFu
#define BROKEN 0xFFFFFFFEu
#define MAX_SLOTS 24u
#define MAX_FDS 64u

enum table { T_A5XX, T_A630, T_LEGACY, T_GMU, T_GEN7, T_GEN7HW, T_GEN79, NTABLES };

/* Counters per group and KGSL table, reference §1.4 (a621's hwsched table
 * is the GMU one). */
static uint8_t counters_of(enum table t, uint32_t g)
{
	bool a5 = t == T_A5XX, g7 = t >= T_GEN7;
	switch (g) {
	case 0x00: return a5 ? 8 : 14;
	case 0x01: return a5 ? 3 : 4;
	case 0x02: case 0x03: case 0x0B: return 8;
	case 0x19: return 4;
	case 0x04: return a5 ? 8 : 6;
	case 0x05: return a5 ? 4 : 6;
	case 0x06: case 0x07: case 0x1A: case 0x0D: return 4;
	case 0x08: return a5 ? 8 : (t == T_GEN7HW || t == T_GEN79) ? 24 : 12;
	case 0x09: return a5 ? 8 : 12;
	case 0x0A: return a5 ? 12 : 24;
	case 0x0E: return 3;
	case 0x17: return 2;
	case 0x18: return a5 ? 4 : 5;
	case 0x1B: return 1;
	case 0x1C: case 0x1D: case 0x1E: case 0x20: case 0x21: return a5 ? 4 : 0;
	case 0x1F: return a5 ? 2 : 0;
	case 0x22: return a5 ? 6 : 0;
	case 0x23: return a5 ? 1 : 0;
	case 0x27: return t == T_GMU ? 10 : g7 ? 11 : 0;
	case 0x28: return t >= T_GMU ? 2 : 0;
	case 0x29: return t >= T_GMU ? 6 : 0;
	case 0x2B: return g7 ? 4 : 0;
	case 0x2C: return g7 ? 7 : 0;
	case 0x2D: case 0x2E: return g7 ? 8 : 0;
	case 0x2F: case 0x30: case 0x36: return g7 ? 6 : 0;
	case 0x31: return g7 ? 12 : 0;
	case 0x32: return g7 ? 2 : 0;
	case 0x33: case 0x34: case 0x35: return g7 ? 4 : 0;
	default: return 0;
	}
}

static bool fixed_group(uint32_t g)
{
	return g == 0x1B || g == 0x0E || g == 0x0C;
}

struct chip {
	uint32_t chip_id;
	enum table table;
	unsigned gen, sp_cores;
	uint64_t gmem;
	const char *model;
};

static const struct chip chips[] = {
	{ 0x05030002, T_A5XX, 5, 4, 1u << 20, "Adreno530v2" },
	{ 0x05040001, T_A5XX, 5, 4, 1u << 20, "Adreno540v2" },
	{ 0x06010800, T_LEGACY, 6, 1, 512u << 10, "Adreno618v1" },
	{ 0x06030002, T_A630, 6, 2, 1u << 20, "Adreno630v2" },
	{ 0x06040001, T_LEGACY, 6, 2, 1u << 20, "Adreno640v2" },
	{ 0x06050002, T_GMU, 6, 3, (1u << 20) + (128u << 10), "Adreno650v3" },
	{ 0x06060001, T_GMU, 6, 3, 1536u << 10, "Adreno660v2" },
	{ 0x07030001, T_GEN7, 7, 4, 2u << 20, "Adreno730v2" },
	{ 0x43050a01, T_GEN7HW, 7, 6, 3u << 20, "Adreno740v2" },
	{ 0x43051401, T_GEN79, 7, 6, 3u << 20, "Adreno750v2" },
};

struct node {
	uint32_t group, countable;
};

struct vfd {
	int fd;
	struct node *nodes;
	size_t n, cap;
};

struct slot {
	uint32_t countable; /* NOT_USED, BROKEN or the countable */
	uint32_t user_refs;
	bool kernel;
};

#define STREAM_MAX 256u /* countables in one stream */

/* The msm counter stream: a pipe the sampling thread writes records into
 * (the kernel's hrtimer), whose read end is the client's fd. */
struct vstream {
	bool on, stop;
	int rfd, wfd;
	pthread_t thread;
	uint64_t period_ns;
	uint32_t n, seqno;
	bool lost;
	uint32_t g[STREAM_MAX], c[STREAM_MAX];
	uint64_t records;
};

struct vadreno {
	pthread_mutex_t lock;
	struct vstream stream;
	struct vadreno_config cfg;
	struct vadreno_faults faults;
	const struct chip *chip;
	struct slot slots[NGROUPS][MAX_SLOTS];
	uint8_t nslots[NGROUPS];
	struct vfd fds[MAX_FDS];
	uint64_t frames;
	unsigned eintr_flip;
	struct og_sys sys;
};

/* ---- the workload: counts per frame ---- */

#define C_ 1000000ull /* cycles per frame */
#define B_ 800000ull  /* busy cycles */
#define P_ 400000ull  /* pixels */
#define V_ 50000ull   /* vertices */
#define R_ 20000ull   /* primitives */
#define X_ (2 * P_)   /* texels */

uint64_t vadreno_rate(struct vadreno *vd, uint32_t g, uint32_t c)
{
	unsigned gen = vd->chip->gen;
	uint64_t units = gen == 7 ? 2u * vd->chip->sp_cores : vd->chip->sp_cores;
	if (g >= 0x2C && g <= 0x36) { /* BV pipe: a quarter of its BR group */
		static const uint32_t br[] = {0x00, 0x02, 0x03, 0x05, 0x09, 0x0A, 0x2B, 0x06, 0x07,
		                              0x19, 0x04};
		return vadreno_rate(vd, br[g - 0x2C], c) / 4;
	}
	bool a5 = gen == 5;
	switch (g) {
	case 0x00:
		if (c == 0) return C_;
		if (c == 2) return B_;
		break;
	case 0x01:
		if (c == 0) return C_;
		if (c == 6) return B_;
		break;
	case 0x02:
		if (c == (gen == 7 ? 25u : 26u)) return V_;
		if (!a5 && c == (gen == 7 ? 19u : 20u)) return V_ / 3;
		if (c == 2) return B_ / 20;
		break;
	case 0x04:
		if (gen < 7 && c == 8) return P_ / 4;
		break;
	case 0x06:
		if (c == 6) return R_;
		if (c == 8) return R_ / 10;
		if (c == 9) return R_ / 20;
		if (c == 14) return R_ * 7 / 10;
		break;
	case 0x08:
		if (c == 9) return X_ / 8;
		if (c == 4) return X_ / 32;
		if (c == 1) return B_ / 20;
		if (c == 5) return V_ / 4;
		if (c == 8) return P_ / 16;
		if (c == 13) return P_ / 4;
		if (c == 15) return P_ / 8;
		if (c == 18) return P_ / 32;
		break;
	case 0x09: {
		uint32_t f0 = a5 ? 29 : 25; /* output pixels point, bilinear, mip, aniso, zero-LOD */
		if (c == 0) return B_ * units / 2;
		if (c == 6 || c == 10) return X_;
		if (c == 7) return X_ / 10;
		if (c == f0) return X_ / 4;
		if (c == f0 + 1) return X_ / 2;
		if (c == f0 + 2) return X_ / 8;
		if (c == f0 + 3) return X_ / 16;
		if (c == f0 + 4) return X_ / 3;
		break;
	}
	case 0x0A: {
		uint32_t s = a5 ? 1 : 0; /* a5xx's instruction countables sit one higher */
		if (c == 0) return B_ * units * 3 / 4;
		if (c == 1) return B_ * units / 2;
		if (c == 2) return B_ * units / 8;
		if (c == 4) return B_ * units / 10;
		if (!a5 && c == 7) return B_ * units / 8;
		if (c == 43 + s) return V_ * 30;
		if (c == 44 + s) return P_ * 20;
		if (c == 35 + s) return V_ * 20;
		if (c == 34 + s) return V_ * 2;
		if (c == 40 + s) return P_ * 12;
		if (c == 41 + s) return P_ * 6;
		if (c == 39 + s) return P_;
		if (!a5 && c == 33) return V_;
		if (!a5 && c == 51) return P_;
		if (!a5 && c == 52) return P_ / 100;
		if (gen == 7 && c == 101) return P_;
		if (gen == 7 && c == 99) return P_ / 4;
		break;
	}
	case 0x19:
		if (c == 17) return 2 * P_;
		if (c == 18) return P_;
		if (c == 12) return R_ / 10;
		if (c == 16) return R_ / 5;
		break;
	case 0x1A:
		if (c == 7) return X_ / 64;
		break;
	case 0x1B:
		return 320000; /* 19.2 MHz always-on timer, 60 frames per second */
	default:
		break;
	}
	return B_ / 16 * (1 + (g * 7 + c) % 5);
}

/* ---- state ---- */

static void reserve_kernel(struct vadreno *vd)
{
	enum table t = vd->chip->table;
	for (uint32_t g = 0; g < NGROUPS; g++) {
		vd->nslots[g] = counters_of(t, g);
		for (unsigned i = 0; i < MAX_SLOTS; i++)
			vd->slots[g][i] = (struct slot){NOT_USED, 0, false};
	}
	if (t >= T_GMU) {
		/* GMU_XOCLK 0 and 4: GPU busy and IFPC count (BROKEN). */
		vd->slots[0x27][0].countable = vd->slots[0x27][4].countable = BROKEN;
		/* Bus DCVS holds GBIF AXI0/1 read and write beats. */
		static const uint32_t gbif[] = {34, 35, 46, 47};
		for (unsigned i = 0; i < 4; i++)
			vd->slots[0x0D][i] = (struct slot){gbif[i], 0, true};
	} else if (t == T_A5XX || t == T_A630) {
		vd->slots[0x0D][3] = (struct slot){85, 0, true}; /* VBIF AXI total beats */
	}
}

static bool stream_close(struct vadreno *vd, int fd);

struct vadreno *vadreno_create(const struct vadreno_config *cfg)
{
	struct vadreno_config c = cfg ? *cfg : (struct vadreno_config){0};
	if (!c.chip_id)
		c.chip_id = 0x06050002;
	if (!c.frames_per_read)
		c.frames_per_read = 1;
	const struct chip *chip = NULL;
	for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++)
		if (chips[i].chip_id == c.chip_id)
			chip = &chips[i];
	if (!chip) {
		errno = EINVAL;
		return NULL;
	}
	struct vadreno *vd = calloc(1, sizeof *vd);
	if (!vd)
		return NULL;
	pthread_mutex_init(&vd->lock, NULL);
	vd->cfg = c;
	vd->chip = chip;
	vd->faults.empty_group = -1;
	for (unsigned i = 0; i < MAX_FDS; i++)
		vd->fds[i].fd = -1;
	vd->stream.rfd = vd->stream.wfd = -1;
	reserve_kernel(vd);
	return vd;
}

void vadreno_destroy(struct vadreno *vd)
{
	if (!vd)
		return;
	if (vd->stream.on) {
		int rfd = vd->stream.rfd;
		stream_close(vd, rfd);
		close(rfd);
	}
	for (unsigned i = 0; i < MAX_FDS; i++)
		if (vd->fds[i].fd >= 0) {
			close(vd->fds[i].fd);
			free(vd->fds[i].nodes);
		}
	pthread_mutex_destroy(&vd->lock);
	free(vd);
}

void vadreno_set_faults(struct vadreno *vd, const struct vadreno_faults *f)
{
	pthread_mutex_lock(&vd->lock);
	vd->faults = *f;
	if (!f->empty_group_set)
		vd->faults.empty_group = -1;
	pthread_mutex_unlock(&vd->lock);
}

void vadreno_run_frames(struct vadreno *vd, uint64_t n)
{
	pthread_mutex_lock(&vd->lock);
	vd->frames += n;
	pthread_mutex_unlock(&vd->lock);
}

uint64_t vadreno_frames(struct vadreno *vd)
{
	return vd->frames;
}

static uint32_t group_counters(struct vadreno *vd, uint32_t g)
{
	if (vd->faults.empty_group >= 0 && (uint32_t)vd->faults.empty_group == g)
		return 0;
	return vd->nslots[g];
}

uint32_t vadreno_group_counters(struct vadreno *vd, uint32_t g)
{
	return g < NGROUPS ? vd->nslots[g] : 0;
}

unsigned vadreno_sp_cores(struct vadreno *vd)
{
	return vd->chip->sp_cores;
}

static struct vfd *find_fd(struct vadreno *vd, int fd)
{
	for (unsigned i = 0; i < MAX_FDS; i++)
		if (vd->fds[i].fd == fd && fd >= 0)
			return &vd->fds[i];
	return NULL;
}

bool vadreno_owns_fd(struct vadreno *vd, int fd)
{
	pthread_mutex_lock(&vd->lock);
	bool r = find_fd(vd, fd) != NULL || (vd->stream.on && fd == vd->stream.rfd);
	pthread_mutex_unlock(&vd->lock);
	return r;
}

bool vadreno_owns_path(const char *path)
{
	return path && (strcmp(path, VADRENO_PATH) == 0 || strcmp(path, VADRENO_MSM_PATH) == 0 ||
	                strncmp(path, VADRENO_SYSFS "/", sizeof VADRENO_SYSFS) == 0);
}

uint32_t vadreno_user_refs(struct vadreno *vd)
{
	uint32_t n = 0;
	pthread_mutex_lock(&vd->lock);
	for (uint32_t g = 0; g < NGROUPS; g++)
		for (unsigned i = 0; i < MAX_SLOTS; i++)
			n += vd->slots[g][i].user_refs;
	pthread_mutex_unlock(&vd->lock);
	return n;
}

uint32_t vadreno_open_fds(struct vadreno *vd)
{
	uint32_t n = 0;
	pthread_mutex_lock(&vd->lock);
	for (unsigned i = 0; i < MAX_FDS; i++)
		n += vd->fds[i].fd >= 0;
	pthread_mutex_unlock(&vd->lock);
	return n;
}

/* ---- GET / PUT (lock held) ---- */

static int get_locked(struct vadreno *vd, uint32_t g, uint32_t c, uint32_t *slot_out)
{
	if (g >= NGROUPS)
		return -EINVAL;
	uint32_t n = group_counters(vd, g);
	if (fixed_group(g)) {
		if (c >= n)
			return -EINVAL;
		vd->slots[g][c].countable = c;
		vd->slots[g][c].user_refs++;
		*slot_out = c;
		return 0;
	}
	if ((g == 0x0D && c > 0x7F) || (g >= 0x27 && g <= 0x29 && c > 0xFF))
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (vd->slots[g][i].countable == c) {
			vd->slots[g][i].user_refs++;
			*slot_out = i;
			return 0;
		}
	for (uint32_t i = n; i-- > 0;)
		if (vd->slots[g][i].countable == NOT_USED) {
			vd->slots[g][i].countable = c;
			vd->slots[g][i].user_refs = 1;
			*slot_out = i;
			return 0;
		}
	return -EBUSY;
}

static void put_slot(struct vadreno *vd, uint32_t g, uint32_t c)
{
	for (uint32_t i = 0; i < vd->nslots[g]; i++) {
		struct slot *s = &vd->slots[g][i];
		if (s->countable == c && s->user_refs) {
			if (--s->user_refs == 0 && !s->kernel)
				s->countable = NOT_USED;
			return;
		}
	}
}

int vadreno_other_get(struct vadreno *vd, uint32_t group, uint32_t countable)
{
	uint32_t slot;
	pthread_mutex_lock(&vd->lock);
	int r = get_locked(vd, group, countable, &slot);
	if (r == 0 && !fixed_group(group)) {
		/* Held by another process for good: not one of this device's users. */
		vd->slots[group][slot].kernel = true;
		vd->slots[group][slot].user_refs--;
	}
	pthread_mutex_unlock(&vd->lock);
	return r;
}

/* LO register offsets of counter 0 (§1.4): a5xx, a6xx, gen7. */
static uint32_t lo0(unsigned gen, uint32_t g)
{
	static const uint32_t t[][3] = {
		[0x00] = {0x3a0, 0x400, 0x300}, [0x01] = {0x3b2, 0x41c, 0x31c},
		[0x02] = {0x3b8, 0x424, 0x324}, [0x03] = {0x3c8, 0x434, 0x334},
		[0x04] = {0x3d8, 0x444, 0x344}, [0x05] = {0x3e8, 0x450, 0x350},
		[0x06] = {0x3f8, 0x466, 0x366}, [0x07] = {0x400, 0x46e, 0x36e},
		[0x08] = {0x408, 0x476, 0x376}, [0x09] = {0x418, 0x48e, 0x38e},
		[0x0A] = {0x428, 0x4a6, 0x3a6}, [0x0B] = {0x440, 0x4d6, 0x3d6},
		[0x17] = {0x450, 0x4e6, 0x3e6}, [0x18] = {0x3f0, 0x45c, 0x35c},
		[0x19] = {0x454, 0x4ea, 0x3ea}, [0x1A] = {0x45c, 0x4f2, 0x3f2},
		[0x1B] = {0x4d2, 0x980, 0x980}, [0x2B] = {0, 0, 0x3fa},
		[0x36] = {0, 0, 0},
	};
	return g < sizeof t / sizeof t[0] ? t[g][gen - 5] : 0;
}

/* ---- the ioctls ---- */

static int copy_devinfo(struct vadreno *vd, void *dst, uint64_t size, bool compat)
{
	if (compat) {
		if (size != 24)
			return -EINVAL;
		uint32_t d[6] = {1, vd->chip->chip_id, 1, 0, 0, (uint32_t)vd->chip->gmem};
		memcpy(dst, d, 24);
		return 0;
	}
	unsigned char b[40] = {0};
	uint32_t u;
	uint64_t q;
	u = 1; memcpy(b + 0, &u, 4);
	u = vd->chip->chip_id; memcpy(b + 4, &u, 4);
	u = 1; memcpy(b + 8, &u, 4);
	q = vd->chip->gmem; memcpy(b + 32, &q, 8);
	memcpy(dst, b, size < 40 ? size : 40);
	return 0;
}

static int do_getprop(struct vadreno *vd, void *arg, unsigned size)
{
	uint32_t type;
	uint64_t value, sizebytes;
	bool compat = size == 12;
	if (compat) {
		uint32_t w[3];
		memcpy(w, arg, 12);
		type = w[0];
		value = w[1];
		sizebytes = w[2];
	} else if (size == 24) {
		memcpy(&type, arg, 4);
		memcpy(&value, (char *)arg + 8, 8);
		memcpy(&sizebytes, (char *)arg + 16, 8);
	} else {
		return -EINVAL;
	}
	void *dst = (void *)(uintptr_t)value;
	if (!dst)
		return -EINVAL;
	switch (type) {
	case 0x1:
		return copy_devinfo(vd, dst, sizebytes, compat);
	case 0x8: {
		if (sizebytes != 16)
			return -EINVAL;
		uint32_t v[4] = {3, 14, 3, 1};
		memcpy(dst, v, 16);
		return 0;
	}
	case 0x29: {
		char m[32] = {0};
		snprintf(m, sizeof m, "%s", vd->chip->model);
		memcpy(dst, m, sizebytes < 32 ? sizebytes : 32);
		return 0;
	}
	default:
		return -ENODEV;
	}
}

static int do_get(struct vadreno *vd, struct vfd *f, void *arg)
{
	uint32_t a[5];
	memcpy(a, arg, 20);
	uint32_t slot;
	if (vd->faults.get_ebusy)
		return -EBUSY;
	int r = get_locked(vd, a[0], a[1], &slot);
	if (r)
		return r;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		struct node *nn = realloc(f->nodes, cap * sizeof *nn);
		if (!nn) {
			put_slot(vd, a[0], a[1]);
			return -ENOMEM;
		}
		f->nodes = nn;
		f->cap = cap;
	}
	f->nodes[f->n++] = (struct node){a[0], a[1]};
	a[2] = lo0(vd->chip->gen, a[0]) + 2 * slot;
	a[3] = a[2] + 1;
	memcpy(arg, a, 20);
	return 0;
}

static int do_put(struct vadreno *vd, struct vfd *f, void *arg)
{
	uint32_t a[2];
	memcpy(a, arg, 8);
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i].group == a[0] && f->nodes[i].countable == a[1]) {
			f->nodes[i] = f->nodes[--f->n];
			put_slot(vd, a[0], a[1]);
			return 0;
		}
	return -ENODEV;
}

static int do_query(struct vadreno *vd, void *arg, unsigned size)
{
	uint32_t g, count;
	uint64_t ptr;
	memcpy(&g, arg, 4);
	if (size == 24) {
		uint32_t p32;
		memcpy(&p32, (char *)arg + 4, 4);
		ptr = p32;
		memcpy(&count, (char *)arg + 8, 4);
	} else {
		memcpy(&ptr, (char *)arg + 8, 8);
		memcpy(&count, (char *)arg + 16, 4);
	}
	if (g >= NGROUPS)
		return -EINVAL;
	uint32_t n = vd->faults.query_huge ? 1000 : group_counters(vd, g);
	if (ptr && count) {
		uint32_t *out = (uint32_t *)(uintptr_t)ptr;
		for (uint32_t i = 0; i < count && i < n; i++)
			out[i] = i < MAX_SLOTS ? vd->slots[g][i].countable : NOT_USED;
	}
	memcpy((char *)arg + (size == 24 ? 12 : 20), &n, 4);
	return 0;
}

static uint64_t value_of(struct vadreno *vd, uint32_t g, uint32_t c)
{
	if (g == 0x1B && c == 0)
		return vd->frames * vadreno_rate(vd, g, c);
	uint32_t n = group_counters(vd, g);
	for (uint32_t i = 0; i < n; i++)
		if (vd->slots[g][i].countable == c)
			return vd->frames * vadreno_rate(vd, g, c);
	return 0;
}

static int do_read(struct vadreno *vd, void *arg, unsigned size)
{
	uint64_t ptr;
	uint32_t count;
	if (size == 16) {
		uint32_t p32;
		memcpy(&p32, arg, 4);
		ptr = p32;
		memcpy(&count, (char *)arg + 4, 4);
	} else {
		memcpy(&ptr, arg, 8);
		memcpy(&count, (char *)arg + 8, 4);
	}
	if (vd->cfg.perfcounter_off)
		return -EPERM;
	if (!ptr || count == 0 || count > 100 || vd->faults.read_einval)
		return -EINVAL;
	unsigned char *r = (unsigned char *)(uintptr_t)ptr;
	unsigned char tmp[100 * 16];
	memcpy(tmp, r, count * 16u);
	if (!vd->cfg.manual_frames)
		vd->frames += vd->cfg.frames_per_read;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t g, c;
		uint64_t v = 0;
		memcpy(&g, tmp + 16 * i, 4);
		memcpy(&c, tmp + 16 * i + 4, 4);
		memcpy(tmp + 16 * i + 8, &v, 8);
		if (g >= NGROUPS)
			return -EINVAL;
		v = value_of(vd, g, c);
		memcpy(tmp + 16 * i + 8, &v, 8);
	}
	if (vd->faults.read_wrong_entry) {
		uint32_t c;
		memcpy(&c, tmp + 4, 4);
		c++;
		memcpy(tmp + 4, &c, 4);
	}
	memcpy(r, tmp, count * 16u);
	return 0;
}

/* ---- upstream msm: GET_PARAM and the PERFCNTR_CONFIG stream (§2.1, §2.3) ---- */

static const char *const msm_names[NGROUPS] = {
	[0x00] = "CP", [0x01] = "RBBM", [0x02] = "PC", [0x03] = "VFD", [0x04] = "HLSQ",
	[0x05] = "VPC", [0x06] = "TSE", [0x07] = "RAS", [0x08] = "UCHE", [0x09] = "TP",
	[0x0A] = "SP", [0x0B] = "RB", [0x17] = "VSC", [0x18] = "CCU", [0x19] = "LRZ",
	[0x1A] = "CMP", [0x2B] = "UFC", [0x2C] = "BV_CP", [0x2D] = "BV_PC", [0x2E] = "BV_VFD",
	[0x2F] = "BV_VPC", [0x30] = "BV_TP", [0x31] = "BV_SP", [0x32] = "BV_UFC",
	[0x33] = "BV_TSE", [0x34] = "BV_RAS", [0x35] = "BV_LRZ", [0x36] = "BV_HLSQ",
};

static int msm_group(struct vadreno *vd, const char name[16])
{
	if (memchr(name, 0, 16) == NULL)
		return -1;
	for (uint32_t g = 0; g < NGROUPS; g++)
		if (msm_names[g] && strcmp(msm_names[g], name) == 0 &&
		    counters_of(vd->chip->table, g) > 0)
			return (int)g;
	return -1;
}

/* Counters a stream may take: CP0 and SP0 are the kernel's and Mesa's. */
static uint32_t msm_free(struct vadreno *vd, uint32_t g)
{
	uint32_t n = counters_of(vd->chip->table, g);
	uint32_t keep = (g == 0x00 || g == 0x0A) ? 1 : 0;
	keep += vd->cfg.msm_busy_counters;
	return n > keep ? n - keep : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int do_msm_param(struct vadreno *vd, void *arg)
{
	uint32_t pipe, param;
	memcpy(&pipe, arg, 4);
	memcpy(&param, (char *)arg + 4, 4);
	uint64_t v;
	if (pipe != 0x10)
		return -EINVAL;
	switch (param) {
	case 0x01: v = 0; break; /* GPU_ID: no legacy revn on these parts */
	case 0x02: v = vd->chip->gmem; break;
	case 0x03: v = vd->chip->chip_id; break;
	case 0x04: v = 587000000ull; break;
	case 0x05: v = now_ns() * 12u / 625u; break;
	default: return -EINVAL;
	}
	memcpy((char *)arg + 8, &v, 8);
	return 0;
}

static void *stream_thread(void *arg)
{
	struct vadreno *vd = arg;
	struct vstream *st = &vd->stream;
	unsigned char rec[16 + 8 * STREAM_MAX];
	uint64_t next = now_ns();
	for (;;) {
		next += st->period_ns;
		struct timespec ts = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		pthread_mutex_lock(&vd->lock);
		if (st->stop) {
			pthread_mutex_unlock(&vd->lock);
			return NULL;
		}
		vd->frames += vd->cfg.frames_per_read;
		uint64_t t = now_ns() * 12u / 625u; /* 19.2 MHz */
		uint32_t seq = st->lost ? 0 : ++st->seqno, mbz = 0;
		if (st->lost)
			st->seqno = 0;
		memcpy(rec, &t, 8);
		memcpy(rec + 8, &seq, 4);
		memcpy(rec + 12, &mbz, 4);
		for (uint32_t i = 0; i < st->n; i++) {
			uint64_t v = vd->frames * vadreno_rate(vd, st->g[i], st->c[i]);
			memcpy(rec + 16 + 8 * i, &v, 8);
		}
		size_t len = 16 + 8 * (size_t)st->n;
		ssize_t w = write(st->wfd, rec, len);
		st->lost = w != (ssize_t)len; /* buffer full: this record is lost */
		if (!st->lost)
			st->records++;
		pthread_mutex_unlock(&vd->lock);
	}
}

uint64_t vadreno_stream_records(struct vadreno *vd)
{
	pthread_mutex_lock(&vd->lock);
	uint64_t r = vd->stream.records;
	pthread_mutex_unlock(&vd->lock);
	return r;
}

static int do_msm_config(struct vadreno *vd, void *arg)
{
	uint32_t flags, ngroups, shift, stride;
	uint64_t groups, period;
	memcpy(&flags, arg, 4);
	memcpy(&ngroups, (char *)arg + 4, 4);
	memcpy(&groups, (char *)arg + 8, 8);
	memcpy(&period, (char *)arg + 16, 8);
	memcpy(&shift, (char *)arg + 24, 4);
	memcpy(&stride, (char *)arg + 28, 4);
	if (vd->cfg.msm_no_stream)
		return -EINVAL; /* DRM: an ioctl number past the driver's table */
	if (vd->chip->gen < 6)
		return -ENXIO;
	uint32_t ngroups_chip = 0;
	for (uint32_t g = 0; g < NGROUPS; g++)
		ngroups_chip += msm_names[g] && counters_of(vd->chip->table, g) > 0;
	bool stream = flags & 1u;
	if ((flags & ~3u) || stride != 32 || ngroups == 0 || ngroups > ngroups_chip || !groups)
		return -EINVAL;
	if (stream) {
		if (vd->cfg.msm_no_perfmon)
			return -EPERM;
		if (period == 0 || shift > 27)
			return -EINVAL;
	} else if (period || shift) {
		return -EINVAL;
	}
	unsigned char *gp = (unsigned char *)(uintptr_t)groups;
	bool seen[NGROUPS] = {false};
	uint32_t total = 0;
	bool short_any = false;
	for (uint32_t i = 0; i < ngroups; i++) {
		char name[16];
		uint32_t nr, pad;
		uint64_t ptr;
		memcpy(name, gp + 32 * i, 16);
		memcpy(&nr, gp + 32 * i + 16, 4);
		memcpy(&pad, gp + 32 * i + 20, 4);
		memcpy(&ptr, gp + 32 * i + 24, 8);
		int g = msm_group(vd, name);
		if (g < 0 || seen[g] || pad || nr > counters_of(vd->chip->table, (uint32_t)g) ||
		    (stream && (!ptr || nr == 0)) || (!stream && ptr))
			return -EINVAL;
		seen[g] = true;
		total += nr;
		if (nr > msm_free(vd, (uint32_t)g))
			short_any = true;
	}
	if (stream && vd->stream.on)
		return -EBUSY;
	if (short_any) {
		if (flags & 2u)
			for (uint32_t i = 0; i < ngroups; i++) {
				char name[16];
				uint32_t nr, fr;
				memcpy(name, gp + 32 * i, 16);
				memcpy(&nr, gp + 32 * i + 16, 4);
				fr = msm_free(vd, (uint32_t)msm_group(vd, name));
				if (nr > fr)
					memcpy(gp + 32 * i + 16, &fr, 4);
			}
		return -E2BIG;
	}
	if (!stream)
		return 0; /* local reservations are not modelled beyond their checks */
	if (total > STREAM_MAX || (1ull << shift) <= 16 + 8ull * total)
		return -EINVAL; /* "required buffer size" */
	struct vstream *st = &vd->stream;
	st->n = 0;
	for (uint32_t i = 0; i < ngroups; i++) {
		char name[16];
		uint32_t nr;
		uint64_t ptr;
		memcpy(name, gp + 32 * i, 16);
		memcpy(&nr, gp + 32 * i + 16, 4);
		memcpy(&ptr, gp + 32 * i + 24, 8);
		uint32_t g = (uint32_t)msm_group(vd, name);
		for (uint32_t k = 0; k < nr; k++) {
			memcpy(&st->c[st->n], (unsigned char *)(uintptr_t)ptr + 4 * k, 4);
			st->g[st->n++] = g;
		}
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	/* The buffer, where the pipe allows it (an unprivileged pipe stops at
	 * /proc/sys/fs/pipe-max-size); never below one record. */
	(void)fcntl(p[1], F_SETPIPE_SZ, (int)(1u << (shift < 20 ? shift : 20)));
	st->rfd = p[0];
	st->wfd = p[1];
	st->period_ns = period;
	st->seqno = 0;
	st->lost = false;
	st->stop = false;
	st->records = 0;
	if (pthread_create(&st->thread, NULL, stream_thread, vd) != 0) {
		/* Under the lock: past the interposed close, straight to the kernel. */
		syscall(SYS_close, p[0]);
		syscall(SYS_close, p[1]);
		return -ENOMEM;
	}
	st->on = true;
	return p[0];
}

/* Closing the stream's fd: the sampling stops, the counters are free. */
static bool stream_close(struct vadreno *vd, int fd)
{
	pthread_mutex_lock(&vd->lock);
	struct vstream *st = &vd->stream;
	if (!st->on || fd != st->rfd) {
		pthread_mutex_unlock(&vd->lock);
		return false;
	}
	st->stop = true;
	pthread_mutex_unlock(&vd->lock);
	pthread_join(st->thread, NULL);
	pthread_mutex_lock(&vd->lock);
	int wfd = st->wfd;
	st->on = false;
	st->rfd = st->wfd = -1;
	pthread_mutex_unlock(&vd->lock);
	close(wfd); /* unlocked: under LD_PRELOAD this close asks vadreno_owns_fd */
	return true;
}

static int v_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct vadreno *vd = ctx;
	pthread_mutex_lock(&vd->lock);
	struct vfd *f = find_fd(vd, fd);
	int r;
	if (!f) {
		r = -EBADF;
	} else if (vd->faults.vanished) {
		r = -ENODEV;
	} else if (vd->faults.eintr && (vd->eintr_flip++ & 1) == 0) {
		r = -EINTR;
	} else if (vd->cfg.msm) {
		if (!arg)
			r = -EFAULT;
		else if (_IOC_TYPE(req) != 'd')
			r = -ENOTTY;
		else if (_IOC_NR(req) == 0x40 && _IOC_SIZE(req) == 24)
			r = do_msm_param(vd, arg);
		else if (_IOC_NR(req) == 0x4E && _IOC_SIZE(req) == 32)
			r = do_msm_config(vd, arg);
		else
			r = -EINVAL;
	} else if (_IOC_TYPE(req) != 0x09 || !arg) {
		r = arg ? -ENOTTY : -EFAULT;
	} else {
		unsigned size = _IOC_SIZE(req);
		switch (_IOC_NR(req)) {
		case 0x02: r = do_getprop(vd, arg, size); break;
		case 0x38: r = do_get(vd, f, arg); break;
		case 0x39: r = do_put(vd, f, arg); break;
		case 0x3A: r = (size == 24 || size == 32) ? do_query(vd, arg, size) : -EINVAL; break;
		case 0x3B: r = (size == 16 || size == 24) ? do_read(vd, arg, size) : -EINVAL; break;
		default: r = -ENOTTY; break;
		}
	}
	pthread_mutex_unlock(&vd->lock);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

static int sysfs_file(struct vadreno *vd, const char *attr)
{
	char text[256];
	if (vd->faults.no_sysfs)
		return -ENOENT;
	if (strcmp(attr, "perfcounter") == 0)
		snprintf(text, sizeof text, "%d\n", vd->cfg.perfcounter_off ? 0 : 1);
	else if (strcmp(attr, "max_clock_mhz") == 0)
		snprintf(text, sizeof text, "%u\n", 587u);
	else if (strcmp(attr, "gpu_available_frequencies") == 0)
		snprintf(text, sizeof text, "587000000 525000000 490000000 441600000 305000000\n");
	else if (strcmp(attr, "gpu_model") == 0)
		snprintf(text, sizeof text, "%s\n", vd->chip->model);
	else
		return -ENOENT;
	int fd = memfd_create("vadreno-sysfs", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static int v_open(void *ctx, const char *path, int flags, mode_t mode)
{
	struct vadreno *vd = ctx;
	(void)flags;
	(void)mode;
	int r;
	pthread_mutex_lock(&vd->lock);
	if (path && strncmp(path, VADRENO_SYSFS "/", sizeof VADRENO_SYSFS) == 0) {
		r = vd->faults.vanished ? -ENOENT : sysfs_file(vd, path + sizeof VADRENO_SYSFS);
	} else if (!path || strcmp(path, vd->cfg.msm ? VADRENO_MSM_PATH : VADRENO_PATH) != 0 ||
	           vd->faults.vanished) {
		r = -ENOENT;
	} else if (vd->faults.open_eacces) {
		r = -EACCES;
	} else {
		r = -EMFILE;
		for (unsigned i = 0; i < MAX_FDS; i++)
			if (vd->fds[i].fd < 0) {
				int fd = memfd_create("vadreno-kgsl", MFD_CLOEXEC);
				r = fd < 0 ? -errno : fd;
				if (fd >= 0)
					vd->fds[i] = (struct vfd){fd, NULL, 0, 0};
				break;
			}
	}
	pthread_mutex_unlock(&vd->lock);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

static int v_close(void *ctx, int fd)
{
	struct vadreno *vd = ctx;
	if (stream_close(vd, fd))
		return close(fd);
	pthread_mutex_lock(&vd->lock);
	struct vfd *f = find_fd(vd, fd);
	if (f) {
		/* The kernel PUTs what the file still holds. */
		for (size_t i = 0; i < f->n; i++)
			put_slot(vd, f->nodes[i].group, f->nodes[i].countable);
		free(f->nodes);
		*f = (struct vfd){-1, NULL, 0, 0};
	}
	pthread_mutex_unlock(&vd->lock);
	return close(fd);
}

static ssize_t v_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	return read(fd, buf, len);
}

static ssize_t v_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	(void)fd;
	(void)buf;
	(void)len;
	errno = EBADF;
	return -1;
}

static void *v_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, int64_t off)
{
	(void)ctx; (void)addr; (void)len; (void)prot; (void)flags; (void)fd; (void)off;
	errno = ENODEV;
	return MAP_FAILED;
}

static int v_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx;
	return munmap(addr, len);
}

static int v_poll(void *ctx, struct pollfd *fds, nfds_t n, int t)
{
	(void)ctx;
	return poll(fds, n, t);
}

static int v_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                             int group_fd, unsigned long flags)
{
	(void)ctx; (void)attr; (void)pid; (void)cpu; (void)group_fd; (void)flags;
	errno = ENOENT;
	return -1;
}

const struct og_sys *vadreno_sys(struct vadreno *vd)
{
	vd->sys = (struct og_sys){
		.ctx = vd, .open = v_open, .close = v_close, .ioctl = v_ioctl, .mmap = v_mmap,
		.munmap = v_munmap, .poll = v_poll, .read = v_read, .write = v_write,
		.perf_event_open = v_perf_event_open,
	};
	return &vd->sys;
}
