/*
 * Helpers shared by the unit tests: small logs written to temporary files
 * (json layer: a test that includes only this links with base and json).
 * The fixture that builds a log's graph, branches and chain is
 * tu_fixture.h (replay); a session's facts, tu_session.h (session).
 */
#ifndef SESSFS_TESTUTIL_H
#define SESSFS_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes n bytes to a new temporary file; returns its path (free() it). */
static inline char *tu_write(const char *data, size_t n)
{
	char *path = strdup("/tmp/sessfs-test-XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, data, n) != (ssize_t)n)
		abort();
	close(fd);
	return path;
}

/* The same for a NUL-terminated string. */
static inline char *tu_write_str(const char *s)
{
	return tu_write(s, strlen(s));
}

/* The file's mtime one second later, its size and bytes kept (a touch,
 * or a rewrite in place once its bytes are changed). */
static inline void tu_touch_later(const char *path)
{
	struct stat st;
	struct timespec t[2];

	if (stat(path, &st))
		abort();
	t[0] = st.st_atim;
	t[1] = st.st_mtim;
	t[1].tv_sec += 1;
	if (utimensat(AT_FDCWD, path, t, 0))
		abort();
}

static inline void tu_remove(char *path)
{
	unlink(path);
	free(path);
}

/* Writes text to dir/rel, or appends it when append. */
static inline void tu_put(const char *dir, const char *rel, const char *text, int append)
{
	char path[1024];
	size_t n = strlen(text);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n)
		abort();
	close(fd);
}

/* A new folder from tmpl (mkdtemp(): "/tmp/NAME-XXXXXX", at most 63
 * bytes) into root, and its subfolder sub (NULL: none). */
static inline void tu_tmp_folder(char root[64], const char *tmpl, const char *sub)
{
	char path[1024];

	snprintf(root, 64, "%s", tmpl);
	if (!mkdtemp(root))
		abort();
	snprintf(path, sizeof(path), "%s/%s", root, sub ? sub : "");
	if (sub && mkdir(path, 0755))
		abort();
}

/* Removes the folder made by tu_tmp_folder() and all it holds. */
static inline void tu_rm_tree(const char *root)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		abort();
}

/* The test corpus (SESSFS_CORPUS, else ../shared/corpus). Where it is
 * absent the calling test is skipped with a message, and fails under
 * CI=true. Needs cmocka.h included before this header. */
static inline const char *tu_corpus(void)
{
	const char *dir = getenv("SESSFS_CORPUS") ? getenv("SESSFS_CORPUS") : "../shared/corpus";
	const char *ci = getenv("CI");

	if (access(dir, R_OK)) {
		if (ci && !strcmp(ci, "true"))
			fail_msg("no corpus at %s (CI=true requires it)", dir);
		print_message("skipped: the corpus's logs (no corpus at %s)\n", dir);
		skip();
	}
	return dir;
}

/* tu_corpus_logs()'s walk: the function it calls, and how many it did. */
static void (*tu_corpus_fn)(const char *path) __attribute__((unused));
static unsigned tu_corpus_n __attribute__((unused));

static inline int tu_corpus_visit(const char *path, const struct stat *st, int type,
				  struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)st;
	(void)ftw;
	if (type == FTW_F && n >= 6 && !strcmp(path + n - 6, ".jsonl")) {
		tu_corpus_fn(path);
		tu_corpus_n++;
	}
	return 0;
}

/* Calls fn on the path of every .jsonl file of the corpus (tu_corpus():
 * the test is skipped without it); returns how many there were. */
static inline unsigned tu_corpus_logs(void (*fn)(const char *path))
{
	const char *dir = tu_corpus();

	tu_corpus_fn = fn;
	tu_corpus_n = 0;
	assert_int_equal(nftw(dir, tu_corpus_visit, 16, FTW_PHYS), 0);
	return tu_corpus_n;
}

/* 1 when s[0..n) is valid UTF-8 (utf8_seq_len() of sbuf.h). */
static inline int tu_utf8(const char *s, size_t n);


/* ------------------------------------------------------------------------
 * A log builder, so tests can write realistic records without long string
 * literals. Row n gets the uuid tu_uuid(n), "0000000n-0000-4000-8000-...",
 * whose first 8 characters read as n; parent 0 writes null. Each row is
 * stamped one second after the previous one, from TU_T0.
 */
#include <stdint.h>

#include "jscan.h"
#include "sbuf.h"

