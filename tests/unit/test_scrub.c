/*
 * test_scrub: the background re-check of the signed bytes (scrub.h) and
 * the session's use of it (ss_scrub()): a same-size rewrite in place of
 * indexed bytes, followed by growth before anyone looked, is found and
 * the log indexed again; growth alone and a log nobody writes are not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>

#include "scrub.h"
#include "session.h"
#include "testutil.h"

static void overwrite(const char *path, off_t off, const char *with)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, with, strlen(with), off), (ssize_t)strlen(with));
	close(fd);
}

static void append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Steps of at most step bytes until the pass ends: its result. */
static int pass(struct scrub *c, int fd, uint64_t step, uint64_t *total)
{
	uint64_t used;
	int rc;

	*total = 0;
	while ((rc = scr_step(c, fd, step, &used)) == SCR_GOING) {
		assert_true(used > 0 && used <= step);
		*total += used;
	}
	*total += used;
	return rc;
}

static void test_a_pass_checks_the_bytes_signed_in_bounded_steps(void **state)
{
	static const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP";
	char *path = tu_write_str(text);
	int fd = open(path, O_RDONLY);
	struct scrub c;
	struct sig ref;
	uint64_t total, used;

	(void)state;
	assert_true(fd >= 0);
	sig_init(&ref);
	assert_int_equal(sig_file(&ref, fd, sizeof(text) - 1, UINT64_MAX), 0);
	scr_init(&c);
	assert_int_equal(scr_step(&c, fd, 8, &used), SCR_GOING);	/* no pass */
	assert_int_equal(used, 0);
	scr_begin(&c, &ref);
	assert_int_equal(pass(&c, fd, 7, &total), SCR_SAME);
	assert_int_equal(total, sizeof(text) - 1);
	/* Growth past the bytes signed changes nothing. */
	append(path, "more");
	scr_begin(&c, &ref);
	assert_int_equal(pass(&c, fd, 7, &total), SCR_SAME);
	/* A byte in the middle, the same size. */
	overwrite(path, 30, "#");
	scr_begin(&c, &ref);
	assert_int_equal(pass(&c, fd, 7, &total), SCR_CHANGED);
	/* Shorter than signed. */
	close(fd);
	fd = open(path, O_RDWR | O_TRUNC);
	assert_true(fd >= 0);
	scr_begin(&c, &ref);
	assert_int_equal(pass(&c, fd, 7, &total), SCR_CHANGED);
	close(fd);
	tu_remove(path);
}

static char *errors_text(const struct session *s)
{
	struct sbuf sb;

	sb_init(&sb);
	ss_errors_text(s, &sb);
	return sb_detach(&sb, NULL);
}

/* Signs all, then scrubs in steps of 64 bytes until the pass ends: the
 * bytes read. */
static uint64_t scrub_all(struct session *s)
{
	uint64_t n, total = 0;

	while (ss_sign(s, 1 << 20))
		;
	while ((n = ss_scrub(s, 64)) > 0)
		total += n;
	return total;
}

static void test_a_rewrite_hidden_by_growth_is_found(void **state)
{
	struct tu_log l, more;
	struct session *s;
	char *path, *text;
	const char *a;

	(void)state;
	path = tu_four_rows(&l);
	a = strstr(l.sb.buf, "\"a\"");
	assert_non_null(a);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	/* Nobody wrote since it was indexed: no pass. */
	assert_int_equal(scrub_all(s), 0);

	/* Growth alone: a pass over what was signed finds nothing. */
	tu_log_init(&more);
	tu_user(&more, 5, 4, "e");
	append(path, more.sb.buf);
	assert_int_equal(ss_refresh(s), SS_GREW);
	assert_true(scrub_all(s) > 0);
	assert_false(ss_changed(s));
	assert_int_equal(scrub_all(s), 0);	/* and none again until it moves */

	/* The first row's text rewritten (same size), and a row appended at
	 * once: growth compares only the last bytes, and misses it. */
	overwrite(path, a - l.sb.buf, "\"z\"");
	sb_reset(&more.sb);
	tu_asst(&more, 6, 5, "m3", "f");
	append(path, more.sb.buf);
	assert_int_equal(ss_refresh(s), SS_GREW);
	assert_false(ss_rewritten(s));
	assert_true(scrub_all(s) > 0);
	assert_true(ss_rewritten(s));
	assert_true(ss_changed(s));
	assert_int_equal(ss_refresh(s), SS_RESET);
	text = errors_text(s);
	assert_non_null(strstr(text, "found by the background check"));
	free(text);
	assert_int_equal(idx_nrecs(ss_idx(s)), 6);
	assert_false(ss_changed(s));
	assert_int_equal(scrub_all(s), 0);	/* indexed anew: nothing moved */
	ss_close(s);
	tu_remove(path);
	tu_log_free(&more);
	tu_log_free(&l);
}

/* What the settle hook appends, and where. */
static const char *settle_path, *settle_text;
static int settle_calls;

static void append_while_settling(void)
{
	if (settle_calls++ == 0)
		append(settle_path, settle_text);
}

/*
 * A write appending to the log sets its times before its size: a look
 * between the two sees the old size with new times. ss_refresh() looks
 * again before it takes that for a rewrite in place (of bytes not signed
 * yet, which would index the log again from scratch): here the append
 * lands during its first look again, and it is growth. (A log only
 * touched is still indexed again: test_session.c.)
 */
static void test_an_append_under_way_is_growth(void **state)
{
	struct tu_log l, more;
	struct session *s;
	char *path, *text;

	(void)state;
	path = tu_four_rows(&l);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	tu_log_init(&more);
	tu_user(&more, 5, 4, "e");
	tu_touch_later(path);
	settle_path = path;
	settle_text = more.sb.buf;
	settle_calls = 0;
	ss_settle_hook = append_while_settling;
	assert_int_equal(ss_refresh(s), SS_GREW);
	ss_settle_hook = NULL;
	assert_int_equal(settle_calls, 1);
	assert_int_equal(idx_nrecs(ss_idx(s)), 5);
	text = errors_text(s);
	assert_null(strstr(text, "indexed again"));
	free(text);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&more);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_pass_checks_the_bytes_signed_in_bounded_steps),
		cmocka_unit_test(test_a_rewrite_hidden_by_growth_is_found),
		cmocka_unit_test(test_an_append_under_way_is_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
