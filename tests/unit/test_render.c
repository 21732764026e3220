/*
 * render: message files from the line's bytes, equal byte for byte to
 * what the cJSON tree renderer made (render_oracle.h), on crafted records
 * that take every branch, on mutated records, and on the corpus.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tu_fixture.h"
#include "jv.h"
#include "render.h"
#include "render_oracle.h"
#include "session.h"

/* A log of n bytes, indexed and linked. */
struct rfx {
	char *path;
	struct logf *lf;
	struct idx *ix;
	struct graph *g;
};

static void rfx_open(struct rfx *f, const char *data, size_t n)
{
	f->path = tu_write(data, n);
	f->ix = idx_new();
	assert_int_equal(lf_open(f->path, &f->lf), 0);
	assert_int_equal(idx_finish(f->ix, lf_fd(f->lf)), 0);
	assert_int_equal(gr_build(f->ix, &f->g), 0);
}

static void rfx_close(struct rfx *f)
{
	gr_free(f->g);
	idx_free(f->ix);
	lf_close(f->lf);
	tu_remove(f->path);
}

/* rd_message_line() of node id from its whole line read first renders
 * want and takes the line; from a line of another length, it reads the
 * record and leaves that line. */
static void from_line(const struct rfx *f, uint32_t id, const char *extra,
		      const struct sbuf *want)
{
	struct sbuf line, c;
	int i;

	sb_init(&line);
	sb_init(&c);
	if (lf_read(f->lf, gr_node_rec(f->g, id), &line)) {	/* no longer whole */
		sb_free(&line);
		return;
	}
	for (i = 0; i < 2; i++) {
		if (i)
			sb_adds(&line, "x");
		sb_reset(&c);
		assert_int_equal(rd_message_line(f->g, f->lf, id, extra, &line, &c), 0);
		assert_int_equal(line.len, i ? 1 : 0);
		if (c.len != want->len || memcmp(c.buf, want->buf, c.len))
			fail_msg("line %u renders differently from its line (%d):\n%s\n---\n%s",
				 gr_node_rec(f->g, id)->line, i, c.buf, want->buf);
	}
	sb_free(&line);
	sb_free(&c);
}

/* Renders node id both ways (with extra header lines when given), and
 * from its line read first; fails unless they are equal. Returns the
 * rendering (free it). */
static char *both(const struct rfx *f, uint32_t id, const char *extra)
{
	struct sbuf a, b;

	sb_init(&a);
	sb_init(&b);
	assert_int_equal(rd_message_ex(f->g, f->lf, id, extra, &a), 0);
	assert_int_equal(ref_rd_message_ex(f->g, f->lf, id, extra, &b), 0);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len))
		fail_msg("line %u renders differently:\n--- now\n%s\n--- tree renderer\n%s",
			 gr_node_rec(f->g, id)->line, a.buf, b.buf);
	from_line(f, id, extra, &a);
	sb_free(&b);
	return sb_detach(&a, NULL);
}

/* Every node of the log, both ways; returns how many were compared. */
static uint32_t all_equal(const struct rfx *f)
{
	uint32_t n, i;
	const uint32_t *nodes = gr_nodes(f->g, &n);

	for (i = 0; i < n; i++)
		free(both(f, nodes[i], i % 3 ? NULL : "agent: agents/x\n"));
	return n;
}

/* The content of the file of the node on line `line` (after the header's
 * blank line); checks it both ways first. Free it. */
static char *content_at(const struct rfx *f, uint32_t line)
{
	uint32_t n, i;
	const uint32_t *nodes = gr_nodes(f->g, &n);

	for (i = 0; i < n; i++) {
		if (gr_node_rec(f->g, nodes[i])->line == line) {
			char *s = both(f, nodes[i], NULL), *body = strstr(s, "\n\n");
			char *c = strdup(body ? body + 2 : "");

			free(s);
			return c;
		}
	}
	fail_msg("no node on line %u", line);
	return NULL;
}

