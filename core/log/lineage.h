/*
 * lineage: which log a --fork-session copy came from, by the logs beside
 * it (their heads and tails, loghead.h), without a projects folder's set:
 * a single mount's session.json (forkedFrom) and the projects layer both
 * ask it.
 *
 * A fork starts with copies of another session's records (loghead.h:
 * copy_uuid, copy_sid); its origin is the session its copies name (older
 * versions), else the log beside it that holds its fork point (the last
 * copied record), the newest first among those that started no later.
 *
 * Pure functions over the file system (logs opened read-only);
 * thread-safe.
 */
#ifndef SESSFS_LINEAGE_H
#define SESSFS_LINEAGE_H

#include "loghead.h"

/* Whether a name in a project folder is a session's log (*.jsonl, not
 * agent-*). */
int ln_is_session_file(const char *name);

/* Where fork f (log name in dfd) left its origin: the last copied record
 * (a new string in *uuid); *settled as lh_fork_point() says. 0 or -errno. */
int ln_fork_point(int dfd, const char *name, const struct lh_facts *f, char **uuid,
		  int *settled);
/* Whether log name (of id sid, in dfd) is fork f's origin: the session
 * its copies name, or the log that holds its fork point uuid. */
int ln_is_origin(int dfd, const char *name, const char *sid, const struct lh_facts *f,
		 const char *uuid);
/* A new string: the origin's id (found), else the copies' sessionId, else
 * NULL. */
char *ln_origin_id(const char *found, const struct lh_facts *f);

/*
 * The origin of the log name in the folder dirfd, among the logs beside
 * it: 0 and new strings in *sid (NULL when no origin was found) and *uuid
 * (free() both), -ENOENT when the log is not a fork, or -errno. *settled
 * (when not NULL): the fork point cannot move as the log grows
 * (lh_fork_point()).
 */
int ln_fork_of(int dirfd, const char *name, char **sid, char **uuid, int *settled);

#endif
