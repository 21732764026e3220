/* results: the tool_result rows; see results.h. */
#include <string.h>

#include "chain.h"
#include "emit.h"
#include "pool.h"
#include "results.h"
#include "rnd.h"
#include "tools.h"

/*
 * A tool_result row is result_open(), the content, result_mid(), the
 * toolUseResult value, result_close(). Its parent is the tool_use row.
 */
static void result_open(struct gen *g, const struct call *c, bool is_error)
{
	emit(g, HEAD "\"promptId\":%q,\"type\":\"user\",\"message\":{\"role\":\"user\","
	     "\"content\":[{", c->row, g->prompt_id);
	if (is_error)
		emit(g, "\"type\":\"tool_result\",\"content\":");
	else
		emit(g, "\"tool_use_id\":%q,\"type\":\"tool_result\",\"content\":", c->id);
}

static void result_mid(struct gen *g, const struct call *c, bool is_error, bool bash,
		       char uuid[UUID_LEN + 1])
{
	rnd_uuid(g, uuid);
	if (is_error)
		emit(g, ",\"is_error\":true,\"tool_use_id\":%q", c->id);
	else if (bash)
		emit(g, ",\"is_error\":false");
	emit(g, "}]},\"uuid\":%q,\"timestamp\":%t,\"toolUseResult\":", uuid);
}

static void result_close(struct gen *g, uint64_t r, const struct call *c, bool bash,
			 const char *uuid)
{
	emit(g, "%s,\"sourceToolAssistantUUID\":%q,\"permissionDecision\":{\"decision\":"
	     "\"accept\",\"source\":\"config\",\"reasonType\":\"mode\"},%T",
	     bash ? ",\"sandboxed\":false" : "", c->row);
	rec_end(g, K_USER, r);
	set_parent(g, uuid);
}

static void result_bash(struct gen *g, const struct call *c)
{
	bool failed = bash_output(g, c);
	uint64_t r = rec_begin(g);
	char uuid[UUID_LEN + 1];

	g->esc.len = 0;
	if (failed)
		buf_lit(&g->esc, "Exit code 1\\n");
	buf_esc(&g->esc, g->raw.p, g->raw.len);
	result_open(g, c, failed);
	emit(g, "%Q", &g->esc);
	result_mid(g, c, failed, true, uuid);
	if (failed)
		emit(g, "\"Error: %b\"", &g->esc);
	else
		emit(g, "{\"stdout\":%Q,\"stderr\":\"\",\"interrupted\":false,\"isImage\":false,"
		     "\"noOutputExpected\":false}", &g->esc);
	result_close(g, r, c, true, uuid);
}

static void result_read(struct gen *g, const struct call *c)
{
	static const char missing[] = "File does not exist. Note: your current working "
				      "directory is " PROJECT_DIR ".";
	const struct pool_file *f = &g->pool[c->file];
	uint64_t r = rec_begin(g);
	char uuid[UUID_LEN + 1];

	result_open(g, c, c->fail);
	if (c->fail) {
		emit(g, "%q", missing);
		result_mid(g, c, true, false, uuid);
		emit(g, "\"Error: %s\"", missing);
	} else {
		emit(g, "%Q", &f->numbered);
		result_mid(g, c, false, false, uuid);
		emit(g, "{\"type\":\"text\",\"file\":{\"filePath\":" ABS ",\"content\":%Q,"
		     "\"numLines\":%u,\"startLine\":1,\"totalLines\":%u}}", f->path, &f->esc,
		     f->lines, f->lines);
		g->recent_reads[rnd_below(g, ARRAY_LEN(g->recent_reads))] = c->file;
	}
	result_close(g, r, c, false, uuid);
}

/* structuredPatch of an Edit into g->tmp: 3 lines of context, old, new. */
static void make_patch(struct gen *g, const struct call *c)
{
	const struct pool_file *f = &g->pool[c->file];
	unsigned before = c->first < 3 ? c->first : 3;
	unsigned end = c->first + c->count, after = f->lines - 1 - end;
	const char *p = c->repl.p, *e = p + c->repl.len, *s;
	unsigned added = 1;
	size_t n;

	after = after < 3 ? after : 3;
	for (size_t i = 0; i < c->repl.len; i++)
		added += c->repl.p[i] == '\n';
	g->tmp.len = 0;
	bemit(g, &g->tmp, "{\"oldStart\":%u,\"oldLines\":%u,\"newStart\":%u,\"newLines\":%u,"
	      "\"lines\":[", c->first - before + 1, before + c->count + after,
	      c->first - before + 1, before + added + after);
	for (unsigned i = c->first - before; i < end; i++) {
		pool_line(f, i, &s, &n);
		bemit(g, &g->tmp, i == c->first - before ? "\"%s%m\"" : ",\"%s%m\"",
		      i < c->first ? " " : "-", s, n);
	}
	for (const char *nl; p <= e; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(e - p));
		nl = nl ? nl : e;
		bemit(g, &g->tmp, ",\"+%m\"", p, (size_t)(nl - p));
	}
	for (unsigned i = end; i < end + after; i++) {
		pool_line(f, i, &s, &n);
		bemit(g, &g->tmp, ",\" %m\"", s, n);
	}
	buf_lit(&g->tmp, "]}");
	g->cost.added += added;
	g->cost.removed += c->count;
}

