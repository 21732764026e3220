/*
 * test_tree_line: message files rendered in log order read their lines
 * from a window of the log (tree_line.c) and are what they are rendered
 * alone: the same bytes as a tree that renders them backwards (no window),
 * also for lines longer than a window's share, and after the log was
 * rewritten in place (the window read before does not serve the new
 * index).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "testutil.h"
#include "session.h"
#include "tree_priv.h"

#define ROWS 600

/* ROWS rows, one chain; every 50th text long (past a window's quarter). */
static char *chain_log(char letter)
{
	struct tu_log l;
	struct sbuf x;
	char msg[32];
	int i;

	tu_log_init(&l);
	sb_init(&x);
	for (i = 1; i <= ROWS; i++) {
		sb_reset(&x);
		sb_addf(&x, "row %d ", i);
		while (x.len < (i % 50 ? 200u + (unsigned)i % 300u : 40000u))
			sb_addc(&x, letter);
		snprintf(msg, sizeof(msg), "msg_%d", i);
		if (i % 2)
			tu_user(&l, i, i - 1, x.buf);
		else
			tu_asst(&l, i, i - 1, msg, x.buf);
	}
	sb_free(&x);
	return sb_detach(&l.sb, NULL);
}

/* The text of row i's message file in t (a new string). */
static char *text_of(struct tree *t, int i)
{
	struct session *s = t->views[0]->s;
	struct blob *b;
	char u[37], *out;
	uint64_t ino;

	tu_uuid(i, u);
	ino = tr_vino(t->views[0], TR_INO(TK_MSG, idx_id_find(ss_idx(s), u, strlen(u))));
	assert_int_equal(tr_content(t, ino, &b), 0);
	out = strdup(b->data);
	blob_unref(b);
	return out;
}

/* Every row's file of t, rendered forwards, equals a fresh tree's of
 * path rendered backwards; each holds want's letter. */
static void all_agree(struct tree *t, const char *path, char want)
{
	struct session *s;
	struct tree *back;
	char *fwd[ROWS + 1], *b, mark[] = { want, want, want, '\0' };
	int i;

	for (i = 1; i <= ROWS; i++)
		fwd[i] = text_of(t, i);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_non_null(back = tr_new(s));
	for (i = ROWS; i >= 1; i--) {
		b = text_of(back, i);
		assert_string_equal(fwd[i], b);
		assert_non_null(strstr(b, mark));
		free(b);
		free(fwd[i]);
	}
	tr_free(back);
}

static void test_forwards_is_alone(void **state)
{
	char *log = chain_log('a'), *path = tu_write_str(log), *again, *last;
	struct session *s;
	struct tree *t;
	struct vf_attr a;
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1, 0 } };
	FILE *f;

	int i;

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_non_null(t = tr_new(s));
	all_agree(t, path, 'a');
	tr_free(t);

	/* A window read forwards, up to near the end. */
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_non_null(t = tr_new(s));
	for (i = 1; i < ROWS - 10; i++)
		free(text_of(t, i));

	/* The same size, other bytes, another mtime: indexed again. */
	again = chain_log('b');
	assert_int_equal(strlen(again), strlen(log));
	assert_non_null(f = fopen(path, "r+"));
	assert_int_equal(fwrite(again, 1, strlen(again), f), strlen(again));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_int_equal(tr_getattr(t, TI_ROOT, &a), 0);
	last = text_of(t, ROWS - 5);	/* in the window read before */
	assert_null(strstr(last, "aaa"));
	all_agree(t, path, 'b');
	free(last);

	free(again);
	tr_free(t);
	tu_remove(path);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forwards_is_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
