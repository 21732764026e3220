#include "price.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uthash.h>

#include "arr.h"

/* The text of data/prices.txt, made into C at build time (Makefile). */
extern const char pr_builtin_text[];
extern const size_t pr_builtin_len;

#define BUILTIN_SOURCE "data/prices.txt (built in)"
#define NAME_MAX_LEN 255
#define NCOLS 13		/* model .. date; the source is the rest */

enum { K_IN, K_OUT, K_W5M, K_W1H, K_READ, K_KINDS };

struct pr_model {
	char *name;
	double rate[K_KINDS];		/* dollars per token */
	double above[K_KINDS];		/* past PR_TIER; has_above[k] */
	uint8_t has_above[K_KINDS];
	double fast;
	char date[11];
	char *source;
	UT_hash_handle hh;
};

struct pr_table {
	struct pr_model *models;	/* in the file's order */
	uint32_t n, cap;
	struct pr_model *by_name;
	char *source;
};

void pr_free(struct pr_table *t)
{
	uint32_t i;

	if (!t)
		return;
	HASH_CLEAR(hh, t->by_name);
	for (i = 0; i < t->n; i++) {
		free(t->models[i].name);
		free(t->models[i].source);
	}
	free(t->models);
	free(t->source);
	free(t);
}

/* ---- parsing ---- */

/*
 * A decimal: digits, then maybe '.' and digits (no sign, no exponent);
 * *out is it divided by 10^shift, the double nearest that (one correctly
 * rounded division of exact integers, as a literal like 3.75e-6 gives
 * it). 0, or -1 when it is none.
 */
static int decimal(const char *s, int shift, double *out)
{
	uint64_t m = 0;
	int digits = 0, scale = shift, dot = 0;
	double div = 1;

	for (; *s; s++) {
		if (*s == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (*s < '0' || *s > '9' || ++digits > 15)
			return -1;
		m = m * 10 + (uint64_t)(*s - '0');
		scale += dot;
	}
	if (!digits)
		return -1;
	while (scale--)
		div *= 10;		/* exact up to 10^22 */
	*out = (double)m / div;
	return 0;
}

/* A price, dollars per million tokens, as dollars per token. */
static int per_token(const char *s, double *out)
{
	return decimal(s, 6, out);
}

static int is_date(const char *s)
{
	int i;

	for (i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : s[i] < '0' || s[i] > '9')
			return 0;
	return s[10] == '\0';
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > NAME_MAX_LEN)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s == 0x7f)
			return 0;
	return 1;
}

/* Splits line (changed in place) into NCOLS fields and the rest. The
 * number of fields found. */
static int split(char *line, char **f, char **rest)
{
	int n = 0;
	char *p = line;

	*rest = NULL;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (n == NCOLS) {
			*rest = p;
			break;
		}
		f[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
	if (*rest) {		/* trailing blanks off */
		size_t len = strlen(*rest);

		while (len && ((*rest)[len - 1] == ' ' || (*rest)[len - 1] == '\t'))
			(*rest)[--len] = '\0';
	}
	return n;
}

static const char *const col_names[] = {
	"model", "in", "out", "w5m", "w1h", "read", "in>200k", "out>200k", "w5m>200k",
	"w1h>200k", "read>200k", "fast", "date",
};

/* Line of a model: fills m (name and source still borrowed from line).
 * NULL, or why it is not one. */
static const char *read_model(char *line, struct pr_model *m, int *col)
{
	char *f[NCOLS], *rest;
	int k, n = split(line, f, &rest);

	if (n < NCOLS || !rest)
		return "a model and 13 columns expected (model, 5 rates, 5 rates above 200k, fast, date, source)";
	memset(m, 0, sizeof(*m));
	if (!valid_name(f[0]))
		return "the model's name: 1 to 255 bytes without spaces";
	m->name = f[0];
	for (k = 0; k < K_KINDS; k++) {
		*col = 1 + k;
		if (per_token(f[1 + k], &m->rate[k]))
			return "not a price (dollars per million tokens, like 3.75)";
		*col = 6 + k;
		if (!strcmp(f[6 + k], "-"))
			continue;
		if (per_token(f[6 + k], &m->above[k]))
			return "not a price above 200k (dollars per million tokens, or -)";
		m->has_above[k] = 1;
	}
	*col = 11;
	if (decimal(f[11], 0, &m->fast))
		return "not a factor (like 1 or 2.5)";
	*col = 12;
	if (!is_date(f[12]))
		return "not a date (YYYY-MM-DD)";
	memcpy(m->date, f[12], 11);
	m->source = rest;
	*col = -1;
	return NULL;
}

static int add_model(struct pr_table *t, const struct pr_model *m)
{
	struct pr_model *e;

	if (arr_grow(&t->models, &t->cap, t->n + 1, sizeof(*t->models), 32))
		return -ENOMEM;
	e = &t->models[t->n];
	*e = *m;
	e->name = strdup(m->name);
	e->source = strdup(m->source);
	if (!e->name || !e->source) {
		free(e->name);
		free(e->source);
		return -ENOMEM;
	}
	t->n++;
	return 0;
}

/* The hash once every model is in place (the array no longer moves). */
static void index_models(struct pr_table *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		HASH_ADD_KEYPTR(hh, t->by_name, t->models[i].name, strlen(t->models[i].name),
				&t->models[i]);
}

static int has_model(const struct pr_table *t, const char *name)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->models[i].name, name))
			return 1;
	return 0;
}

