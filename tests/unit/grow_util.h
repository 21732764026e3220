/*
 * The growth tests' own helpers: what a session shows, as one text (the
 * graph, session.json, errors.txt, window.md, the branches and their
 * paths, the resumed chain, the sidechains and summaries, the context and
 * every file of state/), and gu_grow(), which writes a log cut at a
 * point, opens it, appends the rest in steps and checks after each that
 * the grown session shows byte for byte what a fresh ss_open() of the
 * same bytes does. Shared by test_grow.c (whole logs of our own and of
 * the corpus grown record by record) and test_grow_paths.c (which kind
 * of growth each case takes). Header-only, like testutil.h; not
 * thread-safe (the counters are one set a program).
 */
#ifndef SESSFS_GROW_UTIL_H
#define SESSFS_GROW_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>

#include "tu_fixture.h"
#include "session.h"
#include "state.h"

/* ---- what a session shows, as one text ---- */

static inline void gu_add_state(struct session *s, struct sbuf *out)
{
	const struct st_state *st = ss_state(s);
	uint32_t i;

	if (!st) {
		sb_adds(out, "no state\n");
		return;
	}
	for (i = 0; i < st_count(st); i++) {
		sb_addf(out, "node %u parent %u dir %d name %s\n", i, st_parent(st, i),
			st_is_dir(st, i), st_name(st, i));
		st_listxattr(st, i, out);
		if (!st_is_dir(st, i))
			sb_addf(out, "render %d\n", st_render(st, i, out));
	}
	st_errors_text(st, out);
}

/* br_last()'s tests: ids that are a multiple of *arg, and one id. */
static inline int gu_multiple(uint32_t id, void *arg)
{
	return id % *(uint32_t *)arg == 0;
}

static inline int gu_equal(uint32_t id, void *arg)
{
	return id == *(uint32_t *)arg;
}

/* The last of ids[0..n) that want() takes, or 0: br_last() by br_path(). */
static inline uint32_t gu_last_of(const uint32_t *ids, uint32_t n,
			int (*want)(uint32_t id, void *arg), void *arg)
{
	while (n-- > 0)
		if (want(ids[n], arg))
			return ids[n];
	return 0;
}

/* br_last() finds what a search of br_path() from its end finds: for a
 * few divisors, and for each of the last 40 rows and every 50th. */
static inline void gu_check_last(const struct br_set *b, uint32_t i, const uint32_t *ids, uint32_t n)
{
	uint32_t m, k;

	for (m = 1; m <= 5; m++)
		assert_int_equal(br_last(b, i, gu_multiple, &m), gu_last_of(ids, n, gu_multiple, &m));
	for (k = 0; k < n; k++) {
		if (k + 40 < n && k % 50)
			continue;
		m = ids[k];
		assert_int_equal(br_last(b, i, gu_equal, &m), gu_last_of(ids, n, gu_equal, &m));
	}
}

static inline void gu_add_branches(const struct session *s, struct sbuf *out)
{
	const struct br_set *b = ss_branches(s);
	const struct rs_chain *c = ss_chain(s);
	uint32_t i, k, *ids, n;

	for (i = 0; i < br_count(b); i++) {
		const struct br_info *r = br_get(b, i);

		sb_addf(out, "branch %s terminal %u first %u key %u:", r->name, r->terminal,
			r->first_own, r->key);
		assert_int_equal(br_path(b, i, &ids, &n), 0);
		for (k = 0; k < n; k++)
			sb_addf(out, " %u", ids[k]);
		sb_addc(out, '\n');
		gu_check_last(b, i, ids, n);
		free(ids);
	}
	sb_addf(out, "current %d chain leaf %u attach %u window %u n %u boundary %u deleted %u"
		" cleared %d relinked %d:", ss_current_branch(s), c->leaf, c->attach, c->window,
		c->n, c->boundary, c->deleted, c->cleared, c->relinked);
	for (k = 0; k < c->n; k++)
		sb_addf(out, " %u", c->ids[k]);
	sb_addc(out, '\n');
	for (k = 0; k < c->nnotes; k++)
		sb_addf(out, "chain note %u %u %u %u\n", c->notes[k].code, c->notes[k].id,
			c->notes[k].aux, c->notes[k].aux2);
}

/* The inline sidechains and the summaries, field by field. */
static inline void gu_add_sets(const struct session *s, struct sbuf *out)
{
	const struct sc_set *sc = ss_sidechains(s);
	const struct sm_set *sm = ss_summaries(s);
	const struct br_set *b = ss_branches(s);
	uint32_t i;

	for (i = 0; i < sc_count(sc); i++) {
		const struct sc_agent *a = sc_get(sc, i);

		sb_addf(out, "agent %u root %u rows %u call %u use %llu id %s uuid %s\n", i,
			a->root, a->rows, a->call, (unsigned long long)a->useid, a->id, a->uuid);
	}
	sb_addf(out, "summaries %u cont %u\n", sm_nsummaries(sm), sm_ncont(sm));
	for (i = 0; i < br_count(b); i++)
		sb_addf(out, "title %u %s\n", i, sm_branch_title(sm, i) ? sm_branch_title(sm, i) : "-");
	for (i = 0; i < sm_ncont(sm); i++)
		sb_addf(out, "cont %s %u %s\n", sm_cont(sm, i)->leaf, sm_cont(sm, i)->line,
			sm_cont(sm, i)->summary);
}

/* The graph and the branches node by node: what gr_grow() and br_grow()
 * must give as a build does (a block by its head: numbers may differ). */
