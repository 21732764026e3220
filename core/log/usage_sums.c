/*
 * usage_sums: a tally's sums (per model, per local day, per UTC hour for
 * the blocks) and how they are written (JSON, text for people). Part of
 * the usage module (usage_priv.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arr.h"
#include "usage_priv.h"

static uint32_t *model_bits(const struct us_tally *y);

void us_cost_json(double usd, struct sbuf *out)
{
	sb_add_json_num(out, "%.10g", usd);
}

static void add_counts(const struct us_total *t, const char *pad, struct sbuf *out)
{
	sb_addf(out, "%s\"inputTokens\": %llu,\n%s\"outputTokens\": %llu,\n"
		"%s\"cacheCreationTokens\": %llu,\n%s\"cacheReadTokens\": %llu,\n"
		"%s\"totalTokens\": %llu,\n%s\"responses\": %llu,\n%s\"costUSD\": ",
		pad, (unsigned long long)t->t.input, pad, (unsigned long long)t->t.output,
		pad, (unsigned long long)t->t.cache_create,
		pad, (unsigned long long)t->t.cache_read,
		pad, (unsigned long long)us_sum(&t->t), pad, (unsigned long long)t->responses, pad);
	us_cost_json(t->cost, out);
	if (t->has_logged) {
		sb_addf(out, ",\n%s\"costUSDLogged\": ", pad);
		us_cost_json(t->logged, out);
	}
}

void us_total_json(const struct us_total *t, struct sbuf *out)
{
	sb_addf(out, "\"inputTokens\":%llu,\"outputTokens\":%llu,\"cacheCreationTokens\":%llu,"
		"\"cacheReadTokens\":%llu,\"totalTokens\":%llu,\"responses\":%llu,\"costUSD\":",
		(unsigned long long)t->t.input, (unsigned long long)t->t.output,
		(unsigned long long)t->t.cache_create, (unsigned long long)t->t.cache_read,
		(unsigned long long)us_sum(&t->t), (unsigned long long)t->responses);
	us_cost_json(t->cost, out);
	if (t->has_logged) {
		sb_adds(out, ",\"costUSDLogged\":");
		us_cost_json(t->logged, out);
	}
}

static int32_t local_ymd(int64_t ms)
{
	time_t s = (time_t)(ms / 1000 - (ms % 1000 < 0));
	struct tm tm;

	if (!localtime_r(&s, &tm))
		return 0;
	return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

static int day_cmp(const void *a, const void *b)
{
	const struct us_day *x = a, *y = b;

	return (x->ymd > y->ymd) - (x->ymd < y->ymd);
}

int us_tally_days(const struct us_tally *y, struct us_day **out, uint32_t *n)
{
	struct us_day *d = NULL;
	uint32_t i, k, cap = 0, *bit = model_bits(y);

	*n = 0;
	*out = NULL;
	if (!bit)
		return -ENOMEM;
	for (i = 0; i < y->n; i++) {
		int32_t ymd = local_ymd(y->e[i].ts);

		for (k = *n; k > 0 && d[k - 1].ymd != ymd; k--)
			;
		if (!k) {
			if (arr_grow(&d, &cap, *n + 1, sizeof(*d), 8)) {
				free(d);
				free(bit);
				return -ENOMEM;
			}
			memset(&d[*n], 0, sizeof(*d));
			d[(*n)++].ymd = ymd;
			k = *n;
		}
		d[k - 1].models |= bit[y->e[i].model];
		us_add_entry(&d[k - 1].t, &y->e[i]);
	}
	if (*n)
		qsort(d, *n, sizeof(*d), day_cmp);
	free(bit);
	*out = d;
	return 0;
}

int us_tally_by_model(const struct us_tally *y, struct us_model **out, uint32_t *n)
{
	uint32_t i, k, *order = us_model_order(y, &k);
	struct us_total *per = us_model_totals(y);
	struct us_model *v = malloc((k + 1) * sizeof(*v));

	*out = NULL;
	*n = 0;
	if (!order || !per || !v) {
		free(order);
		free(per);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < k; i++) {
		const char *name = us_models_name(&y->models, order[i]);

		if (strcmp(name, US_SYNTHETIC))
			v[(*n)++] = (struct us_model){ name, per[order[i]] };
	}
	free(order);
	free(per);
	*out = v;
	return 0;
}

/* ---- hours ---- */

#define HOUR_MS 3600000LL

/* Bit of each model number: its place in modelsUsed (below
 * US_HOUR_MODELS), else 0. A new array (free() it), or NULL. */
static uint32_t *model_bits(const struct us_tally *y)
{
	uint32_t i, k, used = 0, *order = us_model_order(y, &k);
	uint32_t *bit = calloc(y->models.n + 1, sizeof(*bit));

	for (i = 0; order && bit && i < k; i++) {
		if (!strcmp(us_models_name(&y->models, order[i]), US_SYNTHETIC))
			continue;
		if (used < US_HOUR_MODELS)
			bit[order[i]] = 1u << used;
		used++;
	}
	if (!order) {
		free(bit);
		bit = NULL;
	}
	free(order);
	return bit;
}

static int64_t hour_of(int64_t ms)
{
	int64_t h = ms / HOUR_MS * HOUR_MS;

	return h > ms ? h - HOUR_MS : h;	/* before 1970: down, not up */
}

struct when {
	int64_t ts;
	uint32_t i;		/* the entry */
};

static int by_time(const void *a, const void *b)
{
	const struct when *x = a, *z = b;

	if (x->ts != z->ts)
		return (x->ts > z->ts) - (x->ts < z->ts);
	return (x->i > z->i) - (x->i < z->i);
}

/* The entries in time order: *order NULL when they are so already (a log
 * is written in time order), else a new array of their indexes (free()
 * it). 0 or -ENOMEM. */
