/* tools: tool calls, tool_use rows, shell output; see tools.h. */
#include <string.h>

#include "chain.h"
#include "emit.h"
#include "meta.h"
#include "pool.h"
#include "rnd.h"
#include "text.h"
#include "tools.h"

/* --------------------------------------------------------------- tools */

const unsigned TOOL_WEIGHT[T_COUNT] = { 30, 30, 15, 10, 10, 5 };

/* ------------------------------------------------------ shell commands */

enum out_kind { O_LS, O_GIT_STATUS, O_GIT_LOG, O_TESTS, O_BUILD, O_JSON, O_CAT,
		O_WC, O_DIFF };

struct bash_cmd {
	const char *cmd;
	const char *desc;
	enum out_kind kind;
};

static const struct bash_cmd BASH_CMDS[] = {
	{ "ls -la src src/core", "List the source tree", O_LS },
	{ "git status --short", "Show changed files", O_GIT_STATUS },
	{ "git log --oneline -n 40", "Show recent commits", O_GIT_LOG },
	{ "make test 2>&1 | tail -n 400", "Run the test suite", O_TESTS },
	{ "python3 -m pytest -q tests", "Run the Python tests", O_TESTS },
	{ "make 2>&1", "Build the project", O_BUILD },
	{ "curl -s http://localhost:8080/api/todos", "Fetch the todos from the dev server", O_JSON },
	{ "jq -c '.items[]' data/todos.json", "Print the todo items", O_JSON },
	{ "cat ", "Show the file", O_CAT },
	{ "wc -l src/core/*.c", "Count lines", O_WC },
	{ "git diff", "Show the working tree diff", O_DIFF },
};

static const char *const GLOBS[] = {
	"**/*.c", "src/**/*.h", "tests/**/*.py", "**/*.md", "**/*.json", "web/**/*.js",
};

/* ---------------------------------------------------------- tool calls */

static void plan_edit(struct gen *g, struct call *c)
{
	const struct pool_file *f;
	unsigned room;

	do
		c->file = rnd_below(g, POOL_FILES);
	while (g->pool[c->file].lines < 4 || g->pool[c->file].lang == L_JSON);
	f = &g->pool[c->file];
	c->first = rnd_below(g, f->lines - 2);
	room = f->lines - 1 - c->first; /* real lines from first on */
	c->count = 1 + rnd_below(g, room < 6 ? room : 6);
	c->repl.len = 0;
	for (unsigned i = rnd_range(g, 1, c->count + 2); i > 0; i--)
		pool_code_line(g, &c->repl, f->lang);
	c->repl.len--; /* no newline after the last line */
}

void plan_call(struct gen *g, struct call *c, enum tool t)
{
	c->tool = t;
	c->fail = false;
	rnd_id(g, "toolu_01", c->id);
	c->file = rnd_below(g, POOL_FILES);
	switch (t) {
	case T_BASH:
		c->cmd = rnd_below(g, ARRAY_LEN(BASH_CMDS));
		snprintf(c->text, sizeof(c->text), "%s%s", BASH_CMDS[c->cmd].cmd,
			 BASH_CMDS[c->cmd].kind == O_CAT ? g->pool[c->file].path : "");
		break;
	case T_READ:
		c->fail = rnd_chance(g, 4);
		if (c->fail)
			snprintf(c->path, sizeof(c->path), "docs/%s.md", text_ident(g));
		else
			snprintf(c->path, sizeof(c->path), "%s", g->pool[c->file].path);
		break;
	case T_EDIT:
		plan_edit(g, c);
		break;
	case T_WRITE:
		snprintf(c->path, sizeof(c->path), "notes/note-%04u.md", ++g->notes);
		for (int tries = 0; tries < 16 && g->pool[c->file].lang != L_MD; tries++)
			c->file = rnd_below(g, POOL_FILES);
		break;
	case T_GREP:
		snprintf(c->text, sizeof(c->text), "%s", text_ident(g));
		c->files_mode = rnd_chance(g, 30);
		break;
	case T_GLOB:
		snprintf(c->text, sizeof(c->text), "%s", PICK(g, GLOBS));
		break;
	case T_COUNT:
		break;
	}
}

void edit_old(const struct gen *g, const struct call *c, const char **s, size_t *n)
{
	const struct pool_file *f = &g->pool[c->file];

	*s = f->raw.p + f->line_off[c->first];
	*n = f->line_off[c->first + c->count] - 1 - f->line_off[c->first];
}

static void put_tool_input(struct gen *g, const struct call *c)
{
	const char *old;
	size_t n;

	switch (c->tool) {
	case T_BASH:
		emit(g, "{\"command\":%e,\"description\":%e%s}", c->text, BASH_CMDS[c->cmd].desc,
		     BASH_CMDS[c->cmd].kind == O_TESTS ? ",\"timeout\":600000" : "");
		break;
	case T_READ:
		emit(g, "{\"file_path\":" ABS "}", c->path);
		break;
	case T_EDIT:
		edit_old(g, c, &old, &n);
		emit(g, "{\"replace_all\":false,\"file_path\":" ABS ",\"old_string\":%M,"
		     "\"new_string\":%E}", g->pool[c->file].path, old, n, &c->repl);
		break;
	case T_WRITE:
		emit(g, "{\"file_path\":" ABS ",\"content\":%Q}", c->path, &g->pool[c->file].esc);
		break;
	case T_GREP:
		emit(g, "{\"pattern\":%q%s}", c->text, c->files_mode ?
		     ",\"path\":\"src\",\"output_mode\":\"files_with_matches\"" :
		     ",\"output_mode\":\"content\",\"-n\":true");
		break;
	case T_GLOB:
		emit(g, "{\"pattern\":%q}", c->text);
		break;
	case T_COUNT:
		break;
	}
}

