/*
 * idx: an index extended as the log grows, in any number of steps and
 * across long lines, on two threads, and from a copy, always equal to one
 * pass over the whole log. Helpers in ixutil.h.
 */
#include "ixutil.h"

/* ---- extension ---- */

/* A log with every kind of line the index treats differently. */
static void varied_log(struct sbuf *out)
{
	static const int pres[] = { 3 };
	struct tu_log l;

	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"queue-operation\",\"operation\":\"enqueue\"}");
	tu_user(&l, 1, 0, "Show me the files");
	tu_attach(&l, 2, 1, "environment");
	tu_tool_use(&l, 3, 2, "msg_1", "toolu_a");
	tu_tool_use(&l, 4, 3, "msg_1", "toolu_b");
	tu_result(&l, 5, 4, "toolu_b");
	tu_result(&l, 6, 3, "toolu_a");
	tu_line(&l, "not json at all");
	tu_line(&l, "");
	tu_progress(&l, 7, 6);
	tu_asst(&l, 8, 7, "msg_2", "done \\\" with escapes \xc3\xa9");
	tu_last_prompt(&l, 8, 0);
	sb_adds(&l.sb, "\r\n");
	sb_add(&l.sb, "\0\0", 2);
	tu_boundary(&l, 9, 8, 10, pres, 1);
	tu_summary(&l, 10, 9);
	tu_line(&l, "[1,2]");
	tu_line(&l, "{\"no_type\":1} \r");	/* whole but no record, blanks after */
	sb_adds(&l.sb, "{\"type\":\"user\",\"uuid\":\"x\"}\r\n");
	tu_user(&l, 11, 10, "next");
	tu_line(&l, "{\"type\":\"custom-title\",\"customTitle\":\"t\"}");
	sb_adds(&l.sb, "{\"type\":\"user\",\"uuid\":\"torn");	/* no newline */
	sb_add(out, l.sb.buf, l.sb.len);
	tu_log_free(&l);
}

/* Indexes data in steps: cut[0] bytes, then up to cut[1], ... then all;
 * the last step on two threads when min is not 0 (idx_feed2(min)). */
static void index_in_steps(const char *data, size_t n, const size_t *cut, int ncut,
			   uint64_t min, struct idx *one)
{
	struct ixf x;
	size_t have;
	int i;

	ixf_open_n(&x, data, cut[0]);
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	have = cut[0];
	for (i = 1; i <= ncut; i++) {
		size_t to = i < ncut ? cut[i] : n;

		append(x.path, data + have, to - have);
		have = to;
		assert_int_equal(i == ncut && min ? idx_feed2(x.ix, x.fd, min)
						  : idx_feed(x.ix, x.fd), 0);
	}
	assert_int_equal(idx_finish(x.ix, x.fd), 0);
	assert_same_index(x.ix, one);
	ixf_close(&x);
}

/* The varied log indexed in two steps, cut at every byte, the second step
 * as index_in_steps() takes min: the same index as one pass. */
static void every_split(uint64_t min)
{
	struct sbuf log;
	struct ixf one;
	size_t n;

	sb_init(&log);
	varied_log(&log);
	ixf_full(&one, log.buf, log.len);
	assert_true(idx_nrecs(one.ix) >= 15);
	assert_true(idx_nerrs(one.ix) >= 4);
	for (n = 0; n <= log.len; n++)
		index_in_steps(log.buf, log.len, &n, 1, min, one.ix);
	if (min)	/* below min: one thread */
		index_in_steps(log.buf, log.len, (size_t[]){ 0 }, 1, log.len + 1, one.ix);
	ixf_close(&one);
	sb_free(&log);
}

static void test_extension_every_split_matches_one_pass(void **state)
{
	(void)state;
	every_split(0);
}

static void test_extension_three_steps_match_one_pass(void **state)
{
	struct sbuf log;
	struct ixf one;
	size_t n, cut[3];

	(void)state;
	sb_init(&log);
	varied_log(&log);
	ixf_full(&one, log.buf, log.len);
	for (n = 1; n < log.len; n += 7) {
		cut[0] = n / 3;
		cut[1] = n;
		cut[2] = n + (log.len - n) / 2;
		index_in_steps(log.buf, log.len, cut, 3, 0, one.ix);
	}
	ixf_close(&one);
	sb_free(&log);
}

/* The varied log (without its torn tail) until it holds lead bytes, then a
 * row of 3 MB (at *start), a row of nearly IDX_CHUNK (at *big), a last
 * short row. */
static void long_rows_log(struct sbuf *log, size_t lead, size_t *start, size_t *big)
{
	do {
		varied_log(log);
		log->len -= strlen("{\"type\":\"user\",\"uuid\":\"torn");
	} while (log->len < lead);
	*start = log->len;
	add_big_row(log, 20, 11, 3u << 20);
	*big = log->len;
	add_big_row(log, 21, 20, IDX_CHUNK - 200);
	sb_adds(log, "{\"type\":\"mode\"}\n");
}

