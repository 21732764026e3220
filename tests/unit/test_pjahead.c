/*
 * test_pjahead: sessions opened ahead of a walk (pjahead.c, pjfs_cache.c)
 * on a small projects folder made here: a walk forward or backward has
 * the next sessions opened, the folder it lists listed in them (their
 * files rendered), and the whole tree of that folder when the walk goes
 * into it, a jump opens nothing more, and the cache keeps its bound
 * whatever was opened ahead.
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "pjahead.h"
#include "pjfs.h"
#include "pjfs_priv.h"
#include "projects.h"
#include "sbuf.h"
#include "testutil.h"

#define NSESS 24

static char root[64];

/* A log of a few turns, session i, started at minute i. */
static void write_session(int i)
{
	char sid[64], rel[128], parent[64];
	struct sbuf b;
	int n;

	snprintf(sid, sizeof(sid), "5e55f5%02d-0000-4000-8000-000000000000", i);
	snprintf(rel, sizeof(rel), "-home-u-app/%s.jsonl", sid);
	sb_init(&b);
	for (n = 0; n < 4; n++) {
		if (n)
			snprintf(parent, sizeof(parent), "\"%08d-0000-4000-8000-000000000000\"",
				 n - 1);
		else
			strcpy(parent, "null");
		sb_addf(&b, "{\"parentUuid\":%s,\"type\":\"user\","
			   "\"message\":{\"role\":\"user\",\"content\":\"prompt %d of %d\"},"
			   "\"uuid\":\"%08d-0000-4000-8000-000000000001\","
			   "\"timestamp\":\"2026-01-01T10:%02d:%02d.000Z\",\"sessionId\":\"%s\","
			   "\"cwd\":\"/home/u/app\",\"version\":\"2.1.328\"}\n",
			parent, n, i, n, i, n * 2, sid);
		sb_addf(&b, "{\"parentUuid\":\"%08d-0000-4000-8000-000000000001\","
			   "\"type\":\"assistant\",\"message\":{\"role\":\"assistant\","
			   "\"content\":[{\"type\":\"text\",\"text\":\"answer %d\"}]},"
			   "\"uuid\":\"%08d-0000-4000-8000-000000000000\","
			   "\"timestamp\":\"2026-01-01T10:%02d:%02d.000Z\",\"sessionId\":\"%s\"}\n",
			n, n, n, i, n * 2 + 1, sid);
	}
	tu_put(root, rel, b.buf, 0);
	sb_free(&b);
}

static int setup(void **state)
{
	int i;

	(void)state;
	tu_tmp_folder(root, "/tmp/sessfs-pa-XXXXXX", "-home-u-app");
	for (i = 0; i < NSESS; i++)
		write_session(i);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rm_tree(root);
	return 0;
}

/* The key of the session at position i of sessions/ (by name). */
static uint32_t key_at(struct pjfs *pf, uint32_t i)
{
	const struct pj_set *s = pf->cur->s;

	assert_true(i < s->nsessions);
	return s->sessions[s->by_link[i]].key;
}

/* A request in session i's folder, as a walk makes one. */
static void use(struct pjfs *pf, uint32_t i)
{
	struct vf_attr a;

	assert_int_equal(pf_vfs_ops.lookup(pf, PF_OUTER(key_at(pf, i), TI_ROOT), "branches", &a), 0);
}

static int is_open(struct pjfs *pf, uint32_t i)
{
	struct slot *sl;
	int open;

	pthread_mutex_lock(&pf->mu);
	sl = pf->slots[key_at(pf, i)];
	open = sl && sl->t;
	pthread_mutex_unlock(&pf->mu);
	return open;
}

/* Waits (at most 10 s) until session i is open; its result. */
static int opens(struct pjfs *pf, uint32_t i)
{
	int n;

	for (n = 0; n < 1000 && !is_open(pf, i); n++)
		usleep(10000);
	return is_open(pf, i);
}

