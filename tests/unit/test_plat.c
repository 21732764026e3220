/*
 * plat: on Linux with glibc each name does what the call it stands for
 * does, seen from outside: the times a struct stat holds, to the
 * nanosecond; the heap's tuning, as glibc's counters (mallinfo2()) show
 * it; the arena a new thread allocates from; the scheduling class of a
 * background thread; a thread's name; how often work ahead yields; the
 * mount table.
 *
 * The heap checks need glibc's allocator: under AddressSanitizer, whose
 * allocator ignores mallopt(), they are skipped (the plain build runs
 * them). The arena check must run before any other thread allocates
 * (glibc fixes the number of arenas on the first one made), so it comes
 * first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "plat.h"

#if defined(__SANITIZE_ADDRESS__)
#define GLIBC_HEAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLIBC_HEAP 0
#endif
#endif
#ifndef GLIBC_HEAP
#if defined(__GLIBC__)
#define GLIBC_HEAP 1
#else
#define GLIBC_HEAP 0
#endif
#endif

/* The yields pl_offer_cpu() makes, counted: this definition takes the
 * place of libc's for the objects linked into this test (core's plat.o). */
static int yields;

int sched_yield(void)
{
	__atomic_add_fetch(&yields, 1, __ATOMIC_RELAXED);
	return 0;
}

static int64_t mono_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* ---- the heap (first: see above) ---- */

static int data_here;		/* in the executable's data, below the heap */

static void *alloc_small(void *arg)
{
	(void)arg;
	return malloc(64);
}

/* With one arena, a new thread's blocks come from the main heap (between
 * the executable's data and the program break), not from an arena of its
 * own (mmap'ed, far above). */
static void test_threads_share_the_main_arena(void **state)
{
	pthread_t th;
	void *p, *brk;

	(void)state;
	if (!GLIBC_HEAP) {
		print_message("skipped: the arena check (not glibc's allocator)\n");
		skip();
	}
	pl_one_arena();
	assert_int_equal(pthread_create(&th, NULL, alloc_small, NULL), 0);
	assert_int_equal(pthread_join(th, &p), 0);
	assert_non_null(p);
	brk = sbrk(0);
	if (!((uintptr_t)p > (uintptr_t)&data_here && (uintptr_t)p < (uintptr_t)brk))
		fail_msg("a thread's block at %p: not in the main heap (%p .. %p)", p,
			 (void *)&data_here, brk);
	free(p);
}

#if GLIBC_HEAP
static size_t heap_bytes(void)
{
	return mallinfo2().arena;
}

static size_t mmapped_blocks(void)
{
	return mallinfo2().hblks;
}
#endif

/* pl_tune_heap(): a block below 32 MB comes from the heap, and freeing it
 * keeps the heap (below 256 MB); pl_trim_heap() gives it back;
 * pl_pad_heap() grows the heap by at least that much at a time. */
static void test_heap_tuning(void **state)
{
#if GLIBC_HEAP
	const size_t big = 16 << 20, pad = 8 << 20;
	size_t h0, h1, h2, h3, m0;
	char *p;

	(void)state;
	pl_tune_heap();
	pl_trim_heap();
	h0 = heap_bytes();
	m0 = mmapped_blocks();
	p = malloc(big);
	assert_non_null(p);
	memset(p, 1, big);
	assert_int_equal(mmapped_blocks(), m0);		/* not mmap'ed */
	h1 = heap_bytes();
	assert_true(h1 >= h0 + big);
	free(p);
	assert_true(heap_bytes() >= h1 - (64 << 10));	/* kept */
	pl_trim_heap();
	h2 = heap_bytes();
	if (h2 > h1 - big + (1 << 20))
		fail_msg("the heap after a trim: %zu bytes, %zu before", h2, h1);

	pl_pad_heap(pad);
	p = malloc(1 << 20);
	assert_non_null(p);
	h3 = heap_bytes();
	if (h3 < h2 + pad)
		fail_msg("padded by %zu: the heap grew from %zu to %zu only", pad, h2, h3);
	free(p);
	pl_pad_heap(128 << 10);
	pl_trim_heap();
#else
	(void)state;
	print_message("skipped: the heap checks (not glibc's allocator)\n");
	skip();
#endif
}

/* ---- times, folders, mounts ---- */

