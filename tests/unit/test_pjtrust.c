/*
 * test_pjtrust: what issue 29 asked of the projects scan and of a session
 * whose log moves: the folder held by its descriptor (a rename does not
 * redirect it), a deleted folder said as such, what is taken as a projects
 * folder, a log named ".jsonl", each log's owner and mode; a session log
 * deleted is noted as deleted, not as changed in place; a log's stem.
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
#include "projects.h"
#include "session.h"
#include "testutil.h"

static char root[64];

static int setup(void **state)
{
	(void)state;
	tu_tmp_folder(root, "/tmp/sessfs-pjtrust-XXXXXX", NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s.moved'", root, root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* root/rel made (a folder). */
static void mk(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* A log of session sid, one user row, at dir/rel. */
static void put_log_in(const char *dir, const char *rel, const char *sid)
{
	char text[400];

	snprintf(text, sizeof(text),
		 "{\"parentUuid\":null,\"type\":\"user\",\"message\":{\"role\":\"user\","
		 "\"content\":\"hi\"},\"uuid\":\"%s-1\",\"timestamp\":\"2026-01-01T10:00:00.000Z\","
		 "\"sessionId\":\"%s\",\"cwd\":\"/home/u/app\"}\n", sid, sid);
	tu_put(dir, rel, text, 0);
}

static void put_log(const char *rel, const char *sid)
{
	put_log_in(root, rel, sid);
}

static struct pj_set *scan_at(int fd, const struct pj_set *prev)
{
	struct pj_set *s = NULL;

	assert_int_equal(pj_scan_at(fd, root, prev, &s), 0);
	return s;
}

static void test_stem(void **state)
{
	char out[LH_STEM_MAX + 1], longname[400];

	(void)state;
	assert_int_equal(lh_stem("abc.jsonl", out), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(lh_stem(".jsonl", out), 0);
	assert_string_equal(out, "");
	assert_int_equal(lh_stem("x.json", out), 6);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(lh_stem(longname, out), LH_STEM_MAX);
}

/* Renamed, the folder is still scanned by its descriptor, and another
 * folder at its old path is not; deleted, the scan says so. */
static void test_descriptor(void **state)
{
	char *r, moved[128], cmd[200];
	struct pj_set *s, *t, *u;
	int fd;

	(void)state;
	mk("-home-u-app");
	put_log("-home-u-app/a.jsonl", "a");
	assert_int_equal(pj_open_root(root, &r, &fd), 0);
	s = scan_at(fd, NULL);
	assert_int_equal(s->nsessions, 1);
	assert_int_equal(s->sessions[0].mode & 0777, 0644);
	assert_int_equal(s->sessions[0].uid, getuid());
	snprintf(moved, sizeof(moved), "%s.moved", root);
	assert_int_equal(rename(root, moved), 0);
	assert_int_equal(mkdir(root, 0755), 0);
	mk("-home-u-other");
	put_log("-home-u-other/z.jsonl", "z");
	put_log_in(moved, "-home-u-app/b.jsonl", "b");
	t = scan_at(fd, s);
	assert_int_equal(t->nsessions, 2);	/* a and b, never z */
	assert_string_equal(t->root, moved);	/* where it is now */
	assert_int_equal(t->sessions[0].key + t->sessions[1].key, 1 + 2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", moved);
	assert_int_equal(system(cmd), 0);
	u = scan_at(fd, t);
	assert_true(u->root_gone);
	assert_int_equal(u->nsessions, 0);
	pj_free(s);
	pj_free(t);
	pj_free(u);
	close(fd);
	free(r);
}

static void test_shape(void **state)
{
	struct pj_set *s;
	char sub[128];

	(void)state;
	mk("Documents");
	mk("-home-u-app");
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	assert_false(pj_is_projects(s));	/* a home folder */
	pj_free(s);
	snprintf(sub, sizeof(sub), "%s/Documents", root);
	assert_int_equal(rmdir(sub), 0);
	mk("C--Users-u-app");
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	assert_true(pj_is_projects(s));	/* project folders only, no log yet */
	pj_free(s);
	mk("notes");
	put_log("notes/a.jsonl", "a");	/* a session makes it one anyway */
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	assert_true(pj_is_projects(s));
	pj_free(s);
	mk("projects");		/* a ~/.claude: its empty projects/ */
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	assert_true(pj_is_projects(s));
	assert_int_equal(s->nsessions, 0);
	pj_free(s);
}

static void test_dot_jsonl(void **state)
{
	struct pj_set *s;
	struct sbuf e;

	(void)state;
	mk("-p");
	put_log("-p/.jsonl", "a");
	assert_int_equal(pj_scan(root, NULL, &s), 0);
	assert_int_equal(s->nsessions, 0);
	sb_init(&e);
	pj_errors_text(s, &e);
	assert_non_null(strstr(e.buf, "-p/.jsonl: no name before .jsonl"));
	sb_free(&e);
	pj_free(s);
}

/* A log deleted under an open session: noted as deleted, never as
 * changed in place, and still read; a new file at its path is followed. */
static void test_deleted_log(void **state)
{
	struct session *ss;
	struct sbuf e;
	char path[128];

	(void)state;
	put_log("s.jsonl", "s");
	snprintf(path, sizeof(path), "%s/s.jsonl", root);
	assert_int_equal(ss_open(path, SS_LIVE, &ss), 0);
	assert_int_equal(unlink(path), 0);
	assert_true(ss_changed(ss));
	assert_int_equal(ss_refresh(ss), SS_GREW);	/* a note */
	assert_int_equal(ss_refresh(ss), SS_SAME);
	sb_init(&e);
	ss_errors_text(ss, &e);
	assert_non_null(strstr(e.buf, "the log was deleted"));
	assert_null(strstr(e.buf, "in place"));
	assert_null(strstr(e.buf, "indexed again"));
	sb_reset(&e);
	ss_notes_text(ss, &e);
	assert_non_null(strstr(e.buf, "- "));
	assert_int_equal(idx_nrecs(ss_idx(ss)), 1);
	assert_int_equal(mkdir(path, 0700), 0);	/* a folder takes the path */
	assert_int_equal(ss_refresh(ss), SS_GREW);
	assert_int_equal(rmdir(path), 0);
	put_log("s.jsonl", "t");	/* the folder's inode, maybe */
	assert_int_equal(ss_refresh(ss), SS_RESET);
	sb_reset(&e);
	ss_errors_text(ss, &e);
	assert_non_null(strstr(e.buf, "a directory took the log's path"));
	assert_non_null(strstr(e.buf, "another file replaced the log"));
	sb_free(&e);
	ss_close(ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stem),
		cmocka_unit_test_setup_teardown(test_descriptor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dot_jsonl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_log, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
