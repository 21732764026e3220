/*
 * test_projects: projects.c and loghead.c on small projects folders made
 * here: names, titles, forks, bad input, rescans, many sessions.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "loghead.h"
#include "plat.h"
#include "projects.h"
#include "projects_priv.h"
#include "lineage.h"
#include "testutil.h"

static char root[64];

static void mk(const char *fmt, ...)
{
	char path[512], rel[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* Writes text to root/rel (appends when append). */
static void put(const char *rel, const char *text, int append)
{
	tu_put(root, rel, text, append);
}

/* A user row and an assistant reply of session sid at minute min; row n's
 * user row follows row n-1's reply. */
static void turn(struct sbuf *b, const char *sid, const char *cwd, int min, int n,
		 const char *prompt)
{
	char parent[64];

	if (n)
		snprintf(parent, sizeof(parent), "\"%08d-0000-4000-8000-000000000000\"", n - 1);
	else
		strcpy(parent, "null");
	sb_addf(b, "{\"parentUuid\":%s,\"type\":\"user\","
		   "\"message\":{\"role\":\"user\",\"content\":\"%s\"},"
		   "\"uuid\":\"%08d-0000-4000-8000-000000000001\","
		   "\"timestamp\":\"2026-01-01T10:%02d:00.000Z\",\"sessionId\":\"%s\","
		   "\"cwd\":\"%s\",\"version\":\"2.1.328\",\"gitBranch\":\"main\"}\n",
		parent, prompt, n, min, sid, cwd);
	sb_addf(b, "{\"parentUuid\":\"%08d-0000-4000-8000-000000000001\",\"type\":\"assistant\","
		   "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]},"
		   "\"uuid\":\"%08d-0000-4000-8000-000000000000\","
		   "\"timestamp\":\"2026-01-01T10:%02d:30.000Z\",\"sessionId\":\"%s\"}\n",
		n, n, min, sid);
}

/* A row of 40 KB outside the chain, for logs bigger than head and tail
 * whose first chain rows and replies are past the head. */
static void pad(struct sbuf *b, const char *sid, int n)
{
	sb_addf(b, "{\"type\":\"file-history-snapshot\",\"n\":%d,"
		   "\"sessionId\":\"%s\",\"snapshot\":\"", n, sid);
	for (int i = 0; i < 40 << 10; i++)
		sb_addc(b, 'x');
	sb_adds(b, "\"}\n");
}

static void write_log(const char *rel, const char *sid, const char *cwd, int min,
		      const char *prompt, const char *extra)
{
	struct sbuf b;

	sb_init(&b);
	turn(&b, sid, cwd, min, 0, prompt);
	if (extra)
		sb_adds(&b, extra);
	put(rel, b.buf, 0);
	sb_free(&b);
}

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/sessfs-pj-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", root, root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static struct pj_set *scan(const struct pj_set *prev)
{
	struct pj_set *s = NULL;

	assert_int_equal(pj_scan(root, prev, &s), 0);
	return s;
}

static const struct pj_session *by_sid(const struct pj_set *s, const char *sid)
{
	uint32_t i;

	for (i = 0; i < s->nsessions; i++)
		if (s->sessions[i].f.sid && !strcmp(s->sessions[i].f.sid, sid))
			return &s->sessions[i];
	return NULL;
}