static void test_times_are_those_of_stat(void **state)
{
	char path[] = "/tmp/sessfs-plat-XXXXXX";
	struct timespec set[2] = { { 1000000001, 123456789 }, { 1700000002, 987654321 } };
	struct stat st;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(futimens(fd, set), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(PL_ATIM(st).tv_sec, 1000000001);
	assert_int_equal(PL_ATIM(st).tv_nsec, 123456789);
	assert_int_equal(PL_MTIM(st).tv_sec, 1700000002);
	assert_int_equal(PL_MTIM(st).tv_nsec, 987654321);
	assert_int_equal(PL_CTIM(st).tv_sec, st.st_ctime);
	assert_true(PL_CTIM(st).tv_sec >= time(NULL) - 60);
	/* lvalues: their addresses set the times back */
	PL_ATIM(st).tv_nsec = 5;
	PL_MTIM(st).tv_nsec = 7;
	set[0] = PL_ATIM(st);
	set[1] = PL_MTIM(st);
	assert_int_equal(futimens(fd, set), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(PL_ATIM(st).tv_nsec, 5);
	assert_int_equal(PL_MTIM(st).tv_nsec, 7);
	close(fd);
	unlink(path);
}

/* PL_O_PATH opens a folder for openat() and nothing else: not to read. */
static void test_folder_opens_for_openat(void **state)
{
	int fd = open("/", PL_O_PATH | O_DIRECTORY | O_CLOEXEC);
	char c;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(faccessat(fd, ".", F_OK, 0), 0);
	assert_true(fcntl(fd, F_GETFL) & O_PATH);
	assert_int_equal(read(fd, &c, 1), -1);
	assert_int_equal(errno, EBADF);
	close(fd);
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
	assert_int_equal(pl_mounted("/proc", "proc", type, sizeof(type)), 1);
	assert_string_equal(type, "proc");
	assert_int_equal(pl_mount_dead("/"), 0);
	assert_int_equal(pl_mount_dead("/no/such/mountpoint"), 0);
}

/* ---- threads ---- */

struct seen {
	char name[16];
	int policy;
};

static void *named(void *arg)
{
	struct seen *s = arg;

	pl_name_thread("sessfs-test");
	pthread_getname_np(pthread_self(), s->name, sizeof(s->name));
	pl_background_thread();
	s->policy = sched_getscheduler(0);
	return NULL;
}

static void test_thread_name_and_class(void **state)
{
	struct seen s = { "", -1 };
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, named, &s), 0);
	pthread_join(th, NULL);
	assert_string_equal(s.name, "sessfs-test");
	assert_int_equal(s.policy, SCHED_BATCH);
	assert_int_equal(sched_getscheduler(0), SCHED_OTHER);	/* that thread's only */
}

/* Work ahead yields at most once per PL_OFFER_GAP_US, and not at all when
 * its work is wanted or the thread is not ahead. */
static void test_offer_cpu(void **state)
{
	int wanted = 0, i, n;
	int64_t t0, took;

	(void)state;
	yields = 0;
	for (i = 0; i < 1000; i++)
		pl_offer_cpu();			/* not ahead */
	assert_int_equal(yields, 0);

	pl_ahead_work(&wanted);
	t0 = mono_us();
	for (i = 0; i < 100000; i++)
		pl_offer_cpu();
	took = mono_us() - t0;
	n = yields;
	assert_true(n >= 1);
	if (n > took / PL_OFFER_GAP_US + 1)
		fail_msg("%d yields in %lld us", n, (long long)took);
	while (mono_us() - t0 < took + 2 * PL_OFFER_GAP_US)
		;
	pl_offer_cpu();
	assert_int_equal(yields, n + 1);	/* the gap passed */

	wanted = 1;
	t0 = mono_us();
	while (mono_us() - t0 < 2 * PL_OFFER_GAP_US)
		;
	for (i = 0; i < 1000; i++)
		pl_offer_cpu();
	assert_int_equal(yields, n + 1);	/* a reader waits for it */
	pl_ahead_work(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_share_the_main_arena),
		cmocka_unit_test(test_heap_tuning),
		cmocka_unit_test(test_times_are_those_of_stat),
		cmocka_unit_test(test_folder_opens_for_openat),
		cmocka_unit_test(test_root_is_mounted_and_alive),
		cmocka_unit_test(test_thread_name_and_class),
		cmocka_unit_test(test_offer_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
