/*
 * state: worktree, agent and cost records, the read cache, the file
 * history, and what hostile paths in a log become.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "tu_fixture.h"
#include "names.h"
#include "state.h"

/* ---- building logs ---- */

/* The result row of toolid: content (a JSON value), is_error, and the
 * structured toolUseResult (JSON, or NULL for none). */
static void result(struct tu_log *l, int uuid, int parent, const char *toolid,
		   const char *content, int is_error, const char *tur)
{
	struct sbuf x;

	sb_init(&x);
	sb_addf(&x, "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"%s\","
		"\"type\":\"tool_result\",\"content\":%s%s}]}", toolid, content,
		is_error ? ",\"is_error\":true" : "");
	if (tur)
		sb_addf(&x, ",\"toolUseResult\":%s", tur);
	tu_row(l, "user", uuid, parent, x.buf);
	sb_free(&x);
}

/* A Read of path (a JSON string) answered with text as the structured
 * file content. */
static void read_ok(struct tu_log *l, int uuid, const char *path, const char *text)
{
	char id[32], input[1024], tur[2048];

	snprintf(id, sizeof(id), "toolu_%d", uuid);
	snprintf(input, sizeof(input), "{\"file_path\":%s}", path);
	snprintf(tur, sizeof(tur), "{\"type\":\"text\",\"file\":{\"filePath\":%s,\"content\":"
		 "\"%s\",\"numLines\":1,\"startLine\":1,\"totalLines\":1}}", path, text);
	tu_tool_call(l, uuid, uuid - 1, "Read", id, input);
	result(l, uuid + 1, uuid, id, "\"     1\\tx\"", 0, tur);
}

static void meta(struct tu_log *l, const char *type, const char *member, const char *sid)
{
	sb_addf(&l->sb, "{\"type\":\"%s\",%s,\"sessionId\":\"%s\"}\n", type, member, sid);
}

/* ---- looking at a state ---- */

struct fx {
	struct tu_fx f;
	struct st_state *st;
	char *dir;		/* a file-history folder, or NULL */
};

static void build(struct fx *x, const struct tu_log *l)
{
	struct st_opts o = { NULL, x->dir };

	tu_load_log(&x->f, l);
	assert_int_equal(st_build(x->f.g, x->f.c, NULL, 0, x->f.lf, &o, &x->st), 0);
}

static void unbuild(struct fx *x)
{
	st_free(x->st);
	tu_unload(&x->f);
	x->st = NULL;
}

/* The node at path ("a/b/c" below state/), or ST_NONE. */
static uint32_t at(const struct st_state *st, const char *path)
{
	char part[NM_MAX + 1];
	uint32_t node = 0;

	while (*path && node != ST_NONE) {
		size_t n = strcspn(path, "/");

		if (n > NM_MAX)
			return ST_NONE;
		memcpy(part, path, n);
		part[n] = '\0';
		node = st_lookup(st, node, part);
		path += n + (path[n] == '/');
	}
	return node;
}

/* The content of the file at path; a new string (free() it). */
static char *text(const struct st_state *st, const char *path)
{
	struct sbuf sb;
	uint32_t node = at(st, path);

	assert_true(node != ST_NONE);
	sb_init(&sb);
	assert_int_equal(st_render(st, node, &sb), 0);
	return sb_detach(&sb, NULL);
}

static cJSON *json(const struct st_state *st, const char *path)
{
	char *s = text(st, path);
	cJSON *j = cJSON_Parse(s);

	free(s);
	assert_non_null(j);
	return j;
}

static const char *jstr(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	assert_non_null(v);
	return cJSON_IsString(v) ? v->valuestring : "(not a string)";
}

static char *errors(const struct st_state *st)
{
	struct sbuf sb;

	sb_init(&sb);
	st_errors_text(st, &sb);
	return sb_detach(&sb, NULL);
}

/* Every name is a file name; every parent comes before its child; every
 * file renders. */
static void check_tree(const struct st_state *st)
{
	uint32_t i;

	assert_true(st_is_dir(st, 0));
	assert_int_equal(st_parent(st, 0), ST_NONE);
	for (i = 1; i < st_count(st); i++) {
		const char *n = st_name(st, i);
		struct sbuf sb;

		assert_true(strlen(n) >= 1 && strlen(n) <= NM_MAX);
		assert_null(strchr(n, '/'));
		assert_string_not_equal(n, ".");
		assert_string_not_equal(n, "..");
		assert_true(st_parent(st, i) < i);
		assert_true(st_is_dir(st, st_parent(st, i)));
		assert_int_equal(st_lookup(st, st_parent(st, i), n), i);
		sb_init(&sb);
		if (!st_is_dir(st, i))
			st_render(st, i, &sb);
		sb_free(&sb);
	}
}

