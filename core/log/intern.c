#include "intern.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arr.h"

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

struct intern {
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

struct intern *in_new(void)
{
	struct intern *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->natoms = 1;		/* atom 0 is "" */
	if (arr_grow(&in->atomv, &in->capatoms, 64, sizeof(*in->atomv), 64)) {
		free(in);
		return NULL;
	}
	in->atomv[0] = NULL;
	return in;
}

void in_free(struct intern *in)
{
	uint32_t i;

	if (!in)
		return;
	free(in->keys);
	free(in->strbits);
	free(in->slots);
	for (i = 0; i < in->nstrs; i++)
		free(in->strs[i]);
	free(in->strs);
	HASH_CLEAR(hh, in->atoms);
	for (i = 1; i < in->natoms; i++)
		free(in->atomv[i]);
	free(in->atomv);
	free(in);
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

static int is_str(const struct intern *in, uint32_t id)
{
	return (int)(in->strbits[(id - 1) / 64] >> ((id - 1) % 64) & 1);
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

static uint64_t key_hash(const struct intern *in, uint32_t id)
{
	const struct idx_key *k = &in->keys[id - 1];

	if (is_str(in, id))
		return str_hash(in->strs[k->a], k->b);
	return mix64(k->a ^ k->b * 0x9e3779b97f4a7c15ULL);
}

static int key_eq(const struct intern *in, uint32_t id, const struct idx_probe *pk)
{
	const struct idx_key *k = &in->keys[id - 1];

	if (is_str(in, id) != (pk->s != NULL))
		return 0;
	if (!pk->s)
		return k->a == pk->k.a && k->b == pk->k.b;
	return k->b == pk->n && !memcmp(in->strs[k->a], pk->s, pk->n);
}

/* The slot holding the probed key, or the empty slot where it goes. The
 * table always has an empty slot. */
static struct idx_slot *slot_of(const struct intern *in, const struct idx_probe *pk)
{
	uint32_t mask = in->nslots - 1, i = (uint32_t)pk->h & mask,
		 tag = (uint32_t)(pk->h >> 32);

	for (;; i = (i + 1) & mask) {
		struct idx_slot *sl = &in->slots[i];

		if (!sl->id || (sl->tag == tag && key_eq(in, sl->id, pk)))
			return sl;
	}
}

/* Doubles the table (at most two thirds full) and places every id again. */
static int slots_grow(struct intern *in)
{
	uint32_t n = in->nslots ? in->nslots * 2 : SLOTS_MIN, mask = n - 1, id;
	struct idx_slot *v = calloc(n, sizeof(*v));

	if (!v || n < in->nslots) {
		free(v);
		return -ENOMEM;
	}
	for (id = 1; id <= in->nids; id++) {
		uint64_t h = key_hash(in, id);
		uint32_t i = (uint32_t)h & mask;

		while (v[i].id)
			i = (i + 1) & mask;
		v[i].id = id;
		v[i].tag = (uint32_t)(h >> 32);
	}
	free(in->slots);
	in->slots = v;
	in->nslots = n;
	return 0;
}

/* Makes room for one more id (and its string). */
static int ids_reserve(struct intern *in, int str)
{
	uint32_t words = in->nids / 64 + 1;

	if (in->nids == UINT32_MAX - 1 ||
	    arr_grow(&in->keys, &in->capkeys, in->nids + 1, sizeof(*in->keys), 64))
		return -ENOMEM;
	if (words > in->capbits) {
		uint32_t old = in->capbits;

		if (arr_grow(&in->strbits, &in->capbits, words, sizeof(*in->strbits), 64))
			return -ENOMEM;
		memset(in->strbits + old, 0, (in->capbits - old) * sizeof(*in->strbits));
	}
	if (str && arr_grow(&in->strs, &in->capstrs, in->nstrs + 1, sizeof(*in->strs), 64))
		return -ENOMEM;
	if ((uint64_t)(in->nids + 1) * 3 > (uint64_t)in->nslots * 2)
		return slots_grow(in);
	return 0;
}

/* The id of the probed key, adding it when new (with a copy of pk->s for
 * a key that is not canonical); 0 when out of memory. */
static uint32_t intern_probe(struct intern *in, const struct idx_probe *pk)
{
	struct idx_slot *sl = NULL;
	uint32_t id, nslots = in->nslots;

	if (nslots && (sl = slot_of(in, pk))->id)
		return sl->id;
	if (ids_reserve(in, pk->s != NULL))
		return 0;
	if (in->nslots != nslots)	/* the table grew: the place moved */
		sl = slot_of(in, pk);
	id = in->nids + 1;
	in->keys[id - 1] = pk->k;
	if (pk->s) {
		char *copy = malloc(pk->n ? pk->n : 1);

		if (!copy)
			return 0;
		memcpy(copy, pk->s, pk->n);
		in->keys[id - 1].a = in->nstrs;
		in->keys[id - 1].b = pk->n;
		in->strs[in->nstrs++] = copy;
		in->strbytes += pk->n;
		in->strbits[(id - 1) / 64] |= (uint64_t)1 << ((id - 1) % 64);
	}
	in->nids = id;
	sl->id = id;
	sl->tag = (uint32_t)(pk->h >> 32);
	return id;
}

uint32_t in_id(struct intern *in, const char *s, size_t n)
{
	struct idx_probe pk;

	probe_init(&pk, s, n);
	return intern_probe(in, &pk);
}

uint32_t in_id_find(const struct intern *in, const char *s, size_t n)
{
	struct idx_probe pk;

	if (!in->nslots)
		return 0;
	probe_init(&pk, s, n);
	return slot_of(in, &pk)->id;
}

size_t in_id_buf(const struct intern *in, uint32_t id, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	const struct idx_key *k;
	uint8_t bin[16];
	size_t i, j = 0;

	if (!id || id > in->nids) {
		buf[0] = '\0';
		return 0;
	}
	k = &in->keys[id - 1];
	if (is_str(in, id)) {
		memcpy(buf, in->strs[k->a], k->b);
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

void in_id_str(const struct intern *in, uint32_t id, struct sbuf *out)
{
	char buf[IN_UUID_MAX + 1];
	size_t n = in_id_buf(in, id, buf);

	sb_add(out, buf, n);
}

void in_id_text(const struct intern *in, uint32_t id, struct sbuf *out)
{
	char buf[IN_UUID_MAX + 1];
	size_t n = in_id_buf(in, id, buf);

	sb_add_line(out, buf, n);
}

uint32_t in_nids(const struct intern *in)
{
	return in->nids;
}

/* ---- atoms ---- */

/* The atom of the n bytes at s, adding it when new; 0 when out of memory
 * or atoms are exhausted. */
uint16_t in_atom_n(struct intern *in, const char *s, size_t n)
{
	struct idx_atom *a = NULL;

	HASH_FIND(hh, in->atoms, s, (unsigned)n, a);
	if (!a && in->natoms < IN_ATOM_MAX &&
	    !arr_grow(&in->atomv, &in->capatoms, in->natoms + 1, sizeof(*in->atomv), 64)) {
		a = malloc(sizeof(*a) + n + 1);
		if (a) {
			memcpy(a->s, s, n);
			a->s[n] = '\0';
			a->num = (uint16_t)in->natoms;
			in->atomv[in->natoms++] = a;
			in->strbytes += sizeof(*a) + n + 1;
			HASH_ADD_KEYPTR(hh, in->atoms, a->s, (unsigned)n, a);
		}
	}
	return a ? a->num : 0;
}

uint16_t in_atom(struct intern *in, const struct js_str *raw)
{
	struct sbuf dec;
	uint16_t atom;

	if (!raw->escaped)
		return in_atom_n(in, raw->p, raw->n);
	sb_init(&dec);
	js_unescape(raw, &dec);
	atom = in_atom_n(in, dec.buf, dec.len);
	sb_free(&dec);
	return atom;
}

const char *in_atom_str(const struct intern *in, uint16_t atom)
{
	return atom && atom < in->natoms ? in->atomv[atom]->s : "";
}

uint16_t in_atom_find(const struct intern *in, const char *s)
{
	struct idx_atom *a = NULL;

	HASH_FIND(hh, in->atoms, s, (unsigned)strlen(s), a);
	return a ? a->num : 0;
}

/* The id b gives as bid, interned into a. */
uint32_t in_id_into(struct intern *a, const struct intern *b, uint32_t bid)
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

size_t in_mem(const struct intern *in)
{
	return (size_t)in->nids * sizeof(struct idx_key) +
	       (size_t)(in->nids / 64 + 1) * sizeof(uint64_t) +
	       (size_t)in->nslots * sizeof(struct idx_slot) +
	       (in->atoms ? HASH_OVERHEAD(hh, in->atoms) : 0) +
	       (size_t)in->capstrs * sizeof(char *) + in->strbytes +
	       (size_t)in->capatoms * sizeof(void *);
}

uint32_t in_natoms(const struct intern *in)
{
	return in->natoms;
}
