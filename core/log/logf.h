/*
 * logf: the log file, opened read-only, and its records read back.
 *
 * sessfs never writes to a log: it is opened O_RDONLY and only pread() is
 * used, so several threads may read records at once. A record's bytes are
 * read when it is rendered, and parsed with cJSON only then.
 */
#ifndef SESSFS_LOGF_H
#define SESSFS_LOGF_H

#include <stdint.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "idx.h"
#include "sbuf.h"

struct logf;

/*
 * Opens path for reading. Refuses what cannot be a log: a directory, a
 * FIFO, a socket or a device (-EISDIR, -EINVAL). On success returns 0 and
 * a new handle in *out (close with lf_close()); otherwise -errno.
 */
int lf_open(const char *path, struct logf **out);
/* The same for name in the folder dirfd (AT_FDCWD: the current one). */
int lf_openat(int dirfd, const char *name, struct logf **out);
/* A second handle of the file lf has open (the same file, whatever its
 * path holds now): 0 and *out, or -errno. */
int lf_dup(const struct logf *lf, struct logf **out);
void lf_close(struct logf *lf);
int lf_fd(const struct logf *lf);
/* fstat() of the open file. */
int lf_stat(const struct logf *lf, struct stat *st);

/* Appends the record's exact bytes (its line, no newline) to out. 0 or -errno. */
int lf_read(const struct logf *lf, const struct idx_rec *r, struct sbuf *out);
/* The same for the line's first n bytes (n <= r->len). */
int lf_read_part(const struct logf *lf, const struct idx_rec *r, size_t n,
		 struct sbuf *out);
/*
 * Parses the record into a new cJSON tree (free with cJSON_Delete()), or
 * NULL when cJSON cannot take it (nesting deeper than its limit): the tree
 * cJSON_ParseWithLength() gives, built by jt_parse() (jtree.h). Lone
 * surrogate escapes, which JavaScript accepts and cJSON does not, are read
 * as U+FFFD; leading NULs are skipped.
 */
cJSON *lf_parse(const struct logf *lf, const struct idx_rec *r);
/* The same for bytes already in memory. */
cJSON *lf_parse_mem(const char *p, size_t n);

/* The same for bytes the caller owns, rewritten in place (lone
 * surrogates); p[n] need not be a NUL. */
cJSON *lf_parse_in_place(char *p, size_t n);

/*
 * Records read in the order of the log, as a window is: one pread() per
 * run of bytes instead of one per record. A run starts at LF_AHEAD_MIN
 * bytes and doubles, up to LF_AHEAD, while the records go on forward; a
 * record behind the last run starts a small run again, so records read
 * out of order cost little more than one pread() each. A reader's own
 * (one thread); lf_ahead_free() it. Zero-initialised is ready.
 */
#define LF_AHEAD_MIN (64u << 10)
#define LF_AHEAD (1u << 20)
struct lf_ahead {
	struct sbuf buf;	/* the log's bytes from off */
	uint64_t off;
	size_t run;		/* bytes the next read asks for */
	int ready;
};
/* r's r->len bytes (what lf_read() appends), in a's buffer: the caller may
 * rewrite them; they last until the next call on a. NULL when the file no
 * longer has them. */
char *lf_ahead_get(const struct logf *lf, struct lf_ahead *a, const struct idx_rec *r);
void lf_ahead_free(struct lf_ahead *a);
/*
 * Rewrites lone surrogate escapes (\ud800 .. \udfff not in a valid pair)
 * as \ufffd, in place (same length): what lf_parse() does before parsing,
 * for readers of the bytes themselves (render.h).
 */
void lf_fix_surrogates(char *p, size_t n);

#endif
