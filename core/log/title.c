#include "title.h"

#include <stdio.h>
#include <string.h>

/* Commands whose session is about what follows them. */
static const char *const starts_anew[] = { "/clear", "/reset", "/new" };

/* Tags Claude Code writes as the user around a command's output. */
static const char *const not_prompts[] = {
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"<bash-stdout>", "<bash-stderr>",
};

/* What Claude Code puts before a prompt: none of it was typed. */
static const char reminder[] = "<system-reminder>", reminder_end[] = "</system-reminder>";

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Whether s[0..n) starts with lit. */
static int starts(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n >= l && !memcmp(s, lit, l);
}

/* The content of the first <tag>..</tag> in s[0..n), blanks trimmed:
 * its start in *v and length in *vn; 0 when there is none. */
static int tag_text(const char *s, size_t n, const char *tag, const char **v, size_t *vn)
{
	char open[40], close[40];
	const char *p, *q, *e = s + n;
	size_t ol, cl;

	ol = (size_t)snprintf(open, sizeof(open), "<%s>", tag);
	cl = (size_t)snprintf(close, sizeof(close), "</%s>", tag);
	p = memmem(s, n, open, ol);
	if (!p)
		return 0;
	p += ol;
	q = memmem(p, (size_t)(e - p), close, cl);
	if (!q)
		q = e;
	while (p < q && blank(*p))
		p++;
	while (q > p && blank(q[-1]))
		q--;
	*v = p;
	*vn = (size_t)(q - p);
	return 1;
}

/* Appends the first non-blank line of s[0..n), its blanks trimmed. */
static void add_first_line(const char *s, size_t n, struct sbuf *out)
{
	size_t i = 0, j;

	while (i < n) {
		for (j = i; j < n && s[j] != '\n'; j++)
			;
		while (i < j && blank(s[i]))
			i++;
		while (j > i && blank(s[j - 1]))
			j--;
		if (i < j) {
			sb_add(out, s + i, j - i);
			return;
		}
		for (; i < n && s[i] != '\n'; i++)
			;
		i++;
	}
}

/* Cuts out to TL_MAX bytes, at the start of a character. */
static void cut(struct sbuf *out)
{
	size_t j = out->len;

	if (j <= TL_MAX)
		return;
	j = TL_MAX;
	while (j > 0 && ((unsigned char)out->buf[j] & 0xc0) == 0x80)
		j--;
	out->len = j;
	out->buf[j] = '\0';
}

int tl_from_prompt(const char *s, size_t n, struct sbuf *out)
{
	const char *v, *a, *q;
	size_t vn, an, i;

	sb_reset(out);
	for (;;) {
		while (n && blank(*s))
			s++, n--;
		if (!starts(s, n, reminder))
			break;
		if (!(q = memmem(s, n, reminder_end, sizeof(reminder_end) - 1)))
			return 1;
		q += sizeof(reminder_end) - 1;
		n -= (size_t)(q - s);
		s = q;
	}
	for (i = 0; i < sizeof(not_prompts) / sizeof(not_prompts[0]); i++)
		if (starts(s, n, not_prompts[i]))
			return 1;
	if (!n || *s != '<') {
		add_first_line(s, n, out);	/* typed text, markup and all */
	} else if (tag_text(s, n, "command-name", &v, &vn) && vn) {
		int args = tag_text(s, n, "command-args", &a, &an) && an;

		for (i = 0; !args && i < sizeof(starts_anew) / sizeof(starts_anew[0]); i++)
			if (vn == strlen(starts_anew[i]) && !memcmp(v, starts_anew[i], vn))
				return 1;
		add_first_line(v, vn, out);
		if (args) {
			sb_addc(out, ' ');
			add_first_line(a, an, out);
		}
	} else if (tag_text(s, n, "command-message", &v, &vn) && vn) {
		add_first_line(v, vn, out);
	} else if (tag_text(s, n, "bash-input", &v, &vn) && vn) {
		sb_adds(out, "! ");
		add_first_line(v, vn, out);
	} else {
		add_first_line(s, n, out);
	}
	cut(out);
	return out->len ? 0 : 1;
}
