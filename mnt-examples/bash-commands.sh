#!/bin/sh
# Every Bash command run on the current branch, in order.
#   mnt-examples/bash-commands.sh MOUNT
# Each tool_use-Bash file holds the call's input as pretty-printed JSON;
# the "command" line is the command as the model wrote it (JSON-escaped).
set -eu
mnt=${1:?usage: bash-commands.sh MOUNT}
for f in "$mnt"/branches/current/*-tool_use-Bash.md; do
	[ -e "$f" ] || exit 0
	printf '%s\t' "$(basename "$f" .md)"
	sed -n 's/^  "command": "\(.*\)",\{0,1\}$/\1/p' "$f"
done
