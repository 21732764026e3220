/*
 * pool: the project's files: POOL_FILES synthetic sources in six languages.
 *
 * pool_init() names every file of g->pool, then fills them (contents may
 * name other files), once per run; the tools read, edit, list, grep and cat
 * them. A struct pool_file (gen.h) holds its text raw, JSON-escaped and in
 * the numbered form the Read tool returns, and the start of each line; the
 * run's struct gen owns them (gen_free()).
 *
 * Thread-safety: none; the calls that make text draw from the generator.
 */
#ifndef GENLOG_POOL_H
#define GENLOG_POOL_H

#include "gen.h"

/* Name, then fill, every file of g->pool. */
void pool_init(struct gen *g);

/* Line i of f (0-based, without its '\n'): *s borrowed from f->raw, *n bytes. */
void pool_line(const struct pool_file *f, unsigned i, const char **s, size_t *n);

/* Append one random line of code in lang, indented, with its '\n'. */
void pool_code_line(struct gen *g, struct buf *b, enum lang lang);

#endif
