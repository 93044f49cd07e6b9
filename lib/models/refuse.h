/* SPDX-License-Identifier: MIT */
/* refuse.h — the one way lib/models reports an error: a line in the caller's buffer. */
#ifndef OPENGPA_MODELS_REFUSE_H
#define OPENGPA_MODELS_REFUSE_H

#include <stdbool.h>
#include <stddef.h>

/* printf into err (nothing when err is NULL or errlen 0); returns false. */
bool og_model_refuse(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
