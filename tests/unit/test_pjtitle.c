/*
 * test_pjtitle: lh_index_title(), a session's title over its whole log (a
 * title in the middle of a long log, which head and tail do not show), and
 * the epochs a tree of the same log resumes after a close (lv_mark()), and
 * the check of its signed bytes it resumes with (a rewrite while closed);
 * the facts lh_read() gives of head and tail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "jscan.h"
#include "live.h"
#include "loghead.h"
#include "session.h"
#include "tree_priv.h"
#include "testutil.h"

/* The index title of the log text; a new string or NULL. */
static char *title_of(const char *text, enum lh_title_kind *kind)
{
	char *path = tu_write_str(text), *t = NULL;
	struct session *s;

	assert_int_equal(ss_open(path, 0, &s), 0);
	assert_int_equal(lh_index_title(ss_idx(s), ss_logf(s), &t, kind), 0);
	ss_close(s);
	tu_remove(path);
	return t;
}

/* n turns of a long log: past head and tail (LH_HEAD, LH_TAIL). */
static void turns(struct tu_log *l, int from, int n)
{
	char pad[2048];
	int i;

	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = 0;
	for (i = from; i < from + n; i++) {
		tu_user(l, 2 * i + 1, i ? 2 * i : 0, i ? pad : "first prompt\nsecond line");
		tu_asst(l, 2 * i + 2, 2 * i + 1, "msg", pad);
	}
}

static void test_custom_title_mid_log(void **state)
{
	struct tu_log l;
	enum lh_title_kind kind;
	char *t;

	(void)state;
	tu_log_init(&l);
	turns(&l, 0, 40);
	tu_line(&l, "{\"type\":\"custom-title\",\"customTitle\":\"old name\",\"sessionId\":\"" TU_SID "\"}");
	tu_line(&l, "{\"type\":\"ai-title\",\"aiTitle\":\"generated\",\"sessionId\":\"" TU_SID "\"}");
	tu_line(&l, "{\"type\":\"custom-title\",\"customTitle\":\"mid \\\"name\\\"\",\"sessionId\":\"" TU_SID "\"}");
	turns(&l, 40, 40);
	assert_true(l.sb.len > 4 * (LH_HEAD + LH_TAIL));
	t = title_of(l.sb.buf, &kind);
	assert_string_equal(t, "mid \"name\"");
	assert_int_equal(kind, LH_T_CUSTOM);
	free(t);
	tu_log_free(&l);
}

static void test_generated_then_prompt(void **state)
{
	struct tu_log l;
	enum lh_title_kind kind;
	char *t;

	(void)state;
	tu_log_init(&l);
	turns(&l, 0, 30);
	tu_line(&l, "{\"type\":\"ai-title\",\"aiTitle\":\"made up\",\"sessionId\":\"" TU_SID "\"}");
	turns(&l, 30, 30);
	t = title_of(l.sb.buf, &kind);
	assert_string_equal(t, "made up");
	assert_int_equal(kind, LH_T_GENERATED);
	free(t);
	tu_log_free(&l);

	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"permission-mode\",\"permissionMode\":\"default\",\"sessionId\":\"" TU_SID "\"}");
	turns(&l, 0, 3);
	t = title_of(l.sb.buf, &kind);
	assert_string_equal(t, "first prompt");
	assert_int_equal(kind, LH_T_PROMPT);
	free(t);
	tu_log_free(&l);

	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"permission-mode\",\"permissionMode\":\"default\",\"sessionId\":\"" TU_SID "\"}");
	t = title_of(l.sb.buf, &kind);
	assert_null(t);
	assert_int_equal(kind, LH_T_NONE);
	tu_log_free(&l);
}

/* A user row Claude Code marks as its own (rowSource "harness", 2.1.332)
 * titles no session, whole log or head and tail alike; the prompt after it
 * does. */
