/* gen: setting up and freeing a run's state; see gen.h. */
#include <stdlib.h>

#include "emit.h"
#include "gen.h"
#include "pool.h"
#include "preamble.h"
#include "rnd.h"

const char *const TOOL_NAME[T_COUNT] = {
	"Bash", "Read", "Edit", "Write", "Grep", "Glob",
};

static unsigned isqrt(uint64_t v)
{
	uint64_t r = 0;

	while ((r + 1) * (r + 1) <= v)
		r++;
	return (unsigned)r;
}

/* Compactions: sqrt(9 * MB / 10), so 100 MB gives 9 and 1 GB gives 30. */
void gen_init(struct gen *g, uint64_t seed, uint64_t target, bool forks)
{
	unsigned planned = isqrt(target * SEGMENTS_PER_10M / (10u << 20));

	g->rng = seed * 0x2545f4914f6cdd1dULL + 0x1234567;
	g->target = target;
	g->forks = forks;
	g->now = START_MS;
	rnd_uuid(g, g->sid);
	build_tail(g);
	pool_init(g);
	preamble_build(g);
	g->segment = target / (planned + 1);
	g->next_compact = planned ? g->segment * rnd_range(g, 75, 125) / 100 : UINT64_MAX;
	g->next_fork = g->segment * rnd_range(g, 30, 100) / 100;
	buf_need(&g->out, FLUSH_AT + (4u << 20));
}

void gen_free(struct gen *g)
{
	struct buf *bufs[] = {
		&g->sys_parts, &g->sys_joined, &g->tools_json, &g->sys_blob, &g->tail,
		&g->raw, &g->esc, &g->tmp, &g->body, &g->out,
		&g->calls[0].repl, &g->calls[1].repl,
	};

	for (unsigned i = 0; i < POOL_FILES; i++) {
		free(g->pool[i].raw.p);
		free(g->pool[i].esc.p);
		free(g->pool[i].numbered.p);
		free(g->pool[i].line_off);
	}
	for (int a = 0; a < A_COUNT; a++) {
		free(g->att_body[a].p);
		free(g->att_text[a].p);
	}
	for (size_t i = 0; i < ARRAY_LEN(bufs); i++)
		free(bufs[i]->p);
	free(g);
}
