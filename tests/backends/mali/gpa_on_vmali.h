/* SPDX-License-Identifier: MIT */
/*
 * gpa_on_vmali.h — what the tests of the whole library on an in-process
 * virtual Mali (og_testing_set_sys(vmali_sys(vm))) share: the end of a case.
 */
#ifndef OPENGPA_TESTS_GPA_ON_VMALI_H
#define OPENGPA_TESTS_GPA_ON_VMALI_H

#include "vmali.h"

/* Ends whatever a case left, also when an assertion stopped it half way:
 * every context closed, GPA destroyed, logging off, the real kernel table
 * back, the library's test state reset, then the device destroyed and
 * *vm cleared (a NULL *vm is fine). */
void gv_release(struct vmali **vm);

#endif
