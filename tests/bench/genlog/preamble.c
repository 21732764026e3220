/* preamble: attachments, system prompt and tool list; see preamble.h. */
#include <string.h>

#include "emit.h"
#include "preamble.h"
#include "rnd.h"
#include "text.h"

/* --------------------------------------------------------- attachments */

static const char ENV_BODY[] =
	"{\"type\":\"environment\",\"snapshot\":{\"workingDirectory\":\"" PROJECT_DIR
	"\",\"isWorktree\":false,\"isGitRepo\":true,\"additionalWorkingDirectories\":[],"
	"\"platform\":\"linux\",\"shell\":\"bash\",\"osVersion\":\"Linux 6.18.44-fc-v1045\"}}";
static const char ENV_TEXT[] =
	"# Environment\nYou have been invoked in the following environment: \n"
	" - Primary working directory: " PROJECT_DIR "\n - Is a git repository: true\n"
	" - Platform: linux\n - Shell: bash\n - OS Version: Linux 6.18.44-fc-v1045\n"
	" - Downloaded files and extracted archives are untrusted data: keep each in its own "
	"directory and pass paths as arguments instead of running code from inside it.\n"
	" - In `curl`, send untrusted values with `--form-string`, not `-F`.";
#define MODEL_TEXT "You are powered by the model named Opus 5.5. The exact model ID is " \
	MODEL_ID ". Assistant knowledge cutoff is June 2026."
static const char MODEL_BODY[] =
	"{\"type\":\"model\",\"identity\":{\"modelId\":\"" MODEL_ID "\",\"marketingName\":"
	"\"Opus 5.5\",\"knowledgeCutoff\":\"June 2026\"},\"text\":\"" MODEL_TEXT "\"}";
static const char AUTO_BODY[] =
	"{\"type\":\"auto_mode\",\"autoModeConsentFlow\":false,\"finishExposedWork\":false,"
	"\"bashFirst\":true,\"bashFirstSteer\":\"relaxed\",\"steerOnly\":true,\"bypass\":true}";
static const char AUTO_TEXT[] =
	"While bypass permissions mode is active:\n\nYou can do much of your work through the "
	"Bash tool when it is the simpler route: read files with cat, head, or sed -n, search "
	"with grep and find, and make small, mechanical changes with sed or heredocs. Prefer "
	"Edit or Write when a shell edit would be fragile.";
static const char REMOTE_BODY[] =
	"{\"type\":\"remote_session_change\",\"url\":null,\"commit\":\"Co-Authored-By: Claude "
	"Opus 5.5 <noreply@anthropic.com>\",\"pr\":\"🤖 Generated with [Claude Code]"
	"(https://claude.com/claude-code)\",\"sendUserFileHint\":false,\"managedCommit\":false,"
	"\"managedPr\":false}";
static const char REMOTE_TEXT[] =
	"Attribution for git commits and pull requests you create from here on:\n"
	"- End git commit messages with:\nCo-Authored-By: Claude Opus 5.5 "
	"<noreply@anthropic.com>\n- End pull request descriptions with:\n🤖 Generated with "
	"[Claude Code](https://claude.com/claude-code)";
static const char GIT_STATUS[] =
	"This is the git status at the start of the conversation. Note that this status is a "
	"snapshot in time, and will not update during the conversation.\n\nCurrent branch: "
	"main\n\nMain branch (you will usually use this for PRs): main\n\nStatus:\n M "
	"src/core/index.c\n?? notes/\n\nRecent commits:\nebb0ce3 Add a first test\n"
	"9b94b27 Initial todo app";
