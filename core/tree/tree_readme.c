/*
 * tree_readme: a view's README.md (what the mount is, with the log's
 * facts). Part of the tree module; see tree_priv.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "loghead.h"
#include "summary.h"
#include "tree_priv.h"
#include "usagedir.h"

/* "- session title: T": the title a projects folder lists the session by
 * (loghead.h), from the whole log, and where it comes from. */
static void session_title(const struct view *v, struct sbuf *out)
{
	static const char *const from[] = { "", "the first prompt", "generated", "custom-title" };
	enum lh_title_kind kind = LH_T_NONE;
	char *t = NULL;

	lh_index_title(ss_idx(v->s), ss_logf(v->s), &t, &kind);
	if (t) {
		sb_adds(out, "- session title: ");
		sb_add_lines(out, t);
		sb_addf(out, " (%s)\n", from[kind]);
	}
	free(t);
}

/* "- resume it: cd <cwd> && claude --resume <id>" (loghead.h). */
static void resume_line(const struct view *v, struct sbuf *out)
{
	char *sid, *cwd;
	struct sbuf cmd;

	sb_init(&cmd);
	ss_env(v->s, &sid, &cwd);
	lh_resume_command(ss_source(v->s), cwd, sid, &cmd);
	if (cmd.len) {
		sb_adds(out, "- resume it in Claude Code: `");
		sb_add_line(out, cmd.buf, cmd.len);
		sb_adds(out, "`\n");
	}
	sb_free(&cmd);
	free(sid);
	free(cwd);
}

/* "  - agents/<name>: what it did, run by <call's file>". */
static void agent_line(struct tree *t, struct view *a, struct sbuf *out)
{
	struct view *in = a->call_view < t->nviews ? t->views[a->call_view] : NULL;
	char path[NM_MAX + 1];

	sb_addf(out, "  - agents/%s", a->name);
	if (a->desc && *a->desc) {
		sb_adds(out, ": ");
		sb_add_line(out, a->desc, strlen(a->desc));
	}
	if (a->call && in && gr_is_node(ss_graph(in->s), a->call) &&
	    !vw_home_path(t, in, a->call, path)) {
		sb_adds(out, ", run by ");
		if (in->no)
			sb_addf(out, "agents/%s/", in->name);
		sb_adds(out, path);
	}
	sb_addc(out, '\n');
}

