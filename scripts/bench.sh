#!/bin/bash
# The benchmark: writes a 100 MB and a 1 GB log of realistic shape
# (tests/bench/genlog/) and prints, for each, in one run:
#   - index time, MB/s, index bytes per record, peak RSS (tests/bench/idxbench.c)
#     on one thread, and the index time on two threads as sessfs indexes
#   - ratios against a full cJSON parse of every line and against grep -c
#   - the time from starting sessfs to the first answer of ls branches/
#     (tests/bench/readyprobe.c: from the exec to the first complete
#     listing, polled every millisecond without a fork), against both
#   - grep -r over branches/current, cold (first read after the mount) and
#     warm, against grep -r over a copy of the same tree on tmpfs, and
#     against grep over the raw log; the daemon's read and write calls
#     in the cold one (/proc/PID/io)
#   - the time of the first read of context/messages.json
#   - the time of the first find over state/
#   - on a fresh mount, the time of the first read of usage.json and of
#     transcripts/current.md (stat, then cat: rendered once), against the
#     index time, and that mount's peak RSS
#   - the daemon's peak RSS, and its RSS per record at ready, after the
#     context read, the find and the grep -r, and after the cp -r too
#   - 50 growths of 10 records each (BENCH_GROWTHS): the time until
#     session.json and context/messages.json show them, against a fresh
#     mount of the grown log, and the RSS after the first and the last;
#     then the same without a mount (tests/bench/growbench.c): a growth
#     against a fresh open, its stages (the context grown on the one
#     before: ctx_grow.c), and what each stage would cost built anew
#   - sessfs export of the log (BENCH_EXPORT sizes, default 100M) into a
#     folder on tmpfs and as a tar stream, against the index time
# and, for a log whose one record is a 100 MB message (BENCH_BIG=0 skips
# it), the time to read that file and the daemon's peak RSS, against jq;
# and for a log whose window has 300,000 rows (BENCH_WINDOW=0 skips it),
# mount + ls -l context + ls -l of its branch against the same over its
# tmpfs copy, and a full walk against a normal log of the same size.
# Then the projects-folder figures (scripts/bench_projects.sh; BENCH_PROJECTS=0
# skips them), and what a search of a projects mount costs and returns
# (scripts/bench_findable.sh; BENCH_FINDABLE=0 skips it).
# Times are the best of BENCH_RUNS runs (default 3); the log is read once
# first so every tool starts with it in the page cache. Figures, not
# pass/fail: the machine is shared.
set -u
cd "$(dirname "$0")/.."
SIZES=${BENCH_SIZES:-100M 1G}
RUNS=${BENCH_RUNS:-3}
DIR=${BENCH_DIR:-/tmp/sessfs-bench}
B=build/bench
CC=${CC:-cc}
CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE"
CJSON=$(pkg-config --cflags --libs libcjson)
mkdir -p "$B" "$DIR"
MNT=$DIR/mnt
PID=
# The tmpfs copy: a folder of this run's own (runs of others may share /dev/shm).
SHM=$(mktemp -d /dev/shm/sessfs-bench.XXXXXX) || exit 1
cleanup() {
	fusermount3 -u -z "$MNT" 2>/dev/null
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	rm -rf "$DIR"/tree-* "$SHM"
}
trap cleanup EXIT

make -s $B/genlog || exit 1	# the log generator (tests/bench/genlog/)
$CC $CFLAGS -o $B/cjson_baseline scripts/cjson_baseline.c $CJSON || exit 1
$CC $CFLAGS -o $B/readyprobe tests/bench/readyprobe.c || exit 1
make -s bench-bins || exit 1	# idxbench, growbench: on core's archives

source scripts/bench_lib.sh	# now, best, ratio, the baselines
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# start_mount LOG: starts sessfs -f LOG MNT through readyprobe, which
# times from its exec to the first complete listing of MNT/branches (as ls
# reads it) without a shell or a fork per try; waits for that figure and
# leaves it in $READY (seconds). PID is the daemon's. 1 if it never came up.
start_mount() {
	local i
	rm -f "$DIR/tick" "$DIR/ready"
	mkfifo "$DIR/tick"
	exec 9<> "$DIR/tick"
	mkdir -p "$MNT"
	$B/readyprobe "$DIR/ready" "$MNT/branches" build/sessfs -f "$1" "$MNT" 2>"$DIR/daemon.err" &
	PID=$!
	for i in $(seq 1 6500); do
		[ -s "$DIR/ready" ] && break
		read -r -t 0.01 -u 9
	done
	exec 9<&-
	READY=$(cat "$DIR/ready" 2>/dev/null)
	case $READY in ''|timeout) return 1 ;; esac
	ls "$MNT/branches" > /dev/null
}

