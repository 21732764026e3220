/*
 * jskip: where a JSON string or nested value ends, 64 bytes at a time.
 *
 * Most of a log's bytes are inside long strings full of \" and \n, and
 * inside nested values the index does not read. A block of 64 bytes
 * becomes bit masks (bit i for byte i) of its quotes, backslashes and
 * brackets; escapes (odd runs of backslashes), string ends and the brackets
 * outside strings come from arithmetic on the masks, not a branch per
 * byte. The masks are made with SSE2 (or byte by byte off x86), or with
 * AVX2 when the CPU has it: every instruction set gives the same answers.
 *
 * Functions read only [p, e). Pure and thread-safe.
 */
#ifndef SESSFS_JSKIP_H
#define SESSFS_JSKIP_H

enum jskip_isa {
	JSKIP_PORTABLE,		/* SSE2 on x86-64, bytes elsewhere */
	JSKIP_AVX2,
};

/* The best instruction set this CPU runs. */
enum jskip_isa jskip_isa(void);

/*
 * The closing quote of the string whose body starts at p (just past the
 * opening quote): the first quote not escaped by a backslash. NULL when
 * there is none before e. *bslash tells whether the body holds a
 * backslash (so needs decoding).
 */
const char *jskip_string(const char *p, const char *e, int *bslash);

/*
 * The same closing quote, or the first backslash before it whose escaped
 * byte c has ok[c] == 0 (a JSON checker passes the bytes of the escapes
 * it takes as they are, and looks closer at the others): which one is
 * told by the byte returned. NULL when neither comes before e.
 */
const char *jskip_string_esc(const char *p, const char *e, const char ok[256]);

/*
 * Just past the nested value at p ('{' or '['): its brackets, outside
 * strings, must match ('{' with '}', '[' with ']'); what lies between them
 * is not checked. NULL when they do not match or the value does not end
 * before e, or on ENOMEM (nesting deeper than 4096 takes memory). A
 * backslash outside strings is an ordinary byte.
 */
const char *jskip_nested(const char *p, const char *e);

/* The same on the instruction set given, which the CPU must run (tests). */
const char *jskip_string_isa(enum jskip_isa isa, const char *p, const char *e,
			     int *bslash);
const char *jskip_string_esc_isa(enum jskip_isa isa, const char *p, const char *e,
				 const char ok[256]);
const char *jskip_nested_isa(enum jskip_isa isa, const char *p, const char *e);

#endif