static void test_names_are_safe(void **state)
{
	char out[NM_MAX + 1], slug[NM_SLUG_MAX + 1], long_title[400];

	(void)state;
	pj_path_name("/home/user/src/todo-app", out);
	assert_string_equal(out, "home-user-src-todo-app");
	pj_path_name("/a//b/../c d", out);
	assert_string_equal(out, "a-b-..-c-d");
	pj_path_name("/", out);
	assert_string_equal(out, "_");
	pj_path_name("/..", out);
	assert_string_equal(out, "_..");
	nm_slug("Fix the LOGIN bug: now!", slug);
	assert_string_equal(slug, "fix-the-login-bug-now");
	nm_slug("../../etc/passwd\n", slug);
	assert_string_equal(slug, "etc-passwd");
	nm_slug("¿¡!", slug);
	assert_string_equal(slug, "untitled");
	memset(long_title, 'a', sizeof(long_title) - 1);
	long_title[sizeof(long_title) - 1] = '\0';
	long_title[30] = ' ';
	nm_slug(long_title, slug);
	assert_true(strlen(slug) <= NM_SLUG_MAX);
	assert_null(strchr(slug, '/'));
	/* a word past the end is left out, not cut; a word that is all of
	 * it is cut; a slug that ends where the title does keeps its end */
	nm_slug("Survey src/web and report its layout, with a screenshot", slug);
	assert_string_equal(slug, "survey-src-web-and-report-its-layout-with-a");
	nm_slug("Give me a tour of the repository: its structure, then compare", slug);
	assert_string_equal(slug, "give-me-a-tour-of-the-repository-its-structure");
	nm_slug("supercalifragilisticexpialidocious-supercalifragilistic", slug);
	assert_string_equal(slug, "supercalifragilisticexpialidocious");
	nm_slug("supercalifragilisticexpialidocioussupercalifragilistic", slug);
	assert_string_equal(slug, "supercalifragilisticexpialidocioussupercalifragi");
	nm_slug("abcdefghij abcdefghij abcdefghij abcdefghij abcd", slug);
	assert_string_equal(slug, "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcd");
	nm_slug("abcdefghij abcdefghij abcdefghij abcdefghij abcde", slug);
	assert_string_equal(slug, "abcdefghij-abcdefghij-abcdefghij-abcdefghij");
}

/* A message file's name, as "%06u-%s.md" would print it, cut at NM_MAX. */
static void test_seq_file_names(void **state)
{
	static const uint32_t seqs[] = { 0, 7, 42, 999999, 1000000, 4294967295u };
	char out[NM_MAX + 1], want[NM_MAX + 16], kind[NM_MAX + 1];
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		nm_seq_file(seqs[i], "tool_use-Bash", out);
		snprintf(want, sizeof(want), "%06u-tool_use-Bash.md", seqs[i]);
		assert_string_equal(out, want);
	}
	nm_seq_file(12, "user", out);
	assert_string_equal(out, "000012-user.md");
	for (k = NM_MAX - 12; k <= NM_MAX; k++) {	/* the cut */
		memset(kind, 'k', k);
		kind[k] = '\0';
		nm_seq_file(3, kind, out);
		snprintf(want, sizeof(want), "%06u-%s.md", 3u, kind);
		want[NM_MAX] = '\0';
		assert_string_equal(out, want);
		assert_int_equal(strlen(out), strlen(want));
	}
}

