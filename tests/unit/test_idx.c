/*
 * idx: the index of a log (and the line scanner behind it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>

#include "testutil.h"
#include "idx.h"
#include "jscan.h"

/* An index of a file, and the file. */
struct ixf {
	char *path;
	int fd;
	struct idx *ix;
};

static void ixf_open_n(struct ixf *x, const char *data, size_t n)
{
	x->path = tu_write(data, n);
	x->fd = open(x->path, O_RDONLY);
	x->ix = idx_new();
	assert_true(x->fd >= 0);
	assert_non_null(x->ix);
}

static void ixf_close(struct ixf *x)
{
	idx_free(x->ix);
	close(x->fd);
	tu_remove(x->path);
}

/* Indexes data as a complete log. */
static void ixf_full(struct ixf *x, const char *data, size_t n)
{
	ixf_open_n(x, data, n);
	assert_int_equal(idx_finish(x->ix, x->fd), 0);
}

static void append(const char *path, const char *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static uint32_t id_of(const struct idx *ix, int n)
{
	char u[37];

	tu_uuid(n, u);
	return idx_id_find(ix, u, 36);
}

static const char *atom(const struct idx *ix, uint16_t a)
{
	return idx_atom(ix, a);
}

static int64_t ts_of(const char *iso)
{
	struct js_str s = { iso, strlen(iso), 0 };
	int64_t ms;

	assert_int_equal(js_time(&s, &ms), 0);
	return ms;
}

/* Everything the index holds, compared between two indexes. */
static void assert_same_index(const struct idx *a, const struct idx *b)
{
	uint32_t i;

	assert_int_equal(idx_nrecs(a), idx_nrecs(b));
	assert_int_equal(idx_nerrs(a), idx_nerrs(b));
	assert_int_equal(idx_lines(a), idx_lines(b));
	assert_int_equal(idx_nids(a), idx_nids(b));
	assert_int_equal(idx_end(a), idx_end(b));
	assert_int_equal(idx_pending(a), idx_pending(b));
	for (i = 0; i < idx_nrecs(a); i++) {
		const struct idx_rec *x = idx_rec(a, i), *y = idx_rec(b, i);

		assert_int_equal(x->off, y->off);
		assert_true(x->ts == y->ts);
		assert_true(x->msgid == y->msgid);
		assert_true(x->useid == y->useid);
		assert_int_equal(x->len, y->len);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->uuid, y->uuid);
		assert_int_equal(x->parent, y->parent);
		assert_int_equal(x->aux, y->aux);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->rlen, y->rlen);
		assert_int_equal(x->type_atom, y->type_atom);
		assert_int_equal(x->sub, y->sub);
		assert_int_equal(x->name, y->name);
		assert_string_equal(atom(a, x->type_atom), atom(b, y->type_atom));
		assert_string_equal(atom(a, x->sub), atom(b, y->sub));
		assert_string_equal(atom(a, x->name), atom(b, y->name));
		assert_int_equal(x->type, y->type);
		assert_int_equal(x->block, y->block);
		assert_int_equal(x->drop, y->drop);
	}
	for (i = 0; i < idx_nerrs(a); i++) {
		const struct idx_err *x = idx_err(a, i), *y = idx_err(b, i);

		assert_int_equal(x->off, y->off);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->col, y->col);
		assert_int_equal(x->code, y->code);
	}
	for (i = 1; i <= idx_nids(a); i++) {
		char ba[IDX_UUID_MAX + 1], bb[IDX_UUID_MAX + 1];

		idx_id_buf(a, i, ba);
		idx_id_buf(b, i, bb);
		assert_string_equal(ba, bb);
	}
}

/* ---- fields ---- */

static void test_message_record_fields(void **state)
{
	struct tu_log l;
	struct ixf x;
	const struct idx_rec *r;
	uint64_t off2;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hello");					/* line 1 */
	off2 = l.sb.len;
	tu_attach(&l, 2, 1, "date");					/* 2 */
	tu_asst(&l, 3, 2, "msg_A", "Let me look.");			/* 3 */
	tu_tool_use(&l, 4, 3, "msg_A", "toolu_1");			/* 4 */
	tu_result(&l, 5, 4, "toolu_1");					/* 5 */
	tu_attach(&l, 6, 5, "prompt_snapshot");				/* 6 */
	ixf_full(&x, l.sb.buf, l.sb.len);

	assert_int_equal(idx_nrecs(x.ix), 6);
	assert_int_equal(idx_nerrs(x.ix), 0);
	assert_int_equal(idx_lines(x.ix), 6);
	assert_int_equal(idx_end(x.ix), l.sb.len);
	assert_int_equal(idx_pending(x.ix), 0);

	r = idx_rec(x.ix, 0);
	assert_int_equal(r->type, IDX_T_USER);
	assert_string_equal(atom(x.ix, r->type_atom), "user");
	assert_int_equal(r->uuid, id_of(x.ix, 1));
	assert_int_equal(r->parent, 0);
	assert_true(r->ts == TU_T0);
	assert_int_equal(r->line, 1);
	assert_int_equal(r->off, 0);
	assert_int_equal(r->len, off2 - 1);
	assert_int_equal(r->block, IDX_B_STRING);
	assert_int_equal(r->drop, IDX_D_KEEP);
	assert_true(r->flags & IDX_F_SESSION);
	assert_false(r->flags & IDX_F_SIDECHAIN);

	r = idx_rec(x.ix, 1);
	assert_int_equal(r->type, IDX_T_ATTACHMENT);
	assert_string_equal(atom(x.ix, r->sub), "date");
	assert_int_equal(r->parent, id_of(x.ix, 1));
	assert_int_equal(r->off, off2);
	assert_int_equal(r->line, 2);
	assert_true(r->ts == TU_T0 + 1000);
	assert_true(r->flags & IDX_F_RENDERED);
	assert_true(r->flags & IDX_F_ROLE_SYSTEM);
	assert_false(r->flags & IDX_F_ROLE_USER);

	r = idx_rec(x.ix, 2);
	assert_int_equal(r->type, IDX_T_ASSISTANT);
	assert_int_equal(r->block, IDX_B_TEXT);
	assert_true(r->msgid != 0);
	assert_true(r->msgid == idx_rec(x.ix, 3)->msgid);

	r = idx_rec(x.ix, 3);
	assert_int_equal(r->block, IDX_B_TOOL_USE);
	assert_string_equal(atom(x.ix, r->name), "Bash");
	assert_true(r->useid != 0);

	r = idx_rec(x.ix, 4);
	assert_int_equal(r->type, IDX_T_USER);
	assert_int_equal(r->block, IDX_B_TOOL_RESULT);
	assert_true(r->useid == idx_rec(x.ix, 3)->useid);
	assert_true(r->msgid == 0);

	r = idx_rec(x.ix, 5);
	assert_string_equal(atom(x.ix, r->sub), "prompt_snapshot");
	assert_false(r->flags & IDX_F_RENDERED);
	ixf_close(&x);
	tu_log_free(&l);
}

