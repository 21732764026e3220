/*
 * state: the work state a resume writes back into the running program
 * (session-format.md §8), recovered from the log as a small tree of
 * folders and files for state/.
 *
 *   worktree.json     the last worktree-state (null: the session left its
 *                     worktree), and whether worktreePath exists now
 *   agent.json        agentSetting, agentName, agentColor, customTitle,
 *                     mode, permissionMode (last record wins; for the
 *                     permission mode, a newer user row's wins)
 *   cost.json         the last cost-state record
 *   read-cache/<path> for each file read (Read) or written (Write) on the
 *                     current branch, the newest successful content as
 *                     the model saw it (the Read's structured text, an
 *                     image's decoded bytes, else the tool result's text;
 *                     a Write's content); partial reads carry the xattr
 *                     user.sessfs.partial ("offset=N limit=M")
 *   read-cache.json   the index of read-cache/
 *   file-history/<NNN>-<uuid8>/<path>
 *                     the snapshots replayed along the resumed chain
 *                     (snapshots, updates, deltas, the last ST_FH_KEEP),
 *                     each holding its backed-up files, read from the
 *                     file-history folder
 *   file-history.json the index of file-history/, missing backups too
 *
 * Every value is looked up under the session id of the resume's leaf. An
 * entry exists only where the log holds that state. Paths from the log go
 * through nm_path(): a path it refuses is left out and reported, as is a
 * path that is both a file and a folder, a backup name that is not of the
 * form Claude Code writes, and a backup that is missing. Nothing is a
 * symbolic link; no name is "", ".", ".." or holds '/' or NUL.
 *
 * Only the records state needs are read back: the metadata records of
 * the leaf's session (found from the end of the index), the snapshots
 * and deltas, and the tool calls of Read and Write with their results.
 * File contents stay in the log and the backup folder; st_render() reads
 * them when a file is read.
 *
 * Thread-safety: st_build() only reads the graph, the chain and the log.
 * A state is immutable afterwards; every accessor only reads it, and
 * st_render() uses pread() and open(), so threads may share one. It
 * borrows the index (for ids) and the log: free it before them.
 */
#ifndef SESSFS_STATE_H
#define SESSFS_STATE_H

#include <stdint.h>

#include "branch.h"
#include "graph.h"
#include "logf.h"
#include "resume.h"
#include "sbuf.h"

#define ST_NONE UINT32_MAX
#define ST_FH_KEEP 100			/* snapshots a resume keeps */
#define ST_BACKUP_MAX (256u << 20)	/* largest backup file shown */

struct st_opts {
	/* The log's path (absolute), for the default file-history folder
	 * <log folder>/../../file-history/<sessionId>; may be NULL. */
	const char *log_path;
	/* The folder holding the backups, instead of the default; when it
	 * holds a folder named after the session id, that one. NULL: none. */
	const char *fh_dir;
};

struct st_state;

/*
 * Builds the state. path/npath: the current branch's records in display
 * order (the read cache); NULL to use the chain. Returns 0 and a new
 * state in *out (free with st_free()), or -ENOMEM. A log without state
 * gives a state with only its root folder.
 */
int st_build(const struct graph *g, const struct rs_chain *c,
	     const uint32_t *path, uint32_t npath, const struct logf *lf,
	     const struct st_opts *o, struct st_state **out);
void st_free(struct st_state *st);

/*
 * What a state was built from (st_build()'s chain and path, and the size
 * of the index then), for st_still() after the log grew.
 */
struct st_was {
	const uint32_t *chain, *path;	/* path NULL: the chain was read */
	uint32_t nchain, npath;
	uint32_t nrecs, nids;	/* idx_nrecs(), idx_nids() then */
};

/*
 * Whether st, built as was says, is exactly what st_build() would build
 * now from g, c and path/npath, the log having only grown since (the
 * same index, extended): the old chain and path are prefixes of the new
 * ones, every row they gained is a new record with a new uuid, none of
 * them is a tool call or result the read cache reads or a user row that
 * names a permission mode, no new record is of a kind the state reads
 * (metadata, file history), and the leaf's sessionId and cwd are the
 * same. 1 yes (keep st), 0 no (build it again). Reads a line per new row
 * of the chain at most: cost in proportion to the growth.
 */
int st_still(const struct st_state *st, const struct graph *g,
	     const struct rs_chain *c, const uint32_t *path, uint32_t npath,
	     const struct st_was *was);

/* ---- nodes: 0 is state/ itself; parents come before children ---- */

uint32_t st_count(const struct st_state *st);
int st_is_dir(const struct st_state *st, uint32_t node);
/* The node's name (borrowed; "" for the root). */
const char *st_name(const struct st_state *st, uint32_t node);
/* The parent folder (ST_NONE for the root). */
uint32_t st_parent(const struct st_state *st, uint32_t node);
/* A folder's entries in listing order: first child, then next sibling;
 * ST_NONE at the end. */
uint32_t st_first(const struct st_state *st, uint32_t dir);
uint32_t st_next(const struct st_state *st, uint32_t node);
uint32_t st_nkids(const struct st_state *st, uint32_t dir);
/* The entry name in folder dir, or ST_NONE. */
uint32_t st_lookup(const struct st_state *st, uint32_t dir, const char *name);

/*
 * Appends a file's bytes to out. 0; -EISDIR for a folder, -ENOENT past the
 * end; -EIO (or the open's -errno) when a backup cannot be read now.
 */
int st_render(const struct st_state *st, uint32_t node, struct sbuf *out);
/* Extended attributes: the value of name, or -ENODATA; the names, each
 * NUL-terminated. */
int st_getxattr(const struct st_state *st, uint32_t node, const char *name,
		struct sbuf *out);
void st_listxattr(const struct st_state *st, uint32_t node, struct sbuf *out);

/* ---- facts and problems ---- */

/* One line per problem found (errors.txt), each ending in '\n'. */
void st_errors_text(const struct st_state *st, struct sbuf *out);
uint32_t st_nerrors(const struct st_state *st);
/* Counts, for session.json: read-cache entries, snapshots, backups shown,
 * backups missing. */
struct st_counts {
	uint32_t reads, snapshots, backups, missing;
};
void st_counts(const struct st_state *st, struct st_counts *out);
/* The file-history folder used (borrowed), or NULL when there is none. */
const char *st_fh_dir(const struct st_state *st);

#endif
