/*
 * test_pjrescan: when the projects layer looks at its folder again
 * (pjfs.h): a request for this layer's own nodes or a session's folder
 * rescans once PF_RESCAN_MS passed since the last scan, or PF_RESCAN_SHARE
 * times that scan's time when longer; a request inside a session does not;
 * a folder that did not change keeps its set (the same generation, so what
 * the kernel keeps stays valid); a session removed is dropped and closed.
 * The clock is not waited for: the last scan's time is set back.
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

static char root[64];

/* Session sid's log: one turn. */
static void put_session(const char *sid)
{
	char rel[128];
	struct tu_log l;

	tu_log_init(&l);
	tu_user(&l, 1, 0, "prompt");
	tu_asst(&l, 2, 1, "msg_1", "answer");
	snprintf(rel, sizeof(rel), "-home-u-app/%s.jsonl", sid);
	tu_put(root, rel, l.sb.buf, 0);
	tu_log_free(&l);
}

static int setup(void **state)
{
	(void)state;
	tu_tmp_folder(root, "/tmp/sessfs-pr-XXXXXX", "-home-u-app");
	put_session(TU_SID);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rm_tree(root);
	return 0;
}

/* The last scan as if it ended ms ago and took took_ms. */
static void scanned_ago(struct pjfs *pf, int64_t ms, int64_t took_ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	pthread_mutex_lock(&pf->mu);
	pf->scanned_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - ms;
	pf->scan_ms = took_ms;
	pthread_mutex_unlock(&pf->mu);
}

/* The sessions the current set holds, after a request for ino. */
static uint32_t sessions_after(struct pjfs *pf, uint64_t ino)
{
	struct vf_attr a;
	uint32_t n;

	pf_vfs_ops.getattr(pf, ino, &a);
	pthread_mutex_lock(&pf->mu);
	n = pf->cur->s->nsessions;
	pthread_mutex_unlock(&pf->mu);
	return n;
}

static void test_rescan_waits_its_gap(void **state)
{
	struct pjfs *pf;

	(void)state;
	assert_int_equal(pf_new(root, PF_CACHE_DEFAULT, &pf), 0);
	put_session("second");
	assert_int_equal(sessions_after(pf, PI_ROOT), 1);	/* scanned just now */
	scanned_ago(pf, PF_RESCAN_MS - 200, 0);
	assert_int_equal(sessions_after(pf, PI_ROOT), 1);
	scanned_ago(pf, PF_RESCAN_MS, 0);
	assert_int_equal(sessions_after(pf, PI_ROOT), 2);
	/* and not again before the gap */
	put_session("third");
	assert_int_equal(sessions_after(pf, PI_PROJECTS), 2);
	/* a scan that took 300 ms: the gap is ten times that */
	scanned_ago(pf, 2 * PF_RESCAN_MS, 300);
	assert_int_equal(sessions_after(pf, PI_SESSIONS), 2);
	scanned_ago(pf, 300 * PF_RESCAN_SHARE, 300);
	assert_int_equal(sessions_after(pf, PI_SESSIONS), 3);
	pf_free(pf);
}

/* Which requests look at the folder again: this layer's own nodes and a
 * session's folder, not a file inside a session. */
static void test_which_requests_rescan(void **state)
{
	struct pjfs *pf;
	uint32_t key;

	(void)state;
	assert_int_equal(pf_new(root, PF_CACHE_DEFAULT, &pf), 0);
	key = pf->cur->s->sessions[0].key;
	put_session("second");
	scanned_ago(pf, PF_RESCAN_MS, 0);
	assert_int_equal(sessions_after(pf, PF_OUTER(key, TI_README)), 1);
	assert_int_equal(sessions_after(pf, PF_OUTER(key, TI_BRANCHES)), 1);
	assert_int_equal(sessions_after(pf, PF_OUTER(key, TI_ROOT)), 2);
	put_session("third");
	scanned_ago(pf, PF_RESCAN_MS, 0);
	assert_int_equal(sessions_after(pf, PI_SESSIONS_JSON), 3);
	pf_free(pf);
}

/* A folder that did not change keeps its set; one that changed gets a new
 * one, and a session gone from it is closed. */
static void test_unchanged_keeps_its_set(void **state)
{
	struct pjfs *pf;
	struct pset *p;
	struct vf_attr a;
	uint64_t gen, sess;
	uint32_t key;
	struct slot *sl;
	char path[160];

	(void)state;
	put_session("second");
	assert_int_equal(pf_new(root, PF_CACHE_DEFAULT, &pf), 0);
	p = pf->cur;
	gen = p->gen;
	scanned_ago(pf, PF_RESCAN_MS, 0);
	assert_int_equal(sessions_after(pf, PI_ROOT), 2);
	assert_ptr_equal(pf->cur, p);
	assert_int_equal(pf->cur->gen, gen);

	key = pf->cur->s->sessions[0].key;
	sess = PF_OUTER(key, TI_ROOT);
	assert_int_equal(pf_vfs_ops.getattr(pf, PF_OUTER(key, TI_README), &a), 0);
	sl = pf->slots[key];
	assert_true(sl && sl->t);			/* open */
	snprintf(path, sizeof(path), "%s/%s", root, pf->cur->s->sessions[0].path);
	assert_int_equal(unlink(path), 0);
	scanned_ago(pf, PF_RESCAN_MS, 0);
	assert_int_equal(pf_vfs_ops.getattr(pf, sess, &a), -ENOENT);
	assert_int_equal(pf->cur->s->nsessions, 1);
	assert_true(pf->cur->gen > gen);
	assert_true(!pf->slots[key] || !pf->slots[key]->t);	/* closed */
	pf_free(pf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rescan_waits_its_gap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_which_requests_rescan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unchanged_keeps_its_set, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