/* rlen: the line up to the end of the last member a message file is
 * rendered from; what follows (a result's second copy) is not needed. */
static void test_render_prefix(void **state)
{
	static const char log[] =
		"{\"type\":\"user\",\"message\":{\"content\":\"x\"},\"toolUseResult\":"
		"{\"stdout\":\"x\"},\"uuid\":\"a\"}\n"
		"\0\0{\"uuid\":\"b\",\"type\":\"system\",\"content\":\"c\",\"x\":1,"
		"\"compactMetadata\":{\"preTokens\":1} ,\"level\":\"info\"}\n"
		"{\"type\":\"user\",\"message\":{},\"x\":1,\"message\":[1]}\r\n"
		"{\"uuid\":\"c\",\"typ\\u0065\":\"user\",\"type\":\"mode\"}\n";
	struct ixf x;

	(void)state;
	ixf_full(&x, log, sizeof(log) - 1);
	assert_int_equal(idx_nrecs(x.ix), 4);
	assert_int_equal(idx_rec(x.ix, 0)->rlen,
			 strlen("{\"type\":\"user\",\"message\":{\"content\":\"x\"}"));
	/* counted from the line's start, its NULs too */
	assert_int_equal(idx_rec(x.ix, 1)->rlen, 2 + strlen("{\"uuid\":\"b\",\"type\":\"system\","
			 "\"content\":\"c\",\"x\":1,\"compactMetadata\":{\"preTokens\":1}"));
	assert_int_equal(idx_rec(x.ix, 2)->rlen,
			 strlen("{\"type\":\"user\",\"message\":{},\"x\":1,\"message\":[1]"));
	/* a key written with an escape is not one of them */
	assert_int_equal(idx_rec(x.ix, 3)->rlen, strlen("{\"uuid\":\"c\",\"typ\\u0065\":"
			 "\"user\",\"type\":\"mode\""));
	ixf_close(&x);
}

static void test_metadata_record_fields(void **state)
{
	static const int pres[] = { 2 };
	struct tu_log l;
	struct ixf x;
	const struct idx_rec *r;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "hi");
	tu_asst(&l, 2, 1, "m1", "hello");
	tu_boundary(&l, 3, 2, 4, pres, 1);
	tu_summary(&l, 4, 3);
	tu_last_prompt(&l, 4, 1);
	tu_last_prompt(&l, 0, 1);
	tu_line(&l, "{\"type\":\"summary\",\"summary\":\"Title\",\"leafUuid\":"
		"\"00000002-0000-4000-8000-000000000002\"}");
	tu_line(&l, "{\"type\":\"file-history-snapshot\",\"messageId\":"
		"\"00000001-0000-4000-8000-000000000001\",\"snapshot\":{},\"isSnapshotUpdate\":true}");
	tu_line(&l, "{\"type\":\"custom-title\",\"customTitle\":\"x\",\"sessionId\":\"" TU_SID "\"}");
	tu_line(&l, "{\"type\":\"turn_end\",\"x\":1}");
	ixf_full(&x, l.sb.buf, l.sb.len);
	assert_int_equal(idx_nrecs(x.ix), 10);

	r = idx_rec(x.ix, 2);
	assert_int_equal(r->type, IDX_T_SYSTEM);
	assert_string_equal(atom(x.ix, r->sub), "compact_boundary");
	assert_int_equal(r->parent, 0);
	assert_int_equal(r->aux, id_of(x.ix, 2));
	assert_true(r->flags & IDX_F_PRESERVED);
	assert_true(r->flags & IDX_F_SESSION);

	r = idx_rec(x.ix, 3);
	assert_true(r->flags & IDX_F_COMPACT_SUMMARY);
	assert_true(r->flags & IDX_F_VISIBLE_ONLY);

	r = idx_rec(x.ix, 4);
	assert_int_equal(r->type, IDX_T_LAST_PROMPT);
	assert_int_equal(r->aux, id_of(x.ix, 4));
	assert_int_equal(r->flags & (IDX_F_EXPLICIT | IDX_F_LEAF_KEY | IDX_F_LEAF_NULL),
			 IDX_F_EXPLICIT | IDX_F_LEAF_KEY);
	r = idx_rec(x.ix, 5);
	assert_int_equal(r->aux, 0);
	assert_int_equal(r->flags & (IDX_F_EXPLICIT | IDX_F_LEAF_KEY | IDX_F_LEAF_NULL),
			 IDX_F_EXPLICIT | IDX_F_LEAF_KEY | IDX_F_LEAF_NULL);

	r = idx_rec(x.ix, 6);
	assert_int_equal(r->type, IDX_T_SUMMARY);
	assert_int_equal(r->aux, id_of(x.ix, 2));
	assert_false(r->flags & IDX_F_SESSION);

	r = idx_rec(x.ix, 7);
	assert_int_equal(r->type, IDX_T_FH_SNAPSHOT);
	assert_int_equal(r->aux, id_of(x.ix, 1));
	assert_true(r->flags & IDX_F_SNAP_UPDATE);

	assert_int_equal(idx_rec(x.ix, 8)->type, IDX_T_META);
	r = idx_rec(x.ix, 9);
	assert_int_equal(r->type, IDX_T_OTHER);
	assert_string_equal(atom(x.ix, r->type_atom), "turn_end");
	assert_int_equal(idx_atom_find(x.ix, "turn_end"), r->type_atom);
	assert_int_equal(idx_atom_find(x.ix, "never-seen"), 0);
	ixf_close(&x);
	tu_log_free(&l);
}

