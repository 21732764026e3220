/*
 * test_pjcache: the projects layer's calls (pjfs.h) through a cache too
 * small for one session, which closes it at the end of every request (as
 * fuzz_fs's cache of one session does when it moves on): what getattr
 * said, the content read next agrees with, whether the log grew between
 * or not; a session whose log was deleted answers from its tree while an
 * open folder keeps it open, and ENOENT (never other bytes) once the
 * cache closed it, as its folder's next scan drops it
 * (tests/fuzz/seeds/fs-projects-content-enoent.jsonl: that read).
 */
#include <errno.h>
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

#include "pjfs.h"
#include "pjfs_priv.h"
#include "sbuf.h"
#include "testutil.h"

#define REL "-home-u-app/" TU_SID ".jsonl"

static char root[64], log_path[128];

/* Turn n of the log (a prompt and its answer, chained to turn n - 1),
 * appended to it (n > 0) or as the whole log. */
static void put_turn(int n)
{
	struct tu_log l;
	char msgid[32];

	tu_log_init(&l);
	tu_at(&l, TU_T0 + n * 2000);
	snprintf(msgid, sizeof(msgid), "msg_%d", n);
	tu_user(&l, 2 * n + 1, 2 * n, "prompt");
	tu_asst(&l, 2 * n + 2, 2 * n + 1, msgid, "answer");
	tu_put(root, REL, l.sb.buf, n > 0);
	tu_log_free(&l);
}

static int setup(void **state)
{
	(void)state;
	tu_tmp_folder(root, "/tmp/sessfs-pc-XXXXXX", "-home-u-app");
	snprintf(log_path, sizeof(log_path), "%s/%s", root, REL);
	put_turn(0);
	put_turn(1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rm_tree(root);
	return 0;
}

/* A layer whose cache holds no session past a request. */
static struct pjfs *layer(void)
{
	struct pjfs *pf;

	assert_int_equal(pf_new(root, 1, &pf), 0);
	assert_int_equal(pf->cur->s->nsessions, 1);
	return pf;
}

static uint64_t session_root(struct pjfs *pf)
{
	return PF_OUTER(pf->cur->s->sessions[0].key, TI_ROOT);
}

static int is_open(struct pjfs *pf)
{
	struct slot *sl;
	int open;

	pthread_mutex_lock(&pf->mu);
	sl = pf->slots[pf->cur->s->sessions[0].key];
	open = sl && sl->t;
	pthread_mutex_unlock(&pf->mu);
	return open;
}

/* getattr, then the content: 0 and the size getattr said, or the
 * content's error (getattr's when it failed). */
static int stat_read(struct pjfs *pf, uint64_t ino)
{
	struct vf_attr a;
	struct blob *b;
	int rc = pf_vfs_ops.getattr(pf, ino, &a);

	if (rc)
		return rc;
	assert_true(S_ISREG(a.st.st_mode));
	rc = pf_vfs_ops.content(pf, ino, &b);
	if (rc)
		return rc;
	assert_int_equal(b->len, (size_t)a.st.st_size);
	blob_unref(b);
	return 0;
}

/* The inode of path (names separated by '/') under the session's folder. */
static uint64_t in_session(struct pjfs *pf, const char *path)
{
	char buf[256], *name, *save = NULL;
	uint64_t ino = session_root(pf);
	struct vf_attr a;

	snprintf(buf, sizeof(buf), "%s", path);
	for (name = strtok_r(buf, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		assert_int_equal(pf_vfs_ops.lookup(pf, ino, name, &a), 0);
		ino = a.st.st_ino;
	}
	return ino;
}

/* Every file of the session's main branch read as ls -l and cat do;
 * their count in *nfiles, the first one's inode in *first. */
static void read_branch(struct pjfs *pf, size_t *nfiles, uint64_t *first)
{
	uint64_t dir = in_session(pf, "branches/main");
	char name[NM_MAX + 1];
	struct vf_attr a;
	struct vf_dir *d;
	uint64_t i;
	int rc;

	*nfiles = 0;
	assert_int_equal(pf_vfs_ops.opendir(pf, dir, &d), 0);
	for (i = 2; (rc = pf_vfs_ops.dir_entry(pf, d, i, name, &a)) > 0; i++)
		if (S_ISREG(a.st.st_mode)) {
			assert_int_equal(stat_read(pf, a.st.st_ino), 0);
			if (!(*nfiles)++)
				*first = a.st.st_ino;
		}
	assert_int_equal(rc, 0);
	pf_vfs_ops.closedir(pf, d);
}

/* The log grows before or between the calls: each one opens the session
 * again (from the grown log), and getattr and the content agree. */
static void test_grown_between(void **state)
{
	struct pjfs *pf = layer();
	uint64_t json = in_session(pf, "session.json");
	uint64_t msg, m;
	size_t before, after;
	struct vf_attr a;
	struct blob *b;
	int n;

	(void)state;
	read_branch(pf, &before, &msg);
	assert_true(before > 0);
	assert_false(is_open(pf));
	for (n = 2; n < 10; n += 2) {
		put_turn(n);
		assert_int_equal(stat_read(pf, json), 0);
		assert_false(is_open(pf));
		/* a message never changes: not even between the two calls */
		assert_int_equal(pf_vfs_ops.getattr(pf, msg, &a), 0);
		put_turn(n + 1);
		assert_int_equal(pf_vfs_ops.content(pf, msg, &b), 0);
		assert_int_equal(b->len, (size_t)a.st.st_size);
		blob_unref(b);
	}
	read_branch(pf, &after, &m);
	assert_int_equal(m, msg);
	assert_true(after > before);
	pf_free(pf);
}

/* The log is deleted: an open folder keeps the session's tree open, which
 * follows the file it has open and answers; the cache closes it when the
 * folder is closed, and the session cannot be opened again: its files
 * answer ENOENT, and the folder's next scan drops it. */
static void test_deleted(void **state)
{
	struct pjfs *pf = layer();
	uint64_t json = in_session(pf, "session.json"), sess = session_root(pf);
	struct vf_attr a;
	struct blob *b;
	struct vf_dir *d;

	(void)state;
	assert_int_equal(pf_vfs_ops.opendir(pf, sess, &d), 0);
	assert_int_equal(unlink(log_path), 0);
	assert_int_equal(stat_read(pf, json), 0);
	assert_int_equal(pf_vfs_ops.getattr(pf, json, &a), 0);
	pf_vfs_ops.closedir(pf, d);
	assert_false(is_open(pf));
	assert_int_equal(pf_vfs_ops.content(pf, json, &b), -ENOENT);
	assert_int_equal(pf_vfs_ops.getattr(pf, json, &a), -ENOENT);
	usleep((PF_RESCAN_MS + 100) * 1000);
	assert_int_equal(pf_vfs_ops.getattr(pf, sess, &a), -ENOENT);
	pf_free(pf);
}

/* Deleted and written again before the folder is scanned: the session is
 * opened again from the new log. */
static void test_written_again(void **state)
{
	struct pjfs *pf = layer();
	uint64_t json = in_session(pf, "session.json");

	(void)state;
	assert_int_equal(unlink(log_path), 0);
	put_turn(0);
	assert_int_equal(stat_read(pf, json), 0);
	pf_free(pf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grown_between, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_written_again, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
