/*
 * projects: a Claude Code projects folder (~/.claude/projects) as a set of
 * projects and sessions, with safe names, from the heads and tails of the
 * logs only (loghead.h).
 *
 *   DIR/<encoded cwd>/<session-id>.jsonl        a session
 *   DIR/<encoded cwd>/<session-id>/subagents/…  its agents (not sessions)
 *   DIR/<encoded cwd>/agent-*.jsonl             older agents (not sessions)
 *
 * Names (every one [A-Za-z0-9._-], at most NM_MAX bytes, never "." or ".."):
 *   - a project is its working directory (the cwd of its newest session)
 *     with every run of other bytes made one '-' and no '-' at either end:
 *     /home/user/src/todo-app is home-user-src-todo-app (at most
 *     PJ_NAME_MAX bytes, as a session's name). A folder with no
 *     session that says its cwd keeps its own (encoded) name, made safe.
 *     Names that clash get "-2", "-3"… in the order of the folders' names.
 *   - a session is its id made safe; a second log of one id (or one whose
 *     safe name clashes) gets ".2", ".3"… in path order (an errors line).
 *   - a session's link in sessions/ is <YYYY-MM-DDTHHMM>-<slug>-<id8>: the
 *     UTC time of its first record (else of the file), the title's slug
 *     ([a-z0-9-], at most PJ_SLUG_MAX bytes, "untitled" when empty) and
 *     the first 8 bytes of its folder's name; a clash gets ".2"…
 * What cannot be used (a folder that cannot be read, a .jsonl that is not
 * a session log, one named ".jsonl" alone, a symbolic link: never
 * followed, a duplicate id) is a line of pj_errors_text(), never fatal.
 *
 * Sessions carry a key: a number >= 1 that stays the log's (by its path
 * under DIR) across pj_scan() calls given the set before, never reused.
 * A rescan reads again only the logs whose size, mtime or inode changed.
 * A log of the set before that cannot be read now (its mode changed, its
 * owner: the scan asks access(R_OK) of every log) stays in the set with
 * its facts from before, rc set and a line in errors.txt.
 *
 * DIR is held by a descriptor (pj_open_root()): every folder and log is
 * opened below it (openat), so a rename of DIR's path, or another folder
 * put at it, never redirects a scan (a subagent's log and the file-history
 * folder are still found by path, from DIR's path at the scan).
 *
 * A set is immutable once built: readers may share it from any thread.
 * The module is four files: projects.c (the set, look-ups, JSON),
 * projects_scan.c (the scan), projects_name.c (names and tables),
 * projects_lineage.c (forks).
 */
#ifndef SESSFS_PROJECTS_H
#define SESSFS_PROJECTS_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "loghead.h"
#include "names.h"
#include "sbuf.h"

#define PJ_SLUG_MAX NM_SLUG_MAX	/* names.h nm_slug() */
#define PJ_NAME_MAX 100		/* a project's or session's name, before a
				 * clash suffix: links to them stay short */
#define PJ_KEY_MAX 0xffffu	/* keys are 1 .. PJ_KEY_MAX (inode bits) */

struct pj_session {
	char *path;			/* relative to DIR: "<folder>/<file>" */
	uint32_t project;		/* index in the set's projects */
	uint32_t key;			/* stable number, >= 1 */
	struct lh_facts f;		/* head and tail */
	int64_t start_ms;		/* first record's time, else the file's */
	struct timespec mtime;
	ino_t ino;
	uint32_t copy_of;		/* key of the log it continues by a copy */
	uint32_t copied_by;		/* key of a log that continues it so */
	int fork_known;			/* fork_sid/fork_uuid were looked for */
	char *fork_sid, *fork_uuid;	/* forkedFrom, when found */
	char *name;			/* its folder under projects/<p>/ */
	char *link;			/* its link under sessions/ (both at
					 * most NM_MAX bytes, owned by the set) */
	uid_t uid;			/* the log's owner, group and mode, */
	gid_t gid;			/* as the scan found them */
	mode_t mode;
	int rc;				/* 0, or why the log cannot be read now
					 * (-EACCES ...): facts from before */
};

struct pj_project {
	char *folder;			/* the folder's own name under DIR */
	char *cwd;			/* NULL: no session says */
	char name[NM_MAX + 1];		/* its folder under projects/ */
	uint32_t *sessions;		/* indexes in the set, by name */
	uint32_t nsessions;
};

struct pj_set {
	char *root;			/* DIR, absolute (where it is now, when
					 * the system tells: it follows a rename) */
	int rootfd;			/* DIR, open (owned): scans go through it */
	struct stat root_st;		/* DIR's own stat at the scan */
	int root_gone;			/* DIR was deleted (no session then) */
	struct pj_project *projects;	/* by name */
	uint32_t nprojects;
	struct pj_session *sessions;	/* by start time, then path */
	uint32_t nsessions;
	int32_t latest;			/* the session written last, or -1 */
	uint32_t next_key;
	struct sbuf errors;		/* errors.txt lines */
	int32_t *by_key;		/* key -> index, -1: none */
	uint32_t *by_link;		/* indexes by link name */
};