static void test_extension_across_long_lines(void **state)
{
	struct sbuf log;
	struct ixf one;
	size_t start, big, cuts[12], i;

	(void)state;
	sb_init(&log);
	long_rows_log(&log, 0, &start, &big);
	ixf_full(&one, log.buf, log.len);
	assert_int_equal(idx_rec(one.ix, idx_nrecs(one.ix) - 3)->off, start);
	cuts[0] = start;
	cuts[1] = start + 1;
	cuts[2] = start + IDX_CHUNK - 1;
	cuts[3] = start + IDX_CHUNK;
	cuts[4] = start + IDX_CHUNK + 1;
	cuts[5] = start + (5u << 19);
	cuts[6] = big - 1;
	cuts[7] = big;
	cuts[8] = big + 1;
	cuts[9] = big + IDX_CHUNK / 2;
	cuts[10] = log.len - 1;
	cuts[11] = 10;
	for (i = 0; i < 12; i++)
		index_in_steps(log.buf, log.len, &cuts[i], 1, 0, one.ix);
	ixf_close(&one);
	sb_free(&log);
}

/* Wherever the halves meet (the middle of what is left moves with the
 * part indexed first), two threads give what one pass gives: ids and
 * atoms first met in the second half keep one pass's numbers. */
static void test_two_threads_match_one_pass(void **state)
{
	(void)state;
	every_split(1);
}

/* Long rows in the second half (4 MB of short rows lead), a long row at
 * the middle (no line start near it: one thread does it all), a long row
 * in the first half. */
static void test_two_threads_across_long_lines(void **state)
{
	struct sbuf log;
	struct ixf one;
	size_t start, big, cuts[5], i;

	(void)state;
	sb_init(&log);
	long_rows_log(&log, 4u << 20, &start, &big);
	ixf_full(&one, log.buf, log.len);
	cuts[0] = 0;
	cuts[1] = start - 1000;
	cuts[2] = start;
	cuts[3] = big;
	cuts[4] = log.len - 5;
	for (i = 0; i < 5; i++)
		index_in_steps(log.buf, log.len, &cuts[i], 1, 1, one.ix);
	ixf_close(&one);
	sb_free(&log);
}

/* A copy of some records: their own ids and atoms, then growth as usual. */
static void test_copy_some_then_feed(void **state)
{
	struct tu_log l, more;
	struct ixf x;
	struct idx *c;
	uint8_t keep[8] = { 0, 1, 0, 1, 0, 0, 0, 0 };
	const struct idx_rec *r;
	char buf[IDX_UUID_MAX + 1];
	int fd;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_tool_use(&l, 2, 1, "m1", "toolu_1");
	tu_result(&l, 3, 2, "toolu_1");
	tu_system(&l, 4, 3, "turn_duration");
	ixf_open_n(&x, l.sb.buf, l.sb.len);
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 4);
	assert_int_equal(idx_copy_some(x.ix, keep, &c), 0);
	assert_int_equal(idx_nrecs(c), 2);
	assert_int_equal(idx_nerrs(c), 0);
	assert_int_equal(idx_end(c), idx_end(x.ix));
	assert_int_equal(idx_lines(c), 4);
	r = idx_rec(c, 0);
	assert_int_equal(r->line, 2);
	assert_string_equal(atom(c, r->name), "Bash");
	assert_string_equal(atom(c, r->type_atom), "assistant");
	idx_id_buf(c, r->uuid, buf);
	assert_string_equal(buf, "00000002-0000-4000-8000-000000000002");
	idx_id_buf(c, r->parent, buf);
	assert_string_equal(buf, "00000001-0000-4000-8000-000000000001");
	r = idx_rec(c, 1);
	assert_string_equal(atom(c, r->sub), "turn_duration");
	assert_int_equal(r->parent, id_of(c, 3));
	assert_int_equal(idx_nids(c), 4);
	assert_int_equal(idx_nids(x.ix), 4);
	/* It goes on from where the source stopped. */
	tu_log_init(&more);
	tu_asst(&more, 5, 4, "m2", "b");
	append(x.path, more.sb.buf, more.sb.len);
	fd = open(x.path, O_RDONLY);
	assert_int_equal(idx_feed(c, fd), 0);
	close(fd);
	assert_int_equal(idx_nrecs(c), 3);
	assert_int_equal(idx_rec(c, 2)->line, 5);
	assert_int_equal(idx_rec(c, 2)->parent, id_of(c, 4));
	idx_free(c);
	/* Only the ids the kept records name are interned. */
	memset(keep, 0, sizeof(keep));
	keep[0] = 1;
	assert_int_equal(idx_copy_some(x.ix, keep, &c), 0);
	assert_int_equal(idx_nids(c), 1);
	idx_free(c);
	ixf_close(&x);
	tu_log_free(&more);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_some_then_feed),
		cmocka_unit_test(test_extension_every_split_matches_one_pass),
		cmocka_unit_test(test_extension_three_steps_match_one_pass),
		cmocka_unit_test(test_extension_across_long_lines),
		cmocka_unit_test(test_two_threads_match_one_pass),
		cmocka_unit_test(test_two_threads_across_long_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
