#include "tarw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TW_BUF (1u << 20)	/* bytes buffered before a write */
#define TW_OCT12_MAX 077777777777ULL	/* the largest 11-digit octal */
#define TW_OCT8_MAX 07777777ULL		/* the largest 7-digit octal */

struct tarw {
	int fd;
	int err;		/* the first write error, as -errno */
	size_t len;
	char *buf;		/* TW_BUF bytes */
	unsigned npax;		/* pax headers written, for their names */
	int open;		/* a file's bytes are awaited (tw_data()) */
	uint64_t size, left;	/* its size, and the bytes not come yet */
};

struct tarw *tw_new(int fd)
{
	struct tarw *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->buf = malloc(TW_BUF);
	if (!w->buf) {
		free(w);
		return NULL;
	}
	w->fd = fd;
	return w;
}

void tw_free(struct tarw *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w);
}

static void flush(struct tarw *w)
{
	size_t off = 0;

	while (!w->err && off < w->len) {
		ssize_t n = write(w->fd, w->buf + off, w->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			w->err = n < 0 ? -errno : -EIO;
		else
			off += (size_t)n;
	}
	w->len = 0;
}

static void put(struct tarw *w, const void *p, size_t n)
{
	const char *s = p;

	while (n && !w->err) {
		size_t k = TW_BUF - w->len < n ? TW_BUF - w->len : n;

		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
		if (w->len == TW_BUF)
			flush(w);
	}
}

/* Zero bytes up to the next block boundary after n bytes of data. */
static void pad(struct tarw *w, uint64_t n)
{
	static const char zero[TW_BLOCK];

	if (n % TW_BLOCK)
		put(w, zero, TW_BLOCK - n % TW_BLOCK);
}

/* ---- pax records ---- */

/* Appends "LEN key=value\n", LEN counting the whole record. */
static void pax_rec(struct sbuf *pax, const char *key, const char *val, size_t vlen)
{
	size_t body = 1 + strlen(key) + 1 + vlen + 1, len = body + 1, digits;
	char num[24];

	for (;;) {
		digits = (size_t)snprintf(num, sizeof(num), "%zu", len);
		if (body + digits == len)
			break;
		len = body + digits;
	}
	sb_add(pax, num, digits);
	sb_addc(pax, ' ');
	sb_adds(pax, key);
	sb_addc(pax, '=');
	sb_add(pax, val, vlen);
	sb_addc(pax, '\n');
}

static void pax_recs(struct sbuf *pax, const char *key, const char *val)
{
	pax_rec(pax, key, val, strlen(val));
}

static void pax_time(struct sbuf *pax, struct timespec t)
{
	char v[48];
	long long s = (long long)t.tv_sec;
	long ns = t.tv_nsec;

	if (s < 0 && ns) {	/* -1.25 s is tv_sec -2, tv_nsec 750000000 */
		s++;
		ns = 1000000000L - ns;
		snprintf(v, sizeof(v), "-%lld.%09ld", -s, ns);
	} else if (ns) {
		snprintf(v, sizeof(v), "%lld.%09ld", s, ns);
	} else {
		snprintf(v, sizeof(v), "%lld", s);
	}
	pax_recs(pax, "mtime", v);
}

/* The pax records e needs (none when ustar says it all). */
static void pax_for(const struct tw_entry *e, const char *link, struct sbuf *pax)
{
	size_t off = 0;
	const char *name, *val;
	uint32_t vlen;
	char key[16 + 256], num[24];

	if (strlen(e->path) > TW_NAME_MAX)
		pax_recs(pax, "path", e->path);
	if (link && strlen(link) > TW_NAME_MAX)
		pax_recs(pax, "linkpath", link);
	if (e->mtime.tv_nsec || e->mtime.tv_sec < 0 ||
	    (unsigned long long)e->mtime.tv_sec > TW_OCT12_MAX)
		pax_time(pax, e->mtime);
	if (S_ISREG(e->mode) && !e->hardlink && e->size > TW_OCT12_MAX) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)e->size);
		pax_recs(pax, "size", num);
	}
	if (e->uid > TW_OCT8_MAX) {
		snprintf(num, sizeof(num), "%lu", (unsigned long)e->uid);
		pax_recs(pax, "uid", num);
	}
	if (e->gid > TW_OCT8_MAX) {
		snprintf(num, sizeof(num), "%lu", (unsigned long)e->gid);
		pax_recs(pax, "gid", num);
	}
	while (e->xattrs && tw_xattr_next(e->xattrs, &off, &name, &val, &vlen)) {
		snprintf(key, sizeof(key), "SCHILY.xattr.%s", name);
		pax_rec(pax, key, val, vlen);
	}
}

/* ---- ustar headers ---- */

static void octal(char *field, size_t width, unsigned long long v)
{
	snprintf(field, width, "%0*llo", (int)width - 1, v);
}

