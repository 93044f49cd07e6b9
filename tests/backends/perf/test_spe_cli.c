/* SPDX-License-Identifier: MIT */
/*
 * test_spe_cli.c — `opengpa spe`'s run and report (tools/opengpa/spe/spe_run.c,
 * spe_report.c, symbols.c) over the simulated arm_spe PMU (fake_spe.c): a
 * real command is started and held, the event opened on it, samples and a
 * PERF_RECORD_MMAP written as the kernel would, and the report checked —
 * counts, latency percentiles, sources, and hot PCs named through this
 * test's own ELF symbol table.  Then each reason the run cannot happen, and
 * the ELF reader on damaged files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fake_perf.h"
#include "fake_spe.h"
#include "spe_bytes.h"
#include "spe_report.h"
#include "symbols.h"

static struct fake_perf K;
static struct fake_spe P;
static struct fake_log L;
static struct og_backend_host H;

static int setup(void **unused)
{
	(void)unused;
	fake_spe_host(&P, &K, &H, &L, "0x410fd493\n");
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	assert_int_equal(P.opens, P.closes);
	assert_int_equal(P.maps, P.unmaps);
	fake_spe_free(&P);
	fake_perf_free(&K);
	return 0;
}

/* The function the samples are "in". */
int spe_test_hot(volatile int *p);
__attribute__((noinline)) int spe_test_hot(volatile int *p)
{
	int s = 0;
	for (int i = 0; i < 64; i++)
		s += p[i & 7] * i;
	return s;
}

/* This executable's mapping holding addr, from /proc/self/maps. */
static void self_mapping(uint64_t addr, uint64_t *start, uint64_t *len, uint64_t *pgoff,
                         char *path, size_t pathlen)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		uint64_t a, b, off;
		int at = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &a, &b, &off,
		           &at) < 3 || addr < a || addr >= b)
			continue;
		*start = a;
		*len = b - a;
		*pgoff = off;
		snprintf(path, pathlen, "%s", line + at);
		path[strcspn(path, "\n")] = '\0';
		found = true;
	}
	fclose(f);
	assert_true(found);
	assert_int_equal(path[0], '/');
}

struct mmap_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	char filename[4096];
};

static uint64_t hot_pc, exe_start, exe_len, exe_pgoff;
static char exe_path[4096];
static const uint64_t kernel_pc = (1ull << 63) | (1ull << 61) | 0x00ff800010002000ull;

/* What the hardware and the kernel would write once the command runs. */
static void opened(void *arg, pid_t pid)
{
	(void)arg;
	struct fake_spe_event *e = fake_spe_event(&P, pid);
	assert_non_null(e);
	assert_true(e->attr.enable_on_exec);
	assert_true(e->attr.mmap);
	assert_int_equal(e->attr.sample_period, 1024);
	static struct mmap_body m;
	memset(&m, 0, sizeof m);
	m.pid = m.tid = (uint32_t)pid;
	m.addr = exe_start;
	m.len = exe_len;
	m.pgoff = exe_pgoff;
	snprintf(m.filename, sizeof m.filename, "%s", exe_path);
	size_t body = offsetof(struct mmap_body, filename) + ((strlen(exe_path) + 8) & ~7ul);
	assert_true(fake_spe_ring_record(e, PERF_RECORD_MMAP, &m, body));

	static struct spe_bytes b;
	b.n = 0;
	/* Four loads at hot+4: L1, L2, LLC, DRAM (Neoverse N2 encoding). */
	spe_load(&b, hot_pc + 4, 10, 1u << 2, 0x0);
	spe_load(&b, hot_pc + 4, 20, 1u << 2 | 1u << 3, 0x8);
	spe_load(&b, hot_pc + 4, 30, 1u << 2 | 1u << 3 | 1u << 8, 0xa);
	spe_load(&b, hot_pc + 4, 400, 1u << 2 | 1u << 3 | 1u << 8 | 1u << 9, 0xe);
	/* Branches: one predicted, one mispredicted here, one mispredicted
	 * outside every mapping. */
	spe_branch(&b, hot_pc + 8, 0);
	spe_branch(&b, hot_pc + 8, 1);
	spe_branch(&b, 0x1000, 1);
	/* A store in the kernel with a table walk, and an other op. */
	spe_pc(&b, kernel_pc);
	spe_op(&b, 1, 0x01);
	spe_events(&b, 1u << 5, 0);
	spe_end(&b);
	spe_pc(&b, hot_pc);
	spe_op(&b, 0, 0);
	spe_end(&b);
	fake_spe_write(e, b.b, b.n);
	fake_spe_publish(e, 0);
}

