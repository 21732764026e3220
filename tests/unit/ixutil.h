/*
 * The idx tests' own helpers: an index of a file of our own, appends to it,
 * lookups, a big row, and the comparison of two indexes field by field.
 * Shared by test_idx.c (fields, bad lines) and test_idx_extend.c (growth,
 * two threads, copies). Header-only, like testutil.h.
 */
#ifndef SESSFS_IXUTIL_H
#define SESSFS_IXUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>

#include "testutil.h"
#include "idx.h"
#include "jscan.h"

/* An index of a file, and the file. */
struct ixf {
	char *path;
	int fd;
	struct idx *ix;
};

static inline void ixf_open_n(struct ixf *x, const char *data, size_t n)
{
	x->path = tu_write(data, n);
	x->fd = open(x->path, O_RDONLY);
	x->ix = idx_new();
	assert_true(x->fd >= 0);
	assert_non_null(x->ix);
}

static inline void ixf_close(struct ixf *x)
{
	idx_free(x->ix);
	close(x->fd);
	tu_remove(x->path);
}

/* Indexes data as a complete log. */
static inline void ixf_full(struct ixf *x, const char *data, size_t n)
{
	ixf_open_n(x, data, n);
	assert_int_equal(idx_finish(x->ix, x->fd), 0);
}

static inline void append(const char *path, const char *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static inline uint32_t id_of(const struct idx *ix, int n)
{
	char u[37];

	tu_uuid(n, u);
	return idx_id_find(ix, u, 36);
}

static inline const char *atom(const struct idx *ix, uint16_t a)
{
	return idx_atom(ix, a);
}

static inline int64_t ts_of(const char *iso)
{
	struct js_str s = { iso, strlen(iso), 0 };
	int64_t ms;

	assert_int_equal(js_time(&s, &ms), 0);
	return ms;
}

/* Everything the index holds, compared between two indexes. */
static inline void assert_same_index(const struct idx *a, const struct idx *b)
{
	uint32_t i;

	assert_int_equal(idx_nrecs(a), idx_nrecs(b));
	assert_int_equal(idx_nerrs(a), idx_nerrs(b));
	assert_int_equal(idx_lines(a), idx_lines(b));
	assert_int_equal(idx_nids(a), idx_nids(b));
	assert_int_equal(idx_end(a), idx_end(b));
	assert_int_equal(idx_pending(a), idx_pending(b));
	for (i = 0; i < idx_nrecs(a); i++) {
		const struct idx_rec *x = idx_rec(a, i), *y = idx_rec(b, i);

		assert_int_equal(x->off, y->off);
		assert_true(x->ts == y->ts);
		assert_true(x->msgid == y->msgid);
		assert_true(x->useid == y->useid);
		assert_int_equal(x->len, y->len);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->uuid, y->uuid);
		assert_int_equal(x->parent, y->parent);
		assert_int_equal(x->aux, y->aux);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->rlen, y->rlen);
		assert_int_equal(x->type_atom, y->type_atom);
		assert_int_equal(x->sub, y->sub);
		assert_int_equal(x->name, y->name);
		assert_string_equal(atom(a, x->type_atom), atom(b, y->type_atom));
		assert_string_equal(atom(a, x->sub), atom(b, y->sub));
		assert_string_equal(atom(a, x->name), atom(b, y->name));
		assert_int_equal(x->type, y->type);
		assert_int_equal(x->block, y->block);
		assert_int_equal(x->drop, y->drop);
	}
	for (i = 0; i < idx_nerrs(a); i++) {
		const struct idx_err *x = idx_err(a, i), *y = idx_err(b, i);

		assert_int_equal(x->off, y->off);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->col, y->col);
		assert_int_equal(x->code, y->code);
	}
	for (i = 1; i <= idx_nids(a); i++) {
		char ba[IDX_UUID_MAX + 1], bb[IDX_UUID_MAX + 1];

		idx_id_buf(a, i, ba);
		idx_id_buf(b, i, bb);
		assert_string_equal(ba, bb);
	}
}

/* A user row whose content is a string of n bytes (with escapes in it). */
static inline void add_big_row(struct sbuf *sb, int uuid, int parent, size_t n)
{
	char u[37], p[37];
	size_t start;

	tu_uuid(uuid, u);
	tu_uuid(parent, p);
	sb_addf(sb, "{\"parentUuid\":\"%s\",\"type\":\"user\",\"message\":{\"role\":\"user\","
		"\"content\":\"", p);
	start = sb->len;
	sb_grow(sb, n);
	memset(sb->buf + sb->len, 'x', n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	/* escapes scattered through it, one across the 1 MiB mark */
	memcpy(sb->buf + start + 1000, "\\\"", 2);
	memcpy(sb->buf + start + IDX_CHUNK - 1, "\\\\", 2);
	sb_addf(sb, "\"},\"uuid\":\"%s\",\"timestamp\":\"2026-01-01T10:00:05.000Z\","
		"\"sessionId\":\"" TU_SID "\"}\n", u);
}

#endif
