/*
 * Helpers shared by the fuzz targets: checks that abort (libFuzzer then
 * saves the input), a private folder for the logs, and the promises of
 * the headers about text and names.
 */
#ifndef SESSFS_FUZZ_UTIL_H
#define SESSFS_FUZZ_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"
#include "sbuf.h"

#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #c);                                \
			abort();                                              \
		}                                                             \
	} while (0)

/* ---- the private folder ---- */

static char fz_root[4096];	/* made once per process, removed at exit */

static inline void fz_cleanup(void)
{
	char cmd[4200];

	if (!fz_root[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fz_root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: could not remove %s\n", fz_root);
}

/* Makes the private folder under $TMPDIR (once); 1 if it was made now. */
static inline int fz_make_root(const char *name)
{
	const char *tmp = getenv("TMPDIR");

	if (fz_root[0])
		return 0;
	snprintf(fz_root, sizeof(fz_root), "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	CHECK(mkdtemp(fz_root));
	atexit(fz_cleanup);
	return 1;
}

/* fz_root + "/" + rel, in a static buffer of its own per call site. */
#define FZ_PATH(buf, rel) (snprintf((buf), sizeof(buf), "%s/%s", fz_root, (rel)), (buf))

static inline void fz_put_dir(const char *path)
{
	CHECK(!mkdir(path, 0700) || errno == EEXIST);
}

static inline void fz_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(fd, c, n);

		CHECK(k > 0);
		c += k;
		n -= (size_t)k;
	}
}

static inline void fz_put_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	CHECK(fd >= 0);
	fz_write_all(fd, p, n);
	close(fd);
}

/* The lowest free file descriptor. Taken before and after an input, the
 * two agree unless the input left one open (libFuzzer opens its own, e.g.
 * pipes to llvm-symbolizer, between inputs, so only within one input is
 * this a test). */
static inline int fz_lowest_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	close(fd);
	return fd;
}

/* ---- what the headers promise ---- */

/* The length of the valid UTF-8 at the start of s[0..n). */
static inline size_t fz_utf8_len(const char *s, size_t n)
{
	size_t i = 0, k;

	for (; i < n; i += k)
		if (!(k = utf8_seq_len((const unsigned char *)s + i, n - i)))
			break;
	return i;
}

/* Valid UTF-8, and (when nl) ending in a newline; else shows it, aborts. */
static inline void fz_check_utf8(const struct sbuf *sb, const char *what, int nl)
{
	size_t i = fz_utf8_len(sb->buf, sb->len);

	if (i == sb->len && (!nl || (sb->len && sb->buf[sb->len - 1] == '\n')))
		return;
	fprintf(stderr, "%s: not UTF-8 text%s (byte %zu of %zu):\n", what,
		nl ? " ending in a newline" : "", i, sb->len);
	fwrite(sb->buf, 1, sb->len, stderr);
	abort();
}

static inline uint32_t fz_count_lines(const struct sbuf *sb)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < sb->len; i++)
		n += sb->buf[i] == '\n';
	return n;
}

/* A name made from the log: [A-Za-z0-9._-], 1..NM_MAX bytes, not "." or
 * ".." (names.h). */
static inline void fz_check_name(const char *s)
{
	size_t n = strlen(s);

	CHECK(n > 0 && n <= NM_MAX);
	CHECK(strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		     "0123456789._-") == n);
	CHECK(strcmp(s, ".") && strcmp(s, ".."));
}

#endif