/* One message row per entry of rows (each the members after "type"),
 * chained; checks every node, then the content of each row that has a
 * want (a row the loader drops is no node: give it none). */
struct row {
	const char *type;
	const char *extra;
	const char *want;	/* the content expected, or NULL */
};

static void check_rows(const struct row *rows, size_t n)
{
	struct tu_log l;
	struct rfx f;
	size_t i;

	tu_log_init(&l);
	for (i = 0; i < n; i++)
		tu_row(&l, rows[i].type, (int)i + 1, (int)i, rows[i].extra);
	rfx_open(&f, l.sb.buf, l.sb.len);
	assert_true(all_equal(&f) > 0);
	for (i = 0; i < n; i++) {
		char *c;

		if (!rows[i].want)
			continue;
		c = content_at(&f, (uint32_t)i + 1);
		if (strcmp(c, rows[i].want))
			fail_msg("row %zu: got\n%s\nwanted\n%s", i + 1, c, rows[i].want);
		free(c);
	}
	rfx_close(&f);
	tu_log_free(&l);
}

#define CANNOT "(this record cannot be shown as text: it is nested too deeply " \
	"to parse; records/ holds its bytes)\n"

static void test_message_blocks(void **state)
{
	static const struct row rows[] = {
		{ "user", "\"message\":{\"role\":\"user\",\"content\":\"hello\"}", "hello\n" },
		{ "user", "\"message\":{\"content\":\"ends\\n\"}", "ends\n" },
		{ "user", "\"message\":{\"content\":\"\"}", "" },
		{ "assistant", "\"message\":{\"id\":\"msg_1\",\"model\":\"m-1\",\"content\":"
		  "[{\"type\":\"text\",\"text\":\"alone\"}]}", "alone\n" },
		{ "assistant", "\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
		  "{\"type\":\"thinking\",\"thinking\":\"hm\"},{\"type\":\"thinking\"},"
		  "{\"type\":\"redacted_thinking\",\"data\":\"x\"},{\"type\":\"image\"},"
		  "{\"type\":\"text\"}]}",
		  "--- text ---\na\n--- thinking ---\nhm\n--- thinking ---\n"
		  "--- thinking (redacted) ---\n--- image ---\n--- text ---\n"
		  "{\n  \"type\": \"text\"\n}\n" },
		{ "assistant", "\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\","
		  "\"name\":\"Bash\",\"input\":{\"command\":\"ls\",\"n\":[1,-2,1.5,true,false,null,"
		  "{},[]]}},{\"type\":\"tool_use\"}]}",
		  "--- tool_use Bash (t1) ---\n{\n  \"command\": \"ls\",\n  \"n\": [\n    1,\n"
		  "    -2,\n    1.5,\n    true,\n    false,\n    null,\n    {},\n    []\n  ]\n}\n"
		  "--- tool_use ? (no id) ---\n\n" },
		{ "user", "\"message\":{\"content\":[{\"tool_use_id\":\"t1\",\"type\":\"tool_result\","
		  "\"content\":\"out\",\"is_error\":true},{\"type\":\"tool_result\",\"content\":"
		  "[{\"type\":\"text\",\"text\":\"t\"},{\"type\":\"image\"},{\"type\":\"text\"},7],"
		  "\"is_error\":\"true\"}]}",
		  "--- tool_result (t1) [error] ---\nout\n--- tool_result (no id) ---\nt\n"
		  "[image]\n{\n  \"type\": \"text\"\n}\n7\n" },
		{ "user", "\"message\":{\"content\":[{\"type\":\"document\",\"a\":1},\"s\",3,"
		  "{\"text\":\"no type\"}]}",
		  "--- document ---\n{\n  \"type\": \"document\",\n  \"a\": 1\n}\n--- "
		  " ---\n\"s\"\n---  ---\n3\n---  ---\n{\n  \"text\": \"no type\"\n}\n" },
		/* rows the loader drops (no nodes), rendered if they were */
		{ "user", "\"message\":{\"content\":{\"a\":{\"type\":\"text\",\"text\":\"x\"}}}", NULL },
		{ "user", "\"message\":{\"content\":12}", NULL },
		{ "user", "\"message\":{\"role\":\"user\"}", NULL },
		{ "user", "\"message\":[1,2]", NULL },
		{ "user", "\"message\":{\"content\":[]}", NULL },
	};

	(void)state;
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_strings_as_cjson_reads_them(void **state)
{
	static const struct row rows[] = {
		/* escapes, invalid UTF-8 mended, lone surrogates, pairs */
		{ "user", "\"message\":{\"content\":\"a\\tb\\\\c\\\"d\\/e\\u00e9\\ud83d\\ude00\"}",
		  "a\tb\\c\"d/e\xc3\xa9\xf0\x9f\x98\x80\n" },
		{ "user", "\"message\":{\"content\":\"bad \xff\xfe bytes \\udc80 and \\ud800\"}",
		  "bad \xef\xbf\xbd\xef\xbf\xbd bytes \xef\xbf\xbd and \xef\xbf\xbd\n" },
		{ "user", "\"message\":{\"content\":\"\\ud800\\ud800\\udc00\"}",
		  "\xef\xbf\xbd\xf0\x90\x80\x80\n" },
		/* a C string: it ends at the first NUL, escaped or bad hex */
		{ "user", "\"message\":{\"content\":\"cut\\u0000here\"}", "cut\n" },
		{ "user", "\"message\":{\"content\":\"cut\\uZZZZhere\"}", "cut\n" },
		{ "user", "\"message\":{\"content\":\"\\u0000\"}", "" },
		/* hex digits that hold a backslash or quote: decided by where the
		 * string ends, as cJSON decides */
		{ "user", "\"message\":{\"content\":\"q\\u12\\\"abcdef\"}", "q\n" },
		{ "user", "\"message\":{\"content\":\"x\\u123\\\\\\udc80\"}", "x\n" },
		{ "user", "\"message\":{\"content\":\"x\\u123\\\\udc80\"}", CANNOT },
		{ "user", "\"message\":{\"content\":\"x\\u1\\\\\\\\ab\"}", CANNOT },
		/* keys and type values compare as C strings */
		{ "user", "\"message\":{\"content\":[{\"type\":\"text\",\"t\\u0065xt\":\"esc\"}]}",
		  "esc\n" },
		{ "user", "\"message\":{\"content\":[{\"type\":\"text\",\"text\\u0000z\":\"nul\"}]}",
		  "nul\n" },
		{ "user", "\"message\":{\"content\":[{\"type\":\"te\\u0078t\",\"text\":\"t\"},"
		  "{\"type\":\"text\\u0000\",\"text\":\"u\"}]}", "--- text ---\nt\n--- text ---\nu\n" },
		/* the first of a repeated member counts */
		{ "user", "\"message\":{\"content\":\"first\",\"content\":\"second\"}", "first\n" },
		/* JSON strings out: control bytes escaped, keys cut at a NUL */
		{ "user", "\"message\":{\"content\":[{\"type\":\"x\",\"k\\u0000j\":\"\\u0001\\b\\f"
		  "\\n\\r\\t\\\"\\\\\xff\"}]}",
		  "--- x ---\n{\n  \"type\": \"x\",\n  \"k\": \"\\u0001\\b\\f\\n\\r\\t\\\"\\\\"
		  "\xef\xbf\xbd\"\n}\n" },
		{ "user", "\"message\":{\"content\":[{\"type\":\"x\xff\",\"text\":1}]}",
		  "--- x\xef\xbf\xbd ---\n{\n  \"type\": \"x\xef\xbf\xbd\",\n  \"text\": 1\n}\n" },
	};

	(void)state;
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_numbers_as_cjson_prints_them(void **state)
{
	static const struct row rows[] = {
		{ "user", "\"message\":{\"content\":[{\"type\":\"n\",\"v\":[0,-0,7,-12,0.5,1e3,"
		  "1E-2,-1.25e+2,123456789,1234567890,12345678901234567890,0.1,1e400,-1e400,"
		  "0123,3.14159265358979,1.0]}]}", NULL },
		{ "user", "\"message\":{\"content\":[{\"type\":\"n\",\"v\":"
		  "12345678901234567890123456789012345678901234567890123456789012345678901}]}",
		  NULL },
		/* numbers cJSON refuses */
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\"},-]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\"},1.2.3]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\"},1e]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\"},+1]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\"},.5]}", CANNOT },
	};

	(void)state;
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_what_cjson_refuses(void **state)
{
	static const struct row rows[] = {
		{ "user", "\"message\":{\"content\":\"bad \\x escape\"}", CANNOT },
		{ "user", "\"message\":{\"content\":\"\\udc80\"}", "\xef\xbf\xbd\n" },
		/* inside a value the index steps over, cJSON's rules decide */
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":[nul]}]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":[truex]}]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":[1,]}]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":{\"a\" 1}}]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":{1:2}}]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":[1\x7f]}]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":[0x1F]}]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":\"\\u12\"}]}", CANNOT },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":\"\\ud800\\u0041\"}]}",
		  "--- t ---\n{\n  \"type\": \"t\",\n  \"v\": \"\xef\xbf\xbd" "A\"\n}\n" },
		/* brackets that do not match: jscan refuses the line (no node) */
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\"},[1}]]}", NULL },
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\"}],\"x\":[}", NULL },
		/* a later copy of a wanted member is parsed too */
		{ "user", "\"message\":{\"content\":\"ok\"},\"message\":{\"content\":\"ok2\","
		  "\"v\":[tru]}", CANNOT },
		/* whitespace as cJSON takes it: any byte up to 0x20 */
		{ "user", "\"message\":{\"content\":[{\"type\":\"t\",\"v\":[\x0b\"a\"\x1f,\x01" "1]}]}",
		  "--- t ---\n{\n  \"type\": \"t\",\n  \"v\": [\n    \"a\",\n    1\n  ]\n}\n" },
		{ "user", "\"message\":{\"content\":\"ws\",\"v\":{\x04\"k\"\x02:\x03" "1\x04}}", "ws\n" },
		/* an unwanted member is only stepped over */
		{ "user", "\"message\":{\"content\":\"kept\"},\"toolUseResult\":[tru,-,\"\\x\"]",
		  "kept\n" },
	};

	(void)state;
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_attachment_and_system(void **state)
{
	static const struct row rows[] = {
		{ "attachment", "\"attachment\":{\"type\":\"x\"},\"rendered\":[{\"content\":\"r1\"},"
		  "{\"other\":1},{\"content\":\"r2\\n\"}]", "r1\nr2\n" },
		{ "attachment", "\"attachment\":{\"type\":\"x\",\"n\":1},\"rendered\":[{\"n\":1}]",
		  "{\n  \"type\": \"x\",\n  \"n\": 1\n}\n" },
		{ "attachment", "\"attachment\":null", "null\n" },
		{ "attachment", "\"rendered\":{\"a\":{\"content\":\"obj\"}}", "obj\n" },
		{ "attachment", "\"other\":1", "" },
		{ "system", "\"subtype\":\"compact_boundary\",\"compactMetadata\":{\"trigger\":"
		  "\"manual\",\"preTokens\":1315.6},\"content\":\"Conversation compacted\"",
		  "trigger: manual\npreTokens: 1316\n\nConversation compacted\n" },
		{ "system", "\"compactMetadata\":{\"preTokens\":\"12\"}",
		  "trigger: ?\n\n" },
		{ "system", "\"compactMetadata\":[1],\"content\":7", "" },
		{ "system", "\"subtype\":\"info\",\"content\":\"note\"", "note\n" },
		{ "summary", "\"message\":{\"content\":\"not a message\"}", NULL },
		{ "user", "\"message\":{\"content\":\"escaped type\"},\"typ\\u0065\":1", "escaped type\n" },
	};

	(void)state;
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

/* The header: model and message id to a NUL, fit for one line; a boundary's
 * logical parent, sidechain, extra lines. */
static void test_header(void **state)
{
	struct tu_log l;
	struct rfx f;
	char *s;
	uint32_t n;
	const uint32_t *nodes;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	tu_row(&l, "assistant", 2, 1, "\"message\":{\"id\":\"msg_\\u0041\\u0000x\",\"model\":"
	       "\"mo\xffl\",\"content\":\"x\"}");
	tu_boundary(&l, 3, 2, 0, NULL, 0);
	l.sidechain = 1;
	tu_user(&l, 4, 3, "side");
	rfx_open(&f, l.sb.buf, l.sb.len);
	assert_int_equal(all_equal(&f), 4);
	nodes = gr_nodes(f.g, &n);
	s = both(&f, nodes[1], "agent: agents/a\n");
	assert_non_null(strstr(s, "\nmodel: mo\xef\xbf\xbdl\nmessage-id: msg_A\nline: 2\n"
			       "agent: agents/a\n\nx\n"));
	free(s);
	s = both(&f, nodes[2], NULL);
	assert_non_null(strstr(s, "logical-parent: 00000002-"));
	free(s);
	s = both(&f, nodes[3], NULL);
	assert_non_null(strstr(s, "sidechain: true\n"));
	free(s);
	rfx_close(&f);
	tu_log_free(&l);
}

/* Leading NULs, CRLF, a record whose bytes are gone (read error). */
static void test_line_shapes(void **state)
{
	static const char log[] =
		"\0\0{\"type\":\"user\",\"uuid\":\"00000001-0000-4000-8000-000000000001\","
		"\"parentUuid\":null,\"message\":{\"content\":\"after nuls\"}}\n"
		"{\"type\":\"user\",\"uuid\":\"00000002-0000-4000-8000-000000000002\","
		"\"parentUuid\":\"00000001-0000-4000-8000-000000000001\","
		"\"message\":{\"content\":\"crlf\"}}\r\n"
		"{\"type\":\"user\",\"uuid\":\"00000003-0000-4000-8000-000000000003\","
		"\"parentUuid\":\"00000002-0000-4000-8000-000000000002\","
		"\"message\":{\"content\":\"raw\0nul\"}}\n"
		"{\"type\":\"user\",\"uuid\":\"00000004-0000-4000-8000-000000000004\","
		"\"parentUuid\":\"00000003-0000-4000-8000-000000000003\","
		"\"message\":{\"content\":\"head\"},\"toolUseResult\":{\"stdout\":\"tail\"}}\n";
	struct rfx f;
	char *c;

	(void)state;
	rfx_open(&f, log, sizeof(log) - 1);
	assert_int_equal(all_equal(&f), 4);
	c = content_at(&f, 4);
	assert_string_equal(c, "head\n");
	free(c);
	/* the log loses the end of its last line, past what is rendered:
	 * the record is gone all the same */
	assert_int_equal(truncate(f.path, (off_t)sizeof(log) - 8), 0);
	c = content_at(&f, 4);
	assert_string_equal(c, CANNOT);
	free(c);
	c = content_at(&f, 3);
	assert_string_equal(c, "raw\n");
	free(c);
	c = content_at(&f, 1);
	assert_string_equal(c, "after nuls\n");
	free(c);
	c = content_at(&f, 2);
	assert_string_equal(c, "crlf\n");
	free(c);
	/* the log shrinks under us: the record cannot be read */
	assert_int_equal(truncate(f.path, 40), 0);
	c = content_at(&f, 2);
	assert_string_equal(c, CANNOT);
	free(c);
	rfx_close(&f);
}

/* A line whose tail after the rendered members is long (not read, the
 * file's size tells) or short (read with them): cut anywhere in it, the
 * record is gone either way. */
static void test_tail_cut(void **state)
{
	static const size_t tails[] = { 10, 4000, 5000, 100000 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		struct tu_log l;
		struct sbuf x;
		struct rfx f;
		char *c;

		tu_log_init(&l);
		sb_init(&x);
		sb_adds(&x, "\"message\":{\"content\":\"head\"},\"toolUseResult\":\"");
		while (x.len < tails[i])
			sb_addc(&x, 't');
		sb_addc(&x, '"');
		tu_row(&l, "user", 1, 0, x.buf);
		rfx_open(&f, l.sb.buf, l.sb.len);
		c = content_at(&f, 1);
		assert_string_equal(c, "head\n");
		free(c);
		assert_int_equal(truncate(f.path, (off_t)l.sb.len - 3), 0);
		c = content_at(&f, 1);
		assert_string_equal(c, CANNOT);
		free(c);
		rfx_close(&f);
		sb_free(&x);
		tu_log_free(&l);
	}
}

/* Nesting: cJSON's limit, and far past it (no recursion, no crash). */
static void test_deep_nesting(void **state)
{
	struct tu_log l;
	struct sbuf x;
	struct rfx f;
	char *c;
	int depths[] = { JV_DEPTH_MAX, JV_DEPTH_MAX + 1, 100000 }, k, i;

	(void)state;
	tu_log_init(&l);
	for (k = 0; k < 3; k++) {
		sb_init(&x);
		/* message, content and the block are 3 deep; v adds the rest */
		sb_adds(&x, "\"message\":{\"content\":[{\"type\":\"t\",\"v\":");
		for (i = 0; i < depths[k] - 3; i++)
			sb_addc(&x, '[');
		for (i = 0; i < depths[k] - 3; i++)
			sb_addc(&x, ']');
		sb_adds(&x, "}]}");
		tu_row(&l, "user", k + 1, k, x.buf);
		sb_free(&x);
	}
	/* deep in a member the renderer does not read: shown */
	sb_init(&x);
	sb_adds(&x, "\"message\":{\"content\":\"fine\"},\"toolUseResult\":");
	for (i = 0; i < 100000; i++)
		sb_addc(&x, '[');
	for (i = 0; i < 100000; i++)
		sb_addc(&x, ']');
	tu_row(&l, "user", 4, 3, x.buf);
	sb_free(&x);
	rfx_open(&f, l.sb.buf, l.sb.len);
	assert_int_equal(all_equal(&f), 4);
	c = content_at(&f, 1);
	assert_non_null(strstr(c, "--- t ---\n"));
	free(c);
	c = content_at(&f, 2);
	assert_string_equal(c, CANNOT);
	free(c);
	c = content_at(&f, 3);
	assert_string_equal(c, CANNOT);
	free(c);
	c = content_at(&f, 4);
	assert_string_equal(c, "fine\n");
	free(c);
	rfx_close(&f);
	tu_log_free(&l);
}

/* Long values (their ends noted while checking): a long text, a long key,
 * long values before the member looked up, invalid UTF-8 in a long text. */
static void test_long_values(void **state)
{
	struct tu_log l;
	struct sbuf x, big;
	struct rfx f;
	char *c;
	int i;

	(void)state;
	sb_init(&big);
	for (i = 0; i < 20000; i++)
		sb_adds(&big, i % 7 ? "line \\\"q\\\" \\\\ x\\n" : "caf\xc3\xa9 \\u00e9\\n");
	tu_log_init(&l);
	sb_init(&x);
	sb_addf(&x, "\"message\":{\"content\":[{\"tool_use_id\":\"t\",\"type\":\"tool_result\","
		"\"content\":\"%s\",\"is_error\":true}]},\"toolUseResult\":{\"stdout\":\"%s\"}",
		big.buf, big.buf);
	tu_row(&l, "user", 1, 0, x.buf);
	sb_reset(&x);
	sb_adds(&x, "\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"W\",\"input\":{\"");
	for (i = 0; i < 300; i++)
		sb_addc(&x, 'k');
	sb_addf(&x, "\":[\"%s\",{\"a\":\"%s\"}],\"z\":1}}]}", big.buf, big.buf);
	tu_row(&l, "assistant", 2, 1, x.buf);
	sb_reset(&x);
	sb_addf(&x, "\"message\":{\"content\":\"%s\xff\"}", big.buf);
	tu_row(&l, "user", 3, 2, x.buf);
	sb_free(&x);
	rfx_open(&f, l.sb.buf, l.sb.len);
	assert_int_equal(all_equal(&f), 3);
	c = content_at(&f, 1);
	assert_memory_equal(c, "--- tool_result (t) [error] ---\ncaf\xc3\xa9 \xc3\xa9\nline \"q\"", 41);
	free(c);
	c = content_at(&f, 3);
	assert_non_null(strstr(c, "\xef\xbf\xbd\n"));
	free(c);
	rfx_close(&f);
	tu_log_free(&l);
	sb_free(&big);
}

/* Records mutated at random bytes (NULs and newlines among them):
 * whatever they become, both renderers agree. */
static const char *const seeds[] = {
	"\"message\":{\"id\":\"m\",\"model\":\"x\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\","
	"\"name\":\"B\",\"input\":{\"c\":\"a\\\"b\",\"n\":[1,2.5,-3e2,true,null]}}]}",
	"\"message\":{\"content\":[{\"tool_use_id\":\"t\",\"type\":\"tool_result\",\"content\":"
	"[{\"type\":\"text\",\"text\":\"x\\ud83d\\ude00\\u00e9\\n\"}],\"is_error\":false}]}",
	"\"message\":{\"content\":\"plain \\udc80 text\\t\\\\ end\"}",
	"\"attachment\":{\"type\":\"a\"},\"rendered\":[{\"content\":\"r\\n\"}]",
	"\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":12},\"content\":\"c\"",
};