/* Copies s into a field of n bytes, cut if longer (NUL-padded). */
static void field(char *f, size_t n, const char *s)
{
	size_t k = s ? strlen(s) : 0;

	memcpy(f, s ? s : "", k < n ? k : n);
}

static void header(struct tarw *w, const char *path, char type, mode_t perm,
		   const struct tw_entry *e, uint64_t size, const char *link)
{
	unsigned char h[TW_BLOCK];
	unsigned long long mt = e->mtime.tv_sec < 0 ? 0 : (unsigned long long)e->mtime.tv_sec;
	unsigned sum = 0;
	size_t i;

	memset(h, 0, sizeof(h));
	field((char *)h, 100, path);
	octal((char *)h + 100, 8, perm & 07777);
	octal((char *)h + 108, 8, e->uid > TW_OCT8_MAX ? 0 : e->uid);
	octal((char *)h + 116, 8, e->gid > TW_OCT8_MAX ? 0 : e->gid);
	octal((char *)h + 124, 12, size > TW_OCT12_MAX ? 0 : size);
	octal((char *)h + 136, 12, mt > TW_OCT12_MAX ? 0 : mt);
	memset(h + 148, ' ', 8);
	h[156] = (unsigned char)type;
	field((char *)h + 157, 100, link);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	field((char *)h + 265, 32, e->uname);
	field((char *)h + 297, 32, e->gname);
	for (i = 0; i < sizeof(h); i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum & 0777777);
	h[155] = ' ';
	put(w, h, sizeof(h));
}

static char type_of(mode_t m)
{
	if (S_ISDIR(m))
		return '5';
	if (S_ISLNK(m))
		return '2';
	return '0';
}

int tw_add(struct tarw *w, const struct tw_entry *e)
{
	struct sbuf pax;
	char pname[TW_NAME_MAX + 1];
	const char *base = strrchr(e->path, '/');
	const char *link = e->hardlink ? e->hardlink : e->link;
	uint64_t size = S_ISREG(e->mode) && !e->hardlink ? e->size : 0;

	if (w->err)
		return w->err;
	if (w->open)
		return -EINVAL;
	sb_init(&pax);
	pax_for(e, link, &pax);
	if (pax.len) {
		/* The pax header's own name is only shown by old readers. */
		base = base && base[1] ? base + 1 : e->path;
		snprintf(pname, sizeof(pname), "./PaxHeaders.%u/%.80s", w->npax++ % 100000, base);
		header(w, pname, 'x', 0644, e, pax.len, NULL);
		put(w, pax.buf, pax.len);
		pad(w, pax.len);
	}
	sb_free(&pax);
	header(w, e->path, e->hardlink ? '1' : type_of(e->mode), e->mode, e, size, link);
	if (size && !e->data) {
		w->open = 1;
		w->size = w->left = size;
	} else if (size) {
		put(w, e->data, size);
		pad(w, size);
	}
	return w->err;
}

int tw_data(struct tarw *w, const void *p, size_t n)
{
	int rc = 0;

	if (!w->open)
		return -EINVAL;
	if (n > w->left) {
		n = (size_t)w->left;
		rc = -EOVERFLOW;
	}
	put(w, p, n);
	w->left -= n;
	return w->err ? w->err : rc;
}

int tw_error(const struct tarw *w)
{
	return w->err;
}

int tw_data_end(struct tarw *w)
{
	static const char zero[TW_BLOCK];
	int rc = w->left ? -ENODATA : 0;

	if (!w->open)
		return -EINVAL;
	while (w->left && !w->err) {
		size_t k = w->left < sizeof(zero) ? (size_t)w->left : sizeof(zero);

		put(w, zero, k);
		w->left -= k;
	}
	pad(w, w->size);
	w->open = 0;
	return w->err ? w->err : rc;
}

int tw_finish(struct tarw *w)
{
	static const char zero[2 * TW_BLOCK];

	put(w, zero, sizeof(zero));
	flush(w);
	return w->err;
}

/* ---- extended attribute lists ---- */

void tw_xattr_add(struct sbuf *xs, const char *name, const void *value, uint32_t len)
{
	sb_add(xs, name, strlen(name) + 1);
	sb_add(xs, &len, sizeof(len));
	sb_add(xs, value, len);
}

int tw_xattr_next(const struct sbuf *xs, size_t *off, const char **name,
		  const char **value, uint32_t *len)
{
	size_t o = *off, n;

	if (o >= xs->len)
		return 0;
	*name = xs->buf + o;
	n = strlen(*name) + 1;
	memcpy(len, xs->buf + o + n, sizeof(*len));
	*value = xs->buf + o + n + sizeof(*len);
	*off = o + n + sizeof(*len) + *len;
	return 1;
}