static char report[16384];

static int run(const char *const *argv, struct spe_hooks *hooks, unsigned pages)
{
	static char *args[8];
	size_t i = 0;
	for (; argv[i] && i < 7; i++)
		args[i] = (char *)argv[i];
	args[i] = NULL;
	struct spe_options o = { .count = 1024, .top = 5, .pages = pages, .command = args };
	memset(report, 0, sizeof report);
	FILE *out = fmemopen(report, sizeof report - 1, "w");
	assert_non_null(out);
	int rc = spe_run(&H, &o, out, hooks);
	fclose(out);
	return rc;
}

static void expect(const char *needle)
{
	if (!strstr(report, needle))
		fail_msg("the report lacks \"%s\":\n%s", needle, report);
}

static void test_report(void **unused)
{
	(void)unused;
	hot_pc = (uint64_t)(uintptr_t)&spe_test_hot;
	self_mapping(hot_pc, &exe_start, &exe_len, &exe_pgoff, exe_path, sizeof exe_path);
	struct spe_hooks hooks = { opened, NULL };
	const char *const cmd[] = { "sh", "-c", "exit 3", NULL };
	assert_int_equal(run(cmd, &hooks, 4), 3);
	expect("SPE samples of 'sh' (one operation in every 1024)");
	expect("             9  samples\n");
	expect("             4  loads          44.44 %\n");
	expect("             1  stores         11.11 %\n");
	expect("             3  branches       33.33 %\n");
	expect("             1  other          11.11 %\n");
	expect("Load latency, cycles: mean 115.0, median 20, 90th 400, 99th 400 (4 loads)");
	expect("Loads served by: L1 25.00 %, L2 25.00 %, LLC 25.00 %, DRAM 25.00 %, remote 0.00 %");
	expect("Branches mispredicted: 66.67 % (2 of 3)");
	expect("Memory operations with a TLB walk: 20.00 % (1 of 5)");
	/* The ELF reader reads ELF64 only (SPE exists on 64-bit Arm alone): a
	 * 32-bit build of the test names the file and offset instead. */
	const bool named = sizeof(void *) == 8;
	char line[8192];
	if (named)
		snprintf(line, sizeof line,
		         "  100.00 %%         460  0x%016" PRIx64 "  spe_test_hot+0x4 (%s)", hot_pc + 4,
		         exe_path);
	else
		snprintf(line, sizeof line, "  100.00 %%         460  0x%016" PRIx64 "  (%s+0x%" PRIx64 ")",
		         hot_pc + 4, exe_path, hot_pc + 4 - exe_start + exe_pgoff);
	expect("Hottest PCs by load latency (cycles sampled):\n");
	expect(line);
	expect("Hottest PCs by loads from DRAM or another chip (loads sampled):\n");
	expect("Hottest PCs by branch mispredicts (branches sampled):\n");
	if (named)
		snprintf(line, sizeof line, "spe_test_hot+0x8 (%s)", exe_path);
	else
		snprintf(line, sizeof line, "(%s+0x%" PRIx64 ")", exe_path,
		         hot_pc + 8 - exe_start + exe_pgoff);
	expect(line);
	expect("   50.00 %           1  0x0000000000001000  [unknown] 0x1000\n");
	expect("Hottest PCs by TLB walks (accesses sampled):\n");
	expect("  100.00 %           1  0xffff800010002000  [kernel]\n");
	assert_null(strstr(report, "Lost:"));
	assert_int_equal(L.errors, 0);
}

/* What the kernel lost is said, with the knobs that lose less. */
static void lossy(void *arg, pid_t pid)
{
	(void)arg;
	struct fake_spe_event *e = fake_spe_event(&P, pid);
	uint64_t lost[2] = { 1, 7 };
	assert_true(fake_spe_ring_record(e, PERF_RECORD_LOST, lost, sizeof lost));
	static struct spe_bytes b;
	b.n = 0;
	spe_branch(&b, 0x2000, 1);
	spe_put(&b, 0xb7, 1); /* half a packet: the buffer ends inside it */
	fake_spe_write(e, b.b, b.n);
	fake_spe_publish(e, PERF_AUX_FLAG_TRUNCATED);
}

