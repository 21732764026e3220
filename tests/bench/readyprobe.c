/*
 * readyprobe: how long a mount takes to answer, measured without a shell
 * in the way.
 *
 *   readyprobe OUT DIR PROGRAM [ARG...]
 *
 * Starts a process of its own, notes the time, then becomes PROGRAM
 * (exec, same pid: the caller's $! is the daemon's). The other process
 * opens DIR and reads it to the end, as ls does, every millisecond until
 * that works; then it writes the seconds since the exec to OUT and exits. It gives up after 60 s
 * (OUT then says so). A shell loop that forks ls for every try adds its
 * own milliseconds per try; this adds at most one millisecond.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 1 once DIR lists to the end. */
static int lists(const char *dir)
{
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	errno = 0;
	while (readdir(d))
		;
	closedir(d);
	return errno == 0;
}

static void probe(const char *out, const char *dir, double t0)
{
	const struct timespec ms = { 0, 1000000 };
	FILE *f;
	int ok;

	while (!(ok = lists(dir)) && now() - t0 < 60)
		nanosleep(&ms, NULL);
	f = fopen(out, "w");
	if (!f)
		return;
	if (ok)
		fprintf(f, "%.4f\n", now() - t0);
	else
		fprintf(f, "timeout\n");
	fclose(f);
}

int main(int argc, char **argv)
{
	double t0;
	pid_t pid;
	int fd[2];

	if (argc < 4) {
		fprintf(stderr, "usage: readyprobe OUT DIR PROGRAM [ARG...]\n");
		return 2;
	}
	if (pipe(fd) || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		/* The prober is a grandchild: nobody has to reap it. */
		close(fd[1]);
		if (fork() == 0 && read(fd[0], &t0, sizeof(t0)) == sizeof(t0))
			probe(argv[1], argv[2], t0);
		_exit(0);
	}
	close(fd[0]);
	waitpid(pid, NULL, 0);
	t0 = now();
	if (write(fd[1], &t0, sizeof(t0)) != sizeof(t0))
		return 1;
	close(fd[1]);
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
