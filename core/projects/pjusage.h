/*
 * pjusage: the token totals of every session of a projects folder, for
 * the folder mount's usage.json and the "usage" of sessions.json.
 *
 * A session's totals are its log's and its subagents' logs', each API
 * response once (rp_log_tally(): as ccusage 20.0.24's `session --json`
 * counts one session). They are counted when the session is opened
 * (pu_count() with its open session: its index serves) or when usage.json
 * is rendered (pu_usage_json(): every log not counted yet, read once), and
 * kept by the session's key with the log's device, inode, size and mtime
 * as stat gave them before the count: a log that grew or was replaced is
 * counted again, an unchanged one is not read again. A subagent's log is
 * looked at again only with its session's log (it changes when the
 * subagent's result is written).
 *
 * usage.json, one object:
 *   "countedAs"  how responses are counted; "pricedAs" the price table
 *                (price.h); "timeZone" the zone days and months are in;
 *   "totals"     the sum over every session, with "sessions" and
 *                "unpricedModels" (the models the table lacks);
 *   "projects"   per project (its folder under projects/): the sum of its
 *                sessions, with "sessions";
 *   "models"     per model ("modelName"; "missingPricing": true for one
 *                the table lacks);
 *   "daily"      per day ("date": YYYY-MM-DD), as ccusage's `daily`
 *                groups them: by the local date (the daemon's TZ, when the
 *                log was counted) of each counted row's timestamp;
 *   "monthly"    the days per month ("month": YYYY-MM);
 *   "blocks"     ccusage's five-hour billing blocks over every counted
 *                row of the folder ("id", "startTime", "endTime",
 *                "actualEndTime", "isGap": pjusage_sums.c says how);
 *   "sessions"   one object per session and line, in sessions.json's
 *                order: sessionId, project, path (under the folder),
 *                folder, then the totals, or "error" when the log could
 *                not be read.
 * Each total, on one line: inputTokens, outputTokens, cacheCreationTokens,
 * cacheReadTokens, totalTokens, responses, costUSD, costUSDLogged (where
 * the log records Claude Code's own figure: usage.h), then modelsUsed.
 * A sum counts each session's totals as they are: the rows a
 * --fork-session copy shares with its origin count in both sessions (and
 * so twice in a project's and the folder's sums, where ccusage run over
 * the whole folder counts them once, in whichever file it reads first).
 * modelsUsed of a sum: the sessions' models, first seen first; of a day,
 * month or block: in that order too.
 *
 * usage.txt shows the same for people: tables of the sessions, days,
 * months and models, with totals, as ccusage's default output does.
 *
 * All calls are thread-safe (one lock around the table; counting is done
 * outside it).
 */
#ifndef SESSFS_PJUSAGE_H
#define SESSFS_PJUSAGE_H

#include <stdint.h>
#include <sys/stat.h>

#include "projects.h"
#include "sbuf.h"
#include "session.h"

#define PU_THREADS 2		/* threads counting usage.json's logs */

struct pu_cache;

/* 0 and a new, empty cache in *out (free with pu_free()), or -ENOMEM. */
int pu_new(struct pu_cache **out);
void pu_free(struct pu_cache *c);

/* A number that changes whenever totals are added or replaced. */
uint64_t pu_gen(struct pu_cache *c);
/* How many logs were counted (for tests: an unchanged one is not). */
uint64_t pu_counted(struct pu_cache *c);

/*
 * Counts session x of s (through ss, an open session of its log, when
 * not NULL) unless the cache holds it as st says the log is; st: the
 * log's stat taken before ss was opened (NULL: lstat it now); a log that
 * is not a regular file is not counted (-EINVAL). 0 or -errno.
 */
int pu_count(struct pu_cache *c, const struct pj_set *s, const struct pj_session *x,
	     struct session *ss, const struct stat *st);

/*
 * Appends sessions.json's "usage" value for x: its totals on one line
 * (the members usage.json gives a session, from inputTokens on) when the
 * cache holds them for the log as the set saw it, else null.
 */
void pu_session_json(struct pu_cache *c, const struct pj_session *x, struct sbuf *out);

/* Counts every session of s the cache does not hold as its log is now,
 * then appends usage.json. 0 or -ENOMEM (nothing useful appended). */
int pu_usage_json(struct pu_cache *c, const struct pj_set *s, struct sbuf *out);
/* The same for usage.txt. */
int pu_usage_txt(struct pu_cache *c, const struct pj_set *s, struct sbuf *out);
/* Counts every session as pu_usage_json() does, then appends errors.txt's
 * lines about them: each model the price table lacks, once, at the first
 * session that has it (so the file says the same whatever was read). */
void pu_errors_text(struct pu_cache *c, const struct pj_set *s, struct sbuf *out);

#endif