/*
 * Scans the projects folder dir (a ~/.claude holding projects/ is taken
 * for its projects/). prev: the set before (or NULL): keys and the facts
 * of unchanged logs come from it. 0 and a new set in *out (free with
 * pj_free()), or -errno when dir itself cannot be read.
 */
int pj_scan(const char *dir, const struct pj_set *prev, struct pj_set **out);
/* The same for the folder open as rootfd (pj_open_root()), whose path was
 * root (a set's root is where it is now, if the system tells). A deleted
 * folder gives an empty set with root_gone set. */
int pj_scan_at(int rootfd, const char *root, const struct pj_set *prev, struct pj_set **out);
void pj_free(struct pj_set *s);

/* The projects folder a path names: itself, or its projects/ when it is a
 * folder holding one. A new string (free()), or NULL (errno set). */
char *pj_resolve_dir(const char *dir);
/* pj_resolve_dir() and that folder opened (O_DIRECTORY): 0, the absolute
 * path in *root (free()) and the descriptor in *fd (close()), or -errno. */
int pj_open_root(const char *dir, char **root, int *fd);
/* Project p's folder, opened below the set's root (O_NOFOLLOW): a
 * descriptor (close()), or -errno. */
int pj_project_fd(const struct pj_set *s, uint32_t p);

/* Whether the folder scanned has the shape of a projects folder: it holds
 * a session log, or it is named "projects" (~/.claude/projects, empty
 * today), or its folders are all named as Claude Code names a project's
 * (an encoded absolute path: "-home-...", or "C--..."), at least one. A
 * home folder, or any folder with no session that is none of these, is
 * not: sessfs refuses it. */
int pj_is_projects(const struct pj_set *s);

/* The session with this key, or NULL. */
const struct pj_session *pj_by_key(const struct pj_set *s, uint32_t key);
/* The session named name in project p, or NULL. */
const struct pj_session *pj_find(const struct pj_set *s, uint32_t p, const char *name);
/* The session linked as name in sessions/, or NULL. */
const struct pj_session *pj_find_link(const struct pj_set *s, const char *name);
/* A project by name: its index, or -1. */
int pj_project(const struct pj_set *s, const char *name);



/*
 * Continuations by copy, from the heads and tails alone (no log is read
 * again): a release before 2.0 writes a new log on every resume, starting
 * with summary rows naming the leaves of the log it resumed and then a
 * copy of that log's chain. x continues y (x->copy_of = y's key,
 * y->copied_by = x's) when x's release is before 2.0, one of x's summary
 * leaves (lh_facts.leaves) is y's last user or assistant row, and y is of
 * x's project and started before x (the newest such y). sessions/ lists a
 * conversation once, by its newest log: a log copied by another is not
 * listed there (it stays under projects/). Called by pj_scan().
 */
void pj_link_copies(struct pj_set *s);

/*
 * The session a continued one (x) names by a summary's leafUuid that is
 * not in its own log: the session of x's project whose log holds a record
 * of that uuid (the newest that started no later than x, else any other),
 * reading the logs whole (a memmem for the uuid first, lh_has_uuid()).
 * 0 and its key in *key (0: none found), or -errno.
 */
int pj_find_continued(const struct pj_set *s, const struct pj_session *x, const char *leaf,
		      uint32_t *key);

/* The absolute path of a session's log (a new string), or NULL. */
char *pj_log_path(const struct pj_set *s, const struct pj_session *x);
/* The file-history folder beside projects/: DIR/../file-history (a new
 * string), or NULL. */
char *pj_file_history(const struct pj_set *s);

/* Appends one JSON object per session (sessions.json), in set order. */
void pj_sessions_json(const struct pj_set *s, struct sbuf *out);
/* The same object's members, without braces (for a caller adding more). */
void pj_session_members(const struct pj_set *s, const struct pj_session *x,
			struct sbuf *out);
/* Appends the facts of the folder as JSON (sessfs --check DIR). */
void pj_facts_json(const struct pj_set *s, struct sbuf *out);
/* Appends the errors.txt text. */
void pj_errors_text(const struct pj_set *s, struct sbuf *out);

/* A path (a cwd) as a name: runs of bytes outside [A-Za-z0-9._] become one
 * '-', no '-' at either end, at most PJ_NAME_MAX bytes; "_" when nothing is left.
 * out: NM_MAX + 1 bytes. Pure. */
void pj_path_name(const char *path, char *out);

#endif
