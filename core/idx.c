#include "idx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jscan.h"
#include "scan.h"

/*
 * uthash takes a bucket from the hash's low bits, where FNV mixes poorly:
 * FNV-1a over the key, then a 64-bit finaliser (murmur3's) to spread it.
 */
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = idx_keyhash(keyptr, keylen))
static unsigned idx_keyhash(const void *k, unsigned n)
{
	const unsigned char *p = k;
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return (unsigned)h;
}
#include <uthash.h>

#define ID_CHUNK 4096		/* ids per allocation block */
#define ATOM_MAX UINT16_MAX
#define KEY_BIN 0		/* key tag: 16 binary bytes follow */
#define KEY_STR 1		/* key tag: the string follows */

struct idx_id {
	UT_hash_handle hh;
	uint32_t num;
	uint8_t key[17];
};

struct idx_atom {
	UT_hash_handle hh;
	uint16_t num;
	char s[];
};

struct idx {
	struct idx_rec *recs;
	uint32_t nrecs, caprecs;
	struct idx_err *errs;
	uint32_t nerrs, caperrs;
	uint64_t end, pending;
	uint32_t lines;
	int finished;

	struct idx_id *ids;		/* hash of all ids */
	struct idx_id **idblocks;	/* id n is idblocks[(n-1)/ID_CHUNK][...] */
	uint32_t nids, capblocks;
	char **strs;			/* keys of non-canonical uuids */
	uint32_t nstrs, capstrs;

	struct idx_atom *atoms;
	struct idx_atom **atomv;	/* atom n is atomv[n] */
	uint32_t natoms, capatoms;
	size_t strbytes;
};

/* ---- growth helpers ---- */

