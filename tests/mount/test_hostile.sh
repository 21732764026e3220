#!/bin/bash
# Hostile logs: what is not a log is refused on the command line; what is
# a log, however broken or large, mounts, loses nothing readable, says
# what happened in errors.txt, and costs bounded memory.
#   - a binary file, a folder, a FIFO, an unreadable file, a file of
#     garbage lines: one line on stderr naming the path, exit 1;
#   - a million tiny lines around a real log;
#   - a 100 MB line (a message) and a 100 MB line of garbage;
#   - a 2 GB log (records past 2^31; skipped when the disk is short);
#   - smaller hostile logs under a mount (tiny bad lines around a real
#     log: rewritten in place, truncated, replaced, deleted and written
#     again; a 4 MB message and a torn 1 MB garbage line: rewritten in
#     place, cut inside the long line; a 1.0.x log whose inline
#     sidechains are agents/: a sidechain's row rewritten in place): each
#     rewrite of the same size with the mtime kept, or new (tiny), and
#     followed at once by growth; names looked up before read as a fresh
#     mount of the new log's, and errors.txt says it was indexed again; a
#     second mount over one, live and dead, is refused.
# full: the 2 GB log under ASan too; make test takes it in the plain
# build only (under ASan it took most of the runner's 600 s), and under
# ASan 200,000 tiny lines and a 25 MB line (lib.sh's LIGHT).
. "$(dirname "$0")/lib.sh"
DEMO=mnt-examples/demo.jsonl
MB=$((1024 * 1024))

expect_refused() {	# expect_refused PATTERN FILE [RUNNER...]
	local pat=$1 f=$2 err rc mode
	shift 2
	for mode in check mount; do
		if [ "$mode" = check ]; then
			err=$(timeout 20 "$@" "$SESSFS" --check "$f" 2>&1 >/dev/null)
		else
			err=$(timeout 20 "$@" "$SESSFS" "$f" "$T/mnt" 2>&1 >/dev/null)
		fi
		rc=$?
		if [ "$rc" -eq 1 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] &&
		   echo "$err" | grep -q -- "$f: .*$pat"; then
			ok "$mode $(basename "$f"): exit 1, $err"
		else
			bad "$mode $f: exit $rc, stderr: $err"
			mountpoint -q "$T/mnt" && fusermount3 -u "$T/mnt"
		fi
	done
}

# peak_mb PID: the daemon's peak resident memory, in MB.
peak_mb() { echo $(($(awk '/VmHWM/ {print $2}' "/proc/$1/status") / 1024)); }

refusals() {
	mkdir -p "$T/mnt" "$T/folder.jsonl"
	head -c $((4 * MB)) /dev/urandom > "$T/binary.jsonl"
	mkfifo "$T/fifo.jsonl"
	for i in $(seq 1 5000); do echo "garbage line $i {\"type\":"; done > "$T/garbage.jsonl"
	cp "$DEMO" "$T/unreadable.jsonl"
	chmod 000 "$T/unreadable.jsonl"
	expect_refused "not a Claude Code session log" "$T/binary.jsonl"
	expect_refused "is a directory" "$T/folder.jsonl"
	expect_refused "not a regular file" "$T/fifo.jsonl"
	expect_refused "not a Claude Code session log" "$T/garbage.jsonl"
	# root reads anything: a user who may not read it is refused.
	chmod 755 "$T"
	expect_refused "Permission denied" "$T/unreadable.jsonl" \
		setpriv --reuid=65534 --regid=65534 --clear-groups
}

# tiny_log N OUT: N tiny lines, blank, garbage and almost-records, then the
# demo.
tiny_log() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
		k = i % 5
		if (k == 0) print ""; else if (k == 1) print "{}"
		else if (k == 2) print "x"; else if (k == 3) print "[1]"
		else print "{\"type\":7}" } }' > "$2"
	cat "$DEMO" >> "$2"
}

# A million tiny lines, blank, garbage and almost-records, then a real log:
# every bad line is one line of errors.txt, the log is all there.
tiny_lines() {
	local log="$T/tiny.jsonl" mnt="$T/tiny" bad pid n
	n=$(light 1000000 200000)
	tiny_log "$n" "$log"
	mount_log "$log" "$mnt" || { bad "mount tiny: $(cat "$mnt.err")"; return; }
	pid=$PID
	bad=$(grep -vc 'is not in the price table' "$mnt/errors.txt")	# the demo's model: none
	[ "$bad" -eq "$n" ] && grep -q "\"badLines\": $n" "$mnt/session.json" &&
		ok "$n tiny bad lines: a line each in errors.txt, badLines $n" ||
		bad "tiny lines: errors.txt has $bad lines"
	mount_log "$DEMO" "$T/tiny-demo" || { bad "mount demo"; return; }
	diff <(cd "$mnt/branches" && find . | sort) <(cd "$T/tiny-demo/branches" && find . | sort) > /dev/null &&
		ok "... and every branch and message of the log after them" || bad "tiny lines: branches differ"
	unmount_log "$T/tiny-demo"
	ok "daemon peak RSS with $n tiny lines: $(peak_mb "$pid") MB"
	PID=$pid
	unmount_log "$mnt"
}