static void test_harness_row_titles_nothing(void **state)
{
	struct tu_log l;
	struct lh_facts f;
	enum lh_title_kind kind;
	char *t, *path, *slash;
	int dfd;

	(void)state;
	tu_log_init(&l);
	tu_row(&l, "user", 101, 0, "\"rowSource\":\"harness\",\"message\":{\"role\":\"user\","
	       "\"content\":\"a note of its own\"}");
	turns(&l, 0, 2);
	t = title_of(l.sb.buf, &kind);
	assert_string_equal(t, "first prompt");
	assert_int_equal(kind, LH_T_PROMPT);
	free(t);

	path = tu_write_str(l.sb.buf);
	slash = strrchr(path, '/');
	*slash = 0;
	dfd = open(path, O_RDONLY | O_DIRECTORY);
	*slash = '/';
	assert_true(dfd >= 0);
	assert_int_equal(lh_read(dfd, slash + 1, "x", &f), 0);
	assert_string_equal(f.title, "first prompt");
	assert_int_equal(f.title_kind, LH_T_PROMPT);
	lh_free(&f);
	close(dfd);
	tu_remove(path);
	tu_log_free(&l);
}

/* lh_read() of the log text (its file named "x.jsonl"); fills *f. */
static void facts_of(const char *text, struct lh_facts *f)
{
	char *path = tu_write_str(text), *slash = strrchr(path, '/');
	int dfd;

	*slash = 0;
	dfd = open(path, O_RDONLY | O_DIRECTORY);
	*slash = '/';
	assert_true(dfd >= 0);
	assert_int_equal(lh_read(dfd, slash + 1, "x", f), 0);
	close(dfd);
	tu_remove(path);
}

/* The user and assistant rows among the complete lines of text[0..n). */
static uint32_t rows_in(const char *text, size_t n, int skip_first)
{
	const char *p = text, *e = text + n, *nl;
	uint32_t rows = 0;

	if (skip_first && (nl = memchr(p, '\n', (size_t)(e - p))))
		p = nl + 1;
	for (; (nl = memchr(p, '\n', (size_t)(e - p))); p = nl + 1) {
		size_t len = (size_t)(nl - p);

		rows += memmem(p, len, "\"type\":\"user\"", 13) ||
			memmem(p, len, "\"type\":\"assistant\"", 18);
	}
	return rows;
}

/*
 * Head and tail: once the first prompt is known, a row is read up to its
 * type (its message skipped) but for the last ones, and a title record
 * whole wherever it is: the facts are those of the lines read whole.
 */
static void test_head_and_tail_facts(void **state)
{
	struct tu_log l;
	struct lh_facts f;
	char u[37], ts[32], line[512];
	int64_t last_ms;

	(void)state;
	tu_log_init(&l);
	tu_at(&l, 1767225600000);		/* 2026-01-01T00:00:00Z */
	turns(&l, 0, 2);
	/* in the head, after the first prompt; Claude Code's key order */
	tu_line(&l, "{\"type\":\"custom-title\",\"customTitle\":\"named early\",\"sessionId\":\"" TU_SID "\"}");
	turns(&l, 2, 60);
	/* the last row: another folder; then lines with no uuid nor time */
	tu_uuid(500, u);
	last_ms = l.ms;
	js_time_fmt(last_ms, ts);
	snprintf(line, sizeof(line), "{\"parentUuid\":null,\"type\":\"assistant\",\"message\":"
		 "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]},"
		 "\"uuid\":\"%s\",\"timestamp\":\"%s\",\"cwd\":\"/home/user/src/moved\","
		 "\"sessionId\":\"" TU_SID "\",\"version\":\"2.1.332\",\"gitBranch\":\"b\"}", u, ts);
	tu_line(&l, line);
	tu_line(&l, "{\"type\":\"last-prompt\",\"lastPrompt\":\"p\",\"sessionId\":\"" TU_SID "\"}");
	tu_line(&l, "{\"type\":\"ai-title\",\"aiTitle\":\"made up\",\"sessionId\":\"" TU_SID "\"}");
	assert_true(l.sb.len > 2 * LH_BUF);

	facts_of(l.sb.buf, &f);
	assert_false(f.exact);
	assert_string_equal(f.title, "named early");	/* custom before generated */
	assert_int_equal(f.title_kind, LH_T_CUSTOM);
	assert_string_equal(f.last_uuid, u);
	assert_int_equal(f.last_ms, last_ms);
	assert_int_equal(f.first_ms, 1767225600000);
	assert_string_equal(f.cwd, "/home/user/src/moved");
	assert_string_equal(f.version, "2.1.332");
	assert_string_equal(f.branch, "b");
	assert_string_equal(f.sid, TU_SID);
	assert_int_equal(f.rows, rows_in(l.sb.buf, LH_HEAD, 0) +
			 rows_in(l.sb.buf + l.sb.len - LH_TAIL, LH_TAIL, 1));
	lh_free(&f);

	/* read whole: the same rule, every row counted */
	tu_log_free(&l);
	tu_log_init(&l);
	turns(&l, 0, 1);
	tu_line(&l, "{\"type\":\"custom-title\",\"customTitle\":\"small\",\"sessionId\":\"" TU_SID "\"}");
	turns(&l, 1, 3);
	tu_line(&l, "{\"type\":\"last-prompt\",\"lastPrompt\":\"p\",\"sessionId\":\"" TU_SID "\"}");
	assert_true(l.sb.len < LH_BUF);
	facts_of(l.sb.buf, &f);
	assert_true(f.exact);
	assert_string_equal(f.title, "small");
	assert_int_equal(f.rows, 8);
	tu_uuid(8, u);
	assert_string_equal(f.last_uuid, u);
	assert_int_equal(f.last_ms, l.ms - 1000);
	lh_free(&f);
	tu_log_free(&l);
}

