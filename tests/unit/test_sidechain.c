/*
 * sidechain: the Task subagents a 1.0.x log writes inline (isSidechain
 * rows in the main file), their names, and a part session over each.
 *
 * The logs are written by hand in the shape session-format.md §10 gives
 * for 0.2-1.0.x: no attachments, no last-prompt, sidechain rows between
 * the main thread's, each sidechain starting at a null parent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>

#include "tu_fixture.h"
#include "session.h"
#include "sidechain.h"

static void v1_user(struct tu_v1 *l, int uuid, int parent, int side, const char *text)
{
	struct sbuf m;

	sb_init(&m);
	sb_adds(&m, "{\"role\":\"user\",\"content\":");
	sb_add_json_str(&m, text, strlen(text));
	sb_addc(&m, '}');
	tu_v1_row(l, uuid, parent, side, "user", m.buf);
	sb_free(&m);
}

/* A Task call, a row of the response msg_T (parallel calls share it);
 * with lead, a text block comes first in the same row. */
static void v1_task(struct tu_v1 *l, int uuid, int parent, const char *id,
		    const char *prompt, int lead)
{
	char m[1024];

	snprintf(m, sizeof(m), "{\"id\":\"msg_T\",\"type\":\"message\",\"role\":\"assistant\","
		 "\"model\":\"claude-sonnet-4-20250514\",\"content\":[%s{\"type\":\"tool_use\","
		 "\"id\":\"%s\",\"name\":\"Task\",\"input\":{\"description\":\"d\","
		 "\"prompt\":\"%s\"}}],\"stop_reason\":\"tool_use\"}",
		 lead ? "{\"type\":\"text\",\"text\":\"sending\"}," : "", id, prompt);
	tu_v1_row(l, uuid, parent, 0, "assistant", m);
}

static void v1_result(struct tu_v1 *l, int uuid, int parent, const char *id)
{
	char m[512];

	snprintf(m, sizeof(m), "{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"%s\","
		 "\"type\":\"tool_result\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}]}",
		 id);
	tu_v1_row(l, uuid, parent, 0, "user", m);
}

/*
 * Three Task calls (two with the same prompt), four sidechains: the two
 * "P" conversations pair with the two "P" calls in file order, "Q" with
 * its call, and "Warmup" with none.
 */
static void write_log(struct tu_v1 *l)
{
	sb_init(&l->sb);
	l->sec = 0;
	v1_user(l, 1, 0, 0, "look into it");
	v1_task(l, 2, 1, "toolu_P1", "P", 0);
	v1_task(l, 3, 2, "toolu_Q", "Q", 1);
	v1_task(l, 4, 3, "toolu_P2", "P", 0);
	v1_user(l, 10, 0, 1, "P");
	v1_user(l, 20, 0, 1, "Q");
	tu_v1_text(l, 11, 10, 1, "first P done");
	v1_user(l, 30, 0, 1, "P");
	tu_v1_text(l, 21, 20, 1, "Q done");
	tu_v1_text(l, 31, 30, 1, "second P done");
	v1_user(l, 40, 0, 1, "Warmup");
	tu_v1_text(l, 41, 40, 1, "ready");
	v1_result(l, 5, 2, "toolu_P1");
	v1_result(l, 6, 3, "toolu_Q");
	v1_result(l, 7, 4, "toolu_P2");
	tu_v1_text(l, 8, 7, 0, "all done");
}

static uint64_t hash_of(const char *id)
{
	struct js_str s = { id, strlen(id), 0 };

	return js_hash(&s);
}

