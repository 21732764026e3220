/*
 * tarw: the stream read back block by block: ustar headers (fields,
 * checksum, padding, the end), and the pax records for what ustar cannot
 * hold (long paths and link targets, nanoseconds, negative times,
 * extended attributes with any bytes).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbuf.h"
#include "tarw.h"

/* The stream a writer left in a temporary file. */
struct stream {
	char *buf;
	size_t len;
};

static int tmp_fd(void)
{
	char path[] = "/tmp/sessfs-tarw-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

static void read_back(int fd, struct stream *s)
{
	off_t n = lseek(fd, 0, SEEK_END);

	assert_true(n >= 0);
	s->len = (size_t)n;
	s->buf = malloc(s->len + 1);
	assert_non_null(s->buf);
	assert_int_equal(pread(fd, s->buf, s->len, 0), (ssize_t)s->len);
	close(fd);
}

static unsigned long long octal(const char *f, size_t n)
{
	char tmp[16];

	memcpy(tmp, f, n);
	tmp[n] = '\0';
	return strtoull(tmp, NULL, 8);
}

/* Checks the header at h (checksum, magic) and returns its size field. */
static uint64_t check_header(const char *h)
{
	unsigned sum = 0;
	size_t i;

	for (i = 0; i < TW_BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : (unsigned char)h[i];
	assert_int_equal(octal(h + 148, 7), sum);
	assert_memory_equal(h + 257, "ustar\0" "00", 8);
	return octal(h + 124, 12);
}

static size_t blocks(uint64_t n)
{
	return (size_t)((n + TW_BLOCK - 1) / TW_BLOCK) * TW_BLOCK;
}

/* The value of key in the pax records at p (n bytes); every record's
 * length must be its own. NULL if absent. */
static const char *pax_get(const char *p, size_t n, const char *key, size_t *vlen)
{
	size_t off = 0, klen = strlen(key);
	const char *found = NULL;

	while (off < n) {
		char *end;
		unsigned long len = strtoul(p + off, &end, 10);
		const char *kv = end + 1;

		assert_true(len > 0 && off + len <= n);
		assert_int_equal(p[off + len - 1], '\n');
		if (!strncmp(kv, key, klen) && kv[klen] == '=') {
			found = kv + klen + 1;
			*vlen = (size_t)(p + off + len - 1 - found);
		}
		off += len;
	}
	return found;
}

static struct tw_entry file_entry(const char *path, const char *data)
{
	struct tw_entry e;

	memset(&e, 0, sizeof(e));
	e.path = path;
	e.mode = S_IFREG | 0444;
	e.uid = 1000;
	e.gid = 100;
	e.uname = "me";
	e.gname = "us";
	e.mtime.tv_sec = 1700000000;
	e.data = data;
	e.size = strlen(data);
	return e;
}

static void test_plain_file_is_ustar_alone(void **state)
{
	int fd = tmp_fd();
	struct tarw *w = tw_new(fd);
	struct tw_entry e = file_entry("./a.md", "hello\n");
	struct stream s;

	(void)state;
	assert_int_equal(tw_add(w, &e), 0);
	assert_int_equal(tw_finish(w), 0);
	tw_free(w);
	read_back(fd, &s);
	assert_int_equal(s.len, 4 * TW_BLOCK);	/* header, data, end */
	assert_int_equal(check_header(s.buf), 6);
	assert_string_equal(s.buf, "./a.md");
	assert_int_equal(s.buf[156], '0');
	assert_int_equal(octal(s.buf + 100, 8), 0444);
	assert_int_equal(octal(s.buf + 108, 8), 1000);
	assert_int_equal(octal(s.buf + 136, 12), 1700000000);
	assert_string_equal(s.buf + 265, "me");
	assert_memory_equal(s.buf + TW_BLOCK, "hello\n\0", 7);
	for (size_t i = 2 * TW_BLOCK; i < s.len; i++)
		assert_int_equal(s.buf[i], 0);
	free(s.buf);
}

static void test_pax_long_path_nanoseconds_and_xattrs(void **state)
{
	int fd = tmp_fd();
	struct tarw *w = tw_new(fd);
	char path[301];
	static const char bin[] = "a\0b\nc=d";	/* NUL, newline and '=' */
	struct sbuf xs;
	struct tw_entry e;
	struct stream s;
	const char *v;
	size_t vlen, pax;

	(void)state;
	memset(path, 'p', 300);
	memcpy(path, "./", 2);
	path[300] = '\0';
	sb_init(&xs);
	tw_xattr_add(&xs, "user.sessfs.uuid", "u-1", 3);
	tw_xattr_add(&xs, "user.bin", bin, sizeof(bin) - 1);
	e = file_entry(path, "x");
	e.mtime.tv_nsec = 5;
	e.xattrs = &xs;
	assert_int_equal(tw_add(w, &e), 0);
	assert_int_equal(tw_finish(w), 0);
	tw_free(w);
	read_back(fd, &s);
	pax = check_header(s.buf);
	assert_int_equal(s.buf[156], 'x');
	v = pax_get(s.buf + TW_BLOCK, pax, "path", &vlen);
	assert_non_null(v);
	assert_int_equal(vlen, 300);
	assert_memory_equal(v, path, 300);
	v = pax_get(s.buf + TW_BLOCK, pax, "mtime", &vlen);
	assert_non_null(v);
	assert_memory_equal(v, "1700000000.000000005", vlen);
	v = pax_get(s.buf + TW_BLOCK, pax, "SCHILY.xattr.user.bin", &vlen);
	assert_non_null(v);
	assert_int_equal(vlen, sizeof(bin) - 1);
	assert_memory_equal(v, bin, vlen);
	assert_non_null(pax_get(s.buf + TW_BLOCK, pax, "SCHILY.xattr.user.sessfs.uuid", &vlen));
	/* The entry itself follows the pax data, its name cut to 100. */
	v = s.buf + TW_BLOCK + blocks(pax);
	assert_int_equal(check_header(v), 1);
	assert_memory_equal(v, path, 100);
	assert_int_equal(octal(v + 136, 12), 1700000000);
	sb_free(&xs);
	free(s.buf);
}

static void test_long_link_and_folder(void **state)
{
	int fd = tmp_fd();
	struct tarw *w = tw_new(fd);
	char target[151];
	struct tw_entry e;
	struct stream s;
	const char *v;
	size_t vlen, pax;

	(void)state;
	memset(target, 't', 150);
	target[150] = '\0';
	memset(&e, 0, sizeof(e));
	e.path = "./d/";
	e.mode = S_IFDIR | 0555;
	assert_int_equal(tw_add(w, &e), 0);
	e.path = "./d/l";
	e.mode = S_IFLNK | 0777;
	e.link = target;
	e.size = 99;		/* ignored: only files carry data */
	assert_int_equal(tw_add(w, &e), 0);
	assert_int_equal(tw_finish(w), 0);
	tw_free(w);
	read_back(fd, &s);
	assert_int_equal(check_header(s.buf), 0);
	assert_int_equal(s.buf[156], '5');
	assert_string_equal(s.buf, "./d/");
	pax = check_header(s.buf + TW_BLOCK);
	v = pax_get(s.buf + 2 * TW_BLOCK, pax, "linkpath", &vlen);
	assert_non_null(v);
	assert_int_equal(vlen, 150);
	v = s.buf + 2 * TW_BLOCK + blocks(pax);
	assert_int_equal(check_header(v), 0);
	assert_int_equal(v[156], '2');
	assert_int_equal(s.len, (size_t)(v - s.buf) + 3 * TW_BLOCK);
	free(s.buf);
}

/* A record's length counts its own digits: values around the lengths
 * where the count gains a digit. */
static void test_pax_record_lengths(void **state)
{
	size_t n;

	(void)state;
	for (n = 85; n < 110; n++) {
		int fd = tmp_fd();
		struct tarw *w = tw_new(fd);
		struct tw_entry e;
		struct stream s;
		char *path = malloc(n + 101);
		const char *v;
		size_t vlen;

		memset(path, 'q', n + 100);
		path[n + 100] = '\0';
		e = file_entry(path, "");
		assert_int_equal(tw_add(w, &e), 0);
		assert_int_equal(tw_finish(w), 0);
		tw_free(w);
		read_back(fd, &s);
		v = pax_get(s.buf + TW_BLOCK, check_header(s.buf), "path", &vlen);
		assert_non_null(v);
		assert_int_equal(vlen, n + 100);
		free(path);
		free(s.buf);
	}
}

static void test_negative_time(void **state)
{
	int fd = tmp_fd();
	struct tarw *w = tw_new(fd);
	struct tw_entry e = file_entry("./old", "");
	struct stream s;
	const char *v;
	size_t vlen;

	(void)state;
	e.mtime.tv_sec = -2;
	e.mtime.tv_nsec = 750000000;	/* -1.25 s */
	assert_int_equal(tw_add(w, &e), 0);
	assert_int_equal(tw_finish(w), 0);
	tw_free(w);
	read_back(fd, &s);
	v = pax_get(s.buf + TW_BLOCK, check_header(s.buf), "mtime", &vlen);
	assert_non_null(v);
	assert_memory_equal(v, "-1.250000000", vlen);
	assert_int_equal(octal(s.buf + TW_BLOCK + TW_BLOCK + 136, 12), 0);
	free(s.buf);
}

static void test_write_error_is_kept(void **state)
{
	struct tarw *w;
	struct tw_entry e = file_entry("./a", "data");

	(void)state;
	w = tw_new(-1);		/* not a descriptor: every write fails */
	assert_int_equal(tw_add(w, &e), 0);	/* buffered */
	assert_int_equal(tw_finish(w), -EBADF);
	assert_int_equal(tw_add(w, &e), -EBADF);
	tw_free(w);
}

static void test_hard_link_has_no_data(void **state)
{
	int fd = tmp_fd();
	struct tarw *w = tw_new(fd);
	struct tw_entry e = file_entry("./b/2.md", "the same text");
	struct stream s;

	(void)state;
	e.hardlink = "./a/1.md";
	assert_int_equal(tw_add(w, &e), 0);
	assert_int_equal(tw_finish(w), 0);
	tw_free(w);
	read_back(fd, &s);
	assert_int_equal(s.len, 3 * TW_BLOCK);	/* header, end */
	assert_int_equal(check_header(s.buf), 0);
	assert_int_equal(s.buf[156], '1');
	assert_string_equal(s.buf + 157, "./a/1.md");
	free(s.buf);
}

/* A file whose bytes follow its header in pieces is the same stream as
 * one added whole; pieces short of its size end in zeros (-ENODATA), one
 * past it is cut (-EOVERFLOW), and no entry goes in while bytes are due. */
static void test_streamed_file_is_the_same(void **state)
{
	int fd1 = tmp_fd(), fd2 = tmp_fd(), fd3 = tmp_fd();
	struct tarw *w1 = tw_new(fd1), *w2 = tw_new(fd2), *w3 = tw_new(fd3);
	struct tw_entry e = file_entry("./t.md", "first piece, second piece\n"), lazy = e;
	struct stream s1, s2, s3;

	(void)state;
	assert_int_equal(tw_add(w1, &e), 0);
	lazy.data = NULL;
	assert_int_equal(tw_add(w2, &lazy), 0);
	assert_int_equal(tw_add(w2, &e), -EINVAL);	/* bytes due */
	assert_int_equal(tw_data(w2, "first piece, ", 13), 0);
	assert_int_equal(tw_data(w2, "second piece\n and more", 23), -EOVERFLOW);
	assert_int_equal(tw_data_end(w2), 0);
	assert_int_equal(tw_data(w2, "x", 1), -EINVAL);	/* none due */
	assert_int_equal(tw_add(w3, &lazy), 0);
	assert_int_equal(tw_data(w3, "first", 5), 0);
	assert_int_equal(tw_data_end(w3), -ENODATA);
	assert_int_equal(tw_error(w3), 0);
	assert_int_equal(tw_finish(w1), 0);
	assert_int_equal(tw_finish(w2), 0);
	assert_int_equal(tw_finish(w3), 0);
	tw_free(w1);
	tw_free(w2);
	tw_free(w3);
	read_back(fd1, &s1);
	read_back(fd2, &s2);
	read_back(fd3, &s3);
	assert_int_equal(s1.len, s2.len);
	assert_memory_equal(s1.buf, s2.buf, s1.len);
	assert_int_equal(s3.len, s1.len);	/* well formed: zeros in place */
	assert_memory_equal(s3.buf + TW_BLOCK, "first\0\0\0", 8);
	free(s1.buf);
	free(s2.buf);
	free(s3.buf);
}

static void test_xattr_list_walk(void **state)
{
	struct sbuf xs;
	size_t off = 0;
	const char *name, *val;
	uint32_t len;

	(void)state;
	sb_init(&xs);
	tw_xattr_add(&xs, "user.a", "", 0);
	tw_xattr_add(&xs, "user.b", "xyz", 3);
	assert_true(tw_xattr_next(&xs, &off, &name, &val, &len));
	assert_string_equal(name, "user.a");
	assert_int_equal(len, 0);
	assert_true(tw_xattr_next(&xs, &off, &name, &val, &len));
	assert_string_equal(name, "user.b");
	assert_memory_equal(val, "xyz", 3);
	assert_false(tw_xattr_next(&xs, &off, &name, &val, &len));
	sb_free(&xs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_file_is_ustar_alone),
		cmocka_unit_test(test_pax_long_path_nanoseconds_and_xattrs),
		cmocka_unit_test(test_long_link_and_folder),
		cmocka_unit_test(test_pax_record_lengths),
		cmocka_unit_test(test_negative_time),
		cmocka_unit_test(test_write_error_is_kept),
		cmocka_unit_test(test_hard_link_has_no_data),
		cmocka_unit_test(test_streamed_file_is_the_same),
		cmocka_unit_test(test_xattr_list_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
