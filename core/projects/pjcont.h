/*
 * pjcont: which session each session of a projects folder continues.
 *
 * Claude Code 1.0.x started a new log on a resume, beginning with summary
 * rows whose leafUuid is a record of the session it continued (summary.h:
 * sm_cont()). For the projects mount that leaf is looked for in the other
 * logs of the session's project (pj_find_continued(): the first
 * PC_LEAVES summaries, in file order, until one is found) once per
 * session key, when the session is first opened: never while listing.
 * The table keeps, per key, the session found (by its key) and the
 * leafUuid that names it (the first summary's when none was found).
 *
 * All calls are thread-safe (one lock; the search is done outside it).
 */
#ifndef SESSFS_PJCONT_H
#define SESSFS_PJCONT_H

#include <stdint.h>

#include "projects.h"
#include "sbuf.h"
#include "session.h"

#define PC_LEAVES 4		/* a session's summaries looked for */

struct pc_table;

/* 0 and a new, empty table in *out (free with pc_free()), or -ENOMEM. */
int pc_new(struct pc_table **out);
void pc_free(struct pc_table *t);

/* A number that changes whenever a continuation is recorded. */
uint64_t pc_gen(struct pc_table *t);

/* Looks for the session x (of s; ss: its open session) continues, unless
 * that was done for x's key. */
void pc_look(struct pc_table *t, const struct pj_set *s, const struct pj_session *x,
	     struct session *ss);

/* The session key continues, as s holds it, or NULL. */
const struct pj_session *pc_target(struct pc_table *t, const struct pj_set *s, uint32_t key);

/* Appends sessions.json's "continuedFrom" value for x: {"sessionId" (null
 * when no log of the project holds the leaf), "leafUuid"}, or null (not
 * looked for yet, or x continues no session). A log that copies the one it
 * continues (projects.h: pj_link_copies()) says so from the listing on:
 * that one's id and last row. */
void pc_json(struct pc_table *t, const struct pj_set *s, const struct pj_session *x,
	     struct sbuf *out);

#endif
