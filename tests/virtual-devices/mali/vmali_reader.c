/* SPDX-License-Identifier: MIT */
/*
 * vmali_reader.c — the hwcnt reader fd (vinstr, reference §2): a ring of
 * buffer_count dump images in a memfd the client maps, handed out one at a
 * time by GET_BUFFER / PUT_BUFFER, filled by DUMP or by the periodic timer.
 *
 * Driver generations: with UK >= 11.27 (or any CSF UK) the reader behaves like
 * the virtualizer-based vinstr (dispatch on _IOC_NR, size-tolerant
 * GET/PUT_BUFFER, WITH_CYCLES and WITH_FEATURES, events are no-ops); before
 * that like the old vinstr (whole command words, 16-byte metadata only).
 * Dumps are the v5 layout: on GPUs with 128-value blocks the first 64 of
 * each, saturated at 32 bits, as the narrowing vinstr hands them out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vmali_internal.h"

bool vmali_features_supported(const struct vmali *vm)
{
	const struct vmali_config *c = &vm->cfg;
	return c->csf || c->uk_major > 11 || (c->uk_major == 11 && c->uk_minor >= 27);
}

void vmali_reader_free(struct vmali_reader *r)
{
	if (!r)
		return;
	if (r->ring)
		vmali_os_munmap(r->ring, r->ring_len);
	free(r->meta);
	free(r->acc.v);
	free(r);
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int vmali_reader_setup(struct vmali *vm, const struct vmali_kbase_hwcnt_reader_setup *s)
{
	if (!is_pow2(s->buffer_count) || s->buffer_count > VMALI_READER_MAX_BUFFERS) {
		errno = EINVAL;
		return -1;
	}
	if (vm->faults.setup_ebusy) {
		errno = EBUSY; /* another client holds the counters */
		return -1;
	}
	/* The old vinstr took all buffers as one physically contiguous block. */
	if (vm->faults.enomem_above_buffers && s->buffer_count > vm->faults.enomem_above_buffers) {
		errno = ENOMEM;
		return -1;
	}
	uint32_t size = vmali_dump_size(vm);
	size_t ring_len = (size_t)size * s->buffer_count;
	struct vmali_reader *r = calloc(1, sizeof(*r));
	if (r) {
		r->meta = calloc(s->buffer_count, sizeof(*r->meta));
		if (vmali_acc_init(vm, &r->acc))
			r->acc.v = NULL;
	}
	if (!r || !r->meta || !r->acc.v) {
		vmali_reader_free(r);
		errno = ENOMEM;
		return -1;
	}
	r->buffer_count = s->buffer_count;
	r->buffer_size = size;
	r->ring_len = ring_len;
	r->bm[0] = s->fe_bm;
	r->bm[1] = s->shader_bm;
	r->bm[2] = s->tiler_bm;
	r->bm[3] = s->mmu_l2_bm;
	int fd = vmali_fd_new(vm, VMALI_FD_READER, ring_len);
	if (fd < 0) {
		vmali_reader_free(r);
		return -1;
	}
	void *ring = vmali_os_mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct vmali_fd *f = vmali_fd_lookup(vm, fd);
	if (ring == MAP_FAILED) {
		int e = errno;
		vmali_fd_release(vm, f); /* its reader is still NULL */
		vmali_reader_free(r);
		errno = e;
		return -1;
	}
	r->ring = ring;
	f->u.reader = r;
	return fd;
}

bool vmali_reader_ready(const struct vmali_reader *r)
{
	return r->write_idx != r->meta_idx;
}

static bool ring_full(const struct vmali_reader *r)
{
	return r->write_idx - r->read_idx >= r->buffer_count;
}

/* One sample: the frames of this dump run first, then the client's counts
 * since its previous sample land in the next free buffer. */
static void take_sample(struct vmali *vm, struct vmali_reader *r, uint64_t ts, uint32_t event)
{
	uint32_t slot = (uint32_t)(r->write_idx % r->buffer_count);
	vmali_advance_for_dump(vm);
	vmali_write_dump(vm, r->acc.v, r->bm,
	                 (uint32_t *)(void *)(r->ring + (size_t)slot * r->buffer_size));
	r->meta[slot] = (struct vmali_reader_metadata){
		.timestamp = ts,
		.event_id = event,
		.buffer_idx = slot,
		.cycles_top = vm->geom.clock_domains >= 1 ? r->acc.cycles[0] : 0,
		.cycles_shader_cores = vm->geom.clock_domains >= 2 ? r->acc.cycles[1] : 0,
	};
	vmali_acc_clear(vm, &r->acc);
	r->write_idx++;
	vm->stats.dumps++;
}

uint64_t vmali_reader_catch_up(struct vmali *vm, struct vmali_reader *r, uint64_t limit)
{
	while (r->interval_ns && r->next_due_ns <= limit) {
		if (vm->faults.dumps_never_arrive || ring_full(r)) {
			/* The kernel skips a periodic dump it has no buffer for;
			 * the counts stay in the client's accumulator. */
			uint64_t periods = (limit - r->next_due_ns) / r->interval_ns + 1;
			if (!vm->faults.dumps_never_arrive)
				vm->stats.periodic_dropped += periods;
			r->next_due_ns += periods * r->interval_ns;
			continue;
		}
		take_sample(vm, r, r->next_due_ns, VMALI_READER_EVENT_PERIODIC);
		r->next_due_ns += r->interval_ns;
	}
	return r->interval_ns ? r->next_due_ns : 0;
}

static int put_u32(void *arg, uint32_t v)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	memcpy(arg, &v, sizeof(v));
	return 0;
}