static void result_edit(struct gen *g, const struct call *c)
{
	const struct pool_file *f = &g->pool[c->file];
	uint64_t r = rec_begin(g);
	char uuid[UUID_LEN + 1];
	const char *old;
	size_t n;

	edit_old(g, c, &old, &n);
	make_patch(g, c);
	result_open(g, c, false);
	emit(g, "\"The file " PROJECT_DIR "/%s has been updated successfully. (file state is "
	     "current in your context — no need to Read it back)\"", f->path);
	result_mid(g, c, false, false, uuid);
	emit(g, "{\"filePath\":" ABS ",\"oldString\":%M,\"newString\":%E,\"originalFile\":%Q,"
	     "\"structuredPatch\":[%b],\"userModified\":false,\"replaceAll\":false}", f->path,
	     old, n, &c->repl, &f->esc, &g->tmp);
	result_close(g, r, c, false, uuid);
}

static void result_write(struct gen *g, const struct call *c)
{
	const struct pool_file *f = &g->pool[c->file];
	uint64_t r = rec_begin(g);
	char uuid[UUID_LEN + 1];

	result_open(g, c, false);
	emit(g, "\"File created successfully at: " PROJECT_DIR "/%s (file state is current in "
	     "your context — no need to Read it back)\"", c->path);
	result_mid(g, c, false, false, uuid);
	emit(g, "{\"type\":\"create\",\"filePath\":" ABS ",\"content\":%Q,\"structuredPatch\":[],"
	     "\"originalFile\":null,\"userModified\":false}", c->path, &f->esc);
	result_close(g, r, c, false, uuid);
	g->cost.added += f->lines;
}

/* Grep or Glob hits into g->raw (the text result), their paths into g->tmp. */
static unsigned search_output(struct gen *g, const struct call *c)
{
	bool lines = c->tool == T_GREP && !c->files_mode;
	unsigned n = rnd_range(g, 1, lines ? 120 : 40);

	g->raw.len = 0;
	g->tmp.len = 0;
	if (c->files_mode)
		bemit(g, &g->raw, "Found %u files\n", n);
	for (unsigned i = 0; i < n; i++) {
		const struct pool_file *f = &g->pool[rnd_below(g, POOL_FILES)];
		unsigned line = rnd_below(g, f->lines);
		const char *s;
		size_t len;

		bemit(g, &g->tmp, i ? ",%q" : "%q", f->path);
		bemit(g, &g->raw, i ? "\n%s" : "%s", f->path);
		if (lines) {
			pool_line(f, line, &s, &len);
			bemit(g, &g->raw, ":%u:", line + 1);
			buf_mem(&g->raw, s, len);
		}
	}
	return n;
}

static void result_search(struct gen *g, const struct call *c)
{
	unsigned n = search_output(g, c);
	unsigned ms = rnd_range(g, 5, 300);
	uint64_t r = rec_begin(g);
	char uuid[UUID_LEN + 1];

	result_open(g, c, false);
	emit(g, "%E", &g->raw);
	result_mid(g, c, false, false, uuid);
	if (c->tool == T_GLOB)
		emit(g, "{\"filenames\":[%b],\"durationMs\":%u,\"numFiles\":%u,\"truncated\":false,"
		     "\"totalMatches\":%u,\"countIsComplete\":true}", &g->tmp, ms, n, n);
	else if (c->files_mode)
		emit(g, "{\"mode\":\"files_with_matches\",\"filenames\":[%b],\"numFiles\":%u}",
		     &g->tmp, n);
	else
		emit(g, "{\"mode\":\"content\",\"numFiles\":0,\"filenames\":[],\"content\":%E,"
		     "\"numLines\":%u,\"totalLines\":%u}", &g->raw, n, n);
	result_close(g, r, c, false, uuid);
}

void rec_result(struct gen *g, const struct call *c)
{
	unsigned ms = rnd_range(g, 20, 3000);

	g->now += ms;
	g->cost.tool_ms += ms;
	switch (c->tool) {
	case T_BASH: result_bash(g, c); break;
	case T_READ: result_read(g, c); break;
	case T_EDIT: result_edit(g, c); break;
	case T_WRITE: result_write(g, c); break;
	case T_GREP: case T_GLOB: result_search(g, c); break;
	case T_COUNT: break;
	}
	g->ctx_msgs++;
}
