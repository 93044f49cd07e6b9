/* SPDX-License-Identifier: MIT */
/*
 * early_calls.c — linked into a test client, it makes the calls a sanitizer
 * runtime makes while it starts up.  AddressSanitizer's runtime starts from
 * an instrumented program's .preinit_array, before the C library has set up
 * the environment, and maps memory and touches descriptors there.  A
 * preloaded virtual device that reads its configuration at that moment sees
 * no variables at all; these calls make that moment happen in any build, so
 * the vmali and v34k preload tests check that the configuration is still
 * honoured (docs/testing.md, "Virtual devices under a sanitizer").
 */
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

static void early_calls(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	char c;
	/* Not open: each fails with EBADF, after passing through the preload. */
	(void)!read(-1, &c, 1);
	(void)!write(-1, &c, 1);
	close(-1);
}

__attribute__((section(".preinit_array"), used)) static void (*const early_calls_entry)(
	int, char **, char **) = early_calls;