static void test_titles_and_facts(void **state)
{
	struct pj_set *s;
	const struct pj_session *x;

	(void)state;
	mk("-home-u-app");
	write_log("-home-u-app/s1.jsonl", "s1", "/home/u/app", 1, "first line\\nsecond", NULL);
	write_log("-home-u-app/s2.jsonl", "s2", "/home/u/app", 2, "prompt two",
		  "{\"type\":\"custom-title\",\"customTitle\":\"old\",\"sessionId\":\"s2\"}\n"
		  "{\"type\":\"ai-title\",\"aiTitle\":\"generated\",\"sessionId\":\"s2\"}\n"
		  "{\"type\":\"custom-title\",\"customTitle\":\"My Title\",\"sessionId\":\"s2\"}\n");
	write_log("-home-u-app/s3.jsonl", "s3", "/home/u/app", 3, "prompt three",
		  "{\"type\":\"ai-title\",\"aiTitle\":\"Made up\",\"sessionId\":\"s3\"}\n");
	/* Agents are not sessions. */
	mk("-home-u-app/s1");
	mk("-home-u-app/s1/subagents");
	write_log("-home-u-app/s1/subagents/agent-a1.jsonl", "s1", "/home/u/app", 1, "x", NULL);
	write_log("-home-u-app/agent-a2.jsonl", "s1", "/home/u/app", 1, "x", NULL);
	s = scan(NULL);
	assert_int_equal(s->nprojects, 1);
	assert_string_equal(s->projects[0].name, "home-u-app");
	assert_string_equal(s->projects[0].cwd, "/home/u/app");
	assert_int_equal(s->nsessions, 3);
	x = by_sid(s, "s1");
	assert_string_equal(x->f.title, "first line");
	assert_int_equal(x->f.rows, 2);
	assert_true(x->f.exact);
	assert_string_equal(x->f.version, "2.1.328");
	assert_string_equal(x->f.branch, "main");
	assert_string_equal(x->link, "2026-01-01T1001-first-line-s1");
	assert_string_equal(by_sid(s, "s2")->f.title, "My Title");
	assert_string_equal(by_sid(s, "s3")->f.title, "Made up");
	/* Time order; the one written last is the latest. */
	assert_string_equal(s->sessions[0].f.sid, "s1");
	assert_string_equal(s->sessions[2].f.sid, "s3");
	assert_int_equal(s->errors.len, 0);
	assert_ptr_equal(pj_find_link(s, x->link), x);
	assert_ptr_equal(pj_find(s, 0, "s2"), by_sid(s, "s2"));
	assert_ptr_equal(pj_by_key(s, x->key), x);
	pj_free(s);
}

static void test_bad_input_is_a_line(void **state)
{
	struct pj_set *s;
	char path[512];

	(void)state;
	mk("-p");
	write_log("-p/good.jsonl", "good", "/p", 1, "hi", NULL);
	put("-p/junk.jsonl", "this is not json\n", 0);
	put("-p/snap.jsonl", "{\"type\":\"file-history-snapshot\",\"x\":1}\n", 0);
	put("-p/empty.jsonl", "", 0);
	snprintf(path, sizeof(path), "%s/-p/loop.jsonl", root);
	assert_int_equal(symlink("loop.jsonl", path), 0);
	snprintf(path, sizeof(path), "%s/-p/out.jsonl", root);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/-linked", root);
	assert_int_equal(symlink("/etc", path), 0);
	mk("-empty");
	mk("-p/fifo-dir.jsonl");
	s = scan(NULL);
	assert_int_equal(s->nsessions, 1);
	assert_int_equal(s->nprojects, 2);
	assert_non_null(strstr(s->errors.buf, "-p/junk.jsonl: not a session log"));
	assert_non_null(strstr(s->errors.buf, "-p/snap.jsonl: not a session log"));
	assert_non_null(strstr(s->errors.buf, "-p/empty.jsonl: empty (0 bytes): no session"));
	assert_non_null(strstr(s->errors.buf, "-p/loop.jsonl: a symbolic link, not followed"));
	assert_non_null(strstr(s->errors.buf, "-p/out.jsonl: a symbolic link, not followed"));
	assert_non_null(strstr(s->errors.buf, "-linked: a symbolic link, not followed"));
	assert_non_null(strstr(s->errors.buf, "-p/fifo-dir.jsonl: not a regular file"));
	/* The empty folder keeps its encoded name. */
	assert_int_equal(pj_project(s, "-empty"), 0);
	assert_int_equal(s->projects[0].nsessions, 0);
	pj_free(s);
	/* A folder that cannot be read (root reads everything). */
	snprintf(path, sizeof(path), "%s/-p", root);
	chmod(path, 0);
	s = scan(NULL);
	if (geteuid() != 0) {
		assert_int_equal(s->nsessions, 0);
		assert_non_null(strstr(s->errors.buf, "-p: cannot read"));
	}
	pj_free(s);
	chmod(path, 0755);
}