bench_mount() {
	local log=$1 idx_s=$2 idx2_s=$3 recs=$4 jq_s=$5 t0 t1 cold warm tmpfs raw rss copy i best_ready= rss0 rss_grep size io0 io1 cc
	# Ready is the best of RUNS mounts, like the index time; the last
	# mount stays for the rest.
	for i in $(seq 1 "$RUNS"); do
		if [ -n "$PID" ]; then
			fusermount3 -u "$MNT"
			wait "$PID"
			PID=
		fi
		start_mount "$log" || { echo "  mount did not come up: $(cat "$DIR/daemon.err")"; return; }
		if [ -z "$best_ready" ] || [ "$(echo "$READY < $best_ready" | bc -l)" = 1 ]; then best_ready=$READY; fi
	done
	READY=$best_ready
	rss0=$(rss_kb "$PID")
	printf '  ready (start to first ls branches/): %.3f s = %.2f x index time (one thread), %.2f x (two)\n' \
		"$READY" "$(echo "$READY / $idx_s" | bc -l)" "$(echo "$READY / $idx2_s" | bc -l)"
	t0=$(now); cat "$MNT/context/messages.json" > /dev/null; t1=$(now)
	printf '  context/messages.json, cold first read: %.3f s = %.2f x jq -c . of the log (%s s) (%s messages)\n' \
		"$(echo "$t1 - $t0" | bc -l)" "$(echo "($t1 - $t0) / $jq_s" | bc -l)" "$jq_s" \
		"$(grep -c '^    "role"' "$MNT/context/messages.json")"
	t0=$(now); find "$MNT/state" > "$DIR/state.find"; t1=$(now)
	printf '  state/, cold first find: %.3f s = %.2f x index time (%s entries)\n' \
		"$(echo "$t1 - $t0" | bc -l)" "$(echo "($t1 - $t0) / $idx_s" | bc -l)" "$(wc -l < "$DIR/state.find")"
	io0=$(io_calls "$PID")
	t0=$(now); grep -r -c 'NO-SUCH-STRING-xyzzy' "$MNT/branches/current/" > /dev/null; t1=$(now)
	io1=$(io_calls "$PID")
	cold=$(echo "$t1 - $t0" | bc -l)
	warm=$(best grep -r -c 'NO-SUCH-STRING-xyzzy' "$MNT/branches/current/")
	rss_grep=$(rss_kb "$PID")
	copy=$SHM/tree
	rm -rf "$copy"; cp -r "$MNT/branches/current/" "$copy"
	tmpfs=$(best grep -r -c 'NO-SUCH-STRING-xyzzy' "$copy")
	raw=$(best grep -c 'NO-SUCH-STRING-xyzzy' "$log")
	printf '  grep -r branches/current (%s files): cold %.3f s, warm %s s; tmpfs copy %s s; raw log %s s\n' \
		"$(ls "$MNT/branches/current" | wc -l)" "$cold" "$warm" "$tmpfs" "$raw"
	printf '  ratios: warm/tmpfs %s, cold/tmpfs %s, warm/raw-log %s\n' \
		"$(ratio "$warm" "$tmpfs")" "$(ratio "$cold" "$tmpfs")" "$(ratio "$warm" "$raw")"
	# Counts, whatever the machine's load: the log's lines read, and the
	# files pushed and replies sent to the kernel.
	printf '  daemon system calls in the cold grep -r: %s reads, %s writes\n' \
		"$(( ${io1% *} - ${io0% *} ))" "$(( ${io1#* } - ${io0#* } ))"
	rss=$(awk '/VmHWM/ {print $2}' /proc/$PID/status)
	printf '  daemon peak RSS: %.1f MB = %.3f x the log\n' "$(echo "$rss / 1024" | bc -l)" \
		"$(echo "$rss * 1024 / $(stat -L -c %s "$log")" | bc -l)"
	printf '  daemon RSS per record: %.0f bytes at ready, %.0f after a context read, a find of state/ and the grep -r, %.0f after a cp -r of the branch too\n' \
		"$(echo "$rss0 * 1024 / $recs" | bc -l)" "$(echo "$rss_grep * 1024 / $recs" | bc -l)" \
		"$(echo "$(rss_kb "$PID") * 1024 / $recs" | bc -l)"
	# A fresh mount: the first read builds the usage rows and the context.
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
	start_mount "$log" || { echo "  mount did not come up: $(cat "$DIR/daemon.err")"; return; }
	t0=$(now); cat "$MNT/usage.json" > /dev/null; t1=$(now)
	# ccusage follows no link to a file: a hard link, the log's own bytes
	cc=$(rm -rf "$DIR/cc" && mkdir -p "$DIR/cc/p" && ln "$log" "$DIR/cc/p/s.jsonl" &&
		ccusage_time session "$DIR/cc")
	rm -rf "$DIR/cc"
	printf '  usage.json, first read: %.3f s = %.2f x index time%s (%s responses)\n' \
		"$(echo "$t1 - $t0" | bc -l)" "$(echo "($t1 - $t0) / $idx_s" | bc -l)" \
		"$(against "$(echo "$t1 - $t0" | bc -l)" "$cc" "ccusage session")" \
		"$(sed -n '/^  "session": {/,/^  }/s/^    "responses": \([0-9]*\).*/\1/p' "$MNT/usage.json")"
	t0=$(now); size=$(stat -L -c %s "$MNT/transcripts/current.md")
	cat "$MNT/transcripts/current.md" > /dev/null; t1=$(now)
	printf '  transcripts/current.md, stat and first read: %.3f s = %.2f x index time (%s bytes)\n' \
		"$(echo "$t1 - $t0" | bc -l)" "$(echo "($t1 - $t0) / $idx_s" | bc -l)" "$size"
	rss=$(awk '/VmHWM/ {print $2}' /proc/$PID/status)
	printf '  daemon peak RSS of that mount: %.1f MB\n' "$(echo "$rss / 1024" | bc -l)"
	rm -rf "$copy"
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
}

