/*
 * test_stale: an inode handed out before its log was indexed again from
 * scratch (an earlier epoch of its view, tree.h) answers -ESTALE to every
 * call, so that the kernel walks the path again; never -ENOENT (the
 * kernel would drop the name and tell the reader it is gone) and never
 * another record's bytes. An inode no node ever had answers -ENOENT. Both
 * through a session's tree (tr_*) and through the projects layer (pf_vfs_ops),
 * whose sessions keep their epochs across a close (lv_mark()) and in the
 * cache.
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
#include "testutil.h"
#include "tree_priv.h"

#define REL "-home-u-app/" TU_SID ".jsonl"

/* n turns (a prompt and its answer), the first one's rows numbered from
 * base: two logs with other bases name other records. */
static void turns(struct tu_log *l, int base, int n)
{
	char msgid[32];
	int i;

	tu_log_init(l);
	for (i = 0; i < n; i++) {
		snprintf(msgid, sizeof(msgid), "msg_%03d", base + i);
		tu_user(l, base + 2 * i + 1, i ? base + 2 * i : 0, "prompt");
		tu_asst(l, base + 2 * i + 2, base + 2 * i + 1, msgid, "answer");
	}
}

/* ---- the calls a layer answers, on one inode ---- */

struct layer {
	int (*getattr)(void *fs, uint64_t ino, struct vf_attr *out);
	int (*lookup)(void *fs, uint64_t parent, const char *name, struct vf_attr *out);
	void *fs;
	int (*opendir)(void *fs, uint64_t ino, struct vf_dir **out);
	void (*closedir)(void *fs, struct vf_dir *d);
	int (*content)(void *fs, uint64_t ino, struct blob **out);
	int (*readlink)(void *fs, uint64_t ino, char *out);
	int (*getxattr)(void *fs, uint64_t ino, const char *name, struct sbuf *out);
	int (*listxattr)(void *fs, uint64_t ino, struct sbuf *out);
};

static struct layer of_vfs(const struct vf_ops *ops, void *fs)
{
	return (struct layer){ ops->getattr, ops->lookup, fs, ops->opendir, ops->closedir,
			       ops->content, ops->readlink, ops->getxattr, ops->listxattr };
}

/* Every call on ino (a folder's lookup and listing, a file's content, a
 * link's target, the extended attributes) fails: with -ESTALE when stale,
 * else with another error (which one depends on the call). */
static void all_answer(const struct layer *L, uint64_t ino, int stale, const char *what)
{
	char target[NM_MAX + 1];
	struct vf_attr a;
	struct vf_dir *d = NULL;
	struct blob *b = NULL;
	struct sbuf sb;
	int rc[7];
	int i;

	sb_init(&sb);
	rc[0] = L->getattr(L->fs, ino, &a);
	rc[1] = L->lookup(L->fs, ino, "main", &a);
	rc[2] = L->opendir(L->fs, ino, &d);
	rc[3] = L->content(L->fs, ino, &b);
	rc[4] = L->readlink(L->fs, ino, target);
	rc[5] = L->getxattr(L->fs, ino, "user.sessfs.uuid", &sb);
	rc[6] = L->listxattr(L->fs, ino, &sb);
	if (!rc[2])
		L->closedir(L->fs, d);
	if (!rc[3])
		blob_unref(b);
	sb_free(&sb);
	for (i = 0; i < 7; i++)
		if (stale ? rc[i] != -ESTALE : rc[i] >= 0 || rc[i] == -ESTALE)
			fail_msg("%s (%llx): call %d answered %d, %s -ESTALE", what,
				 (unsigned long long)ino, i, rc[i], stale ? "not" : "or");
}

static uint64_t look_up(const struct layer *L, uint64_t dir, const char *name)
{
	struct vf_attr a;

	assert_int_equal(L->lookup(L->fs, dir, name, &a), 0);
	return a.st.st_ino;
}

/* The inodes of one tree's nodes of every kind that carries an epoch,
 * under the session's folder root. */
struct held {
	uint64_t branches, main, msg, records, rec, current, context, ctxrow, readme;
};