static void test_clashes_get_suffixes(void **state)
{
	struct pj_set *s;
	const struct pj_session *a, *b;

	(void)state;
	/* Two folders of one cwd; two logs of one id. */
	mk("-a-b");
	mk("-a_b");
	write_log("-a-b/x.jsonl", "x", "/a/b", 1, "one", NULL);
	write_log("-a_b/y.jsonl", "y", "/a/b", 2, "two", NULL);
	write_log("-a_b/copy.jsonl", "y", "/a/b", 3, "two again", NULL);
	s = scan(NULL);
	assert_int_equal(s->nprojects, 2);
	assert_string_equal(s->projects[0].name, "a-b");
	assert_string_equal(s->projects[1].name, "a-b-2");
	a = &s->sessions[1];
	b = &s->sessions[2];
	assert_string_equal(a->f.sid, "y");
	assert_string_equal(b->f.sid, "y");
	/* copy.jsonl sorts first: it keeps the name. */
	assert_string_equal(b->name, "y");
	assert_string_equal(a->name, "y.2");
	assert_non_null(strstr(s->errors.buf, "-a_b/y.jsonl: session id already used by -a_b/copy.jsonl"));
	pj_free(s);
}

/* Many names of one base: each gets the smallest suffix free, a name
 * taken on its own ("n.4") is skipped, and a second base is its own. */
static void test_unique_names_in_order(void **state)
{
	struct pj_seen *taken = NULL;
	char name[NM_MAX + 1], want[NM_MAX + 1];
	unsigned i;

	(void)state;
	snprintf(name, sizeof(name), "n.4");
	pj_unique_name(&taken, name, ".", NULL);
	assert_string_equal(name, "n.4");
	for (i = 1; i <= 300; i++) {
		snprintf(name, sizeof(name), "n");
		pj_unique_name(&taken, name, ".", NULL);
		if (i == 1)
			snprintf(want, sizeof(want), "n");
		else
			snprintf(want, sizeof(want), "n.%u", i < 4 ? i : i + 1);
		assert_string_equal(name, want);
	}
	snprintf(name, sizeof(name), "n.2");	/* taken: a suffix of its own */
	pj_unique_name(&taken, name, ".", NULL);
	assert_string_equal(name, "n.2.2");
	snprintf(name, sizeof(name), "m");
	pj_unique_name(&taken, name, ".", NULL);
	assert_string_equal(name, "m");
	pj_seen_free(&taken);
}

