/*
 * idx: the index of a session log.
 *
 * The log is read once, front to back, and never written. Each complete
 * line becomes either a record (a JSON object with a string "type") or an
 * entry in the list of bad lines. A record keeps only what the replay needs
 * to link and classify it: its place in the file, its uuid and parents,
 * its time, its kinds, and a few flags; the bytes stay in the log and are
 * read back (pread) when a record is rendered.
 *
 * uuids are interned (intern.h): every distinct uuid string seen anywhere
 * (as a uuid, a parent, a leafUuid ...) gets a small number, its "id"
 * (1..nids; 0 means none). Canonical uuids are stored as 16 bytes.
 *
 * Small strings that repeat (types, subtypes, attachment types, tool
 * names, releases) are interned as "atoms" (1..65535; 0 means none).
 *
 * The index extends: idx_feed() indexes only the bytes after idx_end(), so
 * indexing the first N bytes and then the rest gives the same index as one
 * pass. Bytes after the last newline stay pending until a newline arrives,
 * or until idx_finish() declares the log complete, unless they hold one
 * whole JSON object (up to IDX_OPEN_MAX bytes): a finished log whose last
 * line lacks its newline; that line is a record at once, and a newline
 * written after it later only ends it (no blank line, no line counted).
 * Any other byte written after it before a newline continues that line,
 * which one pass would read whole, longer (a second object right after
 * the first: not JSON): the index stops there and says so
 * (idx_continued()), for its owner to index the log again from the start.
 *
 * Not thread-safe: the owner serialises idx_feed() against readers.
 */
#ifndef SESSFS_IDX_H
#define SESSFS_IDX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "intern.h"
#include "sbuf.h"

#define IDX_NONE UINT32_MAX
#define IDX_NO_TS INT64_MIN
#define IDX_UUID_MAX IN_UUID_MAX	/* longer "uuids" are not used as ids */
#define IDX_CHUNK (1u << 18)	/* read size */
#define IDX_OPEN_MAX (64u << 20)	/* longest last line taken without newline */
#define IDX_OPEN_PEEK 64	/* blanks after it looked at for its newline */

/* What a record is, from its "type" (and for messages, its family). */
enum idx_type {
	IDX_T_OTHER,		/* unknown or uninteresting metadata */
	IDX_T_USER,
	IDX_T_ASSISTANT,
	IDX_T_ATTACHMENT,
	IDX_T_SYSTEM,
	IDX_T_PROGRESS,
	IDX_T_LAST_PROMPT,
	IDX_T_SUMMARY,
	IDX_T_FH_SNAPSHOT,
	IDX_T_FH_DELTA,
	IDX_T_CONTENT_REPL,
	IDX_T_META,		/* other known metadata (titles, modes, state) */
};

/* The first content block of a user/assistant row. */
enum idx_block {
	IDX_B_NONE,
	IDX_B_STRING,		/* content is a plain string */
	IDX_B_TEXT,
	IDX_B_THINKING,
	IDX_B_REDACTED,
	IDX_B_TOOL_USE,
	IDX_B_TOOL_RESULT,
	IDX_B_IMAGE,
	IDX_B_DOCUMENT,
	IDX_B_OTHER,
};

/* Why the row repair of the loader drops a user/assistant row. */
enum idx_drop {
	IDX_D_KEEP,
	IDX_D_NO_MESSAGE,	/* "message" missing or not an object */
	IDX_D_NO_CONTENT,	/* content neither string nor array */
	IDX_D_BLANK,		/* assistant string content is blank */
	IDX_D_NO_BLOCKS,	/* no content block has a string "type" */
};

