/*
 * sbuf: a growable byte buffer, always NUL-terminated.
 *
 * Invariants: after sb_init(), buf is never NULL and buf[len] == '\0'.
 * Allocation failure aborts (the buffers hold rendered text; running out
 * of memory there is not something a caller can mend).
 * Not thread-safe; a buffer belongs to one caller at a time.
 */
#ifndef SESSFS_SBUF_H
#define SESSFS_SBUF_H

#include <stddef.h>
#include <stdint.h>

struct sbuf {
	char *buf;
	size_t len;
	size_t cap;
};

void sb_init(struct sbuf *sb);
/* Frees the buffer and leaves sb empty (sb_init state). */
void sb_free(struct sbuf *sb);
/* Makes room for n more bytes. */
void sb_grow(struct sbuf *sb, size_t n);
void sb_add(struct sbuf *sb, const void *p, size_t n);
void sb_adds(struct sbuf *sb, const char *s);
void sb_addc(struct sbuf *sb, char c);
void sb_addf(struct sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends v in decimal, with zeros before it up to width digits
 * (sb_addf()'s "%0*llu", without the format's parsing). */
void sb_add_dec(struct sbuf *sb, uint64_t v, unsigned width);
/* Appends d as a JSON number in printf format fmt (one double
 * conversion, "%.10g"), or null where d is not finite: JSON has no
 * infinity or NaN, and a log's number may overflow a double ("1e999"). */
void sb_add_json_num(struct sbuf *sb, const char *fmt, double d);
/* Appends s as a JSON string literal, quotes included. */
void sb_add_json_str(struct sbuf *sb, const char *s, size_t n);
/* The same without the quotes: the inside of a literal, which may be
 * written in pieces (split where no UTF-8 sequence is cut in two). */
void sb_add_json_chars(struct sbuf *sb, const char *s, size_t n);
/* How a JSON string literal writes byte c when it may not stand as it is
 * (a control character, '"' or '\\'): its length (2 or 6), the bytes in
 * out; 0 for any other byte. */
size_t json_esc(unsigned char c, char out[6]);
/* Appends text, replacing invalid UTF-8 sequences with U+FFFD. */
void sb_add_utf8(struct sbuf *sb, const char *s, size_t n);
/* The same for a value within one line of text (a header field): control
 * characters (below 0x20, and 0x7f) become U+FFFD too. */
void sb_add_line(struct sbuf *sb, const char *s, size_t n);
/* sb_add_line() of a NUL-terminated string. */
void sb_add_lines(struct sbuf *sb, const char *s);
void sb_reset(struct sbuf *sb);
/* Returns the buffer and leaves sb empty; the caller frees it. */
char *sb_detach(struct sbuf *sb, size_t *len);

/*
 * A reader of a long text in pieces: a renderer that may write more than
 * it should hold (a transcript of a long log) hands what it appended so
 * far to fn whenever it holds SB_PIECE bytes or more (sb_spill()), and
 * its caller hands over the rest at the end. fn returns 0, or -errno to
 * stop the rendering (returned by it).
 */
#define SB_PIECE (1u << 20)
struct sb_sink {
	int (*fn)(void *arg, const char *p, size_t n);
	void *arg;
};
/* With a sink (NULL: none, sb keeps all), when sb holds at least SB_PIECE
 * bytes: hands them over and empties sb. 0 or fn's error. */
int sb_spill(struct sbuf *sb, const struct sb_sink *sink);
/* Hands over what sb holds, whatever its length, and empties it. */
int sb_spill_all(struct sbuf *sb, const struct sb_sink *sink);

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t n);
/* True when s[0..n) is valid UTF-8 (as utf8_seq_len() judges it). */
int utf8_valid(const char *s, size_t n);

#endif
