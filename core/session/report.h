/*
 * report: a session's token usage for people and scripts (usage.json and
 * the real size of the context), over usage.h.
 *
 * usage.json, one object (it names no path: two copies of a log give the
 * same file, and so do their transcripts):
 *   "countedAs" how responses are counted ("ccusage 20.0.24: ...");
 *   "pricedAs"  the price table that gave costUSD (price.h);
 *   "session"   the session's totals as ccusage 20.0.24 reports them
 *               (`session --json`: inputTokens, outputTokens,
 *               cacheCreationTokens, cacheReadTokens, totalTokens,
 *               modelsUsed, modelBreakdowns), plus "responses" (the API
 *               responses counted), "costUSD" (their price) and, where
 *               the log records Claude Code's own figure, "costUSDLogged"
 *               (the rows' costUSD, else the last cost-state record's
 *               totalCostUSD); its subagents' logs counted in, each
 *               response once;
 *   "log"       the same for this log alone (no subagents);
 *               below, costUSDLogged is the counted rows' costUSD only;
 *   "agents"    each subagent's own totals, by its folder under agents/;
 *   "branches"  each branch's totals (its rows, each response once), with
 *               "current": true on the branch a resume continues;
 *   "context"   the totals of the current branch's rows that are in
 *               context/ (what the model gets on resume);
 *   "contextTokensReal", "contextTokensRealAt"
 *               the input + cache tokens of the last response on the
 *               current branch (Claude Code's own count of what the model
 *               last saw) and that row's uuid; null without one;
 *   "costState" the last cost-state record's figures (Claude Code's own
 *               running total: every API call of the session's processes,
 *               compaction summaries included, which no row records), or
 *               null.
 *
 * Thread-safety: as the session's readers (session.h): the caller keeps
 * ss_refresh() out of every session passed while a function runs.
 */
#ifndef SESSFS_REPORT_H
#define SESSFS_REPORT_H

#include <stdint.h>

#include "session.h"
#include "usage.h"

/* A subagent's log, with the name its folder has under agents/. */
struct rp_agent {
	const char *name;
	struct session *s;
};

/* A new tally (free with us_tally_free()) of the usage rows of nodes
 * ids[0..n) of s's graph, each response once; NULL on ENOMEM. */
struct us_tally *rp_tally_nodes(struct session *s, const uint32_t *ids, uint32_t n);

/* Appends the JSON string usage.json's "pricedAs" holds. */
void rp_priced_as(struct sbuf *out);
/* The totals of usage.json's "session" into *out. 0 or -ENOMEM. */
int rp_session_total(struct session *s, const struct rp_agent *agents, uint32_t n,
		     struct us_total *out);
/* Claude Code's own running total of the log: the last cost-state
 * record's totalCostUSD into *cost. 1, or 0 when there is none. */
int rp_cost_state(const struct idx *ix, const struct logf *lf, double *cost);

/* Appends usage.json for s and its n subagents (none for an agent's own
 * tree). 0 or -ENOMEM (nothing useful appended then). */
int rp_usage_json(struct session *s, const struct rp_agent *agents, uint32_t n,
		  struct sbuf *out);

/* Appends the "## What the model last saw" part of context/window.md:
 * the real size beside the estimate. */
void rp_window_md(struct session *s, struct sbuf *out);

/*
 * The totals of the session log at path and its subagents' logs (found
 * as agents.h finds them), each response once, as usage.json's
 * "session": for a reader of many sessions (the projects mount), without
 * building graphs: each log is indexed and its usage rows read, one pass.
 * 0 and *out, or -errno (the log's open or read; an agent log that will
 * not open is skipped). json, when not NULL, gets the totals as the
 * members of usage.json's "session" object (us_tally_json(), indent 2,
 * without braces).
 */
int rp_log_totals(const char *path, struct us_total *out, struct sbuf *json);

/* The same count into the caller's tally y: the log at path (through s,
 * an open session of it, when not NULL: its index serves, no second
 * reading) and its subagents' logs; the log's cost-state total is y's
 * logged cost (us_tally_set_state()) where it has one. 0 or -errno. */
int rp_log_tally(const char *path, struct session *s, struct us_tally *y);
/* The same with the log opened as name in the folder dirfd (its path
 * still finds its subagents' logs). */
int rp_log_tally_at(int dirfd, const char *name, const char *path, struct session *s,
		    struct us_tally *y);

#endif