static void test_fork_is_found(void **state)
{
	struct pj_set *s;
	const struct pj_session *f;
	struct sbuf b;
	char *path, link[NM_MAX + 1], *sid, *uuid;
	int dfd, settled;

	(void)state;
	mk("-w");
	sb_init(&b);
	turn(&b, "orig", "/w", 1, 0, "start");
	turn(&b, "orig", "/w", 2, 1, "more");
	put("-w/orig.jsonl", b.buf, 0);
	sb_reset(&b);
	/* The fork: its own first row, then copies (older, its id), then its own turn. */
	sb_adds(&b, "{\"type\":\"queue-operation\",\"timestamp\":\"2026-01-01T10:05:00.000Z\","
		    "\"sessionId\":\"fork\"}\n");
	pad(&b, "fork", 1);
	turn(&b, "fork", "/w", 1, 0, "start");
	turn(&b, "fork", "/w", 2, 1, "more");
	turn(&b, "fork", "/w", 6, 2, "forked on");
	pad(&b, "fork", 2);
	pad(&b, "fork", 3);
	put("-w/fork.jsonl", b.buf, 0);
	/* Hook rows written just before the first time: not a fork. */
	sb_reset(&b);
	sb_adds(&b, "{\"type\":\"queue-operation\",\"timestamp\":\"2026-01-01T10:20:00.500Z\","
		    "\"sessionId\":\"hooked\"}\n"
		    "{\"parentUuid\":null,\"type\":\"attachment\",\"uuid\":\"h\","
		    "\"timestamp\":\"2026-01-01T10:20:00.100Z\",\"sessionId\":\"hooked\"}\n");
	pad(&b, "hooked", 1);
	turn(&b, "hooked", "/w", 21, 5, "hello");
	pad(&b, "hooked", 2);
	pad(&b, "hooked", 3);
	put("-w/hooked.jsonl", b.buf, 0);
	s = scan(NULL);
	f = by_sid(s, "fork");
	assert_non_null(f);
	assert_string_equal(f->fork_sid, "orig");
	assert_string_equal(f->fork_uuid, "00000001-0000-4000-8000-000000000000");
	assert_null(by_sid(s, "orig")->fork_uuid);
	assert_null(by_sid(s, "hooked")->fork_uuid);
	/* Its time is its own first record's. */
	assert_string_equal(f->link, "2026-01-01T1005-start-fork");
	path = pj_file_history(s);
	assert_non_null(strstr(path, "/file-history"));
	assert_null(strstr(path, "projects"));
	free(path);
	pj_free(s);
	/* The same answer for the log alone (a single mount's session.json). */
	snprintf(link, sizeof(link), "%s/-w", root);
	dfd = open(link, PL_O_PATH | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(ln_fork_of(dfd, "fork.jsonl", &sid, &uuid, &settled), 0);
	assert_string_equal(sid, "orig");
	assert_string_equal(uuid, "00000001-0000-4000-8000-000000000000");
	assert_true(settled);	/* its own turn follows the copies */
	free(sid);
	free(uuid);
	/* A fork that ends in copies so far: its point moves with the next. */
	sb_reset(&b);
	sb_adds(&b, "{\"type\":\"queue-operation\",\"timestamp\":\"2026-01-01T10:06:00.000Z\","
		    "\"sessionId\":\"copying\"}\n");
	turn(&b, "copying", "/w", 1, 0, "start");
	put("-w/copying.jsonl", b.buf, 0);
	assert_int_equal(ln_fork_of(dfd, "copying.jsonl", &sid, &uuid, &settled), 0);
	assert_false(settled);
	free(sid);
	free(uuid);
	sb_free(&b);
	assert_int_equal(ln_fork_of(dfd, "orig.jsonl", &sid, &uuid, NULL), -ENOENT);
	assert_null(uuid);
	close(dfd);
}

static void test_rescan_keeps_keys(void **state)
{
	struct pj_set *s, *t, *u;
	uint32_t k1, k2;

	(void)state;
	mk("-r");
	write_log("-r/a.jsonl", "a", "/r", 1, "a", NULL);
	write_log("-r/b.jsonl", "b", "/r", 2, "b", NULL);
	s = scan(NULL);
	k1 = by_sid(s, "a")->key;
	k2 = by_sid(s, "b")->key;
	assert_int_not_equal(k1, k2);
	/* b grows (a torn last line waits), c appears, a goes. */
	put("-r/b.jsonl", "{\"type\":\"custom-title\",\"customTitle\":\"B!\",\"sessionId\":\"b\"}\n"
			  "{\"type\":\"user\",\"torn", 1);
	write_log("-r/c.jsonl", "c", "/r", 3, "c", NULL);
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/-r/a.jsonl", root);
		unlink(p);
	}
	t = scan(s);
	assert_int_equal(t->nsessions, 2);
	assert_null(by_sid(t, "a"));
	assert_int_equal(by_sid(t, "b")->key, k2);
	assert_string_equal(by_sid(t, "b")->f.title, "B!");
	assert_true(by_sid(t, "c")->key > k2);
	assert_null(pj_by_key(t, k1));
	assert_int_equal(t->errors.len, 0);
	/* Unchanged: the same facts, no read. */
	u = scan(t);
	assert_int_equal(by_sid(u, "c")->key, by_sid(t, "c")->key);
	assert_string_equal(by_sid(u, "b")->f.title, "B!");
	pj_free(s);
	pj_free(t);
	pj_free(u);
}

