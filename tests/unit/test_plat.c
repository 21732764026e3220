/*
 * plat: on Linux each name is the call it stands for.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plat.h"

static void test_times_are_those_of_stat(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(stat("/", &st), 0);
	assert_int_equal(PL_MTIM(st).tv_sec, st.st_mtime);
	assert_int_equal(PL_ATIM(st).tv_sec, st.st_atime);
	assert_int_equal(PL_CTIM(st).tv_sec, st.st_ctime);
	PL_MTIM(st).tv_sec = 12345;	/* an lvalue */
	assert_int_equal(st.st_mtime, 12345);
}

static void test_root_is_mounted_and_alive(void **state)
{
	char type[64] = "", small[3] = "";

	(void)state;
	assert_int_equal(pl_mounted("/", "", type, sizeof(type)), 1);
	assert_true(type[0] != '\0');
	assert_int_equal(pl_mounted("/", type, small, sizeof(small)), 1);
	assert_int_equal(strlen(small), 2);	/* truncated */
	assert_int_equal(pl_mounted("/", "no-such-fs-type", type, sizeof(type)), 0);
	assert_int_equal(pl_mounted("/no/such/mountpoint", "", type, sizeof(type)), 0);
	assert_int_equal(pl_mount_dead("/"), 0);
	assert_int_equal(pl_mount_dead("/no/such/mountpoint"), 0);
}

static void *named(void *arg)
{
	char *name = arg;

	pl_name_thread("sessfs-test");
	pthread_getname_np(pthread_self(), name, 16);
	return NULL;
}

static void test_thread_gets_its_name(void **state)
{
	char name[16] = "";
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, named, name), 0);
	pthread_join(th, NULL);
	assert_string_equal(name, "sessfs-test");
}

static void test_folder_opens_for_openat(void **state)
{
	int fd = open("/", PL_O_PATH | O_DIRECTORY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(faccessat(fd, ".", F_OK, 0), 0);
	close(fd);
	pl_tune_heap();	/* and the heap calls run (their effect is in bench) */
	pl_one_arena();
	free(malloc(1 << 20));
	pl_trim_heap();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times_are_those_of_stat),
		cmocka_unit_test(test_root_is_mounted_and_alive),
		cmocka_unit_test(test_thread_gets_its_name),
		cmocka_unit_test(test_folder_opens_for_openat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
