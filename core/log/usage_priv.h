/*
 * usage's own: the interned model names and the tally, shared by usage.c
 * (rows, sets, tallies) and usage_sums.c (a tally's sums: per model, day
 * and hour; JSON and text). Part of the usage module; not for other
 * modules: they use usage.h.
 */
#ifndef SESSFS_USAGE_PRIV_H
#define SESSFS_USAGE_PRIV_H

#include <uthash.h>

#include "usage.h"

struct model {
	char *name;
	uint32_t no;
	UT_hash_handle hh;
};

struct models {
	struct model *by_name;
	char **names;		/* [0] = "" */
	uint32_t n, cap;
};

struct entry {
	uint64_t key;		/* 0: a row without message.id */
	struct us_tokens t;
	uint32_t model;		/* in the tally's models */
	int64_t ts;
	double cost;
	double logged;
	uint8_t has_logged;
	uint8_t unpriced;
};

struct us_tally {
	struct entry *e;
	uint32_t n, cap;
	uint32_t *slots;	/* open addressing: entry index + 1, 0 empty */
	uint32_t nslots;	/* a power of two */
	struct models models;
	double state;		/* us_tally_set_state(), when has_state */
	int has_state;
};

/* Model number no's name ("" for 0 or one not interned). */
const char *us_models_name(const struct models *m, uint32_t no);
/* Adds entry en into t. */
void us_add_entry(struct us_total *t, const struct entry *en);
/* The totals of each model, in one pass: a new array (free() it) by model
 * number, or NULL on ENOMEM. */
struct us_total *us_model_totals(const struct us_tally *y);
/* The models in order of their first counted entry: a new array (free()
 * it) of *n model numbers, or NULL on ENOMEM. */
uint32_t *us_model_order(const struct us_tally *y, uint32_t *n);

#endif
