/* SPDX-License-Identifier: MIT */
/* symbols.c — ELF function symbols and the task's mappings (symbols.h). */
#include "symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/quote.h"
#include "util/readfile.h"

#define MAX_LOADS 16
#define MAX_PHDRS 1024
#define MAX_SECTIONS (1u << 20)
#define MAX_TABLE (1ull << 30) /* a symbol or string table larger than this is refused */

struct sym {
	uint64_t value, size;
	uint32_t name;
};

struct sym_file {
	struct sym *syms;
	size_t n;
	char *strtab;
	size_t strtab_len;
	struct {
		uint64_t offset, filesz, vaddr;
	} load[MAX_LOADS];
	size_t nload;
};

/* Reads len bytes at off, all of them inside a file of `size` bytes. */
static void *read_at(int fd, uint64_t size, uint64_t off, uint64_t len)
{
	if (len == 0 || len > MAX_TABLE || off > size || len > size - off)
		return NULL;
	char *buf = malloc((size_t)len);
	if (!buf)
		return NULL;
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, buf + got, (size_t)(len - got), (off_t)(off + got));
		if (r <= 0) {
			free(buf);
			return NULL;
		}
		got += (size_t)r;
	}
	return buf;
}

static bool host_is_little(void)
{
	const uint16_t one = 1;
	uint8_t b;
	memcpy(&b, &one, 1);
	return b == 1;
}

static int by_value(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* The symbol table of type `type` and its strings, into f. */
static bool load_table(struct sym_file *f, int fd, uint64_t size, const Elf64_Shdr *sh,
                       size_t shnum, uint32_t type)
{
	for (size_t i = 0; i < shnum; i++) {
		if (sh[i].sh_type != type)
			continue;
		if ((sh[i].sh_entsize && sh[i].sh_entsize != sizeof(Elf64_Sym)) ||
		    sh[i].sh_link >= shnum || sh[sh[i].sh_link].sh_type != SHT_STRTAB)
			return false;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		/* A table read before (a .symtab without a function) goes: this
		 * one replaces it. */
		free(f->syms);
		free(f->strtab);
		f->syms = NULL;
		f->strtab = NULL;
		f->strtab_len = 0;
		f->n = 0;
		Elf64_Sym *raw = read_at(fd, size, sh[i].sh_offset, sh[i].sh_size);
		char *strings = read_at(fd, size, str->sh_offset, str->sh_size);
		size_t count = raw ? (size_t)(sh[i].sh_size / sizeof(Elf64_Sym)) : 0;
		f->syms = count ? calloc(count, sizeof *f->syms) : NULL;
		if (!raw || !strings || !f->syms) {
			free(raw);
			free(strings);
			free(f->syms);
			f->syms = NULL;
			return false;
		}
		strings[str->sh_size - 1] = '\0'; /* every name ends inside the table */
		for (size_t k = 0; k < count; k++) {
			unsigned t = ELF64_ST_TYPE(raw[k].st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || raw[k].st_shndx == SHN_UNDEF ||
			    raw[k].st_value == 0 || raw[k].st_name >= str->sh_size ||
			    !strings[raw[k].st_name])
				continue;
			f->syms[f->n++] = (struct sym){ raw[k].st_value, raw[k].st_size, raw[k].st_name };
		}
		free(raw);
		f->strtab = strings;
		f->strtab_len = (size_t)str->sh_size;
		qsort(f->syms, f->n, sizeof *f->syms, by_value);
		return f->n > 0;
	}
	return false;
}

/* ELF files as readfile.h opens them: the paths come from the profiled
 * program's mappings, which it controls, so never a FIFO or a device. */
static const struct og_file_kind elf_kind = {
	.what = "ELF file",
	.max_bytes = OG_READ_MAX_ELF,
	.fix = "its PCs are shown without function names",
};

struct sym_file *sym_file_load(const char *path)
{
	return sym_file_load_err(path, NULL, 0);
}

struct sym_file *sym_file_load_err(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = og_open_regular(path, &elf_kind, &st, err, errlen);
	if (fd < 0)
		return NULL;
	struct sym_file *f = NULL;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	Elf64_Shdr *sh = NULL;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
		goto out;
	uint64_t size = (uint64_t)st.st_size;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (host_is_little() ? ELFDATA2LSB : ELFDATA2MSB) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff == 0)
		goto out;
	f = calloc(1, sizeof *f);
	if (!f)
		goto out;
	/* Program headers: file offsets to addresses. */
	if (eh.e_phnum && eh.e_phnum <= MAX_PHDRS && eh.e_phentsize == sizeof(Elf64_Phdr) &&
	    (ph = read_at(fd, size, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof *ph)))
		for (size_t i = 0; i < eh.e_phnum && f->nload < MAX_LOADS; i++)
			if (ph[i].p_type == PT_LOAD && ph[i].p_filesz)
				f->load[f->nload].offset = ph[i].p_offset,
				f->load[f->nload].filesz = ph[i].p_filesz,
				f->load[f->nload++].vaddr = ph[i].p_vaddr;
	/* Section headers: more than 0xff00 put their count in section 0. */
	uint64_t shnum = eh.e_shnum;
	if (shnum == 0) {
		Elf64_Shdr first;
		if (pread(fd, &first, sizeof first, (off_t)eh.e_shoff) != (ssize_t)sizeof first)
			goto fail;
		shnum = first.sh_size;
	}
	if (shnum == 0 || shnum > MAX_SECTIONS ||
	    !(sh = read_at(fd, size, eh.e_shoff, shnum * sizeof *sh)))
		goto fail;
	if (f->nload && (load_table(f, fd, size, sh, (size_t)shnum, SHT_SYMTAB) ||
	                 load_table(f, fd, size, sh, (size_t)shnum, SHT_DYNSYM)))
		goto out;
fail:
	sym_file_free(f);
	f = NULL;
out:
	free(ph);
	free(sh);
	close(fd);
	return f;
}