static int grow(void **v, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap = ncap > UINT32_MAX / 2 ? UINT32_MAX : ncap * 2;
	p = realloc(*v, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

struct idx *idx_new(void)
{
	struct idx *ix = calloc(1, sizeof(*ix));

	if (!ix)
		return NULL;
	ix->natoms = 1;		/* atom 0 is "" */
	if (grow((void **)&ix->atomv, &ix->capatoms, 64, sizeof(*ix->atomv))) {
		free(ix);
		return NULL;
	}
	ix->atomv[0] = NULL;
	return ix;
}

void idx_free(struct idx *ix)
{
	uint32_t i;

	if (!ix)
		return;
	HASH_CLEAR(hh, ix->ids);
	for (i = 0; i * ID_CHUNK < ix->nids; i++)
		free(ix->idblocks[i]);
	free(ix->idblocks);
	for (i = 0; i < ix->nstrs; i++)
		free(ix->strs[i]);
	free(ix->strs);
	HASH_CLEAR(hh, ix->atoms);
	for (i = 1; i < ix->natoms; i++)
		free(ix->atomv[i]);
	free(ix->atomv);
	free(ix->recs);
	free(ix->errs);
	free(ix);
}

/* ---- ids ---- */

static int hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Canonical lowercase uuid text to 16 bytes; -1 if not canonical. */
static int uuid_bin(const char *s, size_t n, uint8_t *out)
{
	size_t i, j = 0;

	if (n != 36)
		return -1;
	for (i = 0; i < 36; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -1;
			continue;
		}
		hi = hexv(s[i]);
		lo = hexv(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[j++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	return 0;
}

static struct idx_id *id_at(const struct idx *ix, uint32_t id)
{
	return &ix->idblocks[(id - 1) / ID_CHUNK][(id - 1) % ID_CHUNK];
}

static struct idx_id *id_lookup(const struct idx *ix, const char *s, size_t n,
				uint8_t *kbuf, const void **kp, unsigned *klen)
{
	struct idx_id *ent = NULL;

	kbuf[0] = KEY_BIN;
	if (uuid_bin(s, n, kbuf + 1) == 0) {
		*kp = kbuf;
		*klen = 17;
	} else {
		char *k = malloc(n + 1);

		if (!k)
			return NULL;
		k[0] = KEY_STR;
		memcpy(k + 1, s, n);
		*kp = k;
		*klen = (unsigned)n + 1;
	}
	HASH_FIND(hh, ix->ids, *kp, *klen, ent);
	return ent;
}

uint32_t idx_intern_id(struct idx *ix, const char *s, size_t n)
{
	uint8_t kbuf[17];
	const void *kp = NULL;
	unsigned klen = 0;
	struct idx_id *ent = id_lookup(ix, s, n, kbuf, &kp, &klen);
	uint32_t b;

	if (ent || !kp) {
		if (kp && kp != kbuf)
			free((void *)kp);
		return ent ? ent->num : 0;
	}
	b = ix->nids / ID_CHUNK;
	if (ix->nids % ID_CHUNK == 0) {
		if (grow((void **)&ix->idblocks, &ix->capblocks, b + 1,
			 sizeof(*ix->idblocks)))
			goto nomem;
		ix->idblocks[b] = malloc(ID_CHUNK * sizeof(struct idx_id));
		if (!ix->idblocks[b])
			goto nomem;
	}
	if (kp != kbuf && grow((void **)&ix->strs, &ix->capstrs, ix->nstrs + 1,
			       sizeof(*ix->strs)))
		goto nomem;
	ent = &ix->idblocks[b][ix->nids % ID_CHUNK];
	memset(ent, 0, sizeof(*ent));
	ent->num = ++ix->nids;
	if (kp == kbuf) {
		memcpy(ent->key, kbuf, 17);
		kp = ent->key;
	} else {
		ix->strs[ix->nstrs++] = (char *)kp;
		ix->strbytes += klen;
	}
	HASH_ADD_KEYPTR(hh, ix->ids, kp, klen, ent);
	return ent->num;
nomem:
	if (kp != kbuf)
		free((void *)kp);
	return 0;
}

uint32_t idx_id_find(const struct idx *ix, const char *s, size_t n)
{
	uint8_t kbuf[17];
	const void *kp = NULL;
	unsigned klen = 0;
	struct idx_id *ent = id_lookup(ix, s, n, kbuf, &kp, &klen);

	if (kp && kp != kbuf)
		free((void *)kp);
	return ent ? ent->num : 0;
}

size_t idx_id_buf(const struct idx *ix, uint32_t id, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	const struct idx_id *ent;
	const uint8_t *k;
	size_t i, j = 0;

	if (!id || id > ix->nids) {
		buf[0] = '\0';
		return 0;
	}
	ent = id_at(ix, id);
	k = ent->hh.key;
	if (k[0] == KEY_STR) {
		size_t n = ent->hh.keylen - 1;

		memcpy(buf, k + 1, n);
		buf[n] = '\0';
		return n;
	}
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[j++] = '-';
		buf[j++] = hex[k[1 + i] >> 4];
		buf[j++] = hex[k[1 + i] & 15];
	}
	buf[j] = '\0';
	return j;
}

void idx_id_str(const struct idx *ix, uint32_t id, struct sbuf *out)
{
	char buf[IDX_UUID_MAX + 1];
	size_t n = idx_id_buf(ix, id, buf);

	sb_add(out, buf, n);
}

uint32_t idx_nids(const struct idx *ix)
{
	return ix->nids;
}

/* ---- atoms ---- */

uint16_t idx_intern_atom(struct idx *ix, const struct js_str *raw)
{
	struct idx_atom *a = NULL;
	struct sbuf dec;
	const char *s = raw->p;
	size_t n = raw->n;

	sb_init(&dec);
	if (raw->escaped) {
		js_unescape(raw, &dec);
		s = dec.buf;
		n = dec.len;
	}
	HASH_FIND(hh, ix->atoms, s, (unsigned)n, a);
	if (!a && ix->natoms < ATOM_MAX &&
	    !grow((void **)&ix->atomv, &ix->capatoms, ix->natoms + 1,
		  sizeof(*ix->atomv))) {
		a = malloc(sizeof(*a) + n + 1);
		if (a) {
			memcpy(a->s, s, n);
			a->s[n] = '\0';
			a->num = (uint16_t)ix->natoms;
			ix->atomv[ix->natoms++] = a;
			ix->strbytes += sizeof(*a) + n + 1;
			HASH_ADD_KEYPTR(hh, ix->atoms, a->s, (unsigned)n, a);
		}
	}
	sb_free(&dec);
	return a ? a->num : 0;
}

const char *idx_atom(const struct idx *ix, uint16_t atom)
{
	return atom && atom < ix->natoms ? ix->atomv[atom]->s : "";
}

uint16_t idx_atom_find(const struct idx *ix, const char *s)
{
	struct idx_atom *a = NULL;

	HASH_FIND(hh, ix->atoms, s, (unsigned)strlen(s), a);
	return a ? a->num : 0;
}

static int add_err(struct idx *ix, uint64_t off, uint32_t col, uint8_t code)
{
	struct idx_err *er;

	if (grow((void **)&ix->errs, &ix->caperrs, ix->nerrs + 1, sizeof(*er)))
		return -ENOMEM;
	er = &ix->errs[ix->nerrs++];
	er->off = off;
	er->line = ix->lines;
	er->col = col;
	er->code = code;
	return 0;
}

/* Indexes one line [p, p+n) found at file offset off. */
static int index_line(struct idx *ix, const char *p, size_t n, uint64_t off,
		      int torn)
{
	struct idx_rec rec;
	int code, bad_uuid = 0;
	uint32_t col = 0;

	ix->lines++;
	if (n > UINT32_MAX)
		return add_err(ix, off, 0, IDX_E_TOO_LONG);
	code = scan_line(ix, p, n, torn, &rec, &col, &bad_uuid);
	if (code)
		return add_err(ix, off, col, (uint8_t)code);
	if (bad_uuid && add_err(ix, off, 0, IDX_E_BAD_UUID))
		return -ENOMEM;
	rec.off = off;
	rec.len = (uint32_t)n;
	rec.line = ix->lines;
	if (grow((void **)&ix->recs, &ix->caprecs, ix->nrecs + 1, sizeof(rec)))
		return -ENOMEM;
	ix->recs[ix->nrecs++] = rec;
	return 0;
}

/* ---- reading ---- */

static ssize_t pread_full(int fd, char *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/*
 * A line longer than the read buffer: find its end with the buffer, then
 * read it whole into memory of its own size. Returns 1 when indexed, 0 when
 * the file ends first (the line stays pending; *next is then the end of
 * the file), -errno on error.
 */
static int long_line(struct idx *ix, int fd, char *buf, uint64_t start,
		     uint64_t *next)
{
	uint64_t at = start + IDX_CHUNK;
	char *line, *nl = NULL;
	ssize_t r;
	size_t n;
	int rc;

	for (;;) {
		r = pread_full(fd, buf, IDX_CHUNK, at);
		if (r <= 0) {
			*next = at;
			return r < 0 ? (int)r : 0;
		}
		nl = memchr(buf, '\n', (size_t)r);
		if (nl)
			break;
		at += (uint64_t)r;
	}
	n = (size_t)(at + (uint64_t)(nl - buf) - start);
	line = malloc(n ? n : 1);
	if (!line)
		return -ENOMEM;
	r = pread_full(fd, line, n, start);
	rc = r == (ssize_t)n ? index_line(ix, line, n, start, 0) : -EIO;
	free(line);
	*next = start + n + 1;
	return rc ? rc : 1;
}

int idx_feed(struct idx *ix, int fd)
{
	char *buf = malloc(IDX_CHUNK);
	uint64_t pos = ix->end;
	size_t have = 0;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = pread_full(fd, buf + have, IDX_CHUNK - have, pos + have);
		char *p = buf, *nl;

		if (r <= 0) {
			rc = (int)r;
			break;
		}
		have += (size_t)r;
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			rc = index_line(ix, p, (size_t)(nl - p), pos + (uint64_t)(p - buf), 0);
			if (rc)
				goto out;
			p = nl + 1;
		}
		if (p == buf && have == IDX_CHUNK) {
			uint64_t next = pos;

			rc = long_line(ix, fd, buf, pos, &next);
			if (rc == 0)
				have = (size_t)(next - pos);
			if (rc <= 0)
				break;
			rc = 0;
			pos = next;
			have = 0;
			continue;
		}
		memmove(buf, p, have - (size_t)(p - buf));
		pos += (uint64_t)(p - buf);
		have -= (size_t)(p - buf);
	}
out:
	ix->end = pos;
	ix->pending = have;
	free(buf);
	return rc;
}

int idx_finish(struct idx *ix, int fd)
{
	uint64_t n;
	char *line;
	ssize_t r;
	int rc;

	rc = idx_feed(ix, fd);
	if (rc)
		return rc;
	/* idx_feed() leaves the tail pending; measure it exactly. */
	n = ix->pending;
	for (;;) {
		char probe[4096];

		r = pread_full(fd, probe, sizeof(probe), ix->end + n);
		if (r < 0)
			return (int)r;
		if (r == 0)
			break;
		n += (uint64_t)r;
	}
	if (!n)
		return 0;
	line = malloc(n);
	if (!line)
		return -ENOMEM;
	r = pread_full(fd, line, n, ix->end);
	rc = r == (ssize_t)n ? index_line(ix, line, n, ix->end, 1) : -EIO;
	free(line);
	ix->end += n;
	ix->pending = 0;
	return rc;
}

/* ---- accessors ---- */

uint64_t idx_end(const struct idx *ix) { return ix->end; }
uint64_t idx_pending(const struct idx *ix) { return ix->pending; }
uint32_t idx_lines(const struct idx *ix) { return ix->lines; }
uint32_t idx_nrecs(const struct idx *ix) { return ix->nrecs; }
uint32_t idx_nerrs(const struct idx *ix) { return ix->nerrs; }

const struct idx_rec *idx_rec(const struct idx *ix, uint32_t i)
{
	return &ix->recs[i];
}

const struct idx_err *idx_err(const struct idx *ix, uint32_t i)
{
	return &ix->errs[i];
}

const char *idx_err_text(enum idx_err_code code)
{
	switch (code) {
	case IDX_E_BLANK: return "blank line";
	case IDX_E_NOT_JSON: return "not JSON";
	case IDX_E_NOT_OBJECT: return "JSON but not an object";
	case IDX_E_NO_TYPE: return "object without a string \"type\"";
	case IDX_E_TORN: return "torn last line (no newline, incomplete JSON)";
	case IDX_E_TOO_LONG: return "line longer than 4 GiB";
	case IDX_E_BAD_UUID: return "a uuid field is empty, too long or holds NUL; ignored";
	}
	return "unusable line";
}

size_t idx_mem(const struct idx *ix)
{
	size_t blocks = (ix->nids + ID_CHUNK - 1) / ID_CHUNK;

	/* Arrays count what is used: the rest of their capacity is address
	 * space the kernel has not backed (large reallocs are mmaps). */
	return (size_t)ix->nrecs * sizeof(struct idx_rec) +
	       (size_t)ix->nerrs * sizeof(struct idx_err) +
	       blocks * ID_CHUNK * sizeof(struct idx_id) +
	       (ix->ids ? HASH_OVERHEAD(hh, ix->ids) : 0) +
	       (ix->atoms ? HASH_OVERHEAD(hh, ix->atoms) : 0) +
	       (size_t)ix->capstrs * sizeof(char *) + ix->strbytes +
	       (size_t)ix->capatoms * sizeof(void *);
}
