/*
 * release: which Claude Code release wrote a log, and what that means.
 *
 * Claude Code changes what it writes, and what a resume sends, from one
 * release to the next; a projects folder holds logs of many releases side
 * by side. Every record carries the release that wrote it ("version":
 * "2.1.332"); the index keeps it as an atom (idx_rec.ver). The release of
 * a log is that of its last record that has one: the release that wrote
 * it last, the one a resume would run as.
 *
 * Rules that depend on the release (core/RULES.md, rules 32-36) ask this
 * module, never compare version strings themselves:
 *   - rl_older(): releases before 2.1 (1.0.x, 2.0.x) resume their own
 *     way: a call killed before its result is dropped, not repaired, and
 *     user rows join with no "\n" seam;
 *   - rl_disk_reminder(): 1.0.x requests begin with a reminder read from
 *     disk, which the log does not hold;
 *   - rl_newer(): a release newer than any the corpus checks, whose
 *     window may differ from what this code rebuilds;
 *   - rl_copies_on_resume(): releases before 2.0 write a new log on every
 *     resume, beginning with a copy of the chain it resumed.
 * Rules that a release marks on the rows themselves (hookText, ownNote,
 * hostsOwnTurn) are decided by those fields, not here.
 *
 * Everything here is pure: thread-safe, no allocation.
 */
#ifndef SESSFS_RELEASE_H
#define SESSFS_RELEASE_H

#include <stdint.h>

#include "idx.h"

/* The releases whose logs and resume requests the corpus holds, oldest
 * first (../shared/corpus/README.md): what the rules were checked on. */
#define RL_CHECKED { "1.0.98", "2.0.28", "2.1.328", "2.1.332" }
#define RL_NEWEST_CHECKED "2.1.332"

struct rl_version {
	uint32_t major, minor, patch;
};

/* Parses "MAJOR.MINOR.PATCH" (a suffix after the patch, "-beta", is
 * ignored): 0, or -1 when s is no version. */
int rl_parse(const char *s, struct rl_version *v);
/* <0, 0, >0 as a is older than, the same as, newer than b. */
int rl_cmp(const struct rl_version *a, const struct rl_version *b);

/* The release that wrote ix last: the "version" of its last record that
 * has one, "" when none has. Borrowed from the index. */
const char *rl_of_log(const struct idx *ix);

/* For a release string (NULL or "" is unknown: none of these hold). */
int rl_older(const char *release);		/* before 2.1 */
int rl_disk_reminder(const char *release);	/* 1.0.x */
int rl_newer(const char *release);		/* newer than RL_NEWEST_CHECKED */
/* Before 2.0: a resume writes a new log that starts with a copy of the
 * resumed chain (projects.h: pj_link_copies()). */
int rl_copies_on_resume(const char *release);

#endif