static inline int tu_utf8(const char *s, size_t n)
{
	size_t i = 0, k;

	for (; i < n; i += k)
		if (!(k = utf8_seq_len((const unsigned char *)s + i, n - i)))
			return 0;
	return 1;
}

#define TU_T0 1767261600000LL	/* 2026-01-01T10:00:00.000Z */
#define TU_SID "5e55f500-0000-4000-8000-000000000001"

struct tu_log {
	struct sbuf sb;
	int64_t ms;		/* time of the next row */
	int sidechain;		/* rows written now are sidechain rows */
	const char *version;	/* the release rows written now say (2.1.328) */
};

static inline void tu_uuid(int n, char out[37])
{
	unsigned u = (unsigned)n % 100000000u;
	char wide[64];	/* room for any unsigned: no truncation to warn of */

	snprintf(wide, sizeof(wide), "%08u-0000-4000-8000-%012u", u, u);
	memcpy(out, wide, 36);
	out[36] = '\0';
}

static inline void tu_log_init(struct tu_log *l)
{
	sb_init(&l->sb);
	l->ms = TU_T0;
	l->sidechain = 0;
	l->version = "2.1.328";
}

static inline void tu_log_free(struct tu_log *l)
{
	sb_free(&l->sb);
}

/* Sets the time of the next row. */
static inline void tu_at(struct tu_log *l, int64_t ms)
{
	l->ms = ms;
}

/* A raw line; the newline is added. */
static inline void tu_line(struct tu_log *l, const char *text)
{
	sb_adds(&l->sb, text);
	sb_addc(&l->sb, '\n');
}

/*
 * A message row with the envelope Claude Code writes; extra is a fragment
 * of members placed after "type" (no leading comma; "" for none).
 */
static inline void tu_row(struct tu_log *l, const char *type, int uuid, int parent,
			  const char *extra)
{
	char u[37], p[37], ts[32];

	tu_uuid(uuid, u);
	tu_uuid(parent, p);
	js_time_fmt(l->ms, ts);
	l->ms += 1000;
	if (parent)
		sb_addf(&l->sb, "{\"parentUuid\":\"%s\"", p);
	else
		sb_adds(&l->sb, "{\"parentUuid\":null");
	sb_addf(&l->sb, ",\"isSidechain\":%s,\"type\":\"%s\",",
		l->sidechain ? "true" : "false", type);
	if (*extra)
		sb_addf(&l->sb, "%s,", extra);
	sb_addf(&l->sb, "\"uuid\":\"%s\",\"timestamp\":\"%s\",\"userType\":\"external\","
		"\"cwd\":\"/home/user/src/app\",\"sessionId\":\"" TU_SID "\","
		"\"version\":\"%s\",\"gitBranch\":\"main\"}\n", u, ts, l->version);
}

/* A typed prompt. */
static inline void tu_user(struct tu_log *l, int uuid, int parent, const char *text)
{
	struct sbuf x;

	sb_init(&x);
	sb_adds(&x, "\"message\":{\"role\":\"user\",\"content\":");
	sb_add_json_str(&x, text, strlen(text));
	sb_adds(&x, "}");
	tu_row(l, "user", uuid, parent, x.buf);
	sb_free(&x);
}

/* One text row of the response msgid. */
static inline void tu_asst(struct tu_log *l, int uuid, int parent, const char *msgid,
			   const char *text)
{
	struct sbuf x;

	sb_init(&x);
	sb_addf(&x, "\"message\":{\"id\":\"%s\",\"type\":\"message\",\"role\":\"assistant\","
		"\"model\":\"claude-opus-5-5\",\"content\":[{\"type\":\"text\",\"text\":", msgid);
	sb_add_json_str(&x, text, strlen(text));
	sb_adds(&x, "}],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":5}}");
	tu_row(l, "assistant", uuid, parent, x.buf);
	sb_free(&x);
}

/* A 1.0.x log (session-format.md §10): rows one second apart, from
 * 10:00:00 on 2025-08-01; side marks a sidechain row. */
struct tu_v1 {
	struct sbuf sb;
	int sec;
};