static inline void gu_add_graph(const struct session *s, struct sbuf *out)
{
	const struct graph *g = ss_graph(s);
	const struct br_set *b = ss_branches(s);
	const uint32_t *order;
	uint32_t n, k;

	order = gr_nodes(g, &n);
	for (k = 0; k < n; k++) {
		uint32_t id = order[k];

		sb_addf(out, "node %u rec %u pos %u parent %u/%u dang %u child %u sib %u"
			" head %u next %u dpos %u side %d branch %d first %d\n", id,
			gr_rec(g, id), gr_pos(g, id), gr_parent(g, id), gr_vparent(g, id),
			gr_dangling(g, id), gr_first_child(g, id), gr_next_sibling(g, id),
			gr_block_head(g, gr_block(g, id)), gr_block_next(g, id), gr_dpos(g, id),
			gr_main_side(g, id), br_of_node(b, id), br_of_first(b, id));
	}
	for (k = 0; k < gr_nerrs(g); k++)
		sb_addf(out, "graph error %u %u %u %u\n", gr_err(g, k)->line, gr_err(g, k)->id,
			gr_err(g, k)->aux, gr_err(g, k)->code);
	for (k = 0; k < br_ndead(b); k++)
		sb_addf(out, "dead %u %u %u %u %u\n", br_dead(b, k)->terminal, br_dead(b, k)->top,
			br_dead(b, k)->from, br_dead(b, k)->rows, br_dead(b, k)->why);
}

static inline void gu_shown(struct session *s, struct sbuf *out)
{
	const struct ctx *x;

	gu_add_graph(s, out);
	ss_facts_json(s, out);
	ss_errors_text(s, out);
	ss_window_md(s, out);
	gu_add_branches(s, out);
	gu_add_sets(s, out);
	x = ss_context(s);
	if (x)
		ctx_messages_json(x, out);
	gu_add_state(s, out);
}

/* ---- growing a log ---- */

static inline void gu_put(const char *path, const char *data, size_t n, int append)
{
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static uint32_t gu_compared;
static uint32_t gu_origins[3];	/* contexts by ctx_origin(), after growth */
static struct ss_grow_counts gu_grows;	/* how the growths made the graph */

/* s, grown to the file's bytes, shows what a fresh session of them does. */
static inline void gu_check_same(struct session *s, const char *path, const char *what)
{
	struct session *fresh;
	struct sbuf a, b;
	int rc;

	/* SS_SAME promises a reader nothing changed: what a cache kept of
	 * session.json and errors.txt must still be true. */
	sb_init(&a);
	sb_init(&b);
	ss_facts_json(s, &a);
	ss_errors_text(s, &a);
	assert_true((rc = ss_refresh(s)) >= 0);
	ss_facts_json(s, &b);
	ss_errors_text(s, &b);
	if (rc == SS_SAME && (a.len != b.len || memcmp(a.buf, b.buf, a.len)))
		fail_msg("%s: ss_refresh() said SS_SAME, and session.json or errors.txt changed", what);
	sb_free(&a);
	sb_free(&b);
	assert_int_equal(ss_open(path, SS_LIVE, &fresh), 0);
	sb_init(&a);
	sb_init(&b);
	gu_shown(s, &a);
	gu_shown(fresh, &b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len)) {
		size_t i = 0;

		while (i < a.len && i < b.len && a.buf[i] == b.buf[i])
			i++;
		fail_msg("%s: grown and fresh differ at byte %zu:\n--- grown\n%.300s\n--- fresh\n%.300s",
			 what, i, a.buf + (i > 100 ? i - 100 : 0), b.buf + (i > 100 ? i - 100 : 0));
	}
	gu_compared++;
	if (ss_context(s))
		gu_origins[ctx_origin(ss_context(s))]++;
	sb_free(&a);
	sb_free(&b);
	ss_close(fresh);
}

static inline void gu_add_counts(const struct session *s)
{
	struct ss_grow_counts c;

	ss_grow_counts(s, &c);
	gu_grows.graph[0] += c.graph[0];
	gu_grows.graph[1] += c.graph[1];
	gu_grows.branches[0] += c.branches[0];
	gu_grows.branches[1] += c.branches[1];
	gu_grows.chain[0] += c.chain[0];
	gu_grows.chain[1] += c.chain[1];
	gu_grows.sidechains[0] += c.sidechains[0];
	gu_grows.sidechains[1] += c.sidechains[1];
	gu_grows.summaries[0] += c.summaries[0];
	gu_grows.summaries[1] += c.summaries[1];
}

/*
 * Writes data[0..cut) to path, opens it (building everything a reader
 * asks for), then appends the rest at the offsets steps[] (increasing,
 * the last one n), checking after each.
 */
static inline void gu_grow(const char *path, const char *data, size_t cut, const size_t *steps,
		 size_t nsteps, const char *name, struct ss_grow_counts *counts)
{
	struct session *s;
	struct sbuf scratch;
	size_t k, at = cut;
	char what[512];

	gu_put(path, data, cut, 0);
	assert_int_equal(ss_open(path, SS_LIVE, &s), 0);
	sb_init(&scratch);
	gu_shown(s, &scratch);	/* the context and the state built, as a mount would */
	sb_free(&scratch);
	for (k = 0; k < nsteps; k++) {
		if (steps[k] <= at)
			continue;
		gu_put(path, data + at, steps[k] - at, 1);
		at = steps[k];
		snprintf(what, sizeof(what), "%s cut at byte %zu grown to %zu", name, cut, at);
		gu_check_same(s, path, what);
	}
	gu_add_counts(s);
	if (counts)
		ss_grow_counts(s, counts);
	ss_close(s);
}

#endif
