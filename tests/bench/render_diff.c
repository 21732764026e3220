/*
 * render_diff: renders every node of each log given with the renderer
 * (core/render.c) and with the cJSON tree renderer it replaced
 * (tests/unit/render_oracle.h), compares the bytes, and times both (CPU time).
 *
 *   render_diff LOG...
 *
 * Prints one line per log; exits 1 if any file differs. Build:
 *   cc -O2 -Icore -Itests/unit tests/bench/render_diff.c core/\*.c -lcjson
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render.h"
#include "render_oracle.h"
#include "session.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* RENDER_DIFF_NEW_ONLY=N: time the renderer alone, N times (profiling). */
static int only_new;

/* Renders every node both ways; returns the number that differ. */
static uint32_t diff_log(const char *path)
{
	struct session *s;
	const uint32_t *nodes;
	uint32_t n, i, bad = 0;
	int k;
	struct sbuf a, b;
	double t_new = 0, t_old = 0, t;
	size_t bytes = 0;

	if (ss_open(path, SS_COMPLETE, &s)) {
		printf("%s: cannot open\n", path);
		return 1;
	}
	nodes = gr_nodes(ss_graph(s), &n);
	sb_init(&a);
	sb_init(&b);
	for (i = 0; i < n; i++) {
		sb_reset(&a);
		sb_reset(&b);
		t = now();
		for (k = 0; k < (only_new > 1 ? only_new : 1); k++) {
			sb_reset(&a);
			rd_message(ss_graph(s), ss_logf(s), nodes[i], &a);
		}
		t_new += now() - t;
		t = now();
		if (!only_new)
			ref_rd_message_ex(ss_graph(s), ss_logf(s), nodes[i], NULL, &b);
		else
			sb_add(&b, a.buf, a.len);
		t_old += now() - t;
		bytes += a.len;
		if (a.len != b.len || memcmp(a.buf, b.buf, a.len)) {
			if (bad++ < 3)
				printf("%s: node %u (line %u) differs\n", path, nodes[i],
				       gr_node_rec(ss_graph(s), nodes[i])->line);
		}
	}
	printf("%s: %u files, %zu bytes, %u differ; render %.3f s, tree renderer %.3f s\n",
	       path, n, bytes, bad, t_new, t_old);
	sb_free(&a);
	sb_free(&b);
	ss_close(s);
	return bad;
}

int main(int argc, char **argv)
{
	uint32_t bad = 0;
	int i;

	only_new = getenv("RENDER_DIFF_NEW_ONLY") ? atoi(getenv("RENDER_DIFF_NEW_ONLY")) : 0;
	for (i = 1; i < argc; i++)
		bad += diff_log(argv[i]);
	return bad ? 1 : 0;
}
