/* SPDX-License-Identifier: MIT */
/* gpa_on_vmali.c — see gpa_on_vmali.h. */
#include "gpa_on_vmali.h"

#include "core/testing.h"
#include "opengpa.h"

void gv_release(struct vmali **vm)
{
	while (GPA_CloseContext() == GPA_STATUS_OK)
		;
	GPA_Destroy();
	GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL);
	og_testing_set_sys(NULL);
	og_testing_reset();
	vmali_destroy(*vm);
	*vm = NULL;
}