static void test_losses(void **unused)
{
	(void)unused;
	struct spe_hooks hooks = { lossy, NULL };
	const char *const cmd[] = { "true", NULL };
	assert_int_equal(run(cmd, &hooks, 4), 0);
	expect("             1  samples\n");
	expect("Lost: 7 kernel records (PERF_RECORD_LOST), 1 buffers that filled (truncated), 0 "
	       "collisions, 1 damaged or cut-off records");
	expect("--pages or -c larger lose fewer");
	expect("[unknown] 0x2000");
}

static void test_no_samples(void **unused)
{
	(void)unused;
	const char *const cmd[] = { "true", NULL };
	assert_int_equal(run(cmd, NULL, 4), 0);
	expect("             0  samples\n");
	expect("No samples: the command ran fewer operations than the interval");
	assert_null(strstr(report, "Hottest"));
}

/* ---- what stops a run: one line each, the command never runs unsampled -- */

static void test_no_pmu(void **unused)
{
	(void)unused;
	P.present = false;
	static const char *const files[] = { "type", "caps/min_interval", "caps/count_size",
	                                     "cpumask", "format/jitter" };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		static char path[5][128];
		snprintf(path[i], sizeof path[i], "/sys/bus/event_source/devices/arm_spe_0/%s",
		         files[i]);
		fake_perf_set_file(&K, path[i], NULL);
	}
	const char *const cmd[] = { "true", NULL };
	assert_int_equal(run(cmd, NULL, 4), 1);
	assert_int_equal(L.errors, 1);
	assert_non_null(strstr(L.last, "no SPE PMU"));
	assert_non_null(strstr(L.last, "CONFIG_ARM_SPE_PMU"));
	assert_string_equal(report, "");
	assert_int_equal(P.opens, 0);
}

static void test_not_permitted(void **unused)
{
	(void)unused;
	P.open_errno = EACCES;
	const char *const cmd[] = { "sh", "-c", "echo ran > /dev/null; exit 5", NULL };
	assert_int_equal(run(cmd, NULL, 4), 1);
	assert_non_null(strstr(L.last, "kernel.perf_event_paranoid is 2"));
	assert_non_null(strstr(L.last, "pa_enable"));
	assert_string_equal(report, "");
}

static void test_over_mlock(void **unused)
{
	(void)unused;
	fake_perf_set_file(&K, "/proc/sys/kernel/perf_event_mlock_kb", "516\n");
	P.aux_errno = EPERM;
	const char *const cmd[] = { "true", NULL };
	assert_int_equal(run(cmd, NULL, 1024), 1);
	assert_non_null(strstr(L.last, "perf_event_mlock_kb (now 516 KiB)"));
	assert_non_null(strstr(L.last, "(--pages)"));
}

static void test_exec_fails(void **unused)
{
	(void)unused;
	const char *const cmd[] = { "/nonexistent/opengpa-test", NULL };
	assert_int_equal(run(cmd, NULL, 4), 127);
	assert_non_null(strstr(L.last, "cannot run /nonexistent/opengpa-test"));
	assert_string_equal(report, "");
}

/* ---- the ELF reader ------------------------------------------------------ */

