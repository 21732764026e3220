/*
 * harness: the rows Claude Code writes on its own, beside the
 * conversation.
 *
 * A session's log holds the conversation (prompts, replies, tool calls
 * and their results, compaction summaries, local commands' output, the
 * output of hooks the user configured, prompts queued while a tool ran)
 * and text the harness injects by itself: the environment, the model and
 * the date, listings of tools, skills and agents, the session's git
 * context, snapshots of the prompt, remote-session and mode changes, its
 * own notes and caveats, turn timings. The tree keeps the latter in a
 * folder of their own (harness/), linked from their place in each branch
 * and window, so that a grep over a branch reads the conversation.
 *
 * A row is harness when it is:
 *   - an attachment of a type listed here (HN_ATTACHMENTS: every type the
 *     corpus shows Claude Code writing by itself, and the types its code
 *     names that it writes by itself: the memory files of the folders a
 *     tool read, notes on files read before, edited outside or read again
 *     after a compaction, the skills invoked, reminders, a fork's briefing,
 *     the IDE's diagnostics, open file and selection, the UI's own notes);
 *   - a system row other than a compaction boundary, a local command's
 *     output (the user's command) and a stop hook's summary (the user's
 *     hook);
 *   - a user row Claude Code marks isMeta (a caveat before local
 *     commands, an image's path note, its "no visible output" nudge), but
 *     for a hook's feedback (hookText), or marks as its own with
 *     rowSource "harness" (2.1.332; the index takes either for isMeta).
 * Anything else (an attachment of a type not listed: a file the user
 * named, a hook's output, a queued prompt) is conversation.
 *
 * Pure; thread-safe.
 */
#ifndef SESSFS_HARNESS_H
#define SESSFS_HARNESS_H

#include "idx.h"

#define HN_ATTACHMENTS {                                                         \
	"environment", "model", "date", "session_context", "remote_session_change", \
	"prompt_snapshot", "deferred_tools_delta", "agent_listing_delta",          \
	"skill_listing", "auto_mode", "plan_mode", "plan_mode_exit",               \
	"plan_mode_reentry", "todo_reminder", "critical_system_reminder",          \
	"mcp_instructions_delta", "output_style", "token_usage", "budget_usd",     \
	"compaction_reminder", "companion_intro", "context_tip",                   \
	"nested_memory", "already_read_file", "edited_text_file",                  \
	"compact_file_reference", "invoked_skills", "task_reminder",               \
	"plugin_note", "fork_briefing", "read_truncation_notice", "diagnostics",   \
	"opened_file_in_ide", "selected_lines_in_ide", "echo_activities",          \
	"pen_mode_enter", "pen_mode_exit", "verify_plan_reminder", "fold_nudge",   \
}

/* Whether record r of ix is text the harness wrote by itself. */
int hn_is_harness(const struct idx *ix, const struct idx_rec *r);

#endif
