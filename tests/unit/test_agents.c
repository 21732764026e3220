/*
 * agents: finding a session's subagent logs (both layouts), naming them
 * safely, and the agent id a main-thread Agent result names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "testutil.h"
#include "agents.h"
#include "session.h"

#define OTHER_SID "5e55f500-0000-4000-8000-0000000000ff"

struct fx {
	char root[64];		/* the temporary folder */
	char proj[128];		/* root/proj: the project folder */
	char log[192];		/* proj/S.jsonl: the session log */
	char sub[192];		/* proj/S/subagents */
};

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void putf(const char *text, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void putf(const char *text, const char *fmt, ...)
{
	char path[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	put(path, text);
}

static void mkdirf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void mkdirf(const char *fmt, ...)
{
	char path[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* A one-prompt log; sidechain rows if side. */
static char *small_log(const char *sid, int side)
{
	struct tu_log l;
	char *text;

	tu_log_init(&l);
	l.sidechain = side;
	tu_user(&l, 1, 0, "hello");
	tu_asst(&l, 2, 1, "msg_1", "hi");
	text = strdup(l.sb.buf);
	tu_log_free(&l);
	if (strcmp(sid, TU_SID)) {
		char *p;

		while ((p = strstr(text, TU_SID)))
			memcpy(p, sid, strlen(sid));
	}
	return text;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *log = small_log(TU_SID, 0);

	assert_non_null(f);
	strcpy(f->root, "/tmp/sessfs-agents-XXXXXX");
	assert_non_null(mkdtemp(f->root));
	snprintf(f->proj, sizeof(f->proj), "%s/proj", f->root);
	snprintf(f->log, sizeof(f->log), "%s/S.jsonl", f->proj);
	snprintf(f->sub, sizeof(f->sub), "%s/S/subagents", f->proj);
	mkdirf("%s", f->proj);
	mkdirf("%s/S", f->proj);
	mkdirf("%s", f->sub);
	put(f->log, log);
	free(log);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static struct ag_list *find(const struct fx *f)
{
	struct ag_list *l;

	assert_int_equal(ag_find(f->log, NULL, NULL, &l), 0);
	assert_non_null(l);
	return l;
}

static char *errors(const struct ag_list *l)
{
	struct sbuf sb;
	char *s;

	sb_init(&sb);
	ag_errors_text(l, &sb);
	s = strdup(sb.buf ? sb.buf : "");
	sb_free(&sb);
	return s;
}

/* A folder name: safe, short, never "." or "..". */
static void assert_safe_name(const char *name)
{
	char safe[NM_MAX + 1];
	size_t n = strlen(name);

	assert_true(n > 0 && n <= NM_MAX);
	nm_safe(name, n, safe, sizeof(safe));
	assert_string_equal(safe, name);
	assert_true(strcmp(name, ".") && strcmp(name, ".."));
	assert_null(strchr(name, '/'));
}

static void test_no_subagents_gives_an_empty_list(void **state)
{
	struct fx *f = *state;
	struct ag_list *l;
	char *e;

	l = find(f);
	assert_int_equal(ag_count(l), 0);
	e = errors(l);
	assert_string_equal(e, "");
	free(e);
	ag_free(l);
}

static void test_finds_logs_at_any_depth_with_their_meta(void **state)
{
	struct fx *f = *state;
	char *side = small_log(TU_SID, 1), *e;
	struct ag_list *l;
	const struct ag_entry *a, *b;

	putf(side, "%s/agent-a1.jsonl", f->sub);
	putf("{\"agentType\":\"Explore\"}", "%s/agent-a1.meta.json", f->sub);
	mkdirf("%s/nested", f->sub);
	putf(side, "%s/nested/agent-b2.jsonl", f->sub);
	putf("not a log", "%s/notes.txt", f->sub);
	l = find(f);
	assert_int_equal(ag_count(l), 2);
	a = ag_by_id(l, "a1", 2);
	b = ag_by_id(l, "b2", 2);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a->name, "a1");
	assert_string_equal(b->name, "b2");
	assert_non_null(a->meta);
	assert_non_null(strstr(a->meta, "/agent-a1.meta.json"));
	assert_null(b->meta);
	assert_non_null(strstr(b->log, "/nested/agent-b2.jsonl"));
	assert_ptr_equal(ag_by_name(l, "b2"), b);
	e = errors(l);
	assert_string_equal(e, "");
	free(e);
	ag_free(l);
	free(side);
}

/* A folder on the device to avoid (the mount that looks) is not walked. */
static void test_folders_of_the_avoided_device_are_not_walked(void **state)
{
	struct fx *f = *state;
	char *side = small_log(TU_SID, 1);
	struct ag_seen *seen = ag_seen_new();
	struct ag_list *l;
	struct stat st;

	putf(side, "%s/agent-a1.jsonl", f->sub);
	assert_non_null(seen);
	assert_int_equal(ag_find(f->log, NULL, seen, &l), 0);
	assert_int_equal(ag_count(l), 1);
	ag_free(l);
	assert_int_equal(stat(f->sub, &st), 0);
	ag_seen_avoid(seen, st.st_dev);
	assert_int_equal(ag_find(f->log, NULL, seen, &l), 0);
	assert_int_equal(ag_count(l), 0);
	ag_free(l);
	ag_seen_free(seen);
	free(side);
}

static void test_older_layout_takes_only_this_sessions_agents(void **state)
{
	struct fx *f = *state;
	char *mine = small_log(TU_SID, 1), *other = small_log(OTHER_SID, 1), path[256];
	struct ag_list *l;

	putf(mine, "%s/agent-c3.jsonl", f->proj);
	putf(other, "%s/agent-d4.jsonl", f->proj);
	putf("garbage\n", "%s/agent-e5.jsonl", f->proj);
	l = find(f);
	assert_int_equal(ag_count(l), 1);
	assert_string_equal(ag_get(l, 0)->id, "c3");
	assert_null(ag_get(l, 0)->meta);
	ag_free(l);
	/* An explicit session id is used as given. */
	assert_int_equal(ag_find(f->log, OTHER_SID, NULL, &l), 0);
	assert_int_equal(ag_count(l), 1);
	assert_string_equal(ag_get(l, 0)->id, "d4");
	ag_free(l);
	/* A subagent's own log mounted alone has no agents of its siblings. */
	snprintf(path, sizeof(path), "%s/agent-c3.jsonl", f->proj);
	assert_int_equal(ag_find(path, NULL, NULL, &l), 0);
	assert_int_equal(ag_count(l), 0);
	ag_free(l);
	free(mine);
	free(other);
}

static void test_seen_files_are_judged_once(void **state)
{
	struct fx *f = *state;
	char *mine = small_log(TU_SID, 1), *other = small_log(OTHER_SID, 1), path[256];
	struct ag_seen *seen = ag_seen_new();
	struct ag_list *l;
	int fd;

	assert_non_null(seen);
	putf(other, "%s/agent-d4.jsonl", f->proj);
	putf("{\"type\":\"summary\"}\n", "%s/agent-u.jsonl", f->proj);
	assert_int_equal(ag_find(f->log, NULL, seen, &l), 0);
	assert_int_equal(ag_count(l), 0);
	ag_free(l);
	/* A judged file is not read again (same length, other content)... */
	putf(mine, "%s/agent-d4.jsonl", f->proj);
	/* ...one without a sessionId yet is, once it grows. */
	snprintf(path, sizeof(path), "%s/agent-u.jsonl", f->proj);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, mine, strlen(mine)), (ssize_t)strlen(mine));
	close(fd);
	assert_int_equal(ag_find(f->log, NULL, seen, &l), 0);
	assert_int_equal(ag_count(l), 1);
	assert_string_equal(ag_get(l, 0)->id, "u");
	ag_free(l);
	/* Without the record of what was seen, both are read. */
	assert_int_equal(ag_find(f->log, NULL, NULL, &l), 0);
	assert_int_equal(ag_count(l), 2);
	ag_free(l);
	ag_seen_free(seen);
	free(mine);
	free(other);
}

static void test_hostile_names_are_safe_unique_and_reported(void **state)
{
	struct fx *f = *state;
	char *side = small_log(TU_SID, 1), *e, longid[241], clash[NM_MAX + 1];
	static const char *const ids[] = { "..", ".", "", "a b\nc", "x\xff\xfe", "-rf" };
	struct ag_list *l;
	uint32_t i, j;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		putf(side, "%s/agent-%s.jsonl", f->sub, ids[i]);
	memset(longid, 'L', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	putf(side, "%s/agent-%s.jsonl", f->sub, longid);
	/* An id that is literally another one's folder name. */
	ag_name("a b\nc", 5, clash);
	putf(side, "%s/agent-%s.jsonl", f->sub, clash);
	l = find(f);
	assert_int_equal(ag_count(l), 8);
	for (i = 0; i < ag_count(l); i++) {
		assert_safe_name(ag_get(l, i)->name);
		for (j = 0; j < i; j++)
			assert_string_not_equal(ag_get(l, i)->name, ag_get(l, j)->name);
	}
	assert_string_equal(ag_by_id(l, "-rf", 3)->name, "-rf");
	assert_true(strlen(ag_by_id(l, longid, strlen(longid))->name) <= AG_NAME_KEEP + 9);
	e = errors(l);
	/* One line per renamed id (all but "-rf" and the clash that came first). */
	for (i = 0, j = 0; e[i]; i++)
		j += e[i] == '\n';
	assert_int_equal(j, 7);
	assert_non_null(strstr(e, "agent id \"..\""));
	assert_non_null(strstr(e, "agent id \"a b\\x0ac\""));
	assert_non_null(strstr(e, "another agent has its name"));
	assert_null(strchr(e, '\xff'));
	assert_non_null(strstr(e, "agent-a b\\x0ac.jsonl"));
	free(e);
	ag_free(l);
	free(side);
}

static void test_links_are_not_followed_out(void **state)
{
	struct fx *f = *state;
	char *side = small_log(TU_SID, 1), *e, target[256], link[256];
	struct ag_list *l;

	putf(side, "%s/outside.jsonl", f->root);
	snprintf(target, sizeof(target), "%s/outside.jsonl", f->root);
	snprintf(link, sizeof(link), "%s/agent-out.jsonl", f->sub);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof(link), "%s/agent-etc.jsonl", f->sub);
	assert_int_equal(symlink("/etc/passwd", link), 0);
	mkdirf("%s/real", f->sub);
	putf(side, "%s/real/agent-r.jsonl", f->sub);
	snprintf(link, sizeof(link), "%s/agent-in.jsonl", f->sub);
	assert_int_equal(symlink("real/agent-r.jsonl", link), 0);
	snprintf(link, sizeof(link), "%s/up", f->sub);
	assert_int_equal(symlink(f->root, link), 0);
	snprintf(link, sizeof(link), "%s/loop", f->sub);
	assert_int_equal(symlink(".", link), 0);
	l = find(f);
	assert_int_equal(ag_count(l), 2);
	assert_non_null(ag_by_id(l, "in", 2));
	assert_non_null(ag_by_id(l, "r", 1));
	assert_null(ag_by_id(l, "out", 3));
	assert_null(ag_by_id(l, "etc", 3));
	e = errors(l);
	assert_non_null(strstr(e, "agent-out.jsonl: a link that leads outside"));
	assert_non_null(strstr(e, "agent-etc.jsonl: a link that leads outside"));
	free(e);
	ag_free(l);
	free(side);
}

static void test_a_linked_subagents_folder_is_not_followed(void **state)
{
	struct fx *f = *state;
	char *side = small_log(TU_SID, 1), *e, cmd[512];
	struct ag_list *l;

	mkdirf("%s/elsewhere", f->root);
	putf(side, "%s/elsewhere/agent-x.jsonl", f->root);
	snprintf(cmd, sizeof(cmd), "rmdir '%s' && ln -s '%s/elsewhere' '%s'", f->sub, f->root,
		 f->sub);
	assert_int_equal(system(cmd), 0);
	l = find(f);
	assert_int_equal(ag_count(l), 0);
	e = errors(l);
	assert_non_null(strstr(e, "/S/subagents: a link, not followed"));
	free(e);
	ag_free(l);
	free(side);
}

static void test_depth_is_bounded(void **state)
{
	struct fx *f = *state;
	char path[1024], *e;
	struct ag_list *l;
	int i;

	snprintf(path, sizeof(path), "%s", f->sub);
	for (i = 0; i < AG_MAX_DEPTH + 2; i++) {
		strcat(path, "/d");
		mkdirf("%s", path);
	}
	putf("{}\n", "%s/agent-deep.jsonl", path);
	l = find(f);
	assert_int_equal(ag_count(l), 0);
	e = errors(l);
	assert_non_null(strstr(e, "too deep"));
	free(e);
	ag_free(l);
}

static void test_names_of_hostile_ids(void **state)
{
	static const struct { const char *s; size_t n; } ids[] = {
		{ "/../../etc/x", 12 }, { "a/../../b", 9 }, { "a\0b", 3 }, { "a", 1 },
		{ "..", 2 }, { ".", 1 }, { "", 0 },
	};
	char big[300], name[NM_MAX + 1], names[8][NM_MAX + 1];
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ag_name(ids[i].s, ids[i].n, names[i]);
		assert_safe_name(names[i]);
		ag_name(ids[i].s, ids[i].n, name);
		assert_string_equal(name, names[i]);	/* the same every time */
		for (j = 0; j < i; j++)
			assert_string_not_equal(names[i], names[j]);
	}
	assert_string_equal(names[3], "a");
	memset(big, 'p', sizeof(big));
	ag_name(big, sizeof(big), name);
	assert_safe_name(name);
	assert_int_equal(strlen(name), AG_NAME_KEEP + 9);
	big[299] = 'q';
	ag_name(big, sizeof(big), names[7]);
	assert_string_not_equal(name, names[7]);
}

/* A main log whose Agent call ran agent aid (a JSON string fragment). */
static char *agent_call_log(const char *aid_json)
{
	struct tu_log l;
	char x[1024];
	char *text;

	tu_log_init(&l);
	tu_user(&l, 1, 0, "use an agent");
	tu_row(&l, "assistant", 2, 1,
	       "\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
	       "\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\","
	       "\"name\":\"Agent\",\"input\":{\"prompt\":\"go\"}}]}");
	snprintf(x, sizeof(x),
		 "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"toolu_1\","
		 "\"type\":\"tool_result\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}]},"
		 "\"toolUseResult\":{\"status\":\"completed\",\"agentId\":%s}", aid_json);
	tu_row(&l, "user", 3, 2, x);
	tu_tool_use(&l, 4, 3, "msg_2", "toolu_2");
	tu_result(&l, 5, 4, "toolu_2");
	text = strdup(l.sb.buf);
	tu_log_free(&l);
	return text;
}

static size_t result_agent_of(const char *aid_json, char *out, size_t outsz,
			      size_t *bash)
{
	char *text = agent_call_log(aid_json), *path = tu_write_str(text), other[64];
	struct session *s;
	size_t n;

	assert_int_equal(ss_open(path, SS_COMPLETE, &s), 0);
	n = ag_result_agent(ss_graph(s), ss_logf(s), 3, out, outsz);
	/* Neither the prompt, nor the call, nor a Bash result names one. */
	*bash = ag_result_agent(ss_graph(s), ss_logf(s), 1, other, sizeof(other)) +
		ag_result_agent(ss_graph(s), ss_logf(s), 2, other, sizeof(other)) +
		ag_result_agent(ss_graph(s), ss_logf(s), 5, other, sizeof(other)) +
		ag_result_agent(ss_graph(s), ss_logf(s), 99, other, sizeof(other));
	ss_close(s);
	tu_remove(path);
	free(text);
	return n;
}

static void test_result_names_the_agent(void **state)
{
	char out[AG_ID_MAX + 1], name[NM_MAX + 1];
	size_t bash, n;

	(void)state;
	n = result_agent_of("\"a56002e4baaeb4861\"", out, sizeof(out), &bash);
	assert_int_equal(n, 17);
	assert_string_equal(out, "a56002e4baaeb4861");
	assert_int_equal(bash, 0);
	/* Hostile ids come back as bytes; their folder name is safe. */
	n = result_agent_of("\"/../../etc/x\"", out, sizeof(out), &bash);
	assert_string_equal(out, "/../../etc/x");
	ag_name(out, n, name);
	assert_safe_name(name);
	n = result_agent_of("\"a\\u0000b\"", out, sizeof(out), &bash);
	assert_int_equal(n, 3);			/* the NUL is kept */
	assert_memory_equal(out, "a\0b", 3);
	ag_name(out, n, name);
	assert_safe_name(name);
	assert_string_not_equal(name, "a");
	assert_int_equal(result_agent_of("42", out, sizeof(out), &bash), 0);
	assert_int_equal(result_agent_of("\"\"", out, sizeof(out), &bash), 0);
	n = result_agent_of("\"0123456789abcdef\"", out, 8, &bash);
	assert_int_equal(n, 7);
	assert_string_equal(out, "0123456");
}

/* A subagent's log: every row a sidechain, a null-parent root. */
static void test_subagent_log_replays_to_its_last_row(void **state)
{
	struct tu_log l;
	struct session *s;
	char *path;
	const struct rs_chain *c;

	(void)state;
	tu_log_init(&l);
	l.sidechain = 1;
	tu_user(&l, 1, 0, "find it");
	tu_attach(&l, 2, 1, "environment");
	tu_tool_use(&l, 3, 2, "msg_1", "toolu_1");
	tu_result(&l, 4, 3, "toolu_1");
	tu_asst(&l, 5, 4, "msg_2", "found");
	path = tu_write_str(l.sb.buf);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	c = ss_chain(s);
	assert_int_equal(c->leaf, 5);
	assert_true(ss_current_branch(s) >= 0);
	assert_int_equal(br_count(ss_branches(s)), 1);
	assert_non_null(ss_context(s));
	assert_true(ctx_nmessages(ss_context(s)) >= 3);
	ss_close(s);
	tu_remove(path);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_subagents_gives_an_empty_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finds_logs_at_any_depth_with_their_meta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folders_of_the_avoided_device_are_not_walked,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_older_layout_takes_only_this_sessions_agents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seen_files_are_judged_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_names_are_safe_unique_and_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_are_not_followed_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_linked_subagents_folder_is_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_depth_is_bounded, setup, teardown),
		cmocka_unit_test(test_names_of_hostile_ids),
		cmocka_unit_test(test_result_names_the_agent),
		cmocka_unit_test(test_subagent_log_replays_to_its_last_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
