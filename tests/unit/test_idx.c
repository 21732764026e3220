/*
 * idx: the fields each record keeps, and bad lines (reported, skipped,
 * never fatal). Growth, two threads and copies are in test_idx_extend.c;
 * the helpers in ixutil.h.
 */
#include "ixutil.h"

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

/* A string permissionMode marks the record; any other value does not, and
 * of a key given twice the first counts (as state reads the value). */
static void test_permission_mode_flag(void **state)
{
	struct tu_log l;
	struct ixf x;

	(void)state;
	tu_log_init(&l);
	tu_line(&l, "{\"type\":\"user\",\"permissionMode\":\"plan\",\"message\":{}}");
	tu_line(&l, "{\"type\":\"user\",\"permissionMode\":null,\"message\":{}}");
	tu_line(&l, "{\"type\":\"user\",\"message\":{\"permissionMode\":\"plan\"}}");
	tu_line(&l, "{\"type\":\"user\",\"permissionMode\":\"plan\",\"permissionMode\":1}");
	tu_line(&l, "{\"type\":\"user\",\"permissionMode\":1,\"permissionMode\":\"x\"}");
	ixf_full(&x, l.sb.buf, l.sb.len);
	assert_int_equal(idx_nrecs(x.ix), 5);
	assert_true(idx_rec(x.ix, 0)->flags & IDX_F_PERM_MODE);
	assert_false(idx_rec(x.ix, 1)->flags & IDX_F_PERM_MODE);
	assert_false(idx_rec(x.ix, 2)->flags & IDX_F_PERM_MODE);
	assert_true(idx_rec(x.ix, 3)->flags & IDX_F_PERM_MODE);
	assert_false(idx_rec(x.ix, 4)->flags & IDX_F_PERM_MODE);
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
	sb_adds(&sb, "{\"type\":\"user\",\"uuid\":\"a");	/* a raw NUL byte */
	sb_addc(&sb, '\0');
	sb_adds(&sb, "b\",\"message\":{\"content\":\"x\"}}\n");
	ixf_full(&x, sb.buf, sb.len);
	assert_int_equal(idx_nrecs(x.ix), 4);
	assert_int_equal(idx_nerrs(x.ix), 4);
	assert_int_equal(idx_rec(x.ix, 0)->uuid, 0);
	assert_int_equal(idx_rec(x.ix, 1)->uuid, 0);
	assert_int_equal(idx_rec(x.ix, 2)->uuid, 0);
	assert_int_equal(idx_rec(x.ix, 3)->uuid, 0);
	assert_int_equal(idx_err(x.ix, 0)->code, IDX_E_BAD_UUID);
	assert_int_equal(idx_err(x.ix, 1)->line, 2);
	assert_int_equal(idx_err(x.ix, 2)->line, 3);
	assert_int_equal(idx_err(x.ix, 3)->line, 4);
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
	/* a line that parses whole is a record without waiting for idx_finish() */
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 2);
	assert_int_equal(idx_pending(x.ix), 0);
	assert_int_equal(idx_end(x.ix), strlen(log));
	assert_int_equal(idx_finish(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 2);
	assert_int_equal(idx_nerrs(x.ix), 0);
	assert_int_equal(idx_lines(x.ix), 2);
	assert_int_equal(idx_rec(x.ix, 1)->line, 2);
	assert_int_equal(idx_rec(x.ix, 1)->len, strlen(log) - 16);
	/* its newline, written later (after a CR), ends it: no line, no error */
	append(x.path, "\r\n", 2);
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_lines(x.ix), 2);
	assert_int_equal(idx_nerrs(x.ix), 0);
	assert_int_equal(idx_rec(x.ix, 1)->len, strlen(log) - 16 + 1);
	append(x.path, "{\"type\":\"mode\"}\n", 16);
	assert_int_equal(idx_feed(x.ix, x.fd), 0);
	assert_int_equal(idx_nrecs(x.ix), 3);
	assert_int_equal(idx_rec(x.ix, 2)->line, 3);
	assert_int_equal(idx_rec(x.ix, 2)->off, strlen(log) + 2);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_record_fields),
		cmocka_unit_test(test_render_prefix),
		cmocka_unit_test(test_metadata_record_fields),
		cmocka_unit_test(test_permission_mode_flag),
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
