#include "sig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tbuf.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t word(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static uint64_t round1(uint64_t acc, uint64_t w)
{
	return rotl(acc + w * P2, 31) * P1;
}

static void stripes(struct sig *g, const unsigned char *p, size_t n)
{
	uint64_t a = g->lane[0], b = g->lane[1], c = g->lane[2], d = g->lane[3];
	size_t i;

	for (i = 0; i + SIG_STRIPE <= n; i += SIG_STRIPE) {
		a = round1(a, word(p + i));
		b = round1(b, word(p + i + 8));
		c = round1(c, word(p + i + 16));
		d = round1(d, word(p + i + 24));
	}
	g->lane[0] = a;
	g->lane[1] = b;
	g->lane[2] = c;
	g->lane[3] = d;
}

void sig_init(struct sig *g)
{
	memset(g, 0, sizeof(*g));
	g->lane[0] = P1 + P2;
	g->lane[1] = P2;
	g->lane[2] = 0;
	g->lane[3] = 0 - P1;
}

void sig_add(struct sig *g, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t have = (size_t)(g->len % SIG_STRIPE), take, whole;

	g->len += n;
	if (have) {
		take = SIG_STRIPE - have < n ? SIG_STRIPE - have : n;
		memcpy(g->part + have, p, take);
		p += take;
		n -= take;
		if (have + take < SIG_STRIPE)
			return;
		stripes(g, g->part, SIG_STRIPE);
	}
	whole = n - n % SIG_STRIPE;
	stripes(g, p, whole);
	memcpy(g->part, p + whole, n - whole);
}

uint64_t sig_value(const struct sig *g)
{
	uint64_t h = rotl(g->lane[0], 1) + rotl(g->lane[1], 7) +
		     rotl(g->lane[2], 12) + rotl(g->lane[3], 18);
	size_t i, n = (size_t)(g->len % SIG_STRIPE);
	int k;

	for (k = 0; k < 4; k++)
		h = (h ^ round1(0, g->lane[k])) * P1 + P4;
	h += g->len;
	for (i = 0; i < n; i++)
		h = rotl(h ^ (g->part[i] * P4), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}

int sig_file(struct sig *g, int fd, uint64_t to, uint64_t max)
{
	unsigned char *buf;
	uint64_t end = to - g->len > max ? g->len + max : to;
	ssize_t got;
	int rc = 0;

	if (g->len >= to)
		return 0;
	buf = tb_get(TB_SIG, SIG_READ);	/* not malloc(): faults */
	if (!buf)
		return -ENOMEM;
	while (g->len < end) {
		size_t want = end - g->len < SIG_READ ? (size_t)(end - g->len) : SIG_READ;

		got = pread(fd, buf, want, (off_t)g->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = got < 0 ? -errno : -ENODATA;
			break;
		}
		sig_add(g, buf, (size_t)got);
	}
	return rc;
}