static void test_calls_pair_with_sidechains_in_file_order(void **state)
{
	struct tu_v1 l;
	struct tu_fx f;
	struct sc_set *sc;
	const struct sc_agent *a;

	(void)state;
	write_log(&l);
	tu_load(&f, l.sb.buf);
	assert_int_equal(sc_build(f.g, f.lf, &sc), 0);
	assert_int_equal(sc_count(sc), 4);
	assert_string_equal(sc_get(sc, 0)->id, "toolu_P1");
	assert_int_equal(tu_num(&f, sc_get(sc, 0)->root), 10);
	assert_int_equal(sc_get(sc, 0)->rows, 2);
	assert_int_equal(tu_num(&f, sc_get(sc, 0)->call), 2);
	assert_string_equal(sc_get(sc, 1)->id, "toolu_Q");	/* after a text block */
	assert_int_equal(tu_num(&f, sc_get(sc, 1)->root), 20);
	assert_string_equal(sc_get(sc, 2)->id, "toolu_P2");
	assert_int_equal(tu_num(&f, sc_get(sc, 2)->root), 30);
	a = sc_get(sc, 3);			/* no call: named by its root */
	assert_string_equal(a->id, "sidechain-00000040");
	assert_int_equal(a->idlen, strlen("sidechain-00000040"));
	assert_int_equal(a->useid, 0);
	assert_int_equal(a->call, 0);
	assert_string_equal(a->uuid, "00000040-0000-4000-8000-000000000040");
	/* A result finds its conversation by its call's id. */
	assert_ptr_equal(sc_by_use(sc, hash_of("toolu_Q")), sc_get(sc, 1));
	assert_ptr_equal(sc_by_use(sc, gr_node_rec(f.g, tu_id(&f, 7))->useid), sc_get(sc, 2));
	assert_null(sc_by_use(sc, hash_of("toolu_none")));
	assert_null(sc_by_use(sc, 0));
	sc_free(sc);
	/* The main thread's branches and chain hold no sidechain row. */
	assert_int_equal(br_count(f.br), 1);
	assert_string_equal(tu_path(&f, 0), "1 2 3 4 5 6 7 8");
	assert_string_equal(tu_chain(&f), "1 2 3 4 5 6 7 8");
	tu_unload(&f);
	sb_free(&l.sb);
}

/* A call written after the conversation it started still names it; one
 * written before is preferred. */
static void test_a_later_call_is_taken_when_no_earlier_one_fits(void **state)
{
	struct tu_v1 l = { .sec = 0 };
	struct tu_fx f;
	struct sc_set *sc;

	(void)state;
	sb_init(&l.sb);
	v1_user(&l, 1, 0, 0, "go");
	v1_user(&l, 10, 0, 1, "late");
	tu_v1_text(&l, 11, 10, 1, "ok");
	v1_task(&l, 2, 1, "toolu_late", "late", 0);
	v1_result(&l, 3, 2, "toolu_late");
	tu_load(&f, l.sb.buf);
	assert_int_equal(sc_build(f.g, f.lf, &sc), 0);
	assert_int_equal(sc_count(sc), 1);
	assert_string_equal(sc_get(sc, 0)->id, "toolu_late");
	sc_free(sc);
	tu_unload(&f);
	sb_free(&l.sb);
}

/* How many inline sidechains the log l holds. */
static uint32_t count_of(const struct tu_log *l)
{
	struct tu_fx f;
	struct sc_set *sc;
	uint32_t n;

	tu_load_log(&f, l);
	assert_int_equal(sc_build(f.g, f.lf, &sc), 0);
	n = sc_count(sc);
	sc_free(sc);
	tu_unload(&f);
	return n;
}

static void test_logs_without_inline_sidechains_have_none(void **state)
{
	struct tu_log l;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	tu_asst(&l, 2, 1, "m1", "hello");
	assert_int_equal(count_of(&l), 0);
	/* A subagent's own log: every row a sidechain, the log's own thread. */
	l.sidechain = 1;
	sb_reset(&l.sb);
	tu_user(&l, 1, 0, "find it");
	tu_asst(&l, 2, 1, "m1", "found");
	assert_int_equal(count_of(&l), 0);
	/* The same rows under a main-thread row: one inline sidechain. */
	l.sidechain = 0;
	tu_user(&l, 3, 0, "main");
	assert_int_equal(count_of(&l), 1);
	tu_log_free(&l);
}

