/* pool: the project's synthetic source files; see pool.h. */
#include <stdlib.h>

#include "pool.h"
#include "rnd.h"
#include "text.h"

/* ----------------------------------------------------------- languages */

static const char *const C_LINES[] = {
	"#include <@I.h>", "static int @I(struct @I *@I, size_t @I)", "{", "}",
	"if (@I < 0)", "return -EINVAL;", "memcpy(@I->@I, @I, @I);", "/* @S */",
	"for (size_t i = 0; i < @I; i++)", "@I[i] = @I(@I, i);", "goto out;",
	"free(@I);", "fprintf(stderr, \"@I: %s\\n\", strerror(errno));",
	"struct @I *@I = calloc(1, sizeof(*@I));", "#define @K @N",
	"} else if (@I == '\\\\') {", "uint64_t @I = (uint64_t)@I << @N;",
};
static const char *const PY_LINES[] = {
	"def @I(@I, @I=None):", "return @I.get(\"@I\", @N)", "import @I",
	"from .@I import @I, @I", "class @C:", "if @I is None:", "for @I in @I:",
	"@I = [x for x in @I if x.@I]", "# TODO: @S",
	"raise ValueError(f\"bad @I: {@I!r}\")",
	"with open(@I, \"w\", encoding=\"utf-8\") as f:",
	"json.dump(@I, f, indent=2, ensure_ascii=False)", "assert @I(@N) == @N",
	"\"\"\"Return the @I for @I.\"\"\"", "print(f\"{@I:>8}\\t{@I}\")",
};
static const char *const JS_LINES[] = {
	"const @I = require('@I');", "export function @I(@I) {",
	"return @I.map((x) => x.@I);", "}", "if (!@I) throw new Error(`missing @I`);",
	"await @I.@I({ @I, @I: @N });", "// @S",
	"const @I = { \"@I\": @N, \"@I\": \"@I\" };",
	"console.log(`@I=${@I}`);", "return JSON.stringify({ ok: true, @I });",
};
static const char *const MD_LINES[] = {
	"# @S", "## @C", "- @S", "Run `make @I` to build.", "| `@I` | @N | ✓ |",
	"See `@F` for the details — it's short.", "```sh", "```", "> Note: @S.",
	"Naïve approach: @S; the better one keeps `@I` → `@I` stable.", "",
};
static const char *const YAML_LINES[] = {
	"@I:", "@I: @N", "- name: @S", "run: make @I", "# @S",
	"env: { @K: \"@I\" }",
};

struct lang_def {
	const char *const *lines;
	unsigned n_lines;
	const char *indent;
	unsigned max_depth;
	unsigned weight;
	const char *ext[2];
	const char *dir[3];
};

static const struct lang_def LANGS[L_COUNT] = {
	[L_C] = { C_LINES, ARRAY_LEN(C_LINES), "\t", 2, 30,
		  { ".c", ".h" }, { "src/core", "src/fs", "include" } },
	[L_PY] = { PY_LINES, ARRAY_LEN(PY_LINES), "    ", 3, 20,
		   { ".py", ".py" }, { "tools", "tests", "scripts" } },
	[L_JS] = { JS_LINES, ARRAY_LEN(JS_LINES), "  ", 3, 15,
		   { ".js", ".ts" }, { "web/static", "src/api", "web" } },
	[L_MD] = { MD_LINES, ARRAY_LEN(MD_LINES), "", 0, 15,
		   { ".md", ".md" }, { "docs", "notes", "docs/design" } },
	[L_JSON] = { NULL, 0, "  ", 0, 12,
		     { ".json", ".json" }, { "tests/fixtures", "config", "data" } },
	[L_YAML] = { YAML_LINES, ARRAY_LEN(YAML_LINES), "  ", 3, 8,
		     { ".yaml", ".yml" }, { "config", ".github/workflows", "deploy" } },
};

void pool_code_line(struct gen *g, struct buf *b, enum lang lang)
{
	const struct lang_def *l = &LANGS[lang];
	unsigned depth = rnd_below(g, l->max_depth + 1);

	if (lang == L_JSON) {
		text_json_item(g, b, rnd_range(g, 1, 999), true);
		buf_lit(b, ",\n");
		return;
	}
	for (unsigned i = 0; i < depth; i++)
		buf_str(b, l->indent);
	text_expand(g, b, l->lines[rnd_below(g, l->n_lines)]);
	buf_ch(b, '\n');
}

/* ----------------------------------------------------------- file pool */

void pool_line(const struct pool_file *f, unsigned i, const char **s, size_t *n)
{
	size_t end = i + 1 < f->lines ? f->line_off[i + 1] - 1 : f->raw.len;

	*s = f->raw.p + f->line_off[i];
	*n = end - f->line_off[i];
}

static void pool_index_lines(struct pool_file *f)
{
	f->lines = 1;
	for (size_t i = 0; i < f->raw.len; i++)
		f->lines += f->raw.p[i] == '\n';
	f->line_off = malloc(sizeof(*f->line_off) * f->lines);
	if (!f->line_off)
		die("out of memory");
	f->line_off[0] = 0;
	for (size_t i = 0, k = 1; i < f->raw.len; i++)
		if (f->raw.p[i] == '\n')
			f->line_off[k++] = (uint32_t)(i + 1);
}

/* The "N\tline" form the Read tool returns, one entry per line. */
static void pool_make_numbered(struct gen *g, struct pool_file *f)
{
	g->tmp.len = 0;
	for (unsigned i = 0; i < f->lines; i++) {
		const char *s;
		size_t n;

		pool_line(f, i, &s, &n);
		if (i)
			buf_ch(&g->tmp, '\n');
		buf_num(&g->tmp, i + 1, 0);
		buf_ch(&g->tmp, '\t');
		buf_mem(&g->tmp, s, n);
	}
	buf_esc(&f->numbered, g->tmp.p, g->tmp.len);
}

static void pool_name_file(struct gen *g, struct pool_file *f)
{
	unsigned w[L_COUNT];
	const struct lang_def *l;
	const char *dir, *a, *b;

	for (unsigned i = 0; i < L_COUNT; i++)
		w[i] = LANGS[i].weight;
	f->lang = (enum lang)rnd_weighted(g, w, L_COUNT);
	l = &LANGS[f->lang];
	dir = PICK(g, l->dir);
	a = text_ident(g);
	b = text_ident(g);
	snprintf(f->path, sizeof(f->path), "%s/%s_%s%s", dir, a, b, PICK(g, l->ext));
	hex16(fnv1a(f->path), f->hash);
}

/* Contents (which may name other files, so all are named first). */
static void pool_fill_file(struct gen *g, struct pool_file *f)
{
	size_t size = rnd_size(g, SIZE_MIN, SIZE_OCTAVES);

	if (f->lang == L_JSON)
		text_json_doc(g, &f->raw, size, true);
	while (f->raw.len < size)
		pool_code_line(g, &f->raw, f->lang);
	buf_esc(&f->esc, f->raw.p, f->raw.len);
	pool_index_lines(f);
	pool_make_numbered(g, f);
}

void pool_init(struct gen *g)
{
	for (unsigned i = 0; i < POOL_FILES; i++)
		pool_name_file(g, &g->pool[i]);
	for (unsigned i = 0; i < POOL_FILES; i++)
		pool_fill_file(g, &g->pool[i]);
}
