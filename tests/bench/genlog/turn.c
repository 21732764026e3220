/* turn: a prompt, its tool steps and answer, rewinds; see turn.h. */
#include <string.h>

#include "chain.h"
#include "emit.h"
#include "meta.h"
#include "results.h"
#include "rnd.h"
#include "text.h"
#include "tools.h"
#include "turn.h"

/* The permission modes a process runs in. */
static const char *const PERMISSION_MODES[] = {
	"bypassPermissions", "bypassPermissions", "acceptEdits", "default",
};

/* --------------------------------------------------------------- turns */

static void make_prompt(struct gen *g)
{
	size_t n;

	g->tmp.len = 0;
	text_prompt(g, &g->tmp);
	n = g->tmp.len < PROMPT_LEN - 1 ? g->tmp.len : PROMPT_LEN - 1;
	while (n < g->tmp.len && n > 0 && ((unsigned char)g->tmp.p[n] & 0xc0) == 0x80)
		n--; /* do not cut a UTF-8 sequence */
	memcpy(g->prompt, g->tmp.p, n);
	g->prompt[n] = '\0';
}

/*
 * One response that calls one tool, or two in parallel, and the results.
 * A parallel call's results hang off their own tool_use rows, in either
 * order; the chain goes on from the result written last.
 */
static void tool_step(struct gen *g)
{
	unsigned n = rnd_chance(g, PARALLEL_PCT) ? 2 : 1;
	bool swap = n == 2 && rnd_chance(g, 50);
	struct response rs;

	rec_api_request(g);
	for (unsigned i = 0; i < n; i++) {
		plan_call(g, &g->calls[i], (enum tool)rnd_weighted(g, TOOL_WEIGHT, T_COUNT));
		note_tool(g, g->calls[i].tool);
	}
	resp_init(g, &rs, true);
	if (rnd_chance(g, 40))
		rec_thinking(g, &rs);
	if (n == 2 || rnd_chance(g, 35))
		rec_text(g, &rs, rnd_size(g, 40, 4));
	for (unsigned i = 0; i < n; i++)
		rec_tool_use(g, &rs, &g->calls[i]);
	if (rnd_chance(g, 15)) {
		rec_last_prompt(g, g->prompt, g->parent, false);
		rec_latch(g, K_ATIS);
	}
	for (unsigned i = 0; i < n; i++)
		rec_result(g, &g->calls[swap ? n - 1 - i : i]);
	g->st.parallel += n == 2;
	if (g->want_snapshot) {
		rec_att_snapshot(g, true);
		g->want_snapshot = false;
	}
}

static void final_answer(struct gen *g)
{
	struct response rs;

	rec_api_request(g);
	resp_init(g, &rs, false);
	if (rnd_chance(g, 30))
		rec_thinking(g, &rs);
	rec_text(g, &rs, rnd_size(g, 100, 5));
}

/* A new Claude Code process (a resume) serves the next few prompts. */
static void start_process(struct gen *g)
{
	g->req[0] = '\0';
	g->n_tracked = 0;
	g->tools_mask = 0;
	g->n_tools = 0;
	g->turn_in_process = 0;
	g->perm = PICK(g, PERMISSION_MODES);
	g->prompts_left = PROCESS_MIN + rnd_below(g, PROCESS_SPAN);
	g->want_snapshot = true;
	g->st.processes++;
}

/* What a process attaches to its first prompt, and its request shape. */
static void context_attachments(struct gen *g)
{
	rec_att(g, A_ENV);
	rec_att(g, A_MODEL);
	rec_att(g, A_DEFERRED);
	rec_att(g, A_AGENTS);
	rec_att(g, A_SKILLS);
	rec_att(g, A_AUTO);
	rec_fh_snapshot(g);
	rec_latch(g, K_ATIS);
	rec_att(g, A_CONTEXT);
	rec_att_date(g);
	rec_att(g, A_REMOTE);
	rec_att_snapshot(g, false);
	rec_shape(g);
	rec_blobs(g);
}

static void remember_turn_end(struct gen *g)
{
	struct turn_end *e;

	if (g->n_ends == TURN_ENDS_MAX) {
		memmove(g->ends, g->ends + 1, sizeof(g->ends[0]) * (TURN_ENDS_MAX - 1));
		g->n_ends--;
	}
	e = &g->ends[g->n_ends++];
	memcpy(e->uuid, g->parent, sizeof(e->uuid));
	memcpy(e->prompt, g->prompt, sizeof(e->prompt));
}

/* When a rewind is due: checkpoint the end of an earlier turn of this
 * segment and return it as the next prompt's parent; else NULL. */
static const char *rewind_point(struct gen *g)
{
	unsigned i;

	if (!g->forks || written(g) < g->next_fork || g->n_ends < 2)
		return NULL;
	g->next_fork = written(g) + g->segment * rnd_range(g, 30, 100) / 100;
	i = rnd_below(g, g->n_ends - 1);
	g->n_ends = i + 1; /* the later turns are on the abandoned branch */
	rec_last_prompt(g, g->ends[i].prompt, g->ends[i].uuid, true);
	g->st.forks++;
	return g->ends[i].uuid;
}

void run_turn(struct gen *g)
{
	static const unsigned step_weight[] = { 15, 20, 20, 15, 10, 8, 5, 4, 3 };
	const char *fork = rewind_point(g);
	bool fresh = g->prompts_left == 0;
	unsigned steps;

	wait_ms(g, 4000, 240000);
	make_prompt(g);
	if (fresh)
		start_process(g);
	rec_queue(g, g->prompt);
	rec_queue(g, NULL);
	rec_prompt(g, fork ? fork : g->parent);
	if (fresh)
		context_attachments(g);
	else
		rec_fh_snapshot(g);
	steps = rnd_weighted(g, step_weight, ARRAY_LEN(step_weight));
	g->want_snapshot = g->want_snapshot && steps > 0;
	for (unsigned i = 0; i < steps; i++)
		tool_step(g);
	final_answer(g);
	rec_last_prompt(g, g->prompt, g->parent, false);
	if (rnd_chance(g, 50))
		rec_latch(g, K_ATIS);
	else if (rnd_chance(g, 30))
		rec_latch(g, K_MODE);
	rec_cost(g);
	remember_turn_end(g);
	g->prompts_left--;
	g->st.turns++;
}
