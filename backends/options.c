/* SPDX-License-Identifier: MIT */
/* options.c — parsing of backend option strings ("key=value,key=value"). */
#include "backend.h"

#include <string.h>

/* Length of the key at p (up to '=', ',' or the end). */
static size_t key_len(const char *p)
{
	return strcspn(p, "=,");
}

bool og_option_has(const char *options, const char *key)
{
	if (!options || !key)
		return false;
	size_t klen = strlen(key);
	for (const char *p = options; *p;) {
		const char *end = p + strcspn(p, ",");
		if (key_len(p) == klen && strncmp(p, key, klen) == 0)
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

bool og_option_get(const char *options, const char *key, char *buf, size_t len)
{
	if (!options || !key || !buf || len == 0)
		return false;
	size_t klen = strlen(key);
	for (const char *p = options; *p;) {
		size_t k = key_len(p);
		const char *end = p + strcspn(p, ",");
		if (k == klen && strncmp(p, key, klen) == 0) {
			const char *v = p[k] == '=' ? p + k + 1 : "1";
			size_t vlen = p[k] == '=' ? (size_t)(end - v) : 1;
			if (vlen >= len)
				return false;
			memcpy(buf, v, vlen);
			buf[vlen] = '\0';
			return true;
		}
		p = *end ? end + 1 : end;
	}
	return false;
}

const char *og_option_unknown(const char *options, const char *const *known)
{
	if (!options)
		return NULL;
	for (const char *p = options; *p;) {
		size_t k = key_len(p);
		const char *end = p + strcspn(p, ",");
		bool ok = k == 0; /* tolerate empty items such as a trailing comma */
		for (size_t i = 0; !ok && known && known[i]; i++)
			ok = strlen(known[i]) == k && strncmp(p, known[i], k) == 0;
		if (!ok)
			return p;
		p = *end ? end + 1 : end;
	}
	return NULL;
}
