/*
 * test_export: what ex_vfs() decides about DEST (export.h). A DEST that
 * holds anything (a file, a hidden file, an empty folder) is refused with
 * -ENOTEMPTY and left as it was; an empty or missing one is written; with
 * force, what stands in the way of an entry (a file, a symbolic link, never
 * followed) is replaced and the rest of DEST is left.
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

#include "export.h"
#include "session.h"
#include "testutil.h"
#include "tree.h"

static char root[64];
static char *log_path;
static struct tree *tree;

static int setup(void **state)
{
	struct tu_log l;
	struct session *s;

	(void)state;
	tu_tmp_folder(root, "/tmp/sessfs-ex-XXXXXX", NULL);
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	tu_asst(&l, 2, 1, "msg_1", "hello");
	log_path = tu_write_str(l.sb.buf);
	tu_log_free(&l);
	assert_int_equal(ss_open(log_path, SS_LIVE, &s), 0);
	assert_non_null(tree = tr_new(s));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tr_free(tree);
	tu_remove(log_path);
	tu_rm_tree(root);
	return 0;
}

/* The names in folder rel of root, sorted, space separated. */
static char *names(const char *rel)
{
	char path[256], cmd[400];
	static char out[4096];
	FILE *p;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | LC_ALL=C sort | tr '\\n' ' '", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	return out;
}

static int export_to(const char *rel, int force)
{
	struct ex_opts o = { .force = force };
	struct vfs v = { &tr_vfs_ops, tree };
	struct ex_stats st;
	char dest[256];
	int rc;

	snprintf(dest, sizeof(dest), "%s/%s", root, rel);
	rc = ex_vfs(&v, VF_ROOT, dest, &o, &st);
	if (!rc)
		assert_int_equal(st.errors, 0);
	return rc;
}

/* The bytes of root/rel (a new string), or "" when it cannot be read. */
static char *text_of(const char *rel)
{
	char buf[8192], path[256];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if ((f = fopen(path, "r"))) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return strdup(buf);
}

/* Whether root/rel holds text. */
static void holds(const char *rel, const char *text)
{
	char *got = text_of(rel);

	assert_string_equal(got, text);
	free(got);
}

static void mkdir_in(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void test_not_empty_is_refused(void **state)
{
	(void)state;
	mkdir_in("file");
	tu_put(root, "file/x", "mine\n", 0);
	assert_int_equal(export_to("file", 0), -ENOTEMPTY);
	assert_string_equal(names("file"), "x ");
	holds("file/x", "mine\n");

	mkdir_in("hidden");
	tu_put(root, "hidden/.keep", "", 0);
	assert_int_equal(export_to("hidden", 0), -ENOTEMPTY);
	assert_string_equal(names("hidden"), ".keep ");

	mkdir_in("folder");
	mkdir_in("folder/sub");
	assert_int_equal(export_to("folder", 0), -ENOTEMPTY);
	assert_string_equal(names("folder"), "sub ");
	assert_string_equal(names("folder/sub"), "");
}

static void test_empty_or_missing_is_written(void **state)
{
	const char *want = "README.md agents branches context errors.txt records session.json "
			   "state transcripts usage.json ";

	(void)state;
	mkdir_in("empty");
	assert_int_equal(export_to("empty", 0), 0);
	assert_string_equal(names("empty"), want);
	assert_int_equal(export_to("missing", 0), 0);
	assert_string_equal(names("missing"), want);
	/* written once: now it is not empty */
	assert_int_equal(export_to("missing", 0), -ENOTEMPTY);
}

static void test_force_replaces_what_is_in_the_way(void **state)
{
	char target[256], link[256], *readme, *json;
	struct stat st;

	(void)state;
	assert_int_equal(export_to("ref", 0), 0);
	readme = text_of("ref/README.md");
	json = text_of("ref/session.json");
	assert_true(strlen(readme) > 0 && strlen(json) > 0);

	mkdir_in("f");
	mkdir_in("f/mine");
	tu_put(root, "f/x", "mine\n", 0);
	tu_put(root, "f/README.md", "old\n", 0);
	tu_put(root, "outside", "not to be written\n", 0);
	snprintf(target, sizeof(target), "%s/outside", root);
	snprintf(link, sizeof(link), "%s/f/session.json", root);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(export_to("f", 0), -ENOTEMPTY);	/* not without force */
	holds("f/README.md", "old\n");
	assert_int_equal(export_to("f", 1), 0);
	holds("f/x", "mine\n");
	assert_string_equal(names("f/mine"), "");
	holds("f/README.md", readme);
	holds("outside", "not to be written\n");	/* the link not followed */
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	holds("f/session.json", json);
	free(readme);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_empty_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_or_missing_is_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_force_replaces_what_is_in_the_way, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