# bench_export LOG IDX IDX2: sessfs export into a fresh folder on tmpfs
# (best of RUNS, the removal of the last one not timed), and as a tar
# stream into /dev/null.
bench_export() {
	local log=$1 idx_s=$2 idx2_s=$3 out=$SHM/export b= t0 t1 d i tar
	for i in $(seq 1 "$RUNS"); do
		rm -rf "$out"
		t0=$(now); build/sessfs export -q "$log" "$out" 2>"$DIR/export.err"; t1=$(now)
		[ -s "$DIR/export.err" ] && { echo "  export: $(head -3 "$DIR/export.err")"; return; }
		d=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$d < $b" | bc -l)" = 1 ]; then b=$d; fi
	done
	printf '  export to tmpfs (%s files, %s MB): %.3f s = %.1f x index time (one thread), %.1f x (two)\n' \
		"$(find "$out" -type f | wc -l)" "$(du -sm "$out" | cut -f1)" "$b" \
		"$(echo "$b / $idx_s" | bc -l)" "$(echo "$b / $idx2_s" | bc -l)"
	rm -rf "$out"
	tar=$(best sh -c 'build/sessfs export -q "$1" - > /dev/null' sh "$log")
	printf '  export as a tar stream to /dev/null: %s s = %.1f x index time (one thread), %.2f x the export to tmpfs\n' \
		"$tar" "$(echo "$tar / $idx_s" | bc -l)" "$(echo "$tar / $b" | bc -l)"
}

# turn PARENT N TAG: N records (user, assistant, ...) chained on PARENT,
# the last one's uuid in $LAST. Each holds TAG, to be found afterwards.
turn() {
	local parent=$1 n=$2 tag=$3 i u ts
	ts=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
	for i in $(seq 1 "$n"); do
		u=$(printf 'b%07d-0000-4000-8000-%012d' "$GROWN" "$GROWN")
		GROWN=$((GROWN + 1))
		if [ $((i % 2)) = 1 ]; then
			printf '{"parentUuid":"%s","isSidechain":false,"type":"user","message":{"role":"user","content":"%s prompt %d"},"uuid":"%s","timestamp":"%s"%s}\n' \
				"$parent" "$tag" "$i" "$u" "$ts" "$ENVELOPE"
		else
			printf '{"parentUuid":"%s","isSidechain":false,"type":"assistant","message":{"id":"msg_%s","role":"assistant","model":"m","content":[{"type":"text","text":"%s answer %d"}]},"uuid":"%s","timestamp":"%s"%s}\n' \
				"$parent" "$u" "$tag" "$i" "$u" "$ts" "$ENVELOPE"
		fi
		parent=$u
	done
	LAST=$parent
}

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# io_calls PID: "READS WRITES", the system calls of the process so far.
io_calls() { awk '/^syscr/ {r = $2} /^syscw/ {w = $2} END {print r, w}' "/proc/$1/io"; }

