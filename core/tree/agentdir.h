/*
 * agentdir: the agents/ folder of the mount, over core/agents.h.
 *
 * Each subagent log of the session is a view of the tree (tree_priv.h),
 * numbered in the order it was found; views are never taken away, and a
 * view's folder name never changes. ad_scan() looks for logs not seen yet
 * and opens them outside the tree's lock (it takes the write lock only to
 * add a view); one scan runs at a time, others return at once. A log that
 * does not open is tried again once it changes size; it, and whatever the
 * walk renamed or skipped, is a line of the main errors.txt.
 */
#ifndef SESSFS_AGENTDIR_H
#define SESSFS_AGENTDIR_H

#include <stdint.h>
#include <sys/types.h>

#include "sbuf.h"

struct tree;
struct view;
struct agentdir;

#define AD_META_MAX (16u << 20)	/* bytes of an agent's meta.json shown */

/* State for the session log at log (copied). NULL on ENOMEM. */
struct agentdir *ad_new(const char *log);
void ad_free(struct agentdir *ad);

/* Looks for new subagent logs (no lock held): 1 if the tree changed. */
int ad_scan(struct tree *t);
/* The scans never look into folders of device dev: the mount itself. */
void ad_avoid(struct tree *t, dev_t dev);

/* The rest: callers hold the tree's read lock. */

/* The agent view whose folder is name, or NULL. */
struct view *ad_view_by_name(struct tree *t, const char *name);
/* The folder under agents/ of the agent that tool result id of v ran:
 * 1 and its name (NM_MAX + 1 bytes), or 0 if id is no such result. The
 * name does not depend on whether the agent's log is found yet. */
int ad_folder(struct tree *t, struct view *v, uint32_t id, char *out);
/* The bytes of an agent view's meta.json (at most AD_META_MAX). */
int ad_read_meta(const struct view *v, struct sbuf *out);
/* Appends view v's errors.txt lines about agents: results naming an agent
 * id that is not a file name, and (main view) what the scan reported. */
void ad_errors_text(struct tree *t, struct view *v, struct sbuf *out);

/*
 * Which agent each Task call's result names by way of the session's
 * inline sidechains (ad_folder(): the calls sidechain.h pairs with the
 * conversations), as of now, to tell which results name another agent
 * once the log grew (a conversation written after its call's result, or
 * whose first prompt came later, pairs only then): a message file, kept
 * for long, must then be rendered again. Callers hold the tree's lock.
 * NULL when out of memory (then every result is taken as changed).
 */
struct ad_pairs;
struct ad_pairs *ad_pairs_now(struct tree *t);
void ad_pairs_free(struct ad_pairs *ps);
/* fn(t, v, id) for each message id of a view v of the session's log (the
 * session's and its inline sidechains') that is the result of a Task call
 * whose agent is another now than in before. Write lock held. */
void ad_pairs_changed(struct tree *t, const struct ad_pairs *before,
		      void (*fn)(struct tree *, struct view *, uint32_t));

#endif
