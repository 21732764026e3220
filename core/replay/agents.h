/*
 * agents: the subagents' own logs of a session, and the links to them.
 *
 * A Claude Code session that ran subagents (the Agent tool, Task in older
 * versions) has one log per agent run:
 *
 *   <dir>/<stem>/subagents/[<sub>/...]agent-<id>.jsonl  (+ agent-<id>.meta.json)
 *                                  for the session log <dir>/<stem>.jsonl
 *   <dir>/agent-<id>.jsonl         the older layout (2.0.x), beside the
 *                                  session log; other sessions' agents sit
 *                                  there too, so only the files a record
 *                                  of which (in their first 256 KB) names
 *                                  this session are taken (a "Warmup"
 *                                  started before a resume names the new
 *                                  id first; none when the log is itself
 *                                  an agent-<id>.jsonl: those are its
 *                                  siblings)
 *
 * ag_find() lists them, with a folder name for each that is safe (names.h
 * nm_safe) and unique in the list. The walk is bounded (AG_MAX_DEPTH
 * folders deep, AG_MAX_AGENTS logs), never follows a symbolic link to a
 * folder (<stem>/ and subagents/ themselves included), and takes a linked
 * log only when it resolves inside the folder being walked. Whatever it skips or renames it reports as a line of text
 * for errors.txt.
 *
 * The main thread's Agent/Task tool result names the agent it ran
 * (ag_result_agent()); a background run's "launched" result does too.
 *
 * Pure functions over the file system and the log; thread-safe.
 */
#ifndef SESSFS_AGENTS_H
#define SESSFS_AGENTS_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "logf.h"
#include "names.h"
#include "sbuf.h"

#define AG_MAX_DEPTH 8		/* folders below subagents/ */
#define AG_MAX_AGENTS 4096	/* logs taken */
#define AG_NAME_KEEP 200	/* bytes of an id kept in its folder name */
#define AG_ID_MAX 1024		/* longest agent id read from a record */

struct ag_entry {
	char *id;		/* the agent id as in the file name */
	size_t idlen;
	char name[NM_MAX + 1];	/* its folder name: safe, unique in the list */
	char *log;		/* path of agent-<id>.jsonl */
	char *meta;		/* path of agent-<id>.meta.json, or NULL */
};

struct ag_list;

/*
 * What the older layout's files were found to hold, kept between calls so
 * that a folder shared with many other sessions is not read again each
 * time: a file whose first sessionId was read is judged once; one with no
 * sessionId yet is read again when its size changes. Not locked: one
 * caller at a time.
 */
struct ag_seen;
struct ag_seen *ag_seen_new(void);	/* NULL on ENOMEM */
void ag_seen_free(struct ag_seen *seen);
/* Folders on device dev are never looked into by the walks of seen's
 * calls (the mount that is looking: its own folders would ask it). */
void ag_seen_avoid(struct ag_seen *seen, dev_t dev);

/*
 * Lists the subagent logs of the session log at path. sid is the session's
 * id (for the older layout); NULL reads it from the log's first record
 * that has one. seen may be NULL. Returns 0 and a new list in *out (free
 * with ag_free()), or -ENOMEM. Folders that cannot be read are reported in
 * the list, not returned as errors; a session without subagents gives an
 * empty list.
 */
int ag_find(const char *path, const char *sid, struct ag_seen *seen,
	    struct ag_list **out);
void ag_free(struct ag_list *l);

/* Entries, in a stable order: subagents/ walked in name order, then the
 * older layout's files in name order. Borrowed, valid until ag_free(). */
uint32_t ag_count(const struct ag_list *l);
const struct ag_entry *ag_get(const struct ag_list *l, uint32_t i);
/* The entry of agent id (n bytes), or NULL. */
const struct ag_entry *ag_by_id(const struct ag_list *l, const char *id, size_t n);
/* The entry whose folder is name, or NULL. */
const struct ag_entry *ag_by_name(const struct ag_list *l, const char *name);

/* Appends s[0..n) fit for one line of text: bytes of [ -~] but '"' and
 * '\\' as they are, the others as \xNN. */
void ag_quote(const char *s, size_t n, struct sbuf *out);

/* Appends the problems the walk met, one line each ("agents: ..."). */
void ag_errors_text(const struct ag_list *l, struct sbuf *out);

/*
 * The folder name of agent id (n bytes, any bytes): the id itself when it
 * is safe and at most AG_NAME_KEEP bytes, else its safe form cut to
 * AG_NAME_KEEP bytes, '.', and 8 hex digits of a hash of the whole id.
 * out is NM_MAX + 1 bytes. A list may add ".<k>" to keep names unique.
 */
void ag_name(const char *id, size_t n, char *out);

/*
 * The agent id a tool result names (its toolUseResult.agentId, decoded:
 * it may hold any byte, NUL included), for a node that is the result of
 * an Agent or Task call. Returns its length (copied into out, outsz bytes,
 * cut, then NUL-terminated) or 0 if the node is no such result or names
 * no agent.
 */
size_t ag_result_agent(const struct graph *g, const struct logf *lf, uint32_t id,
		       char *out, size_t outsz);

#endif
