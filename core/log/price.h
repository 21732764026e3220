/*
 * price: what a response cost, in US dollars, from a price table kept as
 * data (data/prices.txt, built into the binary; a user's file in the same
 * format with -o prices=FILE), as ccusage 20.0.24 prices it offline.
 *
 * The table gives each model's rates per million tokens: input, output,
 * cache writes of 5 minutes and of 1 hour, cache reads, the higher rates of
 * the tokens of a kind past the first PR_TIER of one response where the
 * model has them, and the factor of a fast-mode response. A response's
 * cost is, for each kind of token, n * rate, or PR_TIER * rate +
 * (n - PR_TIER) * rate above when n > PR_TIER and the model has a rate
 * above; the five summed, times the fast factor for a fast response.
 * Cache writes without their split (message.usage.cache_creation) are all
 * of 5 minutes. A model matches a line by its name, or by its name without
 * a date suffix "-YYYYMMDD"; no other guess is made: a model the table
 * lacks has no price (pr_find() gives NULL) and its responses cost 0.
 *
 * The file: '#' starts a comment line; a line is a model and fourteen
 * columns separated by spaces or tabs (data/prices.txt says which), the
 * last, the source, the rest of the line.
 *
 * A table is read-only once made, and then safe to share between threads.
 * pr_set_default() is called before any thread reads the default.
 */
#ifndef SESSFS_PRICE_H
#define SESSFS_PRICE_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

#define PR_TIER 200000		/* tokens of a kind priced at the base rate */
#define PR_LINE_MAX 4096	/* longest line of a table file */
#define PR_FILE_MAX (1u << 20)	/* largest table file */

/* The tokens of one response, as the price reads them. */
struct pr_usage {
	uint64_t input, output;
	uint64_t write_5m, write_1h;	/* cache creation, by how long it lasts */
	uint64_t read;			/* cache read */
	int fast;			/* "speed": "fast" */
};

struct pr_table;
struct pr_model;

/* Parses a table from text[0..len). 0 and a new table in *out (free with
 * pr_free()), or -EINVAL with "line N: why" in err, or -ENOMEM. source:
 * how the table is named where the mount says what priced it (copied). */
int pr_parse(const char *text, size_t len, const char *source, struct pr_table **out,
	     struct sbuf *err);
/* pr_parse() of the file at path (named by its path): -errno of the read
 * with its reason in err too. */
int pr_load(const char *path, struct pr_table **out, struct sbuf *err);
void pr_free(struct pr_table *t);

/* The table built in (data/prices.txt at build time), parsed at the first
 * call; borrowed, lives as long as the process. */
const struct pr_table *pr_builtin(void);
/* The table responses are priced with: t (borrowed; kept alive by the
 * caller while anything prices), or the built-in one for NULL. */
void pr_set_default(const struct pr_table *t);
const struct pr_table *pr_default(void);

/* What t is: "data/prices.txt (built in)" or the file's path. Borrowed. */
const char *pr_source(const struct pr_table *t);
/* Its number of models, and model i (by the table's order). */
uint32_t pr_count(const struct pr_table *t);
const struct pr_model *pr_at(const struct pr_table *t, uint32_t i);
/* The line of model (a log's name), or NULL when the table lacks it. */
const struct pr_model *pr_find(const struct pr_table *t, const char *model);
/* The model's name in the table, and the date its prices were read. */
const char *pr_name(const struct pr_model *m);
const char *pr_date(const struct pr_model *m);

/* What u cost at m's rates, in dollars; 0 for m NULL. */
double pr_cost(const struct pr_model *m, const struct pr_usage *u);

#endif
