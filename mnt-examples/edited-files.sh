#!/bin/sh
# The files the agent edited or wrote on the current branch, with how
# often, most edited first.
#   mnt-examples/edited-files.sh MOUNT
set -eu
mnt=${1:?usage: edited-files.sh MOUNT}
cat "$mnt"/branches/current/*-tool_use-Edit.md \
    "$mnt"/branches/current/*-tool_use-MultiEdit.md \
    "$mnt"/branches/current/*-tool_use-Write.md \
    "$mnt"/branches/current/*-tool_use-NotebookEdit.md 2>/dev/null |
	sed -n 's/^  "\(file_path\|notebook_path\)": "\(.*\)",\{0,1\}$/\2/p' |
	sort | uniq -c | sort -rn