# A row whose text is 100 MB, then a torn 100 MB line of garbage.
long_line() {
	local log="$T/long.jsonl" mnt="$T/long" f size peak mb
	mb=$(light 100 25)
	{
		printf '{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hello"},"uuid":"00000001-0000-4000-8000-000000000001","timestamp":"2026-01-01T10:00:00.000Z","sessionId":"s1"}\n'
		printf '{"parentUuid":"00000001-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":"'
		head -c $((mb * MB)) /dev/zero | tr '\0' 'x'
		printf '"}]},"uuid":"00000002-0000-4000-8000-000000000002","timestamp":"2026-01-01T10:00:01.000Z","sessionId":"s1"}\n'
		head -c $((mb * MB)) /dev/zero | tr '\0' '{'
	} > "$log"
	mount_log "$log" "$mnt" || { bad "mount long: $(cat "$mnt.err")"; return; }
	f="$mnt/branches/main/000002-assistant.md"
	size=$(stat -c %s "$f")
	if [ "$size" -gt $((mb * MB)) ] && [ "$(timeout 120 cat "$f" | wc -c)" = "$size" ] &&
	   [ "$(timeout 120 tr -cd x < "$f" | wc -c)" -eq $((mb * MB)) ]; then
		ok "a $mb MB message: read whole ($size bytes), every x of it"
	else
		bad "$mb MB message: stat $size"
	fi
	timeout 120 cmp -s <(sed -n 2p "$log") "$mnt/records/00000002-0000-4000-8000-000000000002.json" &&
		ok "... its record is the line, byte for byte" || bad "$mb MB record differs"
	grep -q 'wait for a newline' "$mnt/errors.txt" &&
		ok "a torn $mb MB garbage line waits for its newline, noted in errors.txt" ||
		bad "torn garbage: $(cat "$mnt/errors.txt")"
	peak=$(peak_mb "$PID")
	# The line, its rendering, and the daemon itself; ASan adds its own.
	case $SESSFS in
	*asan*) ok "daemon peak RSS with a $mb MB line read: $peak MB (ASan)" ;;
	*) [ "$peak" -le 350 ] && ok "daemon peak RSS with a $mb MB line read: $peak MB" ||
		bad "daemon peak RSS with a $mb MB line read: $peak MB, more than 3.5 times the line" ;;
	esac
	unmount_log "$mnt"
	timeout 120 "$SESSFS" --check "$log" > "$T/long.check"
	grep -q '"badLines": 0' "$T/long.check" && ! grep -q '"unfinishedLastLine": 0' "$T/long.check" &&
		ok "--check: the torn garbage line is unfinished, not bad, as in the mount" || bad "--check long"
}

