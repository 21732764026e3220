/*
 * title: a session's title from its first prompt, without the markup
 * Claude Code writes around a command.
 *
 * A prompt the user typed is its first non-blank line. A slash command is
 * written as tags (<command-name>/compact</command-name>
 * <command-message>compact</command-message> <command-args>..</command-args>):
 * its title is the command and its arguments ("/compact keep the tests");
 * a <command-message> alone (a skill, a custom command) its text; a shell
 * command typed with "!" (<bash-input>) "! " and the command. Not a
 * prompt at all, so the next one gives the title: a command that starts
 * a new session (/clear, its aliases /reset and /new, with no arguments:
 * the session it starts is about what comes after), and what Claude Code
 * writes as the user about a command (<local-command-stdout>, -stderr,
 * -caveat, <bash-stdout>, <bash-stderr>). <system-reminder> blocks
 * before a prompt are Claude Code's, never typed: the prompt is what
 * follows them (none when nothing does).
 *
 * Pure; thread-safe.
 */
#ifndef SESSFS_TITLE_H
#define SESSFS_TITLE_H

#include <stddef.h>

#include "sbuf.h"

#define TL_MAX 200		/* bytes of a title kept */

/* The title the prompt text s[0..n) gives, into out (reset first): 0, or
 * 1 when s is not a prompt that titles a session (out then empty). Cut to
 * TL_MAX bytes at a character's start. */
int tl_from_prompt(const char *s, size_t n, struct sbuf *out);

#endif
