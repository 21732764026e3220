/*
 * pjusage_txt: usage.txt at the root of a projects mount, the sums of
 * usage.json as tables a person reads (sessions, days, months, models,
 * five-hour blocks, each with its total), like ccusage's default output.
 * Part of the pjusage module (pjusage_priv.h); runs under the cache's
 * lock.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arr.h"
#include "pjusage_priv.h"
#include "price.h"

#define TXT_COLS 9		/* the most a table has */

/* A table being made: its cells row by row, each a string that may hold
 * several lines (the models). */
struct table {
	uint32_t ncols;
	const char *const *head;
	const char *align;		/* 'l' or 'r' per column */
	char **cells;			/* nrows * ncols */
	uint32_t nrows, cap;
	uint32_t total;			/* the row the rule above goes over; 0: none */
};

/* Characters of s up to its end or a newline (UTF-8 sequences as one). */
static size_t width(const char *s)
{
	size_t n = 0;

	for (; *s && *s != '\n'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Adds a row of ncols cells (taken, each a malloc()ed string or NULL for
 * ""). */
static void row(struct table *t, char **cells)
{
	uint32_t i;

	/* an element of the array is a row of ncols cells */
	if (arr_grow(&t->cells, &t->cap, t->nrows + 1, t->ncols * sizeof(*t->cells), 32)) {
		for (i = 0; i < t->ncols; i++)
			free(cells[i]);
		return;		/* no memory: the row left out */
	}
	memcpy(t->cells + (size_t)t->nrows * t->ncols, cells, t->ncols * sizeof(*cells));
	t->nrows++;
}

static void pad(struct sbuf *out, size_t n)
{
	while (n--)
		sb_addc(out, ' ');
}

/* Line `line` of cell s ("" past its last). */
static const char *line_of(const char *s, uint32_t line)
{
	while (s && line--) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	return s ? s : "";
}

static uint32_t lines(const char *s)
{
	uint32_t n = 1;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static void put_line(const struct table *t, char *const *cells, const size_t *w,
		     uint32_t line, struct sbuf *out)
{
	uint32_t c;
	size_t start = out->len;

	for (c = 0; c < t->ncols; c++) {
		const char *s = line_of(cells[c], line);
		size_t n = width(s), len = strcspn(s, "\n");

		if (c)
			sb_adds(out, "  ");
		if (t->align[c] == 'r')
			pad(out, w[c] - n);
		sb_add(out, s, len);
		if (t->align[c] == 'l')
			pad(out, w[c] - n);
	}
	while (out->len > start && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
	sb_addc(out, '\n');
}

static void rule(const size_t *w, uint32_t ncols, struct sbuf *out)
{
	uint32_t c;
	size_t k;

	for (c = 0; c < ncols; c++) {
		if (c)
			sb_adds(out, "  ");
		for (k = 0; k < w[c]; k++)
			sb_addc(out, '-');
	}
	sb_addc(out, '\n');
}

/* Appends the table and frees its cells. */
static void table_out(struct table *t, struct sbuf *out)
{
	size_t w[TXT_COLS] = { 0 };
	uint32_t r, c, l;

	for (c = 0; c < t->ncols; c++)
		w[c] = width(t->head[c]);
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			for (l = 0; l < lines(t->cells[r * t->ncols + c]); l++) {
				size_t n = width(line_of(t->cells[r * t->ncols + c], l));

				w[c] = n > w[c] ? n : w[c];
			}
	put_line(t, (char **)t->head, w, 0, out);
	rule(w, t->ncols, out);
	for (r = 0; r < t->nrows; r++) {
		char **cells = t->cells + (size_t)r * t->ncols;
		uint32_t n = 1;

		if (t->total && r == t->total)
			rule(w, t->ncols, out);
		for (c = 0; c < t->ncols; c++)
			n = lines(cells[c]) > n ? lines(cells[c]) : n;
		for (l = 0; l < n; l++)
			put_line(t, cells, w, l, out);
	}
	for (r = 0; r < (size_t)t->nrows * t->ncols; r++)
		free(t->cells[r]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

/* ---- cells ---- */

static char *str(const char *s)
{
	return strdup(s ? s : "");
}

static char *num(uint64_t n)
{
	struct sbuf sb;

	sb_init(&sb);
	us_num_text(n, &sb);
	return sb_detach(&sb, NULL);
}

/* Dollars to the cent, as ccusage's tables give them ("$1,234.56"). */
static char *money(double usd)
{
	struct sbuf sb;
	char d[320];	/* room for any double: "%.2f" is never cut */
	int len = snprintf(d, sizeof(d), "%.2f", usd < 0 ? 0 : usd), i;

	sb_init(&sb);
	sb_addc(&sb, '$');
	for (i = 0; i < len; i++) {
		if (i && i < len - 3 && (len - 3 - i) % 3 == 0)
			sb_addc(&sb, ',');
		sb_addc(&sb, d[i]);
	}
	return sb_detach(&sb, NULL);
}

/* A model's name as ccusage's tables shorten it: without "claude-" and
 * without a date at its end. */
static void short_model(const char *name, struct sbuf *out)
{
	size_t n = strlen(name), i;

	if (!strncmp(name, "claude-", 7) && n > 7) {
		name += 7;
		n -= 7;
	}
	if (n > 9 && name[n - 9] == '-') {
		for (i = n - 8; i < n && name[i] >= '0' && name[i] <= '9'; i++)
			;
		if (i == n)
			n -= 9;
	}
	sb_add_line(out, name, n);
}

/* The models ids[0..n) of m, one a line. */
static char *model_lines(const struct pu_sums *m, const uint32_t *ids, uint32_t n)
{
	struct sbuf sb;
	uint32_t i;

	sb_init(&sb);
	for (i = 0; i < n; i++) {
		sb_adds(&sb, i ? "\n" : "");
		short_model(m->models[ids[i]].name, &sb);
	}
	return sb_detach(&sb, NULL);
}

/* The columns every table ends with: tokens and cost, from cell k on. */
static void figures(char **cells, uint32_t k, const struct us_total *t)
{
	cells[k] = num(t->t.input);
	cells[k + 1] = num(t->t.output);
	cells[k + 2] = num(t->t.cache_create);
	cells[k + 3] = num(t->t.cache_read);
	cells[k + 4] = num(us_sum(&t->t));
	cells[k + 5] = money(t->cost);
}

#define FIGURES "Input", "Output", "Cache write", "Cache read", "Total tokens", "Cost (USD)"

/* ---- the tables ---- */

static void sessions_table(struct pu_cache *c, const struct pj_set *s, const struct pu_sums *m,
			   struct sbuf *out)
{
	static const char *const head[] = { "Session", "Project", "Models", FIGURES };
	struct table t = { 9, head, "lllrrrrrr", NULL, 0, 0, 0 };
	uint32_t i, k;

	for (i = 0; i < s->nsessions; i++) {
		const struct pj_session *x = &s->sessions[i];
		const struct pu_ent *e = c->by_key[x->key];
		char *cells[9] = { NULL };
		struct sbuf names;

		if (!e || e->rc)
			continue;
		cells[0] = str(x->f.sid ? x->f.sid : x->name);
		cells[1] = str(s->projects[x->project].name);
		sb_init(&names);
		for (k = 0; k < e->nmodels; k++) {
			sb_adds(&names, k ? "\n" : "");
			short_model(e->models[k].name, &names);
		}
		cells[2] = sb_detach(&names, NULL);
		figures(cells, 3, &e->t);
		row(&t, cells);
	}
	t.total = t.nrows;
	{
		char *cells[9] = { NULL };
		char buf[64];

		snprintf(buf, sizeof(buf), "Total (%u sessions)", m->all.sessions);
		cells[0] = str(buf);
		figures(cells, 3, &m->all.t);
		row(&t, cells);
	}
	sb_adds(out, "## Sessions\n\n");
	table_out(&t, out);
}

static void periods_table(const struct pu_sums *m, const char *title, const char *col,
			  const struct pu_period *p, uint32_t n, int kind, struct sbuf *out)
{
	const char *head[] = { col, "Models", FIGURES };
	struct table t = { 8, head, "llrrrrrr", NULL, 0, 0, 0 };
	uint32_t i;

	for (i = 0; i < n; i++) {
		char *cells[8] = { NULL }, buf[64];

		if (kind == 'd')
			snprintf(buf, sizeof(buf), "%04d-%02d-%02d", (int)(p[i].key / 10000),
				 (int)(p[i].key / 100 % 100), (int)(p[i].key % 100));
		else
			snprintf(buf, sizeof(buf), "%04d-%02d", (int)(p[i].key / 100),
				 (int)(p[i].key % 100));
		cells[0] = str(buf);
		cells[1] = model_lines(m, p[i].models, p[i].nmodels);
		figures(cells, 2, &p[i].t);
		row(&t, cells);
	}
	t.total = t.nrows;
	{
		char *cells[8] = { NULL };

		cells[0] = str("Total");
		figures(cells, 2, &m->all.t);
		row(&t, cells);
	}
	sb_addf(out, "\n## %s\n\n", title);
	table_out(&t, out);
}

/* "2025-12-01 09:00" (UTC) */
static char *utc_minute(int64_t ms)
{
	time_t sec = (time_t)(ms / 1000 - (ms % 1000 < 0));
	struct tm tm;
	char buf[32];

	if (!gmtime_r(&sec, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &tm))
		buf[0] = '\0';
	return str(buf);
}

static void blocks_table(const struct pu_sums *m, struct sbuf *out)
{
	static const char *const head[] = { "Block (UTC)", "Models", FIGURES };
	struct table t = { 8, head, "llrrrrrr", NULL, 0, 0, 0 };
	uint32_t i;

	for (i = 0; i < m->nblocks; i++) {
		const struct pu_period *b = &m->blocks[i];
		char *cells[8] = { NULL }, *from = utc_minute(b->key), *to = utc_minute(b->end);
		struct sbuf sb;

		sb_init(&sb);
		sb_addf(&sb, "%s%s", b->gap ? "(gap) " : "", from ? from : "");
		if (b->gap)
			sb_addf(&sb, "\n  to %s", to ? to : "");
		free(from);
		free(to);
		cells[0] = sb_detach(&sb, NULL);
		cells[1] = b->gap ? NULL : model_lines(m, b->models, b->nmodels);
		if (!b->gap)
			figures(cells, 2, &b->t);
		row(&t, cells);
	}
	sb_adds(out, "\n## Five-hour blocks\n\n");
	table_out(&t, out);
}

static void models_table(const struct pu_sums *m, struct sbuf *out)
{
	static const char *const head[] = { "Model", FIGURES };
	struct table t = { 7, head, "lrrrrrr", NULL, 0, 0, 0 };
	uint32_t i, k = 0;

	for (i = 0; i < m->nmodels; i++) {
		char *cells[7] = { NULL };
		struct sbuf sb;

		sb_init(&sb);
		sb_add_lines(&sb, m->models[i].name);
		if (m->models[i].t.unpriced)
			sb_adds(&sb, " (no price)");
		cells[0] = sb_detach(&sb, NULL);
		figures(cells, 1, &m->models[i].t);
		row(&t, cells);
	}
	t.total = t.nrows;
	{
		char *cells[7] = { NULL };

		cells[0] = str("Total");
		figures(cells, 1, &m->all.t);
		row(&t, cells);
	}
	sb_adds(out, "\n## Models\n\n");
	table_out(&t, out);
	for (i = 0; i < m->nmodels; i++)
		if (m->models[i].t.unpriced) {
			sb_adds(out, k++ ? ", " : "\nNot in the price table, priced at $0: ");
			sb_add_lines(out, m->models[i].name);
		}
	if (k)
		sb_adds(out, " (see errors.txt).\n");
}

void pu_txt(struct pu_cache *c, const struct pj_set *s, const struct pu_sums *m,
	    struct sbuf *out)
{
	char zone[PATH_MAX];

	sb_adds(out, "# Token usage and cost\n\nFolder: ");
	sb_add_lines(out, s->root);
	sb_adds(out, "\nTotal: ");
	us_total_text(&m->all.t, out);
	sb_adds(out, "\n\nEach API response counted once, a session with its subagents, as\n"
		     "ccusage 20.0.24 counts; priced with ");
	sb_add_lines(out, pr_source(pr_default()));
	sb_adds(out, ", as\nccusage prices offline (\"logged\": what Claude Code's logs say it cost);\n"
		     "days and months in ");
	sb_add_lines(out, pu_time_zone(zone, sizeof(zone)));
	sb_adds(out, ". The same as JSON: usage.json.\n\n");
	sessions_table(c, s, m, out);
	periods_table(m, "Days", "Date", m->days, m->ndays, 'd', out);
	periods_table(m, "Months", "Month", m->months, m->nmonths, 'm', out);
	models_table(m, out);
	blocks_table(m, out);
}
