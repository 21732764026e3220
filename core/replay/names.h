/*
 * names: file names made from what a log says.
 *
 * A log can say anything; a file name may only hold [A-Za-z0-9._-], be at
 * most NM_MAX bytes, and never be "." or "..". Every name sessfs derives
 * from a log (tool names, attachment types, uuids, agent ids, path parts)
 * goes through nm_safe(). Pure functions, thread-safe.
 */
#ifndef SESSFS_NAMES_H
#define SESSFS_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "sbuf.h"

#define NM_MAX 255		/* longest file name */
#define NM_KIND_MAX 128		/* longest <kind> in a message file name */
#define NM_SEQ_DIGITS 6
#define NM_RESULTS_UP 64
#define NM_SLUG_MAX 48		/* longest slug (nm_slug()) */	/* results a chained result looks up through */

/*
 * Copies s[0..n) into out (size outsz >= 2) keeping [A-Za-z0-9._-] and
 * writing '_' for anything else, cut to outsz - 1 bytes. A result that is
 * empty, "." or ".." becomes "_", "_.", "_..". Returns the length.
 */
size_t nm_safe(const char *s, size_t n, char *out, size_t outsz);

/*
 * The <kind> of a message record: user, assistant, thinking, summary,
 * tool_use-<Tool>, tool_result-<Tool>, attachment-<type>,
 * compact_boundary, system-<subtype>. A result is named by the call it
 * answers (its tool_use_id), also where 1.0.x chains a parallel batch's
 * results one after the other. Writes a safe name into out
 * (NM_KIND_MAX + 1 bytes).
 */
void nm_kind(const struct graph *g, uint32_t id, char *out);

/* "<seq>-<kind>.md" with seq zero-padded to 6 digits; out is NM_MAX + 1. */
void nm_message_file(const struct graph *g, uint32_t id, uint32_t seq, char *out);
/* The same with the kind given (cut at NM_MAX bytes in all). */
void nm_seq_file(uint32_t seq, const char *kind, char *out);

/* A harness row's file in harness/ (harness.h): "<line>-<kind>.md", line
 * being its record's line in the log, zero-padded to 6 digits; out is
 * NM_MAX + 1. A record has one line, so the name is one record's. */
void nm_harness_file(const struct graph *g, uint32_t id, char *out);

/* Parses the seq of a message file name (or the line of a harness
 * file's); 0 if the name is not one. */
uint32_t nm_message_seq(const char *name);

/* A title's slug, for a name: [a-z0-9-], at most NM_SLUG_MAX bytes,
 * ending at a word's end when the cut leaves at least half of them (a
 * word longer is cut); "untitled" when nothing is left. out: NM_SLUG_MAX
 * + 1 bytes. */
void nm_slug(const char *title, char *out);

/* a, b and c (any may be ""), one after the other, into out (NM_MAX + 1
 * bytes): a relative path of names. -ENAMETOOLONG (out "") when longer
 * than NM_MAX. */
int nm_join(char *out, const char *a, const char *b, const char *c);

/* Longest path nm_path() gives. */
#define NM_PATH_MAX 4096

/*
 * Normalises a file path taken from the log (a Read's file_path, a
 * tracked file of the file history) so it can become folders and a file:
 * a relative path is joined to base (itself normalised; NULL or "" when
 * there is none); empty and "." parts go; what is left is "/part/part"
 * with at least one part. Refused, with *why set to a fixed reason:
 * a NUL byte, a ".." part (never resolved: a log must not steer a path),
 * a part longer than NM_MAX bytes, a result longer than NM_PATH_MAX, an
 * empty path, a relative path with no absolute base, nothing left. Writes the result
 * to out (reset first). Returns 0 or -EINVAL. Pure, thread-safe.
 */
int nm_path(const char *path, size_t n, const char *base, size_t bn,
	    struct sbuf *out, const char **why);

#endif