static void test_ids_are_interned_once(void **state)
{
	struct tu_log l;
	struct ixf x;
	struct sbuf sb;
	uint32_t id2;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_asst(&l, 2, 1, "m", "b");
	tu_user(&l, 3, 2, "c");
	tu_line(&l, "{\"type\":\"user\",\"uuid\":\"Not-A-Canonical-Uuid\",\"parentUuid\":"
		"\"00000003-0000-4000-8000-000000000003\",\"message\":{\"content\":\"x\"}}");
	ixf_full(&x, l.sb.buf, l.sb.len);
	assert_int_equal(idx_nids(x.ix), 4);
	id2 = id_of(x.ix, 2);
	assert_int_equal(idx_rec(x.ix, 1)->uuid, id2);
	assert_int_equal(idx_rec(x.ix, 2)->parent, id2);
	sb_init(&sb);
	idx_id_str(x.ix, id2, &sb);
	assert_string_equal(sb.buf, "00000002-0000-4000-8000-000000000002");
	sb_reset(&sb);
	idx_id_str(x.ix, idx_rec(x.ix, 3)->uuid, &sb);
	assert_string_equal(sb.buf, "Not-A-Canonical-Uuid");
	assert_int_equal(idx_id_find(x.ix, "Not-A-Canonical-Uuid", 20), idx_rec(x.ix, 3)->uuid);
	assert_int_equal(idx_id_find(x.ix, "not-a-canonical-uuid", 20), 0);
	sb_free(&sb);
	ixf_close(&x);
	tu_log_free(&l);
}

/* Enough ids, canonical and not, to make the id table grow several times:
 * every one keeps its number, its text and its lookup. */
static void test_many_ids_survive_table_growth(void **state)
{
	enum { N = 20000 };
	struct tu_log l;
	struct ixf x;
	char line[160], name[40], buf[IDX_UUID_MAX + 1];
	int i;

	(void)state;
	tu_log_init(&l);
	for (i = 1; i <= N; i++) {
		if (i % 7) {
			tu_user(&l, i, (i - 1) % 7 ? i - 1 : 0, "x");
			continue;
		}
		snprintf(name, sizeof(name), "Id-%d", i);
		snprintf(line, sizeof(line), "{\"type\":\"user\",\"uuid\":\"%s\","
			 "\"message\":{\"content\":\"x\"}}", name);
		tu_line(&l, line);
	}
	ixf_full(&x, l.sb.buf, l.sb.len);
	assert_int_equal(idx_nrecs(x.ix), N);
	assert_int_equal(idx_nids(x.ix), N);
	for (i = 1; i <= N; i++) {
		uint32_t id = idx_rec(x.ix, (uint32_t)i - 1)->uuid;

		if (i % 7)
			tu_uuid(i, name);
		else
			snprintf(name, sizeof(name), "Id-%d", i);
		assert_int_equal(id, i);
		assert_int_equal(idx_id_find(x.ix, name, strlen(name)), id);
		assert_int_equal(idx_id_buf(x.ix, id, buf), strlen(name));
		assert_string_equal(buf, name);
	}
	assert_int_equal(idx_id_find(x.ix, "id-7", 4), 0);
	tu_uuid(N + 1, name);
	assert_int_equal(idx_id_find(x.ix, name, 36), 0);
	ixf_close(&x);
	tu_log_free(&l);
}

