#!/bin/sh
# The main job on the bundled example: mount mnt-examples/demo.jsonl and
# take a short tour (branches, context/, state/, extended attributes, a
# recipe). The mount goes in a new folder under /tmp (never inside the
# repository, where grep -r or find would walk into it), or at MNT=DIR;
# it stays up, and the last lines say how to unmount it.
set -eu
log=mnt-examples/demo.jsonl
mnt=${MNT:-}

say() { printf '\n$ %s\n' "$*"; }

if [ -z "$mnt" ]; then
	mnt=$(mktemp -d /tmp/sessfs-demo.XXXXXX)
else
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt"
	fi
	mkdir -p "$mnt"
fi
./sessfs "$log" "$mnt"
echo "sessfs: $log mounted at $mnt"

say "ls $mnt"; ls "$mnt"
say "ls -l $mnt/branches"; ls -l "$mnt/branches"
say "ls $mnt/branches/current"; ls "$mnt/branches/current"
first=$(ls "$mnt/branches/current" | grep -- '-tool_use-Bash' | head -1)
say "cat $mnt/branches/current/$first"; cat "$mnt/branches/current/$first"
say "getfattr -d $mnt/branches/current/$first"
getfattr --absolute-names -d "$mnt/branches/current/$first"
say "diff -rq $mnt/branches/main $mnt/branches/current"
diff -rq "$mnt/branches/main" "$mnt/branches/current" || true
say "ls $mnt/context    # what the model gets on resume"; ls "$mnt/context"
say "head -n 12 $mnt/context/window.md"; head -n 12 "$mnt/context/window.md"
say "ls $mnt/state    # the work state a resume restores"; ls "$mnt/state"
say "find $mnt/state/read-cache -type f    # the files as the model last saw them"
find "$mnt/state/read-cache" -type f
say "sh mnt-examples/forgotten.sh $mnt    # a recipe: what the model no longer gets"
sh mnt-examples/forgotten.sh "$mnt" | tail -n 8
printf '\nThe mount stays up at %s. More recipes: mnt-examples/*.sh. Unmount with:\n  fusermount3 -u %s\n' \
	"$mnt" "$mnt"
