/* emit: the record emitter, the clock and the output; see emit.h. */
#include <stdarg.h>
#include <string.h>

#include "emit.h"
#include "rnd.h"

/* ---------------------------------------------------------------- time */

static void put2(char *d, unsigned v)
{
	d[0] = (char)('0' + v / 10);
	d[1] = (char)('0' + v % 10);
}

/* ISO-8601 UTC with ms (civil date from days: H. Hinnant's algorithm). */
void fmt_ts(uint64_t ms, char out[TS_LEN])
{
	int64_t z = (int64_t)(ms / 86400000) + 719468;
	unsigned tod = (unsigned)(ms % 86400000);
	int64_t era = z / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;
	unsigned y = (unsigned)(yoe + era * 400 + (m <= 2));

	put2(out, y / 100);
	put2(out + 2, y % 100);
	out[4] = '-';
	put2(out + 5, m);
	out[7] = '-';
	put2(out + 8, doy - (153 * mp + 2) / 5 + 1);
	out[10] = 'T';
	put2(out + 11, tod / 3600000);
	out[13] = ':';
	put2(out + 14, tod / 60000 % 60);
	out[16] = ':';
	put2(out + 17, tod / 1000 % 60);
	out[19] = '.';
	out[20] = (char)('0' + tod % 1000 / 100);
	put2(out + 21, tod % 100);
	out[23] = 'Z';
}

void wait_ms(struct gen *g, unsigned lo, unsigned hi)
{
	g->now += rnd_range(g, lo, hi);
}

/* ------------------------------------------------------------- emitter */

/* One directive of bemit(); see emit.h. */
static void emit_arg(struct gen *g, struct buf *b, char d, va_list *ap)
{
	const struct buf *sb;
	const char *s;
	char ts[TS_LEN];

	switch (d) {
	case 's': buf_str(b, va_arg(*ap, const char *)); return;
	case 'b': sb = va_arg(*ap, const struct buf *); buf_mem(b, sb->p, sb->len); return;
	case 'u': buf_num(b, va_arg(*ap, unsigned), 0); return;
	case 'U': buf_num(b, va_arg(*ap, uint64_t), 0); return;
	case 'T': buf_mem(b, g->tail.p, g->tail.len); return;
	case 'm': s = va_arg(*ap, const char *); buf_esc(b, s, va_arg(*ap, size_t)); return;
	case 'p':
		s = va_arg(*ap, const char *);
		if (!s || !*s) {
			buf_lit(b, "null");
			return;
		}
		buf_ch(b, '"');
		buf_str(b, s);
		break;
	case 'q': buf_ch(b, '"'); buf_str(b, va_arg(*ap, const char *)); break;
	case 'e': s = va_arg(*ap, const char *); buf_ch(b, '"'); buf_esc(b, s, strlen(s)); break;
	case 'M': s = va_arg(*ap, const char *); buf_ch(b, '"'); buf_esc(b, s, va_arg(*ap, size_t)); break;
	case 'Q': sb = va_arg(*ap, const struct buf *); buf_ch(b, '"'); buf_mem(b, sb->p, sb->len); break;
	case 'E': sb = va_arg(*ap, const struct buf *); buf_ch(b, '"'); buf_esc(b, sb->p, sb->len); break;
	case 'S': buf_ch(b, '"'); buf_str(b, g->sid); break;
	case 't':
		g->now += 1 + rnd_below(g, TS_STEP_MS);
		fmt_ts(g->now, ts);
		buf_ch(b, '"');
		buf_mem(b, ts, TS_LEN);
		break;
	default: die("bad directive %%%c", d);
	}
	buf_ch(b, '"');
}

void bemit(struct gen *g, struct buf *b, const char *fmt, ...)
{
	const char *pct;
	va_list ap;

	va_start(ap, fmt);
	while ((pct = strchr(fmt, '%'))) {
		buf_mem(b, fmt, (size_t)(pct - fmt));
		emit_arg(g, b, pct[1], &ap);
		fmt = pct + 2;
	}
	buf_str(b, fmt);
	va_end(ap);
}

/* ------------------------------------------------------------ envelope */

void build_tail(struct gen *g)
{
	g->tail.len = 0;
	bemit(g, &g->tail, "\"userType\":\"external\",\"entrypoint\":\"sdk-cli\",\"cwd\":\""
	      PROJECT_DIR "\",\"sessionId\":%S,\"version\":\"" CC_VERSION "\","
	      "\"gitBranch\":\"main\"");
	if (g->slug[0])
		bemit(g, &g->tail, ",\"slug\":%q", g->slug);
	buf_ch(&g->tail, '}');
}

/* -------------------------------------------------------------- output */

uint64_t written(const struct gen *g)
{
	return g->flushed + g->out.len;
}

void out_flush(struct gen *g)
{
	if (g->out.len && fwrite(g->out.p, 1, g->out.len, g->fp) != g->out.len)
		die("write failed");
	g->flushed += g->out.len;
	g->out.len = 0;
}

uint64_t rec_begin(struct gen *g)
{
	return written(g);
}

void rec_end(struct gen *g, enum kind k, uint64_t start)
{
	buf_ch(&g->out, '\n');
	g->st.count[k]++;
	g->st.bytes[k] += written(g) - start;
	g->st.lines++;
	if (g->out.len >= FLUSH_AT)
		out_flush(g);
}
