/*
 * fuzz_session: a libFuzzer target that reads arbitrary bytes as a session
 * log and runs all of core over it, as the file system would: the index
 * (ss_open in SS_COMPLETE and SS_LIVE modes, and a log that grows, then
 * shrinks, under an open session: ss_refresh), the graph, the branches, every message file and
 * record, the context (messages.json, window.md, every row), the state
 * (every node, its bytes and attributes), session.json, errors.txt,
 * usage.json and every branch's transcript; and the agents module over
 * the log's folder and every tool result; each inline sidechain (a few)
 * opened as a part and walked the same way.
 *
 * Besides the sanitizers it checks what the headers promise: rendered text
 * is UTF-8 ending in a newline; session.json and messages.json parse;
 * names are safe and look back up to what they name; errors.txt has one
 * line per problem; a log indexed in two parts, or indexed again after it
 * shrank, shows the same everything as the log read at once; no file
 * descriptor is left open.
 *
 * The log lives in a private folder made once per process under $TMPDIR,
 * laid out as Claude Code's (projects/<p>/<id>.jsonl, file-history/<sid>/,
 * <id>/subagents/) so that the default file-history lookup and the agents
 * walk find something; it is removed at exit.
 */
#include <cjson/cJSON.h>

#include "agents.h"
#include "render.h"
#include "report.h"
#include "session.h"
#include "transcript.h"
#include "fuzz_util.h"

/* Session ids whose default file-history folder exists (tests, the demo
 * and the corpus use these). */
static const char *const fh_sids[] = {
	"5e55f500-0000-4000-8000-000000000001",
	"d3e0d3e0-0000-4000-8000-000000000001",
	"5e55f500-0000-4000-8000-000000000101",
	"5e55f500-0000-4000-8000-000000000103",
	"5e55f500-0000-4000-8000-000000000104",
	"fuzz",
};
/* Backups present in every file-history folder (named as sessfs.dict). */
static const char *const backups[] = {
	"0123456789abcdef@v1",
	"0123456789abcdef@v2",
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef@v1",
};

static char log_path[4200];	/* root/projects/p/s.jsonl */
static char fh_dir[4200];	/* root/fh: -o file_history */

/* ---- the folder ---- */

