#include "sbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char sb_empty[1];

void sb_init(struct sbuf *sb)
{
	sb->buf = sb_empty;
	sb->len = 0;
	sb->cap = 0;
}

void sb_free(struct sbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	sb_init(sb);
}

void sb_grow(struct sbuf *sb, size_t n)
{
	size_t need = sb->len + n + 1;
	char *p;

	if (need <= sb->cap)
		return;
	if (need < sb->cap * 2)
		need = sb->cap * 2;
	if (need < 64)
		need = 64;
	p = realloc(sb->cap ? sb->buf : NULL, need);
	if (!p)
		abort();
	if (!sb->cap)
		p[0] = '\0';
	sb->buf = p;
	sb->cap = need;
}

void sb_add(struct sbuf *sb, const void *p, size_t n)
{
	if (!n)
		return;
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct sbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct sbuf *sb, char c)
{
	if (sb->len + 2 > sb->cap)
		sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

/* Formats into the room the buffer has, and only when the text does not
 * fit there grows it and formats again. */
void sb_addf(struct sbuf *sb, const char *fmt, ...)
{
	size_t room = sb->cap ? sb->cap - sb->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n <= 0) {
		if (room)
			sb->buf[sb->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		sb_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void sb_add_dec(struct sbuf *sb, uint64_t v, unsigned width)
{
	char d[20];
	unsigned n = 0;

	do {
		d[sizeof(d) - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (; width > n; width--)
		sb_addc(sb, '0');
	sb_add(sb, d + sizeof(d) - n, n);
}

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Bytes from p on that are ASCII, eight at a time. */
static size_t ascii_run(const unsigned char *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		if (w & 0x8080808080808080ULL)
			break;
	}
	while (i < n && p[i] < 0x80)
		i++;
	return i;
}

int utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, l;

	while ((i += ascii_run(p + i, n - i)) < n) {
		if (!(l = utf8_seq_len(p + i, n - i)))
			return 0;
		i += l;
	}
	return 1;
}

void sb_add_utf8(struct sbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		size_t l;

		i += ascii_run(p + i, n - i);
		if (i >= n)
			break;
		l = utf8_seq_len(p + i, n - i);

		if (l) {
			i += l;
			continue;
		}
		sb_add(sb, s + run, i - run);
		sb_adds(sb, "\xef\xbf\xbd");
		i++;
		run = i;
	}
	sb_add(sb, s + run, n - run);
}

void sb_add_line(struct sbuf *sb, const char *s, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != 0x7f)
			continue;
		sb_add_utf8(sb, s + run, i - run);
		sb_adds(sb, "\xef\xbf\xbd");
		run = i + 1;
	}
	sb_add_utf8(sb, s + run, n - run);
}

void sb_add_lines(struct sbuf *sb, const char *s)
{
	sb_add_line(sb, s, strlen(s));
}

size_t json_esc(unsigned char c, char out[6])
{
	static const char hex[] = "0123456789abcdef";
	char e;

	switch (c) {
	case '"': e = '"'; break;
	case '\\': e = '\\'; break;
	case '\n': e = 'n'; break;
	case '\t': e = 't'; break;
	case '\r': e = 'r'; break;
	case '\b': e = 'b'; break;
	case '\f': e = 'f'; break;
	default:
		if (c >= 0x20)
			return 0;
		memcpy(out, "\\u00", 4);
		out[4] = hex[c >> 4];
		out[5] = hex[c & 15];
		return 6;
	}
	out[0] = '\\';
	out[1] = e;
	return 2;
}

void sb_add_json_chars(struct sbuf *sb, const char *s, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[6];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		sb_add_utf8(sb, s + run, i - run);
		run = i + 1;
		sb_add(sb, esc, json_esc(c, esc));
	}
	sb_add_utf8(sb, s + run, n - run);
}

void sb_add_json_num(struct sbuf *sb, const char *fmt, double d)
{
	if (!isfinite(d)) {
		sb_adds(sb, "null");
		return;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	sb_addf(sb, fmt, d);
#pragma GCC diagnostic pop
}

void sb_add_json_str(struct sbuf *sb, const char *s, size_t n)
{
	sb_addc(sb, '"');
	sb_add_json_chars(sb, s, n);
	sb_addc(sb, '"');
}

void sb_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->cap)
		sb->buf[0] = '\0';
}

int sb_spill_all(struct sbuf *sb, const struct sb_sink *sink)
{
	int rc = 0;

	if (sink && sb->len)
		rc = sink->fn(sink->arg, sb->buf, sb->len);
	if (sink)
		sb_reset(sb);
	return rc;
}

int sb_spill(struct sbuf *sb, const struct sb_sink *sink)
{
	return sink && sb->len >= SB_PIECE ? sb_spill_all(sb, sink) : 0;
}

char *sb_detach(struct sbuf *sb, size_t *len)
{
	char *p;

	if (!sb->cap)
		sb_grow(sb, 0);
	p = sb->buf;
	if (len)
		*len = sb->len;
	sb_init(sb);
	return p;
}
