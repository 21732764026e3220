#!/bin/sh
# "Why did it forget?": what the terminal shows on the current branch that
# the model does not get when the session is resumed.
#   mnt-examples/forgotten.sh MOUNT
# The terminal shows the whole path (branches/current); the model gets
# context/: the window from the last compaction on, with the messages the
# compaction kept word for word. A message file carries its uuid in its
# header, so the branch's files whose uuid is not in context/ are the ones
# the model no longer sees: each is printed with its first lines. Rows
# Claude Code writes by itself (links into harness/) and rows the model
# never got at all (transcripts/current.md folds them to one line, "never
# sent to the model") are only counted.
set -eu
mnt=${1:?usage: forgotten.sh MOUNT}
seen=$(mktemp)
never=$(mktemp)
trap 'rm -f "$seen" "$never"' EXIT
awk 'FNR == 1 && /^uuid: / { print $2 }' "$mnt"/context/*.md | sort -u > "$seen"
sed -n 's/^· .* (line \([0-9]*\)): .*never sent to the model.*$/\1/p' \
	"$mnt/transcripts/current.md" > "$never"
n=0
skipped=0
harness=0
for f in "$mnt"/branches/current/*.md; do
	u=$(sed -n '1s/^uuid: //p' "$f")
	grep -qxF "$u" "$seen" && continue
	case $(readlink "$f" || :) in
	*/harness/*) harness=$((harness + 1)); continue ;;
	esac
	if grep -qxF "$(sed -n 's/^line: //p' "$f" | head -1)" "$never"; then
		skipped=$((skipped + 1))
		continue
	fi
	# the content: after the header's blank line, without block markers
	echo "$(basename "$f" .md):"
	sed '1,/^$/d' "$f" | grep -v -e '^--- .* ---$' -e '^[[:space:]]*$' -e '^[{}]$' |
		head -3 | cut -c1-120 | sed 's/^/    /'
	n=$((n + 1))
done
echo "-- $n messages of branches/current are no longer sent to the model" \
	"(context/window.md says why); $harness rows of Claude Code's own text" \
	"(harness/) are not listed; $skipped more never were"
