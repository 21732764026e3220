/*
 * emit: how genlog writes records: the emitter, the clock and the output.
 *
 * A record is written as
 *	uint64_t r = rec_begin(g);
 *	emit(g, HEAD "...%q...%T", ...);   (one or more emit() calls)
 *	rec_end(g, K_..., r);
 * into g->out, which rec_end() writes to g->fp once it holds FLUSH_AT
 * bytes; out_flush() writes the rest at the end. bemit() writes the same
 * directives into any buffer (scratch text, the envelope tail).
 *
 * The clock (g->now, ms since the epoch) only moves forward: %t advances
 * it by 1 to TS_STEP_MS ms per timestamp, wait_ms() by a pause.
 *
 * Thread-safety: none; everything here works on the run's struct gen.
 */
#ifndef GENLOG_EMIT_H
#define GENLOG_EMIT_H

#include "gen.h"

/*
 * Append fmt to b, replacing these directives:
 *   %s  const char *, as is           %q  const char *, quoted (needs no escaping)
 *   %e  const char *, quoted, escaped  %M  const char *, size_t: quoted, escaped
 *   %m  const char *, size_t: escaped, not quoted
 *   %b  const struct buf *, as is     %Q  const struct buf * of escaped text, quoted
 *   %E  const struct buf * of raw text, quoted, escaped
 *   %u  unsigned                      %U  uint64_t
 *   %p  a parent uuid, quoted; null for NULL or ""
 *   %S  the session id, quoted        %t  the clock, advanced a little, quoted
 *   %T  the envelope end of chain rows: "userType":... "gitBranch":"main"}
 * Any other directive dies.
 */
void bemit(struct gen *g, struct buf *b, const char *fmt, ...);
/* bemit() into the output. */
#define emit(g, ...) bemit((g), &(g)->out, __VA_ARGS__)

/* Every chain row starts so. */
#define HEAD "{\"parentUuid\":%p,\"isSidechain\":false,"
#define ABS  "\"" PROJECT_DIR "/%s\""  /* quoted absolute path of a safe name */

/* (Re)build g->tail, what %T writes, from the session id and the slug. */
void build_tail(struct gen *g);

/* ms as ISO-8601 UTC with ms, "2026-12-02T17:22:11.941Z" (not NUL-terminated). */
void fmt_ts(uint64_t ms, char out[TS_LEN]);
/* Advance the clock by lo to hi ms. */
void wait_ms(struct gen *g, unsigned lo, unsigned hi);

/* Bytes of the log so far, flushed or not. */
uint64_t written(const struct gen *g);
/* Write g->out to g->fp and empty it; dies when the write fails. */
void out_flush(struct gen *g);
/* Start a record; returns the offset rec_end() counts its bytes from. */
uint64_t rec_begin(struct gen *g);
/* End a record of kind k with its newline, count it, flush when due. */
void rec_end(struct gen *g, enum kind k, uint64_t start);

#endif