static void test_symbols_self(void **unused)
{
	(void)unused;
	if (sizeof(void *) != 8)
		skip(); /* the reader reads ELF64 only: SPE exists on 64-bit Arm alone */
	uint64_t pc = (uint64_t)(uintptr_t)&spe_test_hot, start, len, pgoff;
	char path[4096];
	self_mapping(pc, &start, &len, &pgoff, path, sizeof path);
	struct sym_file *f = sym_file_load(path);
	assert_non_null(f);
	const char *name = NULL;
	uint64_t into = 99;
	assert_int_equal(sym_file_lookup(f, pc + 2 - start + pgoff, &name, &into), 0);
	assert_string_equal(name, "spe_test_hot");
	assert_int_equal(into, 2);
	assert_int_equal(sym_file_lookup(f, UINT64_MAX - 1, &name, &into), -1);
	sym_file_free(f);

	/* Through the mappings, twice mapped: read once, named alike. */
	struct sym_maps m = { 0 };
	sym_maps_add(&m, 1, start, len, pgoff, path);
	sym_maps_add(&m, 1, start + 0x100000000ull, len, pgoff, path);
	sym_maps_add(&m, 1, 0x7000, 0x1000, 0, "[vdso]");
	char buf[8192], want[8192];
	snprintf(want, sizeof want, "spe_test_hot+0x2 (%s)", path);
	assert_string_equal(sym_maps_name(&m, pc + 2, buf, sizeof buf), want);
	assert_string_equal(sym_maps_name(&m, pc + 2 + 0x100000000ull, buf, sizeof buf), want);
	assert_true(m.v[0].owns != m.v[1].owns || !m.v[0].syms);
	assert_string_equal(sym_maps_name(&m, 0x7010, buf, sizeof buf), "([vdso]+0x10)");
	assert_string_equal(sym_maps_name(&m, 0x10, buf, sizeof buf), "[unknown] 0x10");
	sym_maps_free(&m);
}

/* Copies this executable with `patch` bytes written at `at` and cut at
 * `size` (0: whole). */
static void damaged_copy(const char *to, size_t at, const void *patch, size_t n, size_t size)
{
	FILE *in = fopen("/proc/self/exe", "rb");
	assert_non_null(in);
	static char data[64 << 20];
	size_t got = fread(data, 1, sizeof data, in);
	fclose(in);
	assert_true(got > 4096);
	if (patch)
		memcpy(data + at, patch, n);
	FILE *out = fopen(to, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(data, 1, size ? size : got, out), size ? size : got);
	fclose(out);
}

static void test_symbols_damaged(void **unused)
{
	(void)unused;
	char path[64];
	snprintf(path, sizeof path, "/tmp/opengpa-spe-elf-%d", (int)getpid());
	/* Not ELF; cut after the header; section headers past the end; a
	 * section count pointing beyond; a string table index out of range. */
	damaged_copy(path, 0, "#!/bin/sh", 9, 0);
	assert_null(sym_file_load(path));
	damaged_copy(path, 0, NULL, 0, 64);
	assert_null(sym_file_load(path));
	uint64_t far = UINT64_MAX - 8;
	damaged_copy(path, offsetof(Elf64_Ehdr, e_shoff), &far, sizeof far, 0);
	assert_null(sym_file_load(path));
	uint16_t many = 0xfff0;
	damaged_copy(path, offsetof(Elf64_Ehdr, e_shnum), &many, sizeof many, 0);
	assert_null(sym_file_load(path));
	uint16_t phsize = 7;
	damaged_copy(path, offsetof(Elf64_Ehdr, e_phentsize), &phsize, sizeof phsize, 0);
	assert_null(sym_file_load(path)); /* no program headers: offsets mean nothing */
	assert_null(sym_file_load("/nonexistent"));
	assert_null(sym_file_load("/tmp"));
	unlink(path);
}

/* A small ELF file whose .symtab has no function (two empty entries) and
 * whose .dynsym has two: the reader must fall back to .dynsym (and, before
 * the fix, leaked the .symtab it read first: valgrind or ASan on this test
 * or on tests/fuzz/corpus/elf-symbols/symtab-nofunc-dynsym shows it). */