static void test_many_sessions(void **state)
{
	struct pj_set *s;
	char rel[64], sid[32];
	int i;
	uint32_t j;

	(void)state;
	mk("-many");
	for (i = 0; i < 10000; i++) {
		snprintf(sid, sizeof(sid), "s%05d", i);
		snprintf(rel, sizeof(rel), "-many/%s.jsonl", sid);
		write_log(rel, sid, "/many", i % 60, "same title", NULL);
	}
	s = scan(NULL);
	assert_int_equal(s->nsessions, 10000);
	assert_int_equal(s->projects[0].nsessions, 10000);
	for (j = 0; j < s->nsessions; j++) {
		assert_ptr_equal(pj_find_link(s, s->sessions[j].link), &s->sessions[j]);
		assert_ptr_equal(pj_by_key(s, s->sessions[j].key), &s->sessions[j]);
	}
	pj_free(s);
}

/* More folders than are held open at once (the scan reads them in runs):
 * every project and log is there, with the errors of each run in folder
 * order, and a rescan (a log changed in the last run, one log gone)
 * keeps the keys. */
static void test_many_projects(void **state)
{
	struct pj_set *s, *t;
	char rel[64], sid[32], cwd[32], err[128];
	const char *a, *b;
	int i;
	uint32_t j;

	(void)state;
	for (i = 0; i < 300; i++) {
		mk("-p%03d", i);
		snprintf(sid, sizeof(sid), "s%03d", i);
		snprintf(cwd, sizeof(cwd), "/p/%03d", i);
		snprintf(rel, sizeof(rel), "-p%03d/%s.jsonl", i, sid);
		write_log(rel, sid, cwd, i % 60, "t", NULL);
	}
	put("-p010/junk.jsonl", "not a log\n", 0);
	put("-p290/junk.jsonl", "not a log\n", 0);
	s = scan(NULL);
	assert_int_equal(s->nprojects, 300);
	assert_int_equal(s->nsessions, 300);
	for (j = 0; j < s->nprojects; j++)
		assert_int_equal(s->projects[j].nsessions, 1);
	a = strstr(s->errors.buf, "-p010/junk.jsonl: not a session log");
	b = strstr(s->errors.buf, "-p290/junk.jsonl: not a session log");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a < b);
	put("-p299/s299.jsonl", "{\"type\":\"custom-title\",\"customTitle\":\"New\",\"sessionId\":\"s299\"}\n", 1);
	snprintf(err, sizeof(err), "%s/-p000/s000.jsonl", root);
	assert_int_equal(unlink(err), 0);
	t = scan(s);
	assert_int_equal(t->nsessions, 299);
	assert_null(by_sid(t, "s000"));
	assert_int_equal(by_sid(t, "s150")->key, by_sid(s, "s150")->key);
	assert_int_equal(by_sid(t, "s299")->key, by_sid(s, "s299")->key);
	assert_string_equal(by_sid(t, "s299")->f.title, "New");
	pj_free(s);
	pj_free(t);
}

static void test_claude_dir_and_json(void **state)
{
	struct pj_set *s;
	struct sbuf out;

	(void)state;
	mk("projects");
	mk("projects/-q");
	write_log("projects/-q/a.jsonl", "a", "/q", 1, "say \\\"hi\\\"", NULL);
	s = scan(NULL);	/* root is a ~/.claude: its projects/ is taken */
	assert_int_equal(s->nsessions, 1);
	assert_non_null(strstr(s->root, "/projects"));
	sb_init(&out);
	pj_sessions_json(s, &out);
	assert_non_null(strstr(out.buf, "\"title\":\"say \\\"hi\\\"\""));
	assert_non_null(strstr(out.buf, "\"path\":\"-q/a.jsonl\""));
	assert_non_null(strstr(out.buf, "\"forkedFrom\":null"));
	sb_reset(&out);
	pj_facts_json(s, &out);
	assert_non_null(strstr(out.buf, "\"sessionCount\":1"));
	sb_free(&out);
	pj_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_are_safe),
		cmocka_unit_test(test_seq_file_names),
		cmocka_unit_test_setup_teardown(test_titles_and_facts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input_is_a_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clashes_get_suffixes, setup, teardown),
		cmocka_unit_test(test_unique_names_in_order),
		cmocka_unit_test_setup_teardown(test_fork_is_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rescan_keeps_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_sessions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_projects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_claude_dir_and_json, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
