/*
 * pjusage_sums: the sums usage.json and usage.txt show at the root of a
 * projects mount (the folder, each project, each model, day, month and
 * five-hour block), made from the cache's entries. Part of the pjusage
 * module (pjusage_priv.h); runs under the cache's lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arr.h"
#include "pjusage_priv.h"

static void total_add(struct us_total *a, const struct us_total *b)
{
	a->t.input += b->t.input;
	a->t.output += b->t.output;
	a->t.cache_create += b->t.cache_create;
	a->t.cache_read += b->t.cache_read;
	a->responses += b->responses;
	a->unpriced += b->unpriced;
	a->cost += b->cost;
	if (b->has_logged) {
		a->logged += b->logged;
		a->has_logged = 1;
	}
}

/* The index of name among the sums' models, added when new; -1 on ENOMEM. */
static int64_t model_id(struct pu_sums *m, const char *name, uint32_t *cap)
{
	uint32_t i;

	for (i = 0; i < m->nmodels; i++)
		if (!strcmp(m->models[i].name, name))
			return i;
	if (arr_grow(&m->models, cap, m->nmodels + 1, sizeof(*m->models), 16))
		return -1;
	m->models[m->nmodels] = (struct pu_gmodel){ .name = name };
	return m->nmodels++;
}

/* Adds model id to a list (once). */
static int list_add(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == id)
			return 0;
	if (arr_grow(v, cap, *n + 1, sizeof(**v), 4))
		return -ENOMEM;
	(*v)[(*n)++] = id;
	return 0;
}

/* The models of bits (an entry's: map gives their ids) into a list. */
static int bits_add(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t bits,
		    const uint32_t *map, uint32_t nmap)
{
	uint32_t i;

	for (i = 0; bits && i < nmap && i < US_HOUR_MODELS; i++, bits >>= 1)
		if ((bits & 1) && list_add(v, n, cap, map[i]))
			return -ENOMEM;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* ---- days and months ---- */

struct day_ref {
	const struct us_day *d;
	const uint32_t *map;
	uint32_t nmap;
};

static int day_ref_cmp(const void *a, const void *b)
{
	const struct day_ref *x = a, *y = b;

	return (x->d->ymd > y->d->ymd) - (x->d->ymd < y->d->ymd);
}

/* Appends a period keyed key to *v (unless same and the last one is
 * keyed so); the period to add into, or NULL on ENOMEM. */
static struct pu_period *period_at(struct pu_period **v, uint32_t *n, uint32_t *cap,
				   int64_t key, int same)
{
	if (same && *n && (*v)[*n - 1].key == key)
		return &(*v)[*n - 1];
	if (arr_grow(v, cap, *n + 1, sizeof(**v), 16))
		return NULL;
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].key = key;
	return &(*v)[(*n)++];
}

static int days_and_months(struct pu_sums *m, struct day_ref *r, uint32_t n)
{
	uint32_t i, k, capd = 0, capm = 0;

	if (n)
		qsort(r, n, sizeof(*r), day_ref_cmp);
	for (i = 0; i < n; i++) {
		struct pu_period *d = period_at(&m->days, &m->ndays, &capd, r[i].d->ymd, 1);

		if (!d || bits_add(&d->models, &d->nmodels, &d->cap, r[i].d->models, r[i].map,
				   r[i].nmap))
			return -ENOMEM;
		total_add(&d->t, &r[i].d->t);
	}
	for (i = 0; i < m->ndays; i++) {
		const struct pu_period *d = &m->days[i];
		struct pu_period *mo = period_at(&m->months, &m->nmonths, &capm, d->key / 100, 1);

		if (!mo)
			return -ENOMEM;
		total_add(&mo->t, &d->t);
		for (k = 0; k < d->nmodels; k++)
			if (list_add(&mo->models, &mo->nmodels, &mo->cap, d->models[k]))
				return -ENOMEM;
	}
	for (i = 0; i < m->ndays; i++)	/* qsort(NULL, 0) is undefined */
		if (m->days[i].nmodels)
			qsort(m->days[i].models, m->days[i].nmodels, sizeof(uint32_t), id_cmp);
	for (i = 0; i < m->nmonths; i++)
		if (m->months[i].nmodels)
			qsort(m->months[i].models, m->months[i].nmodels, sizeof(uint32_t), id_cmp);
	return 0;
}

/* ---- five-hour blocks ---- */

/*
 * ccusage's blocks over every counted row of the folder in time order: a
 * block starts at the UTC hour of its first row and takes the rows until
 * one comes more than five hours after the block's start or after the
 * row before it; a gap of more than five hours between two rows is a
 * block of its own (from five hours after the last row to the next row).
 * The rows come here as hours (us_hour): within one hour no two rows are
 * five hours apart, and a row more than five hours after a block's start
 * is so for all rows of its hour but those at the hour exactly (us_hour's
 * at_start), so walking the hours in order (at_start first) decides as
 * walking the rows would.
 */
struct hour_ref {
	const struct us_hour *h;
	const uint32_t *map;
	uint32_t nmap;
};