enum idx_flag {
	IDX_F_SIDECHAIN = 1u << 0,
	IDX_F_COMPACT_SUMMARY = 1u << 1,
	IDX_F_META = 1u << 2,		/* isMeta, or rowSource "harness" (2.1.332):
					 * Claude Code wrote the row by itself */
	IDX_F_VISIBLE_ONLY = 1u << 3,
	IDX_F_RENDERED = 1u << 4,	/* attachment has rendered text */
	IDX_F_ROLE_USER = 1u << 5,
	IDX_F_ROLE_SYSTEM = 1u << 6,
	IDX_F_EXPLICIT = 1u << 7,	/* last-prompt explicit:true */
	IDX_F_LEAF_KEY = 1u << 8,	/* record has a leafUuid key */
	IDX_F_LEAF_NULL = 1u << 9,	/* ... whose value is null */
	IDX_F_PRESERVED = 1u << 10,	/* boundary with preservedMessages */
	IDX_F_SNAP_UPDATE = 1u << 11,
	IDX_F_SESSION = 1u << 12,	/* has a sessionId key */
	IDX_F_BLANK_STR = 1u << 13,	/* string content, blank */
	IDX_F_LOCAL_CMD = 1u << 14,	/* string content, a local command's tag
					 * first (<command-name>, <local-command-) */
	IDX_F_USAGE = 1u << 15,		/* message holds a "usage" object */
	IDX_F_PARTIAL = 1u << 16,	/* boundary whose compactMetadata has
					 * messagesSummarized (a partial compaction) */
	IDX_F_HOOK_TEXT = 1u << 17,	/* user row marked hookText: a hook's
					 * output the user configured */
	IDX_F_PERM_MODE = 1u << 18,	/* a string permissionMode member (the
					 * first of that key) */
};

/* The top-level members a message file is rendered from (render.c), by
 * their keys as written. */
#define IDX_RENDER_KEYS \
	{ "type", "message", "attachment", "rendered", "content", "compactMetadata" }

struct idx_rec {
	uint64_t off;		/* byte offset of the line */
	int64_t ts;		/* ms since the epoch, or IDX_NO_TS */
	uint64_t msgid;		/* hash of message.id, 0 = none */
	uint64_t useid;		/* hash of the tool_use id / tool_use_id */
	uint32_t len;		/* line length, newline excluded */
	uint32_t line;		/* 1-based line number */
	uint32_t uuid;		/* ids (0 = none) */
	uint32_t parent;
	/* logicalParentUuid (system), leafUuid (last-prompt, summary),
	 * messageId (file-history-snapshot), snapshotMessageId (delta),
	 * sentAsUuid (user) */
	uint32_t aux;
	uint32_t flags;		/* enum idx_flag */
	/* The line's bytes up to the end of the last top-level member a
	 * message file is rendered from (IDX_RENDER_KEYS); 0 when none. What
	 * follows was checked here and holds none of them. */
	uint32_t rlen;
	uint16_t type_atom;	/* the "type" string */
	uint16_t sub;		/* subtype (system) or attachment type */
	uint16_t name;		/* tool name of a tool_use block */
	uint16_t ver;		/* the "version" string (release.h) */
	uint8_t type;		/* enum idx_type */
	uint8_t block;		/* enum idx_block */
	uint8_t drop;		/* enum idx_drop */
};

/* Why a line is not a record. */
enum idx_err_code {
	IDX_E_BLANK = 1,
	IDX_E_NOT_JSON,
	IDX_E_NOT_OBJECT,
	IDX_E_NO_TYPE,
	IDX_E_TORN,		/* last line without newline, not JSON */
	IDX_E_TOO_LONG,
	IDX_E_BAD_UUID,		/* record kept; its uuid is not usable */
};

struct idx_err {
	uint64_t off;
	uint32_t line;
	uint32_t col;		/* byte within the line where it went wrong */
	uint8_t code;		/* enum idx_err_code */
};

struct idx;

/* Returns a new empty index; free with idx_free(). NULL on ENOMEM. */
struct idx *idx_new(void);
void idx_free(struct idx *ix);