void sym_file_free(struct sym_file *f)
{
	if (!f)
		return;
	free(f->syms);
	free(f->strtab);
	free(f);
}

int sym_file_lookup(const struct sym_file *f, uint64_t offset, const char **name,
                    uint64_t *into)
{
	uint64_t addr = 0;
	size_t i = 0;
	for (; i < f->nload; i++)
		if (offset >= f->load[i].offset && offset - f->load[i].offset < f->load[i].filesz) {
			addr = offset - f->load[i].offset + f->load[i].vaddr;
			break;
		}
	if (i == f->nload || f->n == 0 || addr < f->syms[0].value)
		return -1;
	size_t lo = 0, hi = f->n; /* the last symbol at or below addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].value <= addr)
			lo = mid;
		else
			hi = mid;
	}
	const struct sym *s = &f->syms[lo];
	if (s->size && addr - s->value >= s->size)
		return -1;
	*name = f->strtab + s->name;
	*into = addr - s->value;
	return 0;
}

void sym_maps_add(void *maps, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
                  const char *filename)
{
	struct sym_maps *m = maps;
	(void)pid;
	if (len == 0 || addr + len < addr)
		return;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct sym_map *v = realloc(m->v, cap * sizeof *v);
		if (!v)
			return;
		m->v = v;
		m->cap = cap;
	}
	char *file = strdup(filename);
	if (!file)
		return;
	m->v[m->n++] = (struct sym_map){ addr, len, pgoff, file, NULL, 0, 0 };
}

const char *sym_maps_name(struct sym_maps *m, uint64_t pc, char *buf, size_t len)
{
	if (pc >> 56 == 0xff) {
		snprintf(buf, len, "[kernel]");
		return buf;
	}
	for (size_t i = m->n; i-- > 0;) {
		struct sym_map *map = &m->v[i];
		if (pc < map->start || pc - map->start >= map->len)
			continue;
		uint64_t off = pc - map->start + map->pgoff;
		if (map->file[0] == '/' && !map->tried) {
			map->tried = 1;
			/* The same file mapped twice is read once: the first owns it. */
			for (size_t k = 0; k < m->n && !map->syms; k++)
				if (k != i && m->v[k].tried && m->v[k].owns &&
				    strcmp(m->v[k].file, map->file) == 0)
					map->syms = m->v[k].syms;
			if (!map->syms) {
				map->syms = sym_file_load(map->file);
				map->owns = 1;
			}
		}
		const struct sym_file *f = map->syms;
		const char *name;
		uint64_t into;
		/* The file's name (the kernel's record of the program's mapping)
		 * and the symbol's (the file's) are the program's text: quoted. */
		char qfile[512], qname[256];
		og_quote(map->file, qfile, sizeof qfile);
		if (f && sym_file_lookup(f, off, &name, &into) == 0)
			snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", og_quote(name, qname, sizeof qname),
			         into, qfile);
		else
			snprintf(buf, len, "(%s+0x%" PRIx64 ")", qfile, off);
		return buf;
	}
	snprintf(buf, len, "[unknown] 0x%" PRIx64, pc);
	return buf;
}

void sym_maps_free(struct sym_maps *m)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->v[i].owns)
			sym_file_free(m->v[i].syms);
		free(m->v[i].file);
	}
	free(m->v);
	memset(m, 0, sizeof *m);
}
