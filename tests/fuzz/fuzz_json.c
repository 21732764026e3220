/*
 * fuzz_json: a libFuzzer target for jtree (jtree.h): jt_parse() must build
 * the tree cJSON_ParseWithLength() builds, or refuse what it refuses.
 *
 * The bytes are parsed whole (the first value, what follows ignored), and
 * each line of them on its own, as a log's lines are. Any difference
 * aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jtree.h"

static void check(const char *p, size_t n)
{
	cJSON *a = cJSON_ParseWithLength(p, n), *b = jt_parse(p, n);

	if (!jt_same(a, b))
		abort();
	cJSON_Delete(a);
	cJSON_Delete(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *e = p + size, *nl;

	check(p, size);
	for (; p < e; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl)
			nl = e;
		if (nl > p)
			check(p, (size_t)(nl - p));
	}
	return 0;
}
