/*
 * loghead: a session log's facts from its head and its tail, never the
 * whole of it (the listing of a projects folder reads thousands of logs).
 *
 * lh_read() reads the first LH_HEAD bytes and the last LH_TAIL bytes (a log
 * no bigger than both is read whole, and its facts are exact) and looks at
 * the complete lines in them with jscan, keys only, no tree. Once the
 * first prompt, the log's id and whether it is a fork are known, a line is
 * read up to its "type" only (the rest of a row is mostly its message),
 * but for a title record (custom-title, ai-title, summary), read whole
 * wherever it is, and for the last lines (from the last user or assistant
 * row with a uuid and a time on), read whole; the facts below are those of
 * the lines read whole, but for the titles and the rows counted:
 *   - sessionId: the file's own id: its name's stem when a record carries
 *     it, else the last record's sessionId;
 *   - cwd, version, gitBranch: the last record that has them (a row
 *     read up to its type gives what precedes it: these, in Claude Code's
 *     rows);
 *   - title: the last custom-title; else the last ai-title or summary
 *     line (the title Claude Code generated); else the title of the
 *     first real prompt (a user row that is not meta nor marked
 *     rowSource "harness", not a compaction summary, not a tool result,
 *     that title.h takes for a prompt: a command without its markup, none
 *     for /clear) — each as far as head and tail show it;
 *   - first and last timestamps, the user and assistant rows seen
 *     (exact only when the log was read whole);
 *   - fork: a log --fork-session made starts with copies of another
 *     session's records. They are older than the file's own first record
 *     (Claude Code 2.1.x gives them the new sessionId; a reply among them
 *     is older too, which hook rows written before the first time are
 *     not: when the head shows no reply, the log is read on to its first
 *     one, at most LH_PROMPT_MAX bytes), or carry another sessionId (older
 *     versions): copy_uuid is the
 *     first copied record's uuid, copy_sid that record's sessionId when it
 *     differs from the file's own;
 *   - last_uuid: the uuid of the last user or assistant row (the tail's);
 *     leaves: the leafUuids of the first LH_LEAVES summary records, one
 *     per line (1.0.x starts the log it writes on a resume with them: they
 *     name the leaves of the log it continues, whose chain it copies).
 * A file without one JSON object line that has a "type" and a
 * "sessionId" in its head is not a session log (-ENOMSG; -ENODATA when it
 * is empty: 2.0.x leaves an empty <id>.jsonl beside the log it resumes).
 *
 * Pure functions over the file (opened read-only); thread-safe.
 */
#ifndef SESSFS_LOGHEAD_H
#define SESSFS_LOGHEAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "title.h"

#define LH_HEAD (32u << 10)	/* bytes read from the start */
#define LH_TAIL (32u << 10)	/* and from the end */
#define LH_BUF (LH_HEAD + LH_TAIL)	/* a log up to this size is read whole */
#define LH_PROMPT_MAX (1u << 20)	/* the longest first prompt line read */
#define LH_TITLE_MAX TL_MAX	/* bytes of a title kept (title.h) */
#define LH_STEM_MAX 255		/* a stem's bytes at most (a file name's) */
#define LH_NO_TS INT64_MIN
#define LH_LEAVES 8		/* summary leaves kept */

enum lh_title_kind { LH_T_NONE, LH_T_PROMPT, LH_T_GENERATED, LH_T_CUSTOM };

/* Every string is malloc'd, or NULL when the log did not say. */
struct lh_facts {
	char *sid, *cwd, *version, *branch, *title;
	enum lh_title_kind title_kind;
	int64_t first_ms, last_ms;	/* LH_NO_TS when none */
	uint32_t rows;			/* user and assistant rows read */
	int exact;			/* the log was read whole */
	uint64_t bytes;			/* the size when read */
	char *copy_uuid, *copy_sid;	/* a fork's first copied record */
	char *last_uuid;		/* the last user or assistant row's uuid */
	char *leaves;			/* summary leafUuids, "\n"-separated */
};

/*
 * Reads the facts of the log at path (stem: the file's name without
 * .jsonl, for the own id). 0, -ENOMSG (not a session log), -ENODATA (an
 * empty file), or the -errno
 * of open/read (a symbolic link is not followed: -ELOOP; a folder:
 * -EISDIR, another file that is not a regular one: -EINVAL). Fills *out
 * (free with lh_free(); zeroed on error). The log is opened with
 * O_NOATIME where the kernel allows it (its owner, root).
 */
int lh_read(int dirfd, const char *name, const char *stem, struct lh_facts *out);
/* The same, and the log's stat when it was read in *st (bytes, mtime and
 * inode of what the facts are of): a scan needs no stat of its own. buf:
 * LH_BUF bytes the caller lends for the reads (one per thread, used again
 * for every log: no fresh memory per log), or NULL. */
int lh_read_stat(int dirfd, const char *name, const char *stem, char *buf,
		 struct lh_facts *out, struct stat *st);
void lh_free(struct lh_facts *f);

/* The stem of a log's file name (name without a last ".jsonl"), cut to
 * LH_STEM_MAX bytes, into out (LH_STEM_MAX + 1 bytes): what lh_read()
 * takes. Returns its length. */
size_t lh_stem(const char *name, char *out);

/*
 * The title by the same rule over the whole log, for a reader that indexed
 * it (a title written in the middle of a long log, which head and tail do
 * not show): reads back only the lines that may hold part of it (the
 * custom-title, ai-title and summary records, and the user rows up to the
 * first real prompt). 0 and a new string in *title (NULL when the log has
 * none) and its kind, or -errno.
 */
struct idx;
struct logf;
/*
 * The shell command that resumes the session of the log at path (its
 * file name's stem is the id claude --resume takes; sid when the stem is
 * none) from the folder cwd: "cd <cwd> && claude --resume <id>", each
 * word quoted for the shell when it needs to be. Appends nothing when
 * cwd or both ids are missing. Claude Code looks for <id>.jsonl in the
 * project folder of the directory it runs in, which is cwd.
 */
void lh_resume_command(const char *path, const char *cwd, const char *sid, struct sbuf *out);

int lh_index_title(const struct idx *ix, const struct logf *lf, char **title,
		   enum lh_title_kind *kind);

/*
 * For a fork: the uuid of the last copied record (the parent of the first
 * record the fork wrote itself, a record newer than the copies), reading
 * the log from its start until it is found. 0 and a new string in *uuid
 * (free()), -ENOENT when there is none, -errno. *settled (when not NULL)
 * says whether a record of the fork's own followed it: else the log ends
 * in copies, and more copies appended move the point.
 */
int lh_fork_point(int dirfd, const char *name, const struct lh_facts *f,
		  char **uuid, int *settled);

/* Whether the log holds a record with this uuid (a read of the whole
 * file, for finding a fork's origin). 1, 0, or -errno. */
int lh_has_uuid(int dirfd, const char *name, const char *uuid);

#endif
