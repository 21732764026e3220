#!/bin/bash
# The command line: errors name the path and the reason (exit 1), bad
# usage prints usage (exit 2), --help/--version, daemon mode, and a clean
# unmount on SIGTERM and SIGINT.
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
expect 1 "not a Claude Code session log" "$SESSFS" --check "$T/empty.jsonl"
expect 2 "usage" "$SESSFS"
expect 2 "usage" "$SESSFS" "$DEMO"
if [ "$(id -u)" -ne 0 ]; then
	chmod 000 "$T/text.txt"
	expect 1 "Permission denied" "$SESSFS" "$T/text.txt" "$T/mnt"
fi

"$SESSFS" --help | grep -q "usage: sessfs LOG MOUNTPOINT" && ok "--help" || bad "--help"
"$SESSFS" --version | grep -q "^sessfs " && ok "--version" || bad "--version"
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
		if [ "$rc" -eq 0 ] && ! mountpoint -q "$T/sig$sig"; then
			ok "SIG$sig: unmounted, exit 0"
		else
			bad "SIG$sig: exit $rc, still mounted: $(mountpoint -q "$T/sig$sig" && echo yes)"
		fi
	else
		bad "mount for SIG$sig"
	fi
done
finish
