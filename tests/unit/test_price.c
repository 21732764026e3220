/*
 * price: the table's format, how a model's name finds its line, and what
 * a response costs: every rate, the rates above 200k, the fast factor.
 * The figures are ccusage 20.0.24's (`claude session --offline --mode
 * calculate`, one response of each kind per model, measured 2026-12-06).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "testutil.h"
#include "price.h"

static const struct pr_model *find(const char *name)
{
	return pr_find(pr_builtin(), name);
}

static double cost(const char *model, uint64_t in, uint64_t out, uint64_t w5m, uint64_t w1h,
		   uint64_t read, int fast)
{
	struct pr_usage u = { in, out, w5m, w1h, read, fast };

	return pr_cost(find(model), &u);
}

/* Equal to the cent and closer: to a millionth of a cent. */
static void assert_dollars(double got, double want)
{
	double d = got - want;

	if (d > 1e-8 || d < -1e-8)
		fail_msg("$%.10f, want $%.10f", got, want);
}

static void test_builtin_parses(void **state)
{
	const struct pr_table *t = pr_builtin();
	uint32_t i;

	(void)state;
	assert_non_null(t);
	assert_int_equal(pr_count(t), 17);
	assert_string_equal(pr_source(t), "data/prices.txt (built in)");
	for (i = 0; i < pr_count(t); i++)
		assert_string_equal(pr_date(pr_at(t, i)), "2026-12-06");
	assert_ptr_equal(pr_default(), t);
}

static void test_names_and_dates(void **state)
{
	(void)state;
	assert_string_equal(pr_name(find("claude-sonnet-4-5-20250929")), "claude-sonnet-4-5");
	assert_string_equal(pr_name(find("claude-sonnet-4-20250514")), "claude-sonnet-4");
	assert_string_equal(pr_name(find("claude-opus-4-20250514")), "claude-opus-4");
	assert_string_equal(pr_name(find("claude-3-haiku-20240307")), "claude-3-haiku");
	assert_string_equal(pr_name(find("claude-opus-4-6")), "claude-opus-4-6");
	/* never guessed */
	assert_null(find("claude-opus-5-5"));
	assert_null(find("claude-sonnet-4-5-2025092"));		/* 7 digits: no date */
	assert_null(find("claude-sonnet-4-5@20250929"));
	assert_null(find("anthropic/claude-sonnet-4-5"));
	assert_null(find("claude-sonnet"));
	assert_null(find("<synthetic>"));
	assert_null(find(""));
	assert_null(pr_find(NULL, "claude-opus-5"));
}

/* A million tokens of one kind (and 100,000 for a tiered model), per
 * model: ccusage's figures. */
static void test_rates(void **state)
{
	static const struct {
		const char *model;
		double in, out, w5m, w1h, read, fast_in;	/* a million each; fast: 100k in */
	} m[] = {
		{ "claude-opus-5", 5, 25, 6.25, 10, 0.5, 1 },
		{ "claude-opus-4-8", 5, 25, 6.25, 10, 0.5, 1 },
		{ "claude-opus-4-7", 5, 25, 6.25, 10, 0.5, 3 },
		{ "claude-opus-4-6", 5, 25, 6.25, 10, 0.5, 3 },
		{ "claude-opus-4-5-20251101", 5, 25, 6.25, 10, 0.5, 0.5 },
		{ "claude-opus-4-1-20250805", 15, 75, 18.75, 30, 1.5, 1.5 },
		{ "claude-opus-4-20250514", 15, 75, 18.75, 30, 1.5, 1.5 },
		{ "claude-sonnet-5", 2, 10, 2.5, 4, 0.2, 0.2 },
		{ "claude-sonnet-4-6", 3, 15, 3.75, 6, 0.3, 0.3 },
		{ "claude-sonnet-4-5-20250929", 5.4, 21, 6.75, 10.8, 0.54, 0.3 },
		{ "claude-sonnet-4-20250514", 5.4, 21, 6.75, 10.8, 0.54, 0.3 },
		{ "claude-haiku-4-5-20251001", 1, 5, 1.25, 2, 0.1, 0.1 },
		{ "claude-3-7-sonnet-20250219", 3, 15, 3.75, 6, 0.3, 0.3 },
		{ "claude-3-5-sonnet-20241022", 3, 15, 3.75, 6, 0.3, 0.3 },
		{ "claude-3-5-haiku-20241022", 0.8, 4, 1, 1.6, 0.08, 0.08 },
		{ "claude-3-opus-20240229", 15, 75, 18.75, 30, 1.5, 1.5 },
		{ "claude-3-haiku-20240307", 0.25, 1.25, 0.3, 0.5, 0.03, 0.025 },
	};
	const uint64_t M = 1000000;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		assert_dollars(cost(m[i].model, M, 0, 0, 0, 0, 0), m[i].in);
		assert_dollars(cost(m[i].model, 0, M, 0, 0, 0, 0), m[i].out);
		assert_dollars(cost(m[i].model, 0, 0, M, 0, 0, 0), m[i].w5m);
		assert_dollars(cost(m[i].model, 0, 0, 0, M, 0, 0), m[i].w1h);
		assert_dollars(cost(m[i].model, 0, 0, 0, 0, M, 0), m[i].read);
		assert_dollars(cost(m[i].model, M / 10, 0, 0, 0, 0, 1), m[i].fast_in);
	}
}