/* Waits until the workers are done with the window (at most 60 s). */
static void settle(struct pjfs *pf)
{
	int i;

	for (i = 0; i < 6000 && !pa_idle(pf->ahead); i++)
		usleep(10000);
	assert_true(pa_idle(pf->ahead));
}

static void test_forward_walk(void **state)
{
	struct pjfs *pf;
	uint32_t i;

	(void)state;
	assert_int_equal(pf_new(root, PF_CACHE_DEFAULT, &pf), 0);
	assert_int_equal(pf->cur->s->nsessions, NSESS);
	use(pf, 0);
	use(pf, 1);
	for (i = 2; i < 2 + PA_WINDOW; i++)
		assert_true(opens(pf, i));
	settle(pf);
	assert_false(is_open(pf, 2 + PA_WINDOW));
	/* A jump: nothing more is opened for it. */
	use(pf, 20);
	settle(pf);
	for (i = 2 + PA_WINDOW; i < NSESS; i++)
		assert_int_equal(is_open(pf, i), i == 20);
	pf_free(pf);
}

static void test_backward_walk(void **state)
{
	struct pjfs *pf;
	uint32_t i;

	(void)state;
	assert_int_equal(pf_new(root, PF_CACHE_DEFAULT, &pf), 0);
	use(pf, NSESS - 1);
	use(pf, NSESS - 2);
	for (i = NSESS - 3; i >= NSESS - 2 - PA_WINDOW; i--)
		assert_true(opens(pf, i));
	settle(pf);
	assert_false(is_open(pf, NSESS - 3 - PA_WINDOW));
	assert_false(is_open(pf, 0));
	pf_free(pf);
}

/* The tree's rendered bytes of session i (0 when not open). */
static size_t rendered(struct pjfs *pf, uint32_t i)
{
	struct slot *sl;
	size_t n = 0;

	pthread_mutex_lock(&pf->mu);
	sl = pf->slots[key_at(pf, i)];
	if (sl && sl->t)
		n = tr_cached_bytes(sl->t);
	pthread_mutex_unlock(&pf->mu);
	return n;
}

/* Opens session i's current branch as grep -r does (lookups, opendir). */
static struct vf_dir *open_current(struct pjfs *pf, uint32_t i)
{
	uint64_t root_ino = PF_OUTER(key_at(pf, i), TI_ROOT);
	char target[NM_MAX + 1];
	struct vf_attr a, c;
	struct vf_dir *d;

	assert_int_equal(pf_vfs_ops.lookup(pf, root_ino, "branches", &a), 0);
	assert_int_equal(pf_vfs_ops.lookup(pf, a.st.st_ino, "current", &c), 0);
	assert_int_equal(pf_vfs_ops.readlink(pf, c.st.st_ino, target), 0);
	assert_int_equal(pf_vfs_ops.lookup(pf, a.st.st_ino, target, &c), 0);
	assert_int_equal(pf_vfs_ops.opendir(pf, c.st.st_ino, &d), 0);
	return d;
}

static void list_current(struct pjfs *pf, uint32_t i)
{
	pf_vfs_ops.closedir(pf, open_current(pf, i));
}

static void test_listing_ahead(void **state)
{
	struct pjfs *pf;
	uint32_t i;

	(void)state;
	assert_int_equal(pf_new(root, PF_CACHE_DEFAULT, &pf), 0);
	list_current(pf, 0);
	list_current(pf, 1);
	list_current(pf, 2);
	settle(pf);
	for (i = 3; i < 3 + PA_WINDOW; i++) {
		assert_true(is_open(pf, i));
		assert_true(rendered(pf, i) > 0);
	}
	pf_free(pf);
}

/* Lists session i's own folder, then, with deep, its branches/ in it, as
 * grep -r from the mount's root goes on into each session. */
