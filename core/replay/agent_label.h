/*
 * agent_label: a subagent's folder name that says what it did.
 *
 * An agent's folder is named after the call that ran it: the Task (Agent)
 * call's description, else its subagent_type, else the description or
 * agentType its meta.json gives (2.1.x writes one beside the agent's log),
 * else what its own log's first prompt says (a caller that has it read
 * sets desc, then calls al_name()),
 * made a slug (names.h nm_slug()), then '-' and a short form of the
 * agent's id: "find-todo-persistence-a56002e4". The short form is the
 * id's first 8 characters past a prefix every id shares ("agent-",
 * "toolu_", "sidechain-"), made safe. An agent nothing describes keeps
 * the name agents.h ag_name() gives its id.
 *
 * The call is found in the session's log: by the toolUseId meta.json
 * names, by the id when it is a call's (1.0.x names its inline
 * conversations by their call), or by the result that names the agent
 * (toolUseResult.agentId).
 *
 * Pure functions over the log; thread-safe as the graph is (graph.h).
 */
#ifndef SESSFS_AGENT_LABEL_H
#define SESSFS_AGENT_LABEL_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "logf.h"
#include "names.h"

#define AL_SHORT 8		/* characters of the id in the name */
#define AL_META_MAX (1u << 20)	/* bytes of meta.json read */
#define AL_DESC_MAX 200		/* bytes of a description kept */

struct al_label {
	char name[NM_MAX + 1];	/* the folder name */
	uint32_t call;		/* the node of the call that ran it in g, 0 */
	char desc[AL_DESC_MAX + 1];	/* what described it ("" when nothing) */
	char type[AL_DESC_MAX + 1];	/* its subagent_type / agentType, or "" */
};

/*
 * The label of agent id (n bytes) in the session whose graph is g (its
 * log lf): meta is the path of its meta.json, or NULL. Never fails: an
 * agent nothing is known of gets ag_name()'s name and call 0.
 */
void al_label(const struct graph *g, const struct logf *lf, const char *id, size_t n,
	      const char *meta, struct al_label *out);

/* out->name from out->desc (else out->type) and the id (n bytes). */
void al_name(const char *id, size_t n, struct al_label *out);

/* The label of the agent that the call answered by result node result
 * of g ran (id: the agent id it names, n bytes), without a meta.json. */
void al_label_of_result(const struct graph *g, const struct logf *lf, uint32_t result,
			const char *id, size_t n, struct al_label *out);

#endif
