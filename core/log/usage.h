/*
 * usage: the token usage a log records, counted as ccusage counts it.
 *
 * Each API response Claude Code writes carries message.usage (input,
 * output, cache creation and cache read tokens) on every row it was split
 * into; a resume or a --fork-session copy may write the same response
 * again. Counting every row would count a response several times, so a
 * tally counts each response once, by the rule of ccusage 20.0.24 (its
 * `session --json` totals, measured on crafted logs and on the corpus):
 *
 *   - a row counts when its "message" holds a "usage" object whose
 *     input_tokens and output_tokens are non-negative integers (cache
 *     fields: integers, missing or null = 0) and it has a timestamp; its
 *     type does not matter, nor isSidechain;
 *   - its cache writes are message.usage.cache_creation's 5-minute and
 *     1-hour ones summed when it has that object (every 2.1.x row has,
 *     and they sum to cache_creation_input_tokens there), else
 *     cache_creation_input_tokens; a cache_creation that is no object
 *     (null is as missing), or a count in it that is no non-negative
 *     integer, and the row does not count;
 *   - rows with a message.id are one response per (message.id, requestId)
 *     pair (a missing requestId is a value of its own); of the rows of one
 *     response the one with the largest total (the four figures summed)
 *     counts, the first of equal ones; rows without a message.id all count;
 *   - a session's total takes its subagents' logs too, de-duplicated with
 *     the session's own rows (ccusage reads them as rows of the session);
 *   - modelsUsed: the models of the counted rows, first seen first,
 *     without "<synthetic>" (the rows Claude Code writes itself).
 *
 * Pairs are compared by a 64-bit hash of their raw text (a collision,
 * about one in 10^19 per pair, would merge two responses). ccusage reads a
 * line only when it finds `"usage":` as written (compact JSON, as Claude
 * Code writes it) and a line without a "type" key, which sessfs does not
 * index, still counts there; such lines are not Claude Code's.
 *
 * Cost: each row is priced with the process's price table (price.h:
 * pr_default()), from its model and tokens as ccusage prices it: the
 * cache writes split by message.usage.cache_creation into 5-minute and
 * 1-hour ones (all 5-minute without the split), a fast response
 * (message.usage.speed "fast") at the model's fast factor; a model the
 * table lacks costs 0 (the row is "unpriced"). What the log records itself
 * is kept apart, as "logged": the row's costUSD (Claude Code 1.0.x wrote
 * it), and for a whole log the last cost-state record's totalCostUSD (2.1.x;
 * us_tally_set_state()).
 *
 * The module: usage.c reads rows, sets and tallies; usage_sums.c gives a
 * tally's sums (per model, day, hour) and writes them (usage_priv.h).
 *
 * A us_set holds the usage rows of one log, read back (pread) from the
 * records the index flagged (IDX_F_USAGE): built once, extended as the
 * log grows (us_extend(), by its owner alone), read-only otherwise and
 * then safe to share between threads. A us_tally is one caller's.
 */
#ifndef SESSFS_USAGE_H
#define SESSFS_USAGE_H

#include <stdint.h>

#include "idx.h"
#include "logf.h"
#include "sbuf.h"

#define US_SYNTHETIC "<synthetic>"	/* the model of rows Claude Code makes up */
#define US_MODEL_MAX 255		/* longer model names are cut */

struct us_tokens {
	uint64_t input;
	uint64_t output;
	uint64_t cache_create;
	uint64_t cache_read;
};

/* One row's usage, as written, and its price. */
struct us_row {
	uint32_t rec;		/* its record (idx_rec()) */
	uint32_t model;		/* us_model() number; 0: none */
	uint64_t key;		/* hash of (message.id, requestId); 0: no id */
	int64_t ts;		/* its record's time, ms since the epoch */
	struct us_tokens t;
	double cost;		/* the price of its tokens (price.h), dollars */
	double logged;		/* its costUSD, when has_logged */
	uint8_t has_logged;
	uint8_t unpriced;	/* a model named that the table lacks */
};

/* The four figures summed (ccusage's totalTokens). */
uint64_t us_sum(const struct us_tokens *t);
/* The input the model read: input + cache creation + cache read. */
uint64_t us_context(const struct us_tokens *t);

/* ---- the rows of one log ---- */

struct us_set;

/* Reads the usage of every flagged record of ix. 0 and a new set in *out
 * (free with us_free()), or -errno (-ENOMEM, a read error). A row whose
 * usage is not as above is left out. */
int us_build(const struct idx *ix, const struct logf *lf, struct us_set **out);
void us_free(struct us_set *u);
/* Reads the records ix gained since (the index grew; its records keep
 * their numbers). 0 or -errno (u then holds part of them: free it).
 * Invalidates every row pointer handed out before. */
int us_extend(struct us_set *u, const struct idx *ix, const struct logf *lf);

uint32_t us_nrows(const struct us_set *u);
/* Row i, in file order; borrowed, valid until us_free(). */
const struct us_row *us_row(const struct us_set *u, uint32_t i);
/* The row of record rec, or NULL. */
const struct us_row *us_of_rec(const struct us_set *u, uint32_t rec);
/* The row record rec of ix gives, read from its line alone (no set): 1
 * and the row in *row (model 0: its model's name, as us_model() would
 * give it, is in model, "" for none), 0 when the record has none, or -errno.
 * What a set built from ix holds for rec, for a reader of a few rows. */
