#!/bin/sh
# "Why did it forget?": what the terminal shows on the current branch that
# the model no longer sees, because it lies before the last compaction.
#   mnt-examples/forgotten.sh MOUNT
# The terminal shows the whole path (branches/current); a resume sends the
# model only what follows the last compact_boundary (context/ shows that
# window exactly). Messages kept word for word by the compaction (a
# preserved segment) are sent again; window.md in context/ names them.
set -eu
mnt=${1:?usage: forgotten.sh MOUNT}
cur=$mnt/branches/current
last=$(ls "$cur" | grep -- '-compact_boundary\.md$' | tail -1 || true)
if [ -z "$last" ]; then
	echo "no compaction on this branch: the model sees the whole path"
	exit 0
fi
seq=$(echo "$last" | cut -c1-6)
n=$(ls "$cur" | awk -v s="$seq" 'substr($0,1,6) < s' | wc -l)
echo "last compaction: $last; $n messages before it are not sent to the model:"
ls "$cur" | awk -v s="$seq" 'substr($0,1,6) < s'
if [ -f "$mnt/context/window.md" ]; then
	echo
	echo "context/window.md says:"
	sed -n '1,20p' "$mnt/context/window.md"
fi