static void write_dynsym_elf(const char *path)
{
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
		Elf64_Shdr sh[5];
		Elf64_Sym empty[2], dyn[3];
		char str[16];
	} k;
	memset(&k, 0, sizeof k);
	memcpy(k.eh.e_ident, ELFMAG, SELFMAG);
	k.eh.e_ident[EI_CLASS] = ELFCLASS64;
	const uint16_t one = 1;
	k.eh.e_ident[EI_DATA] = *(const uint8_t *)&one ? ELFDATA2LSB : ELFDATA2MSB;
	k.eh.e_ident[EI_VERSION] = EV_CURRENT;
	k.eh.e_type = ET_DYN;
	k.eh.e_version = EV_CURRENT;
	k.eh.e_phoff = offsetof(__typeof__(k), ph);
	k.eh.e_shoff = offsetof(__typeof__(k), sh);
	k.eh.e_ehsize = sizeof(Elf64_Ehdr);
	k.eh.e_phentsize = sizeof(Elf64_Phdr);
	k.eh.e_phnum = 1;
	k.eh.e_shentsize = sizeof(Elf64_Shdr);
	k.eh.e_shnum = 5;
	k.ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0, .p_vaddr = 0x10000,
	                     .p_filesz = 0x1000, .p_memsz = 0x1000 };
	k.sh[1] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_offset = offsetof(__typeof__(k), empty),
	                        .sh_size = sizeof k.empty, .sh_link = 2,
	                        .sh_entsize = sizeof(Elf64_Sym) };
	k.sh[2] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = offsetof(__typeof__(k), str),
	                        .sh_size = sizeof k.str };
	k.sh[3] = (Elf64_Shdr){ .sh_type = SHT_DYNSYM, .sh_offset = offsetof(__typeof__(k), dyn),
	                        .sh_size = sizeof k.dyn, .sh_link = 4,
	                        .sh_entsize = sizeof(Elf64_Sym) };
	k.sh[4] = k.sh[2];
	memcpy(k.str, "\0dyn_a\0dyn_b", 13);
	k.dyn[1] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
	                        .st_shndx = 1, .st_value = 0x10100, .st_size = 0x10 };
	k.dyn[2] = (Elf64_Sym){ .st_name = 7, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
	                        .st_shndx = 1, .st_value = 0x10200, .st_size = 0x10 };
	FILE *out = fopen(path, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(&k, 1, sizeof k, out), sizeof k);
	fclose(out);
}

static void test_symbols_dynsym_fallback(void **unused)
{
	(void)unused;
	char path[64];
	snprintf(path, sizeof path, "/tmp/opengpa-spe-dynsym-%d", (int)getpid());
	write_dynsym_elf(path);
	struct sym_file *f = sym_file_load(path);
	assert_non_null(f);
	const char *name = NULL;
	uint64_t into = 0;
	assert_int_equal(sym_file_lookup(f, 0x104, &name, &into), 0);
	assert_string_equal(name, "dyn_a");
	assert_int_equal(into, 4);
	assert_int_equal(sym_file_lookup(f, 0x208, &name, &into), 0);
	assert_string_equal(name, "dyn_b");
	sym_file_free(f);
	unlink(path);
}

/* The paths a profiled program maps are its own choice: a FIFO there must
 * not block the report (open(2) of a FIFO without a writer blocks), nor a
 * device be opened; a control byte in the name is shown escaped. */
static void test_symbols_not_regular(void **unused)
{
	(void)unused;
	char path[64], err[512];
	snprintf(path, sizeof path, "/tmp/opengpa-spe-fifo-%d", (int)getpid());
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(20); /* a regression blocks: SIGALRM ends the test as a failure */
	assert_null(sym_file_load_err(path, err, sizeof err));
	assert_non_null(strstr(err, ": is a FIFO, not an ELF file"));
	assert_non_null(strstr(err, path));
	struct sym_maps m = { 0 };
	sym_maps_add(&m, 1, 0x40000, 0x1000, 0, path);
	char buf[512], want[512];
	snprintf(want, sizeof want, "(%s+0x10)", path);
	assert_string_equal(sym_maps_name(&m, 0x40010, buf, sizeof buf), want);
	sym_maps_free(&m);
	unlink(path);
	assert_null(sym_file_load_err("/dev/zero", err, sizeof err));
	assert_non_null(strstr(err, "/dev/zero: is a character device"));
	assert_null(sym_file_load_err("/tmp", err, sizeof err));
	assert_non_null(strstr(err, "/tmp: is a directory"));
	alarm(0);

	/* A name with an ESC, as the kernel reports the mapping. */
	sym_maps_add(&m, 1, 0x40000, 0x1000, 0, "/nonexistent/a\x1b[2Jb");
	assert_string_equal(sym_maps_name(&m, 0x40010, buf, sizeof buf),
	                    "(/nonexistent/a\\x1b[2Jb+0x10)");
	sym_maps_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_losses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_permitted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_over_mlock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_fails, setup, teardown),
		cmocka_unit_test(test_symbols_self),
		cmocka_unit_test(test_symbols_damaged),
		cmocka_unit_test(test_symbols_dynsym_fallback),
		cmocka_unit_test(test_symbols_not_regular),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
