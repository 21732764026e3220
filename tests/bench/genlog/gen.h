/*
 * gen: the state of one run of genlog, shared by all its modules.
 *
 * genlog writes one Claude Code session log, record after record, from one
 * seeded generator (rnd.h): the same arguments give the same bytes. Every
 * module takes the one struct gen of the run; this header holds what they
 * share: the constants of the log's shape, the enums that index the tables
 * (tools, attachments, languages, record kinds) and the state itself.
 *
 * The modules, bottom up (a module includes gen.h and the headers of the
 * modules listed before it, none after):
 *   buf       growable byte buffers, JSON escaping, die()
 *   rnd       the seeded generator, picks, uuids, ids and hashes
 *   emit      the record emitter (%-directives), the clock, the output
 *   text      sentence banks, prose, todo-list JSON
 *   pool      the project's synthetic source files
 *   preamble  attachment bodies, system prompt and tool list (built once)
 *   meta      records outside the chain: queue, checkpoints, cost, file
 *             history, the api-request trio
 *   chain     chain rows: prompts, attachments, assistant responses
 *   tools     tool calls, their tool_use rows, what the shell prints
 *   results   the tool_result rows
 *   turn      a turn: prompt, tool steps, final answer, rewinds
 *   compact   a compaction: boundary, summary, re-attached context
 *   gen.c     gen_init(), gen_free(); genlog.c: arguments and main()
 *
 * Ownership: struct gen owns every buffer in it (and in its pool files and
 * calls); gen_free() frees them and the struct. Strings returned by the
 * modules are borrowed from static tables unless a header says otherwise.
 *
 * Thread-safety: none. genlog is single-threaded; a struct gen is used by
 * one thread, and the order of calls is the output (each call may draw
 * from the generator).
 */
#ifndef GENLOG_GEN_H
#define GENLOG_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"

/* What the log says of the program that wrote it. */
#define CC_VERSION       "2.1.328"
#define PROJECT_DIR      "/home/user/src/todo-app"
#define MODEL_ID         "claude-opus-5-5"
#define CLI_PREFIX "You are a Claude agent, built on Anthropic's Claude Agent SDK."
#define START_MS         1796232131227ULL /* 2026-12-02T17:22:11.227Z */

/* Sizes of ids and fields. */
#define UUID_LEN         36
#define HASH_LEN         64
#define ID_TAIL          22   /* base62 digits after "msg_01" / "toolu_01" */
#define ID_LEN           (8 + ID_TAIL)
#define PATH_LEN         96
#define TS_LEN           24   /* 2026-12-02T17:22:11.941Z */
#define TS_STEP_MS       30   /* clock advance per record, at most */
#define PROMPT_LEN       320
#define CMD_LEN          160

/* The shape of the log. */
#define FLUSH_AT         (8u << 20)  /* write out once this much is buffered */
#define POOL_FILES       192         /* synthetic project files */
#define SIZE_MIN         100         /* smallest file / command output */
#define SIZE_OCTAVES     9           /* largest: SIZE_MIN << 9, about 50 KB */
#define TURN_ENDS_MAX    32          /* rewind targets kept per segment */
#define TRACKED_MAX      24          /* files in a file-history snapshot */
#define CONTEXT_TAIL_MAX 40          /* hashes in a first request's tail */
#define PROCESS_MIN      8           /* prompts served by one process ... */
#define PROCESS_SPAN     24          /* ... plus up to this many more */
#define PARALLEL_PCT     15          /* responses with two tool calls */
#define MAX_CALLS        2
#define SEGMENTS_PER_10M 9           /* compactions ~ sqrt(9 * MB / 10) */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Languages of the pool's files (pool.c). */
enum lang { L_C, L_PY, L_JS, L_MD, L_JSON, L_YAML, L_COUNT };

/* Attachments, built once (preamble.c), attached by chain.c. */
enum att { A_ENV, A_MODEL, A_DEFERRED, A_AGENTS, A_SKILLS, A_AUTO, A_CONTEXT,
	   A_REMOTE, A_COUNT };

/* Tools the model calls (tools.c). */
enum tool { T_BASH, T_READ, T_EDIT, T_WRITE, T_GREP, T_GLOB, T_COUNT };
/* Each tool's name as the model calls it (gen.c). */
extern const char *const TOOL_NAME[T_COUNT];

