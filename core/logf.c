#include "logf.h"

#include "jscan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct logf {
	int fd;
	char *path;
};

int lf_open(const char *path, struct logf **out)
{
	return lf_openat(AT_FDCWD, path, out);
}

int lf_openat(int dirfd, const char *path, struct logf **out)
{
	struct logf *lf;
	struct stat st;
	int fd;

	*out = NULL;
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	lf = calloc(1, sizeof(*lf));
	if (!lf || !(lf->path = strdup(path))) {
		free(lf);
		close(fd);
		return -ENOMEM;
	}
	lf->fd = fd;
	*out = lf;
	return 0;
}

void lf_close(struct logf *lf)
{
	if (!lf)
		return;
	close(lf->fd);
	free(lf->path);
	free(lf);
}

int lf_fd(const struct logf *lf) { return lf->fd; }
const char *lf_path(const struct logf *lf) { return lf->path; }

int lf_stat(const struct logf *lf, struct stat *st)
{
	return fstat(lf->fd, st) < 0 ? -errno : 0;
}

int lf_read(const struct logf *lf, const struct idx_rec *r, struct sbuf *out)
{
	size_t got = 0;

	sb_grow(out, r->len);
	while (got < r->len) {
		ssize_t n = pread(lf->fd, out->buf + out->len + got, r->len - got,
				  (off_t)(r->off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out->buf[out->len] = '\0';
			return n < 0 ? -errno : -EIO;
		}
		got += (size_t)n;
	}
	out->len += got;
	out->buf[out->len] = '\0';
	return 0;
}

static int hex4(const char *p, const char *e, unsigned *v)
{
	int i;

	if (e - p < 4)
		return -1;
	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/*
 * Rewrites lone surrogate escapes as \ufffd, in place (same length).
 * Only escapes matter, so every backslash pair is stepped over as a unit.
 */
static void fix_surrogates(char *p, size_t n)
{
	char *e = p + n;

	while ((p = memchr(p, '\\', (size_t)(e - p))) && p + 1 < e) {
		unsigned hi, lo;

		if (p[1] != 'u' || hex4(p + 2, e, &hi)) {
			p += 2;
			continue;
		}
		if (hi >= 0xd800 && hi <= 0xdbff && e - p >= 12 && p[6] == '\\' &&
		    p[7] == 'u' && !hex4(p + 8, e, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
			p += 12;
			continue;
		}
		if (hi >= 0xd800 && hi <= 0xdfff)
			memcpy(p + 2, "fffd", 4);
		p += 6;
	}
}

/* Parses n bytes at p, which the caller owns and lets us rewrite. */
static cJSON *parse_owned(char *p, size_t n)
{
	while (n && *p == '\0')
		p++, n--;
	fix_surrogates(p, n);
	return cJSON_ParseWithLength(p, n);
}

cJSON *lf_parse_mem(const char *p, size_t n)
{
	char *copy = malloc(n + 1);
	cJSON *j;

	if (!copy)
		return NULL;
	memcpy(copy, p, n);
	copy[n] = '\0';
	j = parse_owned(copy, n);
	free(copy);
	return j;
}

cJSON *lf_parse(const struct logf *lf, const struct idx_rec *r)
{
	struct sbuf sb;
	cJSON *j = NULL;

	sb_init(&sb);
	if (!lf_read(lf, r, &sb))
		j = parse_owned(sb.buf, sb.len);
	sb_free(&sb);
	return j;
}

static int wanted(const struct js_str *k, const char *const *keys)
{
	for (; *keys; keys++)
		if (js_eq(k, *keys))
			return 1;
	return 0;
}

/* Adds the member at [v, end) named k to obj, parsed alone. */
static int add_member(cJSON *obj, const struct js_str *k, const char *v,
		      const char *end)
{
	char name[64];
	cJSON *item;

	if (k->escaped || k->n >= sizeof(name))
		return 0;
	memcpy(name, k->p, k->n);
	name[k->n] = '\0';
	item = cJSON_ParseWithLength(v, (size_t)(end - v));
	if (!item)
		return -1;
	cJSON_AddItemToObject(obj, name, item);
	return 0;
}

cJSON *lf_parse_keys(const struct logf *lf, const struct idx_rec *r,
		     const char *const *keys)
{
	struct sbuf sb;
	struct js_iter it;
	struct js_str k;
	const char *v, *p, *e;
	cJSON *obj = NULL;
	int rc;

	sb_init(&sb);
	if (lf_read(lf, r, &sb))
		goto out;
	p = sb.buf;
	e = sb.buf + sb.len;
	while (p < e && *p == '\0')
		p++;
	fix_surrogates((char *)p, (size_t)(e - p));
	if (js_obj_begin(&it, js_ws(p, e), e) || !(obj = cJSON_CreateObject()))
		goto out;
	while ((rc = js_obj_next(&it, &k, &v)) == 1) {
		const char *end = js_value(v, e);

		if (!end || (wanted(&k, keys) && add_member(obj, &k, v, end)))
			break;
		it.p = end;
	}
	if (rc != 0) {
		cJSON_Delete(obj);
		obj = NULL;
	}
out:
	sb_free(&sb);
	return obj;
}
