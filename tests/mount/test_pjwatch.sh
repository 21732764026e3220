#!/bin/bash
# A projects mount follows its folder with inotify (core/projects/pjwatch.h):
# the kernel holds watches on the folder, each project folder and each log
# the cache holds open (fdinfo of the daemon's inotify descriptor), and a
# session added, grown or removed shows in sessions/ and sessions.json as
# the notices come; idle, its notifier thread sleeps until a notice or a
# request's ask (and wakes then). The fallback (SESSFS_NO_INOTIFY=1, as for a folder on
# NFS or a watch limit reached): no watches, errors.txt says why, and the
# look once a second shows the same changes. The folder is given by a
# relative path (the daemon runs in /). No corpus: mnt-examples.
. "$(dirname "$0")/lib.sh"

SRC=mnt-examples/demo.jsonl
ID1=5e55f5a0-0000-4000-8000-000000000001
ID2=5e55f5a0-0000-4000-8000-000000000002
ID3=5e55f5a0-0000-4000-8000-000000000003

# copy ID FILE: the demo log as session ID.
copy() { sed "s/d3e0d3e0-0000-4000-8000-000000000001/$1/g" "$SRC" > "$2"; }

# watches PID: the inotify watches daemon PID holds (0 when none).
watches() {
	local f n=0
	for f in /proc/"$1"/fdinfo/*; do
		n=$((n + $(grep -c '^inotify wd:' "$f" 2>/dev/null || true)))
	done
	echo "$n"
}
count_is() { [ "$(ls "$1" 2>/dev/null | wc -l)" = "$2" ]; }
# quiet_for PID SECS: daemon PID's notifier did not wake in SECS seconds.
quiet_for() {
	local w0
	w0=$(watcher_wakes "$1")
	sleep "$2"
	[ -n "$w0" ] && [ "$(watcher_wakes "$1")" = "$w0" ]
}
woke_since() { [ "$(watcher_wakes "$1")" -gt "$2" ]; }
watches_are() { [ "$(watches "$1")" -ge "$2" ]; }

# run MODE: one mount, inotify or fallback.
run() {
	local mode=$1 dir=$T/$1 mnt=$T/m-$1 p
	p=$dir/-home-user-src-demo
	mkdir -p "$p"
	copy "$ID1" "$p/$ID1.jsonl"
	copy "$ID2" "$p/$ID2.jsonl"
	# the folder given relative to the working folder (the daemon's is /)
	dir=$(realpath --relative-to=. "$dir")
	if [ "$mode" = fallback ]; then
		SESSFS_NO_INOTIFY=1 mount_log "$dir" "$mnt" || { bad "$mode: mount: $(cat "$mnt.err")"; return; }
	else
		mount_log "$dir" "$mnt" || { bad "$mode: mount: $(cat "$mnt.err")"; return; }
	fi
	count_is "$mnt/sessions" 2 && ok "$mode: sessions/ lists 2" || bad "$mode: sessions/: $(ls "$mnt/sessions")"
	if [ "$mode" = inotify ]; then
		wait_until 5 watches_are "$PID" 2 &&
			ok "inotify: the folder and its project are watched ($(watches "$PID"))" ||
			bad "inotify: $(watches "$PID") watches"
		ls "$mnt/projects/"*/"$ID1/branches" > /dev/null
		wait_until 5 watches_are "$PID" 3 &&
			ok "inotify: the open session's log is watched too ($(watches "$PID"))" ||
			bad "inotify: $(watches "$PID") watches with a session open"
		grep -q inotify "$mnt/errors.txt" && bad "inotify: errors.txt: $(cat "$mnt/errors.txt")" ||
			ok "inotify: errors.txt says nothing of it"
		# Idle, with a session open and signed: the notifier sleeps
		# until a notice or a request's ask, and wakes at an ask.
		wait_until 20 quiet_for "$PID" 3 &&
			ok "inotify: idle, the notifier does not wake (3 s)" ||
			bad "inotify: the notifier of an idle mount wakes"
		w0=$(watcher_wakes "$PID")
		ls "$mnt/projects/"*/"$ID1/agents" > /dev/null
		wait_until 3 woke_since "$PID" "$w0" &&
			ok "inotify: ... and wakes when a request asks for agents/" ||
			bad "inotify: a request's ask did not wake the notifier"
	else
		[ "$(watches "$PID")" = 0 ] && ok "fallback: no watch" || bad "fallback: $(watches "$PID") watches"
		wait_until 5 grep -q 'inotify: off (SESSFS_NO_INOTIFY is set)' "$mnt/errors.txt" &&
			ok "fallback: errors.txt says why" || bad "fallback: errors.txt: $(cat "$mnt/errors.txt")"
	fi
	# a new session, then growth, then a removal
	copy "$ID3" "$p/$ID3.jsonl"
	wait_until 3 count_is "$mnt/sessions" 3 && ok "$mode: a new session shows" ||
		bad "$mode: new session: $(ls "$mnt/sessions")"
	before=$(grep -c . "$mnt/sessions.json")
	size=$(stat -c %s "$p/$ID2.jsonl")
	tail -n 2 "$SRC" >> "$p/$ID2.jsonl"
	wait_until 3 grep -q "\"bytes\": *$(stat -c %s "$p/$ID2.jsonl")" "$mnt/sessions.json" &&
		ok "$mode: a grown session shows its size ($size -> $(stat -c %s "$p/$ID2.jsonl"))" ||
		bad "$mode: growth not in sessions.json ($before lines)"
	rm "$p/$ID3.jsonl"
	wait_until 3 count_is "$mnt/sessions" 2 && ok "$mode: a removed session goes" ||
		bad "$mode: removal: $(ls "$mnt/sessions")"
	unmount_log "$mnt"
}

run inotify
run fallback
finish
