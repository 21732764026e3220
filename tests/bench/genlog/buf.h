/*
 * buf: growable byte buffers for genlog, and its one error exit.
 *
 * A struct buf is zeroed to start (p NULL, len 0); appends grow it by
 * doubling from 64 KB, and it is freed with free(b->p). Reset it by setting
 * len to 0: the memory is kept for the next use. The functions never fail:
 * out of memory, they die().
 *
 * Thread-safety: none; a buffer belongs to one thread (genlog has one).
 */
#ifndef GENLOG_BUF_H
#define GENLOG_BUF_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; used for the output and for scratch text. */
struct buf {
	char *p;
	size_t len;
	size_t cap;
};

/* Print "genlog: " and the message to stderr and exit with status 1. */
_Noreturn void die(const char *fmt, ...);

/* Make room for n more bytes after len (p may move). */
void buf_need(struct buf *b, size_t n);

/* Append n bytes of s / a NUL-terminated string / a string literal / a byte. */
void buf_mem(struct buf *b, const void *s, size_t n);
void buf_str(struct buf *b, const char *s);
#define buf_lit(b, s) buf_mem((b), (s), sizeof(s) - 1)
void buf_ch(struct buf *b, char c);

/* Append v in decimal, right-aligned in at least width columns. */
void buf_num(struct buf *b, uint64_t v, unsigned width);

/* Append n bytes of s JSON-escaped, as JSON.stringify does (no quotes). */
void buf_esc(struct buf *b, const char *s, size_t n);

#endif
