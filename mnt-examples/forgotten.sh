#!/bin/sh
# "Why did it forget?": what the terminal shows on the current branch that
# the model does not get when the session is resumed.
#   mnt-examples/forgotten.sh MOUNT
# The terminal shows the whole path (branches/current); the model gets
# context/: the window from the last compaction on, with the messages the
# compaction kept word for word. A message file carries its uuid in its
# header, so the branch's files whose uuid is not in context/ are the ones
# the model no longer sees.
set -eu
mnt=${1:?usage: forgotten.sh MOUNT}
seen=$(mktemp)
trap 'rm -f "$seen"' EXIT
awk 'FNR == 1 && /^uuid: / { print $2 }' "$mnt"/context/*.md | sort -u > "$seen"
n=0
for f in "$mnt"/branches/current/*.md; do
	u=$(sed -n '1s/^uuid: //p' "$f")
	if ! grep -qxF "$u" "$seen"; then
		echo "$(basename "$f")"
		n=$((n + 1))
	fi
done
echo "-- $n messages of branches/current are not sent to the model (context/window.md says why)"