/* A prompt, then rows start at 2. */
static void start(struct tu_log *l)
{
	tu_log_init(l);
	tu_user(l, 1, 0, "go");
}

/* ---- worktree, agent, cost ---- */

#define WT(path) "\"worktreeSession\":{\"originalCwd\":\"/repo\",\"worktreePath\":\"" path \
	"\",\"worktreeName\":\"feat\",\"worktreeBranch\":\"wt-feat\"}"

static void test_worktree_object_null_absent(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	cJSON *j;

	(void)state;
	start(&l);
	tu_asst(&l, 2, 1, "m2", "ok");
	build(&x, &l);
	assert_int_equal(at(x.st, "worktree.json"), ST_NONE);
	unbuild(&x);

	meta(&l, "worktree-state", WT("/tmp"), TU_SID);
	build(&x, &l);
	j = json(x.st, "worktree.json");
	assert_string_equal(jstr(cJSON_GetObjectItem(j, "worktreeSession"), "worktreePath"), "/tmp");
	assert_string_equal(jstr(cJSON_GetObjectItem(j, "worktreeSession"), "worktreeBranch"),
			    "wt-feat");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "worktreePathExists")));
	cJSON_Delete(j);
	unbuild(&x);

	meta(&l, "worktree-state", "\"worktreeSession\":null", TU_SID);
	build(&x, &l);
	j = json(x.st, "worktree.json");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "worktreeSession")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "worktreePathExists")));
	cJSON_Delete(j);
	unbuild(&x);

	/* Another session's record does not count; a path gone says false. */
	meta(&l, "worktree-state", WT("/nonexistent/wt"), TU_SID);
	meta(&l, "worktree-state", "\"worktreeSession\":null", "other-session");
	build(&x, &l);
	j = json(x.st, "worktree.json");
	assert_string_equal(jstr(cJSON_GetObjectItem(j, "worktreeSession"), "worktreePath"),
			    "/nonexistent/wt");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "worktreePathExists")));
	cJSON_Delete(j);
	unbuild(&x);
	tu_log_free(&l);
}

static void test_agent_last_record_wins(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	cJSON *j;

	(void)state;
	start(&l);
	meta(&l, "custom-title", "\"customTitle\":\"first\"", TU_SID);
	meta(&l, "agent-setting", "\"agentSetting\":\"reviewer\"", TU_SID);
	meta(&l, "permission-mode", "\"permissionMode\":\"plan\"", TU_SID);
	tu_row(&l, "user", 2, 1, "\"message\":{\"role\":\"user\",\"content\":\"more\"},"
	       "\"permissionMode\":\"acceptEdits\"");
	tu_asst(&l, 3, 2, "m3", "ok");
	meta(&l, "custom-title", "\"customTitle\":\"second\"", TU_SID);
	meta(&l, "agent-color", "\"agentColor\":\"blue\"", TU_SID);
	meta(&l, "agent-setting", "\"agentSetting\":\"intruder\"", "other-session");
	meta(&l, "cost-state", "\"totalCostUSD\":0.5", TU_SID);
	build(&x, &l);
	j = json(x.st, "agent.json");
	assert_string_equal(jstr(j, "agentSetting"), "reviewer");
	assert_string_equal(jstr(j, "customTitle"), "second");
	assert_string_equal(jstr(j, "agentColor"), "blue");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "agentName")));
	/* The user row is newer than the permission-mode record. */
	assert_string_equal(jstr(j, "permissionMode"), "acceptEdits");
	cJSON_Delete(j);
	j = json(x.st, "cost.json");
	assert_true(cJSON_GetObjectItem(j, "totalCostUSD")->valuedouble == 0.5);
	cJSON_Delete(j);
	unbuild(&x);

	meta(&l, "permission-mode", "\"permissionMode\":\"dontAsk\"", TU_SID);
	build(&x, &l);
	j = json(x.st, "agent.json");
	assert_string_equal(jstr(j, "permissionMode"), "dontAsk");
	cJSON_Delete(j);
	check_tree(x.st);
	unbuild(&x);
	tu_log_free(&l);
}

