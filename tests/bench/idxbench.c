/*
 * idxbench: times the replay core's stages on one log and prints figures.
 *
 *   idxbench LOG
 *
 * Prints one line of key=value pairs: bytes, records, the index time and
 * throughput, the index's memory per record, the graph, branch and resume
 * times, and the process's peak RSS.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../../core/branch.h"
#include "../../core/graph.h"
#include "../../core/idx.h"
#include "../../core/logf.h"
#include "../../core/resume.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct logf *lf;
	struct idx *ix;
	struct graph *g;
	struct br_set *bs;
	struct rs_chain *c;
	struct rusage ru;
	double t0, t1, t2, t3, t4;
	uint64_t bytes;

	if (argc != 2 || lf_open(argv[1], &lf)) {
		fprintf(stderr, "usage: idxbench LOG\n");
		return 2;
	}
	ix = idx_new();
	t0 = now();
	if (!ix || idx_finish(ix, lf_fd(lf)))
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
	bytes = idx_end(ix);
	printf("bytes=%llu records=%u index_s=%.3f index_MBps=%.0f idx_bytes_per_record=%.1f "
	       "graph_s=%.3f branches_s=%.3f branches=%u resume_s=%.3f peak_rss_MB=%.1f\n",
	       (unsigned long long)bytes, idx_nrecs(ix), t1 - t0,
	       (double)bytes / 1e6 / (t1 - t0),
	       (double)idx_mem(ix) / (idx_nrecs(ix) ? idx_nrecs(ix) : 1), t2 - t1,
	       t3 - t2, br_count(bs), t4 - t3, (double)ru.ru_maxrss / 1024.0);
	rs_free(c);
	br_free(bs);
	gr_free(g);
	idx_free(ix);
	lf_close(lf);
	return 0;
}
