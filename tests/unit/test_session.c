/*
 * session: opening a log, refreshing it, session.json and errors.txt.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "tu_session.h"
#include "session.h"
#include "plat.h"

static void append_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
}

static const char *fstr(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	assert_non_null(v);
	if (cJSON_IsNull(v))
		return "(null)";
	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static double fnum(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	assert_non_null(v);
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static char *errors_text(const struct session *s)
{
	struct sbuf sb;

	sb_init(&sb);
	ss_errors_text(s, &sb);
	return sb_detach(&sb, NULL);
}

/* Whether errors.txt says what (1) or not (0), as want says. */
static void errors_say(const struct session *s, const char *what, int want)
{
	char *text = errors_text(s);

	assert_int_equal(strstr(text, what) != NULL, want);
	free(text);
}

static void test_facts_json_on_a_forked_log(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path, real[PATH_MAX];
	struct stat st;
	cJSON *j;

	(void)state;
	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"queue-operation\",\"operation\":\"enqueue\","
		"\"timestamp\":\"2026-01-01T09:59:59.500Z\",\"sessionId\":\"" TU_SID "\"}");
	tu_user(&l, 1, 0, "What is in this repo?");
	tu_asst(&l, 2, 1, "msg_1", "A todo app.");
	tu_user(&l, 3, 2, "Add a done command.");
	tu_asst(&l, 4, 3, "msg_2", "Added.");
	tu_line(&l, "garbage");
	tu_user(&l, 5, 2, "Add a delete command instead.");
	tu_asst(&l, 6, 5, "msg_3", "Added delete.");
	tu_attach(&l, 7, 6, "prompt_snapshot");
	tu_last_prompt(&l, 7, 0);
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	j = tu_facts(s);

	assert_string_equal(fstr(j, "sessionId"), TU_SID);
	assert_string_equal(fstr(j, "cwd"), "/home/user/src/app");
	assert_string_equal(fstr(j, "gitBranch"), "main");
	assert_string_equal(fstr(j, "version"), "2.1.328");
	assert_non_null(realpath(path, real));
	assert_string_equal(fstr(j, "source"), real);
	assert_int_equal(stat(path, &st), 0);
	assert_true(fnum(j, "bytes") == (double)st.st_size);
	assert_true(fnum(j, "lines") == 10);
	assert_true(fnum(j, "records") == 9);
	assert_true(fnum(j, "badLines") == 1);
	assert_true(fnum(j, "messages") == 7);
	assert_true(fnum(j, "branches") == 2);
	assert_string_equal(fstr(j, "currentBranch"), "fork-000003-00000005");
	assert_string_equal(fstr(j, "currentLeaf"), "00000007-0000-4000-8000-000000000007");
	assert_string_equal(fstr(j, "leafMessage"), "00000006-0000-4000-8000-000000000006");
	assert_true(fnum(j, "compactions") == 0);
	assert_string_equal(fstr(j, "firstTimestamp"), "2026-01-01T09:59:59.500Z");
	assert_string_equal(fstr(j, "lastTimestamp"), "2026-01-01T10:00:06.000Z");
	assert_int_equal(ss_current_branch(s), br_find(ss_branches(s), "fork-000003-00000005"));
	cJSON_Delete(j);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_facts_json_counts_compactions(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path;
	cJSON *j;
	int k, u = 2;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "start");
	tu_asst(&l, 2, 1, "m0", "ok");
	for (k = 0; k < 3; k++) {
		tu_boundary(&l, u + 1, u, 0, NULL, 0);
		tu_summary(&l, u + 2, u + 1);
		u += 2;
	}
	l.sidechain = 1;
	tu_boundary(&l, 90, 0, 0, NULL, 0);	/* a subagent's: not counted */
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	j = tu_facts(s);
	assert_true(fnum(j, "compactions") == 3);
	assert_true(fnum(j, "branches") == 1);
	assert_string_equal(fstr(j, "currentBranch"), "main");
	assert_string_equal(fstr(j, "leafMessage"), "00000008-0000-4000-8000-000000000008");
	cJSON_Delete(j);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_dead_ends_in_facts_and_window(void **state)
{
	struct tu_log l;
	struct session *s;
	struct sbuf sb;
	const cJSON *d, *e;
	char *path;
	cJSON *j;

	(void)state;
	tu_log_init(&l);	/* a killed /compact's summary off the repair row 4 */
	tu_user(&l, 1, 0, "q1");
	tu_asst(&l, 2, 1, "m1", "a1");
	tu_user(&l, 3, 2, "q2");
	tu_asst(&l, 4, 3, "m2", "No response requested.");
	tu_summary(&l, 5, 4);
	tu_user(&l, 6, 4, "q3");
	tu_asst(&l, 7, 6, "m3", "a3");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	j = tu_facts(s);
	assert_true(fnum(j, "branches") == 1);
	d = cJSON_GetObjectItemCaseSensitive(j, "deadEnds");
	assert_int_equal(cJSON_GetArraySize(d), 1);
	e = cJSON_GetArrayItem(d, 0);
	assert_string_equal(fstr(e, "first"), "00000005-0000-4000-8000-000000000005");
	assert_string_equal(fstr(e, "from"), "00000004-0000-4000-8000-000000000004");
	assert_string_equal(fstr(e, "reason"), "side");
	assert_true(fnum(e, "line") == 5 && fnum(e, "rows") == 1);
	sb_init(&sb);
	ss_window_md(s, &sb);
	assert_non_null(strstr(sb.buf, "## Dead ends (on no branch)\n\n- line 5, "
				       "00000005-0000-4000-8000-000000000005, 1 row off "
				       "00000004-0000-4000-8000-000000000004: no conversation rows"));
	sb_free(&sb);
	cJSON_Delete(j);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_errors_text_lists_lines_in_order(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path, *text;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");					/* 1 */
	tu_line(&l, "{\"type\":\"user\",\"uuid\":");		/* 2 */
	tu_line(&l, "");					/* 3 */
	tu_asst(&l, 2, 1, "m", "b");				/* 4 */
	tu_asst(&l, 2, 1, "m", "b again");			/* 5 */
	tu_user(&l, 3, 77, "lost");				/* 6 */
	tu_row(&l, "assistant", 4, 3, "\"message\":[]");	/* 7 */
	tu_user(&l, 5, 5, "self");				/* 8 */
	tu_line(&l, "[1]");					/* 9 */
	tu_row(&l, "user", 6, 2, "\"message\":{\"content\":\"x\"},\"sentAsUuid\":\"\"");
	sb_adds(&l.sb, "{\"type\":\"user\",\"uu");		/* 11, torn */
	path = tu_write_str(l.sb.buf);

	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	text = errors_text(s);
	assert_string_equal(text,
		"line 2: not JSON (at byte 15)\n"
		"line 3: blank line\n"
		"line 5: duplicate uuid 00000002-0000-4000-8000-000000000002: this copy "
		"replaces the one at line 4, which keeps its place\n"
		"line 6: parent 00000077-0000-4000-8000-000000000077 not found; the record "
		"starts a path of its own\n"
		"line 7: record dropped by the loader's repair (no message object); its "
		"children hang off its parent\n"
		"line 8: record names itself as parent; treated as a root\n"
		"line 9: JSON but not an object\n"
		"line 10: a uuid field is empty, too long or holds NUL; ignored\n"
		"line 11: torn last line (no newline, incomplete JSON) (at byte 15)\n");
	/* the torn line is unfinished, not bad: as a live mount counts it */
	assert_int_equal(ss_bad_lines(s), 3);
	assert_int_equal(ss_unfinished(s), 18);
	free(text);
	ss_close(s);

	/* a live log: the torn line waits */
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	text = errors_text(s);
	assert_non_null(strstr(text, "line 10: a uuid field"));
	assert_null(strstr(text, "line 11"));
	assert_non_null(strstr(text, "note: 18 bytes after line 10 wait for a newline"));
	assert_int_equal(ss_bad_lines(s), 3);
	assert_int_equal(ss_unfinished(s), 18);
	free(text);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_errors_text_reports_cycles(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path, *text;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 2, "a");
	tu_asst(&l, 2, 1, "m", "b");
	tu_boundary(&l, 3, 99, 0, NULL, 0);
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	text = errors_text(s);
	assert_string_equal(text,
		"line 2: cycle in parentUuid links; cut above this record\n"
		"line 3: compact boundary's logicalParentUuid "
		"00000099-0000-4000-8000-000000000099 not found\n");
	free(text);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_clean_log_has_no_errors(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path, *text;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m", "b");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	text = errors_text(s);
	assert_string_equal(text, "");
	assert_int_equal(ss_bad_lines(s), 0);
	free(text);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* An empty file is a session with nothing written yet, in both modes (a
 * mount and --check agree); a file of lines none of which is a record is
 * not a session. */
static void test_empty_file_is_an_empty_session(void **state)
{
	struct session *s = (struct session *)1;
	char *path = tu_write_str("");
	cJSON *j;

	(void)state;
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	j = tu_facts(s);
	assert_true(fnum(j, "records") == 0);
	assert_true(fnum(j, "badLines") == 0);
	assert_true(fnum(j, "unfinishedLastLine") == 0);
	assert_true(fnum(j, "branches") == 0);
	cJSON_Delete(j);
	ss_close(s);
	tu_remove(path);
	s = (struct session *)1;
	path = tu_write_str("garbage\n\n[1,2]\n{\"a\":1}\n");
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), -ENOMSG);
	assert_null(s);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), -ENOMSG);
	tu_remove(path);
	/* an unknown type without a sessionId is not Claude Code's either */
	path = tu_write_str("{\"type\":\"whatever\"}\n");
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), -ENOMSG);
	tu_remove(path);
}