static void test_unusable_uuid_is_reported_and_ignored(void **state)
{
	struct sbuf sb;
	struct ixf x;

	(void)state;
	sb_init(&sb);
	sb_adds(&sb, "{\"type\":\"user\",\"uuid\":\"\",\"message\":{\"content\":\"x\"}}\n");
	sb_adds(&sb, "{\"type\":\"user\",\"uuid\":\"");
	while (sb.len < 400)
		sb_addc(&sb, 'a');
	sb_adds(&sb, "\",\"message\":{\"content\":\"x\"}}\n");
	sb_adds(&sb, "{\"type\":\"user\",\"uuid\":\"a\\u0000b\",\"message\":{\"content\":\"x\"}}\n");
	ixf_full(&x, sb.buf, sb.len);
	assert_int_equal(idx_nrecs(x.ix), 3);
	assert_int_equal(idx_nerrs(x.ix), 3);
	assert_int_equal(idx_rec(x.ix, 0)->uuid, 0);
	assert_int_equal(idx_rec(x.ix, 1)->uuid, 0);
	assert_int_equal(idx_rec(x.ix, 2)->uuid, 0);
	assert_int_equal(idx_err(x.ix, 0)->code, IDX_E_BAD_UUID);
	assert_int_equal(idx_err(x.ix, 1)->line, 2);
	assert_int_equal(idx_err(x.ix, 2)->line, 3);
	ixf_close(&x);
	sb_free(&sb);
}

/* ---- bad lines ---- */

static void test_bad_lines_reported_with_line_numbers(void **state)
{
	const char *log =
		"{\"type\":\"mode\",\"mode\":\"x\"}\n"	/* 1: record */
		"\n"					/* 2: blank */
		"   \t\n"				/* 3: blank */
		"this is not json\n"			/* 4 */
		"[1,2,3]\n"				/* 5: not an object */
		"{\"a\":1}\n"				/* 6: no type */
		"{\"type\":5}\n"			/* 7: type not a string */
		"{\"type\":\"user\",}\n"		/* 8: not JSON */
		"{\"type\":\"user\"} trailing\n"	/* 9: not JSON */
		"{\"type\":\"mode\"}\n";		/* 10: record */
	static const struct { uint32_t line; uint8_t code; } want[] = {
		{ 2, IDX_E_BLANK }, { 3, IDX_E_BLANK }, { 4, IDX_E_NOT_JSON },
		{ 5, IDX_E_NOT_OBJECT }, { 6, IDX_E_NO_TYPE }, { 7, IDX_E_NO_TYPE },
		{ 8, IDX_E_NOT_JSON }, { 9, IDX_E_NOT_JSON },
	};
	struct ixf x;
	uint32_t i;

	(void)state;
	ixf_full(&x, log, strlen(log));
	assert_int_equal(idx_lines(x.ix), 10);
	assert_int_equal(idx_nrecs(x.ix), 2);
	assert_int_equal(idx_rec(x.ix, 1)->line, 10);
	assert_int_equal(idx_nerrs(x.ix), 8);
	for (i = 0; i < 8; i++) {
		assert_int_equal(idx_err(x.ix, i)->line, want[i].line);
		assert_int_equal(idx_err(x.ix, i)->code, want[i].code);
	}
	/* the column points into the line where it went wrong */
	assert_int_equal(idx_err(x.ix, 6)->col, 14);
	assert_int_equal(idx_err(x.ix, 7)->off, strstr(log, "{\"type\":\"user\"} t") - log);
	assert_true(idx_err(x.ix, 7)->col >= 14);
	ixf_close(&x);
}

static void test_torn_last_line_pending_then_reported(void **state)
{
	const char *log = "{\"type\":\"mode\",\"mode\":\"x\"}\n{\"type\":\"user\",\"uu";
	size_t first = strlen("{\"type\":\"mode\",\"mode\":\"x\"}\n");
	struct ixf x;

	(void)state;
	ixf_open_n(&x, log, strlen(log));
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 1);
	assert_int_equal(idx_nerrs(x.ix), 0);
	assert_int_equal(idx_lines(x.ix), 1);
	assert_int_equal(idx_end(x.ix), first);
	assert_int_equal(idx_pending(x.ix), strlen(log) - first);
	/* feeding again without new bytes changes nothing */
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_lines(x.ix), 1);
	assert_int_equal(idx_pending(x.ix), strlen(log) - first);

	assert_int_equal(idx_finish(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 1);
	assert_int_equal(idx_nerrs(x.ix), 1);
	assert_int_equal(idx_err(x.ix, 0)->code, IDX_E_TORN);
	assert_int_equal(idx_err(x.ix, 0)->line, 2);
	assert_int_equal(idx_err(x.ix, 0)->off, first);
	assert_int_equal(idx_end(x.ix), strlen(log));
	assert_int_equal(idx_pending(x.ix), 0);
	ixf_close(&x);
}

static void test_torn_line_completed_by_append(void **state)
{
	const char *head = "{\"type\":\"mode\"}\n{\"type\":\"us";
	const char *rest = "er\",\"uuid\":\"00000001-0000-4000-8000-000000000001\"}\n";
	struct ixf x;

	(void)state;
	ixf_open_n(&x, head, strlen(head));
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 1);
	append(x.path, rest, strlen(rest));
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 2);
	assert_int_equal(idx_nerrs(x.ix), 0);
	assert_int_equal(idx_rec(x.ix, 1)->type, IDX_T_USER);
	assert_int_equal(idx_rec(x.ix, 1)->uuid, id_of(x.ix, 1));
	assert_int_equal(idx_pending(x.ix), 0);
	ixf_close(&x);
}

static void test_complete_last_line_without_newline_is_a_record(void **state)
{
	const char *log = "{\"type\":\"mode\"}\n{\"type\":\"user\",\"uuid\":"
			  "\"00000001-0000-4000-8000-000000000001\"}";
	struct ixf x;

	(void)state;
	ixf_open_n(&x, log, strlen(log));
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 1);
	assert_int_equal(idx_finish(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 2);
	assert_int_equal(idx_nerrs(x.ix), 0);
	assert_int_equal(idx_rec(x.ix, 1)->line, 2);
	assert_int_equal(idx_rec(x.ix, 1)->len, strlen(log) - 16);
	ixf_close(&x);
}