/* ---- read cache ---- */

static void test_read_write_and_failures(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	char *s;
	cJSON *j;

	(void)state;
	start(&l);
	read_ok(&l, 2, "\"/repo/a.txt\"", "old a\\n");
	read_ok(&l, 4, "\"/repo/a.txt\"", "new a\\n");
	/* A failed read later does not replace the good one. */
	tu_tool_call(&l, 6, 5, "Read", "toolu_6", "{\"file_path\":\"/repo/a.txt\"}");
	result(&l, 7, 6, "toolu_6", "\"Error: gone\"", 1, "\"Error: gone\"");
	/* A failed read of a new file adds nothing. */
	tu_tool_call(&l, 8, 7, "Read", "toolu_8", "{\"file_path\":\"/repo/missing.txt\"}");
	result(&l, 9, 8, "toolu_8", "\"Error: File does not exist.\"", 1, NULL);
	/* Write: its content, with a NUL kept. */
	tu_tool_call(&l, 10, 9, "Write", "toolu_10",
	    "{\"file_path\":\"/repo/w.txt\",\"content\":\"line\\u0000two\\n\"}");
	result(&l, 11, 10, "toolu_10", "\"File created\"", 0, "{\"type\":\"create\"}");
	/* A relative path resolves against the row's cwd. */
	read_ok(&l, 12, "\"rel/b.txt\"", "b");
	/* No structured result: the tool result's text. */
	tu_tool_call(&l, 14, 13, "Read", "toolu_14", "{\"file_path\":\"/repo/c.txt\"}");
	result(&l, 15, 14, "toolu_14", "[{\"type\":\"text\",\"text\":\"     1\\tc\"}]", 0, NULL);
	/* An Edit of a.txt afterwards is noted. */
	tu_tool_call(&l, 16, 15, "Edit", "toolu_16", "{\"file_path\":\"/repo/a.txt\",\"old_string\":\"a\","
	    "\"new_string\":\"b\"}");
	result(&l, 17, 16, "toolu_16", "\"ok\"", 0, NULL);
	tu_asst(&l, 18, 17, "m18", "done");
	build(&x, &l);

	s = text(x.st, "read-cache/repo/a.txt");
	assert_string_equal(s, "new a\n");
	free(s);
	assert_int_equal(at(x.st, "read-cache/repo/missing.txt"), ST_NONE);
	{
		struct sbuf sb;

		sb_init(&sb);
		assert_int_equal(st_render(x.st, at(x.st, "read-cache/repo/w.txt"), &sb), 0);
		assert_int_equal(sb.len, 9);
		assert_memory_equal(sb.buf, "line\0two\n", 9);
		sb_free(&sb);
	}
	s = text(x.st, "read-cache/home/user/src/app/rel/b.txt");
	assert_string_equal(s, "b");
	free(s);
	s = text(x.st, "read-cache/repo/c.txt");
	assert_string_equal(s, "     1\tc");
	free(s);

	j = json(x.st, "read-cache.json");
	assert_int_equal(cJSON_GetArraySize(j), 4);
	assert_string_equal(jstr(cJSON_GetArrayItem(j, 0), "path"), "/repo/a.txt");
	assert_string_equal(jstr(cJSON_GetArrayItem(j, 0), "tool"), "Read");
	assert_string_equal(jstr(cJSON_GetArrayItem(j, 0), "uuid"),
			    "00000004-0000-4000-8000-000000000004");
	assert_string_equal(jstr(cJSON_GetArrayItem(j, 0), "editedAfter"),
			    "00000017-0000-4000-8000-000000000017");
	assert_string_equal(jstr(cJSON_GetArrayItem(j, 1), "tool"), "Write");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 1), "partial")));
	cJSON_Delete(j);
	s = errors(x.st);
	assert_string_equal(s, "");
	free(s);
	check_tree(x.st);
	unbuild(&x);
	tu_log_free(&l);
}

