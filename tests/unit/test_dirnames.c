/*
 * dirnames: a folder's filtered names are read once while it is unchanged,
 * read again when an entry comes or goes, and never kept while its mtime
 * is too fresh to tell a later change by.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "dirnames.h"

static int is_log(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, ".jsonl");
}

static char *new_dir(void)
{
	char *d = strdup("/tmp/sessfs-dn-XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	tu_put(d, "b.jsonl", "x\n", 0);
	tu_put(d, "a.jsonl", "x\n", 0);
	tu_put(d, "notes.txt", "x\n", 0);
	return d;
}

/* Moves the folder's mtime back by a minute (as a folder long untouched). */
static void age(const char *d)
{
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= 60;
	t[1] = t[0];
	assert_int_equal(utimensat(AT_FDCWD, d, t, 0), 0);
}

static void rm_dir(char *d)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
	free(d);
}

/* Names of d (two expected first): checks them and returns how many. */
static size_t names_of(const char *d)
{
	char **v;
	size_t n;

	assert_int_equal(dn_names(d, is_log, &v, &n), 0);
	assert_true(n >= 2);
	assert_string_equal(v[0], "a.jsonl");
	assert_string_equal(v[1], "b.jsonl");
	dn_free(v, n);
	return n;
}

static void test_unchanged_folder_is_read_once(void **state)
{
	char *d = new_dir();
	unsigned long r0;

	(void)state;
	dn_forget();
	age(d);
	r0 = dn_reads();
	assert_int_equal(names_of(d), 2);
	assert_int_equal(names_of(d), 2);
	assert_int_equal(names_of(d), 2);
	assert_int_equal(dn_reads() - r0, 1);
	rm_dir(d);
}

static void test_added_entry_is_seen(void **state)
{
	char *d = new_dir();
	unsigned long r0;

	(void)state;
	dn_forget();
	age(d);
	assert_int_equal(names_of(d), 2);
	tu_put(d, "c.jsonl", "x\n", 0);
	r0 = dn_reads();
	assert_int_equal(names_of(d), 3);
	assert_int_equal(dn_reads() - r0, 1);
	rm_dir(d);
}

static void test_fresh_folder_is_not_kept(void **state)
{
	char *d = new_dir();
	unsigned long r0;

	(void)state;
	dn_forget();
	r0 = dn_reads();
	assert_int_equal(names_of(d), 2);
	assert_int_equal(names_of(d), 2);
	assert_int_equal(dn_reads() - r0, 2);
	rm_dir(d);
}

static void test_missing_folder_is_an_error(void **state)
{
	char **v = (char **)1;
	size_t n = 7;

	(void)state;
	assert_int_equal(dn_names("/nonexistent/sessfs-dn", is_log, &v, &n), -ENOENT);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_int_equal(dn_read("/nonexistent/sessfs-dn", NULL, &v, &n), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged_folder_is_read_once),
		cmocka_unit_test(test_added_entry_is_seen),
		cmocka_unit_test(test_fresh_folder_is_not_kept),
		cmocka_unit_test(test_missing_folder_is_an_error),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	dn_forget();
	return rc;
}