static void test_nul_prefixed_line_is_a_record(void **state)
{
	static const char log[] = "{\"type\":\"mode\"}\n"
				  "\0\0\0\0{\"type\":\"user\",\"uuid\":"
				  "\"00000001-0000-4000-8000-000000000001\"}\n"
				  "\0\0\n";
	struct ixf x;

	(void)state;
	ixf_full(&x, log, sizeof(log) - 1);
	assert_int_equal(idx_nrecs(x.ix), 2);
	assert_int_equal(idx_rec(x.ix, 1)->type, IDX_T_USER);
	assert_int_equal(idx_rec(x.ix, 1)->uuid, id_of(x.ix, 1));
	assert_int_equal(idx_rec(x.ix, 1)->off, 16);
	assert_int_equal(idx_rec(x.ix, 1)->len, sizeof(log) - 1 - 16 - 4);
	/* a line of NULs only is blank */
	assert_int_equal(idx_nerrs(x.ix), 1);
	assert_int_equal(idx_err(x.ix, 0)->code, IDX_E_BLANK);
	assert_int_equal(idx_err(x.ix, 0)->line, 3);
	ixf_close(&x);
}

static void test_crlf_line_ends(void **state)
{
	const char *log = "{\"type\":\"user\",\"uuid\":\"00000001-0000-4000-8000-000000000001\","
			  "\"timestamp\":\"2026-01-01T10:00:00.000Z\"}\r\n"
			  "not json\r\n"
			  "\r\n"
			  "{\"type\":\"assistant\",\"uuid\":\"00000002-0000-4000-8000-000000000002\","
			  "\"parentUuid\":\"00000001-0000-4000-8000-000000000001\"}\r";
	struct ixf x;
	const struct idx_rec *r;

	(void)state;
	ixf_full(&x, log, strlen(log));
	assert_int_equal(idx_nrecs(x.ix), 2);
	r = idx_rec(x.ix, 0);
	assert_true(r->ts == TU_T0);
	assert_int_equal(r->uuid, id_of(x.ix, 1));
	assert_int_equal(r->len, strchr(log, '\n') - log);
	r = idx_rec(x.ix, 1);
	assert_int_equal(r->type, IDX_T_ASSISTANT);
	assert_int_equal(r->parent, id_of(x.ix, 1));
	assert_int_equal(r->line, 4);
	assert_int_equal(idx_nerrs(x.ix), 2);
	assert_int_equal(idx_err(x.ix, 0)->code, IDX_E_NOT_JSON);
	assert_int_equal(idx_err(x.ix, 0)->line, 2);
	assert_int_equal(idx_err(x.ix, 1)->code, IDX_E_BLANK);
	ixf_close(&x);
}

/* A user row whose content is a string of n bytes (with escapes in it). */
static void add_big_row(struct sbuf *sb, int uuid, int parent, size_t n)
{
	char u[37], p[37];
	size_t start;

	tu_uuid(uuid, u);
	tu_uuid(parent, p);
	sb_addf(sb, "{\"parentUuid\":\"%s\",\"type\":\"user\",\"message\":{\"role\":\"user\","
		"\"content\":\"", p);
	start = sb->len;
	sb_grow(sb, n);
	memset(sb->buf + sb->len, 'x', n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	/* escapes scattered through it, one across the 1 MiB mark */
	memcpy(sb->buf + start + 1000, "\\\"", 2);
	memcpy(sb->buf + start + IDX_CHUNK - 1, "\\\\", 2);
	sb_addf(sb, "\"},\"uuid\":\"%s\",\"timestamp\":\"2026-01-01T10:00:05.000Z\","
		"\"sessionId\":\"" TU_SID "\"}\n", u);
}

static void test_ten_megabyte_line(void **state)
{
	struct tu_log l;
	struct ixf x;
	const struct idx_rec *r;
	uint64_t off, len;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "first");
	off = l.sb.len;
	add_big_row(&l.sb, 2, 1, 10u << 20);
	len = l.sb.len - off - 1;
	tu_asst(&l, 3, 2, "m", "after");
	ixf_full(&x, l.sb.buf, l.sb.len);

	assert_int_equal(idx_nrecs(x.ix), 3);
	assert_int_equal(idx_nerrs(x.ix), 0);
	r = idx_rec(x.ix, 1);
	assert_int_equal(r->off, off);
	assert_int_equal(r->len, len);
	assert_int_equal(r->line, 2);
	assert_int_equal(r->type, IDX_T_USER);
	assert_int_equal(r->uuid, id_of(x.ix, 2));
	assert_int_equal(r->parent, id_of(x.ix, 1));
	assert_true(r->ts == ts_of("2026-01-01T10:00:05.000Z"));
	assert_int_equal(r->block, IDX_B_STRING);
	assert_true(r->flags & IDX_F_SESSION);
	r = idx_rec(x.ix, 2);
	assert_int_equal(r->line, 3);
	assert_int_equal(r->off, off + len + 1);
	assert_int_equal(r->parent, id_of(x.ix, 2));
	ixf_close(&x);
	tu_log_free(&l);
}