static void test_partial_reads(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	struct sbuf sb;
	uint32_t node;

	(void)state;
	start(&l);
	tu_tool_call(&l, 2, 1, "Read", "toolu_2", "{\"file_path\":\"/repo/big.c\",\"offset\":10,\"limit\":5}");
	result(&l, 3, 2, "toolu_2", "\"...\"", 0, "{\"type\":\"text\",\"file\":{\"filePath\":"
	       "\"/repo/big.c\",\"content\":\"l10\\n\",\"numLines\":5,\"startLine\":10,"
	       "\"totalLines\":900}}");
	/* Truncated by the tool without an offset or limit: partial too. */
	read_ok(&l, 4, "\"/repo/whole.c\"", "all");
	tu_tool_call(&l, 6, 5, "Read", "toolu_6", "{\"file_path\":\"/repo/long.c\"}");
	result(&l, 7, 6, "toolu_6", "\"...\"", 0, "{\"type\":\"text\",\"file\":{\"filePath\":"
	       "\"/repo/long.c\",\"content\":\"x\",\"numLines\":2000,\"startLine\":1,"
	       "\"totalLines\":3000}}");
	/* An image: its bytes, decoded. */
	tu_tool_call(&l, 8, 7, "Read", "toolu_8", "{\"file_path\":\"/repo/i.png\"}");
	result(&l, 9, 8, "toolu_8", "[{\"type\":\"image\",\"source\":{}}]", 0,
	       "{\"type\":\"image\",\"file\":{\"base64\":\"iVBORw0KGgo=\",\"type\":\"image/png\"}}");
	tu_asst(&l, 10, 9, "m10", "done");
	build(&x, &l);

	sb_init(&sb);
	assert_int_equal(st_render(x.st, at(x.st, "read-cache/repo/i.png"), &sb), 0);
	assert_int_equal(sb.len, 8);
	assert_memory_equal(sb.buf, "\x89PNG\r\n\x1a\n", 8);
	sb_reset(&sb);
	node = at(x.st, "read-cache/repo/big.c");
	assert_int_equal(st_getxattr(x.st, node, "user.sessfs.partial", &sb), 0);
	assert_string_equal(sb.buf, "offset=10 limit=5");
	sb_reset(&sb);
	st_listxattr(x.st, node, &sb);
	assert_non_null(memmem(sb.buf, sb.len, "user.sessfs.partial", 20));
	sb_reset(&sb);
	node = at(x.st, "read-cache/repo/whole.c");
	assert_int_equal(st_getxattr(x.st, node, "user.sessfs.partial", &sb), -ENODATA);
	st_listxattr(x.st, node, &sb);
	assert_null(memmem(sb.buf, sb.len, "user.sessfs.partial", 20));
	sb_reset(&sb);
	node = at(x.st, "read-cache/repo/long.c");
	assert_int_equal(st_getxattr(x.st, node, "user.sessfs.partial", &sb), 0);
	assert_string_equal(sb.buf, "offset=1 limit=2000");
	sb_free(&sb);
	unbuild(&x);
	tu_log_free(&l);
}

static void test_hostile_read_paths(void **state)
{
	static const char *const bad[] = {
		"\"/../../etc/x\"", "\"a/../../b\"", "\"/repo/a\\u0000/../../etc/passwd\"",
		"\"/repo/..\"", "\"/\"", "\"\"",
	};
	struct fx x = { 0 };
	struct tu_log l;
	char big[400], *s;
	size_t i;
	int row = 2;

	(void)state;
	start(&l);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++, row += 2)
		read_ok(&l, row, bad[i], "evil");
	snprintf(big, sizeof(big), "\"/tmp/%0300d/x\"", 0);
	read_ok(&l, row, big, "long");
	row += 2;
	/* A file, then the same path as a folder. */
	read_ok(&l, row, "\"/repo/f\"", "file");
	row += 2;
	read_ok(&l, row, "\"/repo/f/g\"", "under a file");
	row += 2;
	/* Dots and empty parts are normalised away. */
	read_ok(&l, row, "\"/repo/./d//e.txt\"", "fine");
	row += 2;
	tu_asst(&l, row, row - 1, "mz", "done");
	build(&x, &l);
	check_tree(x.st);
	s = text(x.st, "read-cache/repo/d/e.txt");
	assert_string_equal(s, "fine");
	free(s);
	s = text(x.st, "read-cache/repo/f");
	assert_string_equal(s, "file");
	free(s);
	assert_int_equal(at(x.st, "read-cache/etc"), ST_NONE);
	assert_int_equal(at(x.st, "read-cache/b"), ST_NONE);
	assert_int_equal(at(x.st, "read-cache/tmp"), ST_NONE);
	assert_int_equal(st_nkids(x.st, at(x.st, "read-cache")), 1);	/* repo */
	s = errors(x.st);
	assert_non_null(strstr(s, "a '..' part"));
	assert_non_null(strstr(s, "a NUL byte"));
	assert_non_null(strstr(s, "a part longer than 255 bytes"));
	assert_non_null(strstr(s, "no file name in it"));
	assert_non_null(strstr(s, "\"\" left out: empty"));
	assert_non_null(strstr(s, "is a file of another entry"));
	assert_int_equal(st_nerrors(x.st), 8);
	free(s);
	unbuild(&x);
	tu_log_free(&l);
}