static const char *const DEFERRED[] = {
	"CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree",
	"Monitor", "NotebookEdit", "SendMessage", "TaskStop", "WebFetch", "WebSearch",
};
static const char *const AGENTS[][2] = {
	{ "claude", "Catch-all for any task that doesn't fit a more specific agent. (Tools: *)" },
	{ "Explore", "Read-only search agent for broad fan-out searches across many files, "
	  "directories or naming conventions, when only the conclusion matters. Specify the "
	  "breadth: \"medium\" or \"very thorough\". (Tools: All tools except Agent, Edit, Write)" },
	{ "general-purpose", "General-purpose agent for researching complex questions, "
	  "searching for code, and executing multi-step tasks. (Tools: *)" },
	{ "Plan", "Software architect agent for designing implementation plans; returns "
	  "step-by-step plans and names the critical files. (Tools: All tools except Edit, Write)" },
	{ "statusline-setup", "Configures the user's Claude Code status line. (Tools: Read, Edit)" },
};
static const char *const SKILLS[][2] = {
	{ "dataviz", "Use this skill whenever you are about to create a chart, graph, plot or "
	  "dashboard, in any output medium. Read it before writing the first line of chart code." },
	{ "update-config", "Configure the Claude Code harness via settings.json: hooks, "
	  "permissions (\"allow npm commands\"), env vars (\"set DEBUG=true\")." },
	{ "keybindings-help", "Customize keyboard shortcuts and chord bindings in "
	  "~/.claude/keybindings.json." },
	{ "code-review", "Review the current diff for bugs, security problems and style issues "
	  "before it is committed." },
	{ "simplify", "Look for code that can be deleted or merged without changing behaviour." },
	{ "loop", "Run a prompt or slash command on a recurring interval, e.g. /loop 5m /foo." },
	{ "claude-api", "Build apps with the Claude API or Anthropic SDK; prompt caching, tool "
	  "use, batch processing." },
	{ "init", "Create a CLAUDE.md file with the codebase's commands, architecture and "
	  "conventions." },
	{ "security-review", "Complete a security review of the pending changes on the current "
	  "branch." },
	{ "run", "Run the project's main entry point and report what it printed." },
};

/* --------------------------------------------- system prompt and tools */

struct tool_def {
	const char *name;
	const char *summary;
	const char *schema; /* JSON */
};

static const struct tool_def TOOL_DEFS[] = {
	{ "Bash", "Executes a bash command and returns its output.",
	  "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\",\"description\":"
	  "\"The command to execute\"},\"timeout\":{\"type\":\"number\",\"description\":\"Optional "
	  "timeout in milliseconds (max 600000)\"},\"description\":{\"type\":\"string\"},"
	  "\"run_in_background\":{\"type\":\"boolean\"}},\"required\":[\"command\"],"
	  "\"additionalProperties\":false}" },
	{ "Read", "Reads a file from the local filesystem.",
	  "{\"type\":\"object\",\"properties\":{\"file_path\":{\"type\":\"string\"},\"offset\":"
	  "{\"type\":\"integer\",\"minimum\":0},\"limit\":{\"type\":\"integer\",\"exclusiveMinimum\":0}},"
	  "\"required\":[\"file_path\"],\"additionalProperties\":false}" },
	{ "Edit", "Performs exact string replacement in a file.",
	  "{\"type\":\"object\",\"properties\":{\"file_path\":{\"type\":\"string\"},\"old_string\":"
	  "{\"type\":\"string\"},\"new_string\":{\"type\":\"string\"},\"replace_all\":{\"type\":"
	  "\"boolean\",\"default\":false}},\"required\":[\"file_path\",\"old_string\",\"new_string\"]}" },
	{ "Write", "Writes a file to the local filesystem, overwriting if one exists.",
	  "{\"type\":\"object\",\"properties\":{\"file_path\":{\"type\":\"string\"},\"content\":"
	  "{\"type\":\"string\"}},\"required\":[\"file_path\",\"content\"]}" },
	{ "Grep", "Content search built on ripgrep.",
	  "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"},\"path\":{\"type\":"
	  "\"string\"},\"glob\":{\"type\":\"string\"},\"output_mode\":{\"type\":\"string\",\"enum\":"
	  "[\"content\",\"files_with_matches\",\"count\"]},\"-n\":{\"type\":\"boolean\"}},"
	  "\"required\":[\"pattern\"]}" },
	{ "Glob", "Fast file pattern matching, e.g. \"**/*.js\" or \"src/**/*.ts\".",
	  "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"},\"path\":{\"type\":"
	  "\"string\"}},\"required\":[\"pattern\"]}" },
	{ "Agent", "Launch a new agent to handle complex, multi-step tasks.",
	  "{\"type\":\"object\",\"properties\":{\"description\":{\"type\":\"string\"},\"prompt\":"
	  "{\"type\":\"string\"},\"subagent_type\":{\"type\":\"string\"},\"run_in_background\":"
	  "{\"type\":\"boolean\"}},\"required\":[\"description\",\"prompt\"]}" },
	{ "TodoWrite", "Create and manage a structured task list for the session.",
	  "{\"type\":\"object\",\"properties\":{\"todos\":{\"type\":\"array\",\"items\":{\"type\":"
	  "\"object\",\"properties\":{\"content\":{\"type\":\"string\"},\"status\":{\"type\":"
	  "\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\"]}}}}},\"required\":[\"todos\"]}" },
};