static void test_long_torn_last_line_stays_pending(void **state)
{
	struct tu_log l;
	struct ixf x;
	uint64_t off;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "first");
	off = l.sb.len;
	add_big_row(&l.sb, 2, 1, 3u << 20);
	l.sb.len -= 10;		/* cut the line and its newline */
	ixf_open_n(&x, l.sb.buf, l.sb.len);
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 1);
	assert_int_equal(idx_lines(x.ix), 1);
	assert_int_equal(idx_end(x.ix), off);
	assert_int_equal(idx_pending(x.ix), l.sb.len - off);
	assert_int_equal(idx_finish(x.ix, x.fd), 0);
	assert_int_equal(idx_nerrs(x.ix), 1);
	assert_int_equal(idx_err(x.ix, 0)->code, IDX_E_TORN);
	assert_int_equal(idx_err(x.ix, 0)->line, 2);
	assert_int_equal(idx_end(x.ix), l.sb.len);
	ixf_close(&x);
	tu_log_free(&l);
}

/* 100,000 nested arrays as the value of key, in a row of uuid n. */
static void add_deep_row(struct sbuf *sb, int n, const char *key, int balanced)
{
	char u[37];
	int i, depth = 100000;

	tu_uuid(n, u);
	sb_addf(sb, "{\"type\":\"user\",\"uuid\":\"%s\",\"message\":{\"role\":\"user\","
		"\"content\":\"deep\"},\"%s\":", u, key);
	for (i = 0; i < depth; i++)
		sb_addc(sb, '[');
	for (i = 0; i < depth - !balanced; i++)
		sb_addc(sb, ']');
	sb_adds(sb, ",\"timestamp\":\"2026-01-01T10:00:00.000Z\"}\n");
}

static void test_deep_json_line(void **state)
{
	struct sbuf sb;
	struct ixf x;

	(void)state;
	sb_init(&sb);
	sb_adds(&sb, "{\"type\":\"mode\"}\n");
	add_deep_row(&sb, 1, "deep", 1);
	add_deep_row(&sb, 2, "deep", 0);
	sb_adds(&sb, "{\"type\":\"user\",\"uuid\":\"00000003-0000-4000-8000-000000000003\","
		"\"message\":{\"role\":\"user\",\"content\":[");
	{
		int i;

		for (i = 0; i < 100000; i++)
			sb_addc(&sb, '[');
		for (i = 0; i < 100000; i++)
			sb_addc(&sb, ']');
	}
	sb_adds(&sb, "]}}\n{\"type\":\"mode\"}\n");
	ixf_full(&x, sb.buf, sb.len);

	assert_int_equal(idx_lines(x.ix), 5);
	assert_int_equal(idx_nrecs(x.ix), 4);
	/* balanced: scanned, fields after the deep value read */
	assert_int_equal(idx_rec(x.ix, 1)->uuid, id_of(x.ix, 1));
	assert_true(idx_rec(x.ix, 1)->ts == TU_T0);
	/* unbalanced: reported on its line */
	assert_int_equal(idx_nerrs(x.ix), 1);
	assert_int_equal(idx_err(x.ix, 0)->line, 3);
	assert_int_equal(idx_err(x.ix, 0)->code, IDX_E_NOT_JSON);
	/* deep content with no typed block: the repair drops it */
	assert_int_equal(idx_rec(x.ix, 2)->uuid, id_of(x.ix, 3));
	assert_int_equal(idx_rec(x.ix, 2)->drop, IDX_D_NO_BLOCKS);
	assert_int_equal(idx_rec(x.ix, 3)->line, 5);
	ixf_close(&x);
	sb_free(&sb);
}

static void test_invalid_utf8_and_lone_surrogates_still_index(void **state)
{
	const char *log =
		"{\"type\":\"user\",\"uuid\":\"00000001-0000-4000-8000-000000000001\","
		"\"message\":{\"role\":\"user\",\"content\":\"bad \xff\xfe bytes \\udc80 and \\ud800\"}}\n"
		"{\"type\":\"assistant\",\"uuid\":\"00000002-0000-4000-8000-000000000002\","
		"\"parentUuid\":\"00000001-0000-4000-8000-000000000001\",\"message\":{\"id\":\"m\xc3\","
		"\"content\":[{\"type\":\"text\",\"text\":\"\xed\xa0\x80\"}]}}\n";
	struct ixf x;

	(void)state;
	ixf_full(&x, log, strlen(log));
	assert_int_equal(idx_nrecs(x.ix), 2);
	assert_int_equal(idx_nerrs(x.ix), 0);
	assert_int_equal(idx_rec(x.ix, 0)->block, IDX_B_STRING);
	assert_int_equal(idx_rec(x.ix, 1)->parent, id_of(x.ix, 1));
	assert_int_equal(idx_rec(x.ix, 1)->block, IDX_B_TEXT);
	assert_true(idx_rec(x.ix, 1)->msgid != 0);
	ixf_close(&x);
}

static void test_escaped_type_and_keys_decode(void **state)
{
	/* "type" spelled with an escape in its value, uuid with \u escapes */
	const char *log = "{\"type\":\"us\\u0065r\",\"uuid\":\"00000001-0000-4000-8000-00000000000\\u0031\","
			  "\"message\":{\"content\":\"x\"}}\n";
	struct ixf x;

	(void)state;
	ixf_full(&x, log, strlen(log));
	assert_int_equal(idx_nrecs(x.ix), 1);
	assert_int_equal(idx_rec(x.ix, 0)->uuid, id_of(x.ix, 1));
	assert_string_equal(atom(x.ix, idx_rec(x.ix, 0)->type_atom), "user");
	assert_int_equal(idx_rec(x.ix, 0)->type, IDX_T_USER);
	ixf_close(&x);
}

/* ---- extension ---- */

