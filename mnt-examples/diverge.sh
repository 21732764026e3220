#!/bin/sh
# Where two branches part: the last shared message and the first message
# of each side that the model got.
#   mnt-examples/diverge.sh MOUNT BRANCH_A BRANCH_B
# Files before the fork point are the same in both folders (same name, one
# file and a link to it, which diff follows), so diff -rq lists exactly
# what differs. Rows Claude Code writes by itself (links into harness/)
# and rows never sent to the model (the transcript folds them to one
# line) are skipped. For the whole story:
#   diff -u MOUNT/transcripts/BRANCH_A.md MOUNT/transcripts/BRANCH_B.md
set -eu
mnt=${1:?usage: diverge.sh MOUNT BRANCH_A BRANCH_B}
a=$mnt/branches/${2:?}
b=$mnt/branches/${3:?}
first=$(diff -rq "$a" "$b" | grep -o '[0-9]\{6\}-[^ ]*\.md' | sort | head -1 | cut -c1-6)
if [ -z "$first" ]; then
	echo "no difference: one branch is a prefix of the other"
	exit 0
fi

# The first file of branch $1 from seq $first on that the model got.
first_sent() {
	sed -n 's/^· .* (line \([0-9]*\)): .*never sent to the model.*$/\1/p' \
		"$mnt/transcripts/$1.md" > "$tmp"
	ls "$mnt/branches/$1" | awk -v s="$first" 'substr($0, 1, 6) >= s' | while read -r f; do
		case $(readlink "$mnt/branches/$1/$f" || :) in */harness/*) continue ;; esac
		l=$(sed -n 's/^line: //p' "$mnt/branches/$1/$f" | head -1)
		grep -qxF "$l" "$tmp" || { echo "$f"; break; }
	done
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
last_shared=$(echo "$first" | awk '{ printf "%06d", $1 - 1 }')
fa=$(first_sent "$2")
fb=$(first_sent "$3")
echo "last shared message: $(ls "$a" | grep "^$last_shared-" || echo none)"
echo "$2 continues with:   ${fa:-nothing}"
echo "$3 continues with:   ${fb:-nothing}"
echo
echo "first message of each side:"
for side in "$a/$fa" "$b/$fb"; do
	[ -f "$side" ] || continue
	echo "== $(basename "$(dirname "$side")")/$(basename "$side")"
	sed '1,/^$/d' "$side" | head -5
done