static inline void tu_v1_row(struct tu_v1 *l, int uuid, int parent, int side,
			     const char *type, const char *message)
{
	char u[37], p[37];

	tu_uuid(uuid, u);
	tu_uuid(parent, p);
	if (parent)
		sb_addf(&l->sb, "{\"parentUuid\":\"%s\"", p);
	else
		sb_adds(&l->sb, "{\"parentUuid\":null");
	sb_addf(&l->sb, ",\"isSidechain\":%s,\"userType\":\"external\",\"cwd\":\"/home/u/p\","
		"\"sessionId\":\"" TU_SID "\",\"version\":\"1.0.98\",\"type\":\"%s\","
		"\"message\":%s,\"uuid\":\"%s\",\"timestamp\":\"2025-08-01T10:%02d:%02d.000Z\"}\n",
		side ? "true" : "false", type, message, u, l->sec / 60 % 60, l->sec % 60);
	l->sec++;
}

/* An assistant row of one text block. */
static inline void tu_v1_text(struct tu_v1 *l, int uuid, int parent, int side,
			      const char *text)
{
	char m[512];

	snprintf(m, sizeof(m), "{\"id\":\"msg_%d\",\"type\":\"message\",\"role\":\"assistant\","
		 "\"model\":\"claude-sonnet-4-20250514\",\"content\":[{\"type\":\"text\","
		 "\"text\":\"%s\"}],\"stop_reason\":\"end_turn\"}", uuid, text);
	tu_v1_row(l, uuid, parent, side, "assistant", m);
}

/* A log of four rows in one chain (texts "a" .. "d"), written to a new
 * temporary file: its path (free with tu_remove()). */
static inline char *tu_four_rows(struct tu_log *l)
{
	tu_log_init(l);
	tu_user(l, 1, 0, "a");
	tu_asst(l, 2, 1, "m1", "b");
	tu_user(l, 3, 2, "c");
	tu_asst(l, 4, 3, "m2", "d");
	return tu_write_str(l->sb.buf);
}

/* One tool_use row of the response msgid, calling Bash with id toolid. */
static inline void tu_tool_use(struct tu_log *l, int uuid, int parent, const char *msgid,
			       const char *toolid)
{
	char x[512];

	snprintf(x, sizeof(x), "\"message\":{\"id\":\"%s\",\"type\":\"message\","
		 "\"role\":\"assistant\",\"model\":\"claude-opus-5-5\",\"content\":"
		 "[{\"type\":\"tool_use\",\"id\":\"%s\",\"name\":\"Bash\",\"input\":"
		 "{\"command\":\"ls\"}}],\"stop_reason\":\"tool_use\"}", msgid, toolid);
	tu_row(l, "assistant", uuid, parent, x);
}

/* An assistant row (message id "msg_<uuid>") with one tool_use block:
 * name, id toolid, input (JSON). */
static inline void tu_tool_call(struct tu_log *l, int uuid, int parent, const char *name,
				const char *toolid, const char *input)
{
	struct sbuf x;

	sb_init(&x);
	sb_addf(&x, "\"message\":{\"id\":\"msg_%d\",\"type\":\"message\",\"role\":\"assistant\","
		"\"model\":\"claude-opus-5-5\",\"content\":[{\"type\":\"tool_use\",\"id\":\"%s\","
		"\"name\":\"%s\",\"input\":%s}],\"stop_reason\":\"tool_use\"}", uuid, toolid,
		name, input);
	tu_row(l, "assistant", uuid, parent, x.buf);
	sb_free(&x);
}

/* 1 user, 2 reply, 3 user, 4 reply; then 5 edits prompt 3, 6 answers it. */
static inline void tu_forked_log(struct tu_log *l)
{
	tu_log_init(l);
	tu_user(l, 1, 0, "What is in this repo?");
	tu_asst(l, 2, 1, "msg_1", "A todo app.");
	tu_user(l, 3, 2, "Add a done command.");
	tu_asst(l, 4, 3, "msg_2", "Added.");
	tu_user(l, 5, 2, "Add a delete command instead.");
	tu_asst(l, 6, 5, "msg_3", "Added delete.");
}

/* The tool_result row answering toolid. */
static inline void tu_result(struct tu_log *l, int uuid, int parent, const char *toolid)
{
	char x[512], p[37];

	tu_uuid(parent, p);
	snprintf(x, sizeof(x), "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":"
		 "\"%s\",\"type\":\"tool_result\",\"content\":\"ok\",\"is_error\":false}]},"
		 "\"toolUseResult\":{\"stdout\":\"ok\"},\"sourceToolAssistantUUID\":\"%s\"",
		 toolid, p);
	tu_row(l, "user", uuid, parent, x);
}

