/*
 * A log written to a temporary file and built layer by layer: index,
 * graph, branches, resume chain (the replay layer), with views of ids as
 * the row numbers testutil.h's builder gave them. Header-only.
 */
#ifndef SESSFS_TU_FIXTURE_H
#define SESSFS_TU_FIXTURE_H

#include "testutil.h"
#include "branch.h"
#include "graph.h"
#include "idx.h"
#include "logf.h"
#include "resume.h"

/* Aborts if any step fails. */
struct tu_fx {
	char *path;
	struct logf *lf;
	struct idx *ix;
	struct graph *g;
	struct br_set *br;
	struct rs_chain *c;
	struct sbuf seq;
};

static inline void tu_build(struct tu_fx *f)
{
	br_free(f->br);
	rs_free(f->c);
	gr_free(f->g);
	f->br = NULL;
	f->c = NULL;
	if (gr_build(f->ix, &f->g) || br_build(f->g, &f->br) || rs_build(f->g, f->lf, &f->c))
		abort();
}

static inline void tu_load(struct tu_fx *f, const char *text)
{
	memset(f, 0, sizeof(*f));
	sb_init(&f->seq);
	f->path = tu_write_str(text);
	f->ix = idx_new();
	if (!f->ix || lf_open(f->path, &f->lf) || idx_finish(f->ix, lf_fd(f->lf)))
		abort();
	tu_build(f);
}

static inline void tu_load_log(struct tu_fx *f, const struct tu_log *l)
{
	tu_load(f, l->sb.buf);
}

static inline void tu_unload(struct tu_fx *f)
{
	rs_free(f->c);
	br_free(f->br);
	gr_free(f->g);
	idx_free(f->ix);
	lf_close(f->lf);
	tu_remove(f->path);
	sb_free(&f->seq);
}

/* The id of row n's uuid (0 if the log never names it). */
static inline uint32_t tu_id(const struct tu_fx *f, int n)
{
	char u[37];

	tu_uuid(n, u);
	return idx_id_find(f->ix, u, 36);
}

/* The row number of id (-1 for a uuid that tu_uuid() did not make). */
static inline int tu_num(const struct tu_fx *f, uint32_t id)
{
	char buf[IDX_UUID_MAX + 1], u[37];
	int n;

	if (idx_id_buf(f->ix, id, buf) != 36 || sscanf(buf, "%8d", &n) != 1)
		return -1;
	tu_uuid(n, u);
	return strcmp(u, buf) ? -1 : n;
}

/* ids as row numbers, "1 2 3"; borrowed until the next call. */
static inline const char *tu_seq(struct tu_fx *f, const uint32_t *ids, uint32_t n)
{
	uint32_t i;

	sb_reset(&f->seq);
	for (i = 0; i < n; i++)
		sb_addf(&f->seq, "%s%d", i ? " " : "", tu_num(f, ids[i]));
	return f->seq.buf;
}

/* The resume chain as row numbers. */
static inline const char *tu_chain(struct tu_fx *f)
{
	return tu_seq(f, f->c->ids, f->c->n);
}

/* Branch i's path as row numbers. */
static inline const char *tu_path(struct tu_fx *f, uint32_t i)
{
	uint32_t *ids, n;
	const char *s;

	if (br_path(f->br, i, &ids, &n))
		abort();
	s = tu_seq(f, ids, n);
	free(ids);
	return s;
}

#endif
