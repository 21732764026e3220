/*
 * dirnames: the names of a folder that pass a filter, sorted, kept while
 * the folder is unchanged.
 *
 * The older layout of subagent logs (agents.h: agent-<id>.jsonl beside
 * the session logs) makes every session of a project folder read that
 * whole folder when it is opened and looked at: a folder of N sessions is
 * read N times over when they are all opened (a grep over every session),
 * and each look at agents/ reads it again. dn_names() reads it once and
 * answers again from what it kept while a stat() of the folder shows the
 * same device, inode, mtime and ctime.
 *
 * A folder whose mtime was less than DN_RACY_S seconds before it was read
 * may change again within the same timestamp (coarse file times): it is
 * not kept, and read again next time. Once older, any entry added or
 * removed moves its mtime.
 *
 * The kept folders are process-wide (DN_SLOTS of them, the oldest
 * replaced), each with the filter it was read with; memory is a few
 * names per folder (what passed the filter). All calls are thread-safe
 * (one lock; the folder is read outside it).
 */
#ifndef SESSFS_DIRNAMES_H
#define SESSFS_DIRNAMES_H

#include <stddef.h>

#define DN_SLOTS 64		/* folders kept */
#define DN_RACY_S 2		/* seconds a folder's mtime must be old to keep it */

/* Whether a name is wanted (a pure function of the name). */
typedef int (*dn_keep_fn)(const char *name);

/*
 * 0 and, in *out, a new sorted array of the names in folder path that
 * keep() accepts ("." and ".." never): free it with dn_free(out, n).
 * -errno when the folder cannot be read (nothing in *out).
 */
int dn_names(const char *path, dn_keep_fn keep, char ***out, size_t *n);
void dn_free(char **v, size_t n);
/* The same, read now and not kept; keep NULL takes every name. */
int dn_read(const char *path, dn_keep_fn keep, char ***out, size_t *n);
/* Forgets every kept folder (tests; frees what was kept). */
void dn_forget(void);
/* How many times dn_names() read a folder (tests: a kept one is not). */
unsigned long dn_reads(void);

#endif