/* Indexes the complete lines of fd after idx_end(). 0 or -errno. */
int idx_feed(struct idx *ix, int fd);
/*
 * idx_feed() on two threads, when at least min bytes (0: 2) wait after
 * idx_end(): the lines from the first line start after the middle of
 * those bytes on are indexed beside, into an index of their own, which is
 * then appended (their ids and atoms interned in the order one pass would
 * have met them). The result is the same as idx_feed()'s, field for
 * field; anything in the way (no line start near the middle, no thread,
 * no memory) leaves the rest to idx_feed(). The caller's thread takes the
 * first half; the second runs on a thread started and joined here.
 */
#define IDX_PAR_MIN (16u << 20)	/* below it, a second thread is not worth it */
int idx_feed2(struct idx *ix, int fd, uint64_t min);
/*
 * A new index in *out holding only the records i of src with keep[i] set
 * (keep has idx_nrecs(src) entries), their ids and atoms interned anew,
 * none of src's bad lines, and src's end, pending bytes and line count:
 * idx_feed() goes on from where src stopped, indexing every new line.
 * It costs what the records kept cost, not the whole log. 0 or -ENOMEM.
 */
int idx_copy_some(const struct idx *src, const uint8_t *keep, struct idx **out);
/*
 * The same, appended to dst: the records i >= from of src with keep[i]
 * set (the records an index of src's lines holds past from, for a copy
 * made of src before it grew), and src's end, pending bytes and line
 * count. keep NULL takes no record (src grew by no record past from).
 * dst's records keep their ids. 0 or -ENOMEM (dst then holds no record
 * more).
 */
int idx_copy_more(struct idx *dst, const struct idx *src, uint32_t from,
		  const uint8_t *keep);
/* Indexes the pending bytes after the last newline as a final line. */
int idx_finish(struct idx *ix, int fd);

/* Offset just past the last line indexed. */
uint64_t idx_end(const struct idx *ix);
/* Bytes after idx_end() that were seen but wait for a newline. */
uint64_t idx_pending(const struct idx *ix);
uint32_t idx_lines(const struct idx *ix);
/* 1 when a last line taken without its newline went on (above): the
 * index no longer is what one pass over the log gives, and indexes
 * nothing more. */
int idx_continued(const struct idx *ix);

uint32_t idx_nrecs(const struct idx *ix);
/* Borrowed; valid until the next idx_feed()/idx_finish(). */
const struct idx_rec *idx_rec(const struct idx *ix, uint32_t i);
uint32_t idx_nerrs(const struct idx *ix);
const struct idx_err *idx_err(const struct idx *ix, uint32_t i);
const char *idx_err_text(enum idx_err_code code);

uint32_t idx_nids(const struct idx *ix);
/* Appends the uuid string of id to out, as it is. */
void idx_id_str(const struct idx *ix, uint32_t id, struct sbuf *out);
/* The same fit for one line of text (sb_add_line(): a uuid may hold any
 * byte but NUL). */
void idx_id_text(const struct idx *ix, uint32_t id, struct sbuf *out);
/* Writes the uuid into buf (IDX_UUID_MAX + 1 bytes); returns its length. */
size_t idx_id_buf(const struct idx *ix, uint32_t id, char *buf);
/* Looks a uuid string up; 0 if it was never seen. */
uint32_t idx_id_find(const struct idx *ix, const char *s, size_t n);

/* The string of an atom (borrowed, valid until idx_free()); "" for 0. */
const char *idx_atom(const struct idx *ix, uint16_t atom);
/* The atom of s, or 0 if never seen. */
uint16_t idx_atom_find(const struct idx *ix, const char *s);


/* Memory the index uses, for the benchmark (arrays by their used part). */
size_t idx_mem(const struct idx *ix);

/* pread() of n bytes at off until they are all read, the end of the file
 * or an error: the bytes read, or -errno. */
ssize_t idx_pread(int fd, char *buf, size_t n, uint64_t off);

#endif