/* Kinds of record, counted by rec_end() and printed in the summary. */
enum kind { K_QUEUE, K_USER, K_ASSISTANT, K_ATTACHMENT, K_SYSTEM, K_FH_SNAPSHOT,
	    K_FH_DELTA, K_API_REQUEST, K_API_SHAPE, K_API_BLOB, K_LAST_PROMPT,
	    K_COST, K_MODE, K_ATIS, K_TOOLS_USED, K_COUNT };

struct pool_file {
	char path[PATH_LEN];  /* relative to PROJECT_DIR */
	char hash[17];        /* file-history backup name stem */
	enum lang lang;
	struct buf raw;       /* contents */
	struct buf esc;       /* contents, JSON-escaped */
	struct buf numbered;  /* "N\tline" form that Read returns, escaped */
	uint32_t *line_off;   /* start of each line in raw */
	unsigned lines;       /* lines, counting the empty one after the last '\n' */
};

struct tracked {
	char path[PATH_LEN];
	char hash[17];
	unsigned version;
};

struct turn_end {
	char uuid[UUID_LEN + 1];
	char prompt[PROMPT_LEN];
};

struct call {
	enum tool tool;
	char id[ID_LEN + 1];
	char row[UUID_LEN + 1]; /* the assistant row holding the tool_use */
	unsigned file;          /* pool index */
	unsigned cmd;           /* BASH_CMDS index */
	unsigned first, count;  /* Edit: replaced lines */
	bool fail;
	bool files_mode;        /* Grep: files_with_matches */
	char path[PATH_LEN];    /* Read of a missing file, Write target */
	char text[CMD_LEN];     /* Bash command line, Grep/Glob pattern */
	struct buf repl;        /* Edit: the new lines */
};

struct response {
	char msg_id[ID_LEN + 1];
	const char *stop;
	unsigned block;
	unsigned out_tokens;
	unsigned think_tokens;
	/* Its usage, the same on each of its rows, as Claude Code writes it:
	 * the cache writes all 5-minute ones (cache_creation sums to them). */
	unsigned in_tokens, created, cache_read;
};

struct cost {
	uint64_t usd5;          /* cost in units of 1e-5 USD */
	uint64_t api_ms, tool_ms, added, removed, in_tok, out_tok, think_tok, cache_tok;
};

struct stats {
	uint64_t count[K_COUNT];
	uint64_t bytes[K_COUNT];
	uint64_t lines, prompts, tool_uses, parallel, turns, compactions, forks, processes;
};

struct gen {
	uint64_t rng;
	FILE *fp;
	struct buf out;
	uint64_t flushed;
	uint64_t target;
	bool forks;
	uint64_t now;                   /* clock, ms since the epoch */
	char sid[UUID_LEN + 1];
	char slug[48];
	struct buf tail;                /* envelope end of chain rows */
	char parent[UUID_LEN + 1];      /* newest row of the live chain */
	char prompt_uuid[UUID_LEN + 1];
	char prompt_id[UUID_LEN + 1];
	char prompt[PROMPT_LEN];
	char req[UUID_LEN + 1];         /* newest api-request id; "" after a restart */
	char shape[HASH_LEN + 1];
	char blob_user[HASH_LEN + 1], blob_sys[HASH_LEN + 1];
	const char *perm;
	unsigned keep, ctx_msgs, turn_in_process, prompts_left, notes;
	bool want_snapshot;             /* second prompt_snapshot still due */
	unsigned tools_mask;
	enum tool tools_order[T_COUNT];
	unsigned n_tools;
	struct tracked tracked[TRACKED_MAX];
	unsigned n_tracked;
	struct turn_end ends[TURN_ENDS_MAX];
	unsigned n_ends;
	unsigned recent_reads[3];
	uint64_t segment, next_compact, next_fork;
	struct cost cost;
	struct stats st;
	struct pool_file pool[POOL_FILES];
	struct buf att_body[A_COUNT], att_text[A_COUNT];
	struct buf sys_parts, sys_joined, tools_json, sys_blob;
	struct buf raw, esc, tmp, body; /* scratch */
	struct call calls[MAX_CALLS];
};

/*
 * Set up a zeroed g (calloc) for a log of at least target bytes: seed the
 * generator, make the session id, the pool and the preamble, and plan the
 * compactions (sqrt(9 * MB / 10) of them: 100 MB gives 9, 1 GB 30) and when
 * the first rewind is due (forks: whether rewinds happen at all). g->fp is
 * the caller's to open and close.
 */
void gen_init(struct gen *g, uint64_t seed, uint64_t target, bool forks);
/* Free every buffer g owns, then g. */
void gen_free(struct gen *g);

#endif