/*
 * A Read whose input ends its line: the input is read up to the end of
 * its own line, not of the result's (read_view() walked it with the
 * result line's end, and read past its buffer: the ASan build fails here
 * without the fix; found by the fuzz target).
 */
static void test_read_input_at_the_end_of_its_line(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	struct sbuf sb;
	char u1[37], u2[37];

	(void)state;
	start(&l);
	tu_uuid(1, u1);
	tu_uuid(2, u2);
	sb_init(&sb);
	sb_addf(&sb, "{\"type\":\"assistant\",\"uuid\":\"%s\",\"parentUuid\":\"%s\","
		"\"sessionId\":\"" TU_SID "\",\"message\":{\"id\":\"m2\",\"role\":\"assistant\","
		"\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"Read\","
		"\"input\":{\"file_path\":\"/r/e.c\"}}]}}", u2, u1);
	tu_line(&l, sb.buf);
	result(&l, 3, 2, "toolu_2", "\"...\"", 0, "{\"type\":\"text\",\"file\":{\"filePath\":"
	       "\"/r/e.c\",\"content\":\"x\",\"numLines\":5,\"startLine\":10,"
	       "\"totalLines\":900,\"padding\":\"................................................\"}}");
	build(&x, &l);
	sb_reset(&sb);
	assert_int_equal(st_getxattr(x.st, at(x.st, "read-cache/r/e.c"), "user.sessfs.partial",
				     &sb), 0);
	assert_string_equal(sb.buf, "offset=10 limit=5");
	sb_free(&sb);
	unbuild(&x);
	tu_log_free(&l);
}

/*
 * A problem quoting a path of control characters (each escaped in six
 * bytes) and letters of two bytes is long: it is reported whole, as
 * UTF-8 (it was cut at 1023 bytes, in the middle of a letter and before
 * its reason; found by the fuzz target's check of errors.txt).
 */
static void test_long_problem_lines_stay_utf8(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	struct sbuf path, input;
	char *s;
	int i;

	(void)state;
	start(&l);
	sb_init(&path);
	sb_init(&input);
	sb_adds(&path, "\"/a");
	for (i = 0; i < 160; i++)
		sb_adds(&path, "\\u0001");
	for (i = 0; i < 100; i++)
		sb_adds(&path, "\xc3\xa9");
	sb_adds(&path, "\"");
	sb_addf(&input, "{\"file_path\":%s}", path.buf);
	tu_tool_call(&l, 2, 1, "Read", "toolu_2", input.buf);
	result(&l, 3, 2, "toolu_2", "\"x\"", 0, NULL);
	build(&x, &l);
	s = errors(x.st);
	assert_int_equal(st_nerrors(x.st), 1);
	assert_true(tu_utf8(s, strlen(s)));
	assert_non_null(strstr(s, "\xc3\xa9\"...(362 bytes) left out: a part longer than 255 bytes\n"));
	free(s);
	unbuild(&x);
	sb_free(&path);
	sb_free(&input);
	tu_log_free(&l);
}

/* ---- file history ---- */

