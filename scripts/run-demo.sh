#!/bin/sh
# The main job on the bundled example: mount mnt-examples/demo.jsonl at
# ./mnt and take a short tour. The mount stays up; unmount it with
#   fusermount3 -u mnt
set -eu
log=mnt-examples/demo.jsonl
mnt=mnt

say() { printf '\n$ %s\n' "$*"; }

if mountpoint -q "$mnt" 2>/dev/null; then
	fusermount3 -u "$mnt"
fi
mkdir -p "$mnt"
./sessfs "$log" "$mnt"

say "sessfs $log $mnt"
say "ls $mnt"; ls "$mnt"
say "ls -l $mnt/branches"; ls -l "$mnt/branches"
say "ls $mnt/branches/current"; ls "$mnt/branches/current"
first=$(ls "$mnt/branches/current" | grep -- '-tool_use-Bash' | head -1)
say "cat $mnt/branches/current/$first"; cat "$mnt/branches/current/$first"
say "diff -rq $mnt/branches/main $mnt/branches/current"
diff -rq "$mnt/branches/main" "$mnt/branches/current" || true
say "cat $mnt/session.json"; cat "$mnt/session.json"
printf '\nThe mount stays up at ./%s. Recipes: mnt-examples/*.sh. Unmount with:\n  fusermount3 -u %s\n' "$mnt" "$mnt"