#ifndef MUT_ROUNDS
#define MUT_ROUNDS 40		/* logs of 100 mutated rows */
#endif

static const char mutations[] = "\"\\{}[],:0-eu.d\x01 \xff\xc3\0tn\n";

static void test_mutations_agree(void **state)
{
	static const char *const types[] = { "assistant", "user", "user", "attachment", "system" };
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	int round, k, compared = 0;

	(void)state;
	for (round = 0; round < MUT_ROUNDS; round++) {
		struct tu_log l;
		struct rfx f;

		tu_log_init(&l);
		for (k = 0; k < 100; k++) {
			int s = k % 5, j, nmut = 1 + k % 3;
			struct tu_log row;
			size_t n;

			/* the row, then bytes changed anywhere in it (the members
			 * after the rendered ones too: the index reads those) */
			tu_log_init(&row);
			tu_row(&row, types[s], round * 100 + k + 1, k ? round * 100 + k : 0,
			       seeds[s]);
			n = row.sb.len - 1;
			for (j = 0; j < nmut; j++) {
				rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
				row.sb.buf[(rnd >> 33) % n] =
					mutations[(rnd >> 17) % (sizeof(mutations) - 1)];
			}
			sb_add(&l.sb, row.sb.buf, row.sb.len);
			tu_log_free(&row);
		}
		rfx_open(&f, l.sb.buf, l.sb.len);
		compared += (int)all_equal(&f);
		rfx_close(&f);
		tu_log_free(&l);
	}
	print_message("%d mutated rows were nodes\n", compared);
	assert_true(compared > MUT_ROUNDS * 25);
}