static char *make_dir(void)
{
	char *d = strdup("/tmp/sessfs-fh-XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void put(const char *dir, const char *name, const char *content)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

static void rm_dir(char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

/* A snapshot written at row outer, of the snapshot of row msg. */
static void snapshot2(struct tu_log *l, int outer, int msg, int update, const char *files)
{
	char o[37], u[37];

	tu_uuid(outer, o);
	tu_uuid(msg, u);
	sb_addf(&l->sb, "{\"type\":\"file-history-snapshot\",\"messageId\":\"%s\",\"snapshot\":"
		"{\"messageId\":\"%s\",\"trackedFileBackups\":{%s},\"timestamp\":"
		"\"2026-01-01T10:00:00.000Z\"},\"isSnapshotUpdate\":%s}\n", o, u, files,
		update ? "true" : "false");
}

static void snapshot(struct tu_log *l, int msg, int update, const char *files)
{
	snapshot2(l, msg, msg, update, files);
}

static void delta(struct tu_log *l, int row, int snap, const char *path, const char *backup)
{
	char u[37], s[37];

	tu_uuid(row, u);
	tu_uuid(snap, s);
	sb_addf(&l->sb, "{\"type\":\"file-history-delta\",\"messageId\":\"%s\",\"snapshotMessageId\":"
		"\"%s\",\"trackingPath\":\"%s\",\"backup\":{\"backupFileName\":%s,\"version\":1,"
		"\"backupTime\":\"2026-01-01T10:00:01.000Z\",\"realParentDir\":\"/repo\"},"
		"\"timestamp\":\"2026-01-01T10:00:01.000Z\"}\n", u, s, path, backup);
}

#define BK(name, v) "{\"backupFileName\":\"" name "\",\"version\":" #v ",\"backupTime\":" \
	"\"2026-01-01T10:00:00.000Z\",\"realParentDir\":\"/repo\"}"

/*
 * Numbers out of range: a version of 1e999 (inf) is no version (it was
 * written as "inf", which is not JSON), a Read at offset 1e300 shows the
 * largest offset (it was converted to int64_t: undefined, caught by the
 * UBSan build). Found by the fuzz target after the same fault in ctx.
 */
static void test_numbers_out_of_range(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	struct sbuf sb;
	cJSON *j, *f;

	(void)state;
	x.dir = make_dir();
	put(x.dir, "0123456789abcdef@v1", "a v1\n");
	start(&l);
	snapshot(&l, 1, 0, "\"a.c\":" BK("0123456789abcdef@v1", 1e999));
	tu_tool_call(&l, 2, 1, "Read", "toolu_2", "{\"file_path\":\"/repo/big.c\",\"offset\":1e300,"
	    "\"limit\":5}");
	result(&l, 3, 2, "toolu_2", "\"...\"", 0, "{\"type\":\"text\",\"file\":{\"filePath\":"
	       "\"/repo/big.c\",\"content\":\"x\",\"numLines\":5,\"startLine\":1e300,"
	       "\"totalLines\":900}}");
	build(&x, &l);
	j = json(x.st, "file-history.json");
	f = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(j, "snapshots"), 0), "files"), 0);
	assert_non_null(f);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "version")));
	cJSON_Delete(j);
	sb_init(&sb);
	assert_int_equal(st_getxattr(x.st, at(x.st, "read-cache/repo/big.c"),
				     "user.sessfs.partial", &sb), 0);
	assert_string_equal(sb.buf, "offset=9223372036854775807 limit=5");
	sb_free(&sb);
	unbuild(&x);
	rm_dir(x.dir);
	tu_log_free(&l);
}

