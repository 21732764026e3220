/*
 * tools: the model's tool calls, their tool_use rows, what the shell prints.
 *
 * A call is planned (plan_call(): which file, command, pattern or edit),
 * then written as an assistant row (rec_tool_use()), then answered by a
 * tool_result row (results.h). An Edit or Write is preceded in the log by
 * the file-history delta of its file. A struct call (gen.h) lives in
 * g->calls and owns its replacement text (c->repl).
 *
 * Thread-safety: none; planning and output draw from the generator.
 */
#ifndef GENLOG_TOOLS_H
#define GENLOG_TOOLS_H

#include "gen.h"

/* How often each tool is picked. */
extern const unsigned TOOL_WEIGHT[T_COUNT];

/* Plan a call of tool t into c. */
void plan_call(struct gen *g, struct call *c, enum tool t);
/* The text an Edit replaces, whole lines c->first .. c->first + c->count - 1:
 * *s borrowed from the pool file, *n bytes. */
void edit_old(const struct gen *g, const struct call *c, const char **s, size_t *n);
/* The assistant row of call c, part of response rs (and its file-history
 * delta for an Edit or Write); sets c->row. */
void rec_tool_use(struct gen *g, struct response *rs, struct call *c);

/* What Bash call c prints, into g->raw; returns true when it failed. */
bool bash_output(struct gen *g, const struct call *c);

#endif