static void test_keep_marks_one_conversation(void **state)
{
	struct tu_v1 l;
	struct tu_fx f;
	uint8_t *keep;
	uint32_t i, n = 0;

	(void)state;
	write_log(&l);
	tu_load(&f, l.sb.buf);
	assert_int_equal(sc_keep(f.g, tu_id(&f, 20), &keep), 0);
	for (i = 0; i < idx_nrecs(f.ix); i++)
		if (keep[i]) {
			int num = tu_num(&f, idx_rec(f.ix, i)->uuid);

			assert_true(num == 20 || num == 21);
			n++;
		}
	assert_int_equal(n, 2);
	free(keep);
	/* Not a root of a sidechain: nothing. */
	assert_int_equal(sc_keep(f.g, tu_id(&f, 21), &keep), 0);
	for (i = 0; i < idx_nrecs(f.ix); i++)
		assert_int_equal(keep[i], 0);
	free(keep);
	assert_int_equal(sc_keep(f.g, tu_id(&f, 1), &keep), 0);
	for (i = 0; i < idx_nrecs(f.ix); i++)
		assert_int_equal(keep[i], 0);
	free(keep);
	tu_unload(&f);
	sb_free(&l.sb);
}

static char *errors_of(const struct session *s)
{
	struct sbuf sb;

	sb_init(&sb);
	ss_errors_text(s, &sb);
	return sb_detach(&sb, NULL);
}

/* A part is a session of its own: its rows only, the rest left out. */
static void test_a_part_holds_its_conversation_only(void **state)
{
	struct tu_v1 l;
	struct session *main_s, *part;
	const struct sc_set *sc;
	char *path, *errs;
	uint32_t *ids, n, k;

	(void)state;
	write_log(&l);
	sb_adds(&l.sb, "not json\n");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &main_s), 0);
	sc = ss_sidechains(main_s);
	assert_int_equal(sc_count(sc), 4);
	assert_int_equal(ss_open_part(main_s, sc_get(sc, 1)->uuid, &part), 0);
	assert_string_equal(ss_part(part), sc_get(sc, 1)->uuid);
	assert_int_equal(br_count(ss_branches(part)), 1);
	assert_int_equal(br_path(ss_branches(part), 0, &ids, &n), 0);
	assert_int_equal(n, 2);
	for (k = 0; k < n; k++)
		assert_true(gr_node_rec(ss_graph(part), ids[k])->flags & IDX_F_SIDECHAIN);
	free(ids);
	assert_int_equal(ss_chain(part)->n, 2);
	assert_non_null(ss_context(part));
	assert_int_equal(ctx_nmessages(ss_context(part)), 2);
	assert_int_equal(sc_count(ss_sidechains(part)), 0);
	assert_null(ss_title(part));
	/* The log's bad line is the whole log's, not the part's. */
	errs = errors_of(part);
	assert_null(strstr(errs, "not JSON"));
	free(errs);
	errs = errors_of(main_s);
	assert_non_null(strstr(errs, "line 17"));
	free(errs);
	ss_close(part);
	/* A root the log does not hold gives an empty part. */
	assert_int_equal(ss_open_part(main_s, "no-such-root", &part), 0);
	assert_int_equal(br_count(ss_branches(part)), 0);
	ss_close(part);
	ss_close(main_s);
	tu_remove(path);
	sb_free(&l.sb);
}

/* Each agent's part holds as many rows as the set counts, all sidechain
 * rows; here one uuid is a sidechain row's and then a main-thread row's. */