/* A new tree of the log at path. */
static struct tree *tree_at(const char *path)
{
	struct session *s;

	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	return tr_new(s);
}

static void test_epochs_resume(void **state)
{
	struct tu_log l;
	struct lv_mark m = { 0 };
	struct tree *t;
	char *path;
	FILE *f;
	int i;

	(void)state;
	tu_log_init(&l);
	turns(&l, 0, 3);
	path = tu_write_str(l.sb.buf);
	t = tree_at(path);
	t->views[0]->epoch = 3;
	t->epoch_next = 4;
	assert_int_equal(lv_mark(t, &m), 0);
	tr_free(t);

	/* Grown: the same epochs. */
	f = fopen(path, "a");
	fputs("{\"type\":\"ai-title\",\"aiTitle\":\"t\",\"sessionId\":\"" TU_SID "\"}\n", f);
	fclose(f);
	t = tree_at(path);
	lv_resume(t, &m);
	assert_int_equal(t->views[0]->epoch, 3);
	assert_int_equal(lv_mark(t, &m), 0);
	tr_free(t);

	/* Closed and opened again unchanged, 14 more times (a walk through a
	 * small cache): no epoch is used up. */
	for (i = 0; i < 14; i++) {
		t = tree_at(path);
		lv_resume(t, &m);
		assert_int_equal(t->views[0]->epoch, 3);
		assert_int_equal(lv_mark(t, &m), 0);
		tr_free(t);
	}

	/* Shrunk (rewritten): an epoch no tree gave yet, the first one (4);
	 * not 3, the old inodes' epoch, which a reopen using one up each time
	 * gave here once the 4 bits wrapped. */
	f = fopen(path, "w");
	fputs(l.sb.buf + l.sb.len / 2, f);
	fclose(f);
	t = tree_at(path);
	lv_resume(t, &m);
	assert_int_equal(t->views[0]->epoch, 4);
	assert_int_equal(t->epoch_next, 5);
	tr_free(t);

	lv_mark_free(&m);
	tu_remove(path);
	tu_log_free(&l);
}

/* Marks a tree of the log at path, signed (sign) or not; closes it. */
static void mark_closed(const char *path, int sign, struct lv_mark *m)
{
	struct tree *t = tree_at(path);

	if (sign)
		while (ss_sign(t->views[0]->s, UINT64_MAX) > 0)
			;
	assert_int_equal(lv_mark(t, m), 0);
	tr_free(t);
}

/* Byte at of the file at path becomes c (a rewrite in place); then line
 * is appended (growth at once, which hides it from a stat). */