static void test_empty_live_file_opens_and_fills(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path = tu_write_str("");

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_int_equal(br_count(ss_branches(s)), 0);
	assert_int_equal(ss_current_branch(s), -1);
	assert_int_equal(ss_refresh(s), 0);
	tu_log_init(&l);
	tu_user(&l, 1, 0, "first prompt");
	append_str(path, l.sb.buf);
	assert_int_equal(ss_refresh(s), 1);
	assert_int_equal(br_count(ss_branches(s)), 1);
	assert_int_equal(ss_current_branch(s), 0);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_metadata_only_file_opens_without_branches(void **state)
{
	struct session *s;
	char *path = tu_write_str(
		"{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"sessionId\":\"" TU_SID "\"}\n"
		"{\"type\":\"custom-title\",\"customTitle\":\"Fix the build\",\"sessionId\":\"" TU_SID "\"}\n"
		"{\"type\":\"last-prompt\",\"leafUuid\":null,\"sessionId\":\"" TU_SID "\"}\n");
	cJSON *j;

	(void)state;
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_int_equal(br_count(ss_branches(s)), 0);
	assert_int_equal(ss_current_branch(s), -1);
	assert_int_equal(ss_chain(s)->leaf, 0);
	assert_int_equal(ss_chain(s)->attach, 0);
	j = tu_facts(s);
	assert_true(fnum(j, "branches") == 0);
	assert_true(fnum(j, "messages") == 0);
	assert_true(fnum(j, "records") == 3);
	assert_string_equal(fstr(j, "sessionId"), TU_SID);
	assert_string_equal(fstr(j, "currentBranch"), "(null)");
	assert_string_equal(fstr(j, "currentLeaf"), "(null)");
	assert_string_equal(fstr(j, "leafMessage"), "(null)");
	assert_string_equal(fstr(j, "firstTimestamp"), "(null)");
	cJSON_Delete(j);
	ss_close(s);
	tu_remove(path);
}

static void test_open_refuses_directories_and_missing_files(void **state)
{
	struct session *s;
	char dir[] = "/tmp/sessfs-test-dir-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ss_open(dir, SS_COMPLETE, &s), -EISDIR);
	assert_null(s);
	rmdir(dir);
	assert_int_equal(ss_open("/nonexistent/sessfs.jsonl", SS_LIVE, &s), -ENOENT);
}

static void test_refresh_picks_up_a_completed_torn_line(void **state)
{
	struct tu_log l, tail;
	struct session *s;
	char *path, *text;
	size_t cut;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m", "b");
	cut = l.sb.len;
	tu_user(&l, 3, 2, "c");
	tu_log_init(&tail);
	sb_adds(&tail.sb, l.sb.buf + cut + 20);
	l.sb.len = cut + 20;
	l.sb.buf[l.sb.len] = '\0';
	path = tu_write_str(l.sb.buf);

	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_int_equal(idx_nrecs(ss_idx(s)), 2);
	assert_int_equal(ss_bad_lines(s), 0);
	text = errors_text(s);
	assert_non_null(strstr(text, "note: 20 bytes after line 2 wait for a newline"));
	free(text);
	append_str(path, tail.sb.buf);
	assert_int_equal(ss_refresh(s), 1);
	assert_int_equal(idx_nrecs(ss_idx(s)), 3);
	text = errors_text(s);
	assert_string_equal(text, "");
	free(text);
	assert_int_equal(ss_refresh(s), 0);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
	tu_log_free(&tail);
}

static void test_refresh_moves_the_current_branch(void **state)
{
	struct tu_log l, more;
	struct session *s;
	char *path;
	const struct br_set *bs;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m1", "b");
	tu_user(&l, 3, 2, "c");
	tu_asst(&l, 4, 3, "m2", "d");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_int_equal(br_count(ss_branches(s)), 1);

	tu_log_init(&more);
	tu_at(&more, l.ms);
	tu_user(&more, 5, 2, "edited prompt");
	tu_asst(&more, 6, 5, "m3", "e");
	append_str(path, more.sb.buf);
	assert_int_equal(ss_refresh(s), 1);
	bs = ss_branches(s);
	assert_int_equal(br_count(bs), 2);
	assert_int_equal(ss_current_branch(s), br_find(bs, "fork-000003-00000005"));
	assert_int_equal(br_find(bs, "main"), 0);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
	tu_log_free(&more);
}

static void test_deep_json_row_loses_nothing_else(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path;
	cJSON *j;
	int i;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	sb_adds(&l.sb, "{\"parentUuid\":\"00000001-0000-4000-8000-000000000001\","
		"\"type\":\"assistant\",\"uuid\":\"00000002-0000-4000-8000-000000000002\","
		"\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\","
		"\"name\":\"Bash\",\"input\":");
	for (i = 0; i < 100000; i++)
		sb_addc(&l.sb, '[');
	for (i = 0; i < 100000; i++)
		sb_addc(&l.sb, ']');
	sb_adds(&l.sb, "}]}}\n");
	tu_at(&l, TU_T0 + 5000);
	tu_result(&l, 3, 2, "t");
	tu_asst(&l, 4, 3, "m2", "done");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	assert_int_equal(ss_bad_lines(s), 0);
	assert_int_equal(ss_chain(s)->n, 4);
	j = tu_facts(s);
	assert_true(fnum(j, "messages") == 4);
	assert_true(fnum(j, "branches") == 1);
	assert_string_equal(fstr(j, "leafMessage"), "00000004-0000-4000-8000-000000000004");
	assert_string_equal(fstr(j, "sessionId"), TU_SID);
	cJSON_Delete(j);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_changed_sees_growth_until_refreshed(void **state)
{
	struct tu_log l, more;
	struct session *s;
	char *path = tu_four_rows(&l);

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_false(ss_changed(s));
	tu_log_init(&more);
	tu_at(&more, l.ms);
	tu_user(&more, 5, 4, "e");
	append_str(path, more.sb.buf);
	assert_true(ss_changed(s));
	assert_int_equal(ss_refresh(s), SS_GREW);
	assert_false(ss_changed(s));
	assert_int_equal(ss_refresh(s), SS_SAME);
	assert_int_equal(idx_nrecs(ss_idx(s)), 5);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
	tu_log_free(&more);
}

static void test_rewritten_sees_what_appending_never_does(void **state)
{
	struct tu_log l, more;
	struct session *s;
	char *path = tu_four_rows(&l), *next;

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_false(ss_rewritten(s));
	tu_log_init(&more);
	tu_at(&more, l.ms);
	tu_user(&more, 5, 4, "e");
	append_str(path, more.sb.buf);
	assert_true(ss_changed(s));
	assert_false(ss_rewritten(s));		/* growth waits for a request */
	assert_int_equal(ss_refresh(s), SS_GREW);
	assert_int_equal(truncate(path, 10), 0);
	assert_true(ss_rewritten(s));		/* shrank */
	assert_int_equal(ss_refresh(s), SS_RESET);
	assert_false(ss_rewritten(s));
	next = tu_write_str(l.sb.buf);
	assert_int_equal(rename(next, path), 0);
	free(next);
	assert_true(ss_rewritten(s));		/* another file at its path */
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
	tu_log_free(&more);
}

static void test_refresh_starts_over_when_the_log_shrinks(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path = tu_four_rows(&l), *text;
	const char *third = strstr(l.sb.buf, "\n{\"parentUuid\":\"00000002");

	(void)state;
	assert_non_null(third);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_int_equal(truncate(path, (off_t)(third - l.sb.buf + 1)), 0);
	assert_true(ss_changed(s));
	assert_int_equal(ss_refresh(s), SS_RESET);
	assert_int_equal(idx_nrecs(ss_idx(s)), 2);
	assert_int_equal(br_count(ss_branches(s)), 1);
	text = errors_text(s);
	assert_non_null(strstr(text, "the log shrank from"));
	assert_non_null(strstr(text, "indexed again from scratch"));
	free(text);
	assert_int_equal(ss_refresh(s), SS_SAME);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

/* A log of two rows, its last newline left out, opened live. */
static struct session *open_without_last_newline(struct tu_log *l, char **path)
{
	struct session *s;

	tu_log_init(l);
	tu_user(l, 1, 0, "first");
	tu_asst(l, 2, 1, "m1", "answer");
	l->sb.buf[--l->sb.len] = '\0';
	*path = tu_write_str(l->sb.buf);
	assert_int_equal(ss_open(*path, SS_LIVE, &s), 0);
	assert_int_equal(idx_nrecs(ss_idx(s)), 2);	/* the open line is a record */
	return s;
}

/*
 * A last line that parses whole is a record before its newline; when the
 * line goes on with other bytes instead (here a record written right
 * after it), one pass reads one longer line, not JSON: the session
 * indexes the log again and shows what a fresh open shows.
 */
static void test_refresh_starts_over_when_an_open_line_goes_on(void **state)
{
	struct tu_log l, more;
	struct session *s, *fresh;
	char *path;

	(void)state;
	s = open_without_last_newline(&l, &path);
	tu_log_init(&more);
	tu_user(&more, 3, 2, "next");
	append_str(path, more.sb.buf);
	assert_true(ss_changed(s));
	assert_int_equal(ss_refresh(s), SS_RESET);
	assert_int_equal(ss_open(path, SS_LIVE, &fresh), 0);
	assert_int_equal(idx_nrecs(ss_idx(s)), idx_nrecs(ss_idx(fresh)));
	assert_int_equal(idx_nrecs(ss_idx(s)), 1);	/* the two on one line: not JSON */
	assert_int_equal(idx_lines(ss_idx(s)), idx_lines(ss_idx(fresh)));
	assert_int_equal(idx_nerrs(ss_idx(s)), idx_nerrs(ss_idx(fresh)));
	errors_say(s, "went on with other bytes", 1);
	assert_int_equal(ss_refresh(s), SS_SAME);
	ss_close(fresh);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
	tu_log_free(&more);
}

/* The newline alone ends it: the same records, nothing indexed again. */
static void test_open_line_ended_by_its_newline_grows(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path;

	(void)state;
	s = open_without_last_newline(&l, &path);
	append_str(path, " \r\n");
	assert_int_equal(ss_refresh(s), SS_GREW);
	assert_int_equal(idx_nrecs(ss_idx(s)), 2);
	assert_int_equal(idx_lines(ss_idx(s)), 2);
	errors_say(s, "indexed again", 0);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_refresh_starts_over_when_the_log_is_rewritten(void **state)
{
	struct tu_log l, other;
	struct session *s;
	char *path = tu_four_rows(&l), *text;
	int fd;

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	/* Longer than before, other bytes where the old log ended. */
	tu_log_init(&other);
	tu_user(&other, 7, 0, "another session's first prompt, longer than the first");
	tu_asst(&other, 8, 7, "m9", "and its answer");
	tu_user(&other, 9, 8, "more");
	tu_asst(&other, 10, 9, "m10", "and more");
	tu_user(&other, 11, 10, "the end");
	assert_true(other.sb.len > l.sb.len);
	fd = open(path, O_WRONLY);
	assert_int_equal(pwrite(fd, other.sb.buf, other.sb.len, 0), (ssize_t)other.sb.len);
	close(fd);
	assert_int_equal(ss_refresh(s), SS_RESET);
	assert_int_equal(idx_nrecs(ss_idx(s)), 5);
	assert_int_not_equal(idx_id_find(ss_idx(s), "00000011-0000-4000-8000-000000000011", 36), 0);
	assert_int_equal(idx_id_find(ss_idx(s), "00000004-0000-4000-8000-000000000004", 36), 0);
	text = errors_text(s);
	assert_non_null(strstr(text, "the log was rewritten"));
	free(text);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
	tu_log_free(&other);
}

/* Writes other bytes of the same length over the log, at off. */
static void overwrite(const char *path, off_t off, const char *with)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, with, strlen(with), off), (ssize_t)strlen(with));
	close(fd);
}

/* Moves the log's mtime by a second, so that no clock can miss it. */
static void test_refresh_sees_a_rewrite_in_place_of_the_same_size(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path = tu_four_rows(&l), *text;
	const char *a = strstr(l.sb.buf, "\"a\"");

	(void)state;
	assert_non_null(a);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	while (ss_sign(s, 16))
		;
	/* Touched only: the signature tells, nothing is indexed again. */
	tu_touch_later(path);
	assert_true(ss_rewritten(s));
	assert_int_equal(ss_refresh(s), SS_SAME);
	assert_false(ss_changed(s));
	/* The first row's text, same length, other bytes. */
	overwrite(path, a - l.sb.buf, "\"z\"");
	tu_touch_later(path);
	assert_true(ss_rewritten(s));
	assert_int_equal(ss_refresh(s), SS_RESET);
	text = errors_text(s);
	assert_non_null(strstr(text, "rewritten in place (the same size, other bytes)"));
	free(text);
	assert_int_equal(idx_nrecs(ss_idx(s)), 4);
	/* Not signed yet: it cannot tell, so it indexes again. */
	overwrite(path, a - l.sb.buf, "\"y\"");
	tu_touch_later(path);
	assert_int_equal(ss_refresh(s), SS_RESET);
	text = errors_text(s);
	assert_non_null(strstr(text, "before its bytes were signed"));
	free(text);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

static void test_refresh_follows_a_file_that_replaced_the_log(void **state)
{
	struct tu_log l, other;
	struct session *s;
	char *path = tu_four_rows(&l), *next, *text;

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	tu_log_init(&other);
	tu_user(&other, 7, 0, "x");
	next = tu_write_str(other.sb.buf);
	assert_int_equal(rename(next, path), 0);
	free(next);
	assert_true(ss_changed(s));
	assert_int_equal(ss_refresh(s), SS_RESET);
	assert_int_equal(idx_nrecs(ss_idx(s)), 1);
	text = errors_text(s);
	assert_non_null(strstr(text, "another file replaced the log at its path"));
	free(text);
	assert_false(ss_changed(s));
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
	tu_log_free(&other);
}

static void test_refresh_keeps_the_log_when_a_folder_takes_its_path(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path = tu_four_rows(&l), *text, moved[PATH_MAX];

	(void)state;
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	while (ss_sign(s, 1 << 20))
		;
	snprintf(moved, sizeof(moved), "%s.moved", path);
	assert_int_equal(rename(path, moved), 0);
	/* Gone: the open file is followed. The rename moved its ctime; the
	 * signature says its bytes are the same. */
	assert_int_equal(ss_refresh(s), SS_SAME);
	assert_false(ss_changed(s));
	assert_int_equal(mkdir(path, 0700), 0);
	assert_true(ss_changed(s));
	assert_int_equal(ss_refresh(s), SS_GREW);	/* only the note is new */
	assert_false(ss_changed(s));
	assert_int_equal(idx_nrecs(ss_idx(s)), 4);
	text = errors_text(s);
	assert_non_null(strstr(text, "a directory took the log's path"));
	free(text);
	ss_close(s);
	rmdir(path);
	unlink(moved);
	free(path);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts_json_on_a_forked_log),
		cmocka_unit_test(test_facts_json_counts_compactions),
		cmocka_unit_test(test_dead_ends_in_facts_and_window),
		cmocka_unit_test(test_errors_text_lists_lines_in_order),
		cmocka_unit_test(test_errors_text_reports_cycles),
		cmocka_unit_test(test_clean_log_has_no_errors),
		cmocka_unit_test(test_empty_file_is_an_empty_session),
		cmocka_unit_test(test_empty_live_file_opens_and_fills),
		cmocka_unit_test(test_metadata_only_file_opens_without_branches),
		cmocka_unit_test(test_open_refuses_directories_and_missing_files),
		cmocka_unit_test(test_refresh_picks_up_a_completed_torn_line),
		cmocka_unit_test(test_refresh_moves_the_current_branch),
		cmocka_unit_test(test_changed_sees_growth_until_refreshed),
		cmocka_unit_test(test_rewritten_sees_what_appending_never_does),
		cmocka_unit_test(test_refresh_starts_over_when_the_log_shrinks),
		cmocka_unit_test(test_refresh_starts_over_when_the_log_is_rewritten),
		cmocka_unit_test(test_refresh_starts_over_when_an_open_line_goes_on),
		cmocka_unit_test(test_open_line_ended_by_its_newline_grows),
		cmocka_unit_test(test_refresh_sees_a_rewrite_in_place_of_the_same_size),
		cmocka_unit_test(test_refresh_follows_a_file_that_replaced_the_log),
		cmocka_unit_test(test_refresh_keeps_the_log_when_a_folder_takes_its_path),
		cmocka_unit_test(test_deep_json_row_loses_nothing_else),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
