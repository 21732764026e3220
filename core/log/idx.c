#include "idx.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "jscan.h"
#include "plat.h"
#include "scan.h"
#include "tbuf.h"

/* 64-bit finaliser (murmur3's): spreads every bit over the whole word. */
static uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static uint64_t str_hash(const void *k, size_t n)
{
	const unsigned char *p = k;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return mix64(h);
}

/* uthash (atoms) takes a bucket from the hash's low bits: FNV-1a mixes
 * them poorly, so it is finalised. */
#define HASH_FUNCTION(keyptr, keylen, hashv) \
	((hashv) = (unsigned)str_hash(keyptr, keylen))
#include <uthash.h>

#define ATOM_MAX UINT16_MAX
#define SLOTS_MIN 1024

/*
 * ids. Each id has a 16-byte key: a canonical uuid's bytes, or for any
 * other string (its bit set in strbits) the string's index in strs and its
 * length. They are found through an open-addressing table of (id, the
 * high half of the key's hash): an id's first lookup is a new random place
 * in memory, so one probe is one cache line, and the key itself is read
 * only when the hash halves agree.
 */
struct idx_key {
	uint64_t a, b;
};

struct idx_slot {
	uint32_t id;		/* 0: empty */
	uint32_t tag;		/* the hash's high half */
};

/* What is looked up: the key of a string and its hash. */
struct idx_probe {
	struct idx_key k;
	const char *s;		/* the string, when not canonical */
	size_t n;
	uint64_t h;
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
	uint8_t open;			/* the last line indexed has no newline yet */
	uint8_t open_rec;		/* ... and is the last record (not a bad line) */