/* A log with every kind of line the index treats differently. */
static void varied_log(struct sbuf *out)
{
	static const int pres[] = { 3 };
	struct tu_log l;

	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"queue-operation\",\"operation\":\"enqueue\"}");
	tu_user(&l, 1, 0, "Show me the files");
	tu_attach(&l, 2, 1, "environment");
	tu_tool_use(&l, 3, 2, "msg_1", "toolu_a");
	tu_tool_use(&l, 4, 3, "msg_1", "toolu_b");
	tu_result(&l, 5, 4, "toolu_b");
	tu_result(&l, 6, 3, "toolu_a");
	tu_line(&l, "not json at all");
	tu_line(&l, "");
	tu_progress(&l, 7, 6);
	tu_asst(&l, 8, 7, "msg_2", "done \\\" with escapes \xc3\xa9");
	tu_last_prompt(&l, 8, 0);
	sb_adds(&l.sb, "\r\n");
	sb_add(&l.sb, "\0\0", 2);
	tu_boundary(&l, 9, 8, 10, pres, 1);
	tu_summary(&l, 10, 9);
	tu_line(&l, "[1,2]");
	sb_adds(&l.sb, "{\"type\":\"user\",\"uuid\":\"x\"}\r\n");
	tu_user(&l, 11, 10, "next");
	tu_line(&l, "{\"type\":\"custom-title\",\"customTitle\":\"t\"}");
	sb_adds(&l.sb, "{\"type\":\"user\",\"uuid\":\"torn");	/* no newline */
	sb_add(out, l.sb.buf, l.sb.len);
	tu_log_free(&l);
}

/* Indexes data in steps: cut[0] bytes, then up to cut[1], ... then all;
 * the last step on two threads when min is not 0 (idx_feed2(min)). */
static void index_in_steps(const char *data, size_t n, const size_t *cut, int ncut,
			   uint64_t min, struct idx *one)
{
	struct ixf x;
	size_t have;
	int i;

	ixf_open_n(&x, data, cut[0]);
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	have = cut[0];
	for (i = 1; i <= ncut; i++) {
		size_t to = i < ncut ? cut[i] : n;

		append(x.path, data + have, to - have);
		have = to;
		assert_int_equal(i == ncut && min ? idx_feed2(x.ix, x.fd, min)
						  : idx_feed(x.ix, x.fd), 0);
	}
	assert_int_equal(idx_finish(x.ix, x.fd), 0);
	assert_same_index(x.ix, one);
	ixf_close(&x);
}

/* The varied log indexed in two steps, cut at every byte, the second step
 * as index_in_steps() takes min: the same index as one pass. */
static void every_split(uint64_t min)
{
	struct sbuf log;
	struct ixf one;
	size_t n;

	sb_init(&log);
	varied_log(&log);
	ixf_full(&one, log.buf, log.len);
	assert_true(idx_nrecs(one.ix) >= 15);
	assert_true(idx_nerrs(one.ix) >= 4);
	for (n = 0; n <= log.len; n++)
		index_in_steps(log.buf, log.len, &n, 1, min, one.ix);
	if (min)	/* below min: one thread */
		index_in_steps(log.buf, log.len, (size_t[]){ 0 }, 1, log.len + 1, one.ix);
	ixf_close(&one);
	sb_free(&log);
}

static void test_extension_every_split_matches_one_pass(void **state)
{
	(void)state;
	every_split(0);
}

static void test_extension_three_steps_match_one_pass(void **state)
{
	struct sbuf log;
	struct ixf one;
	size_t n, cut[3];

	(void)state;
	sb_init(&log);
	varied_log(&log);
	ixf_full(&one, log.buf, log.len);
	for (n = 1; n < log.len; n += 7) {
		cut[0] = n / 3;
		cut[1] = n;
		cut[2] = n + (log.len - n) / 2;
		index_in_steps(log.buf, log.len, cut, 3, 0, one.ix);
	}
	ixf_close(&one);
	sb_free(&log);
}

/* The varied log (without its torn tail) until it holds lead bytes, then a
 * row of 3 MB (at *start), a row of nearly IDX_CHUNK (at *big), a last
 * short row. */
static void long_rows_log(struct sbuf *log, size_t lead, size_t *start, size_t *big)
{
	do {
		varied_log(log);
		log->len -= strlen("{\"type\":\"user\",\"uuid\":\"torn");
	} while (log->len < lead);
	*start = log->len;
	add_big_row(log, 20, 11, 3u << 20);
	*big = log->len;
	add_big_row(log, 21, 20, IDX_CHUNK - 200);
	sb_adds(log, "{\"type\":\"mode\"}\n");
}

static void test_extension_across_long_lines(void **state)
{
	struct sbuf log;
	struct ixf one;
	size_t start, big, cuts[12], i;

	(void)state;
	sb_init(&log);
	long_rows_log(&log, 0, &start, &big);
	ixf_full(&one, log.buf, log.len);
	assert_int_equal(idx_rec(one.ix, idx_nrecs(one.ix) - 3)->off, start);
	cuts[0] = start;
	cuts[1] = start + 1;
	cuts[2] = start + IDX_CHUNK - 1;
	cuts[3] = start + IDX_CHUNK;
	cuts[4] = start + IDX_CHUNK + 1;
	cuts[5] = start + (5u << 19);
	cuts[6] = big - 1;
	cuts[7] = big;
	cuts[8] = big + 1;
	cuts[9] = big + IDX_CHUNK / 2;
	cuts[10] = log.len - 1;
	cuts[11] = 10;
	for (i = 0; i < 12; i++)
		index_in_steps(log.buf, log.len, &cuts[i], 1, 0, one.ix);
	ixf_close(&one);
	sb_free(&log);
}

