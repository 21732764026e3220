/*
 * headtail: the least a first listing of a projects folder can cost, for
 * the bench to hold sessfs's figure against: every log under DIR's
 * project folders opened, its size taken, its first LH_HEAD and last
 * LH_TAIL bytes read (the whole of a log no bigger than both) and closed,
 * on THREADS threads, with nothing looked at. The best of RUNS, in
 * seconds, on stdout.
 *
 *   headtail DIR THREADS RUNS
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loghead.h"

struct job {
	char **paths;
	size_t n;
	size_t next;		/* atomic */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void read_one(const char *path, char *buf)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	if (!fstat(fd, &st)) {
		if ((size_t)st.st_size <= LH_BUF) {
			if (pread(fd, buf, (size_t)st.st_size, 0) < 0)
				perror(path);
		} else if (pread(fd, buf, LH_HEAD, 0) < 0 ||
			   pread(fd, buf, LH_TAIL, st.st_size - LH_TAIL) < 0) {
			perror(path);
		}
	}
	close(fd);
}

static void *work(void *arg)
{
	struct job *j = arg;
	char *buf = malloc(LH_BUF);
	size_t i;

	while (buf && (i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->n)
		read_one(j->paths[i], buf);
	free(buf);
	return NULL;
}

/* The logs under dir/<project>/ (and the time it takes is part of it). */
static void list(const char *dir, struct job *j)
{
	DIR *d = opendir(dir), *p;
	struct dirent *e, *f;
	size_t cap = 0;
	char path[4096];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!(p = opendir(path)))
			continue;
		while ((f = readdir(p))) {
			size_t n = strlen(f->d_name);

			if (n < 7 || strcmp(f->d_name + n - 6, ".jsonl"))
				continue;
			if (j->n == cap) {
				cap = cap ? 2 * cap : 1024;
				j->paths = realloc(j->paths, cap * sizeof(*j->paths));
			}
			if (asprintf(&j->paths[j->n], "%s/%s", path, f->d_name) >= 0)
				j->n++;
		}
		closedir(p);
	}
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	int threads, runs, r, i;
	double best = 1e9;

	if (argc != 4) {
		fprintf(stderr, "usage: headtail DIR THREADS RUNS\n");
		return 2;
	}
	threads = atoi(argv[2]);
	runs = atoi(argv[3]);
	if (threads < 1 || threads > 64 || runs < 1)
		return 2;
	for (r = 0; r < runs; r++) {
		pthread_t th[64];
		struct job j = { NULL, 0, 0 };
		double t0 = now(), t;

		list(argv[1], &j);
		for (i = 1; i < threads; i++)
			pthread_create(&th[i], NULL, work, &j);
		work(&j);
		for (i = 1; i < threads; i++)
			pthread_join(th[i], NULL);
		t = now() - t0;
		if (t < best)
			best = t;
		while (j.n)
			free(j.paths[--j.n]);
		free(j.paths);
	}
	printf("%.4f\n", best);
	return 0;
}