static int hour_ref_cmp(const void *a, const void *b)
{
	const struct us_hour *x = ((const struct hour_ref *)a)->h;
	const struct us_hour *y = ((const struct hour_ref *)b)->h;

	if (x->hour != y->hour)
		return (x->hour > y->hour) - (x->hour < y->hour);
	if (x->at_start != y->at_start)
		return x->at_start ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static int blocks(struct pu_sums *m, struct hour_ref *r, uint32_t n)
{
	struct pu_period *b = NULL, *g;
	uint32_t i, cap = 0;
	int64_t last = 0;

	if (n)
		qsort(r, n, sizeof(*r), hour_ref_cmp);
	for (i = 0; i < n; i++) {
		const struct us_hour *h = r[i].h;
		int gap = b && h->first - last > PU_BLOCK_MS;

		if (b && (gap || h->first - b->key > PU_BLOCK_MS)) {
			b->last = last;
			if (gap) {
				if (!(g = period_at(&m->blocks, &m->nblocks, &cap,
						    last + PU_BLOCK_MS, 0)))
					return -ENOMEM;
				g->end = h->first;
				g->gap = 1;
			}
			b = NULL;
		}
		if (!b) {
			if (!(b = period_at(&m->blocks, &m->nblocks, &cap, h->hour, 0)))
				return -ENOMEM;
			b->end = h->hour + PU_BLOCK_MS;
		}
		total_add(&b->t, &h->t);
		if (bits_add(&b->models, &b->nmodels, &b->cap, h->models, r[i].map, r[i].nmap))
			return -ENOMEM;
		if (!i || h->last > last)
			last = h->last;
		b->last = last;
	}
	return 0;
}

/* ---- all of it ---- */

static int sum_add(struct pu_sum *a, const struct pu_ent *e, const uint32_t *map)
{
	uint32_t i;

	a->sessions++;
	total_add(&a->t, &e->t);
	for (i = 0; i < e->nmodels; i++)
		if (list_add(&a->models, &a->nmodels, &a->cap, map[i]))
			return -ENOMEM;
	return 0;
}

/* Room for the day and hour references of every counted session. */
static int refs_alloc(struct pu_cache *c, const struct pj_set *s, struct day_ref **days,
		      struct hour_ref **hours)
{
	uint64_t nd = 1, nh = 1;
	uint32_t i;

	for (i = 0; i < s->nsessions; i++) {
		const struct pu_ent *e = c->by_key[s->sessions[i].key];

		if (e && !e->rc) {
			nd += e->ndays;
			nh += e->nhours;
		}
	}
	*days = malloc(nd * sizeof(**days));
	*hours = malloc(nh * sizeof(**hours));
	return *days && *hours ? 0 : -ENOMEM;
}

int pu_sums_make(struct pu_cache *c, const struct pj_set *s, struct pu_sums *m)
{
	struct day_ref *dr = NULL;
	struct hour_ref *hr = NULL;
	uint32_t **maps = calloc(s->nsessions + 1, sizeof(*maps));
	uint32_t i, k, nd = 0, nh = 0, cap = 0;
	int rc = maps ? refs_alloc(c, s, &dr, &hr) : -ENOMEM;

	memset(m, 0, sizeof(*m));
	if (!rc && !(m->projects = calloc(s->nprojects + 1, sizeof(*m->projects))))
		rc = -ENOMEM;
	for (i = 0; !rc && i < s->nsessions; i++) {
		const struct pj_session *x = &s->sessions[i];
		const struct pu_ent *e = c->by_key[x->key];
		int64_t id = 0;

		if (!e || e->rc)
			continue;
		if (!(maps[i] = malloc((e->nmodels + 1) * sizeof(**maps))))
			rc = -ENOMEM;
		for (k = 0; !rc && k < e->nmodels; k++) {
			if ((id = model_id(m, e->models[k].name, &cap)) < 0)
				rc = -ENOMEM;
			else {
				maps[i][k] = (uint32_t)id;
				total_add(&m->models[id].t, &e->models[k].t);
			}
		}
		if (!rc)
			rc = sum_add(&m->projects[x->project], e, maps[i]);
		if (!rc)
			rc = sum_add(&m->all, e, maps[i]);
		for (k = 0; !rc && k < e->ndays; k++)
			dr[nd++] = (struct day_ref){ &e->days[k], maps[i], e->nmodels };
		for (k = 0; !rc && k < e->nhours; k++)
			hr[nh++] = (struct hour_ref){ &e->hours[k], maps[i], e->nmodels };
	}
	if (!rc)
		rc = days_and_months(m, dr, nd);
	if (!rc)
		rc = blocks(m, hr, nh);
	for (i = 0; maps && i < s->nsessions; i++)
		free(maps[i]);
	free(maps);
	free(dr);
	free(hr);
	return rc;
}

static void periods_free(struct pu_period *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		free(p[i].models);
	free(p);
}

void pu_sums_free(struct pu_sums *m, const struct pj_set *s)
{
	uint32_t i;

	for (i = 0; m->projects && i < s->nprojects; i++)
		free(m->projects[i].models);
	free(m->projects);
	free(m->all.models);
	free(m->models);
	periods_free(m->days, m->ndays);
	periods_free(m->months, m->nmonths);
	periods_free(m->blocks, m->nblocks);
	memset(m, 0, sizeof(*m));
}

const char *pu_time_zone(char *buf, size_t n)
{
	const char *tz = getenv("TZ"), *z;
	ssize_t k;

	if (tz && *tz)
		return tz[0] == ':' ? tz + 1 : tz;
	k = readlink("/etc/localtime", buf, n - 1);
	if (k <= 0)
		return "UTC";	/* glibc's, with neither */
	buf[k] = '\0';
	z = strstr(buf, "zoneinfo/");
	return z ? z + 9 : buf;
}
