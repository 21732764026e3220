/*
 * state_priv: what the parts of the state module share. Not for other
 * modules. The files, each using only those listed before it:
 * state_node.c (the node tree, raw JSON, hashes, problems), state_read.c
 * (the read cache), state_fh.c (the file history), state.c (metadata,
 * rendering, the build, the accessors), state_grow.c (a state extended).
 */
#ifndef SESSFS_STATE_PRIV_H
#define SESSFS_STATE_PRIV_H

#include <stdint.h>

#include <uthash.h>

#include "jscan.h"
#include "state.h"

enum st_what {
	SW_DIR,
	SW_WORKTREE,
	SW_AGENT,
	SW_COST,
	SW_RC_INDEX,
	SW_FH_INDEX,
	SW_READ,		/* ref: index in reads */
	SW_BACKUP,		/* ref: snapshot << 16 | file */
};

struct st_node {
	uint32_t parent, first, last, next, nkids;
	uint32_t ref;
	uint8_t dir;
	uint8_t what;		/* enum st_what */
	char *name;
};

/* A string-keyed hash entry (binary keys). */
struct st_hent {
	UT_hash_handle hh;
	uint32_t val;
	size_t len;
	char key[];
};

/* Where a read-cache entry's bytes are. */
enum st_src {
	SRC_FILE,		/* toolUseResult.file.content of the result row */
	SRC_RESULT,		/* the tool_result block's content */
	SRC_WRITE,		/* input.content of the tool_use block */
	SRC_IMAGE,		/* toolUseResult.file.base64, decoded */
};

struct st_read {
	char *path;		/* normalised */
	char *tool_id;		/* the call's id, raw (escapes kept) */
	size_t tool_id_len;
	uint32_t use_rec, res_rec;	/* record indexes */
	uint32_t use_id, res_id;	/* their uuids' ids */
	uint32_t edit_id;	/* a later successful Edit's row, 0 = none */
	uint32_t node;
	int64_t offset, limit;	/* partial view; -1 = not given */
	uint8_t write;		/* Write, else Read */
	uint8_t src;		/* enum st_src */
	uint8_t partial;
};

enum st_ff {
	FF_OK,			/* shown */
	FF_NONE,		/* backupFileName null: the file did not exist */
	FF_MISSING,		/* the backup is not in the folder */
	FF_REFUSED,		/* its path or backup name is unusable */
};

struct st_fh_file {
	char *tracking;		/* trackingPath as logged (may hold NULs) */
	size_t tracking_len;
	char *path;		/* normalised, or NULL */
	char *backup;		/* backupFileName, or NULL for null */
	char *backup_time;
	char *parent_dir;	/* realParentDir, or NULL */
	double version;
	int has_version;
	uint32_t line;		/* where the entry was written */
	uint32_t node;
	uint8_t status;		/* enum st_ff */
};

struct st_snap {
	uint32_t msg;		/* id of snapshot.messageId */
	char *ts;		/* its timestamp, or NULL */
	uint32_t line;		/* the record's line; 0 when synthesised */
	uint32_t deltas;	/* deltas applied */
	uint8_t update;		/* replaced by an isSnapshotUpdate */
	struct st_fh_file *files;
	uint32_t nfiles, cap;
	uint32_t node;
	char name[32];
};

enum st_meta {
	SM_WORKTREE,
	SM_AGENT_SETTING,
	SM_AGENT_NAME,
	SM_AGENT_COLOR,
	SM_TITLE,
	SM_MODE,
	SM_PERMISSION,
	SM_COST,
	SM_COUNT,
};

struct st_state {
	const struct idx *ix;
	const struct logf *lf;
	struct st_node *nodes;
	uint32_t nnodes, cap;
	struct st_hent *names;		/* (parent, name) -> node */
	struct st_read *reads;
	uint32_t nreads;
	struct st_snap *snaps;
	uint32_t nsnaps;
	uint32_t meta[SM_COUNT];	/* record index, or IDX_NONE */
	uint32_t perm_row;		/* user row with the newest permissionMode */
	char *sid, *cwd;		/* of the leaf's record */
	char *fh_dir;
	char *fh_looked;		/* where the default folder was looked for */
	struct sbuf errs;
	uint32_t nerrs;
	uint32_t nmissing;
};

/* ---- a record's line, and raw JSON values in it (state.c) ---- */

struct st_line {
	struct sbuf sb;
	const char *p, *e;	/* the object */
};

/* Reads record i; 0, or -1 when it is not an object it can read. */
int stl_read(const struct st_state *st, uint32_t i, struct st_line *l);
void stl_free(struct st_line *l);
/* The value of key in the object at v (NULL if v is NULL or no object). */
const char *stj_get(const char *v, const char *e, const char *key);
/* Decodes the string at v into out (reset first); 0, or -1 if v is not
 * a string. */
int stj_str(const char *v, const char *e, struct sbuf *out);
/* A new decoded copy of the string at v, or NULL (also for a string that
 * holds a NUL: such a value is never used as a C string). */
char *stj_dup(const char *v, const char *e);
/* The number at v: 0, or -1 if it is not one or not finite (1e999). */
int stj_num(const char *v, const char *e, double *out);
int stj_true(const char *v, const char *e);

/* ---- nodes and problems (state.c) ---- */

/* Adds the entry name under dir; ST_NONE when out of memory. */
uint32_t st_add(struct st_state *st, uint32_t dir, const char *name, size_t n,
		int is_dir, uint8_t what, uint32_t ref);
/*
 * Adds the file at the normalised path under dir, making its folders.
 * ST_NONE, with *why set, when a part is already a file or the name is
 * already taken.
 */
uint32_t st_add_path(struct st_state *st, uint32_t dir, const char *path,
		     uint8_t what, uint32_t ref, const char **why);
/* Appends one line to the problems ("line N: " first when line > 0): the
 * whole text, as one line of UTF-8 (sb_add_line()). */
void st_err(struct st_state *st, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends s to out as a JSON string, cut to a readable length. */
void st_quote(struct sbuf *out, const char *s, size_t n);

/* Hash helpers: find or add a binary key. */
struct st_hent *sth_find(struct st_hent *head, const void *key, size_t len);
int sth_add(struct st_hent **head, const void *key, size_t len, uint32_t val);
void sth_free(struct st_hent **head);

/* ---- the parts ---- */

/* state_read.c */
int st_read_build(struct st_state *st, const struct graph *g,
		  const uint32_t *path, uint32_t n);
int st_read_render(const struct st_state *st, const struct st_read *r,
		   struct sbuf *out);
void st_read_index(const struct st_state *st, struct sbuf *out);
void st_read_free(struct st_state *st);

/* state.c: the type of the record each enum st_meta is read from. */
extern const char *const st_meta_types[SM_COUNT];

/* state_fh.c */
int st_fh_build(struct st_state *st, const struct graph *g,
		const struct rs_chain *c, const struct st_opts *o);
int st_fh_render(const struct st_state *st, uint32_t ref, struct sbuf *out);
void st_fh_index(const struct st_state *st, struct sbuf *out);
void st_fh_free(struct st_state *st);

#endif