void rec_tool_use(struct gen *g, struct response *rs, struct call *c)
{
	uint64_t r = rec_begin(g);

	asst_open(g, rs);
	emit(g, "{\"type\":\"tool_use\",\"id\":%q,\"name\":%q,\"input\":", c->id,
	     TOOL_NAME[c->tool]);
	put_tool_input(g, c);
	emit(g, "}");
	asst_close(g, r, rs, true);
	memcpy(c->row, g->parent, sizeof(c->row));
	g->st.tool_uses++;
	if (c->tool == T_EDIT)
		rec_fh_delta(g, g->pool[c->file].path, c->row);
	else if (c->tool == T_WRITE)
		rec_fh_delta(g, c->path, c->row);
}

/* ------------------------------------------------------ command output */

static void out_tests(struct gen *g, struct buf *b, size_t size, bool *failed)
{
	unsigned n = 0, bad = 0;

	while (b->len < size) {
		bool ok = !rnd_chance(g, 2);
		const char *file = text_ident(g), *test = text_ident(g);

		bemit(g, b, "tests/test_%s.py::test_%s %s [", file, test,
		      ok ? "\x1b[32mPASSED\x1b[0m" : "\x1b[31mFAILED\x1b[0m");
		buf_num(b, rnd_range(g, 1, 100), 3);
		buf_lit(b, "%]\n");
		if (!ok)
			buf_lit(b, "E       AssertionError: assert {'done': False} == {\"done\": True}\n");
		n++;
		bad += !ok;
	}
	bemit(g, b, "\x1b[32m==== %u passed", n - bad);
	if (bad)
		bemit(g, b, ", %u failed", bad);
	buf_lit(b, " in 3.14s ====\x1b[0m");
	*failed = bad > 0;
}

static void out_build(struct gen *g, struct buf *b, size_t size)
{
	while (b->len < size) {
		const char *id = text_ident(g);

		bemit(g, b, "cc -O2 -std=c11 -Wall -Wextra -c src/core/%s.c -o build/%s.o\n",
		      id, id);
		if (rnd_chance(g, 15)) {
			unsigned line = rnd_range(g, 10, 900);

			bemit(g, b, "src/core/%s.c:%u:9: warning: unused variable ‘%s’ "
			      "[-Wunused-variable]\n  412 |\tsize_t n = 0;\n      |\t       ^\n",
			      id, line, text_ident(g));
		}
	}
	buf_lit(b, "ld -o build/sessfs build/*.o -lfuse3 -lcjson");
}

/* ls / wc / git status / git log style listings of project files. */
static void out_listing(struct gen *g, struct buf *b, size_t size, enum out_kind k)
{
	static const char *const status[] = { " M ", "?? ", "A  ", " D " };
	char h[17];

	if (k == O_LS)
		buf_lit(b, "total 96\ndrwxr-xr-x 2 user user   4096 Dec  2 17:22 .\n");
	while (b->len < size) {
		const struct pool_file *f = &g->pool[rnd_below(g, POOL_FILES)];

		switch (k) {
		case O_LS:
			buf_lit(b, "-rw-r--r-- 1 user user ");
			buf_num(b, f->raw.len, 6);
			bemit(g, b, " Dec  2 17:22 %s\n", f->path);
			break;
		case O_WC:
			buf_num(b, f->lines, 7);
			bemit(g, b, " %s\n", f->path);
			break;
		case O_GIT_STATUS:
			bemit(g, b, "%s%s\n", PICK(g, status), f->path);
			break;
		default:
			hex16(rnd(g), h);
			h[7] = '\0';
			bemit(g, b, "%s %s\n", h, text_short(g));
		}
	}
	b->len--; /* no newline after the last line */
}

static void out_diff(struct gen *g, struct buf *b, size_t size)
{
	while (b->len < size) {
		const struct pool_file *f = &g->pool[rnd_below(g, POOL_FILES)];
		unsigned first = rnd_below(g, f->lines);

		bemit(g, b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -%u,7 +%u,8 @@\n",
		      f->path, f->path, f->path, f->path, first + 1, first + 1);
		for (unsigned i = first; i < f->lines && i < first + 7; i++) {
			const char *s;
			size_t n;

			pool_line(f, i, &s, &n);
			buf_ch(b, i == first + 3 ? '-' : ' ');
			buf_mem(b, s, n);
			buf_ch(b, '\n');
		}
		buf_ch(b, '+');
		pool_code_line(g, b, f->lang);
	}
}

/* Bash stdout into g->raw; returns true when the command failed. */
bool bash_output(struct gen *g, const struct call *c)
{
	enum out_kind k = BASH_CMDS[c->cmd].kind;
	size_t size = rnd_size(g, SIZE_MIN, SIZE_OCTAVES);
	bool failed = false;

	g->raw.len = 0;
	switch (k) {
	case O_TESTS: out_tests(g, &g->raw, size, &failed); break;
	case O_BUILD: out_build(g, &g->raw, size); failed = rnd_chance(g, 5); break;
	case O_JSON: text_json_doc(g, &g->raw, size, false); break;
	case O_CAT: buf_mem(&g->raw, g->pool[c->file].raw.p, g->pool[c->file].raw.len); break;
	case O_DIFF: out_diff(g, &g->raw, size); break;
	default: out_listing(g, &g->raw, size < 4096 ? size : 4096, k); break;
	}
	return failed;
}

