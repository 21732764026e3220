#!/bin/bash
# Message files bigger than the render cache (16 MiB) and bigger than what
# a listing hands to the page cache: exact sizes, exact bytes, read in a
# bounded time (a file bigger than the cache must not be rendered again for
# every read), two of them at once, and a daemon whose memory for such a
# record is about the line plus its text. Then cold grep -r over a log of
# many small files finds what it must, and ls -l pushes them all.
. "$(dirname "$0")/lib.sh"

BIG_LINES=${BIG_LINES:-80000}		# 80000 lines of 1 KiB: 82 MB of text
X=$(printf '%01023d' 0 | tr 0 x)

# body N: N lines of 1023 x, each a JSON "\n", as one JSON string body
# (written out, never held in a shell variable: 82 MB strings in bash
# cost minutes on a busy machine)
body() { yes "$X\\n" | head -n "$1" | tr -d '\n'; }

u() { printf '%08d-0000-4000-8000-%012d' "$1" "$1"; }

env_of() {	# env_of N PARENT: the members every row ends with
	local p=null
	[ "$2" -gt 0 ] && p="\"$(u "$2")\""
	printf '"parentUuid":%s,"uuid":"%s","timestamp":"2026-01-01T10:00:0%d.000Z",' "$p" "$(u "$1")" "$1"
	printf '"sessionId":"5e55f500-0000-4000-8000-000000000001","cwd":"/x","version":"2.1.328"}\n'
}

# A log whose one big record is a user message of 82 MB.
log=$T/user.jsonl
{
	printf '{"type":"user","message":{"role":"user","content":"'
	body "$BIG_LINES"
	printf '"},'
	env_of 1 0
	printf '{"type":"user","message":{"role":"user","content":"small"},'
	env_of 2 1
} > "$log"
yes "$X" | head -n "$BIG_LINES" > "$T/want-big"
yes "$X" | head -n 2000 > "$T/want-mid"

mnt=$T/mnt
mount_or_end "$log" "$mnt"
cur=$mnt/branches/current
ls -l "$cur" > /dev/null
user=$cur/000001-user.md

# content FILE: the file's text after its header
content() { sed '1,/^$/d' "$1"; }

same_size() {
	local s w
	s=$(stat -c %s "$1")
	w=$(timeout 60 cat "$1" | wc -c)
	[ "$s" = "$w" ] && ok "stat size = bytes read ($s): $(basename "$1")" ||
		bad "$(basename "$1"): stat $s, read $w"
}

# One reader of a file bigger than the cache, in a bounded time.
t0=$(date +%s)
same_size "$user"
t1=$(date +%s)
[ $((t1 - t0)) -lt 60 ] && ok "a file bigger than the cache read in $((t1 - t0)) s" ||
	bad "reading a file bigger than the cache took $((t1 - t0)) s"
timeout 60 cat "$user" > "$T/got-user"
content "$T/got-user" | cmp -s - "$T/want-big" && ok "its bytes are the text" ||
	bad "the big user message's text differs"

hwm=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
line=$(head -n 1 "$log" | wc -c)
case "${SESSFS_BUILD:-build}" in
*asan*) skip "the daemon's peak memory (under ASan it is not the daemon's own)" ;;
*)	# the line and its text, and the rest of the daemon: under 2.5 lines
	[ $((hwm * 1024)) -lt $((line * 5 / 2)) ] &&
		ok "daemon peak RSS $((hwm / 1024)) MB for a $((line / 1048576)) MB record" ||
		bad "daemon peak RSS $((hwm / 1024)) MB for a $((line / 1048576)) MB record"
	;;
esac
unmount_log "$mnt"

# Two big records (the tool result's output is in the line twice), and a
# result bigger than a file a listing pushes to the page cache.
log=$T/big.jsonl
{
	printf '{"type":"user","message":{"role":"user","content":"'
	body "$BIG_LINES"
	printf '"},'
	env_of 1 0
	printf '{"type":"assistant","message":{"id":"msg_1","model":"m","role":"assistant","content":[{"type":"tool_use","id":"tu_1","name":"Bash","input":{"command":"cat big"}}]},'
	env_of 2 1
	printf '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"tu_1","type":"tool_result","content":"'
	body "$BIG_LINES"
	printf '","is_error":false}]},"toolUseResult":{"stdout":"'
	body "$BIG_LINES"
	printf '"},'
	env_of 3 2
	printf '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"tu_1","type":"tool_result","content":"'
	body 2000
	printf '"}]},'
	env_of 4 3
} > "$log"
mnt=$T/big
mount_or_end "$log" "$mnt"
cur=$mnt/branches/current
ls -l "$cur" > /dev/null
user=$cur/000001-user.md
result=$cur/000003-tool_result-Bash.md
mid=$(ls "$cur"/000004-*.md)