static void test_tiers(void **state)
{
	const char *s = "claude-sonnet-4-5-20250929";

	(void)state;
	/* at 200,000 exactly the base rate; one more at the rate above */
	assert_dollars(cost(s, 200000, 0, 0, 0, 0, 0), 0.6);
	assert_dollars(cost(s, 200001, 0, 0, 0, 0, 0), 0.6 + 6e-6);
	/* each kind on its own: 250k in, 3k out, 210k/230k writes, 260k reads
	 * (a response of tests/ccusage/: $3.426 there) */
	assert_dollars(cost(s, 250000, 3000, 210000, 230000, 260000, 0), 3.426);
	/* a model without tiers: straight */
	assert_dollars(cost("claude-sonnet-4-6", 1000000, 0, 0, 0, 0, 0), 3);
	/* fast: every kind times the factor */
	assert_dollars(cost("claude-opus-4-6", 700, 150, 500, 500, 9000, 1), 0.11925);
	assert_dollars(cost("claude-opus-4-6", 700, 150, 500, 500, 9000, 0), 0.019875);
	assert_dollars(cost("claude-opus-5-5", 1000, 1000, 0, 0, 0, 0), 0);
}

static int parses(const char *text, const char *want_err)
{
	struct pr_table *t = NULL;
	struct sbuf err;
	int rc;

	sb_init(&err);
	rc = pr_parse(text, strlen(text), "test", &t, &err);
	if (want_err) {
		assert_int_equal(rc, -EINVAL);
		assert_null(t);
		if (!strstr(err.buf, want_err))
			fail_msg("error \"%s\" lacks \"%s\"", err.buf, want_err);
	}
	sb_free(&err);
	pr_free(t);
	return rc;
}

#define ROW "m 1 2 3 4 5 - - - - - 1 2026-01-02 my own rates\n"

static void test_format(void **state)
{
	struct pr_table *t;
	struct sbuf err;
	struct pr_usage u = { 1000000, 1000000, 0, 0, 0, 1 };
	const char *text = "# comment\n\n  # indented comment\r\n"
			   "a\t1.5\t2\t3\t4\t0.25\t3\t4\t6\t8\t0.5\t2.5\t2026-01-02\tsource,  with spaces  \r\n"
			   "b 1 2 3 4 5 - - - - - 1 2026-01-02 x"; /* no newline at the end */

	(void)state;
	sb_init(&err);
	assert_int_equal(pr_parse(text, strlen(text), "mine", &t, &err), 0);
	assert_int_equal(pr_count(t), 2);
	assert_string_equal(pr_source(t), "mine");
	assert_string_equal(pr_name(pr_at(t, 1)), "b");
	/* (1.5 + 2) * 2.5; above 200k: (0.3 + 0.8 * 3 + 0.4 + 0.8 * 4) * 2.5 */
	u.input = u.output = 100000;
	assert_dollars(pr_cost(pr_find(t, "a"), &u), 0.35 * 2.5);
	u.input = u.output = 1000000;
	assert_dollars(pr_cost(pr_find(t, "a-20260101"), &u), (0.3 + 2.4 + 0.4 + 3.2) * 2.5);
	pr_set_default(t);
	assert_ptr_equal(pr_default(), t);
	pr_set_default(NULL);
	assert_ptr_equal(pr_default(), pr_builtin());
	pr_free(t);
	sb_free(&err);

	assert_int_equal(parses(ROW, NULL), 0);
	parses("# nothing\n", "no model");
	parses("m 1 2 3 4 5 - - - - - 1 2026-01-02\n", "line 1: a model and 13 columns");
	parses("# x\nm 1 2 3 4 x - - - - - 1 2026-01-02 s\n", "line 2, column read: not a price");
	parses("m 1 2 3 4 -5 - - - - - 1 2026-01-02 s\n", "column read");
	parses("m 1 2 3 4 1e3 - - - - - 1 2026-01-02 s\n", "column read");
	parses("m 1 2 3 4 5 - - * - - 1 2026-01-02 s\n", "column w5m>200k");
	parses("m 1 2 3 4 5 - - - - - one 2026-01-02 s\n", "column fast");
	parses("m 1 2 3 4 5 - - - - - 1 2026-1-2 s\n", "column date");
	parses("m 1 2 3 4 1.2.3 - - - - - 1 2026-01-02 s\n", "not a price");
	parses("m 1 2 3 4 1234567890123456 - - - - - 1 2026-01-02 s\n", "not a price");
	parses(ROW ROW, "line 2: the model is listed twice");
}

static void test_load(void **state)
{
	struct pr_table *t = NULL;
	struct sbuf err;
	char *path = tu_write_str(ROW);

	(void)state;
	sb_init(&err);
	assert_int_equal(pr_load(path, &t, &err), 0);
	assert_string_equal(pr_source(t), path);
	assert_non_null(pr_find(t, "m"));
	pr_free(t);
	tu_remove(path);
	assert_int_equal(pr_load("/nonexistent/prices.txt", &t, &err), -ENOENT);
	assert_null(t);
	assert_non_null(strstr(err.buf, "No such file"));
	sb_free(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_parses),
		cmocka_unit_test(test_names_and_dates),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_tiers),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
