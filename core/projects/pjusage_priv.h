/*
 * pjusage's own: the cache's entries and the sums made from them. Part of
 * the pjusage module (pjusage.c: the cache, counting, usage.json;
 * pjusage_sums.c: the sums; pjusage_txt.c: usage.txt). Not for other
 * modules: they use pjusage.h.
 */
#ifndef SESSFS_PJUSAGE_PRIV_H
#define SESSFS_PJUSAGE_PRIV_H

#include <pthread.h>

#include "pjusage.h"
#include "usage.h"

/* One model's totals in a session (its name owned). */
struct pu_model {
	char *name;
	struct us_total t;
};

/* One session's totals, and the log they were counted from. */
struct pu_ent {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int rc;				/* the count's error, or 0 */
	struct us_total t;
	struct pu_model *models;	/* modelsUsed, in its order */
	uint32_t nmodels;
	struct us_day *days;		/* by date; model bits: models[] */
	uint32_t ndays;
	struct us_hour *hours;		/* by time; model bits: models[] */
	uint32_t nhours;
};

struct pu_cache {
	pthread_mutex_t mu;
	struct pu_ent **by_key;		/* PJ_KEY_MAX + 1 */
	uint64_t gen, counted;
};

/* A model of the sums: its name borrowed from an entry. */
struct pu_gmodel {
	const char *name;
	struct us_total t;
};

/* A sum over sessions (a project's, the folder's). */
struct pu_sum {
	struct us_total t;
	uint32_t sessions;
	uint32_t *models;		/* indexes into pu_sums.models */
	uint32_t nmodels, cap;
};

/* A day, month or block: its totals and its models. */
struct pu_period {
	int64_t key;			/* day: ymd; month: ym; block: start (ms) */
	int64_t end, last;		/* a block's end and its last row (ms) */
	int gap;			/* a block of no rows between two */
	struct us_total t;
	uint32_t *models;		/* indexes into pu_sums.models */
	uint32_t nmodels, cap;
};

/* Everything usage.json and usage.txt show, made from the entries of one
 * set (the lock held while it lives: names are the entries'). */
struct pu_sums {
	struct pu_sum all;
	struct pu_sum *projects;	/* by project of the set */
	struct pu_gmodel *models;	/* every session's, first seen first */
	uint32_t nmodels;
	struct pu_period *days, *months, *blocks;
	uint32_t ndays, nmonths, nblocks;
};

/* pjusage_sums.c: the sums of set s from c's entries (lock held). 0 or
 * -ENOMEM (*m then half made: pu_sums_free() it). */
int pu_sums_make(struct pu_cache *c, const struct pj_set *s, struct pu_sums *m);
void pu_sums_free(struct pu_sums *m, const struct pj_set *s);
/* The five hours of a block, ccusage's. */
#define PU_BLOCK_MS (5LL * 3600 * 1000)

/* pjusage.c: the time zone days are counted in, for people ("UTC",
 * "Europe/Paris", "local"). */
const char *pu_time_zone(char *buf, size_t n);

/* pjusage_txt.c: usage.txt from the sums (lock held). */
void pu_txt(struct pu_cache *c, const struct pj_set *s, const struct pu_sums *m,
	    struct sbuf *out);

#endif
