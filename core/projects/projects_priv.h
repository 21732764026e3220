/*
 * projects_priv: what the four files of the projects module share. Not
 * part of the API (projects.h is); included only by projects.c (the set,
 * its look-ups, JSON), projects_scan.c (the scan: the folders, the logs'
 * heads and tails), projects_name.c (the names of projects, sessions and
 * links, and the set's tables) and projects_lineage.c (where a fork came
 * from).
 */
#ifndef SESSFS_PROJECTS_PRIV_H
#define SESSFS_PROJECTS_PRIV_H

#include <stddef.h>

#include "projects.h"

/* A set of names (for clash suffixes) or paths, each with a pointer. */
struct pj_seen;

/* Adds key: 0, 1 when it was there already, or -ENOMEM. */
int pj_seen_add(struct pj_seen **set, const char *key, const void *ptr);
/* What key was added with, or NULL. */
const void *pj_seen_get(struct pj_seen *set, const char *key);
void pj_seen_free(struct pj_seen **set);
/* name (NM_MAX + 1 bytes), or name plus sep and 2, 3… until it is not in
 * taken; then added to taken. */
void pj_unique_name(struct pj_seen **taken, char *name, const char *sep, const void *ptr);

/* Appends "path: why" to s's errors.txt. */
void pj_err_line(struct pj_set *s, const char *path, const char *why);

/* projects_name.c: each project's cwd and name (sorted by name), then the
 * sessions' folder and link names (sorted by time; 0 or -ENOMEM), then
 * the look-up tables (0 or -ENOMEM). */
void pj_name_projects(struct pj_set *s);
int pj_name_sessions(struct pj_set *s);
int pj_index_sessions(struct pj_set *s);

/* projects_lineage.c: pj_find_fork() of each session not yet looked at. */
void pj_find_forks(struct pj_set *s);

#endif
