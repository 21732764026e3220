/*
 * idxbench: times the replay core's stages on one log and prints figures.
 *
 *   idxbench [-2] LOG
 *
 * Prints one line of key=value pairs: bytes, records, the index time and
 * throughput, the index's memory per record, the graph, branch and resume
 * times, and the process's peak RSS (all before the next step); then
 * whether an index built the other way is the same, field for field. The
 * index is built on one thread, or with -2 on two (idx_feed2(), as sessfs
 * indexes a log at open); either way first, in a fresh process: memory
 * touched for the first time costs what it costs sessfs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "branch.h"
#include "graph.h"
#include "idx.h"
#include "logf.h"
#include "resume.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 1 when a and b are the same index, field for field. */
static int same_index(const struct idx *a, const struct idx *b)
{
	char ua[IDX_UUID_MAX + 1], ub[IDX_UUID_MAX + 1];
	uint32_t i;

	if (idx_nrecs(a) != idx_nrecs(b) || idx_nerrs(a) != idx_nerrs(b) ||
	    idx_nids(a) != idx_nids(b) || idx_lines(a) != idx_lines(b) ||
	    idx_end(a) != idx_end(b))
		return 0;
	for (i = 0; i < idx_nrecs(a); i++) {
		const struct idx_rec *x = idx_rec(a, i), *y = idx_rec(b, i);

		if (x->off != y->off || x->ts != y->ts || x->msgid != y->msgid ||
		    x->useid != y->useid || x->len != y->len || x->line != y->line ||
		    x->uuid != y->uuid || x->parent != y->parent || x->aux != y->aux ||
		    x->flags != y->flags || x->rlen != y->rlen ||
		    x->type_atom != y->type_atom || x->sub != y->sub ||
		    x->name != y->name || x->type != y->type || x->block != y->block ||
		    x->drop != y->drop)
			return 0;
	}
	for (i = 0; i < idx_nerrs(a); i++) {
		const struct idx_err *x = idx_err(a, i), *y = idx_err(b, i);

		if (x->off != y->off || x->line != y->line || x->col != y->col ||
		    x->code != y->code)
			return 0;
	}
	for (i = 1; i <= idx_nids(a); i++) {
		idx_id_buf(a, i, ua);
		idx_id_buf(b, i, ub);
		if (strcmp(ua, ub))
			return 0;
	}
	return 1;
}

/* The whole log into ix, on one thread or two. 0 or -errno. */
static int feed(struct idx *ix, const struct logf *lf, int two)
{
	int rc = two ? idx_feed2(ix, lf_fd(lf), IDX_PAR_MIN) : 0;

	return rc ? rc : idx_finish(ix, lf_fd(lf));
}

int main(int argc, char **argv)
{
	struct logf *lf;
	struct idx *ix, *ix2;
	struct graph *g;
	struct br_set *bs;
	struct rs_chain *c;
	struct rusage ru;
	double t0, t1, t2, t3, t4;
	uint64_t bytes;
	int two = argc == 3 && !strcmp(argv[1], "-2");

	if (argc != 2 + two || lf_open(argv[1 + two], &lf)) {
		fprintf(stderr, "usage: idxbench [-2] LOG\n");
		return 2;
	}
	ix = idx_new();
	t0 = now();
	if (!ix || feed(ix, lf, two))
		return 1;
	t1 = now();
	if (gr_build(ix, &g))
		return 1;
	t2 = now();
	if (br_build(g, &bs))
		return 1;
	t3 = now();
	if (rs_build(g, lf, &c))
		return 1;
	t4 = now();
	getrusage(RUSAGE_SELF, &ru);
	ix2 = idx_new();
	if (!ix2 || feed(ix2, lf, !two))
		return 1;
	bytes = idx_end(ix);
	printf("bytes=%llu records=%u threads=%d index_s=%.3f index_MBps=%.0f "
	       "idx_bytes_per_record=%.1f graph_s=%.3f branches_s=%.3f branches=%u "
	       "resume_s=%.3f peak_rss_MB=%.1f other_same=%d\n",
	       (unsigned long long)bytes, idx_nrecs(ix), 1 + two, t1 - t0,
	       (double)bytes / 1e6 / (t1 - t0),
	       (double)idx_mem(ix) / (idx_nrecs(ix) ? idx_nrecs(ix) : 1), t2 - t1,
	       t3 - t2, br_count(bs), t4 - t3, (double)ru.ru_maxrss / 1024.0,
	       same_index(ix, ix2));
	idx_free(ix2);
	rs_free(c);
	br_free(bs);
	gr_free(g);
	idx_free(ix);
	lf_close(lf);
	return 0;
}
