#include "idx.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "arr.h"
#include "intern.h"
#include "jscan.h"
#include "plat.h"
#include "scan.h"
#include "tbuf.h"

struct idx {
	struct idx_rec *recs;
	uint32_t nrecs, caprecs;
	struct idx_err *errs;
	uint32_t nerrs, caperrs;
	uint64_t end, pending;
	uint32_t lines;
	uint8_t open;			/* the last line indexed has no newline yet */
	uint8_t open_rec;		/* ... and is the last record (not a bad line) */
	uint8_t continued;		/* ... and went on: idx_continued() */

	struct intern *in;		/* uuids and atoms */
};

struct idx *idx_new(void)
{
	struct idx *ix = calloc(1, sizeof(*ix));

	if (ix && !(ix->in = in_new())) {
		free(ix);
		return NULL;
	}
	return ix;
}

void idx_free(struct idx *ix)
{
	if (!ix)
		return;
	in_free(ix->in);
	free(ix->recs);
	free(ix->errs);
	free(ix);
}

/* ---- ids and atoms: the index's interning (intern.h) ---- */

uint32_t idx_id_find(const struct idx *ix, const char *s, size_t n)
{
	return in_id_find(ix->in, s, n);
}

size_t idx_id_buf(const struct idx *ix, uint32_t id, char *buf)
{
	return in_id_buf(ix->in, id, buf);
}

void idx_id_str(const struct idx *ix, uint32_t id, struct sbuf *out)
{
	in_id_str(ix->in, id, out);
}

void idx_id_text(const struct idx *ix, uint32_t id, struct sbuf *out)
{
	in_id_text(ix->in, id, out);
}

uint32_t idx_nids(const struct idx *ix)
{
	return in_nids(ix->in);
}

const char *idx_atom(const struct idx *ix, uint16_t atom)
{
	return in_atom_str(ix->in, atom);
}

uint16_t idx_atom_find(const struct idx *ix, const char *s)
{
	return in_atom_find(ix->in, s);
}

static int add_err(struct idx *ix, uint64_t off, uint32_t col, uint8_t code)
{
	struct idx_err *er;

	if (arr_grow(&ix->errs, &ix->caperrs, ix->nerrs + 1, sizeof(*er), 64))
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
	code = scan_line(ix->in, p, n, torn, &rec, &col, &bad_uuid);
	if (code)
		return add_err(ix, off, col, (uint8_t)code);
	if (bad_uuid && add_err(ix, off, 0, IDX_E_BAD_UUID))
		return -ENOMEM;
	rec.off = off;
	rec.len = (uint32_t)n;
	rec.line = ix->lines;
	if (arr_grow(&ix->recs, &ix->caprecs, ix->nrecs + 1, sizeof(rec), 64))
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
 * grows by them). 0 when it was found (*pos past it); 1 when only blanks
 * are there yet (the line stays open), or other bytes come first: the
 * line went on, and one pass would read it with them, as one longer line
 * (ix->continued: nothing more is indexed); -errno.
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
	if (buf[k] != '\n') {
		ix->continued = 1;
		return 1;
	}
	ix->open = 0;
	if (ix->open_rec)
		ix->recs[ix->nrecs - 1].len += (uint32_t)k;
	*pos += (uint64_t)k + 1;
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
	if (ix->continued)
		return 0;
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

/* What b's ids and atoms are in a, once interned there in b's order (the
 * order in which one pass would have met the new ones). */
struct idx_map {
	uint32_t *id;
	uint16_t *atom;
};

static int map_into(struct idx *a, const struct idx *b, struct idx_map *m)
{
	uint32_t i;

	uint32_t nids = in_nids(b->in), natoms = in_natoms(b->in);

	m->id = malloc(((size_t)nids + 1) * sizeof(*m->id));
	m->atom = malloc((size_t)natoms * sizeof(*m->atom));
	if (!m->id || !m->atom)
		return -ENOMEM;
	m->id[0] = 0;
	for (i = 1; i <= nids; i++)
		if (!(m->id[i] = in_id_into(a->in, b->in, i)))
			return -ENOMEM;
	m->atom[0] = 0;
	for (i = 1; i < natoms; i++) {
		const char *s = in_atom_str(b->in, (uint16_t)i);

		m->atom[i] = in_atom_n(a->in, s, strlen(s));
		if (!m->atom[i] && in_natoms(a->in) < IN_ATOM_MAX)
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

	if (!rc && (arr_grow(&a->recs, &a->caprecs, a->nrecs + b->nrecs, sizeof(*a->recs), 64) ||
		    arr_grow(&a->errs, &a->caperrs, a->nerrs + b->nerrs, sizeof(*a->errs), 64)))
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
		a->continued = b->continued;
	}
	free(m.id);
	free(m.atom);
	return rc;
}

/* The atom b gives as batom, interned into a (0 stays 0). */
static int atom_into(struct idx *a, const struct idx *b, uint16_t *atom)
{
	const char *s = *atom ? in_atom_str(b->in, *atom) : NULL;

	if (s && !(*atom = in_atom_n(a->in, s, strlen(s))) && in_natoms(a->in) < IN_ATOM_MAX)
		return -ENOMEM;
	return 0;
}

/* The ids and atoms of b's record r, interned into a. */
static int rec_into(struct idx *a, const struct idx *b, struct idx_rec *r)
{
	uint32_t *ids[3] = { &r->uuid, &r->parent, &r->aux };
	int i;

	for (i = 0; i < 3; i++)
		if (*ids[i] && !(*ids[i] = in_id_into(a->in, b->in, *ids[i])))
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

		if (!keep || !keep[i])
			continue;
		if (arr_grow(&dst->recs, &dst->caprecs, dst->nrecs + 1, sizeof(*dst->recs), 64) ||
		    rec_into(dst, src, &r)) {
			dst->nrecs = had;
			return -ENOMEM;
		}
		dst->recs[dst->nrecs++] = r;
	}
	dst->end = src->end;
	dst->pending = src->pending;
	dst->open = src->open;
	dst->continued = src->continued;
	/* Without keep, no record came: the open one is the one it was. */
	dst->open_rec = src->open_rec && dst->nrecs &&
			(keep ? keep[src->nrecs - 1] : dst->open_rec);
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
int idx_continued(const struct idx *ix) { return ix->continued; }
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
	       (size_t)ix->nerrs * sizeof(struct idx_err) + in_mem(ix->in);
}

ssize_t idx_pread(int fd, char *buf, size_t n, uint64_t off)
{
	return pread_full(fd, buf, n, off);
}