static void check_parts(const char *log, size_t len)
{
	char *path = tu_write(log, len);
	struct session *whole, *part;
	const struct sc_set *sc;
	const uint32_t *order;
	uint32_t i, k, n;

	assert_int_equal(ss_open(path, SS_COMPLETE, &whole), 0);
	sc = ss_sidechains(whole);
	for (i = 0; i < sc_count(sc); i++) {
		assert_int_equal(ss_open_part(whole, sc_get(sc, i)->uuid, &part), 0);
		order = gr_nodes(ss_graph(part), &n);
		assert_int_equal(n, sc_get(sc, i)->rows);
		for (k = 0; k < n; k++)
			assert_true(gr_node_rec(ss_graph(part), order[k])->flags & IDX_F_SIDECHAIN);
		ss_close(part);
	}
	ss_close(whole);
	tu_remove(path);
}

static void test_a_uuid_reused_off_the_sidechain(void **state)
{
	static const char raw[] =
		"{\"\":\"Fes\",\"leafuid\":null,\"isSidechain\":true,\"userType\":\"198\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"Ruine.\"},\"uuid\":\"00000014-1000-4000-8000-000000000014\",\"ti\":\"2025-0806.000Z\"}\n"
		"{\"partUuid\":false,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"after progress\"},\"sentAsUuid\":\"00\",\"sage\":{\"role\":\"userepor\000\011ea\"},\"uuid\":\"00000014-1000-4000-8000-000000000014\",\"ori\":\"20100:19.000Z\"}\n";
	struct tu_v1 l = { { 0 }, 0 };

	(void)state;
	sb_init(&l.sb);
	v1_user(&l, 1, 0, 0, "main");
	v1_user(&l, 20, 0, 1, "side root");
	v1_user(&l, 21, 20, 1, "side two");
	v1_user(&l, 20, 1, 0, "the root's uuid again, on the main thread");
	check_parts(l.sb.buf, l.sb.len);
	sb_reset(&l.sb);
	v1_user(&l, 20, 0, 1, "side root first");
	v1_user(&l, 20, 0, 0, "then the same uuid, main thread");
	check_parts(l.sb.buf, l.sb.len);
	sb_free(&l.sb);
	/* As fuzz_session found it (tests/fuzz/seeds/dup-uuid-sidechain.jsonl):
	 * rows without a parentUuid, the main-thread copy with odd keys. */
	check_parts(raw, sizeof(raw) - 1);
}

/* A part follows its whole as the log grows: rows appended to its
 * conversation show up. */
static void test_a_part_grows_with_the_log(void **state)
{
	struct tu_v1 l, more = { .sec = 50 };
	struct session *whole, *part;
	char *path;
	int fd;

	(void)state;
	write_log(&l);
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_LIVE, &whole), 0);
	assert_int_equal(ss_open_part(whole, "00000040-0000-4000-8000-000000000040", &part), 0);
	/* Its index holds its own rows only. */
	assert_int_equal(idx_nrecs(ss_idx(part)), 2);
	assert_int_equal(idx_end(ss_idx(part)), idx_end(ss_idx(whole)));
	assert_int_equal(ss_chain(part)->n, 2);
	assert_int_equal(ss_part_follow(part, whole), SS_SAME);
	/* A part never looks at the log itself: its whole does. */
	assert_int_equal(ss_refresh(part), -EINVAL);
	sb_init(&more.sb);
	v1_user(&more, 42, 41, 1, "and then?");
	tu_v1_text(&more, 43, 42, 1, "then this");
	tu_v1_text(&more, 9, 8, 0, "main goes on");
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, more.sb.buf, more.sb.len), (ssize_t)more.sb.len);
	close(fd);
	assert_false(ss_changed(part));
	assert_false(ss_part_behind(part, whole));
	assert_int_equal(ss_refresh(whole), SS_GREW);
	assert_true(ss_part_behind(part, whole));
	assert_int_equal(ss_part_follow(part, whole), SS_GREW);
	assert_false(ss_part_behind(part, whole));
	assert_int_equal(ss_chain(part)->n, 4);
	/* It took its own new rows, not the main thread's. */
	assert_int_equal(idx_nrecs(ss_idx(part)), 4);
	assert_int_equal(gr_node_rec(ss_graph(part), ss_chain(part)->leaf)->type,
			 IDX_T_ASSISTANT);
	assert_int_equal(br_count(ss_branches(part)), 1);
	/* A row of its own whole but for its newline, which comes alone: the
	 * row is read at once, and the newline is growth too (the log's size
	 * in session.json), with no record more. */
	sb_reset(&more.sb);
	tu_v1_text(&more, 44, 43, 1, "last");
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, more.sb.buf, more.sb.len - 1), (ssize_t)more.sb.len - 1);
	assert_int_equal(ss_refresh(whole), SS_GREW);
	assert_int_equal(ss_part_follow(part, whole), SS_GREW);
	assert_int_equal(ss_chain(part)->n, 5);
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	assert_int_equal(ss_refresh(whole), SS_GREW);
	assert_true(ss_part_behind(part, whole));
	assert_int_equal(ss_part_follow(part, whole), SS_GREW);
	assert_false(ss_part_behind(part, whole));
	assert_int_equal(ss_chain(part)->n, 5);
	assert_int_equal(idx_end(ss_idx(part)), idx_end(ss_idx(whole)));
	ss_close(part);
	ss_close(whole);
	tu_remove(path);
	sb_free(&more.sb);
	sb_free(&l.sb);
}

