/*
 * sig: a signature of a file's first bytes, extended as they grow.
 *
 * It tells a log rewritten in place (the same size, new times) from one
 * only touched: the session keeps the signature of the bytes it indexed
 * and, when the size stayed and the times moved, hashes those bytes again
 * and compares. A 64-bit hash, four lanes of multiply and rotate over
 * 8-byte words (the inner loop of xxHash64): fast (the file's read costs
 * more), not cryptographic; a change is missed with odds of 2^-64. The
 * value depends only on the bytes, never on how they were fed in.
 *
 * A struct sig is plain data (no allocation); not thread-safe.
 */
#ifndef SESSFS_SIG_H
#define SESSFS_SIG_H

#include <stddef.h>
#include <stdint.h>

#define SIG_STRIPE 32		/* bytes the four lanes take at once */
#define SIG_READ (1u << 20)	/* bytes read at once by sig_file() */

struct sig {
	uint64_t lane[4];
	uint64_t len;			/* bytes fed in */
	unsigned char part[SIG_STRIPE];	/* the last len % SIG_STRIPE of them */
};

void sig_init(struct sig *g);
void sig_add(struct sig *g, const void *p, size_t n);
/* The signature of the bytes fed in so far (g stays as it is). */
uint64_t sig_value(const struct sig *g);
/*
 * Feeds in file fd's bytes from g->len up to to, at most max of them:
 * 0, -ENODATA when the file ends before, or -errno (-ENOMEM). Reads with
 * pread() through a buffer of its own (SIG_READ bytes).
 */
int sig_file(struct sig *g, int fd, uint64_t to, uint64_t max);

#endif