static void take(const struct layer *L, uint64_t root, const char *uuid, struct held *h)
{
	char rec[64];

	h->branches = look_up(L, root, "branches");
	h->main = look_up(L, h->branches, "main");
	h->msg = look_up(L, h->main, "000001-user.md");
	h->current = look_up(L, h->branches, "current");
	h->records = look_up(L, root, "records");
	snprintf(rec, sizeof(rec), "%s.json", uuid);
	h->rec = look_up(L, h->records, rec);
	h->context = look_up(L, root, "context");
	h->ctxrow = look_up(L, h->context, "000001-user.md");
	h->readme = look_up(L, root, "README.md");
}

/* Every node of h is stale now (README.md, which carries no epoch, is
 * still there), and the new tree's inodes of the same names are others. */
static void all_stale(const struct layer *L, uint64_t root, const struct held *h)
{
	struct vf_attr a;
	uint64_t fresh;

	all_answer(L, h->branches, 1, "branches/");
	all_answer(L, h->main, 1, "branches/main/");
	all_answer(L, h->msg, 1, "a message file");
	all_answer(L, h->current, 1, "branches/current");
	all_answer(L, h->records, 1, "records/");
	all_answer(L, h->rec, 1, "a record");
	all_answer(L, h->context, 1, "context/");
	all_answer(L, h->ctxrow, 1, "a context row");
	assert_int_equal(L->getattr(L->fs, h->readme, &a), 0);
	fresh = look_up(L, root, "branches");
	assert_int_not_equal(fresh, h->branches);
	assert_int_equal(L->getattr(L->fs, fresh, &a), 0);
	assert_int_not_equal(look_up(L, look_up(L, fresh, "main"), "000001-user.md"), h->msg);
}

/* ---- a session's tree ---- */

static struct layer of_tree(struct tree *t)
{
	return of_vfs(&tr_vfs_ops, t);	/* the tree's calls as the vfs contract */
}

/* The log rewritten (other records, shorter: a shrink), replaced (another
 * file renamed over it), or rewritten in place with the same size and a
 * new mtime: indexed again at the next call, every inode of before stale. */
static void test_tree_inodes_go_stale(void **state)
{
	static const char *const how[] = { "shrunk", "replaced", "same size" };
	char uuid[37], other[300];
	struct tu_log a, b;
	struct session *s;
	struct tree *t;
	struct layer L;
	struct held h;
	char *path;
	int k;

	(void)state;
	tu_uuid(1, uuid);
	for (k = 0; k < 3; k++) {
		turns(&a, 0, 3);
		turns(&b, 100, k == 0 ? 2 : 3);
		assert_true(k == 0 || a.sb.len == b.sb.len);
		path = tu_write_str(a.sb.buf);
		assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
		assert_non_null(t = tr_new(s));
		L = of_tree(t);
		take(&L, TI_ROOT, uuid, &h);
		assert_false(vw_stale(t, h.msg));
		all_answer(&L, TR_IN_VIEW(TR_INO(TK_MSG, 1), 7, 0), 0, "no such view");
		if (k == 1) {
			snprintf(other, sizeof(other), "%s.new", path);
			tu_put("/", other, b.sb.buf, 0);
			assert_int_equal(rename(other, path), 0);
		} else {
			struct timespec ts[2] = { { 0, UTIME_OMIT }, { time(NULL) + 60, 0 } };

			tu_put("/", path, b.sb.buf, 0);
			assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
		}
		look_up(&L, TI_ROOT, "README.md");	/* a request looks first */
		if (!vw_stale(t, h.msg))
			fail_msg("%s: the log was not indexed again", how[k]);
		all_stale(&L, TI_ROOT, &h);
		/* a record of this epoch that the log does not hold */
		all_answer(&L, TR_IN_VIEW(TR_INO(TK_MSG, 9999), 0, t->views[0]->epoch),
			   0, "no such record");
		tr_free(t);
		tu_remove(path);
		tu_log_free(&a);
		tu_log_free(&b);
	}
}

