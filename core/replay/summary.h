/*
 * summary: the titles a log's summary records give.
 *
 * A summary record {type:"summary", summary, leafUuid} (Claude Code
 * 0.2-1.0.x wrote them at the head of a log) is the title of the branch
 * that ends at leafUuid: the branch whose terminal is that record, or whose
 * terminal's nearest user/assistant ancestor is (the leaf Claude Code's
 * session picker takes). For one leaf the last summary wins. A leafUuid
 * that is no record of this log names the session this one continues (a
 * record of an earlier log): those summaries are listed, in file order,
 * once per leaf, the last text winning.
 *
 * Built from the graph and the branches (and extended by sm_grow());
 * read-only afterwards: safe to share.
 */
#ifndef SESSFS_SUMMARY_H
#define SESSFS_SUMMARY_H

#include <stdint.h>

#include "branch.h"
#include "graph.h"
#include "logf.h"

#define SM_TEXT_MAX 4096	/* bytes of a summary kept */

/* A summary naming a leaf in another log. */
struct sm_cont {
	char leaf[IDX_UUID_MAX + 1];	/* the leafUuid, as written */
	char *summary;
	uint32_t line;			/* its line in this log */
};

struct sm_set;

/* Returns 0 and a new set in *out (free with sm_free()), or -ENOMEM. Only
 * the summary records are read back from the log. */
int sm_build(const struct graph *g, const struct br_set *bs, const struct logf *lf,
	     struct sm_set **out);
void sm_free(struct sm_set *s);
/*
 * After the graph grew by gr_grow() (new ids above n0) and bs by
 * br_grow() (not built anew): extends s to what sm_build() now gives, at
 * the cost of the new records. Returns 0; SM_GROW_NO, s untouched, when
 * a new record is a summary or a branch's new terminal is old or takes
 * its title from an old record. Not thread-safe.
 */
#define SM_GROW_NO 1
int sm_grow(struct sm_set *s, const struct graph *g, const struct br_set *bs, uint32_t n0);

/* The title of branch i of bs, or NULL; borrowed, valid until sm_free(). */
const char *sm_branch_title(const struct sm_set *s, uint32_t i);
/* The summaries naming a leaf outside this log, in file order. */
uint32_t sm_ncont(const struct sm_set *s);
const struct sm_cont *sm_cont(const struct sm_set *s, uint32_t i);
/* How many summary records the log holds. */
uint32_t sm_nsummaries(const struct sm_set *s);
/*
 * README.md's lines about the branches (s may be NULL): "- title: T" for
 * the current branch cur (-1: none) when it has one, "- branches: N" and
 * a line per branch ("  - NAME (current): TITLE"), then a line per
 * session this one continues. Titles are written as one line each.
 */
void sm_branches_text(const struct sm_set *s, const struct br_set *bs, int cur,
		      struct sbuf *out);

#endif
