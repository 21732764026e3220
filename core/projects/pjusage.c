#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arr.h"
#include "pjusage_priv.h"
#include "plat.h"
#include "price.h"
#include "report.h"

static void ent_free(struct pu_ent *e)
{
	uint32_t i;

	if (!e)
		return;
	for (i = 0; i < e->nmodels; i++)
		free(e->models[i].name);
	free(e->models);
	free(e->days);
	free(e->hours);
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

/* The entry's models, from the tally's (names copied). */
static int keep_models(struct pu_ent *e, const struct us_tally *y)
{
	struct us_model *v;
	uint32_t i, n;
	int rc = us_tally_by_model(y, &v, &n);

	if (rc)
		return rc;
	e->models = calloc(n + 1, sizeof(*e->models));
	for (i = 0; e->models && i < n; i++) {
		if (!(e->models[i].name = strdup(v[i].name)))
			break;
		e->models[i].t = v[i].t;
		e->nmodels++;
	}
	free(v);
	return e->models && e->nmodels == n ? 0 : -ENOMEM;
}

/* A new entry: the totals of the log x of s, at path (through ss, if
 * open; else read below the set's root). */
static struct pu_ent *count_log(const struct pj_set *s, const struct pj_session *x,
				const char *path, struct session *ss, const struct stat *st)
{
	struct pu_ent *e = calloc(1, sizeof(*e));
	struct us_tally *y = us_tally_new();

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
		e->rc = keep_models(e, y);
	if (!e->rc)
		e->rc = us_tally_days(y, &e->days, &e->ndays);
	if (!e->rc)
		e->rc = us_tally_hours(y, &e->hours, &e->nhours);
	if (!e->rc)
		us_tally_total(y, &e->t);
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

/* The models of an entry as a JSON array. */
static void ent_models_json(const struct pu_ent *e, struct sbuf *out)
{
	uint32_t i;

	sb_addc(out, '[');
	for (i = 0; i < e->nmodels; i++) {
		sb_adds(out, i ? "," : "");
		sb_add_json_str(out, e->models[i].name, strlen(e->models[i].name));
	}
	sb_addc(out, ']');
}

/* The members of a session's totals on one line, from inputTokens on. */
static void ent_json(const struct pu_ent *e, struct sbuf *out)
{
	us_total_json(&e->t, out);
	sb_adds(out, ",\"modelsUsed\":");
	ent_models_json(e, out);
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
		ent_json(e, out);
		sb_addc(out, '}');
	} else {
		sb_adds(out, "null");
	}
	pthread_mutex_unlock(&c->mu);
}

static void json_str(struct sbuf *out, const char *s)
{
	if (s)
		sb_add_json_str(out, s, strlen(s));
	else
		sb_adds(out, "null");
}

/* ",\"modelsUsed\":[...]" of the sums' models ids[0..n). */
static void ids_json(const struct pu_sums *m, const uint32_t *ids, uint32_t n,
		     struct sbuf *out)
{
	uint32_t i;

	sb_adds(out, ",\"modelsUsed\":[");
	for (i = 0; i < n; i++) {
		sb_adds(out, i ? "," : "");
		json_str(out, m->models[ids[i]].name);
	}
	sb_addc(out, ']');
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
		ent_json(e, out);
	} else {
		sb_adds(out, "\"error\":");
		json_str(out, e ? strerror(-e->rc) : "not counted");
	}
	sb_addc(out, '}');
}

static void sum_json(const struct pu_sums *m, const struct pu_sum *a, struct sbuf *out)
{
	sb_addf(out, "\"sessions\":%u,", a->sessions);
	us_total_json(&a->t, out);
	ids_json(m, a->models, a->nmodels, out);
}

/* ISO 8601 in UTC to the millisecond ("2025-12-01T09:00:00.000Z"), as
 * ccusage writes a block's times; "" when out of range. */
static void iso_text(int64_t ms, char buf[40])
{
	time_t sec = (time_t)(ms / 1000 - (ms % 1000 < 0));
	struct tm tm;
	size_t n;

	buf[0] = '\0';
	if (!gmtime_r(&sec, &tm) || !(n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm)))
		return;
	snprintf(buf + n, 40 - n, ".%03dZ", (int)(((ms % 1000) + 1000) % 1000));
}

/* The same as a JSON string, with a prefix. */
static void iso_json(const char *prefix, int64_t ms, struct sbuf *out)
{
	char buf[40];

	iso_text(ms, buf);
	sb_addf(out, "\"%s%s\"", prefix, buf);
}

static void period_json(const struct pu_sums *m, const struct pu_period *p, int kind,
			struct sbuf *out)
{
	if (kind == 'd')
		sb_addf(out, "{\"date\":\"%04d-%02d-%02d\",", (int)(p->key / 10000),
			(int)(p->key / 100 % 100), (int)(p->key % 100));
	else if (kind == 'm')
		sb_addf(out, "{\"month\":\"%04d-%02d\",", (int)(p->key / 100), (int)(p->key % 100));
	else {
		sb_adds(out, "{\"id\":");
		iso_json(p->gap ? "gap-" : "", p->key, out);
		sb_adds(out, ",\"startTime\":");
		iso_json("", p->key, out);
		sb_adds(out, ",\"endTime\":");
		iso_json("", p->end, out);
		sb_adds(out, ",\"actualEndTime\":");
		if (p->gap)
			sb_adds(out, "null");
		else
			iso_json("", p->last, out);
		sb_addf(out, ",\"isGap\":%s,", p->gap ? "true" : "false");
	}
	us_total_json(&p->t, out);
	ids_json(m, p->models, p->nmodels, out);
	sb_addc(out, '}');
}

