#!/bin/sh
# Where two branches part: the last shared message and the first message
# of each side.
#   mnt-examples/diverge.sh MOUNT BRANCH_A BRANCH_B
# Files before the fork point are byte-identical in both folders (same
# name, same bytes), so diff -rq lists exactly what differs.
set -eu
mnt=${1:?usage: diverge.sh MOUNT BRANCH_A BRANCH_B}
a=$mnt/branches/${2:?}
b=$mnt/branches/${3:?}
first=$(diff -rq "$a" "$b" | grep -o '[0-9]\{6\}-[^ ]*\.md' | sort | head -1 | cut -c1-6)
if [ -z "$first" ]; then
	echo "no difference: one branch is a prefix of the other"
	exit 0
fi
last_shared=$(echo "$first" | awk '{ printf "%06d", $1 - 1 }')
echo "last shared message: $(ls "$a" | grep "^$last_shared-" || echo none)"
echo "$2 continues with:   $(ls "$a" | grep "^$first-" || echo nothing)"
echo "$3 continues with:   $(ls "$b" | grep "^$first-" || echo nothing)"
echo
echo "first message of each side:"
for side in "$a" "$b"; do
	f=$(ls "$side" | grep "^$first-" | head -1)
	[ -n "$f" ] && { echo "== $(basename "$side")/$f"; sed -n '/^$/,$p' "$side/$f" | sed 1d | head -5; }
done
