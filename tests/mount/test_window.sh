#!/bin/bash
# A long window: one chain of short rows and no compaction
# (scripts/chainlog.awk), so context/ holds every row. Its listing, its
# messages.json and its first and last rows come within a bound (the
# context is built in time linear in its rows: 300,000 rows took 87 s
# and 760 MB once), and they agree with the branch's.
# 300,000 rows in the plain build; under ASan (SESSFS_BUILD ending in
# asan), where every allocation costs several times as much, 60,000.
. "$(dirname "$0")/lib.sh"

case $BUILD in
*asan) N=${SESSFS_WINDOW_ROWS:-60000} ;;
*) N=${SESSFS_WINDOW_ROWS:-300000} ;;
esac

long_window() {
	local n=$1 dir="$T/window" m last msgs
	mkdir -p "$dir"
	m="$dir/m"
	awk -v n="$n" -f scripts/chainlog.awk > "$dir/s.jsonl"
	mount_log "$dir/s.jsonl" "$m" || { bad "long window: mount: $(cat "$m.err")"; return; }
	timeout 40 ls "$m/context" > "$dir/ls" ||
		bad "long window: ls context did not end in 40 s (or failed)"
	[ "$(wc -l < "$dir/ls")" = $((n + 2)) ] &&
		ok "long window: context/ lists its $n rows in time" ||
		bad "long window: context/ lists $(wc -l < "$dir/ls") entries"
	msgs=$(timeout 20 grep -c '^    "role"' "$m/context/messages.json")
	[ "$msgs" = "$n" ] &&
		ok "long window: messages.json holds its $n messages" ||
		bad "long window: messages.json holds ${msgs:-no} messages"
	last=$(printf '%06d-assistant.md' "$n")
	timeout 20 cmp -s "$m/context/$last" "$m/branches/main/$last" &&
		timeout 20 cmp -s "$m/context/000001-user.md" "$m/branches/main/000001-user.md" &&
		grep -q "answer $n" "$m/context/$last" &&
		ok "long window: its first and last rows read as the branch's" ||
		bad "long window: $last: $(head -c 300 "$m/context/$last")"
	unmount_log "$m"
}

long_window "$N"
finish