/* One line (NUL-terminated, changed in place), number no. */
static int parse_line(struct pr_table *t, char *line, unsigned no, struct sbuf *err)
{
	struct pr_model m;
	const char *why;
	char *p = line;
	int col = -1;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	why = read_model(p, &m, &col);
	if (!why && has_model(t, m.name))
		why = "the model is listed twice";
	if (why) {
		sb_addf(err, "line %u", no);
		if (col > 0)
			sb_addf(err, ", column %s", col_names[col]);
		sb_addf(err, ": %s", why);
		return -EINVAL;
	}
	return add_model(t, &m);
}

int pr_parse(const char *text, size_t len, const char *source, struct pr_table **out,
	     struct sbuf *err)
{
	struct pr_table *t = calloc(1, sizeof(*t));
	char line[PR_LINE_MAX + 1];
	size_t i = 0, n;
	unsigned no = 0;
	int rc = t && (t->source = strdup(source)) ? 0 : -ENOMEM;

	*out = NULL;
	while (!rc && i < len) {
		const char *nl = memchr(text + i, '\n', len - i);

		n = (nl ? (size_t)(nl - text) : len) - i;
		no++;
		if (n && text[i + n - 1] == '\r')
			n--;
		if (n > PR_LINE_MAX || memchr(text + i, '\0', n)) {
			sb_addf(err, "line %u: %s", no, n > PR_LINE_MAX ? "too long" : "a NUL byte");
			rc = -EINVAL;
			break;
		}
		memcpy(line, text + i, n);
		line[n] = '\0';
		rc = parse_line(t, line, no, err);
		i = nl ? (size_t)(nl - text) + 1 : len;
	}
	if (!rc && !t->n) {
		sb_adds(err, "no model in the table");
		rc = -EINVAL;
	}
	if (rc) {
		pr_free(t);
		return rc;
	}
	index_models(t);
	*out = t;
	return 0;
}

int pr_load(const char *path, struct pr_table **out, struct sbuf *err)
{
	struct sbuf text;
	char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	*out = NULL;
	if (fd < 0) {
		rc = -errno;
		sb_adds(err, strerror(-rc));
		return rc;
	}
	sb_init(&text);
	while ((n = read(fd, buf, sizeof(buf))) > 0 && text.len <= PR_FILE_MAX)
		sb_add(&text, buf, (size_t)n);
	if (n < 0)
		rc = -errno;
	close(fd);
	if (rc)
		sb_adds(err, strerror(-rc));
	else if (text.len > PR_FILE_MAX) {
		sb_adds(err, "larger than 1 MiB: not a price table");
		rc = -EINVAL;
	} else
		rc = pr_parse(text.buf, text.len, path, out, err);
	sb_free(&text);
	return rc;
}

/* ---- the default ---- */

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static struct pr_table *builtin;
static const struct pr_table *chosen;

static void parse_builtin(void)
{
	struct sbuf err;

	sb_init(&err);
	/* A table that will not parse is a build's mistake, caught by the
	 * unit tests; at run time it prices nothing. */
	pr_parse(pr_builtin_text, pr_builtin_len, BUILTIN_SOURCE, &builtin, &err);
	sb_free(&err);
}

const struct pr_table *pr_builtin(void)
{
	pthread_once(&builtin_once, parse_builtin);
	return builtin;
}

void pr_set_default(const struct pr_table *t)
{
	chosen = t;
}

const struct pr_table *pr_default(void)
{
	return chosen ? chosen : pr_builtin();
}

/* ---- looking up ---- */

const char *pr_source(const struct pr_table *t)
{
	return t ? t->source : "no table";
}

uint32_t pr_count(const struct pr_table *t)
{
	return t ? t->n : 0;
}

const struct pr_model *pr_at(const struct pr_table *t, uint32_t i)
{
	return t && i < t->n ? &t->models[i] : NULL;
}

const char *pr_name(const struct pr_model *m)
{
	return m->name;
}

const char *pr_date(const struct pr_model *m)
{
	return m->date;
}

/* The length of name without a "-YYYYMMDD" at its end, or 0. */
static size_t undated_len(const char *name, size_t n)
{
	size_t i;

	if (n < 10 || name[n - 9] != '-')
		return 0;
	for (i = n - 8; i < n; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	return n - 9;
}

const struct pr_model *pr_find(const struct pr_table *t, const char *model)
{
	struct pr_model *m = NULL;
	size_t n = strlen(model), k;

	if (!t)
		return NULL;
	HASH_FIND(hh, t->by_name, model, n, m);
	if (!m && (k = undated_len(model, n)))
		HASH_FIND(hh, t->by_name, model, k, m);
	return m;
}

/* n tokens of kind k (ccusage's tiered_cost()). */
static double tiered(const struct pr_model *m, int k, uint64_t n)
{
	if (m->has_above[k] && n > PR_TIER)
		return (double)PR_TIER * m->rate[k] + (double)(n - PR_TIER) * m->above[k];
	return (double)n * m->rate[k];
}

double pr_cost(const struct pr_model *m, const struct pr_usage *u)
{
	double c;

	if (!m)
		return 0;
	c = tiered(m, K_IN, u->input) + tiered(m, K_OUT, u->output) +
	    tiered(m, K_W5M, u->write_5m) + tiered(m, K_W1H, u->write_1h) +
	    tiered(m, K_READ, u->read);
	return u->fast ? c * m->fast : c;
}