static void list_root(struct pjfs *pf, uint32_t i, int deep)
{
	uint64_t root_ino = PF_OUTER(key_at(pf, i), TI_ROOT);
	struct vf_attr a;
	struct vf_dir *d;

	assert_int_equal(pf_vfs_ops.opendir(pf, root_ino, &d), 0);
	pf_vfs_ops.closedir(pf, d);
	if (!deep)
		return;
	assert_int_equal(pf_vfs_ops.lookup(pf, root_ino, "branches", &a), 0);
	assert_int_equal(pf_vfs_ops.opendir(pf, a.st.st_ino, &d), 0);
	pf_vfs_ops.closedir(pf, d);
}

/* The bytes of session i's current branch's files (rendered by this). */
static uint64_t branch_bytes(struct pjfs *pf, uint32_t i)
{
	struct vf_dir *d = open_current(pf, i);
	char name[NM_MAX + 1];
	struct vf_attr a;
	uint64_t n = 0, e;

	for (e = 2; pf_vfs_ops.dir_entry(pf, d, e, name, &a) > 0; e++)
		if (S_ISREG(a.st.st_mode))
			n += (uint64_t)a.st.st_size;
	pf_vfs_ops.closedir(pf, d);
	return n;
}

/* The bytes rendered ahead in the sessions after a walk of three from
 * session from whose listings went one folder deep (deep 0) or further
 * (deep 1), after a walk from session 0 that went deep when before is
 * set; the bytes of session 0's current branch in *branch. */
static size_t ahead_after(int before, uint32_t from, int deep, uint32_t *nopen,
			  uint64_t *branch)
{
	struct pjfs *pf;
	size_t n = 0;
	uint32_t i;

	assert_int_equal(pf_new(root, PF_CACHE_DEFAULT, &pf), 0);
	for (i = 0; before && i < 3; i++)
		list_root(pf, i, 1);
	for (i = from; i < from + 3; i++)
		list_root(pf, i, deep);
	settle(pf);
	*nopen = 0;
	for (i = from + 3; i < from + 3 + PA_WINDOW; i++) {
		*nopen += (uint32_t)is_open(pf, i);
		n += rendered(pf, i);
	}
	*branch = branch_bytes(pf, 0);
	pf_free(pf);
	return n;
}

/* A walk that goes into the folders of each session (grep -r from the
 * root) has the tree of the folder it lists first listed ahead, not that
 * folder alone: the files of the branches of the sessions ahead rendered
 * too (and their records, context and state). A later walk that lists
 * that folder alone has it alone listed ahead again. */
static void test_tree_ahead(void **state)
{
	uint32_t nshallow, ndeep, nafter;
	uint64_t branch;
	size_t shallow = ahead_after(0, 0, 0, &nshallow, &branch);
	size_t deep = ahead_after(0, 0, 1, &ndeep, &branch);
	size_t after = ahead_after(1, 12, 0, &nafter, &branch);

	(void)state;
	assert_int_equal(nshallow, PA_WINDOW);
	assert_int_equal(ndeep, PA_WINDOW);
	/* (the sessions of the walk before may take the cache's room) */
	assert_true(nafter > 0);
	assert_true(shallow > 0 && branch > 0);
	/* the sessions differ in a few digits of their text */
	assert_true(deep - shallow >= PA_WINDOW * branch * 9 / 10);
	assert_true(after / nafter < shallow / nshallow + branch / 2);
}

/* A cache of a few sessions: a walk over all of them stays within it. */
static void test_bound_kept(void **state)
{
	uint64_t bytes, opened, budget = 3 * PF_COST_FIXED;
	uint32_t i, nopen;
	struct pjfs *pf;

	(void)state;
	assert_int_equal(pf_new(root, budget, &pf), 0);
	for (i = 0; i < NSESS; i++) {
		use(pf, i);
		pf_cache_stats(pf, &nopen, &bytes, &opened);
		assert_true(bytes <= budget);
	}
	settle(pf);
	pf_cache_stats(pf, &nopen, &bytes, &opened);
	assert_true(bytes <= budget);
	assert_true(nopen <= 3);
	pf_free(pf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forward_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backward_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound_kept, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