/* An attachment of type atype; prompt_snapshot has no rendered text. */
static inline void tu_attach(struct tu_log *l, int uuid, int parent, const char *atype)
{
	char x[512];

	if (!strcmp(atype, "prompt_snapshot"))
		snprintf(x, sizeof(x), "\"attachment\":{\"type\":\"%s\",\"system\":[]}", atype);
	else
		snprintf(x, sizeof(x), "\"attachment\":{\"type\":\"%s\"},\"rendered\":"
			 "[{\"content\":\"<system-reminder>\\n%s\\n</system-reminder>\"}],"
			 "\"renderedRole\":\"system\"", atype, atype);
	tu_row(l, "attachment", uuid, parent, x);
}

/* A system row of the given subtype. */
static inline void tu_system(struct tu_log *l, int uuid, int parent, const char *subtype)
{
	char x[256];

	snprintf(x, sizeof(x), "\"subtype\":\"%s\",\"content\":\"\",\"level\":\"info\"", subtype);
	tu_row(l, "system", uuid, parent, x);
}

/* A hook/tool progress row (bridged by the loader). */
static inline void tu_progress(struct tu_log *l, int uuid, int parent)
{
	tu_row(l, "progress", uuid, parent, "\"data\":{\"type\":\"hook_progress\"}");
}

/*
 * A compaction boundary after logical; with npres > 0, its preserved
 * segment: anchor (the summary row) and the rows pres[0..npres).
 */
static inline void tu_boundary(struct tu_log *l, int uuid, int logical, int anchor,
			       const int *pres, int npres)
{
	struct sbuf x;
	char u[37];
	int i;

	sb_init(&x);
	sb_adds(&x, "\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\","
		"\"level\":\"info\",\"isMeta\":false,");
	if (logical) {
		tu_uuid(logical, u);
		sb_addf(&x, "\"logicalParentUuid\":\"%s\",", u);
	}
	sb_adds(&x, "\"compactMetadata\":{\"trigger\":\"manual\",\"preTokens\":1315");
	if (npres) {
		tu_uuid(anchor, u);
		sb_addf(&x, ",\"preservedMessages\":{\"anchorUuid\":\"%s\",\"uuids\":[", u);
		for (i = 0; i < npres; i++) {
			tu_uuid(pres[i], u);
			sb_addf(&x, "%s\"%s\"", i ? "," : "", u);
		}
		sb_adds(&x, "]}");
	}
	sb_adds(&x, "}");
	tu_row(l, "system", uuid, 0, x.buf);
	sb_free(&x);
}

/* A partial compaction's boundary ("Summarize from here"): its
 * compactMetadata says how many messages it summarised. */
static inline void tu_partial_boundary(struct tu_log *l, int uuid, int logical, int nsummarised)
{
	struct sbuf x;
	char u[37];

	sb_init(&x);
	tu_uuid(logical, u);
	sb_addf(&x, "\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\","
		"\"level\":\"info\",\"isMeta\":false,\"logicalParentUuid\":\"%s\","
		"\"compactMetadata\":{\"trigger\":\"manual\",\"preTokens\":1315,"
		"\"messagesSummarized\":%d}", u, nsummarised);
	tu_row(l, "system", uuid, 0, x.buf);
	sb_free(&x);
}

/* The compaction summary under the boundary. */
static inline void tu_summary(struct tu_log *l, int uuid, int parent)
{
	tu_row(l, "user", uuid, parent,
	       "\"message\":{\"role\":\"user\",\"content\":\"This session is being continued "
	       "from a previous conversation. Summary: ...\"},\"isVisibleInTranscriptOnly\":true,"
	       "\"isCompactSummary\":true");
}

/* A last-prompt checkpoint naming leaf (0: null). */
static inline void tu_last_prompt(struct tu_log *l, int leaf, int explicit_)
{
	char u[37];

	if (leaf) {
		tu_uuid(leaf, u);
		sb_addf(&l->sb, "{\"type\":\"last-prompt\",\"lastPrompt\":\"go on\",\"leafUuid\":\"%s\"", u);
	} else {
		sb_adds(&l->sb, "{\"type\":\"last-prompt\",\"leafUuid\":null");
	}
	if (explicit_)
		sb_adds(&l->sb, ",\"explicit\":true,\"rewound\":true");
	sb_adds(&l->sb, ",\"sessionId\":\"" TU_SID "\"}\n");
}

#endif