static void test_snapshots_updates_deltas(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	char *s;
	cJSON *j, *snaps;

	(void)state;
	x.dir = make_dir();
	put(x.dir, "0123456789abcdef@v1", "a v1\n");
	put(x.dir, "0123456789abcdef@v2", "a v2\n");
	put(x.dir, "fedcba9876543210@v1", "b v1\n");
	start(&l);
	snapshot(&l, 1, 0, "\"a.c\":" BK("0123456789abcdef@v1", 1));
	tu_tool_call(&l, 2, 1, "Edit", "toolu_2", "{\"file_path\":\"/repo/b.c\"}");
	delta(&l, 2, 1, "b.c", "\"fedcba9876543210@v1\"");
	/* A delta naming a snapshot never written: one is synthesised. */
	delta(&l, 2, 99, "new.c", "null");
	result(&l, 3, 2, "toolu_2", "\"ok\"", 0, NULL);
	tu_user(&l, 4, 3, "again");
	snapshot(&l, 4, 0, "\"a.c\":" BK("0123456789abcdef@v1", 1));
	/* An earlier record of the same message: the last one wins. */
	snapshot(&l, 1, 0, "\"a.c\":" BK("0123456789abcdef@v1", 1) ",\"b.c\":"
		 BK("0123456789abcdef@v1", 1));
	tu_asst(&l, 5, 4, "m5", "done");
	/* An update written at row 5 replaces snapshot 4 in place. */
	snapshot2(&l, 5, 4, 1, "\"a.c\":" BK("0123456789abcdef@v2", 2) ",\"gone.c\":"
		  BK("0123456789abcdef@v9", 9) ",\"evil\":" BK("../../../etc/passwd", 1));
	/* A snapshot of a row off the chain is not replayed. */
	tu_user(&l, 50, 0, "elsewhere");
	snapshot(&l, 50, 0, "\"a.c\":" BK("0123456789abcdef@v1", 1));
	sb_adds(&l.sb, "{\"type\":\"last-prompt\",\"leafUuid\":\"00000005-0000-4000-8000-000000000005\","
		"\"explicit\":true,\"sessionId\":\"" TU_SID "\"}\n");
	build(&x, &l);
	check_tree(x.st);

	s = text(x.st, "file-history/001-00000001/repo/a.c");
	assert_string_equal(s, "a v1\n");
	free(s);
	s = text(x.st, "file-history/001-00000001/repo/b.c");
	assert_string_equal(s, "b v1\n");
	free(s);
	/* Synthesised: inherits 1's files, plus the delta (the file did not
	 * exist: no file). */
	s = text(x.st, "file-history/002-00000099/repo/b.c");
	assert_string_equal(s, "b v1\n");
	free(s);
	assert_int_equal(at(x.st, "file-history/002-00000099/repo/new.c"), ST_NONE);
	s = text(x.st, "file-history/003-00000004/repo/a.c");
	assert_string_equal(s, "a v2\n");
	free(s);
	assert_int_equal(at(x.st, "file-history/003-00000004/repo/gone.c"), ST_NONE);
	assert_int_equal(at(x.st, "file-history/004-00000050"), ST_NONE);
	assert_int_equal(st_nkids(x.st, at(x.st, "file-history")), 3);

	j = json(x.st, "file-history.json");
	snaps = cJSON_GetObjectItem(j, "snapshots");
	assert_int_equal(cJSON_GetArraySize(snaps), 3);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(snaps, 1), "synthesized")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(snaps, 2), "updated")));
	{
		cJSON *files = cJSON_GetObjectItem(cJSON_GetArrayItem(snaps, 2), "files");

		assert_int_equal(cJSON_GetArraySize(files), 3);
		assert_string_equal(jstr(cJSON_GetArrayItem(files, 1), "status"), "missing");
		assert_string_equal(jstr(cJSON_GetArrayItem(files, 1), "backupFileName"),
				    "0123456789abcdef@v9");
		assert_string_equal(jstr(cJSON_GetArrayItem(files, 2), "status"), "refused");
	}
	cJSON_Delete(j);
	s = errors(x.st);
	assert_non_null(strstr(s, "backup 0123456789abcdef@v9 of \"/repo/gone.c\" is not in"));
	assert_non_null(strstr(s, "backup name of \"evil\" left out"));
	assert_int_equal(st_nerrors(x.st), 2);
	free(s);
	unbuild(&x);
	rm_dir(x.dir);
	tu_log_free(&l);
}

static void test_last_100_and_no_folder(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	struct st_counts n;
	char *s;
	int i;

	(void)state;
	tu_log_init(&l);
	for (i = 1; i <= 130; i++) {
		tu_user(&l, 2 * i - 1, i > 1 ? 2 * i - 2 : 0, "p");
		snapshot(&l, 2 * i - 1, 0, "\"/repo/a.c\":" BK("0123456789abcdef@v1", 1));
		tu_asst(&l, 2 * i, 2 * i - 1, "m", "ok");
	}
	build(&x, &l);
	check_tree(x.st);
	st_counts(x.st, &n);
	assert_int_equal(n.snapshots, ST_FH_KEEP);
	assert_int_equal(n.backups, 0);
	assert_int_equal(n.missing, ST_FH_KEEP);
	assert_null(st_fh_dir(x.st));
	/* The oldest kept is prompt 31 (row 61); numbering restarts at 001. */
	assert_true(at(x.st, "file-history/001-00000061") != ST_NONE);
	assert_true(at(x.st, "file-history/100-00000259") != ST_NONE);
	/* The missing backup is reported once, not once per snapshot. */
	s = errors(x.st);
	assert_non_null(strstr(s, "no backup folder known"));
	assert_int_equal(st_nerrors(x.st), 1);
	free(s);
	unbuild(&x);
	tu_log_free(&l);
}

