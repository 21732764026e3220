/*
 * intern: the small numbers a log's strings get (the index's interning).
 *
 * Every distinct uuid string seen anywhere in a log (as a uuid, a parent,
 * a leafUuid ...) gets an "id" (1..in_nids(); 0 means none); a canonical
 * lowercase uuid is kept as 16 bytes, any other string as itself, at most
 * IN_UUID_MAX bytes. Small strings that repeat (types, subtypes,
 * attachment types, tool names, releases) get an "atom" (1..IN_ATOM_MAX;
 * 0 means none, or "" when read back).
 *
 * The table of ids is an open-addressing table of (id, the high half of
 * the key's hash): an id's lookup is one cache line, and the key itself is
 * read only when the hash halves agree. The index (idx.h) owns one table
 * and hands its lookups out; the line scanner (scan.h) interns through it.
 *
 * Not thread-safe: the owner serialises interning against readers.
 */
#ifndef SESSFS_INTERN_H
#define SESSFS_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "jscan.h"
#include "sbuf.h"

#define IN_UUID_MAX 255		/* longer strings get no id */
#define IN_ATOM_MAX UINT16_MAX	/* atoms past it are 0 */

struct intern;

/* A new, empty table (free with in_free()); NULL on ENOMEM. */
struct intern *in_new(void);
void in_free(struct intern *in);

/* The id of the n bytes at s (1..IN_UUID_MAX of them, no NUL), added when
 * new; 0 when out of memory. */
uint32_t in_id(struct intern *in, const char *s, size_t n);
/* The id of s, or 0 when it was never interned. */
uint32_t in_id_find(const struct intern *in, const char *s, size_t n);
/* The string of id into buf (IN_UUID_MAX + 1 bytes); its length (0 and ""
 * for an id that is none). */
size_t in_id_buf(const struct intern *in, uint32_t id, char *buf);
/* Appends the string of id to out, as it is; or fit for one line of text
 * (sb_add_line()). */
void in_id_str(const struct intern *in, uint32_t id, struct sbuf *out);
void in_id_text(const struct intern *in, uint32_t id, struct sbuf *out);
uint32_t in_nids(const struct intern *in);
/* Id bid of table b, interned into a (in b's order: what one pass over
 * the lines of both would have given); 0 when out of memory. */
uint32_t in_id_into(struct intern *a, const struct intern *b, uint32_t bid);

/* The atom of a raw JSON string (escapes decoded), or of n bytes, added
 * when new; 0 when out of memory or atoms are exhausted. */
uint16_t in_atom(struct intern *in, const struct js_str *raw);
uint16_t in_atom_n(struct intern *in, const char *s, size_t n);
/* The string of an atom (borrowed, valid until in_free()); "" for 0. */
const char *in_atom_str(const struct intern *in, uint16_t atom);
/* The atom of s, or 0 if never seen. */
uint16_t in_atom_find(const struct intern *in, const char *s);
uint32_t in_natoms(const struct intern *in);

/* Memory the table uses, for the benchmark (arrays by their used part). */
size_t in_mem(const struct intern *in);

#endif
