/*
 * sig: the signature depends on the bytes only, never on how they came in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>

#include "testutil.h"
#include "sig.h"

#define N 5000

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
}

static uint64_t at_once(const unsigned char *p, size_t n)
{
	struct sig g;

	sig_init(&g);
	sig_add(&g, p, n);
	return sig_value(&g);
}

static void test_pieces_of_any_size_give_the_same_value(void **state)
{
	unsigned char buf[N];
	unsigned seed = 7;
	struct sig g;
	size_t off, n;
	int run;

	(void)state;
	fill(buf, sizeof(buf), 1);
	for (run = 0; run < 200; run++) {
		sig_init(&g);
		for (off = 0; off < N; off += n) {
			seed = seed * 1103515245u + 12345u;
			n = (seed >> 16) % (run % 3 ? 70 : 7) + (run & 1);
			if (n > N - off)
				n = N - off;
			sig_add(&g, buf + off, n);
			assert_int_equal(sig_value(&g), at_once(buf, off + n));
		}
	}
}

static void test_one_changed_byte_or_length_changes_the_value(void **state)
{
	unsigned char buf[N];
	uint64_t v;
	size_t i;

	(void)state;
	fill(buf, sizeof(buf), 2);
	v = at_once(buf, N);
	for (i = 0; i < N; i += 37) {
		buf[i] ^= 0x20;
		assert_int_not_equal(at_once(buf, N), v);
		buf[i] ^= 0x20;
	}
	assert_int_equal(at_once(buf, N), v);
	for (i = 0; i < 70; i++)
		assert_int_not_equal(at_once(buf, N - 1 - i), v);
	memset(buf, 0, 64);
	assert_int_not_equal(at_once(buf, 33), at_once(buf, 32));	/* zeros count */
}

static void test_file_is_read_in_steps_up_to_an_end(void **state)
{
	static unsigned char big[3 * SIG_READ + 100];
	char *path;
	struct sig g;
	int fd;

	(void)state;
	fill(big, sizeof(big), 3);
	path = tu_write((const char *)big, sizeof(big));
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	sig_init(&g);
	assert_int_equal(sig_file(&g, fd, sizeof(big) - 10, 1000), 0);
	assert_int_equal(g.len, 1000);
	assert_int_equal(sig_file(&g, fd, sizeof(big) - 10, UINT64_MAX), 0);
	assert_int_equal(g.len, sizeof(big) - 10);
	assert_int_equal(sig_value(&g), at_once(big, sizeof(big) - 10));
	assert_int_equal(sig_file(&g, fd, sizeof(big) + 1, UINT64_MAX), -ENODATA);
	close(fd);
	tu_remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_of_any_size_give_the_same_value),
		cmocka_unit_test(test_one_changed_byte_or_length_changes_the_value),
		cmocka_unit_test(test_file_is_read_in_steps_up_to_an_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
