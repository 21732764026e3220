/*
 * resume_filter: the filter rs_build() keeps beside a chain for
 * rs_grow() (resume_priv.h): a Bloom filter of the response, call and
 * tool result ids of the rows outside the tail response, three probes
 * a key, 12 to 24 bits a key when built; it is full (rs_grow() says
 * RS_GROW_NO and the chain is built again, the filter with it) at 8.
 */
#include "resume_priv.h"

#include <errno.h>
#include <stdlib.h>

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#define RS_PROBES 3

int rsi_filter_init(struct rs_more *m, uint32_t nkeys)
{
	uint64_t want = (uint64_t)(nkeys < 64 ? 64 : nkeys) * RSI_BITS_PER_KEY, nb = 64;

	while (nb < want)
		nb <<= 1;
	free(m->bits);
	m->bits = calloc(nb / 64, sizeof(*m->bits));
	m->nbits = m->bits ? (uint32_t)nb : 0;
	m->nkeys = 0;
	return m->bits ? 0 : -ENOMEM;
}

/* Adds key of kind (only counts it while there are no bits). */
static void add(struct rs_more *m, enum rs_key kind, uint64_t key)
{
	uint64_t h = mix(key ^ mix(kind)), step = (h >> 32) | 1;
	int i;

	for (i = 0; m->bits && i < RS_PROBES; i++, h += step)
		m->bits[(h & (m->nbits - 1)) >> 6] |= 1ull << (h & 63);
	m->nkeys++;
}

int rsi_filter_has(const struct rs_more *m, enum rs_key kind, uint64_t key)
{
	uint64_t h = mix(key ^ mix(kind)), step = (h >> 32) | 1;
	int i;

	for (i = 0; i < RS_PROBES; i++, h += step)
		if (!(m->bits[(h & (m->nbits - 1)) >> 6] & (1ull << (h & 63))))
			return 0;
	return 1;
}

void rsi_filter_row(struct rs_more *m, const struct graph *g, uint32_t id, uint64_t tail)
{
	const struct idx_rec *r = gr_node_rec(g, id);

	if (!gr_main_side(g, id))
		return;
	if (r->type == IDX_T_ASSISTANT && r->msgid && (!tail || r->msgid != tail)) {
		add(m, RS_K_MSG, r->msgid);
		if (r->useid && r->block == IDX_B_TOOL_USE)
			add(m, RS_K_CALL, r->useid);
	} else if (r->type == IDX_T_USER && r->block == IDX_B_TOOL_RESULT && r->useid) {
		add(m, RS_K_RES, r->useid);
	}
}

