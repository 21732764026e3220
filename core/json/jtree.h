/*
 * jtree: a cJSON tree built from JSON text, as cJSON_ParseWithLength()
 * builds it, only faster.
 *
 * The context window parses every row it sends into a tree (its rules are
 * written on cJSON's values). cJSON reads a string byte by byte, twice:
 * once to size it, once to copy it; the rows of real logs are mostly long
 * strings (tool output, file contents), so that was a third of the time it
 * takes to render a session. jt_parse() checks the text with jv_check()
 * (cJSON's rules: jv.h), then builds the same nodes, decoding each string
 * a run at a time (a run without escapes is one copy).
 *
 * The same tree means: the same nodes in the same order (every member of
 * an object, repeated keys too), the same types, the same valuestring and
 * string as C strings, the same valuedouble and valueint (true has a
 * valueint of 1, as cJSON's parser gives it). A UTF-8 byte order mark
 * before the value is skipped as cJSON skips it.
 *
 * One difference, in the flags above the type: a node is one block with
 * its key and its string value (a third of the allocations and frees of
 * cJSON's tree), and says so as cJSON's own flags do, so that
 * cJSON_Delete() frees the block alone: cJSON_StringIsConst on a node
 * with a key, cJSON_IsReference on a string. cJSON's functions that read,
 * print, detach, replace or add such nodes work as on their own; two do
 * not: cJSON_SetValuestring() refuses such a string, and
 * cJSON_Duplicate() shares such a key with the copy (which the original's
 * delete then frees): copy with jt_dup().
 *
 * Pure; thread-safe (cJSON's default allocator).
 */
#ifndef SESSFS_JTREE_H
#define SESSFS_JTREE_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The value at the start of p[0..n) (what follows it is not looked at),
 * or NULL where cJSON_ParseWithLength(p, n) returns NULL (a value cJSON
 * refuses, or no memory). Free with cJSON_Delete(). */
cJSON *jt_parse(const char *p, size_t n);

/* 1 when a and b are the same tree in the sense above (both NULL too;
 * the flags are not compared): what jt_parse()'s tests hold it to against
 * cJSON's parser. */
int jt_same(const cJSON *a, const cJSON *b);

/* A deep copy of x that owns all of its strings (cJSON_Duplicate(x, 1),
 * and a block of its own for each key it would share), or NULL on ENOMEM.
 * Free with cJSON_Delete(). */
cJSON *jt_dup(const cJSON *x);

#endif
