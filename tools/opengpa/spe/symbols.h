/* SPDX-License-Identifier: MIT */
/*
 * symbols.h — naming a sampled PC: the file mapped there (the task's
 * PERF_RECORD_MMAP records) and the function its ELF symbol table puts
 * there.
 *
 * Files are read with pread and every offset, size and index checked
 * against the file, so a damaged or hostile binary names nothing rather
 * than crashing the report.  64-bit ELF of the host's byte order only (the
 * only kind an Arm SPE sample comes from on this host).
 */
#ifndef OPENGPA_TOOLS_SYMBOLS_H
#define OPENGPA_TOOLS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* One file's functions, by address. */
struct sym_file;

/* Reads path's function symbols (.symtab, else .dynsym) and program
 * headers.  NULL when the file cannot be read or is not such an ELF file. */
struct sym_file *sym_file_load(const char *path);
/* The same, with why the file was not opened in err (a FIFO, a device, a
 * directory, over the cap: util/readfile.h); err is "" when it was opened
 * but holds no function symbols. */
struct sym_file *sym_file_load_err(const char *path, char *err, size_t errlen);
void sym_file_free(struct sym_file *f);
/* The function holding the byte at file offset `offset` (the mapping's
 * pgoff plus the PC's distance from its start): its name and the PC's
 * offset into it.  0, or -1 when no symbol covers it. */
int sym_file_lookup(const struct sym_file *f, uint64_t offset, const char **name,
                    uint64_t *into);

/* What the task mapped, newest last (a later mapping over an address
 * wins), and the files read so far. */
struct sym_maps {
	struct sym_map {
		uint64_t start, len, pgoff;
		char *file;
		struct sym_file *syms; /* read on first use, or another map's */
		int tried, owns;
	} *v;
	size_t n, cap;
};

/* og_spe_mmap_fn: adds one mapping (pid is not checked: one task). */
void sym_maps_add(void *maps, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
                  const char *filename);
/* Names pc into buf: "func+0x1c (/usr/bin/x)", "(/usr/bin/x+0x1234)" without
 * a symbol, "[kernel]" for a kernel address, "[unknown]" outside every
 * mapping; names and paths as og_quote shows them (util/quote.h: control
 * bytes as \xNN).  Only a regular file is opened for its symbols
 * (util/readfile.h): a path the program mapped may be a FIFO.  Returns buf. */
const char *sym_maps_name(struct sym_maps *m, uint64_t pc, char *buf, size_t len);
void sym_maps_free(struct sym_maps *m);

#endif