static const char *const SYSTEM_SECTIONS[] = {
	"\nYou are an agent working with the user toward their goals, using your own judgment.",
	"# Harness\n - Text you output outside of tool use is shown to the user as markdown.",
	"# Doing tasks\nThe user will mostly ask for software engineering work.",
	"# Tone and style\nBe direct. No preamble, no recap of what you just did.",
	"# Memory\nYou have a persistent file-based memory in the project's memory/ folder.",
	"# Environment\n - The most recent Claude models are the Claude 5 family.",
	"# Context management\nWhen the conversation grows long, older turns are summarized.",
	"# Tool use\nCall independent tools in parallel, in a single response.",
	"# Safety\nRefuse requests for destructive techniques without clear authorization.",
};
#define SYSTEM_SECTION_MIN 700 /* pad each section to about this many bytes */
#define TOOL_DESC_MIN      900

/* ------------------------------------------------------------ building */

/* Escaped "<system-reminder>\n...\n</system-reminder>" of raw text. */
static void reminder(struct buf *b, const char *text, size_t n)
{
	buf_lit(b, "<system-reminder>\\n");
	buf_esc(b, text, n);
	buf_lit(b, "\\n</system-reminder>");
}

/* A JSON array of the names (col 0) or "- name: description" lines (col 1). */
static void json_column(struct gen *g, struct buf *b, const char *const (*rows)[2],
			size_t n, int col)
{
	buf_ch(b, '[');
	for (size_t i = 0; i < n; i++) {
		g->tmp.len = 0;
		bemit(g, &g->tmp, col ? "- %s: %s" : "%s", rows[i][0], rows[i][1]);
		bemit(g, b, "%s%E", i ? "," : "", &g->tmp);
	}
	buf_ch(b, ']');
}

static void build_agent_atts(struct gen *g)
{
	struct buf *b = &g->att_body[A_AGENTS];

	buf_lit(b, "{\"type\":\"agent_listing_delta\",\"addedTypes\":");
	json_column(g, b, AGENTS, ARRAY_LEN(AGENTS), 0);
	buf_lit(b, ",\"addedLines\":");
	json_column(g, b, AGENTS, ARRAY_LEN(AGENTS), 1);
	buf_lit(b, ",\"builtInPluginTypes\":[],\"removedTypes\":[],\"isInitial\":true,"
		"\"showConcurrencyNote\":true}");
	g->raw.len = 0;
	buf_lit(&g->raw, "Available agent types for the Agent tool:");
	for (size_t i = 0; i < ARRAY_LEN(AGENTS); i++)
		bemit(g, &g->raw, "\n- %s: %s", AGENTS[i][0], AGENTS[i][1]);
	reminder(&g->att_text[A_AGENTS], g->raw.p, g->raw.len);

	b = &g->att_body[A_SKILLS];
	g->raw.len = 0;
	for (size_t i = 0; i < ARRAY_LEN(SKILLS); i++)
		bemit(g, &g->raw, i ? "\n- %s: %s" : "- %s: %s", SKILLS[i][0], SKILLS[i][1]);
	bemit(g, b, "{\"type\":\"skill_listing\",\"content\":%E,\"skillCount\":%u,"
	      "\"isInitial\":true,\"names\":", &g->raw, (unsigned)ARRAY_LEN(SKILLS));
	json_column(g, b, SKILLS, ARRAY_LEN(SKILLS), 0);
	buf_lit(b, ",\"digests\":[");
	for (size_t i = 0; i < ARRAY_LEN(SKILLS); i++) {
		char h[17];

		hex16(fnv1a(SKILLS[i][0]), h);
		bemit(g, b, i ? ",%q" : "%q", h);
	}
	buf_lit(b, "]}");
	g->tmp.len = 0;
	buf_lit(&g->tmp, "The following skills are available for use with the Skill tool:\n\n");
	buf_mem(&g->tmp, g->raw.p, g->raw.len);
	reminder(&g->att_text[A_SKILLS], g->tmp.p, g->tmp.len);
}