/* Every log of the corpus, when it is there. */
static uint32_t corpus_files;

static void corpus_log(const char *path)
{
	struct session *s;
	struct rfx f;

	if (ss_open(path, SS_COMPLETE, &s))
		return;	/* not a session log */
	f.lf = (struct logf *)ss_logf(s);
	f.g = (struct graph *)ss_graph(s);
	corpus_files += all_equal(&f);
	ss_close(s);
}

/* The corpus (SESSFS_CORPUS, else ../shared/corpus): skipped without it,
 * but under CI=true, where its absence fails. */
static void test_corpus_agrees(void **state)
{
	(void)state;
	tu_corpus_logs(corpus_log);
	assert_true(corpus_files > 1000);
}

/* ---- header values ---- */

#define FFFD "\xef\xbf\xbd"

/* Fails unless sb is valid UTF-8 ending in a newline. */
static void assert_text(const struct sbuf *sb)
{
	assert_true(sb->len > 0 && sb->buf[sb->len - 1] == '\n');
	assert_true(tu_utf8(sb->buf, sb->len));
}

/* The lines of the header (before the first blank line). */
static int header_lines(const char *text)
{
	const char *end = strstr(text, "\n\n"), *p;
	int n = 1;

	assert_non_null(end);
	for (p = text; p < end; p++)
		n += *p == '\n';
	return n;
}

