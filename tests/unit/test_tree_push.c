/*
 * A message file handed to the kernel's page cache (tr_claim_push(), then
 * tr_pushed() once the kernel took it): claimed once, and its text leaves
 * the render cache only when the kernel holds it. A file claimed but not
 * taken (too big to push, or the store failed) stays cached, so its reads
 * do not render it again. A record's file in records/ is claimed once too,
 * apart from its message file; other files are not claimed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "session.h"
#include "tree_priv.h"

static char *two_rows(void)
{
	char u1[37], u2[37], *log;

	tu_uuid(1, u1);
	tu_uuid(2, u2);
	assert_true(asprintf(&log,
		"{\"type\":\"user\",\"uuid\":\"%s\",\"parentUuid\":null,\"sessionId\":\"s\","
		"\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hello\"}}\n"
		"{\"type\":\"assistant\",\"uuid\":\"%s\",\"parentUuid\":\"%s\",\"sessionId\":\"s\","
		"\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"role\":\"assistant\",\"id\":\"m1\","
		"\"content\":[{\"type\":\"text\",\"text\":\"hi there\"}]}}\n", u1, u2, u1) > 0);
	return log;
}

static void test_pushed_text_leaves_the_cache_only_when_taken(void **state)
{
	char *log = two_rows(), *path = tu_write_str(log), u[37], *first;
	struct session *s;
	struct tree *t;
	struct blob *b;
	uint64_t ino;
	size_t before;

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_non_null(t = tr_new(s));
	tu_uuid(2, u);
	ino = tr_vino(t->views[0], TR_INO(TK_MSG, idx_id_find(ss_idx(s), u, strlen(u))));

	assert_int_equal(tr_claim_push(t, ino), 1);
	assert_int_equal(tr_claim_push(t, ino), 0);	/* once */
	before = tr_cached_bytes(t);
	assert_int_equal(tr_content(t, ino, &b), 0);
	first = strdup(b->data);
	blob_unref(b);
	assert_true(tr_cached_bytes(t) > before);	/* claimed, not taken: kept */

	tr_pushed(t, ino);
	assert_int_equal(tr_cached_bytes(t), before);	/* the kernel holds it */
	assert_int_equal(tr_content(t, ino, &b), 0);	/* rendered again, the same */
	assert_string_equal(b->data, first);
	blob_unref(b);

	free(first);
	tr_free(t);
	tu_remove(path);
	free(log);
}

static void test_record_files_are_claimed_apart(void **state)
{
	char *log = two_rows(), *path = tu_write_str(log), u[37];
	struct session *s;
	struct tree *t;
	uint32_t id;

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_non_null(t = tr_new(s));
	tu_uuid(1, u);
	id = idx_id_find(ss_idx(s), u, strlen(u));
	assert_int_equal(tr_claim_push(t, tr_vino(t->views[0], TR_INO(TK_REC, id))), 1);
	assert_int_equal(tr_claim_push(t, tr_vino(t->views[0], TR_INO(TK_REC, id))), 0);
	assert_int_equal(tr_claim_push(t, tr_vino(t->views[0], TR_INO(TK_MSG, id))), 1);
	assert_int_equal(tr_claim_push(t, tr_vino(t->views[0], TR_INO(TK_MSG, id))), 0);
	assert_int_equal(tr_claim_push(t, tr_vino(t->views[0], TR_INO(TK_STATE, 1))), 0);
	tr_free(t);
	tu_remove(path);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pushed_text_leaves_the_cache_only_when_taken),
		cmocka_unit_test(test_record_files_are_claimed_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
