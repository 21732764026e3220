#!/bin/sh
# Every Bash command run on the current branch, in order, as written.
#   mnt-examples/bash-commands.sh MOUNT
# Each Bash call is a file of branches/current (a link where an older
# branch holds it: cat follows it) whose JSON input has the command on
# one line, "command": "...", in JSON's escapes: print it decoded, each
# line behind "$ ", and a blank line after each command.
set -eu
mnt=${1:?usage: bash-commands.sh MOUNT}
for f in "$mnt"/branches/current/*-tool_use-Bash.md; do
	[ -e "$f" ] || continue
	sed -n 's/^  "command": "\(.*\)",\{0,1\}$/\1/p' "$f" | head -1
done | awk '
	# JSON string escapes to bytes (\uXXXX kept as written)
	{
		out = ""
		s = $0
		while ((i = index(s, "\\")) > 0) {
			out = out substr(s, 1, i - 1)
			c = substr(s, i + 1, 1)
			if (c == "n") out = out "\n"
			else if (c == "t") out = out "\t"
			else if (c == "r") out = out ""
			else if (c == "u") out = out "\\u"
			else out = out c
			s = substr(s, i + 2)
		}
		out = out s
		n = split(out, lines, "\n")
		for (k = 1; k <= n; k++)
			print "$ " lines[k]
		print ""
	}
'