# Two such files read at once, and one bigger than a pushed file.
timeout 120 cat "$user" > "$T/got-user2" &
c1=$!
timeout 120 cat "$result" > "$T/got-result" &
c2=$!
wait $c1 && wait $c2 && ok "two big files read at once" || bad "two big files at once timed out"
cmp -s "$T/got-user" "$T/got-user2" && ok "same bytes on the second read" || bad "second read differs"
content "$T/got-result" | grep -v -- '^--- tool_result' | cmp -s - "$T/want-big" &&
	ok "the big tool result's text" || bad "the big tool result's text differs"
same_size "$result"
same_size "$mid"
content "$mid" | grep -v -- '^--- tool_result' | cmp -s - "$T/want-mid" &&
	ok "a result bigger than a pushed file" || bad "the 2 MB result differs"
unmount_log "$mnt"

# Cold grep -r over many small files (listed, rendered on both threads,
# pushed to the page cache): every file found, the same as cat gives.
log=$T/many.jsonl
awk 'function u(i) { return sprintf("%08d-0000-4000-8000-%012d", i, i) }
BEGIN {
	for (i = 1; i <= 600; i++) {
		printf "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"row %d needle-%d\\nend\"},", i, i
		p = i > 1 ? "\"" u(i - 1) "\"" : "null"
		printf "\"parentUuid\":%s,\"uuid\":\"%s\",\"timestamp\":\"2026-01-01T10:00:00.000Z\",\"sessionId\":\"5e55f500-0000-4000-8000-000000000001\"}\n", p, u(i)
	}
}' > "$log"
mnt=$T/many
if mount_log "$log" "$mnt"; then
	n=$(timeout 60 grep -rl 'needle-' "$mnt/branches/current/" | wc -l)
	[ "$n" = 600 ] && ok "cold grep -r finds all 600 files" || bad "cold grep -r found $n of 600"
	timeout 60 grep -rh 'needle-' "$mnt/branches/current/" | sort > "$T/grep.out"
	cat "$mnt"/branches/current/*.md | grep 'needle-' | sort | cmp -s - "$T/grep.out" &&
		ok "grep -r reads what cat reads" || bad "grep -r and cat differ"
	# Readers that close the folder after the first batch, while the
	# helper renders the next one: the daemon lets go of it cleanly.
	n=0
	for i in $(seq 1 20); do
		f=$(timeout 20 find "$mnt/branches/fork"* "$mnt/branches/current/" -maxdepth 1 \
			-name '*.md' -print -quit 2>/dev/null)
		[ -n "$f" ] && n=$((n + 1))
	done
	[ "$n" = 20 ] && ok "20 listings closed after their first batch" || bad "early close: $n of 20"
	unmount_log "$mnt"
else
	bad "mount many: $(cat "$mnt.err")"
fi

# A listing with attributes hands each file it lists to the page cache
# once (pushed after the reply that follows its batch, the last batch
# after the listing's end): read afterwards, no file needs a request.
mnt=$T/pushed
if SESSFS_STATS=1 mount_log "$log" "$mnt"; then
	dir=$(cd "$mnt/branches/current/" && pwd -P)
	n=$(ls -l "$dir" | grep -c 'user.md$')
	sleep 1		# the pushes after the last reply
	cat "$dir"/*.md | grep -c 'needle-' > "$T/pushed.n"
	unmount_log "$mnt"
	stats=$(grep '^sessfs: requests:' "$mnt.err")
	[ "$n" = 600 ] && [ "$(cat "$T/pushed.n")" = 600 ] && ok "600 files listed and read" ||
		bad "listed $n, read $(cat "$T/pushed.n") of 600"
	case $stats in
	*" read=0 "*" pushed=600"*) ok "every file pushed once by ls -l, read with no request" ;;
	*) bad "pushes: $stats" ;;
	esac
else
	bad "mount pushed: $(cat "$mnt.err")"
fi
finish
