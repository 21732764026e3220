/*
 * preamble: what Claude Code sends before the conversation, built once.
 *
 * preamble_build() fills, in the run's struct gen, the body and rendered
 * text of each attachment (g->att_body, g->att_text: environment, model,
 * deferred tools, agents, skills, auto mode, git status, attribution), the
 * system prompt's sections (g->sys_parts, g->sys_joined, g->sys_blob) and
 * the tool list (g->tools_json). chain.c and meta.c copy them into rows;
 * they never change after. struct gen owns them (gen_free()).
 *
 * Thread-safety: none; called once from gen_init().
 */
#ifndef GENLOG_PREAMBLE_H
#define GENLOG_PREAMBLE_H

#include "gen.h"

void preamble_build(struct gen *g);

#endif
