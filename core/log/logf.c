#include "logf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "jtree.h"

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

int lf_dup(const struct logf *lf, struct logf **out)
{
	struct logf *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d || !(d->path = strdup(lf->path))) {
		free(d);
		return -ENOMEM;
	}
	d->fd = fcntl(lf->fd, F_DUPFD_CLOEXEC, 0);
	if (d->fd < 0) {
		int e = -errno;

		free(d->path);
		free(d);
		return e;
	}
	*out = d;
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

int lf_stat(const struct logf *lf, struct stat *st)
{
	return fstat(lf->fd, st) < 0 ? -errno : 0;
}

int lf_read(const struct logf *lf, const struct idx_rec *r, struct sbuf *out)
{
	return lf_read_part(lf, r, r->len, out);
}

int lf_read_part(const struct logf *lf, const struct idx_rec *r, size_t len,
		 struct sbuf *out)
{
	size_t got = 0;

	sb_grow(out, len);
	while (got < len) {
		ssize_t n = pread(lf->fd, out->buf + out->len + got, len - got,
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

/* The next "\\u" followed by 'd' or 'D' at or after p (the start of what
 * may be a surrogate escape), or NULL. Sixteen bytes at a time. */
static char *next_surrogate(char *p, char *e)
{
#ifdef __SSE2__
	const __m128i bs = _mm_set1_epi8('\\'), u = _mm_set1_epi8('u'),
		      d = _mm_set1_epi8('d'), lower = _mm_set1_epi8(0x20);

	while (e - p >= 18) {
		__m128i a = _mm_loadu_si128((const __m128i *)(void *)p),
			b = _mm_loadu_si128((const __m128i *)(void *)(p + 1)),
			c = _mm_loadu_si128((const __m128i *)(void *)(p + 2));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(
			_mm_and_si128(_mm_cmpeq_epi8(a, bs), _mm_cmpeq_epi8(b, u)),
			_mm_cmpeq_epi8(_mm_or_si128(c, lower), d)));

		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	for (; e - p >= 3; p++)
		if (p[0] == '\\' && p[1] == 'u' && (p[2] | 0x20) == 'd')
			return p;
	return NULL;
}

/*
 * Rewrites lone surrogate escapes as \ufffd, in place (same length).
 * Backslashes pair up from the start of each run of them, so a "\\u" is an
 * escape when an even number of backslashes stands before it; a high
 * surrogate followed by a low one is a pair and kept.
 */
void lf_fix_surrogates(char *p, size_t n)
{
	char *s = p, *e = p + n, *q = p, *b;

	while ((q = next_surrogate(q, e))) {
		unsigned hi, lo;

		for (b = q; b > s && b[-1] == '\\'; b--)
			;
		if (((q - b) & 1) || hex4(q + 2, e, &hi) || hi < 0xd800) {
			q += 2;
			continue;
		}
		if (hi <= 0xdbff && e - q >= 12 && q[6] == '\\' && q[7] == 'u' &&
		    !hex4(q + 8, e, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
			q += 12;
			continue;
		}
		memcpy(q + 2, "fffd", 4);
		q += 6;
	}
}

/* Parses n bytes at p, which the caller owns and lets us rewrite. */
static cJSON *parse_owned(char *p, size_t n)
{
	while (n && *p == '\0')
		p++, n--;
	lf_fix_surrogates(p, n);
	return jt_parse(p, n);
}

cJSON *lf_parse_in_place(char *p, size_t n)
{
	return parse_owned(p, n);
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

/* Reads at least need bytes from off into a's buffer (a run of them if
 * the log has them): 0, or -EIO when it cannot (a read error, or the log
 * no longer that long). */
static int ahead_fill(const struct logf *lf, struct lf_ahead *a, uint64_t off, size_t need)
{
	size_t want, got = 0;

	if (!a->ready) {
		sb_init(&a->buf);
		a->ready = 1;
		a->run = LF_AHEAD_MIN;
	} else if (off >= a->off) {
		a->run = a->run < LF_AHEAD ? 2 * a->run : LF_AHEAD;	/* on in order */
	} else {
		a->run = LF_AHEAD_MIN;	/* back: read no more than a little */
	}
	want = need > a->run ? need : a->run;
	sb_reset(&a->buf);
	sb_grow(&a->buf, want);
	a->off = off;
	while (got < want) {
		ssize_t n = pread(lf->fd, a->buf.buf + got, want - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	a->buf.len = got;
	a->buf.buf[got] = '\0';
	return got >= need ? 0 : -EIO;
}

char *lf_ahead_get(const struct logf *lf, struct lf_ahead *a, const struct idx_rec *r)
{
	if ((!a->ready || r->off < a->off || r->off + r->len > a->off + a->buf.len) &&
	    ahead_fill(lf, a, r->off, r->len))
		return NULL;
	return a->buf.buf + (r->off - a->off);
}

void lf_ahead_free(struct lf_ahead *a)
{
	if (a->ready)
		sb_free(&a->buf);
	a->ready = 0;
}