static int time_order(const struct us_tally *y, uint32_t **order)
{
	struct when *w;
	uint32_t i;

	*order = NULL;
	for (i = 1; i < y->n && y->e[i - 1].ts <= y->e[i].ts; i++)
		;
	if (i >= y->n)
		return 0;
	w = malloc(y->n * sizeof(*w));
	*order = malloc(y->n * sizeof(**order));
	if (!w || !*order) {
		free(w);
		free(*order);
		*order = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < y->n; i++)
		w[i] = (struct when){ y->e[i].ts, i };
	qsort(w, y->n, sizeof(*w), by_time);
	for (i = 0; i < y->n; i++)
		(*order)[i] = w[i].i;
	free(w);
	return 0;
}

/* Whether entry en opens another hour than b (NULL: none yet). */
static int new_hour(const struct us_hour *b, const struct entry *en)
{
	int64_t hour = hour_of(en->ts);

	return !b || b->hour != hour || b->at_start != (uint32_t)(en->ts == hour);
}

int us_tally_hours(const struct us_tally *y, struct us_hour **out, uint32_t *n)
{
	uint32_t *order, *bit = model_bits(y), i, k = 0;
	struct us_hour *h = NULL, last = { 0 };

	*out = NULL;
	*n = 0;
	if (!bit || time_order(y, &order)) {
		free(bit);
		return -ENOMEM;
	}
	for (i = 0; i < y->n; i++) {	/* how many */
		const struct entry *en = &y->e[order ? order[i] : i];

		if (new_hour(k ? &last : NULL, en)) {
			k++;
			last.hour = hour_of(en->ts);
			last.at_start = en->ts == last.hour;
		}
	}
	if (!(h = calloc(k + 1, sizeof(*h)))) {
		free(order);
		free(bit);
		return -ENOMEM;
	}
	for (i = 0; i < y->n; i++) {
		const struct entry *en = &y->e[order ? order[i] : i];
		struct us_hour *b = *n ? &h[*n - 1] : NULL;

		if (new_hour(b, en)) {
			b = &h[(*n)++];
			b->hour = hour_of(en->ts);
			b->at_start = en->ts == b->hour;
			b->first = en->ts;
		}
		b->last = en->ts;
		b->models |= bit[en->model];
		us_add_entry(&b->t, en);
	}
	free(order);
	free(bit);
	*out = h;
	return 0;
}

void us_tally_json(const struct us_tally *y, int indent, struct sbuf *out)
{
	char pad[72];
	struct us_total t, *per = us_model_totals(y);
	uint32_t i, n, k = 0, *order = us_model_order(y, &n);
	int p = indent < 60 ? indent : 60;

	if (!order || !per)
		n = 0;		/* no memory: totals without breakdowns */

	memset(pad, ' ', (size_t)p);
	pad[p] = '\0';
	us_tally_total(y, &t);
	add_counts(&t, pad, out);
	sb_addf(out, ",\n%s\"modelsUsed\": [", pad);
	for (i = 0; i < n; i++) {
		const char *name = us_models_name(&y->models, order[i]);

		if (strcmp(name, US_SYNTHETIC)) {
			sb_adds(out, k++ ? ", " : "");
			sb_add_json_str(out, name, strlen(name));
		}
	}
	sb_addf(out, "],\n%s\"modelBreakdowns\": [", pad);
	for (i = 0; i < n; i++) {
		const char *name = us_models_name(&y->models, order[i]);

		sb_addf(out, "%s\n%s  {\n%s    \"modelName\": ", i ? "," : "", pad, pad);
		sb_add_json_str(out, name, strlen(name));
		sb_adds(out, ",\n");
		memcpy(pad + p, "    ", 5);
		add_counts(&per[order[i]], pad, out);
		if (per[order[i]].unpriced)
			sb_addf(out, ",\n%s\"missingPricing\": true", pad);
		pad[p] = '\0';
		sb_addf(out, "\n%s  }", pad);
	}
	sb_addf(out, "%s%s]", n ? "\n" : "", n ? pad : "");
	free(order);
	free(per);
}

void us_num_text(uint64_t n, struct sbuf *out)
{
	char d[24];
	int len = snprintf(d, sizeof(d), "%llu", (unsigned long long)n), i;

	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			sb_addc(out, ',');
		sb_addc(out, d[i]);
	}
}

void us_cost_text(double usd, struct sbuf *out)
{
	char d[320];	/* room for any double: "%.2f" is never cut */
	int len, i, dot;

	if (usd < 1) {
		sb_addf(out, "$%.4f", usd < 0 ? 0 : usd);
		return;
	}
	len = snprintf(d, sizeof(d), "%.2f", usd);
	if (len <= 0 || (size_t)len >= sizeof(d))
		return;
	dot = len - 3;
	sb_addc(out, '$');
	for (i = 0; i < len; i++) {
		if (i && i < dot && (dot - i) % 3 == 0)
			sb_addc(out, ',');
		sb_addc(out, d[i]);
	}
}

void us_tokens_text(const struct us_tokens *t, struct sbuf *out)
{
	us_num_text(t->input, out);
	sb_adds(out, " in · ");
	us_num_text(t->output, out);
	sb_adds(out, " out · ");
	us_num_text(t->cache_create, out);
	sb_adds(out, " cache write · ");
	us_num_text(t->cache_read, out);
	sb_adds(out, " cache read");
}

void us_total_text(const struct us_total *t, struct sbuf *out)
{
	us_tokens_text(&t->t, out);
	sb_adds(out, " · ");
	us_cost_text(t->cost, out);
	if (t->has_logged) {
		sb_adds(out, " (logged ");
		us_cost_text(t->logged, out);
		sb_addc(out, ')');
	}
}