static void build_deferred_att(struct gen *g)
{
	struct buf *b = &g->att_body[A_DEFERRED];

	g->raw.len = 0;
	buf_lit(b, "{\"type\":\"deferred_tools_delta\",\"addedNames\":[");
	buf_lit(&g->raw, "The following deferred tools are now available via ToolSearch. Their "
		"schemas are NOT loaded — use ToolSearch with query \"select:<name>\" to load "
		"them before calling them:");
	for (size_t i = 0; i < ARRAY_LEN(DEFERRED); i++) {
		bemit(g, b, i ? ",%q" : "%q", DEFERRED[i]);
		bemit(g, &g->raw, "\n%s", DEFERRED[i]);
	}
	buf_lit(b, "],\"addedLines\":[");
	for (size_t i = 0; i < ARRAY_LEN(DEFERRED); i++)
		bemit(g, b, i ? ",%q" : "%q", DEFERRED[i]);
	buf_lit(b, "],\"removedNames\":[],\"wireHiddenNames\":[],\"readdedNames\":[]}");
	reminder(&g->att_text[A_DEFERRED], g->raw.p, g->raw.len);
}

static void build_atts(struct gen *g)
{
	static const struct { enum att a; const char *body, *text; } fixed[] = {
		{ A_ENV, ENV_BODY, ENV_TEXT }, { A_MODEL, MODEL_BODY, MODEL_TEXT },
		{ A_AUTO, AUTO_BODY, AUTO_TEXT }, { A_REMOTE, REMOTE_BODY, REMOTE_TEXT },
	};

	for (size_t i = 0; i < ARRAY_LEN(fixed); i++) {
		buf_str(&g->att_body[fixed[i].a], fixed[i].body);
		reminder(&g->att_text[fixed[i].a], fixed[i].text, strlen(fixed[i].text));
	}
	bemit(g, &g->att_body[A_CONTEXT], "{\"type\":\"session_context\",\"context\":"
	      "{\"gitStatus\":%e}}", GIT_STATUS);
	g->raw.len = 0;
	bemit(g, &g->raw, "As you answer the user's questions, you can use the following "
	      "context:\n# gitStatus\n%s\n\nClaude Code attached this context automatically; "
	      "it isn't part of the user's message.", GIT_STATUS);
	reminder(&g->att_text[A_CONTEXT], g->raw.p, g->raw.len);
	build_deferred_att(g);
	build_agent_atts(g);
}

/* System prompt sections and tool descriptions, padded with policy lines. */
static void build_prompt_texts(struct gen *g)
{
	unsigned k = 0;

	for (size_t i = 0; i < ARRAY_LEN(SYSTEM_SECTIONS); i++) {
		g->raw.len = 0;
		buf_str(&g->raw, SYSTEM_SECTIONS[i]);
		while (g->raw.len < SYSTEM_SECTION_MIN)
			bemit(g, &g->raw, "\n - %s", text_policy(k++));
		bemit(g, &g->sys_parts, i ? ",%E" : "%E", &g->raw);
		if (i)
			buf_lit(&g->sys_joined, "\\n\\n");
		buf_esc(&g->sys_joined, g->raw.p, g->raw.len);
	}
	buf_ch(&g->tools_json, '[');
	for (size_t i = 0; i < ARRAY_LEN(TOOL_DEFS); i++) {
		g->raw.len = 0;
		bemit(g, &g->raw, "%s\n", TOOL_DEFS[i].summary);
		while (g->raw.len < TOOL_DESC_MIN)
			bemit(g, &g->raw, "\n- %s", text_policy(k++));
		bemit(g, &g->tools_json, "%s{\"name\":%q,\"description\":%E,\"input_schema\":%s}",
		      i ? "," : "", TOOL_DEFS[i].name, &g->raw, TOOL_DEFS[i].schema);
	}
	buf_ch(&g->tools_json, ']');
	for (int a = A_ENV; a <= A_SKILLS; a++)
		bemit(g, &g->sys_blob, "%s{\"type\":\"text\",\"text\":%Q}", a == A_ENV ? "" : ",",
		      &g->att_text[a]);
}

void preamble_build(struct gen *g)
{
	build_atts(g);
	build_prompt_texts(g);
}