/*
 * A link read is the first request after a write that moves the current
 * branch (a rewind: a new prompt under the first answer): it looks at the
 * log first, as getattr does, so the link of before names no branch now
 * (-ENOENT, and the kernel asks again) rather than the branch it named.
 */
static void test_link_read_looks_at_the_log_first(void **state)
{
	char target[NM_MAX + 1];
	struct tu_log a, more;
	struct session *s;
	struct tree *t;
	struct layer L;
	uint64_t current;
	char *path;

	(void)state;
	turns(&a, 0, 2);
	path = tu_write_str(a.sb.buf);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	assert_non_null(t = tr_new(s));
	L = of_tree(t);
	current = look_up(&L, look_up(&L, TI_ROOT, "branches"), "current");
	assert_int_equal(L.readlink(L.fs, current, target), 0);
	assert_string_equal(target, "main");
	tu_log_init(&more);
	tu_at(&more, a.ms);
	tu_user(&more, 9, 2, "another way");
	tu_put("/", path, more.sb.buf, 1);
	assert_int_equal(L.readlink(L.fs, current, target), -ENOENT);
	tr_free(t);
	tu_remove(path);
	tu_log_free(&a);
	tu_log_free(&more);
}

/* ---- the projects layer ---- */

static char root[64], log_path[128];

static int setup(void **state)
{
	struct tu_log l;

	(void)state;
	tu_tmp_folder(root, "/tmp/sessfs-st-XXXXXX", "-home-u-app");
	snprintf(log_path, sizeof(log_path), "%s/%s", root, REL);
	turns(&l, 0, 3);
	tu_put(root, REL, l.sb.buf, 0);
	tu_log_free(&l);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rm_tree(root);
	return 0;
}

/* The log replaced by n turns of other records: another file renamed
 * over it, or (shrink) written over it, shorter. */
static void replace_log(int n, int shrink)
{
	char tmp[160];
	struct tu_log l;

	snprintf(tmp, sizeof(tmp), "%s.new", log_path);
	turns(&l, 100, n);
	tu_put("/", shrink ? log_path : tmp, l.sb.buf, 0);
	if (!shrink)
		assert_int_equal(rename(tmp, log_path), 0);
	tu_log_free(&l);
}

/* cache_bytes 1: the session is closed after every request and opened
 * again with the epochs its mark kept (a replaced log: a new one); a big
 * cache: it stays open and its tree indexes the new log. */
static void stale_in_projects(uint64_t cache_bytes, int shrink)
{
	struct pjfs *pf;
	struct layer L;
	struct held h;
	uint64_t sess;
	char uuid[37];

	assert_int_equal(pf_new(root, cache_bytes, &pf), 0);
	assert_int_equal(pf->cur->s->nsessions, 1);
	L = of_vfs(&pf_vfs_ops, pf);
	sess = PF_OUTER(pf->cur->s->sessions[0].key, TI_ROOT);
	tu_uuid(1, uuid);
	take(&L, sess, uuid, &h);
	replace_log(shrink ? 2 : 3, shrink);
	all_stale(&L, sess, &h);
	/* another session's key, and a key no session has */
	all_answer(&L, PF_OUTER(pf->cur->s->sessions[0].key + 1, TI_BRANCHES), 0,
		   "no such session");
	pf_free(pf);
}

static void test_projects_closed_session_goes_stale(void **state)
{
	(void)state;
	stale_in_projects(1, 0);	/* replaced, the same size */
	teardown(NULL);
	setup(NULL);
	stale_in_projects(1, 1);	/* shrunk */
}

static void test_projects_open_session_goes_stale(void **state)
{
	(void)state;
	stale_in_projects(PF_CACHE_DEFAULT, 0);
	teardown(NULL);
	setup(NULL);
	stale_in_projects(PF_CACHE_DEFAULT, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_inodes_go_stale),
		cmocka_unit_test(test_link_read_looks_at_the_log_first),
		cmocka_unit_test_setup_teardown(test_projects_closed_session_goes_stale, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_projects_open_session_goes_stale, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
