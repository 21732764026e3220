#include "pjusage.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "plat.h"
#include "report.h"

/* One session's totals, and the log they were counted from. */
struct pu_ent {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int rc;				/* the count's error, or 0 */
	struct us_total t;
	char **models;
	uint32_t nmodels;
	struct us_day *days;		/* by date */
	uint32_t ndays;
};

struct pu_cache {
	pthread_mutex_t mu;
	struct pu_ent **by_key;		/* PJ_KEY_MAX + 1 */
	uint64_t gen, counted;
};

/* A sum over sessions: models borrowed from their entries (lock held). */
struct pu_sum {
	struct us_total t;
	uint32_t sessions;
	const char **models;
	uint32_t nmodels, cap;
};

static void ent_free(struct pu_ent *e)
{
	uint32_t i;

	if (!e)
		return;
	for (i = 0; i < e->nmodels; i++)
		free(e->models[i]);
	free(e->models);
	free(e->days);
	free(e);
}

int pu_new(struct pu_cache **out)
{
	struct pu_cache *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c || !(c->by_key = calloc(PJ_KEY_MAX + 1, sizeof(*c->by_key)))) {
		free(c);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->mu, NULL);
	*out = c;
	return 0;
}

void pu_free(struct pu_cache *c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i <= PJ_KEY_MAX; i++)
		ent_free(c->by_key[i]);
	free(c->by_key);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

/* *v, read under the lock. */
static uint64_t locked_read(struct pu_cache *c, const uint64_t *v)
{
	uint64_t n;

	pthread_mutex_lock(&c->mu);
	n = *v;
	pthread_mutex_unlock(&c->mu);
	return n;
}

uint64_t pu_gen(struct pu_cache *c)
{
	return locked_read(c, &c->gen);
}

uint64_t pu_counted(struct pu_cache *c)
{
	return locked_read(c, &c->counted);
}

/* Whether e was counted from the log as st says it is. */
static int same_log(const struct pu_ent *e, const struct stat *st)
{
	return e && e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
	       e->mtime.tv_sec == PL_MTIM(*st).tv_sec && e->mtime.tv_nsec == PL_MTIM(*st).tv_nsec;
}

/* A new entry: the totals of the log x of s, at path (through ss, if
 * open; else read below the set's root). */
static struct pu_ent *count_log(const struct pj_set *s, const struct pj_session *x,
				const char *path, struct session *ss, const struct stat *st)
{
	struct pu_ent *e = calloc(1, sizeof(*e));
	struct us_tally *y = us_tally_new();
	const char **names = NULL;
	uint32_t i, n = 0;

	if (!e || !y) {
		free(e);
		us_tally_free(y);
		return NULL;
	}
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->size = st->st_size;
	e->mtime = PL_MTIM(*st);
	e->rc = rp_log_tally_at(s->rootfd, x->path, path, ss, y);
	if (!e->rc)
		e->rc = us_tally_models_used(y, &names, &n);
	if (!e->rc)
		e->rc = us_tally_days(y, &e->days, &e->ndays);
	if (!e->rc) {
		us_tally_total(y, &e->t);
		e->models = calloc(n + 1, sizeof(*e->models));
		for (i = 0; e->models && i < n; i++)
			if ((e->models[e->nmodels] = strdup(names[i])))
				e->nmodels++;
	}
	free(names);
	us_tally_free(y);
	return e;
}

int pu_count(struct pu_cache *c, const struct pj_set *s, const struct pj_session *x,
	     struct session *ss, const struct stat *st)
{
	char *path = pj_log_path(s, x);
	struct stat now;
	struct pu_ent *e;
	int held;

	if (!path)
		return -ENOMEM;
	if (!st && fstatat(s->rootfd, x->path, &now, AT_SYMLINK_NOFOLLOW) < 0) {
		free(path);
		return -errno;
	}
	if (!st)
		st = &now;
	if (!S_ISREG(st->st_mode)) {	/* replaced by a link since the scan */
		free(path);
		return -EINVAL;
	}
	pthread_mutex_lock(&c->mu);
	held = same_log(c->by_key[x->key], st);
	pthread_mutex_unlock(&c->mu);
	e = held ? NULL : count_log(s, x, path, ss, st);
	free(path);
	if (held)
		return 0;
	if (!e)
		return -ENOMEM;
	pthread_mutex_lock(&c->mu);
	ent_free(c->by_key[x->key]);
	c->by_key[x->key] = e;
	c->gen++;
	c->counted++;
	pthread_mutex_unlock(&c->mu);
	return e->rc;
}

/* ---- JSON ---- */

static const char *const no_models[1];

/* The figures as members on one line, from inputTokens on; modelsUsed
 * only when models is not NULL. */