# A 2 GB log written by the benchmark's generator: records past 2^31.
two_gb() {
	local dir=$T log mnt="$T/two" gen="$T/genlog" last uuid cur
	case $SESSFS in
	*asan*) [ "$FULL" = 1 ] || { skip "the 2 GB log under ASan (make test-full runs it)"; return; } ;;
	esac
	# on a tmpfs when it has the room (writing 2 GB to a disk is most
	# of the time), else under $T
	[ "$(df --output=avail -B1G /dev/shm 2>/dev/null | tail -1)" -ge 6 ] 2>/dev/null &&
		scratch_dir dir
	log=$dir/two.jsonl
	if [ "$(df --output=avail -B1G "$dir" | tail -1)" -lt 6 ]; then
		skip "the 2 GB log (less than 6 GB free under $dir)"
		return
	fi
	cc -O2 -std=c11 -D_FILE_OFFSET_BITS=64 -o "$gen" tests/bench/genlog/*.c || { bad "build genlog"; return; }
	"$gen" 2G "$log" 2>/dev/null || { bad "genlog 2G"; return; }
	[ "$(stat -c %s "$log")" -gt 2147483648 ] || bad "the 2 GB log is smaller than 2^31"
	mount_log "$log" "$mnt" || { bad "mount 2 GB: $(cat "$mnt.err")"; rm -f "$log"; return; }
	last=$(tail -n 1 "$log")
	uuid=$(tail -n 200 "$log" | grep -o '"uuid":"[0-9a-f-]*"' | tail -1 | cut -d'"' -f4)
	grep -F "\"uuid\":\"$uuid\"" <(tail -n 200 "$log") | tail -1 | cmp -s - "$mnt/records/$uuid.json" &&
		ok "2 GB log: a record past 2^31 is its line, byte for byte" || bad "2 GB: records/$uuid.json"
	cur=$(ls "$mnt/branches/current/" | tail -1)
	[ -n "$cur" ] && timeout 60 cat "$mnt/branches/current/$cur" > /dev/null &&
		grep -q "\"bytes\": $(stat -c %s "$log")" "$mnt/session.json" &&
		ok "2 GB log: the current branch's last file ($cur) and session.json read" ||
		bad "2 GB: current branch or session.json"
	[ "$(echo "$last" | head -c 1)" = "{" ] || bad "2 GB: last line"
	ok "daemon peak RSS with the 2 GB log: $(peak_mb "$PID") MB"
	unmount_log "$mnt"
	rm -f "$log"
}

# A row to append after a rewrite: one no log here holds.
appended_row() {
	printf '{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"appended after a rewrite"},"uuid":"00000901-0000-4000-8000-000000000901","timestamp":"2026-01-01T10:15:01.000Z","sessionId":"s1"}\n'
}

# A 1.0.x log whose subagents' rows are in its own file (agents/ holds
# views of it): a row of a sidechain rewritten in place, its mtime kept,
# and then followed by growth. The session's and the sidechains' names
# looked up before read as the new log's.
v1_changes() {
	local log=mnt-examples/v1-sidechains.jsonl
	sed '9s/def parse_/DEF parse_/' "$log" > "$T/ch-v1-inplace.jsonl"
	cmp -s "$log" "$T/ch-v1-inplace.jsonl" && bad "v1: the sidechain row was not changed"
	{ cat "$T/ch-v1-inplace.jsonl"; appended_row; } > "$T/ch-v1-grown.jsonl"
	change_case v1-inplace inplace "$log" "$T/ch-v1-inplace.jsonl"
	change_case v1-rewrite-grow rewrite-grow "$log" "$T/ch-v1-grown.jsonl"
}

# Hostile logs that change under the mount (change_case in lib.sh).
changes() {
	local f log cut
	tiny_log 20000 "$T/ch-tiny.jsonl"
	{
		head -n 20 "$DEMO"
		printf '{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"'
		head -c $((4 * MB)) /dev/zero | tr '\0' 'x'
		printf '"},"uuid":"00000001-0000-4000-8000-0000000000aa","timestamp":"2026-01-01T10:00:00.000Z","sessionId":"s1"}\n'
		tail -n +21 "$DEMO"
		head -c $MB /dev/zero | tr '\0' '{'
	} > "$T/ch-long.jsonl"
	for f in tiny long; do
		log="$T/ch-$f.jsonl"
		# the same size, other bytes; cut inside a line; the demo's end first
		sed 's/What does this project do?/What does this program do?/' "$log" > "$T/ch-$f-inplace.jsonl"
		cut=$(($(stat -c %s "$log") * 2 / 3))	# inside the 4 MB line
		[ $f = tiny ] && cut=$(($(stat -c %s "$log") - $(stat -c %s "$DEMO") / 2))
		head -c $cut "$log" > "$T/ch-$f-cut.jsonl"
		{ tail -n 30 "$DEMO"; cat "$log"; } > "$T/ch-$f-other.jsonl"
		{ cat "$T/ch-$f-inplace.jsonl"; appended_row; } > "$T/ch-$f-grown.jsonl"
		change_case "$f-inplace" inplace "$log" "$T/ch-$f-inplace.jsonl"
		change_case "$f-rewrite-grow" rewrite-grow "$log" "$T/ch-$f-grown.jsonl"
		change_case "$f-truncate" truncate "$log" "$T/ch-$f-cut.jsonl"
		[ $f = long ] && continue	# the rest as for tiny: the same paths
		change_case "$f-rewrite" rewrite "$log" "$T/ch-$f-inplace.jsonl"
		change_case "$f-replace" replace "$log" "$T/ch-$f-other.jsonl"
		change_case "$f-recreate" recreate "$log" "$T/ch-$f-other.jsonl"
	done
	v1_changes
	mount_log "$T/ch-tiny.jsonl" "$T/ch-stack" || { bad "mount ch-tiny: $(cat "$T/ch-stack.err")"; return; }
	no_stacking "$T/ch-tiny.jsonl" "$T/ch-stack" "tiny lines"
}

# With arguments: only those parts (e.g. changes), for a quick run.
run_parts "$@"
refusals
tiny_lines
long_line
two_gb
changes
finish
