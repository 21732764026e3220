/* compact: boundary, summary and re-attached context; see compact.h. */
#include <stdio.h>

#include "chain.h"
#include "compact.h"
#include "emit.h"
#include "meta.h"
#include "rnd.h"
#include "text.h"

/* ---------------------------------------------------------- compaction */

static void make_summary(struct gen *g, struct buf *b, bool preserved)
{
	static const char *const heads[] = {
		"1. Primary Request and Intent:\n   ", "\n\n2. Key Technical Concepts:\n   - ",
		"\n\n3. Files and Code Sections:\n   - ", "\n\n4. Errors and fixes:\n   - ",
		"\n\n5. Pending Tasks:\n   - ", "\n\n6. Current Work:\n   ",
	};

	buf_lit(b, "This session is being continued from a previous conversation that ran "
		"out of context. The summary below covers the earlier portion of the "
		"conversation.\n\n<system-reminder>\n<tools-used-before-summary>Bash, Edit, "
		"Glob, Grep, Read, Write</tools-used-before-summary>\n</system-reminder>\n"
		"Summary:\n");
	for (size_t i = 0; i < ARRAY_LEN(heads); i++) {
		buf_str(b, heads[i]);
		text_prose(g, b, rnd_size(g, 150, 4));
	}
	bemit(g, b, "\n\nIf you need specific details from before compaction (like exact code "
	      "snippets, error messages, or content you generated), read the full transcript "
	      "at: /home/user/.claude/projects/-home-user-src-todo-app/%s.jsonl\nContinue the "
	      "conversation from where it left off without asking the user any further "
	      "questions. Resume directly — do not acknowledge the summary, do not recap what "
	      "was happening, do not preface with \"I'll continue\" or similar.%s", g->sid,
	      preserved ? "\n\nThe messages after this summary are the most recent messages "
	      "from before compaction, kept verbatim." : "");
}

/* The new root; a partial compaction keeps the last reply (g->parent) verbatim. */
static void rec_boundary(struct gen *g, const char *uuid, const char *anchor,
			 bool manual, bool preserved)
{
	unsigned pre = manual ? rnd_range(g, 20000, 150000) : rnd_range(g, 160000, 190000);
	unsigned ms = rnd_range(g, 20000, 90000), post = rnd_range(g, 2000, 12000);
	uint64_t r = rec_begin(g);

	g->tmp.len = 0;
	if (preserved)
		bemit(g, &g->tmp, ",\"preservedSegment\":{\"headUuid\":%q,\"anchorUuid\":%q,"
		      "\"tailUuid\":%q},\"preservedMessages\":{\"anchorUuid\":%q,\"uuids\":[%q],"
		      "\"allUuids\":[%q]}", g->parent, anchor, g->parent, anchor, g->parent,
		      g->parent);
	emit(g, "{\"parentUuid\":null,\"logicalParentUuid\":%q,\"isSidechain\":false,"
	     "\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation "
	     "compacted\",\"isMeta\":false,\"timestamp\":%t,\"uuid\":%q,\"level\":\"info\","
	     "\"compactMetadata\":{\"trigger\":%q,\"preTokens\":%u,"
	     "\"preCompactOrganizationsCoverStart\":false,\"durationMs\":%u%b,\"postTokens\":%u,"
	     "\"cumulativeDroppedTokens\":0},%T", g->parent, uuid, manual ? "manual" : "auto",
	     pre, ms, &g->tmp, post);
	rec_end(g, K_SYSTEM, r);
	set_parent(g, uuid);
}

static void rec_compact_summary(struct gen *g, const char *uuid, bool preserved)
{
	uint64_t r = rec_begin(g);

	g->raw.len = 0;
	make_summary(g, &g->raw, preserved);
	emit(g, HEAD "\"promptId\":%q,\"type\":\"user\",\"message\":{\"role\":\"user\","
	     "\"content\":%E},\"isVisibleInTranscriptOnly\":true,\"isCompactSummary\":true,"
	     "\"uuid\":%q,\"timestamp\":%t,\"turnPosition\":{\"promptIndex\":0,"
	     "\"turnIndex\":%u},%T", g->parent, g->prompt_id, &g->raw, uuid,
	     g->turn_in_process);
	rec_end(g, K_USER, r);
	set_parent(g, uuid);
}

/* The caveat, command and output rows of a typed /compact. */
static void local_command_rows(struct gen *g, const char *args)
{
	g->raw.len = 0;
	buf_lit(&g->raw, "<local-command-caveat>The command below was run directly in Claude "
		"Code, not sent to you as a request, and its output goes straight to the user. "
		"It's recorded here as context for later messages.</local-command-caveat>");
	rec_user_text(g, &g->raw, "\"isMeta\":true,");
	g->raw.len = 0;
	bemit(g, &g->raw, "<command-name>/compact</command-name>\n            <command-message>"
	      "compact</command-message>\n            <command-args>%s</command-args>", args);
	rec_user_text(g, &g->raw, "");
	g->raw.len = 0;
	buf_lit(&g->raw, "<local-command-stdout>Compacted (ctrl+o to see full summary)"
		"</local-command-stdout>");
	rec_user_text(g, &g->raw, "");
}

void compact(struct gen *g)
{
	static const char *const args[] = { "", "keep only the testing details",
					    "focus on the parser work" };
	bool manual = rnd_chance(g, 60), preserved = manual && rnd_chance(g, 70);
	const char *arg = PICK(g, args);
	char boundary[UUID_LEN + 1], summary[UUID_LEN + 1], command[PROMPT_LEN];

	if (manual) {
		snprintf(command, sizeof(command), "/compact%s%s", *arg ? " " : "", arg);
		rec_queue(g, command);
		rec_queue(g, NULL);
		rec_latch(g, K_MODE);
		rec_latch(g, K_ATIS);
	}
	if (!g->slug[0]) {
		const char *a = text_ident(g), *b = text_ident(g);

		snprintf(g->slug, sizeof(g->slug), "%s-%s-coral", a, b);
		for (char *p = g->slug; *p; p++)
			*p = *p == '_' ? '-' : *p;
		build_tail(g);
	}
	rnd_uuid(g, boundary);
	rnd_uuid(g, summary);
	rnd_uuid(g, g->prompt_id);
	wait_ms(g, 20000, 90000);
	rec_boundary(g, boundary, summary, manual, preserved);
	rec_compact_summary(g, summary, preserved);
	if (manual)
		local_command_rows(g, arg);
	for (unsigned i = rnd_range(g, 1, ARRAY_LEN(g->recent_reads)); i > 0; i--)
		rec_att_file(g, &g->pool[g->recent_reads[i - 1]]);
	rec_att(g, A_DEFERRED);
	rec_att(g, A_AGENTS);
	rec_att(g, A_SKILLS);
	rec_att(g, A_ENV);
	rec_att(g, A_MODEL);
	rec_last_prompt(g, g->prompt, g->parent, false);
	rec_cost(g);
	rec_tools_used(g);
	g->n_ends = 0;
	g->ctx_msgs = 4;
	g->next_compact = written(g) + g->segment * rnd_range(g, 75, 125) / 100;
	g->st.compactions++;
}
