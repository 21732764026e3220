#!/bin/bash
# A long window: one chain of short rows and no compaction
# (scripts/chainlog.awk), so context/ holds every row. Its listing, its
# messages.json and its first and last rows come within a bound (the
# context is built in time linear in its rows: 300,000 rows took 87 s
# and 760 MB once), and they agree with the branch's.
# 300,000 rows in the plain build; under ASan (SESSFS_BUILD ending in
# asan), where every allocation costs several times as much, 60,000.
# The kernel keeps the names of context/ it was given (ls -l asks no
# lookup per row) until the log changes: a rewind written to the log
# while nobody reads gives a name to another row, and the kernel is told
# within a second or two.
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

# rewound_window: context/ listed with ls -l (its names kept by the
# kernel), then a row appended whose parent is row 8: the current branch,
# and the window, are rows 1-8 and the new row 9. Without a request, the
# kernel must forget the names that led elsewhere: 000010-assistant.md is
# gone, 000009-user.md is the new row (the inode of its file in its own
# branch).
rewound_window() {
	local dir="$T/rewind" m ino
	mkdir -p "$dir"
	m="$dir/m"
	awk -v n=20 -f scripts/chainlog.awk > "$dir/s.jsonl"
	mount_log "$dir/s.jsonl" "$m" || { bad "rewind: mount: $(cat "$m.err")"; return; }
	ls -l "$m/context" > /dev/null
	[ -e "$m/context/000010-assistant.md" ] || bad "rewind: no row 10 before"
	printf '{"parentUuid":"00000008-0000-4000-8000-000000000008","type":"user","message":{"role":"user","content":"rewound"},"uuid":"0000ffff-0000-4000-8000-000000099999","timestamp":"2026-01-02T00:00:00.000Z","sessionId":"5e55f500-0000-4000-8000-000000000999"}\n' \
		>> "$dir/s.jsonl"
	if wait_until 5 eval '[ ! -e "$m/context/000010-assistant.md" ]'; then
		ino=$(stat -L -c %i "$m/context/000009-user.md")
		[ "$ino" = "$(stat -L -c %i "$m/branches/current/000009-user.md")" ] &&
			grep -q rewound "$m/context/000009-user.md" &&
			ok "rewind: the kernel forgot the names of context/ that moved" ||
			bad "rewind: context/000009-user.md is not the new row"
	else
		bad "rewind: context/000010-assistant.md still there 5 s after the rewind"
	fi
	unmount_log "$m"
}

long_window "$N"
rewound_window
finish
