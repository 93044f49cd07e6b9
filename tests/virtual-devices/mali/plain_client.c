/* SPDX-License-Identifier: MIT */
/*
 * plain_client.c — a third-party client of /dev/mali0 that knows nothing of
 * opengpa or vmali: its own struct definitions (from the public UAPI, as the
 * reference restates it) and plain libc calls.  Under
 * LD_PRELOAD=libopengpa-vmali.so it must find a Mali GPU with the core mask
 * and L2 slice count given on the command line, on a job-manager or a CSF
 * driver that still has the hwcnt reader, and read a dump; on a Mali-G71 it
 * also checks two of its counters (GPU_ACTIVE >= JS0_ACTIVE).
 *   vmali-plain-client CORE_MASK L2_SLICES   -> exit 0 on success
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct version_check { uint16_t major, minor; };
struct set_flags { uint32_t create_flags; };
struct get_gpuprops { uint64_t buffer; uint32_t size, flags; };
struct reader_setup { uint32_t buffer_count, fe_bm, shader_bm, tiler_bm, mmu_l2_bm; };
struct reader_meta { uint64_t timestamp; uint32_t event_id, buffer_idx; uint64_t top, sc; };

#define K_VERSION_CHECK _IOWR(0x80, 0, struct version_check)
#define K_VERSION_CHECK_CSF _IOWR(0x80, 52, struct version_check)
#define K_SET_FLAGS _IOW(0x80, 1, struct set_flags)
#define K_GET_GPUPROPS _IOW(0x80, 3, struct get_gpuprops)
#define K_READER_SETUP _IOW(0x80, 8, struct reader_setup)
#define R_GET_BUFFER_SIZE _IOR(0xBE, 0x01, uint32_t)
#define R_DUMP _IOW(0xBE, 0x10, uint32_t)
#define R_GET_BUFFER _IOR(0xBE, 0x20, struct reader_meta)
#define R_PUT_BUFFER _IOW(0xBE, 0x21, struct reader_meta)

static int fail(const char *what)
{
	fprintf(stderr, "plain-client: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	uint64_t mask = strtoull(argv[1], NULL, 0);
	uint32_t slices = (uint32_t)strtoul(argv[2], NULL, 0);
	int fd = open("/dev/mali0", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("open /dev/mali0");
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
		return fail("not a character device");
	struct version_check v = { 0, 0 };
	struct set_flags f = { 0x2 };
	/* JM drivers answer number 0, CSF drivers number 52. */
	if ((ioctl(fd, K_VERSION_CHECK, &v) != 0 || (!v.major && !v.minor)) &&
	    ioctl(fd, K_VERSION_CHECK_CSF, &v) != 0)
		return fail("handshake");
	if (ioctl(fd, K_SET_FLAGS, &f) != 0)
		return fail("handshake");
	struct get_gpuprops q = { 0, 0, 0 };
	int need = ioctl(fd, K_GET_GPUPROPS, &q);
	if (need <= 0 || need > 65536)
		return fail("GET_GPUPROPS size");
	uint8_t *buf = malloc((size_t)need);
	q.buffer = (uintptr_t)buf;
	q.size = (uint32_t)need;
	int got = ioctl(fd, K_GET_GPUPROPS, &q);
	if (!buf || got < 0 || got > need)
		return fail("GET_GPUPROPS");
	uint64_t got_mask = 0, got_slices = 0, gpu_id = 0;
	for (int pos = 0; pos + 4 <= got;) {
		/* The blob is little-endian whatever the CPU. */
		uint32_t key = 0;
		for (int i = 0; i < 4; i++)
			key |= (uint32_t)buf[pos + i] << (8 * i);
		int n = 1 << (key & 3);
		pos += 4;
		if (pos + n > got)
			break;
		uint64_t val = 0;
		for (int i = 0; i < n; i++)
			val |= (uint64_t)buf[pos + i] << (8 * i);
		pos += n;
		if (key >> 2 == 64)
			got_mask = val;
		else if (key >> 2 == 55)
			gpu_id = val;
		else if (key >> 2 == 15)
			got_slices = val;
	}
	free(buf);
	if (got_mask != mask || got_slices != slices) {
		fprintf(stderr, "plain-client: mask %llx slices %llu\n",
		        (unsigned long long)got_mask, (unsigned long long)got_slices);
		return 1;
	}
	struct reader_setup s = { 4, ~0u, ~0u, ~0u, ~0u };
	int rfd = ioctl(fd, K_READER_SETUP, &s);
	uint32_t size = 0;
	if (rfd < 0 || ioctl(rfd, R_GET_BUFFER_SIZE, &size) != 0)
		return fail("reader");
	const uint8_t *ring = mmap(NULL, (size_t)size * 4, PROT_READ, MAP_PRIVATE, rfd, 0);
	if (ring == MAP_FAILED || ioctl(rfd, R_DUMP, 0) != 0)
		return fail("mmap/DUMP");
	struct pollfd p = { rfd, POLLIN, 0 };
	struct reader_meta m;
	if (poll(&p, 1, 1000) != 1 || ioctl(rfd, R_GET_BUFFER, &m) != 0)
		return fail("sample");
	const uint32_t *d = (const uint32_t *)(const void *)(ring + (size_t)m.buffer_idx * size);
	/* The front-end block: its enable word, and something counted. */
	uint32_t fe = 0;
	for (int i = 4; i < 64; i++)
		fe |= d[i];
	int ok = d[2] == ~0u && fe != 0;
	uint32_t gpu_active = d[6];
	if ((gpu_id >> 16 & 0xF00F) == 0x6000)
		ok = ok && d[6] > 0 && d[10] <= d[6] && m.top >= d[6];
	if (ioctl(rfd, R_PUT_BUFFER, &m) != 0)
		return fail("PUT_BUFFER");
	munmap((void *)(uintptr_t)ring, (size_t)size * 4);
	if (close(rfd) != 0 || close(fd) != 0)
		return fail("close");
	printf("plain-client: %s GPU_ACTIVE=%u\n", ok ? "ok" : "bad counts", gpu_active);
	return ok ? 0 : 1;
}
