/*
 * test_tree_parts: the tree's views of an inline sidechain (a 1.0.x
 * subagent written into the session's own log, agents/<name>/: a part of
 * the log, session.h) follow the session when its log is rewritten: a
 * message file's size (getattr) and its bytes (a read) come from the same
 * indexing, also when the rewrite was seen by the session's view and more
 * was appended before the part's view looked. A reset is one event for
 * the session and its parts (one new epoch for all), and a part asked for
 * later never indexes the session's view again: it follows it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>

#include "testutil.h"
#include "session.h"
#include "tree_priv.h"

/* A main thread that sends a Task "P", and the sidechain that answers. */
static void write_log(struct tu_v1 *l)
{
	tu_v1_row(l, 1, 0, 0, "user", "{\"role\":\"user\",\"content\":\"look into it\"}");
	tu_v1_row(l, 2, 1, 0, "assistant", "{\"id\":\"msg_T\",\"type\":\"message\",\"role\":"
	    "\"assistant\",\"model\":\"claude-sonnet-4-20250514\",\"content\":[{\"type\":"
	    "\"tool_use\",\"id\":\"toolu_P\",\"name\":\"Task\",\"input\":{\"description\":"
	    "\"d\",\"prompt\":\"P\"}}],\"stop_reason\":\"tool_use\"}");
	tu_v1_row(l, 10, 0, 1, "user", "{\"role\":\"user\",\"content\":\"P\"}");
	tu_v1_text(l, 11, 10, 1, "first P done");
	tu_v1_row(l, 5, 2, 0, "user", "{\"role\":\"user\",\"content\":[{\"tool_use_id\":"
	    "\"toolu_P\",\"type\":\"tool_result\",\"content\":\"done\"}]}");
	tu_v1_text(l, 8, 5, 0, "all done");
}

static struct view *part_view(struct tree *t)
{
	uint32_t k;

	for (k = 1; k < t->nviews; k++)
		if (t->views[k]->root)
			return t->views[k];
	fail_msg("no view of the inline sidechain");
	return NULL;
}

/* The message file of row uuid in v: its getattr size and its bytes
 * agree; the bytes in *out (a new string). */
static void read_msg(struct tree *t, struct view *v, int uuid, char **out)
{
	char u[37];
	uint32_t id;
	uint64_t ino;
	struct vf_attr a;
	struct blob *b;

	tu_uuid(uuid, u);
	id = idx_id_find(ss_idx(v->s), u, strlen(u));
	assert_true(gr_is_node(ss_graph(v->s), id));
	ino = tr_vino(v, TR_INO(TK_MSG, id));
	assert_int_equal(tr_getattr(t, ino, &a), 0);
	assert_int_equal(tr_content(t, ino, &b), 0);
	assert_int_equal((long long)a.st.st_size, (long long)b->len);
	*out = strdup(b->data);
	blob_unref(b);
}

static void look(struct tree *t, struct view *v)
{
	struct vf_attr a;

	assert_int_equal(tr_getattr(t, tr_vino(v, TI_ROOT), &a), 0);
}

/* Appends l's rows to the log at path. */
static void append(const char *path, struct tu_v1 *l)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, l->sb.buf, l->sb.len), (ssize_t)l->sb.len);
	close(fd);
}

static void test_a_part_is_indexed_again_with_its_session(void **state)
{
	static const char from[] = "first P done", to[] = "a\",\"b\":\"cdef";
	struct tu_v1 l = { .sec = 0 }, more = { .sec = 50 };
	struct session *s;
	struct tree *t;
	struct view *v;
	struct blob *errs;
	char *path, *before, *after, *at;
	uint8_t epoch;
	int fd;

	(void)state;
	sb_init(&l.sb);
	sb_init(&more.sb);
	write_log(&l);
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_non_null(t = tr_new(s));
	v = part_view(t);
	read_msg(t, v, 11, &before);		/* its size is known now */
	assert_non_null(strstr(before, from));

	/* The row rewritten in place (the same size, other text), seen by
	 * the session's view; then more is appended before the part's view
	 * looks: growth alone would not tell it. */
	at = strstr(l.sb.buf, from);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, to, strlen(to), at - l.sb.buf), (ssize_t)strlen(to));
	close(fd);
	look(t, t->views[0]);
	epoch = t->views[0]->epoch;
	assert_int_not_equal(epoch, 0);		/* indexed again */
	assert_int_equal(v->epoch, epoch);	/* and the part with it, at once */
	tu_v1_text(&more, 9, 8, 0, "main goes on");
	append(path, &more);
	look(t, v);
	/* The part's look brought the session's view up to the log: growth,
	 * not a second reset of either. */
	assert_int_equal(t->views[0]->epoch, epoch);
	assert_int_equal(v->epoch, epoch);
	assert_false(ss_part_behind(v->s, t->views[0]->s));

	read_msg(t, v, 11, &after);
	assert_null(strstr(after, from));
	assert_int_equal(tr_content(t, tr_vino(v, TI_ERRORS), &errs), 0);
	assert_non_null(strstr(errs->data, "indexed again"));
	blob_unref(errs);
	free(before);
	free(after);
	tr_free(t);
	tu_remove(path);
	sb_free(&more.sb);
	sb_free(&l.sb);
}

/* A Task result written before the conversation it ran (pairs only once
 * the log grew): its message file, read before, names the agent after,
 * its size and bytes agreeing. */
static void test_a_result_names_a_sidechain_written_after_it(void **state)
{
	struct tu_v1 l = { .sec = 0 }, more = { .sec = 50 };
	struct session *s;
	struct tree *t;
	char *path, *before, *after;

	(void)state;
	sb_init(&l.sb);
	sb_init(&more.sb);
	write_log(&l);
	l.sb.len = (size_t)(strstr(l.sb.buf, "\n{\"parentUuid\":null,\"isSidechain\":true") + 1 -
			    l.sb.buf);		/* the main thread's first two rows */
	tu_v1_row(&l, 5, 2, 0, "user", "{\"role\":\"user\",\"content\":[{\"tool_use_id\":"
		  "\"toolu_P\",\"type\":\"tool_result\",\"content\":\"done\"}]}");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_non_null(t = tr_new(s));
	read_msg(t, t->views[0], 5, &before);
	assert_null(strstr(before, "agent: agents/"));

	tu_v1_row(&more, 10, 0, 1, "user", "{\"role\":\"user\",\"content\":\"P\"}");
	tu_v1_text(&more, 11, 10, 1, "P done");
	append(path, &more);
	look(t, t->views[0]);
	read_msg(t, t->views[0], 5, &after);
	assert_non_null(strstr(after, "agent: agents/toolu_P"));
	free(before);
	free(after);
	tr_free(t);
	tu_remove(path);
	sb_free(&more.sb);
	sb_free(&l.sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_part_is_indexed_again_with_its_session),
		cmocka_unit_test(test_a_result_names_a_sidechain_written_after_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