void tr_readme(struct tree *t, struct view *v, struct sbuf *out)
{
	struct session *s = v->s;
	const struct ctx *x = ss_context(s);
	const struct br_set *bs = ss_branches(s);
	const struct rs_chain *c = ss_chain(s);
	int cur = ss_current_branch(s);
	struct sbuf notes;
	uint32_t i;

	if (v->no) {
		sb_adds(out, "# A subagent's log, mounted by sessfs\n\nAgent: id \"");
		ag_quote(v->aid, v->aidlen, out);
		sb_addf(out, "\", a subagent the session ran, shown as agents/%s%s\n", v->name,
			v->meta ? " (see meta.json)" : "");
		if (v->root)
			sb_addf(out, "\nIts rows are written inline in the session's own log (isSidechain),\n"
				     "the conversation that hangs from the row %s.\n", v->root);
	} else
		sb_adds(out, "# A Claude Code session, mounted by sessfs\n\n");
	sb_addf(out, "Log: %s\n\n", ss_source(s));
	sb_adds(out, "This folder is a read-only view of the log. Nothing here changes it.\n\n"
		     "- `branches/`: one folder per path a rewind left; `current` is the one a\n"
		     "  resume continues. Each message is a file `<seq>-<kind>.md`, numbered by\n"
		     "  its place on the path. A message several branches share has its file\n"
		     "  in the first of them (main, then the oldest fork) and a link of the\n"
		     "  same name in the others, so `diff -r branches/A branches/B` shows where\n"
		     "  they part, and `grep -r` (which follows no link) meets it once.\n"
		     "- `harness/`: the text Claude Code writes by itself (the environment,\n"
		     "  model and date, tool, skill and agent listings, git status, prompt\n"
		     "  snapshots, mode and remote-session changes, its own notes), one file\n"
		     "  per row named `<line>-<kind>.md`; the branches and context/ link to\n"
		     "  these in their place, so a grep over a branch reads the conversation.\n"
		     "- `context/`: what the model receives when the current branch is resumed:\n"
		     "  the rows it gets, numbered from the window's start (links to their\n"
		     "  files; a row the resume adds is a file), `messages.json` (the API\n"
		     "  messages array) and `window.md` (where the window starts, what was\n"
		     "  left out or repaired, and why).\n");
	if (v->no)
		sb_adds(out, "- `meta.json`: the agent's own sidecar file, as Claude Code wrote it\n"
			     "  (absent when there is none).\n");
	else
		sb_adds(out, "- `state/`: the work state a resume restores: worktree.json,\n"
			     "  agent.json, cost.json, read-cache/ (the files the model read, as it\n"
			     "  read them) and file-history/ (the backed-up versions of its snapshots).\n"
			     "- `agents/<name>/`: each subagent's own log, laid out like this folder\n"
			     "  (no `state/`), plus its `meta.json`.\n");
	sb_adds(out, "- `usage.json`: token usage and its cost in dollars (the session, each\n"
		     "  branch, the context), each API response counted once and priced as\n"
		     "  ccusage prices it offline; `transcripts/<branch>.md`: each branch as\n"
		     "  one readable Markdown file, from where it leaves the branch before it\n"
		     "  (a link at its top leads there; `current.md` links the current one).\n");
	sb_adds(out, "- `records/<uuid>.json`: each message record's exact line.\n"
		     "- `session.json`: the facts below, as JSON; `errors.txt`: the lines that\n"
		     "  could not be used, and why.\n\n"
		     "Message files carry extended attributes `user.sessfs.uuid`, `.parent`,\n"
		     "`.timestamp` and `.line` (getfattr -d FILE). A response's file has a\n"
		     "header line `usage:` (its tokens, model and price) and the attributes\n"
		     "`user.sessfs.usage` and `.usage.cost_usd`. The result of an Agent\n"
		     "or Task call also has `user.sessfs.agent` and a header line\n"
		     "`agent: agents/<name>`: the folder of the agent it ran.\n\n");
	sb_adds(out, "## This session\n\n");
	session_title(v, out);
	if (!v->no)
		resume_line(v, out);
	sb_adds(out, "- ");
	ud_tokens_line(t, v, out);
	sb_adds(out, v->no || t->nviews < 2 ? " (usage.json)\n"
					   : ", its subagents' included (usage.json)\n");
	sm_branches_text(ss_summaries(s), bs, cur, out);
	sb_addf(out, "- messages on the current branch: %u\n",
		cur >= 0 && vw_branch_path(t, v, cur) ? vw_branch_path(t, v, cur)->n : 0);
	sb_addf(out, "- resumed chain: %u records, starting %s\n", c->n,
		c->window ? "at the last compaction" : "at the first record");
	if (x)
		sb_addf(out, "- the model gets %u messages (about %llu tokens; see context/window.md)\n",
			ctx_nmessages(x), (unsigned long long)ctx_tokens(x));
	sb_addf(out, "- unusable lines: %u (see errors.txt)\n", ss_bad_lines(s));
	if (!v->no) {
		sb_addf(out, "- subagents: %u\n", t->nviews - 1);
		for (i = 1; i < t->nviews; i++)
			agent_line(t, t->views[i], out);
	}
	sb_init(&notes);
	ss_notes_text(s, &notes);
	if (notes.len) {
		sb_adds(out, "\n## What happened to the log while mounted (also in errors.txt)\n\n");
		sb_add(out, notes.buf, notes.len);
	}
	sb_free(&notes);
}

/* A message file; an Agent/Task result names the agent's folder. */
