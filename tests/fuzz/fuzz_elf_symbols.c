/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elf_symbols.c — `opengpa spe`'s ELF symbol reader
 * (tools/opengpa/spe/symbols.c) on damaged files.
 *
 * The binaries a profiled command maps are input the report trusts no more
 * than SPE data.  The input is XORed over a small valid ELF file (header,
 * one PT_LOAD, .text, .symtab, .strtab with three functions), so an input
 * of zeros is that file and every other input corrupts it somewhere; input
 * past its end lengthens it.  The file is handed over as a path, as the
 * report does, and looked up at every offset.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>

#include "symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILE 8192

struct skeleton {
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Shdr sh[4];
	Elf64_Sym sym[4];
	char str[32];
	uint8_t text[64];
};

static void build(struct skeleton *k)
{
	memset(k, 0, sizeof *k);
	memcpy(k->eh.e_ident, ELFMAG, SELFMAG);
	k->eh.e_ident[EI_CLASS] = ELFCLASS64;
	k->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	k->eh.e_ident[EI_VERSION] = EV_CURRENT;
	k->eh.e_type = ET_DYN;
	k->eh.e_machine = EM_AARCH64;
	k->eh.e_version = EV_CURRENT;
	k->eh.e_phoff = offsetof(struct skeleton, ph);
	k->eh.e_shoff = offsetof(struct skeleton, sh);
	k->eh.e_ehsize = sizeof(Elf64_Ehdr);
	k->eh.e_phentsize = sizeof(Elf64_Phdr);
	k->eh.e_phnum = 1;
	k->eh.e_shentsize = sizeof(Elf64_Shdr);
	k->eh.e_shnum = 4;
	k->eh.e_shstrndx = 3;
	k->ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
	                      .p_vaddr = 0x400000, .p_filesz = sizeof *k, .p_memsz = sizeof *k };
	uint64_t text = 0x400000 + offsetof(struct skeleton, text);
	k->sh[1] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_addr = text,
	                         .sh_offset = offsetof(struct skeleton, text), .sh_size = 64 };
	k->sh[2] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_offset = offsetof(struct skeleton, sym),
	                         .sh_size = sizeof k->sym, .sh_link = 3,
	                         .sh_entsize = sizeof(Elf64_Sym) };
	k->sh[3] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = offsetof(struct skeleton, str),
	                         .sh_size = sizeof k->str };
	memcpy(k->str, "\0alpha\0beta\0gamma", 18);
	for (int i = 0; i < 3; i++)
		k->sym[i + 1] = (Elf64_Sym){ .st_name = (uint32_t)(1 + 6 * i - (i == 2)),
		                             .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		                             .st_shndx = 1, .st_value = text + 16 * (uint64_t)i,
		                             .st_size = i == 2 ? 0 : 16 };
}

static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t file[MAX_FILE];
	struct skeleton k;
	if (fd < 0) {
		fd = memfd_create("opengpa-fuzz-elf", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	build(&k);
	size_t len = size > sizeof k ? (size < MAX_FILE ? size : MAX_FILE) : sizeof k;
	memset(file, 0, len);
	memcpy(file, &k, sizeof k);
	for (size_t i = 0; i < size; i++)
		file[i % len] ^= data[i];
	if (ftruncate(fd, 0) != 0 || pwrite(fd, file, len, 0) != (ssize_t)len)
		abort();
	struct sym_file *f = sym_file_load(path);
	if (!f)
		return 0;
	for (uint64_t off = 0; off < len + 16; off++) {
		const char *name;
		uint64_t into;
		if (sym_file_lookup(f, off, &name, &into) == 0 && strlen(name) == 0)
			abort(); /* names are never empty */
	}
	sym_file_free(f);
	return 0;
}