/* Wherever the halves meet (the middle of what is left moves with the
 * part indexed first), two threads give what one pass gives: ids and
 * atoms first met in the second half keep one pass's numbers. */
static void test_two_threads_match_one_pass(void **state)
{
	(void)state;
	every_split(1);
}

/* Long rows in the second half (4 MB of short rows lead), a long row at
 * the middle (no line start near it: one thread does it all), a long row
 * in the first half. */
static void test_two_threads_across_long_lines(void **state)
{
	struct sbuf log;
	struct ixf one;
	size_t start, big, cuts[5], i;

	(void)state;
	sb_init(&log);
	long_rows_log(&log, 4u << 20, &start, &big);
	ixf_full(&one, log.buf, log.len);
	cuts[0] = 0;
	cuts[1] = start - 1000;
	cuts[2] = start;
	cuts[3] = big;
	cuts[4] = log.len - 5;
	for (i = 0; i < 5; i++)
		index_in_steps(log.buf, log.len, &cuts[i], 1, 1, one.ix);
	ixf_close(&one);
	sb_free(&log);
}

/* A copy of some records: their own ids and atoms, then growth as usual. */
static void test_copy_some_then_feed(void **state)
{
	struct tu_log l, more;
	struct ixf x;
	struct idx *c;
	uint8_t keep[8] = { 0, 1, 0, 1, 0, 0, 0, 0 };
	const struct idx_rec *r;
	char buf[IDX_UUID_MAX + 1];
	int fd;

	(void)state;
	tu_log_init(&l);
	tu_user(&l, 1, 0, "a");
	tu_tool_use(&l, 2, 1, "m1", "toolu_1");
	tu_result(&l, 3, 2, "toolu_1");
	tu_system(&l, 4, 3, "turn_duration");
	ixf_open_n(&x, l.sb.buf, l.sb.len);
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 4);
	assert_int_equal(idx_copy_some(x.ix, keep, &c), 0);
	assert_int_equal(idx_nrecs(c), 2);
	assert_int_equal(idx_nerrs(c), 0);
	assert_int_equal(idx_end(c), idx_end(x.ix));
	assert_int_equal(idx_lines(c), 4);
	r = idx_rec(c, 0);
	assert_int_equal(r->line, 2);
	assert_string_equal(atom(c, r->name), "Bash");
	assert_string_equal(atom(c, r->type_atom), "assistant");
	idx_id_buf(c, r->uuid, buf);
	assert_string_equal(buf, "00000002-0000-4000-8000-000000000002");
	idx_id_buf(c, r->parent, buf);
	assert_string_equal(buf, "00000001-0000-4000-8000-000000000001");
	r = idx_rec(c, 1);
	assert_string_equal(atom(c, r->sub), "turn_duration");
	assert_int_equal(r->parent, id_of(c, 3));
	assert_int_equal(idx_nids(c), 4);
	assert_int_equal(idx_nids(x.ix), 4);
	/* It goes on from where the source stopped. */
	tu_log_init(&more);
	tu_asst(&more, 5, 4, "m2", "b");
	append(x.path, more.sb.buf, more.sb.len);
	fd = open(x.path, O_RDONLY);
	assert_int_equal(idx_feed(c, fd), 0);
	close(fd);
	assert_int_equal(idx_nrecs(c), 3);
	assert_int_equal(idx_rec(c, 2)->line, 5);
	assert_int_equal(idx_rec(c, 2)->parent, id_of(c, 4));
	idx_free(c);
	/* Only the ids the kept records name are interned. */
	memset(keep, 0, sizeof(keep));
	keep[0] = 1;
	assert_int_equal(idx_copy_some(x.ix, keep, &c), 0);
	assert_int_equal(idx_nids(c), 1);
	idx_free(c);
	ixf_close(&x);
	tu_log_free(&more);
	tu_log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_some_then_feed),
		cmocka_unit_test(test_message_record_fields),
		cmocka_unit_test(test_render_prefix),
		cmocka_unit_test(test_metadata_record_fields),
		cmocka_unit_test(test_ids_are_interned_once),
		cmocka_unit_test(test_many_ids_survive_table_growth),
		cmocka_unit_test(test_unusable_uuid_is_reported_and_ignored),
		cmocka_unit_test(test_bad_lines_reported_with_line_numbers),
		cmocka_unit_test(test_torn_last_line_pending_then_reported),
		cmocka_unit_test(test_torn_line_completed_by_append),
		cmocka_unit_test(test_complete_last_line_without_newline_is_a_record),
		cmocka_unit_test(test_nul_prefixed_line_is_a_record),
		cmocka_unit_test(test_crlf_line_ends),
		cmocka_unit_test(test_ten_megabyte_line),
		cmocka_unit_test(test_long_torn_last_line_stays_pending),
		cmocka_unit_test(test_deep_json_line),
		cmocka_unit_test(test_invalid_utf8_and_lone_surrogates_still_index),
		cmocka_unit_test(test_escaped_type_and_keys_decode),
		cmocka_unit_test(test_extension_every_split_matches_one_pass),
		cmocka_unit_test(test_extension_three_steps_match_one_pass),
		cmocka_unit_test(test_extension_across_long_lines),
		cmocka_unit_test(test_two_threads_match_one_pass),
		cmocka_unit_test(test_two_threads_across_long_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