static void totals_json(const struct us_total *t, const char *const *models, uint32_t n,
			struct sbuf *out)
{
	uint32_t i;

	sb_addf(out, "\"inputTokens\":%llu,\"outputTokens\":%llu,\"cacheCreationTokens\":%llu,"
		"\"cacheReadTokens\":%llu,\"totalTokens\":%llu,\"responses\":%llu",
		(unsigned long long)t->t.input, (unsigned long long)t->t.output,
		(unsigned long long)t->t.cache_create, (unsigned long long)t->t.cache_read,
		(unsigned long long)us_sum(&t->t), (unsigned long long)t->responses);
	if (t->has_cost)
		sb_addf(out, ",\"costUSD\":%.6g", t->cost);
	if (!models)		/* a day: no models */
		return;
	sb_adds(out, ",\"modelsUsed\":[");
	for (i = 0; i < n; i++) {
		sb_adds(out, i ? "," : "");
		sb_add_json_str(out, models[i], strlen(models[i]));
	}
	sb_addc(out, ']');
}

/* Whether e holds the log as the set saw it (lock held). */
static int as_listed(const struct pu_ent *e, const struct pj_session *x)
{
	return e && !e->rc && e->ino == x->ino && (uint64_t)e->size == x->f.bytes &&
	       e->mtime.tv_sec == x->mtime.tv_sec && e->mtime.tv_nsec == x->mtime.tv_nsec;
}

void pu_session_json(struct pu_cache *c, const struct pj_session *x, struct sbuf *out)
{
	const struct pu_ent *e;

	pthread_mutex_lock(&c->mu);
	e = c->by_key[x->key];
	if (as_listed(e, x)) {
		sb_addc(out, '{');
		totals_json(&e->t, e->models ? (const char *const *)e->models : no_models,
			    e->nmodels, out);
		sb_addc(out, '}');
	} else {
		sb_adds(out, "null");
	}
	pthread_mutex_unlock(&c->mu);
}

static void total_add(struct us_total *a, const struct us_total *b)
{
	a->t.input += b->t.input;
	a->t.output += b->t.output;
	a->t.cache_create += b->t.cache_create;
	a->t.cache_read += b->t.cache_read;
	a->responses += b->responses;
	a->cost += b->cost;
	a->has_cost |= b->has_cost;
}

