#!/bin/bash
# The command line: errors name the path and the reason (exit 1), bad
# usage and unknown options print usage (exit 2, before indexing),
# --help/--version, --check and the mount agreeing (a torn last line, an
# empty log), the conventions of FUSE tools (fsname, subtype, no stacked
# mounts over a live or a dead one), daemon mode, a clean unmount on
# SIGTERM and SIGINT, and after a release the unmount dropped.
. "$(dirname "$0")/lib.sh"
DEMO=mnt-examples/demo.jsonl

expect() {	# expect RC PATTERN CMD...: exit code and one stderr line
	local want=$1 pat=$2 rc err
	shift 2
	err=$(timeout 20 "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ] && echo "$err" | grep -q -- "$pat" &&
	   { [ "$want" -eq 2 ] || [ "$(echo "$err" | wc -l)" -eq 1 ]; }; then
		ok "exit $rc: ${err%%$'\n'*}"
	else
		bad "$*: exit $rc (want $want), stderr: $err"
	fi
}

mkdir -p "$T/mnt" "$T/dir"
printf 'hello\nworld\n' > "$T/text.txt"
head -c 4096 /dev/urandom > "$T/binary"
: > "$T/empty.jsonl"
mkfifo "$T/fifo"

expect 1 "No such file" "$SESSFS" "$T/nope.jsonl" "$T/mnt"
expect 1 "not a Claude Code session log" "$SESSFS" "$T/text.txt" "$T/mnt"
expect 1 "not a Claude Code session log" "$SESSFS" "$T/binary" "$T/mnt"
expect 1 "not a regular file" "$SESSFS" "$T/fifo" "$T/mnt"
expect 1 "mountpoint does not exist" "$SESSFS" "$DEMO" "$T/no-such-dir"
expect 1 "not a directory" "$SESSFS" "$DEMO" "$T/text.txt"
expect 1 "No such file" "$SESSFS" --check "$T/nope.jsonl"
expect 2 "usage" "$SESSFS"
expect 2 "usage" "$SESSFS" "$DEMO"
if [ "$(id -u)" -ne 0 ]; then
	chmod 000 "$T/text.txt"
	expect 1 "Permission denied" "$SESSFS" "$T/text.txt" "$T/mnt"
fi

"$SESSFS" --help | grep -q "usage: sessfs LOG MOUNTPOINT" && ok "--help" || bad "--help"
"$SESSFS" --version | head -1 | grep -q "^sessfs " && ok "--version: sessfs's version first" ||
	bad "--version: $("$SESSFS" --version | head -3)"
dups=$("$SESSFS" --help | grep -oE '^ +(-[a-zA-Z]|--[a-z]+|-o [a-z_]+)' | sort | uniq -d)
[ -z "$dups" ] && ok "--help lists each option once" || bad "--help lists twice: $dups"

# Bad usage and unknown options: exit 2 before indexing (a log that would
# take long to index answers at once: its size does not matter here).
expect 2 "unknown option" "$SESSFS" -o no_such_option "$DEMO" "$T/mnt"
expect 2 "unknown option" "$SESSFS" --no-such-flag "$DEMO" "$T/mnt"
expect 2 "usage" "$SESSFS" "$DEMO" "$T/mnt" extra
expect 1 "file_history folder: No such file" "$SESSFS" -o file_history="$T/nope" "$DEMO" "$T/mnt"
expect 1 "spin=abc: not a number of microseconds" "$SESSFS" -o spin=abc "$DEMO" "$T/mnt"
expect 1 "spin=-5: not a number of microseconds" "$SESSFS" -o spin=-5 "$DEMO" "$T/mnt"
expect 1 "spin=2000000: not a number of microseconds" "$SESSFS" -o spin=2000000 "$DEMO" "$T/mnt"

# --check and the mount agree: a torn last line is unfinished, not bad;
# an empty log is a session with nothing written yet.
{ head -n 3 "$DEMO"; printf '{"type":"user","uu'; } > "$T/torn.jsonl"
"$SESSFS" --check "$T/torn.jsonl" > "$T/torn.check"
if mount_log "$T/torn.jsonl" "$T/torn"; then
	for k in badLines unfinishedLastLine; do
		a=$(grep "\"$k\"" "$T/torn.check") b=$(grep "\"$k\"" "$T/torn/session.json")
		[ -n "$a" ] && [ "$a" = "$b" ] && ok "torn last line: --check and mount agree:$a" ||
			bad "torn last line: --check '$a', mount '$b'"
	done
	grep -q '"unfinishedLastLine": 18' "$T/torn.check" && ok "torn last line: 18 unfinished bytes" ||
		bad "torn: $(grep unfinished "$T/torn.check")"
	unmount_log "$T/torn"
fi
"$SESSFS" --check "$T/empty.jsonl" > "$T/empty.check" && grep -q '"records": 0' "$T/empty.check" &&
	ok "--check of an empty log: no records, exit 0" || bad "--check empty: $(head -3 "$T/empty.check")"
if mount_log "$T/empty.jsonl" "$T/emptym"; then
	cmp -s <(grep -v '"source"' "$T/empty.check") <(grep -v '"source"' "$T/emptym/session.json") &&
		ok "an empty log: the mount's session.json is --check's" || bad "empty: session.json differs from --check"
	unmount_log "$T/emptym"
fi

# The conventions of FUSE tools: the log is the source findmnt shows, the
# type fuse.sessfs; a root message's parent attribute is the header's "-".
if mount_log "$DEMO" "$T/conv"; then
	[ "$(findmnt -n -o SOURCE "$T/conv")" = "$(realpath "$DEMO")" ] &&
	[ "$(findmnt -n -o FSTYPE "$T/conv")" = fuse.sessfs ] &&
		ok "findmnt: source $(realpath "$DEMO"), type fuse.sessfs" ||
		bad "findmnt: $(findmnt -n -o SOURCE,FSTYPE "$T/conv")"
	f=$(ls "$T"/conv/branches/main/000001-*)
	[ "$(getfattr --only-values -n user.sessfs.parent "$f" 2>/dev/null)" = - ] && grep -q '^parent: -$' "$f" &&
		ok "root message: user.sessfs.parent is -, as its header" || bad "root parent xattr"
	unmount_log "$T/conv"
fi
if mount_log "$DEMO" "$T/named" -o fsname=mylog; then
	[ "$(findmnt -n -o SOURCE "$T/named")" = mylog ] && ok "a user's fsname is kept" ||
		bad "fsname: $(findmnt -n -o SOURCE "$T/named")"
	unmount_log "$T/named"
fi
# -o spin=0 (sleep at once), and one thread with -s: the same tree.
for o in "-o spin=0" "-s" "-o spin=1000000"; do
	if mount_log "$DEMO" "$T/spin" $o; then
		ls "$T/spin/branches/current/" | grep -q -- '-user.md' && ok "$o serves" || bad "$o listing"
		unmount_log "$T/spin"
	else
		bad "mount $o: $(cat "$T/spin.err")"
	fi
done
# A second mount over a live one: refused, nothing stacked; over a dead
# one (its daemon killed): refused, with the way out.
mount_log "$DEMO" "$T/dead" && no_stacking "$DEMO" "$T/dead" demo || bad "mount demo"
"$SESSFS" --check "$DEMO" | grep -q '"branches": 2' && ok "--check demo: 2 branches" || bad "--check demo"

# Daemon mode: returns once mounted; fusermount3 -u ends it.
if timeout 20 "$SESSFS" "$DEMO" "$T/mnt" && mountpoint -q "$T/mnt"; then
	MOUNTS="$MOUNTS $T/mnt"
	ls "$T/mnt/branches/current/" | grep -q -- '-user.md' && ok "daemon mode serves" || bad "daemon mode listing"
	fusermount3 -u "$T/mnt" && ! mountpoint -q "$T/mnt" && ok "fusermount3 -u unmounts" || bad "unmount"
else
	bad "daemon mode mount"
fi

# SIGTERM and SIGINT unmount cleanly and exit 0.
for sig in TERM INT; do
	if mount_log "$DEMO" "$T/sig$sig"; then
		kill -"$sig" "$PID"
		wait "$PID"
		rc=$?
		reaped "$T/sig$sig" "$PID"
		if [ "$rc" -eq 0 ] && ! mountpoint -q "$T/sig$sig"; then
			ok "SIG$sig: unmounted, exit 0"
		else
			bad "SIG$sig: exit $rc, still mounted: $(mountpoint -q "$T/sig$sig" && echo yes)"
		fi
	else
		bad "mount for SIG$sig"
	fi
done

# A directory closed just before the unmount: the kernel queues its release
# in the background, and an unmount that comes before the daemon reads it
# drops it (a loaded machine; here the daemon is stopped meanwhile). The
# daemon frees the directory itself and exits 0, quietly (under ASan: no
# leak).
m="$T/closed"
# all_stopped PID: every thread of PID is stopped.
all_stopped() { ! cat /proc/"$1"/task/*/stat 2>/dev/null | awk '$3 != "T" { x = 1 } END { exit !x }'; }
if mount_log "$DEMO" "$m"; then
	exec {dfd}< "$m/branches/main"
	kill -STOP "$PID"
	wait_until 10 all_stopped "$PID" || bad "the daemon did not stop"
	exec {dfd}<&-
	if timeout 20 fusermount3 -u "$m"; then
		kill -CONT "$PID"
		wait_until 20 gone "$PID"
		wait "$PID"
		rc=$?
		reaped "$m" "$PID"
		[ "$rc" -eq 0 ] && [ ! -s "$m.err" ] &&
			ok "a release the unmount dropped: the daemon exits 0, quietly" ||
			bad "a release the unmount dropped: exit $rc, stderr: $(head -c 2000 "$m.err")$(daemon_report "$PID")"
	else
		kill -CONT "$PID"
		bad "unmount with a release queued"
		unmount_log "$m"
	fi
else
	bad "mount for a release dropped"
fi
finish