static void periods_json(const struct pu_sums *m, const char *name, const struct pu_period *p,
			 uint32_t n, int kind, struct sbuf *out)
{
	uint32_t i;

	sb_addf(out, "\"%s\": [\n", name);
	for (i = 0; i < n; i++) {
		period_json(m, &p[i], kind, out);
		sb_adds(out, i + 1 < n ? ",\n" : "\n");
	}
	sb_adds(out, "],\n");
}

static void models_json(const struct pu_sums *m, struct sbuf *out)
{
	uint32_t i;

	sb_adds(out, "\"models\": [\n");
	for (i = 0; i < m->nmodels; i++) {
		sb_adds(out, "{\"modelName\":");
		json_str(out, m->models[i].name);
		sb_addc(out, ',');
		us_total_json(&m->models[i].t, out);
		if (m->models[i].t.unpriced)
			sb_adds(out, ",\"missingPricing\":true");
		sb_adds(out, i + 1 < m->nmodels ? "},\n" : "}\n");
	}
	sb_adds(out, "],\n");
}

/* usage.json from the sums (lock held). */
static void render(struct pu_cache *c, const struct pj_set *s, const struct pu_sums *m,
		   struct sbuf *out)
{
	char zone[PATH_MAX];
	uint32_t i, k = 0;

	sb_adds(out, "{\n\"countedAs\": \"ccusage 20.0.24 session: each API response once, "
		     "a session with its subagents\",\n\"pricedAs\": ");
	rp_priced_as(out);
	sb_adds(out, ",\n\"timeZone\": ");
	json_str(out, pu_time_zone(zone, sizeof(zone)));
	sb_adds(out, ",\n\"totals\": {");
	sum_json(m, &m->all, out);
	sb_adds(out, ",\"unpricedModels\":[");
	for (i = 0; i < m->nmodels; i++)
		if (m->models[i].t.unpriced) {
			sb_adds(out, k++ ? "," : "");
			json_str(out, m->models[i].name);
		}
	sb_adds(out, "]},\n\"projects\": [\n");
	for (i = 0; i < s->nprojects; i++) {
		sb_adds(out, "{\"project\":");
		json_str(out, s->projects[i].name);
		sb_addc(out, ',');
		sum_json(m, &m->projects[i], out);
		sb_adds(out, i + 1 < s->nprojects ? "},\n" : "}\n");
	}
	sb_adds(out, "],\n");
	models_json(m, out);
	periods_json(m, "daily", m->days, m->ndays, 'd', out);
	periods_json(m, "monthly", m->months, m->nmonths, 'm', out);
	periods_json(m, "blocks", m->blocks, m->nblocks, 'b', out);
	sb_adds(out, "\"sessions\": [\n");
	for (i = 0; i < s->nsessions; i++) {
		session_line(s, &s->sessions[i], c->by_key[s->sessions[i].key], out);
		sb_adds(out, i + 1 < s->nsessions ? ",\n" : "\n");
	}
	sb_adds(out, "]\n}\n");
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

/* Counts every session of s the cache does not hold as its log is now
 * (PU_THREADS at a time). */
static void count_all(struct pu_cache *c, const struct pj_set *s)
{
	struct pass w = { c, s, 0 };
	pthread_t th[PU_THREADS];
	int i, n = 0;

	for (i = 1; i < PU_THREADS && s->nsessions > 1; i++)
		if (!pthread_create(&th[n], NULL, count_worker, &w))
			n++;
	count_worker(&w);
	while (n)
		pthread_join(th[--n], NULL);
}

/* usage.json (txt 0) or usage.txt (1) of s, all counted first. */
static int render_file(struct pu_cache *c, const struct pj_set *s, int txt, struct sbuf *out)
{
	struct pu_sums m;
	int rc;

	count_all(c, s);
	pthread_mutex_lock(&c->mu);
	rc = pu_sums_make(c, s, &m);
	if (!rc && txt)
		pu_txt(c, s, &m, out);
	else if (!rc)
		render(c, s, &m, out);
	pu_sums_free(&m, s);
	pthread_mutex_unlock(&c->mu);
	return rc;
}

int pu_usage_json(struct pu_cache *c, const struct pj_set *s, struct sbuf *out)
{
	return render_file(c, s, 0, out);
}

int pu_usage_txt(struct pu_cache *c, const struct pj_set *s, struct sbuf *out)
{
	return render_file(c, s, 1, out);
}

void pu_errors_text(struct pu_cache *c, const struct pj_set *s, struct sbuf *out)
{
	const char **said = NULL;
	uint32_t i, k, j, n = 0, cap = 0;

	count_all(c, s);	/* what it says must not hang on what was read */
	pthread_mutex_lock(&c->mu);
	for (i = 0; i < s->nsessions; i++) {
		const struct pu_ent *e = c->by_key[s->sessions[i].key];

		for (k = 0; e && !e->rc && k < e->nmodels; k++) {
			if (!e->models[k].t.unpriced)
				continue;
			for (j = 0; j < n && strcmp(said[j], e->models[k].name); j++)
				;
			if (j < n)
				continue;	/* said once: at its first session */
			if (arr_grow(&said, &cap, n + 1, sizeof(*said), 8))
				break;
			said[n++] = e->models[k].name;
			sb_adds(out, "projects/");
			sb_add_lines(out, s->projects[s->sessions[i].project].name);
			sb_addc(out, '/');
			sb_add_lines(out, s->sessions[i].name);
			sb_adds(out, ": model \"");
			sb_add_lines(out, e->models[k].name);
			sb_adds(out, "\" is not in the price table (");
			sb_add_lines(out, pr_source(pr_default()));
			sb_adds(out, "): its responses are priced at $0 (usage.json: unpricedModels)\n");
		}
	}
	pthread_mutex_unlock(&c->mu);
	free(said);
}