static int sum_add(struct pu_sum *m, const struct pu_ent *e)
{
	uint32_t i, k;

	m->sessions++;
	total_add(&m->t, &e->t);
	for (i = 0; i < e->nmodels; i++) {
		for (k = 0; k < m->nmodels && strcmp(m->models[k], e->models[i]); k++)
			;
		if (k < m->nmodels)
			continue;
		if (m->nmodels == m->cap) {
			uint32_t cap = m->cap ? m->cap * 2 : 8;
			const char **p = realloc(m->models, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			m->models = p;
			m->cap = cap;
		}
		m->models[m->nmodels++] = e->models[i];
	}
	return 0;
}

static void json_str(struct sbuf *out, const char *s)
{
	if (s)
		sb_add_json_str(out, s, strlen(s));
	else
		sb_adds(out, "null");
}

/* One session's line of usage.json (lock held). */
static void session_line(const struct pj_set *s, const struct pj_session *x,
			 const struct pu_ent *e, struct sbuf *out)
{
	const char *project = s->projects[x->project].name;

	sb_adds(out, "{\"sessionId\":");
	json_str(out, x->f.sid);
	sb_adds(out, ",\"project\":");
	json_str(out, project);
	sb_adds(out, ",\"path\":");
	json_str(out, x->path);
	sb_adds(out, ",\"folder\":\"projects/");
	sb_add_json_chars(out, project, strlen(project));
	sb_addc(out, '/');
	sb_add_json_chars(out, x->name, strlen(x->name));
	sb_adds(out, "\",");
	if (e && !e->rc) {
		totals_json(&e->t, e->models ? (const char *const *)e->models : no_models,
			    e->nmodels, out);
	} else {
		sb_adds(out, "\"error\":");
		json_str(out, e ? strerror(-e->rc) : "not counted");
	}
	sb_addc(out, '}');
}

/* The per-session lines, adding each into its project's sum and all. */
static int sessions_part(struct pu_cache *c, const struct pj_set *s, struct pu_sum *per,
			 struct pu_sum *all, struct sbuf *out)
{
	uint32_t i;
	int rc = 0;

	sb_adds(out, "\"sessions\": [\n");
	for (i = 0; i < s->nsessions; i++) {
		const struct pj_session *x = &s->sessions[i];
		const struct pu_ent *e = c->by_key[x->key];

		session_line(s, x, e, out);
		sb_adds(out, i + 1 < s->nsessions ? ",\n" : "\n");
		if (e && !e->rc && (sum_add(&per[x->project], e) || sum_add(all, e)))
			rc = -ENOMEM;
	}
	sb_adds(out, "]\n}\n");
	return rc;
}

static void sum_json(const struct pu_sum *m, struct sbuf *out)
{
	sb_addf(out, "\"sessions\":%u,", m->sessions);
	totals_json(&m->t, m->models ? m->models : no_models, m->nmodels, out);
	sb_addc(out, '}');
}

static int day_cmp(const void *a, const void *b)
{
	const struct us_day *x = a, *y = b;

	return (x->ymd > y->ymd) - (x->ymd < y->ymd);
}

/* "daily": every session's days summed, by date (lock held). */
static int daily_part(struct pu_cache *c, const struct pj_set *s, struct sbuf *out)
{
	struct us_day *all = NULL, *p;
	uint32_t i, j, k, n = 0, cap = 0;

	for (i = 0; i < s->nsessions; i++) {
		const struct pu_ent *e = c->by_key[s->sessions[i].key];

		for (j = 0; e && !e->rc && j < e->ndays; j++) {
			for (k = 0; k < n && all[k].ymd != e->days[j].ymd; k++)
				;
			if (k == n && n == cap) {
				cap = cap ? cap * 2 : 64;
				if (!(p = realloc(all, cap * sizeof(*p)))) {
					free(all);
					return -ENOMEM;
				}
				all = p;
			}
			if (k == n)
				all[n++] = (struct us_day){ e->days[j].ymd, { { 0 }, 0, 0, 0 } };
			total_add(&all[k].t, &e->days[j].t);
		}
	}
	if (n)
		qsort(all, n, sizeof(*all), day_cmp);
	sb_adds(out, "\"daily\": [\n");
	for (i = 0; i < n; i++) {
		sb_addf(out, "{\"date\":\"%04d-%02d-%02d\",", all[i].ymd / 10000,
			all[i].ymd / 100 % 100, all[i].ymd % 100);
		totals_json(&all[i].t, NULL, 0, out);
		sb_adds(out, i + 1 < n ? "},\n" : "}\n");
	}
	sb_adds(out, "],\n");
	free(all);
	return 0;
}

/* usage.json from the cache (lock held). */
static int render(struct pu_cache *c, const struct pj_set *s, struct sbuf *out)
{
	struct pu_sum all = { 0 }, *per = calloc(s->nprojects + 1, sizeof(*per));
	struct sbuf tail;
	uint32_t i;
	int rc;

	if (!per)
		return -ENOMEM;
	sb_init(&tail);
	rc = sessions_part(c, s, per, &all, &tail);
	sb_adds(out, "{\n\"countedAs\": \"ccusage 20.0.24 session: each API response once, "
		     "a session with its subagents\",\n\"totals\": {");
	sum_json(&all, out);
	sb_adds(out, ",\n\"projects\": [\n");
	for (i = 0; i < s->nprojects; i++) {
		sb_adds(out, "{\"project\":");
		json_str(out, s->projects[i].name);
		sb_addc(out, ',');
		sum_json(&per[i], out);
		sb_adds(out, i + 1 < s->nprojects ? ",\n" : "\n");
	}
	sb_adds(out, "],\n");
	if (!rc)
		rc = daily_part(c, s, out);
	sb_add(out, tail.buf, tail.len);
	sb_free(&tail);
	for (i = 0; i < s->nprojects; i++)
		free(per[i].models);
	free(per);
	free(all.models);
	return rc;
}

struct pass {
	struct pu_cache *c;
	const struct pj_set *s;
	uint32_t next;			/* atomic: the next session */
};

static void *count_worker(void *arg)
{
	struct pass *w = arg;
	uint32_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->s->nsessions)
		pu_count(w->c, w->s, &w->s->sessions[i], NULL, NULL);
	return NULL;
}

int pu_usage_json(struct pu_cache *c, const struct pj_set *s, struct sbuf *out)
{
	struct pass w = { c, s, 0 };
	pthread_t th[PU_THREADS];
	int i, n = 0, rc;
	size_t start = out->len;

	for (i = 1; i < PU_THREADS && s->nsessions > 1; i++)
		if (!pthread_create(&th[n], NULL, count_worker, &w))
			n++;
	count_worker(&w);
	while (n)
		pthread_join(th[--n], NULL);
	pthread_mutex_lock(&c->mu);
	rc = render(c, s, out);
	pthread_mutex_unlock(&c->mu);
	if (rc) {
		out->len = start;
		if (out->buf)
			out->buf[start] = '\0';
	}
	return rc;
}