# bench_growth LOG: a copy of LOG mounted, then GROWTHS (50)
# appends of 10 records each. After each: the time until session.json and
# context/messages.json show them (one read each: the request that
# follows a write sees it), against a fresh mount of the grown log (start
# to the same two reads); the daemon's RSS after the 1st and the last.
bench_growth() {
	local log=$DIR/grow.jsonl n=${BENCH_GROWTHS:-50} i t0 t1 t best= sum=0 rss1 rssn fresh parent
	cp "$1" "$log"
	# The rows carry the leaf's envelope, as Claude Code writes it: the
	# same session, folder, branch and version (rows without a cwd would
	# tell the state the folder changed, and it would be built again).
	ENVELOPE=$(build/sessfs --check "$log" | sed -n 's/^  "\(sessionId\|cwd\|gitBranch\|version\)": \(".*"\),*$/,"\1":\2/p' | tr -d '\n')
	parent=$(build/sessfs --check "$log" | sed -n 's/.*"currentLeaf": "\(.*\)".*/\1/p')
	GROWN=1
	start_mount "$log" || { echo "  growth: mount did not come up: $(cat "$DIR/daemon.err")"; return; }
	cat "$MNT/session.json" "$MNT/context/messages.json" > /dev/null
	for i in $(seq 1 "$n"); do
		turn "$parent" 10 "growth-$i" >> "$log"
		parent=$LAST
		t0=$(now)
		cat "$MNT/session.json" > "$DIR/grow.session"
		cat "$MNT/context/messages.json" > "$DIR/grow.messages"
		t1=$(now)
		grep -q "$LAST" "$DIR/grow.session" && grep -q "growth-$i answer 10" "$DIR/grow.messages" ||
			echo "  growth $i: not shown"
		t=$(echo "$t1 - $t0" | bc -l)
		sum=$(echo "$sum + $t" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
		[ "$i" = 1 ] && rss1=$(rss_kb "$PID")
	done
	rssn=$(rss_kb "$PID")
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
	start_mount "$log" || return
	t0=$(now)
	cat "$MNT/session.json" "$MNT/context/messages.json" > /dev/null
	t1=$(now)
	fresh=$(echo "$READY + $t1 - $t0" | bc -l)
	printf '  growth by 10 records, %s times: session.json + context/messages.json in %.3f s (best %.3f s) = %.3f x a fresh mount (%.3f s)\n' \
		"$n" "$(echo "$sum / $n" | bc -l)" "$best" "$(echo "$sum / $n / $fresh" | bc -l)" "$fresh"
	printf '  daemon RSS after growth 1: %.1f MB, after growth %s: %.1f MB (%+.1f%%)\n' \
		"$(echo "$rss1 / 1024" | bc -l)" "$n" "$(echo "$rssn / 1024" | bc -l)" \
		"$(echo "($rssn - $rss1) * 100 / $rss1" | bc -l)"
	# Where a growth's time goes, without a mount (tests/bench/growbench.c).
	$B/growbench "$1" "$DIR/growbench.jsonl" 5 |
		sed -n 's/^\(growth_mean_s\|growth_stages_s\|anew_s\): /  growth without a mount, \1: /p'
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
	rm -f "$log"
}

# bench_big: a log whose first record is a user message of 100 MB of text
# (lines of 1 KiB), then a short one; reads the big file once.
bench_big() {
	local log=$DIR/bench-big.jsonl x t0 t1 f size rss
	x=$(printf '%01023d' 0 | tr 0 x)
	if [ ! -f "$log" ]; then
		{
			printf '{"type":"user","message":{"role":"user","content":"'
			yes "$x\\n" | head -n 97657 | tr -d '\n'
			printf '"},"parentUuid":null,"uuid":"00000001-0000-4000-8000-000000000001",'
			printf '"timestamp":"2026-01-01T10:00:00.000Z","sessionId":"5e55f500-0000-4000-8000-000000000001"}\n'
			printf '{"type":"user","message":{"role":"user","content":"short"},"parentUuid":'
			printf '"00000001-0000-4000-8000-000000000001","uuid":"00000002-0000-4000-8000-000000000002",'
			printf '"timestamp":"2026-01-01T10:00:01.000Z","sessionId":"5e55f500-0000-4000-8000-000000000001"}\n'
		} > "$log"
	fi
	echo
	echo "== one 100 MB record: line of $(head -n 1 "$log" | wc -c) bytes"
	start_mount "$log" || { echo "  mount did not come up: $(cat "$DIR/daemon.err")"; return; }
	f=$MNT/branches/current/000001-user.md
	t0=$(now); size=$(stat -L -c %s "$f"); cat "$f" > /dev/null; t1=$(now)
	rss=$(awk '/VmHWM/ {print $2}' /proc/$PID/status)
	jq_s=$(best sh -c 'head -n 1 "$1" | jq -r .message.content' sh "$log")
	printf '  stat and cat of its file (%s bytes): %.3f s = %.2f x jq -r .message.content of its line (%s s); daemon peak RSS %.1f MB = %.2f x the record\n' \
		"$size" "$(echo "$t1 - $t0" | bc -l)" "$(echo "($t1 - $t0) / $jq_s" | bc -l)" "$jq_s" \
		"$(echo "$rss / 1024" | bc -l)" "$(echo "$rss * 1024 / $size" | bc -l)"
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
}

# bench_window: a log of one chain of 300,000 short rows, no compaction
# (scripts/chainlog.awk), whose context window holds every row, against a
# genlog log of the same size: the time of a full walk (find, and cat of
# every file) and the daemon's peak RSS, for each.
walk_once() {
	local t0 t1
	start_mount "$1" || { echo "  mount did not come up: $(cat "$DIR/daemon.err")"; return; }
	t0=$(now)
	find "$MNT" -type f -print0 | xargs -0 cat > /dev/null 2>&1
	t1=$(now)
	WALK=$(echo "$t1 - $t0" | bc -l)
	WALK_FILES=$(find "$MNT" -type f | wc -l)
	WALK_RSS=$(awk '/VmHWM/ {print $2}' /proc/$PID/status)
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
}

# list_window LOG: from the exec of sessfs to the end of ls -l context and
# ls -l branches/main (issue 32's command), against the same two ls -l
# over the tree exported to tmpfs, each the best of RUNS runs after the
# kernel's caches are dropped. Then the same through branches/current/
# once: a live link, looked up again on each path that goes through it.
window_mount_ls() {	# LOG BRANCH-PATH: prints the seconds
	local t0 t1
	sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	t0=$(now)
	start_mount "$1" || { echo "  mount did not come up: $(cat "$DIR/daemon.err")" >&2; return 1; }
	ls -l "$MNT/context" > /dev/null; ls -l "$MNT/$2" > /dev/null
	t1=$(now)
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
	echo "$t1 - $t0" | bc -l
}

window_tmpfs_ls() {	# TREE BRANCH-PATH
	local t0 t1
	sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	t0=$(now)
	ls -l "$1/context" > /dev/null; ls -l "$1/$2" > /dev/null
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

list_window() {
	local out=$SHM/window mnt= tmp= t i path
	rm -rf "$out"
	build/sessfs export -q "$1" "$out" || { echo "  export failed"; return; }
	for path in branches/main/ branches/current/; do
		mnt= tmp=
		for i in $(seq 1 "$([ "$path" = branches/main/ ] && echo "$RUNS" || echo 1)"); do
			t=$(window_mount_ls "$1" "$path") || return
			[ -z "$mnt" ] || [ "$(echo "$t < $mnt" | bc -l)" = 1 ] && mnt=$t
			t=$(window_tmpfs_ls "$out" "$path")
			[ -z "$tmp" ] || [ "$(echo "$t < $tmp" | bc -l)" = 1 ] && tmp=$t
		done
		printf '  mount, ls -l context and ls -l %s: %.1f s = %.1f x the same two ls -l over its tmpfs copy (%.1f s)\n' \
			"$path" "$mnt" "$(echo "$mnt / $tmp" | bc -l)" "$tmp"
	done
	rm -rf "$out"
}

bench_window() {
	local long=$DIR/bench-window.jsonl normal=$DIR/bench-window-normal.jsonl lw lf lr
	[ -f "$long" ] || awk -v n=300000 -f scripts/chainlog.awk > "$long"
	[ -f "$normal" ] || $B/genlog "$(stat -L -c %s "$long")" "$normal" 2>/dev/null || return
	echo
	echo "== a window of 300,000 rows: $(stat -L -c %s "$long") bytes, against a genlog log of $(stat -L -c %s "$normal")"
	walk_once "$long"; lw=$WALK; lf=$WALK_FILES; lr=$WALK_RSS
	list_window "$long"
	walk_once "$normal"
	printf '  full walk: %.1f s for %s files (peak RSS %.0f MB), normal log %.1f s for %s files (%.0f MB): %.1f x, %.1f x per file\n' \
		"$lw" "$lf" "$(echo "$lr / 1024" | bc -l)" "$WALK" "$WALK_FILES" \
		"$(echo "$WALK_RSS / 1024" | bc -l)" "$(echo "$lw / $WALK" | bc -l)" \
		"$(echo "$lw * $WALK_FILES / $lf / $WALK" | bc -l)"
}

echo "sessfs benchmark ($(nproc) cores; best of $RUNS runs; log in page cache)"
for size in $SIZES; do
	log=$DIR/bench-$size.jsonl
	[ -f "$log" ] || $B/genlog "$size" "$log" 2>/dev/null || exit 1
	cat "$log" > /dev/null
	echo
	echo "== $size log: $(stat -L -c %s "$log") bytes, $(wc -l < "$log") lines"
	line=
	idx2=
	same2=
	for i in $(seq 1 "$RUNS"); do
		l=$($B/idxbench "$log")
		if [ -z "$line" ] || [ "$(echo "$(kv "$l" index_s) < $(kv "$line" index_s)" | bc -l)" = 1 ]; then line=$l; fi
		l2=$($B/idxbench -2 "$log")
		if [ -z "$idx2" ] || [ "$(echo "$(kv "$l2" index_s) < $idx2" | bc -l)" = 1 ]; then idx2=$(kv "$l2" index_s); fi
		[ "$(kv "$l" other_same)" = 1 ] && [ "$(kv "$l2" other_same)" = 1 ] || same2=NO
	done
	idx=$(kv "$line" index_s)
	cj=$(best $B/cjson_baseline "$log")
	# Not to /dev/null: GNU grep then stops at the first match.
	gr=$(best sh -c 'grep -c . "$1" > "$2"' sh "$log" "$DIR/grep-c.out")
	# what a user reaches for first: jq over every line (once: slow)
	jq=$(RUNS=1 best jq -c . "$log")
	printf '  index: %s s, %s MB/s, %s bytes/record (%s records), peak RSS %s MB\n' \
		"$idx" "$(kv "$line" index_MBps)" "$(kv "$line" idx_bytes_per_record)" \
		"$(kv "$line" records)" "$(kv "$line" peak_rss_MB)"
	printf '  on two threads (as sessfs indexes at open): %s s, the same index: %s\n' \
		"$idx2" "${same2:-yes}"
	printf '  then graph %s s, branches %s s (%s), resume chain %s s\n' \
		"$(kv "$line" graph_s)" "$(kv "$line" branches_s)" "$(kv "$line" branches)" "$(kv "$line" resume_s)"
	printf '  baselines: full cJSON parse %s s (sessfs is %sx faster), jq -c . %s s (%sx faster), grep -c %s s (sessfs takes %sx)\n' \
		"$cj" "$(ratio "$cj" "$idx")" "$jq" "$(ratio "$jq" "$idx")" "$gr" "$(ratio "$idx" "$gr")"
	bench_mount "$log" "$idx" "$idx2" "$(kv "$line" records)" "$jq"
	bench_growth "$log"
	case " ${BENCH_EXPORT:-100M} " in
	*" $size "*) bench_export "$log" "$idx" "$idx2" ;;
	esac
done
[ "${BENCH_BIG:-1}" = 0 ] || bench_big
[ "${BENCH_WINDOW:-1}" = 0 ] || bench_window
[ "${BENCH_PROJECTS:-1}" = 0 ] || BENCH_DIR=$DIR bash scripts/bench_projects.sh
[ "${BENCH_FINDABLE:-1}" = 0 ] || BENCH_DIR=$DIR bash scripts/bench_findable.sh
