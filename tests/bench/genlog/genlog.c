/*
 * genlog: write a large, realistic Claude Code session log, for benchmarks.
 *
 * Usage: genlog [--seed N] [--forks on|off] SIZE OUT.jsonl
 *
 * SIZE is a byte count with an optional binary suffix (64K, 100M, 1G). The
 * program appends whole turns until OUT holds at least SIZE bytes, then stops
 * at the end of a turn, so every line is complete (a log holds at least one
 * turn, so sizes below ~200K give one turn). Records follow the shapes
 * that Claude Code 2.1.328 writes (../shared/docs/session-format.md and the
 * logs in ../shared/corpus): queue operations, user prompts with their
 * attachment chains and a prompt_snapshot, api-request records, assistant
 * responses split one content block per row, tool results of 100 B to 50 KB,
 * parallel tool calls, file-history records, checkpoints and cost state.
 * Compactions (new roots with logicalParentUuid) are spread so that a 100 MB
 * log has several and a 1 GB log dozens; with --forks on (the default) some
 * prompts rewind to the end of an earlier turn, leaving several branches.
 *
 * The output depends only on the arguments: every id, timestamp and text
 * comes from one seeded splitmix64 generator. Records are built in a large
 * buffer and written with fwrite() in chunks of several MB.
 *
 * The program is split by what it writes (gen.h lists its modules): this
 * file reads the arguments, runs turns and compactions until the log is
 * big enough, and prints a summary of what it wrote to stderr.
 *
 * Build (or make build/bench/genlog), in this folder:
 *   cc -O2 -std=c11 -Wall -Wextra -Werror -D_FILE_OFFSET_BITS=64 -o genlog *.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "emit.h"
#include "gen.h"
#include "turn.h"

static const char *const KIND_NAME[K_COUNT] = {
	"queue-operation", "user", "assistant", "attachment", "system",
	"file-history-snapshot", "file-history-delta", "api-request",
	"api-request-shape", "api-request-blob", "last-prompt", "cost-state",
	"mode", "atis-latch", "tools-used",
};

static void print_summary(const struct gen *g)
{
	const struct stats *s = &g->st;

	fprintf(stderr, "genlog: bytes=%llu lines=%llu turns=%llu processes=%llu "
		"tool_uses=%llu parallel=%llu compactions=%llu forks=%llu | records (bytes):",
		(unsigned long long)g->flushed, (unsigned long long)s->lines,
		(unsigned long long)s->turns, (unsigned long long)s->processes,
		(unsigned long long)s->tool_uses, (unsigned long long)s->parallel,
		(unsigned long long)s->compactions, (unsigned long long)s->forks);
	for (int k = 0; k < K_COUNT; k++)
		fprintf(stderr, " %s=%llu(%.1f%%)", KIND_NAME[k], (unsigned long long)s->count[k],
			100.0 * (double)s->bytes[k] / (double)(g->flushed ? g->flushed : 1));
	fputc('\n', stderr);
}

static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;

	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (end == s || *end || v == 0 || v > (1ULL << 40) >> shift)
		die("bad size '%s' (want e.g. 64K, 100M, 1G)", s);
	return (uint64_t)v << shift;
}

static void usage(void)
{
	die("usage: genlog [--seed N] [--forks on|off] SIZE OUT.jsonl");
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	bool forks = true;
	struct gen *g;
	int i;

	for (i = 1; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--forks") && !strcmp(argv[i + 1], "on"))
			forks = true;
		else if (!strcmp(argv[i], "--forks") && !strcmp(argv[i + 1], "off"))
			forks = false;
		else
			usage();
	}
	if (argc - i != 2)
		usage();
	g = calloc(1, sizeof(*g));
	if (!g)
		die("out of memory");
	gen_init(g, seed, parse_size(argv[i]), forks);
	g->fp = fopen(argv[i + 1], "wb");
	if (!g->fp)
		die("cannot open %s", argv[i + 1]);
	while (written(g) < g->target) {
		if (written(g) >= g->next_compact)
			compact(g);
		run_turn(g);
	}
	out_flush(g);
	if (fclose(g->fp))
		die("write failed");
	print_summary(g);
	gen_free(g);
	return 0;
}