int us_read_row(const struct idx *ix, const struct logf *lf, uint32_t rec,
		struct us_row *row, struct sbuf *model);
/* The same from line when it holds the record's whole line (the caller
 * read it); else line is emptied, and the line read into it when the
 * record has usage (left there, for a caller that reads the line too: a
 * message file's renderer). */
int us_read_row_line(const struct idx *ix, const struct logf *lf, uint32_t rec,
		     struct us_row *row, struct sbuf *model, struct sbuf *line);
/* Model number m's name ("" for 0); borrowed, valid until us_free(). */
const char *us_model(const struct us_set *u, uint32_t m);
/* Appends one errors.txt line for each model of u's rows that the price
 * table lacks, at the first of its rows that carries tokens: "line N:
 * model "X" is not in the price table (...): its responses cost $0 here". */
void us_unpriced_text(const struct us_set *u, const struct idx *ix, struct sbuf *out);

/* ---- totals ---- */

/* What a tally gives. */
struct us_total {
	struct us_tokens t;
	uint64_t responses;	/* rows counted */
	uint64_t unpriced;	/* of them, with tokens and a model the table lacks */
	double cost;		/* the sum of their prices */
	double logged;		/* what the log records (costUSDLogged), when has_logged */
	int has_logged;
};

struct us_tally;

struct us_tally *us_tally_new(void);	/* NULL on ENOMEM */
void us_tally_free(struct us_tally *y);
/* Counts row r of set u (de-duplicated against what the tally holds).
 * 0 or -ENOMEM. */
int us_tally_add(struct us_tally *y, const struct us_set *u, const struct us_row *r);
/* Counts every row of u. 0 or -ENOMEM. */
int us_tally_set(struct us_tally *y, const struct us_set *u);
/* The totals; logged: the counted rows' costUSD summed, else the figure
 * us_tally_set_state() gave, else none. */
void us_tally_total(const struct us_tally *y, struct us_total *out);
/* Claude Code's own total for the logs counted (the last cost-state
 * record's totalCostUSD), the tally's logged cost when no counted row
 * records one. */
void us_tally_set_state(struct us_tally *y, double cost);
/* One local day's totals. */
struct us_day {
	int32_t ymd;		/* year * 10000 + month * 100 + day */
	uint32_t models;	/* bit i: modelsUsed[i], as us_hour's */
	struct us_total t;
};

/* The totals per day, as ccusage's `daily` groups them: by the local date
 * (localtime_r(): the TZ of the process) of each counted row's timestamp.
 * 0 and a new array in *out (free() it), *n days by date, or -ENOMEM. */
int us_tally_days(const struct us_tally *y, struct us_day **out, uint32_t *n);

/* One model's totals. */
struct us_model {
	const char *name;	/* borrowed, valid until us_tally_free() */
	struct us_total t;
};

/* modelsUsed with each model's totals: the models of the counted rows,
 * first counted first, without US_SYNTHETIC. 0 and a new array in *out
 * (free() it) of *n, or -ENOMEM. */
int us_tally_by_model(const struct us_tally *y, struct us_model **out, uint32_t *n);

/*
 * One UTC hour's totals, for ccusage's five-hour blocks: the counted rows
 * whose time is in [hour, hour + 1 h), split in two: those exactly at
 * the hour (at_start: a block that ends there keeps them) and the others.
 */
struct us_hour {
	int64_t hour;		/* ms since the epoch, a whole UTC hour */
	int64_t first, last;	/* the times of its first and last row */
	uint32_t at_start;	/* 1: the rows at hour:00:00.000 exactly */
	uint32_t models;	/* bit i: modelsUsed[i] (us_tally_by_model()),
				 * the first US_HOUR_MODELS */
	struct us_total t;
};

#define US_HOUR_MODELS 32

/* The hours of the counted rows, by time. 0 and a new array in *out
 * (free() it) of *n, or -ENOMEM. */
int us_tally_hours(const struct us_tally *y, struct us_hour **out, uint32_t *n);

/*
 * Appends the totals as the members of a JSON object, without braces,
 * each line indented by indent spaces: inputTokens, outputTokens,
 * cacheCreationTokens, cacheReadTokens, totalTokens, responses, costUSD,
 * costUSDLogged (only where the log records it), modelsUsed,
 * modelBreakdowns (per model, modelName first; "missingPricing": true for
 * a model the table lacks).
 */
void us_tally_json(const struct us_tally *y, int indent, struct sbuf *out);
/* The members from inputTokens to costUSDLogged, on one line (no
 * spaces), without braces. */
void us_total_json(const struct us_total *t, struct sbuf *out);
/* "1,240 in · 35 out · 0 cache write · 0 cache read" for people. */
void us_tokens_text(const struct us_tokens *t, struct sbuf *out);
/* The same, then " · $0.0123" (its price) and, where the log records
 * one, " (logged $0.0120)". */
void us_total_text(const struct us_total *t, struct sbuf *out);
/* n with thousands separators. */
void us_num_text(uint64_t n, struct sbuf *out);
/* Dollars for people: "$1,234.56" from $1, "$0.0123" below. */
void us_cost_text(double usd, struct sbuf *out);
/* Dollars for JSON: a number of 10 significant digits ("%.10g"). */
void us_cost_json(double usd, struct sbuf *out);

#endif
