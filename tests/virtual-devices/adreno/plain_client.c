/* SPDX-License-Identifier: MIT */
/*
 * plain_client.c — a KGSL perf-counter client written from the reference
 * sheet (adreno-kgsl.md §1.2–§1.5) with the C types the UAPI uses (pointers,
 * unsigned long, size_t), not from opengpa's restatement: it runs under
 * LD_PRELOAD of the virtual Adreno and must see a working KGSL device.
 * usage: vadreno-plain-client CHIP_ID
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct devinfo {
	unsigned int device_id, chip_id, mmu_enabled;
	unsigned long gmem_gpubaseaddr;
	unsigned int gpu_id;
	size_t gmem_sizebytes;
};
struct getprop {
	unsigned int type;
	void *value;
	size_t sizebytes;
};
struct pc_get {
	unsigned int groupid, countable, offset, offset_hi, pad;
};
struct pc_put {
	unsigned int groupid, countable, pad[2];
};
struct pc_query {
	unsigned int groupid;
	unsigned int *countables;
	unsigned int count, max_counters, pad[2];
};
struct pc_read_group {
	unsigned int groupid, countable;
	unsigned long long value;
};
struct pc_read {
	struct pc_read_group *reads;
	unsigned int count, pad[2];
};

#define GETPROP _IOWR(0x09, 0x02, struct getprop)
#define PC_GET _IOWR(0x09, 0x38, struct pc_get)
#define PC_PUT _IOW(0x09, 0x39, struct pc_put)
#define PC_QUERY _IOWR(0x09, 0x3A, struct pc_query)
#define PC_READ _IOWR(0x09, 0x3B, struct pc_read)

static int fail(const char *what)
{
	fprintf(stderr, "plain-client: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned want = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 0;
	int fd = open("/dev/kgsl-3d0", O_RDWR);
	if (fd < 0)
		return fail("open /dev/kgsl-3d0");
	struct devinfo info;
	memset(&info, 0, sizeof info);
	struct getprop gp = {1, &info, sizeof info};
	if (ioctl(fd, GETPROP, &gp) < 0)
		return fail("DEVICE_INFO");
	if (info.chip_id != want || info.gmem_sizebytes == 0) {
		fprintf(stderr, "plain-client: chip id 0x%08x, GMEM %zu; expected 0x%08x\n",
		        info.chip_id, info.gmem_sizebytes, want);
		return 1;
	}
	unsigned held[64];
	struct pc_query q = {0x0A, NULL, 0, 0, {0, 0}};
	if (ioctl(fd, PC_QUERY, &q) < 0 || q.max_counters == 0 || q.max_counters > 64)
		return fail("QUERY SP");
	q.countables = held;
	q.count = q.max_counters;
	if (ioctl(fd, PC_QUERY, &q) < 0)
		return fail("QUERY SP countables");
	struct pc_get gets[2] = {{0x00, 0, 0, 0, 0}, {0x0A, 0, 0, 0, 0}};
	for (int i = 0; i < 2; i++)
		if (ioctl(fd, PC_GET, &gets[i]) < 0 || gets[i].offset_hi != gets[i].offset + 1)
			return fail("GET");
	struct pc_read_group rg[3] = {{0x00, 0, 0}, {0x0A, 0, 0}, {0x0B, 3, 0}};
	struct pc_read rd = {rg, 3, {0, 0}};
	if (ioctl(fd, PC_READ, &rd) < 0)
		return fail("READ");
	unsigned long long a0 = rg[0].value, a1 = rg[1].value;
	if (ioctl(fd, PC_READ, &rd) < 0)
		return fail("READ again");
	if (rg[0].value <= a0 || rg[1].value <= a1 || rg[2].value != 0) {
		fprintf(stderr, "plain-client: counters did not advance (%llu→%llu, %llu→%llu) or an "
		                "unheld countable read %llu\n", a0, rg[0].value, a1, rg[1].value,
		        rg[2].value);
		return 1;
	}
	rd.count = 101;
	if (ioctl(fd, PC_READ, &rd) == 0 || errno != EINVAL)
		return fail("READ of 101 entries should be EINVAL");
	struct pc_put put = {0x0A, 0, {0, 0}};
	if (ioctl(fd, PC_PUT, &put) < 0)
		return fail("PUT");
	if (ioctl(fd, PC_PUT, &put) == 0 || errno != ENODEV)
		return fail("second PUT should be ENODEV");
	close(fd);
	printf("plain-client: chip 0x%08x, %u SP counters, CP cycles %llu over one read\n",
	       info.chip_id, q.max_counters, rg[0].value - a0);
	return 0;
}