static void put_backups(const char *dir)
{
	char p[8400];
	size_t i;

	for (i = 0; i < sizeof(backups) / sizeof(backups[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, backups[i]);
		fz_put_file(p, i == 1 ? "" : "backed up\n", i == 1 ? 0 : 10);
	}
}

/* A subagent log in the subagents/ folder and one in the older layout,
 * that the fuzzed log's first sessionId may claim. */
static void put_agents(void)
{
	static const char rec[] = "{\"type\":\"user\",\"uuid\":\"a1\",\"parentUuid\":null,"
		"\"isSidechain\":true,\"message\":{\"role\":\"user\",\"content\":\"hi\"},"
		"\"sessionId\":\"d3e0d3e0-0000-4000-8000-000000000001\"}\n";
	static const char meta[] = "{\"agentType\":\"general-purpose\"}\n";
	char p[4200];

	fz_put_dir(FZ_PATH(p, "projects/p/s"));
	fz_put_dir(FZ_PATH(p, "projects/p/s/subagents"));
	fz_put_file(FZ_PATH(p, "projects/p/s/subagents/agent-a1.jsonl"), rec, strlen(rec));
	fz_put_file(FZ_PATH(p, "projects/p/s/subagents/agent-a1.meta.json"), meta,
		    strlen(meta));
	fz_put_file(FZ_PATH(p, "projects/p/agent-old1.jsonl"), rec, strlen(rec));
}

static void setup(void)
{
	char p[4200], rel[200];
	size_t i;

	if (!fz_make_root("sessfs-fuzz"))
		return;
	fz_put_dir(FZ_PATH(p, "projects"));
	fz_put_dir(FZ_PATH(p, "projects/p"));
	fz_put_dir(FZ_PATH(p, "file-history"));
	for (i = 0; i < sizeof(fh_sids) / sizeof(fh_sids[0]); i++) {
		snprintf(rel, sizeof(rel), "file-history/%s", fh_sids[i]);
		fz_put_dir(FZ_PATH(p, rel));
		put_backups(p);
	}
	fz_put_dir(FZ_PATH(fh_dir, "fh"));
	put_backups(fh_dir);
	put_agents();
	FZ_PATH(log_path, "projects/p/s.jsonl");
}

/* ---- what the headers promise ---- */

/* A state node's name: a path part from the log, any bytes but '/' and
 * NUL, 1..NM_MAX bytes, not "." or ".." (state.h). */
static void check_part(const char *s)
{
	size_t n = strlen(s);

	CHECK(n > 0 && n <= NM_MAX && !strchr(s, '/'));
	CHECK(strcmp(s, ".") && strcmp(s, ".."));
}

static void check_json(const struct sbuf *sb)
{
	cJSON *j = cJSON_ParseWithLength(sb->buf, sb->len);

	CHECK(j);
	cJSON_Delete(j);
}

/* ---- the index, the graph, the branches ---- */

static void walk_records(struct session *s, struct sbuf *out)
{
	const struct idx *ix = ss_idx(s);
	char uuid[IDX_UUID_MAX + 1], safe[NM_MAX + 1];
	uint32_t i, id;
	size_t n;

	for (i = 0; i < idx_nrecs(ix); i++)
		CHECK(!lf_read(ss_logf(s), idx_rec(ix, i), out));
	for (id = 1; id <= idx_nids(ix); id++) {
		n = idx_id_buf(ix, id, uuid);
		CHECK(n <= IDX_UUID_MAX && uuid[n] == '\0');
		CHECK(idx_id_find(ix, uuid, n) == id);
		nm_safe(uuid, n, safe, sizeof(safe));
		fz_check_name(safe);
		sb_addf(out, "%s\n", safe);
	}
}

/* Agent and Task results: the agent id, its folder name, its quoted form. */
static void walk_agent(struct session *s, uint32_t id, struct sbuf *out)
{
	char aid[AG_ID_MAX + 1], name[NM_MAX + 1];
	size_t n = ag_result_agent(ss_graph(s), ss_logf(s), id, aid, sizeof(aid));

	CHECK(n < sizeof(aid) && aid[n] == '\0');
	if (!n)
		return;
	ag_name(aid, n, name);
	fz_check_name(name);
	sb_addf(out, "agent: %s ", name);
	ag_quote(aid, n, out);
	sb_addc(out, '\n');
}

static void walk_node(struct session *s, uint32_t id, struct sbuf *out)
{
	const struct graph *g = ss_graph(s);
	char file[NM_MAX + 1];
	struct sbuf text;
	uint32_t b;

	nm_message_file(g, id, gr_dpos(g, id), file);
	fz_check_name(file);
	CHECK(!gr_dpos(g, id) || nm_message_seq(file) == gr_dpos(g, id));
	sb_init(&text);
	CHECK(!rd_message(g, ss_logf(s), id, &text));
	fz_check_utf8(&text, "message file", 1);
	sb_addf(out, "%s\n%s", file, text.buf);
	sb_free(&text);
	b = gr_block(g, id);	/* by its head: a grown graph numbers blocks otherwise */
	sb_addf(out, "p %u v %u d %u b %d h %u f %u n %u\n", gr_parent(g, id),
		gr_vparent(g, id), gr_dangling(g, id), !!b, b ? gr_block_head(g, b) : 0,
		b ? gr_block_first(g, b) : 0, gr_block_next(g, id));
	walk_agent(s, id, out);
}

static void walk_branches(struct session *s, struct sbuf *out)
{
	const struct br_set *bs = ss_branches(s);
	const struct graph *g = ss_graph(s);
	const uint32_t *order;
	uint32_t i, k, n, *ids;

	CHECK(ss_current_branch(s) < (int)br_count(bs));
	for (i = 0; i < br_count(bs); i++) {
		const struct br_info *b = br_get(bs, i);

		fz_check_name(b->name);
		CHECK(br_find(bs, b->name) == (int)i);
		CHECK(!br_path(bs, i, &ids, &n));
		sb_addf(out, "branch %s:", b->name);
		for (k = 0; k < n; k++)
			sb_addf(out, " %u", ids[k]);
		sb_addc(out, '\n');
		free(ids);
	}
	order = gr_nodes(g, &n);
	for (k = 0; k < n; k++)
		CHECK(br_of_node(bs, order[k]) < (int)br_count(bs));
}

/* ---- context ---- */

static void walk_rows(const struct ctx *x, struct session *s, struct sbuf *out)
{
	const struct ctx_row *r;
	uint32_t i;

	for (i = 0; i < ctx_nrows(x); i++) {
		r = ctx_row(x, i);
		CHECK(r->msg < (int32_t)ctx_nmessages(x));
		CHECK(r->sent || r->why);
		sb_addf(out, "row %u %u %d %u %u %u %s\n", r->id, r->seq, r->msg,
			r->type, r->synth, r->sent, r->why ? r->why : "");
	}
	for (i = 1; i <= ctx_nsent(x); i++) {
		r = ctx_sent_row(x, i);
		CHECK(r && r->seq == i && r->sent);
		if (r->synth == CTX_S_LOG)
			CHECK(gr_is_node(ss_graph(s), r->id));
		else if (r->msg >= 0)
			ctx_message_json(x, (uint32_t)r->msg, out);
	}
	CHECK(!ctx_sent_row(x, 0) && !ctx_sent_row(x, ctx_nsent(x) + 1));
}

static void walk_notes(const struct ctx *x, struct sbuf *out)
{
	const uint16_t *atoms;
	const uint32_t *counts;
	uint32_t i, n;

	for (i = 0; i < ctx_nnotes(x); i++)
		sb_addf(out, "note %u %u %s\n", ctx_note(x, i)->line, ctx_note(x, i)->id,
			ctx_note(x, i)->text);
	for (i = 0; i < ctx_nrepairs(x); i++)
		sb_addf(out, "repair %s\n", ctx_repair(x, i));
	n = ctx_meta_types(x, &atoms, &counts);
	for (i = 0; i < n; i++)
		sb_addf(out, "meta %u %u\n", atoms[i], counts[i]);
}

static void walk_context(struct session *s, struct sbuf *out)
{
	const struct ctx *x = ss_context(s);
	struct sbuf m;

	CHECK(x);
	sb_init(&m);
	ctx_messages_json(x, &m);
	check_json(&m);
	sb_add(out, m.buf, m.len);
	sb_reset(&m);
	ctx_window_md(x, ss_graph(s), &m);
	fz_check_utf8(&m, "window.md", 1);
	sb_add(out, m.buf, m.len);
	sb_free(&m);
	walk_rows(x, s, out);
	walk_notes(x, out);
	sb_addf(out, "tokens %llu bytes %llu attach %u\n",
		(unsigned long long)ctx_tokens(x), (unsigned long long)ctx_bytes(x),
		ctx_attach(x));
}

/* ---- state ---- */

static void walk_xattrs(const struct st_state *st, uint32_t node, struct sbuf *out)
{
	struct sbuf names, v;
	size_t i;

	sb_init(&names);
	sb_init(&v);
	st_listxattr(st, node, &names);
	for (i = 0; i < names.len; i += strlen(names.buf + i) + 1) {
		sb_reset(&v);
		CHECK(!st_getxattr(st, node, names.buf + i, &v));
		sb_addf(out, "xattr %s=", names.buf + i);
		sb_add(out, v.buf, v.len);
		sb_addc(out, '\n');
	}
	CHECK(st_getxattr(st, node, "user.sessfs.none", &v) == -ENODATA);
	sb_free(&names);
	sb_free(&v);
}

static void walk_state_node(const struct st_state *st, uint32_t node, struct sbuf *out)
{
	uint32_t up = st_parent(st, node), k, n = 0;
	struct sbuf text;
	int rc;

	check_part(st_name(st, node));
	CHECK(up < node && st_is_dir(st, up));
	CHECK(st_lookup(st, up, st_name(st, node)) == node);
	sb_addf(out, "state %u in %u: %s\n", node, up, st_name(st, node));
	if (st_is_dir(st, node)) {
		for (k = st_first(st, node); k != ST_NONE; k = st_next(st, k), n++)
			CHECK(st_parent(st, k) == node);
		CHECK(n == st_nkids(st, node));
		CHECK(st_render(st, node, out) == -EISDIR);
	} else {
		sb_init(&text);
		rc = st_render(st, node, &text);
		CHECK(rc == 0 || rc == -EIO || rc == -ENOENT);
		if (!up && strlen(st_name(st, node)) > 5 &&
		    !strcmp(st_name(st, node) + strlen(st_name(st, node)) - 5, ".json"))
			check_json(&text);	/* state/<what>.json */
		sb_add(out, text.buf, text.len);
		sb_free(&text);
	}
	walk_xattrs(st, node, out);
}

static void walk_state(struct session *s, struct sbuf *out)
{
	const struct st_state *st = ss_state(s);
	struct st_counts c;
	struct sbuf errs;
	uint32_t i;

	CHECK(st && st_count(st) >= 1 && st_is_dir(st, 0));
	CHECK(st_parent(st, 0) == ST_NONE);
	for (i = 1; i < st_count(st); i++)
		walk_state_node(st, i, out);
	CHECK(st_render(st, st_count(st), out) == -ENOENT);
	sb_init(&errs);
	st_errors_text(st, &errs);
	fz_check_utf8(&errs, "state errors", 0);
	CHECK(fz_count_lines(&errs) == st_nerrors(st));
	sb_add(out, errs.buf, errs.len);
	sb_free(&errs);
	st_counts(st, &c);
	sb_addf(out, "counts %u %u %u %u %u %s\n", c.reads, c.snapshots, c.backups,
		c.missing, st_nerrors(st), st_fh_dir(st) ? st_fh_dir(st) : "-");
}

/* What a walk shows without errors.txt's notes (a note of a fresh start
 * holds the time it was made). */
static void strip_notes(struct sbuf *sb)
{
	size_t r = 0, w = 0, n;

	while (r < sb->len) {
		const char *nl = memchr(sb->buf + r, '\n', sb->len - r);

		n = nl ? (size_t)(nl - (sb->buf + r)) + 1 : sb->len - r;
		if (n < 6 || memcmp(sb->buf + r, "note: ", 6)) {
			memmove(sb->buf + w, sb->buf + r, n);
			w += n;
		}
		r += n;
	}
	sb->len = w;
	sb->buf[w] = '\0';
}

/* ---- errors.txt ---- */

/* One line per bad line, graph error and state problem, and notes (the
 * pending tail; the log's fresh starts). */
/* usage.json and every branch's transcript. */
static void walk_usage(struct session *s, struct sbuf *out)
{
	struct sbuf text;
	uint32_t i;

	sb_init(&text);
	CHECK(!rp_usage_json(s, NULL, 0, &text));
	check_json(&text);
	sb_add(out, text.buf, text.len);
	for (i = 0; i < br_count(ss_branches(s)); i++) {
		sb_reset(&text);
		CHECK(!tx_render(s, i, NULL, 0, NULL, &text));
		fz_check_utf8(&text, "transcript", 1);
		sb_add(out, text.buf, text.len);
	}
	sb_free(&text);
}

static void walk_errors(struct session *s, struct sbuf *out)
{
	const struct idx *ix = ss_idx(s);
	struct sbuf errs;
	uint32_t want = idx_nerrs(ix) + gr_nerrs(ss_graph(s)) + st_nerrors(ss_state(s));

	sb_init(&errs);
	ss_errors_text(s, &errs);
	fz_check_utf8(&errs, "errors.txt", 0);
	CHECK(!idx_pending(ix) || strstr(errs.buf, " wait for a newline"));
	strip_notes(&errs);
	CHECK(fz_count_lines(&errs) == want);
	CHECK(!errs.len || errs.buf[errs.len - 1] == '\n');
	sb_add(out, errs.buf, errs.len);
	sb_free(&errs);
	sb_addf(out, "bad %u\n", ss_bad_lines(s));
}

/* ---- everything ---- */

/* Everything the file system shows of s, appended to out. */
static void walk(struct session *s, struct sbuf *out)
{
	const uint32_t *order;
	uint32_t i, n;
	struct sbuf facts;

	walk_records(s, out);
	order = gr_nodes(ss_graph(s), &n);
	for (i = 0; i < n; i++)
		walk_node(s, order[i], out);
	walk_branches(s, out);
	walk_context(s, out);
	walk_usage(s, out);
	walk_state(s, out);
	sb_init(&facts);
	ss_facts_json(s, &facts);
	check_json(&facts);
	sb_add(out, facts.buf, facts.len);
	sb_free(&facts);
	walk_errors(s, out);
}

static void walk_agents(void)
{
	struct ag_list *l;
	struct sbuf sb;
	uint32_t i;

	CHECK(!ag_find(log_path, NULL, NULL, &l));
	sb_init(&sb);
	ag_errors_text(l, &sb);
	fz_check_utf8(&sb, "agents errors", 0);
	for (i = 0; i < ag_count(l); i++) {
		fz_check_name(ag_get(l, i)->name);
		CHECK(ag_by_name(l, ag_get(l, i)->name) == ag_get(l, i));
	}
	sb_free(&sb);
	ag_free(l);
}

/*
 * The inline sidechains (a few): each opened as a part and walked like a
 * log; a part holds exactly the rows its conversation has in the whole
 * log, all of them sidechain rows, and its name is safe.
 */
#define FUZZ_PARTS 4

static void walk_parts(struct session *s, struct sbuf *out)
{
	const struct sc_set *sc = ss_sidechains(s);
	char name[NM_MAX + 1];
	uint32_t i, k, n;

	for (i = 0; i < sc_count(sc) && i < FUZZ_PARTS; i++) {
		const struct sc_agent *a = sc_get(sc, i);
		struct session *part;
		const uint32_t *order;

		ag_name(a->id, a->idlen, name);
		fz_check_name(name);
		CHECK(!ss_open_part(s, a->uuid, &part));
		order = gr_nodes(ss_graph(part), &n);
		CHECK(n == a->rows);
		for (k = 0; k < n; k++)
			CHECK(gr_node_rec(ss_graph(part), order[k])->flags & IDX_F_SIDECHAIN);
		walk(part, out);
		ss_close(part);
	}
}

static struct session *open_log(enum ss_mode mode)
{
	struct session *s = NULL;
	int rc = ss_open(log_path, mode, &s);

	CHECK(rc == 0 || rc == -ENOMSG);
	return s;
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

/* s shows what a live session opened on the log now shows. */
static void same_as_fresh(struct session *s, struct sbuf *a, struct sbuf *b)
{
	struct session *fresh = open_log(SS_LIVE);

	if (!fresh)
		return;		/* a live log with no record yet may still have none */
	sb_reset(a);
	sb_reset(b);
	walk(s, a);
	walk(fresh, b);
	ss_close(fresh);
	strip_notes(a);
	strip_notes(b);
	CHECK(a->len == b->len && !memcmp(a->buf, b->buf, a->len));
}

/* What is built on first use, built before the log changes under it. */
static void touch(struct session *s)
{
	struct sbuf sb;

	sb_init(&sb);
	CHECK(ss_context(s) && ss_state(s));
	ss_facts_json(s, &sb);
	sb_free(&sb);
}

/* The log cut to its first cut bytes: in place, or (replace) as another
 * file renamed over it. */
static void cut_log(const uint8_t *data, size_t cut, int fd, int replace)
{
	char tmp[4300];

	if (!replace) {
		CHECK(!ftruncate(fd, (off_t)cut));
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.new", log_path);
	fz_put_file(tmp, data, cut);
	CHECK(!rename(tmp, log_path));
}

/*
 * The log changes under a live session: its first part is opened, the
 * rest appended and picked up by ss_refresh() (indexed again from scratch
 * only when a last line taken whole went on); then it is cut short, in
 * place or by another file renamed over it, and picked up again (indexed
 * from scratch). Each time ss_changed() sees it coming, and the session
 * then shows what a live session opened on the log as it is shows. The
 * whole log is at its path again afterwards.
 */
static void grow(const uint8_t *data, size_t size)
{
	uint64_t h = fnv1a(data, size);
	size_t split = (size_t)(h % (size + 1)), cut = (size_t)((h >> 32) % (size + 1));
	int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int rc, replace = (int)((h >> 16) & 1);
	struct session *live;
	struct sbuf a, b;

	CHECK(fd >= 0);
	fz_write_all(fd, data, split);
	if ((live = open_log(SS_LIVE)))
		touch(live);
	fz_write_all(fd, data + split, size - split);
	if (!live) {
		close(fd);
		return;
	}
	CHECK(ss_changed(live) == (split < size));
	rc = ss_refresh(live);
	/* Indexed again only where a last line, taken whole without its
	 * newline, may have gone on (idx_continued()). */
	CHECK(rc == SS_SAME || rc == SS_GREW ||
	      (rc == SS_RESET && split > 0 && data[split - 1] != '\n'));
	CHECK(!ss_changed(live) && ss_refresh(live) == SS_SAME);
	sb_init(&a);
	sb_init(&b);
	same_as_fresh(live, &a, &b);
	if (cut < size || replace) {
		cut_log(data, cut, fd, replace);
		CHECK(ss_changed(live));
		CHECK(ss_refresh(live) == SS_RESET);
		CHECK(!ss_changed(live));
		same_as_fresh(live, &a, &b);
		close(fd);
		fd = open(log_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		CHECK(fd >= 0);
		fz_write_all(fd, data, size);
	}
	close(fd);
	ss_close(live);
	sb_free(&a);
	sb_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session *s;
	struct sbuf out;
	int fd0;

	setup();
	fd0 = fz_lowest_fd();
	grow(data, size);
	sb_init(&out);
	if ((s = open_log(SS_COMPLETE))) {
		CHECK(!ss_set_file_history(s, fh_dir));
		walk(s, &out);
		walk_parts(s, &out);
		ss_close(s);
	}
	walk_agents();
	sb_free(&out);
	CHECK(fz_lowest_fd() == fd0);
	return 0;
}
