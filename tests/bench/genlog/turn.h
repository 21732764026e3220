/*
 * turn: one turn of the conversation: a prompt and everything it causes.
 *
 * run_turn() waits a while, makes a prompt and writes its queue records
 * and row; a new Claude Code process (a resume, every PROCESS_MIN to
 * PROCESS_MIN + PROCESS_SPAN - 1 prompts) first attaches its context and
 * sends its request shape, else the prompt gets a file-history snapshot.
 * Then 0 to 8 tool steps (one response calling one tool or two in
 * parallel, and the results), a final answer, a checkpoint and the cost.
 * With forks on, when one is due (every 30 to 100% of a segment), the
 * prompt rewinds to the end of an earlier turn of the segment instead,
 * which leaves a branch.
 *
 * Thread-safety: none.
 */
#ifndef GENLOG_TURN_H
#define GENLOG_TURN_H

#include "gen.h"

void run_turn(struct gen *g);

#endif