	struct idx_key *keys;		/* key of id n is keys[n - 1] */
	uint32_t nids, capkeys;
	uint64_t *strbits;		/* bit n - 1: id n is a string */
	uint32_t capbits;		/* in words */
	struct idx_slot *slots;
	uint32_t nslots;		/* a power of two, or 0 */
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
	free(ix->keys);
	free(ix->strbits);
	free(ix->slots);
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

/* 0x10 plus a lowercase hex digit's value; 0 for any other byte. */
static const uint8_t hex_tab[256] = {
	['0'] = 0x10, ['1'] = 0x11, ['2'] = 0x12, ['3'] = 0x13, ['4'] = 0x14,
	['5'] = 0x15, ['6'] = 0x16, ['7'] = 0x17, ['8'] = 0x18, ['9'] = 0x19,
	['a'] = 0x1a, ['b'] = 0x1b, ['c'] = 0x1c, ['d'] = 0x1d, ['e'] = 0x1e,
	['f'] = 0x1f,
};

/* Canonical lowercase uuid text to 16 bytes; -1 if not canonical. */
static int uuid_bin(const char *s, size_t n, uint8_t *out)
{
	static const uint8_t at[16] = { 0, 2, 4, 6, 9, 11, 14, 16, 19, 21,
					24, 26, 28, 30, 32, 34 };
	unsigned ok = 0x10;
	size_t i;

	if (n != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
		return -1;
	for (i = 0; i < 16; i++) {
		unsigned hi = hex_tab[(unsigned char)s[at[i]]],
			 lo = hex_tab[(unsigned char)s[at[i] + 1]];

		ok &= hi & lo;
		out[i] = (uint8_t)(hi << 4 | (lo & 0xf));
	}
	return ok ? 0 : -1;
}

static int is_str(const struct idx *ix, uint32_t id)
{
	return (int)(ix->strbits[(id - 1) / 64] >> ((id - 1) % 64) & 1);
}

static void probe_init(struct idx_probe *pk, const char *s, size_t n)
{
	uint8_t bin[16];

	if (uuid_bin(s, n, bin) == 0) {
		memcpy(&pk->k.a, bin, 8);
		memcpy(&pk->k.b, bin + 8, 8);
		pk->s = NULL;
		pk->h = mix64(pk->k.a ^ pk->k.b * 0x9e3779b97f4a7c15ULL);
	} else {
		pk->s = s;
		pk->n = n;
		pk->h = str_hash(s, n);
	}
}

static uint64_t key_hash(const struct idx *ix, uint32_t id)
{
	const struct idx_key *k = &ix->keys[id - 1];

	if (is_str(ix, id))
		return str_hash(ix->strs[k->a], k->b);
	return mix64(k->a ^ k->b * 0x9e3779b97f4a7c15ULL);
}

static int key_eq(const struct idx *ix, uint32_t id, const struct idx_probe *pk)
{
	const struct idx_key *k = &ix->keys[id - 1];

	if (is_str(ix, id) != (pk->s != NULL))
		return 0;
	if (!pk->s)
		return k->a == pk->k.a && k->b == pk->k.b;
	return k->b == pk->n && !memcmp(ix->strs[k->a], pk->s, pk->n);
}

/* The slot holding the probed key, or the empty slot where it goes. The
 * table always has an empty slot. */
static struct idx_slot *slot_of(const struct idx *ix, const struct idx_probe *pk)
{
	uint32_t mask = ix->nslots - 1, i = (uint32_t)pk->h & mask,
		 tag = (uint32_t)(pk->h >> 32);

	for (;; i = (i + 1) & mask) {
		struct idx_slot *sl = &ix->slots[i];

		if (!sl->id || (sl->tag == tag && key_eq(ix, sl->id, pk)))
			return sl;
	}
}

/* Doubles the table (at most two thirds full) and places every id again. */
static int slots_grow(struct idx *ix)
{
	uint32_t n = ix->nslots ? ix->nslots * 2 : SLOTS_MIN, mask = n - 1, id;
	struct idx_slot *v = calloc(n, sizeof(*v));

	if (!v || n < ix->nslots) {
		free(v);
		return -ENOMEM;
	}
	for (id = 1; id <= ix->nids; id++) {
		uint64_t h = key_hash(ix, id);
		uint32_t i = (uint32_t)h & mask;

		while (v[i].id)
			i = (i + 1) & mask;
		v[i].id = id;
		v[i].tag = (uint32_t)(h >> 32);
	}
	free(ix->slots);
	ix->slots = v;
	ix->nslots = n;
	return 0;
}

/* Makes room for one more id (and its string). */
static int ids_reserve(struct idx *ix, int str)
{
	uint32_t words = ix->nids / 64 + 1;

	if (ix->nids == UINT32_MAX - 1 ||
	    grow((void **)&ix->keys, &ix->capkeys, ix->nids + 1, sizeof(*ix->keys)))
		return -ENOMEM;
	if (words > ix->capbits) {
		uint32_t old = ix->capbits;

		if (grow((void **)&ix->strbits, &ix->capbits, words, sizeof(*ix->strbits)))
			return -ENOMEM;
		memset(ix->strbits + old, 0, (ix->capbits - old) * sizeof(*ix->strbits));
	}
	if (str && grow((void **)&ix->strs, &ix->capstrs, ix->nstrs + 1,
			sizeof(*ix->strs)))
		return -ENOMEM;
	if ((uint64_t)(ix->nids + 1) * 3 > (uint64_t)ix->nslots * 2)
		return slots_grow(ix);
	return 0;
}

/* The id of the probed key, adding it when new (with a copy of pk->s for
 * a key that is not canonical); 0 when out of memory. */
static uint32_t intern_probe(struct idx *ix, const struct idx_probe *pk)
{
	struct idx_slot *sl = NULL;
	uint32_t id, nslots = ix->nslots;

	if (nslots && (sl = slot_of(ix, pk))->id)
		return sl->id;
	if (ids_reserve(ix, pk->s != NULL))
		return 0;
	if (ix->nslots != nslots)	/* the table grew: the place moved */
		sl = slot_of(ix, pk);
	id = ix->nids + 1;
	ix->keys[id - 1] = pk->k;
	if (pk->s) {
		char *copy = malloc(pk->n ? pk->n : 1);

		if (!copy)
			return 0;
		memcpy(copy, pk->s, pk->n);
		ix->keys[id - 1].a = ix->nstrs;
		ix->keys[id - 1].b = pk->n;
		ix->strs[ix->nstrs++] = copy;
		ix->strbytes += pk->n;
		ix->strbits[(id - 1) / 64] |= (uint64_t)1 << ((id - 1) % 64);
	}
	ix->nids = id;
	sl->id = id;
	sl->tag = (uint32_t)(pk->h >> 32);
	return id;
}

uint32_t idx_intern_id(struct idx *ix, const char *s, size_t n)
{
	struct idx_probe pk;

	probe_init(&pk, s, n);
	return intern_probe(ix, &pk);
}

uint32_t idx_id_find(const struct idx *ix, const char *s, size_t n)
{
	struct idx_probe pk;

	if (!ix->nslots)
		return 0;
	probe_init(&pk, s, n);
	return slot_of(ix, &pk)->id;
}

size_t idx_id_buf(const struct idx *ix, uint32_t id, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	const struct idx_key *k;
	uint8_t bin[16];
	size_t i, j = 0;

	if (!id || id > ix->nids) {
		buf[0] = '\0';
		return 0;
	}
	k = &ix->keys[id - 1];
	if (is_str(ix, id)) {
		memcpy(buf, ix->strs[k->a], k->b);
		buf[k->b] = '\0';
		return k->b;
	}
	memcpy(bin, &k->a, 8);
	memcpy(bin + 8, &k->b, 8);
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[j++] = '-';
		buf[j++] = hex[bin[i] >> 4];
		buf[j++] = hex[bin[i] & 15];
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

void idx_id_text(const struct idx *ix, uint32_t id, struct sbuf *out)
{
	char buf[IDX_UUID_MAX + 1];
	size_t n = idx_id_buf(ix, id, buf);

	sb_add_line(out, buf, n);
}

uint32_t idx_nids(const struct idx *ix)
{
	return ix->nids;
}

/* ---- atoms ---- */

/* The atom of the n bytes at s, adding it when new; 0 when out of memory
 * or atoms are exhausted. */
static uint16_t atom_intern(struct idx *ix, const char *s, size_t n)
{
	struct idx_atom *a = NULL;

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
	return a ? a->num : 0;
}

uint16_t idx_intern_atom(struct idx *ix, const struct js_str *raw)
{
	struct sbuf dec;
	uint16_t atom;

	if (!raw->escaped)
		return atom_intern(ix, raw->p, raw->n);
	sb_init(&dec);
	js_unescape(raw, &dec);
	atom = atom_intern(ix, dec.buf, dec.len);
	sb_free(&dec);
	return atom;
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

/*
 * The last line of the file has no newline yet: when its n bytes at pos
 * hold one whole JSON object (a finished log whose writer left the newline
 * out), it is indexed as a record now, and the newline that may follow
 * later ends it (ix->open); bytes that do not parse yet keep waiting.
 * buf holds them when they fit (else they are read). 1 when indexed.
 */
static int open_line(struct idx *ix, int fd, const char *buf, size_t n, uint64_t pos)
{
	char *line = NULL;
	const char *p = buf, *e, *s;
	int rc = 0;

	if (!n || n > IDX_OPEN_MAX)
		return 0;
	if (!p) {
		line = malloc(n);
		if (!line)
			return -ENOMEM;
		if (pread_full(fd, line, n, pos) != (ssize_t)n) {
			free(line);
			return 0;
		}
		p = line;
	}
	for (s = p; s < p + n && *s == '\0'; s++)
		;
	s = js_ws(s, p + n);
	if (s < p + n && *s == '{' && (e = js_value(s, p + n)) && js_ws(e, p + n) == p + n) {
		rc = index_line(ix, p, n, pos, 0);
		rc = rc ? rc : 1;
	}
	free(line);
	return rc;
}

/*
 * After a line taken open: the newline that ends it (blanks before it, a
 * CR, belong to the line, as one pass would have taken them: its record
 * grows by them). 0 when it was found (*pos past it) or other bytes come
 * first (then they start a line of their own); 1 when only blanks are
 * there yet (the line stays open); -errno.
 */
static int close_open(struct idx *ix, int fd, char *buf, uint64_t *pos)
{
	ssize_t r = pread_full(fd, buf, IDX_OPEN_PEEK, *pos), k = 0;

	if (r < 0)
		return (int)r;
	while (k < r && (buf[k] == '\r' || buf[k] == ' ' || buf[k] == '\t'))
		k++;
	if (k == r)
		return r == IDX_OPEN_PEEK ? 0 : 1;	/* a long run of blanks: a line */
	ix->open = 0;
	if (buf[k] == '\n') {
		if (ix->open_rec)
			ix->recs[ix->nrecs - 1].len += (uint32_t)k;
		*pos += (uint64_t)k + 1;
	}
	return 0;
}

/* Indexes the complete lines after ix->end that end before limit (a line
 * start, or UINT64_MAX for all: then also a last line that parses whole,
 * see open_line()). */
static int feed_upto(struct idx *ix, int fd, uint64_t limit)
{
	char *buf = tb_get(TB_INDEX, IDX_CHUNK);	/* not malloc(): faults */
	uint64_t pos = ix->end;
	size_t have = 0;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	if (ix->open) {
		rc = close_open(ix, fd, buf, &pos);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	for (;;) {
		uint64_t room = limit - pos - have;
		ssize_t r = pread_full(fd, buf + have,
				       room < IDX_CHUNK - have ? (size_t)room : IDX_CHUNK - have,
				       pos + have);
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
		pl_offer_cpu();	/* a worker ahead of the readers (plat.h) */
		memmove(buf, p, have - (size_t)(p - buf));
		pos += (uint64_t)(p - buf);
		have -= (size_t)(p - buf);
	}
	if (!rc && have && limit == UINT64_MAX) {
		uint32_t had = ix->nrecs;

		rc = open_line(ix, fd, have < IDX_CHUNK ? buf : NULL, have, pos);
		if (rc == 1) {
			pos += have;
			have = 0;
			ix->open = 1;
			ix->open_rec = ix->nrecs > had;
			rc = 0;
		}
	}
out:
	ix->end = pos;
	ix->pending = have;
	return rc;
}

int idx_feed(struct idx *ix, int fd)
{
	return feed_upto(ix, fd, UINT64_MAX);
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

/* ---- on two threads ---- */

/* The line start at or after at: just past the first newline from at - 1
 * on, looked for within IDX_CHUNK bytes (in small reads: it is usually
 * near); 0 when there is none. */
static uint64_t line_start(int fd, uint64_t at)
{
	char buf[4096], *nl;
	uint64_t from;

	for (from = at - 1; from < at - 1 + IDX_CHUNK; from += sizeof(buf)) {
		ssize_t r = pread_full(fd, buf, sizeof(buf), from);

		if (r <= 0)
			return 0;
		if ((nl = memchr(buf, '\n', (size_t)r)))
			return from + (uint64_t)(nl - buf) + 1;
	}
	return 0;
}

/* The id b gives as bid, interned into a. */
static uint32_t id_into(struct idx *a, const struct idx *b, uint32_t bid)
{
	const struct idx_key *k = &b->keys[bid - 1];
	struct idx_probe pk;

	if (is_str(b, bid)) {
		probe_init(&pk, b->strs[k->a], k->b);
	} else {
		pk.k = *k;
		pk.s = NULL;
		pk.h = mix64(k->a ^ k->b * 0x9e3779b97f4a7c15ULL);
	}
	return intern_probe(a, &pk);
}

/* What b's ids and atoms are in a, once interned there in b's order (the
 * order in which one pass would have met the new ones). */
struct idx_map {
	uint32_t *id;
	uint16_t *atom;
};

static int map_into(struct idx *a, const struct idx *b, struct idx_map *m)
{
	uint32_t i;

	m->id = malloc(((size_t)b->nids + 1) * sizeof(*m->id));
	m->atom = malloc((size_t)b->natoms * sizeof(*m->atom));
	if (!m->id || !m->atom)
		return -ENOMEM;
	m->id[0] = 0;
	for (i = 1; i <= b->nids; i++)
		if (!(m->id[i] = id_into(a, b, i)))
			return -ENOMEM;
	m->atom[0] = 0;
	for (i = 1; i < b->natoms; i++) {
		const char *s = b->atomv[i]->s;

		m->atom[i] = atom_intern(a, s, strlen(s));
		if (!m->atom[i] && a->natoms < ATOM_MAX)
			return -ENOMEM;
	}
	return 0;
}

static void rec_map(struct idx_rec *r, const struct idx_map *m, uint32_t lines)
{
	r->uuid = m->id[r->uuid];
	r->parent = m->id[r->parent];
	r->aux = m->id[r->aux];
	r->type_atom = m->atom[r->type_atom];
	r->sub = m->atom[r->sub];
	r->name = m->atom[r->name];
	r->ver = m->atom[r->ver];
	r->line += lines;
}

/* Appends b, the index of the lines after a's end, to a. On error a holds
 * no line of b (it may hold some of b's ids and atoms: those one pass over
 * b's lines would add first, in the same order). */
static int merge(struct idx *a, const struct idx *b)
{
	struct idx_map m = { NULL, NULL };
	uint32_t i;
	int rc = map_into(a, b, &m);

	if (!rc && (grow((void **)&a->recs, &a->caprecs, a->nrecs + b->nrecs,
			 sizeof(*a->recs)) ||
		    grow((void **)&a->errs, &a->caperrs, a->nerrs + b->nerrs,
			 sizeof(*a->errs))))
		rc = -ENOMEM;
	if (!rc) {
		for (i = 0; i < b->nrecs; i++) {
			a->recs[a->nrecs + i] = b->recs[i];
			rec_map(&a->recs[a->nrecs + i], &m, a->lines);
		}
		for (i = 0; i < b->nerrs; i++) {
			a->errs[a->nerrs + i] = b->errs[i];
			a->errs[a->nerrs + i].line += a->lines;
		}
		a->nrecs += b->nrecs;
		a->nerrs += b->nerrs;
		a->lines += b->lines;
		a->end = b->end;
		a->pending = b->pending;
		a->open = b->open;
		a->open_rec = b->open_rec;
	}
	free(m.id);
	free(m.atom);
	return rc;
}

/* The atom b gives as batom, interned into a (0 stays 0). */
static int atom_into(struct idx *a, const struct idx *b, uint16_t *atom)
{
	const char *s = *atom ? b->atomv[*atom]->s : NULL;

	if (s && !(*atom = atom_intern(a, s, strlen(s))) && a->natoms < ATOM_MAX)
		return -ENOMEM;
	return 0;
}

/* The ids and atoms of b's record r, interned into a. */
static int rec_into(struct idx *a, const struct idx *b, struct idx_rec *r)
{
	uint32_t *ids[3] = { &r->uuid, &r->parent, &r->aux };
	int i;

	for (i = 0; i < 3; i++)
		if (*ids[i] && !(*ids[i] = id_into(a, b, *ids[i])))
			return -ENOMEM;
	if (atom_into(a, b, &r->type_atom) || atom_into(a, b, &r->sub) ||
	    atom_into(a, b, &r->name) || atom_into(a, b, &r->ver))
		return -ENOMEM;
	return 0;
}

int idx_copy_more(struct idx *dst, const struct idx *src, uint32_t from,
		  const uint8_t *keep)
{
	uint32_t i, had = dst->nrecs;

	for (i = from; i < src->nrecs; i++) {
		struct idx_rec r = src->recs[i];

		if (!keep[i])
			continue;
		if (grow((void **)&dst->recs, &dst->caprecs, dst->nrecs + 1, sizeof(*dst->recs)) ||
		    rec_into(dst, src, &r)) {
			dst->nrecs = had;
			return -ENOMEM;
		}
		dst->recs[dst->nrecs++] = r;
	}
	dst->end = src->end;
	dst->pending = src->pending;
	dst->open = src->open;
	dst->open_rec = src->open_rec && keep[src->nrecs - 1] && dst->nrecs;
	dst->lines = src->lines;
	return 0;
}

int idx_copy_some(const struct idx *src, const uint8_t *keep, struct idx **out)
{
	struct idx *a = idx_new();

	*out = NULL;
	if (!a)
		return -ENOMEM;
	if (idx_copy_more(a, src, 0, keep)) {
		idx_free(a);
		return -ENOMEM;
	}
	*out = a;
	return 0;
}

struct half {
	struct idx *ix;
	int fd, rc;
};

static void *half_run(void *arg)
{
	struct half *h = arg;

	h->rc = idx_feed(h->ix, h->fd);
	return NULL;
}

/* Indexes [ix->end, split) here and the lines from split on beside, into
 * an index of their own, then appends that one. 1 when done, 0 when
 * nothing was indexed past split (then the caller goes on alone), -errno
 * on a read error. */
static int feed_halves(struct idx *ix, int fd, uint64_t split)
{
	struct half h = { idx_new(), fd, 0 };
	pthread_t th;
	int rc;

	if (!h.ix)
		return 0;
	h.ix->end = split;
	if (pthread_create(&th, NULL, half_run, &h)) {
		idx_free(h.ix);
		return 0;
	}
	rc = feed_upto(ix, fd, split);
	pthread_join(th, NULL);
	if (!rc && !h.rc && ix->end == split && !ix->pending)
		rc = merge(ix, h.ix) ? 0 : 1;
	idx_free(h.ix);
	return rc;
}

int idx_feed2(struct idx *ix, int fd, uint64_t min)
{
	struct stat st;
	uint64_t split;
	int rc;

	if (ix->pending || ix->open || fstat(fd, &st) || (uint64_t)st.st_size < ix->end ||
	    (uint64_t)st.st_size - ix->end < (min ? min : 2))
		return idx_feed(ix, fd);
	split = line_start(fd, ix->end + ((uint64_t)st.st_size - ix->end) / 2);
	if (split <= ix->end)
		return idx_feed(ix, fd);
	rc = feed_halves(ix, fd, split);
	return rc < 0 ? rc : rc ? 0 : idx_feed(ix, fd);
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
	/* Arrays count what is used: the rest of their capacity is address
	 * space the kernel has not backed (large reallocs are mmaps). */
	return (size_t)ix->nrecs * sizeof(struct idx_rec) +
	       (size_t)ix->nerrs * sizeof(struct idx_err) +
	       (size_t)ix->nids * sizeof(struct idx_key) +
	       (size_t)(ix->nids / 64 + 1) * sizeof(uint64_t) +
	       (size_t)ix->nslots * sizeof(struct idx_slot) +
	       (ix->atoms ? HASH_OVERHEAD(hh, ix->atoms) : 0) +
	       (size_t)ix->capstrs * sizeof(char *) + ix->strbytes +
	       (size_t)ix->capatoms * sizeof(void *);
}

ssize_t idx_pread(int fd, char *buf, size_t n, uint64_t off)
{
	return pread_full(fd, buf, n, off);
}
