/* buf: growable byte buffers, JSON escaping, die(); see buf.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define BUF_START (64u << 10) /* first allocation of a buffer */

_Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	fputs("genlog: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void buf_need(struct buf *b, size_t n)
{
	size_t want = b->len + n, cap = b->cap ? b->cap : BUF_START;
	char *p;

	if (want <= b->cap)
		return;
	while (cap < want)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		die("out of memory");
	b->p = p;
	b->cap = cap;
}

void buf_mem(struct buf *b, const void *s, size_t n)
{
	if (!n)
		return;
	buf_need(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void buf_str(struct buf *b, const char *s)
{
	buf_mem(b, s, strlen(s));
}

void buf_ch(struct buf *b, char c)
{
	buf_need(b, 1);
	b->p[b->len++] = c;
}

/* Decimal, right-aligned in at least width columns. */
void buf_num(struct buf *b, uint64_t v, unsigned width)
{
	char t[24];
	unsigned i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (sizeof(t) - i < width && i > 0)
		t[--i] = ' ';
	buf_mem(b, t + i, sizeof(t) - i);
}

/* JSON-escape s as JSON.stringify does: quote, backslash, control bytes. */
void buf_esc(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *d;

	buf_need(b, 6 * n);
	d = b->p + b->len;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != '"' && c != '\\') {
			*d++ = (char)c;
			continue;
		}
		*d++ = '\\';
		switch (c) {
		case '"': *d++ = '"'; break;
		case '\\': *d++ = '\\'; break;
		case '\n': *d++ = 'n'; break;
		case '\t': *d++ = 't'; break;
		case '\r': *d++ = 'r'; break;
		case '\b': *d++ = 'b'; break;
		case '\f': *d++ = 'f'; break;
		default:
			*d++ = 'u'; *d++ = '0'; *d++ = '0';
			*d++ = hex[c >> 4]; *d++ = hex[c & 15];
		}
	}
	b->len = (size_t)(d - b->p);
}