static void render_row(struct tu_fx *f, int row, struct sbuf *out)
{
	sb_init(out);
	assert_int_equal(rd_message(f->g, f->lf, tu_id(f, row), out), 0);
}

static void test_plain_prompt(void **state)
{
	struct tu_log l;
	struct tu_fx f;
	struct sbuf sb;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hello there");
	tu_load_log(&f, &l);
	render_row(&f, 1, &sb);
	assert_text(&sb);
	assert_non_null(strstr(sb.buf, "uuid: 00000001-0000-4000-8000-000000000001\n"
				       "parent: -\n"));
	assert_non_null(strstr(sb.buf, "\n\nhello there\n"));
	assert_int_equal(header_lines(sb.buf), 5);
	sb_free(&sb);
	tu_unload(&f);
	tu_log_free(&l);
}

/*
 * A uuid (here the parent's) may hold bytes that are not UTF-8, or escaped
 * control characters; so may a model, a message id, a tool's name and id.
 * The text stays UTF-8 and each value stays on its line (found by the fuzz
 * target: the parent's bytes were copied as they were).
 */
static void test_header_values_stay_utf8_on_their_line(void **state)
{
	struct tu_fx f;
	struct sbuf sb;

	(void)state;
	tu_load(&f,
		"{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":\"p\xff\xfe-1\","
		"\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n"
		"{\"type\":\"assistant\",\"uuid\":\"u2\",\"parentUuid\":\"u\\n1\","
		"\"message\":{\"id\":\"m\\r1\",\"model\":\"x\\ny: z\",\"role\":\"assistant\","
		"\"content\":[{\"type\":\"tool_use\",\"id\":\"t\\n1\",\"name\":\"Ba\\nsh\","
		"\"input\":{}}]}}\n");
	sb_init(&sb);
	assert_int_equal(rd_message(f.g, f.lf, idx_id_find(f.ix, "u1", 2), &sb), 0);
	assert_text(&sb);
	assert_non_null(strstr(sb.buf, "parent: p" FFFD FFFD "-1\n"));
	sb_reset(&sb);
	assert_int_equal(rd_message(f.g, f.lf, idx_id_find(f.ix, "u2", 2), &sb), 0);
	assert_text(&sb);
	assert_non_null(strstr(sb.buf, "parent: u" FFFD "1\n"));
	assert_non_null(strstr(sb.buf, "model: x" FFFD "y: z\n"));
	assert_non_null(strstr(sb.buf, "message-id: m" FFFD "1\n"));
	assert_non_null(strstr(sb.buf, "--- tool_use Ba" FFFD "sh (t" FFFD "1) ---\n"));
	assert_int_equal(header_lines(sb.buf), 7);
	sb_free(&sb);
	tu_unload(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_blocks),
		cmocka_unit_test(test_strings_as_cjson_reads_them),
		cmocka_unit_test(test_numbers_as_cjson_prints_them),
		cmocka_unit_test(test_what_cjson_refuses),
		cmocka_unit_test(test_attachment_and_system),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_line_shapes),
		cmocka_unit_test(test_tail_cut),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_long_values),
		cmocka_unit_test(test_mutations_agree),
		cmocka_unit_test(test_corpus_agrees),
		cmocka_unit_test(test_plain_prompt),
		cmocka_unit_test(test_header_values_stay_utf8_on_their_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