/* A part is indexed again when its whole is, and only then: it reads the
 * file the whole reads, even once another took the log's path. */
static void test_a_part_is_indexed_again_with_its_whole(void **state)
{
	struct tu_v1 l, other;
	struct session *whole, *part;
	const char *root = "00000030-0000-4000-8000-000000000030";
	char *path, *errs, *tmp;

	(void)state;
	write_log(&l);
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_LIVE, &whole), 0);
	assert_int_equal(ss_open_part(whole, root, &part), 0);
	assert_int_equal(ss_chain(part)->n, 2);
	/* Another file renamed over the log: the part keeps what it has
	 * until its whole has seen it. */
	write_log(&other);
	v1_user(&other, 32, 31, 1, "and more");
	tmp = tu_write_str(other.sb.buf);
	assert_int_equal(rename(tmp, path), 0);
	assert_false(ss_changed(part));
	assert_false(ss_part_behind(part, whole));
	assert_int_equal(ss_chain(part)->n, 2);
	assert_int_equal(ss_refresh(whole), SS_RESET);
	assert_true(ss_part_behind(part, whole));
	assert_int_equal(ss_part_follow(part, whole), SS_RESET);
	assert_int_equal(ss_part_follow(part, whole), SS_SAME);
	assert_int_equal(ss_chain(part)->n, 3);
	errs = errors_of(part);
	assert_non_null(strstr(errs, "this inline sidechain with it"));
	free(errs);
	/* The part outlives its whole, and reads the new file. */
	ss_close(whole);
	assert_non_null(ss_context(part));
	/* its three rows, and the reply a resume adds to the last prompt */
	assert_int_equal(ctx_nmessages(ss_context(part)), 4);
	ss_close(part);
	free(tmp);
	tu_remove(path);
	sb_free(&other.sb);
	sb_free(&l.sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_pair_with_sidechains_in_file_order),
		cmocka_unit_test(test_a_later_call_is_taken_when_no_earlier_one_fits),
		cmocka_unit_test(test_logs_without_inline_sidechains_have_none),
		cmocka_unit_test(test_keep_marks_one_conversation),
		cmocka_unit_test(test_a_part_holds_its_conversation_only),
		cmocka_unit_test(test_a_uuid_reused_off_the_sidechain),
		cmocka_unit_test(test_a_part_is_indexed_again_with_its_whole),
		cmocka_unit_test(test_a_part_grows_with_the_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
