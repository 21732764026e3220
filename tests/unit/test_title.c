/*
 * title: a session's title from its first prompt, as Claude Code writes
 * prompts and commands (the corpus's /compact, /context, /usage rows; a
 * /clear as a new session starts with it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "testutil.h"
#include "title.h"

static struct sbuf out;

/* The title of s, or "(none)" when s is no prompt. */
static const char *title(const char *s)
{
	sb_free(&out);
	sb_init(&out);
	if (tl_from_prompt(s, strlen(s), &out))
		return "(none)";
	return out.buf;
}

static void typed(void **state)
{
	(void)state;
	assert_string_equal(title("Read the README."), "Read the README.");
	assert_string_equal(title("\n  \n  Fix the bug  \nin todo.py"), "Fix the bug");
	/* markup the user typed stays: it is what they wrote */
	assert_string_equal(title("Why does <b> render bold?"), "Why does <b> render bold?");
	assert_string_equal(title(""), "(none)");
	assert_string_equal(title(" \n\t"), "(none)");
}

static void commands(void **state)
{
	(void)state;
	/* as the corpus holds /compact: name, message, empty args */
	assert_string_equal(title("<command-name>/compact</command-name>\n"
				  "            <command-message>compact</command-message>\n"
				  "            <command-args></command-args>"),
			    "/compact");
	assert_string_equal(title("<command-message>compact</command-message>\n"
				  "<command-name>/compact</command-name>\n"
				  "<command-args>keep the test results</command-args>"),
			    "/compact keep the test results");
	assert_string_equal(title("<command-message>review-pr is running…</command-message>"),
			    "review-pr is running…");
	assert_string_equal(title("<bash-input>git status</bash-input>"), "! git status");
	/* a multi-line argument: its first line */
	assert_string_equal(title("<command-name>/review</command-name>"
				  "<command-args>\n  PR 12\nand more</command-args>"),
			    "/review PR 12");
}

static void not_prompts(void **state)
{
	(void)state;
	/* a session /clear starts is about what follows */
	assert_string_equal(title("<command-name>/clear</command-name>\n"
				  "<command-message>clear</command-message>\n"
				  "<command-args></command-args>"),
			    "(none)");
	assert_string_equal(title("<command-name>/reset</command-name>"), "(none)");
	assert_string_equal(title("<command-name>/clear</command-name>"
				  "<command-args>now</command-args>"),
			    "/clear now");
	assert_string_equal(title("<local-command-stdout>Compacted</local-command-stdout>"), "(none)");
	assert_string_equal(title("  <local-command-caveat>Caveat</local-command-caveat>"), "(none)");
	assert_string_equal(title("<bash-stdout>ok</bash-stdout><bash-stderr></bash-stderr>"),
			    "(none)");
	/* reminders Claude Code put before the prompt, or alone */
	assert_string_equal(title("<system-reminder>\nToday is Monday.\n</system-reminder>\n"
				  "<system-reminder>x</system-reminder>  Fix the bug\nnow"),
			    "Fix the bug");
	assert_string_equal(title("<system-reminder>x</system-reminder>"
				  "<command-name>/model</command-name><command-args>opus</command-args>"),
			    "/model opus");
	assert_string_equal(title(" <system-reminder>x</system-reminder>\n"), "(none)");
	assert_string_equal(title("<system-reminder>never closed\nFix it"), "(none)");
	/* typed after the prompt's start, it is what the user wrote */
	assert_string_equal(title("Why is <system-reminder> in the log?"),
			    "Why is <system-reminder> in the log?");
}

static void cut_at_a_character(void **state)
{
	char s[TL_MAX + 16];
	const char *t;

	(void)state;
	memset(s, 'a', TL_MAX - 1);
	strcpy(s + TL_MAX - 1, "é and more");	/* é spans bytes TL_MAX-1 and TL_MAX */
	t = title(s);
	assert_int_equal(strlen(t), TL_MAX - 1);
	/* an unclosed tag: what follows it */
	assert_string_equal(title("<command-name>/model opus"), "/model opus");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(typed),
		cmocka_unit_test(commands),
		cmocka_unit_test(not_prompts),
		cmocka_unit_test(cut_at_a_character),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	sb_free(&out);
	return rc;
}