static void rewrite_and_grow(const char *path, long at, char c, const char *line)
{
	FILE *f = fopen(path, "r+");

	assert_non_null(f);
	assert_int_equal(fseek(f, at, SEEK_SET), 0);
	fputc(c, f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	fputs(line, f);
	fclose(f);
}

/* The tree of path opened again after m: whether the background check
 * finds its bytes changed, once signed and scrubbed. */
static int found_rewritten(const char *path, const struct lv_mark *m, int *epoch)
{
	struct tree *t = tree_at(path);
	struct session *s = t->views[0]->s;
	int changed;

	lv_resume(t, m);
	*epoch = t->views[0]->epoch;
	while (ss_sign(s, UINT64_MAX) > 0)
		;
	ss_scrub(s, UINT64_MAX);
	changed = ss_changed(s);
	if (changed)
		assert_int_equal(ss_refresh(s), SS_RESET);
	tr_free(t);
	return changed;
}

/*
 * A log rewritten in place and grown while its tree was closed: a stat
 * and the bytes before the old end cannot tell it from growth, so the new
 * tree resumes the epochs; the signature the mark kept makes the
 * background check find the rewrite (and the log is indexed again). A
 * log only grown passes the check. Unsigned bytes are not checked.
 */
static void test_resume_rewritten(void **state)
{
	static const char more[] =
		"{\"type\":\"ai-title\",\"aiTitle\":\"t\",\"sessionId\":\"" TU_SID "\"}\n";
	struct tu_log l;
	struct lv_mark m = { 0 };
	char *path;
	int epoch;

	(void)state;
	tu_log_init(&l);
	turns(&l, 0, 3);
	path = tu_write_str(l.sb.buf);
	mark_closed(path, 1, &m);
	rewrite_and_grow(path, 40, 'X', more);	/* inside the first line */
	assert_true(found_rewritten(path, &m, &epoch));
	assert_int_equal(epoch, m.epochs[0]);	/* taken for growth at first */

	mark_closed(path, 1, &m);
	rewrite_and_grow(path, 0, '{', more);	/* the same byte: only grown */
	assert_false(found_rewritten(path, &m, &epoch));
	assert_int_equal(epoch, m.epochs[0]);

	mark_closed(path, 0, &m);
	rewrite_and_grow(path, 40, 'Y', more);	/* not signed: not told */
	assert_false(found_rewritten(path, &m, &epoch));

	lv_mark_free(&m);
	tu_remove(path);
	tu_log_free(&l);
}

/* How many times errors.txt's notes of t's log say what. */
static int notes_say(struct tree *t, const char *what)
{
	struct sbuf sb;
	const char *p;
	int n = 0;

	sb_init(&sb);
	ss_notes_text(t->views[0]->s, &sb);
	for (p = sb.buf; p && (p = strstr(p, what)); p++)
		n++;
	sb_free(&sb);
	return n;
}

/* A rewrite found while the tree was open, then closed (a small cache
 * closes a session as soon as a walk leaves it): the next tree of the log
 * says it still, once, however often it is closed and opened again. */
static void test_notes_resume(void **state)
{
	static const char more[] =
		"{\"type\":\"ai-title\",\"aiTitle\":\"t\",\"sessionId\":\"" TU_SID "\"}\n";
	static const char said[] = "indexed again from scratch";
	struct tu_log l;
	struct lv_mark m = { 0 };
	struct tree *t;
	char *path;
	int i;

	(void)state;
	tu_log_init(&l);
	turns(&l, 0, 3);
	path = tu_write_str(l.sb.buf);
	t = tree_at(path);
	while (ss_sign(t->views[0]->s, UINT64_MAX) > 0)
		;
	rewrite_and_grow(path, 40, 'X', more);
	assert_int_equal(ss_refresh(t->views[0]->s), SS_GREW);	/* growth, to a stat */
	while (ss_sign(t->views[0]->s, UINT64_MAX) > 0)
		;
	ss_scrub(t->views[0]->s, UINT64_MAX);
	assert_int_equal(ss_refresh(t->views[0]->s), SS_RESET);
	assert_int_equal(notes_say(t, said), 1);
	for (i = 0; i < 3; i++) {
		assert_int_equal(lv_mark(t, &m), 0);
		tr_free(t);
		t = tree_at(path);
		assert_int_equal(notes_say(t, said), 0);
		lv_resume(t, &m);
		assert_int_equal(notes_say(t, said), 1);
	}
	tr_free(t);
	lv_mark_free(&m);
	tu_remove(path);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_custom_title_mid_log),
		cmocka_unit_test(test_generated_then_prompt),
		cmocka_unit_test(test_harness_row_titles_nothing),
		cmocka_unit_test(test_head_and_tail_facts),
		cmocka_unit_test(test_notes_resume),
		cmocka_unit_test(test_epochs_resume),
		cmocka_unit_test(test_resume_rewritten),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