static void test_hostile_tracking_paths(void **state)
{
	struct fx x = { 0 };
	struct tu_log l;
	char *s;

	(void)state;
	x.dir = make_dir();
	put(x.dir, "0123456789abcdef@v1", "ok\n");
	start(&l);
	snapshot(&l, 1, 0,
		 "\"/../../etc/x\":" BK("0123456789abcdef@v1", 1) ","
		 "\"a/../../b\":" BK("0123456789abcdef@v1", 1) ","
		 "\"/repo/n\\u0000ul\":" BK("0123456789abcdef@v1", 1) ","
		 "\"/repo/good\":" BK("0123456789abcdef@v1", 1) ","
		 "\"/repo/good/under\":" BK("0123456789abcdef@v1", 1));
	tu_asst(&l, 2, 1, "m2", "ok");
	build(&x, &l);
	check_tree(x.st);
	s = text(x.st, "file-history/001-00000001/repo/good");
	assert_string_equal(s, "ok\n");
	free(s);
	assert_int_equal(st_nkids(x.st, at(x.st, "file-history/001-00000001")), 1);
	assert_int_equal(st_nkids(x.st, at(x.st, "file-history/001-00000001/repo")), 1);
	s = errors(x.st);
	assert_non_null(strstr(s, "\"/../../etc/x\" left out: a '..' part"));
	assert_non_null(strstr(s, "\"a/../../b\" left out: a '..' part"));
	assert_non_null(strstr(s, "\"/repo/n\\u0000ul\" left out: a NUL byte"));
	assert_non_null(strstr(s, "\"/repo/good/under\" left out"));
	free(s);
	unbuild(&x);
	rm_dir(x.dir);
	tu_log_free(&l);
}

/* ---- nm_path ---- */

static void test_nm_path(void **state)
{
	struct sbuf out;
	const char *why;
	char part[300];

	(void)state;
	sb_init(&out);
	assert_int_equal(nm_path("/a//./b/", 8, NULL, 0, &out, &why), 0);
	assert_string_equal(out.buf, "/a/b");
	assert_int_equal(nm_path("x/y", 3, "/base/", 6, &out, &why), 0);
	assert_string_equal(out.buf, "/base/x/y");
	assert_int_equal(nm_path("x", 1, "rel", 3, &out, &why), -EINVAL);
	assert_int_equal(nm_path("x", 1, NULL, 0, &out, &why), -EINVAL);
	assert_int_equal(nm_path("/a/../b", 7, NULL, 0, &out, &why), -EINVAL);
	assert_string_equal(why, "a '..' part");
	assert_int_equal(nm_path("/a/..", 5, NULL, 0, &out, &why), -EINVAL);
	assert_int_equal(nm_path("x", 1, "/a/../b", 7, &out, &why), -EINVAL);
	assert_int_equal(nm_path("/a\0b", 4, NULL, 0, &out, &why), -EINVAL);
	assert_string_equal(why, "a NUL byte");
	assert_int_equal(nm_path("/./", 3, NULL, 0, &out, &why), -EINVAL);
	assert_int_equal(nm_path("", 0, "/base", 5, &out, &why), -EINVAL);
	memset(part, 'q', sizeof(part));
	part[0] = '/';
	assert_int_equal(nm_path(part, 257, NULL, 0, &out, &why), -EINVAL);
	assert_int_equal(nm_path(part, 256, NULL, 0, &out, &why), 0);
	assert_int_equal(out.len, 256);
	assert_int_equal(nm_path("/a/...", 6, NULL, 0, &out, &why), 0);
	assert_string_equal(out.buf, "/a/...");
	sb_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worktree_object_null_absent),
		cmocka_unit_test(test_agent_last_record_wins),
		cmocka_unit_test(test_read_write_and_failures),
		cmocka_unit_test(test_partial_reads),
		cmocka_unit_test(test_hostile_read_paths),
		cmocka_unit_test(test_long_problem_lines_stay_utf8),
		cmocka_unit_test(test_read_input_at_the_end_of_its_line),
		cmocka_unit_test(test_snapshots_updates_deltas),
		cmocka_unit_test(test_numbers_out_of_range),
		cmocka_unit_test(test_last_100_and_no_folder),
		cmocka_unit_test(test_hostile_tracking_paths),
		cmocka_unit_test(test_nm_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
