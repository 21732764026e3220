/*
 * results: the tool_result rows that answer the model's tool calls.
 *
 * rec_result() advances the clock by the tool's run time and writes the
 * user row holding call c's result: its content as the model sees it, then
 * the toolUseResult value Claude Code keeps (stdout, the file read, the
 * structured patch of an Edit, the files a search found). Its parent is
 * c's tool_use row; it becomes g->parent. A Bash failure or a Read of a
 * missing file is an is_error result.
 *
 * Thread-safety: none; the outputs draw from the generator.
 */
#ifndef GENLOG_RESULTS_H
#define GENLOG_RESULTS_H

#include "gen.h"

void rec_result(struct gen *g, const struct call *c);

#endif
