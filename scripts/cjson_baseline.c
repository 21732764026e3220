/*
 * cjson_baseline: the naive way to index a session log, as a benchmark baseline.
 *
 * Usage: cjson_baseline LOG.jsonl
 *
 * Reads LOG with read() in large chunks, splits it on '\n', parses every line
 * fully with cJSON, looks up "uuid" and "parentUuid" as an indexer would, and
 * frees the tree. Prints "lines=N records=N bytes=N" on stdout, where records
 * are the lines that parsed as JSON objects; the counts of chain records (a
 * string uuid) and of lines that did not parse go to stderr.
 *
 * Build: cc -O2 -std=c11 -Wall -Wextra -Werror -D_FILE_OFFSET_BITS=64 \
 *            cjson_baseline.c $(pkg-config --cflags --libs libcjson)
 */
#define _POSIX_C_SOURCE 200809L

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (16u << 20) /* least room offered to read(); lines may be longer */

struct reader {
	int fd;
	char *buf;
	size_t cap;
	size_t len;   /* bytes in buf */
	size_t pos;   /* start of the next line */
	size_t scan;  /* no '\n' in [pos, scan) */
	bool eof;
	uint64_t bytes;
};

struct counts {
	uint64_t lines;
	uint64_t records; /* lines that parsed as JSON objects */
	uint64_t chain;   /* records with a string "uuid" */
	uint64_t bad;     /* non-empty lines that did not parse */
};

/* Keep the unread tail, make room for CHUNK more bytes and read them.
 * Returns 0 or a negative errno. */
static int reader_fill(struct reader *r)
{
	ssize_t got;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->scan -= r->pos;
		r->pos = 0;
	}
	if (r->cap - r->len < CHUNK) {
		size_t cap = r->cap ? r->cap : 2 * CHUNK;
		char *p;

		while (cap - r->len < CHUNK)
			cap *= 2;
		p = realloc(r->buf, cap);
		if (!p)
			return -ENOMEM;
		r->buf = p;
		r->cap = cap;
	}
	do
		got = read(r->fd, r->buf + r->len, r->cap - r->len);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	r->eof = got == 0;
	r->len += (size_t)got;
	r->bytes += (uint64_t)got;
	return 0;
}

/* The next line, without its '\n' (the last one may lack it).
 * Returns 1, 0 at the end of the file, or a negative errno. */
static int reader_line(struct reader *r, const char **line, size_t *n)
{
	for (;;) {
		char *nl = r->scan < r->len ? memchr(r->buf + r->scan, '\n', r->len - r->scan) : NULL;
		int err;

		if (nl || (r->eof && r->pos < r->len)) {
			size_t end = nl ? (size_t)(nl - r->buf) : r->len;

			*line = r->buf + r->pos;
			*n = end - r->pos;
			r->pos = r->scan = nl ? end + 1 : end;
			return 1;
		}
		if (r->eof)
			return 0;
		r->scan = r->len;
		err = reader_fill(r);
		if (err)
			return err;
	}
}

/* Parse one line, pick out the graph fields, free the tree. */
static void index_line(const char *line, size_t n, struct counts *c)
{
	cJSON *root;
	const cJSON *uuid, *parent;

	c->lines++;
	if (!n)
		return;
	root = cJSON_ParseWithLength(line, n);
	if (!root) {
		c->bad++;
		return;
	}
	if (cJSON_IsObject(root)) {
		uuid = cJSON_GetObjectItemCaseSensitive(root, "uuid");
		parent = cJSON_GetObjectItemCaseSensitive(root, "parentUuid");
		c->records++;
		c->chain += cJSON_IsString(uuid) && (cJSON_IsString(parent) || cJSON_IsNull(parent));
	}
	cJSON_Delete(root);
}

int main(int argc, char **argv)
{
	struct reader r = { .fd = -1 };
	struct counts c = { 0 };
	const char *line = NULL;
	size_t n = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: cjson_baseline LOG.jsonl\n");
		return 2;
	}
	r.fd = open(argv[1], O_RDONLY);
	if (r.fd < 0) {
		fprintf(stderr, "cjson_baseline: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while ((rc = reader_line(&r, &line, &n)) > 0)
		index_line(line, n, &c);
	close(r.fd);
	free(r.buf);
	if (rc < 0) {
		fprintf(stderr, "cjson_baseline: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	printf("lines=%llu records=%llu bytes=%llu\n", (unsigned long long)c.lines,
	       (unsigned long long)c.records, (unsigned long long)r.bytes);
	fprintf(stderr, "cjson_baseline: chain=%llu bad=%llu\n", (unsigned long long)c.chain,
		(unsigned long long)c.bad);
	return 0;
}
