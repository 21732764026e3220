#!/bin/sh
# Every Bash command run on the current branch, in order, as written.
#   mnt-examples/bash-commands.sh MOUNT
# transcripts/current.md shows each Bash call as its command in a shell
# block (fenced with more backticks than the command holds): print them.
set -eu
mnt=${1:?usage: bash-commands.sh MOUNT}
awk '
	fence == "" && /^\*\*Tool call: Bash\*\*/ { want = 1; next }
	want && fence == "" && /^```+sh$/ { fence = substr($0, 1, length($0) - 2); next }
	fence != "" && $0 == fence { fence = ""; want = 0; print ""; next }
	fence != "" { print "$ " $0 }
' "$mnt/transcripts/current.md"
