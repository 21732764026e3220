/*
 * arr: an array grows by doubling from its first capacity (or from what
 * it has) until it holds what is asked, keeps its elements, and is left
 * as it was when the memory cannot be had.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "arr.h"

struct pair {
	uint64_t a, b;
};

static void test_doubles_from_first_and_keeps_elements(void **state)
{
	struct pair *v = NULL;
	uint32_t cap = 0, i;

	(void)state;
	assert_int_equal(arr_grow(&v, &cap, 0, sizeof(*v), 8), 0);
	assert_null(v);				/* nothing asked: nothing made */
	assert_int_equal(cap, 0);
	assert_int_equal(arr_grow(&v, &cap, 1, sizeof(*v), 8), 0);
	assert_non_null(v);
	assert_int_equal(cap, 8);
	for (i = 0; i < 8; i++)
		v[i] = (struct pair){ i, ~(uint64_t)i };
	assert_int_equal(arr_grow(&v, &cap, 8, sizeof(*v), 8), 0);
	assert_int_equal(cap, 8);		/* enough already */
	assert_int_equal(arr_grow(&v, &cap, 9, sizeof(*v), 8), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(arr_grow(&v, &cap, 100, sizeof(*v), 8), 0);
	assert_int_equal(cap, 128);		/* doubled until enough */
	for (i = 0; i < 8; i++) {
		assert_int_equal(v[i].a, i);
		assert_int_equal(v[i].b, ~(uint64_t)i);
	}
	free(v);
}

static void test_no_first_starts_at_one(void **state)
{
	char *v = NULL;
	uint32_t cap = 0;

	(void)state;
	assert_int_equal(arr_grow(&v, &cap, 3, 1, 0), 0);
	assert_int_equal(cap, 4);
	free(v);
}

static void test_what_cannot_be_had_changes_nothing(void **state)
{
	uint64_t *v = NULL;
	uint32_t cap = 0;

	(void)state;
	assert_int_equal(arr_grow(&v, &cap, 4, sizeof(*v), 4), 0);
	v[3] = 42;
	/* UINT32_MAX elements of SIZE_MAX / 4 bytes overflow size_t */
	assert_int_equal(arr_grow(&v, &cap, UINT32_MAX, SIZE_MAX / 4, 4), -ENOMEM);
	assert_int_equal(cap, 4);
	assert_int_equal(v[3], 42);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubles_from_first_and_keeps_elements),
		cmocka_unit_test(test_no_first_starts_at_one),
		cmocka_unit_test(test_what_cannot_be_had_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
