/*
 * text: the words of the log: sentence banks, prose, todo-list JSON.
 *
 * Templates hold placeholders that text_expand() fills from the generator:
 * @I an identifier, @C the same in CamelCase, @K in CONST_CASE, @N a number
 * of 1 to 999, @F a path of the project's pool (pool.h), @S a short task
 * phrase. The banks are static: what the picks return is borrowed for the
 * life of the program.
 *
 * Thread-safety: none; every call draws from the run's generator.
 */
#ifndef GENLOG_TEXT_H
#define GENLOG_TEXT_H

#include "gen.h"

/* A random identifier ("parent_uuid") / short task phrase. */
const char *text_ident(struct gen *g);
const char *text_short(struct gen *g);
/* The i-th policy line of the system prompt, cycling through them. */
const char *text_policy(unsigned i);

/* Append tpl to b with its placeholders filled. */
void text_expand(struct gen *g, struct buf *b, const char *tpl);
/* Append a user's prompt: one of the prompt templates, expanded. */
void text_prompt(struct gen *g, struct buf *b);
/* Append markdown-ish prose of about size bytes: the assistant's answers /
 * its thinking. */
void text_prose(struct gen *g, struct buf *b, size_t size);
void text_thoughts(struct gen *g, struct buf *b, size_t size);

/* Append one item of a todo list in JSON: pretty as in a data file, or compact. */
void text_json_item(struct gen *g, struct buf *b, unsigned id, bool pretty);
/* Append a todo list of at least size bytes: a data file (pretty) or an
 * API's answer (one line). */
void text_json_doc(struct gen *g, struct buf *b, size_t size, bool pretty);

#endif