static int get_buffer(struct vmali_reader *r, void *arg, size_t size)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	if (r->meta_idx != r->read_idx) {
		errno = EBUSY; /* one buffer at a time */
		return -1;
	}
	if (r->meta_idx == r->write_idx) {
		errno = EAGAIN;
		return -1;
	}
	const struct vmali_reader_metadata *m = &r->meta[r->meta_idx % r->buffer_count];
	size_t n = size < sizeof(*m) ? size : sizeof(*m);
	memcpy(arg, m, n);
	if (size > n)
		memset((char *)arg + n, 0, size - n);
	r->meta_idx++;
	return 0;
}

static int put_buffer(struct vmali_reader *r, const void *arg, size_t size)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	for (size_t i = sizeof(struct vmali_reader_metadata); i < size; i++) {
		if (((const char *)arg)[i]) {
			errno = EINVAL;
			return -1;
		}
	}
	struct vmali_reader_metadata m;
	memcpy(&m, arg, VMALI_READER_META_LEGACY_SIZE);
	if (r->meta_idx == r->read_idx) {
		errno = EPERM; /* nothing was taken */
		return -1;
	}
	if (m.buffer_idx != r->read_idx % r->buffer_count) {
		errno = EINVAL;
		return -1;
	}
	r->read_idx++;
	return 0;
}

static int set_interval(struct vmali_reader *r, uint32_t ns)
{
	if (ns && ns < VMALI_READER_INTERVAL_MIN_NS)
		ns = VMALI_READER_INTERVAL_MIN_NS;
	r->interval_ns = ns;
	if (ns) {
		/* Due times are multiples of the period since t = 0, so clients
		 * with equal periods sample together, as the new vinstr does. */
		uint64_t now = vmali_now_ns();
		r->next_due_ns = (now / ns + 1) * ns;
	}
	return 0;
}

static int api_version(const struct vmali *vm, void *arg, size_t size)
{
	if (size == sizeof(uint32_t))
		return put_u32(arg, VMALI_READER_API_VERSION);
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	/* Cycle counts per clock domain: the GPU's, then the shader cores'. */
	uint32_t features = 0;
	if (vm->geom.clock_domains >= 1)
		features |= VMALI_READER_FEATURE_CYCLES_TOP;
	if (vm->geom.clock_domains >= 2)
		features |= VMALI_READER_FEATURE_CYCLES_SHADER_CORES;
	struct vmali_reader_api_version v = { VMALI_READER_API_VERSION, features };
	memcpy(arg, &v, sizeof(v));
	return 0;
}

static int dump(struct vmali *vm, struct vmali_reader *r)
{
	if (vm->faults.dumps_never_arrive)
		return 0;
	if (ring_full(r)) {
		errno = EBUSY;
		return -1;
	}
	take_sample(vm, r, vmali_now_ns(), VMALI_READER_EVENT_MANUAL);
	return 0;
}

static int event_mask(const struct vmali *vm, uint32_t event)
{
	if (vmali_features_supported(vm))
		return 0; /* "events aren't supported": accepted and ignored */
	if (event == 2 || event == 3)
		return 0; /* PREJOB / POSTJOB were the only maskable ones */
	errno = EINVAL;
	return -1;
}

/* The old vinstr: exact command words, 16-byte metadata. */
static int legacy_ioctl(struct vmali *vm, struct vmali_reader *r, unsigned long req, void *arg)
{
	switch (req) {
	case VMALI_READER_GET_HWVER:
		return put_u32(arg, VMALI_READER_HWVER);
	case VMALI_READER_GET_BUFFER_SIZE:
		return put_u32(arg, (uint32_t)((int64_t)r->buffer_size + vm->faults.buffer_size_skew));
	case VMALI_READER_DUMP:
		return dump(vm, r);
	case VMALI_READER_CLEAR:
		vmali_acc_clear(vm, &r->acc);
		return 0;
	case VMALI_READER_GET_BUFFER:
		return get_buffer(r, arg, VMALI_READER_META_LEGACY_SIZE);
	case VMALI_READER_PUT_BUFFER:
		return put_buffer(r, arg, VMALI_READER_META_LEGACY_SIZE);
	case VMALI_READER_SET_INTERVAL:
		return set_interval(r, (uint32_t)(uintptr_t)arg);
	case VMALI_READER_ENABLE_EVENT:
	case VMALI_READER_DISABLE_EVENT:
		return event_mask(vm, (uint32_t)(uintptr_t)arg);
	case VMALI_READER_GET_API_VERSION:
		return put_u32(arg, VMALI_READER_API_VERSION);
	default:
		errno = EINVAL;
		return -1;
	}
}

int vmali_reader_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg)
{
	struct vmali_reader *r = f->u.reader;
	if (_IOC_TYPE(req) != VMALI_READER_MAGIC) {
		errno = EINVAL;
		return -1;
	}
	if (!vmali_features_supported(vm))
		return legacy_ioctl(vm, r, req, arg);
	size_t size = _IOC_SIZE(req);
	unsigned dir = _IOC_DIR(req);
	switch (_IOC_NR(req)) {
	case VMALI_READER_NR_GET_BUFFER:
		if (dir != _IOC_READ || size < VMALI_READER_META_LEGACY_SIZE)
			break;
		return get_buffer(r, arg, size);
	case VMALI_READER_NR_PUT_BUFFER:
		if (dir != _IOC_WRITE || size < VMALI_READER_META_LEGACY_SIZE)
			break;
		return put_buffer(r, arg, size);
	case VMALI_READER_NR_GET_API_VERSION:
		if (req != VMALI_READER_GET_API_VERSION &&
		    req != VMALI_READER_GET_API_VERSION_WITH_FEATURES)
			break;
		return api_version(vm, arg, size);
	default:
		return legacy_ioctl(vm, r, req, arg);
	}
	errno = EINVAL;
	return -1;
}
