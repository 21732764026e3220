#!/bin/bash
# The projects-folder part of the benchmark (run by scripts/bench.sh, or on
# its own after a make): a generated folder of BENCH_PJ_SESSIONS sessions
# (2,000) of about 370 KB in 20 projects (tests/bench/genlog/, one log per
# project, copied with a sessionId of its own per session),
# kept in BENCH_DIR between runs. Prints, in one run:
#   - from exec to the first complete listing of sessions/ (readyprobe),
#     against a single mount of one of those logs to its first branches/
#     listing, and per session; and the least such a listing can cost
#     (tests/bench/headtail.c), against both;
#   - sessions.json read complete, first read and after a rescan;
#   - grep -r over sessions/*/branches/current/, cold (right after the
#     mount), against the same grep (the same glob) over a copy of those
#     folders on tmpfs, each the median of BENCH_PJ_GREPS (3) runs, cold
#     ones on fresh mounts (the machine's noise is 10-20% a run); the daemon's
#     memory after it against its cache bound (-o cache_size); the FUSE
#     requests it took per file and the sessions opened (SESSFS_STATS,
#     the same on any machine); the shell's glob of those folders alone
#     on a mount of its own (it opens every session);
#   - usage.json: its first read (every log counted and priced), usage.txt
#     after it, then usage.json after a rescan; with BENCH_BASE, the first
#     read of a sessfs without pricing beside it.
# Figures, not pass/fail: the machine is shared.
set -u
cd "$(dirname "$0")/.."
N=${BENCH_PJ_SESSIONS:-2000}
NP=20
RUNS=${BENCH_PJ_RUNS:-3}	# exec to first ls: the best of RUNS (cheap)
GREPS=${BENCH_PJ_GREPS:-3}	# the cold grep and its tmpfs copy: the median of GREPS
DIR=${BENCH_DIR:-/tmp/sessfs-bench}
CACHE=${BENCH_PJ_CACHE:-256M}
B=build/bench
CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE"
PJ=$DIR/projects-$N
MNT=$DIR/pjmnt
PID=
SHM=$(mktemp -d /dev/shm/sessfs-pjbench.XXXXXX) || exit 1
cleanup() {
	fusermount3 -u -z "$MNT" 2>/dev/null
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	rm -rf "$SHM"
}
trap cleanup EXIT
mkdir -p "$B" "$DIR"
make -s $B/genlog || exit 1
[ -x $B/readyprobe ] || cc $CFLAGS -o $B/readyprobe tests/bench/readyprobe.c || exit 1
cc $CFLAGS -Icore/log -Icore/base -o $B/headtail tests/bench/headtail.c -lpthread || exit 1

source scripts/bench_lib.sh	# now, ratio, median, the baselines

# The folder: 20 logs from genlog (one seed per project), each copied to
# the sessions of its project with its own sessionId and the project's cwd.
if [ ! -f "$PJ/.done" ]; then
	rm -rf "$PJ"
	mkdir -p "$PJ"
	for p in $(seq 0 $((NP - 1))); do
		$B/genlog --seed "$((p + 1))" 350K "$PJ/base$p.jsonl" 2>/dev/null || exit 1
	done
	python3 - "$PJ" "$N" "$NP" <<'PY' || exit 1
import os, re, sys
root, n, np_ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for p in range(np_):
    base = open(f"{root}/base{p}.jsonl", "rb").read()
    sid = re.search(rb'"sessionId":"([^"]+)"', base).group(1)
    base = base.replace(b"/home/user/src/todo-app", b"/home/user/src/app%d" % p)
    os.makedirs(f"{root}/-home-user-src-app{p}")
    for i in range(p, n, np_):
        new = b"5e55f500-0000-4000-8000-%012d" % i
        open(f"{root}/-home-user-src-app{p}/{new.decode()}.jsonl", "wb").write(base.replace(sid, new))
    os.remove(f"{root}/base{p}.jsonl")
PY
	touch "$PJ/.done"
fi
ONE=$(ls "$PJ"/-home-user-src-app0/*.jsonl | head -n 1)
cat "$PJ"/*/*.jsonl > /dev/null

# floor_line DIR FOLDER SINGLE: what no first listing of DIR can go
# below (tests/bench/headtail.c: each log opened, its head and tail read,
# nothing looked at, on sessfs's 2 threads), against the single mount,
# and the folder's ready time against it.
floor_line() {
	local floor
	floor=$($B/headtail "$1" 2 "$RUNS") || return
	printf '  the least it can cost (each log opened, its 32 KB of head and tail read, nothing looked at, 2 threads): %.3f s = %sx the single mount; the folder takes %sx that\n' \
		"$floor" "$(ratio "$floor" "$3")" "$(ratio "$2" "$floor")"
}

# ready MNT_SUBDIR ARGS...: best of RUNS, exec to the first listing.
ready() {
	local sub=$1 best= r i
	shift
	for i in $(seq 1 "$RUNS"); do
		rm -f "$DIR/pjready"
		mkdir -p "$MNT"
		$B/readyprobe "$DIR/pjready" "$MNT/$sub" build/sessfs -f "$@" "$MNT" 2>"$DIR/pj.err" &
		PID=$!
		for _ in $(seq 1 6000); do [ -s "$DIR/pjready" ] && break; sleep 0.01; done
		r=$(cat "$DIR/pjready" 2>/dev/null)
		fusermount3 -u "$MNT"
		wait "$PID"
		PID=
		case $r in ''|timeout) echo "mount failed: $(cat "$DIR/pj.err")" >&2; return 1 ;; esac
		if [ -z "$best" ] || [ "$(echo "$r < $best" | bc -l)" = 1 ]; then best=$r; fi
	done
	echo "$best"
}

echo
echo "== projects folder: $N sessions of ~$(($(stat -c %s "$ONE") / 1024)) KB in $NP projects, $(du -sm "$PJ/" | cut -f1) MB"
single=$(ready branches "$ONE") || exit 1
folder=$(ready sessions "$PJ") || exit 1
printf '  ready (exec to first ls): folder sessions/ %.3f s, single log branches/ %.3f s: %sx; %.1f us per session\n' \
	"$folder" "$single" "$(ratio "$folder" "$single")" "$(echo "$folder * 1000000 / $N" | bc -l)"
floor_line "$PJ" "$folder" "$single"

# mount_pj: the folder mounted at MNT with the cache bound, counting its
# requests (SESSFS_STATS: printed to pj.err at unmount).
mount_pj() {
	mkdir -p "$MNT"
	SESSFS_STATS=1 build/sessfs -f -o cache_size="$CACHE" "$PJ" "$MNT" 2>"$DIR/pj.err" &
	PID=$!
	for _ in $(seq 1 600); do mountpoint -q "$MNT" && break; sleep 0.1; done
}
unmount_pj() {
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
}

# The glob alone: every session's branches/current resolved (and opened).
mount_pj
t0=$(now); g=$(echo "$MNT"/sessions/*/branches/current/ | wc -w); t1=$(now)
glob=$(echo "$t1 - $t0" | bc -l)
unmount_pj

mount_pj
t0=$(now); n=$(grep -c '"sessionId"' "$MNT/sessions.json"); t1=$(now)
first=$(echo "$t1 - $t0" | bc -l)
sleep 1.1
t0=$(now); cat "$MNT/sessions.json" > /dev/null; t1=$(now)
printf '  sessions.json complete (%s sessions): first read %.3f s = %.1fx the ready time, after a rescan %.3f s\n' \
	"$n" "$first" "$(echo "$first / $folder" | bc -l)" "$(echo "$t1 - $t0" | bc -l)"
t0=$(now); grep -r -c 'NO-SUCH-STRING-xyzzy' "$MNT"/sessions/*/branches/current/ > "$DIR/pjgrep.out"; t1=$(now)
cold=$(echo "$t1 - $t0" | bc -l)
rss=$(awk '/VmRSS/ {print $2}' /proc/$PID/status)
hwm=$(awk '/VmHWM/ {print $2}' /proc/$PID/status)
files=$(wc -l < "$DIR/pjgrep.out")
# One tar for the copy (links followed): a cp per session costs minutes.
(cd "$MNT" && tar -chf - sessions/*/branches/current/) | tar -C "$SHM" -xf -
colds=$cold
tmpfss=
for i in $(seq 1 "$GREPS"); do
	t0=$(now); grep -r -c 'NO-SUCH-STRING-xyzzy' "$SHM"/sessions/*/branches/current/ > /dev/null; t1=$(now)
	tmpfss="$tmpfss $(echo "$t1 - $t0" | bc -l)"
done
printf '  daemon memory after it: RSS %.0f MB (peak %.0f MB = %.2f x the folder), cache bound %s\n' \
	"$(echo "$rss / 1024" | bc -l)" "$(echo "$hwm / 1024" | bc -l)" \
	"$(echo "$hwm / 1024 / $(du -sm "$PJ/" | cut -f1)" | bc -l)" "$CACHE"
t0=$(now); cat "$MNT/sessions.json" > /dev/null; t1=$(now)
printf '  sessions.json after it (usage and titles of every session opened): %.2f s\n' \
	"$(echo "$t1 - $t0" | bc -l)"
unmount_pj
cp "$DIR/pj.err" "$DIR/pj-stats.err"
# More cold greps, each on a fresh mount; the figures are the medians.
for i in $(seq 2 "$GREPS"); do
	mount_pj
	t0=$(now); grep -r -c 'NO-SUCH-STRING-xyzzy' "$MNT"/sessions/*/branches/current/ > /dev/null; t1=$(now)
	colds="$colds $(echo "$t1 - $t0" | bc -l)"
	unmount_pj
done
cold=$(median $colds)
tmpfs=$(median $tmpfss)
printf '  grep -r sessions/*/branches/current/ (%s files): cold %.2f s, tmpfs copy %.2f s (medians of %s: cold%s, tmpfs%s): cold/tmpfs %s\n' \
	"$files" "$cold" "$tmpfs" "$GREPS" "$colds" "$tmpfss" "$(ratio "$cold" "$tmpfs")"
# Per file: the requests of the whole mount (sessions.json's reads are a
# handful); pushed: files handed to the page cache, read without a request.
awk -v files="$files" -v glob="$glob" -v dirs="$g" '
/requests:/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2]; all += kv[2] }
	all -= r["pushed"] }
/sessions opened=/ { split($3, kv, "="); opened = kv[2] }
END {
	printf "  its FUSE requests: %.3f per file (lookup %.3f, readdirplus %.3f, read %.3f), %.2f of files pushed; sessions opened %s\n",
		all / files, r["lookup"] / files, r["readdirplus"] / files, r["read"] / files, r["pushed"] / files, opened
	printf "  the glob sessions/*/branches/current/ alone (%s folders, every session opened): %.2f s\n", dirs, glob
}' "$DIR/pj-stats.err"

# usage.json and usage.txt on fresh mounts: the first read of usage.json
# counts every log (one pass) and prices every response (with the built-in
# table and a line for genlog's model, so that each one is priced, not
# passed over as a model without a price); usage.txt, read after it, reads
# no log again; a read after a rescan reads none either (stats only). With
# BENCH_BASE=<a sessfs built before pricing> (git archive a16fd0c, make),
# its first read of usage.json too, the runs of the two alternated: the
# figures are the medians of BENCH_PJ_USAGE (5) runs of each.
USAGES=${BENCH_PJ_USAGE:-5}
PRICES=$DIR/prices.txt
{ cat data/prices.txt
  echo "claude-opus-5-5 5 25 6.25 10 0.5 - - - - - 1 2026-12-06 bench: genlog's model, priced as claude-opus-5"
} > "$PRICES"
# usage_run BIN [OPTIONS]: a fresh mount's first read of usage.json (and,
# with TXT=1, of usage.txt after it), in seconds on stdout.
usage_run() {
	local bin=$1 t0 t1 t2
	shift
	mkdir -p "$MNT"
	"$bin" -f "$@" "$PJ" "$MNT" 2>"$DIR/pj.err" &
	PID=$!
	for _ in $(seq 1 600); do mountpoint -q "$MNT" && break; sleep 0.1; done
	t0=$(now); cat "$MNT/usage.json" > /dev/null; t1=$(now)
	[ "${TXT:-0}" = 1 ] && cat "$MNT/usage.txt" > /dev/null
	t2=$(now)
	if [ "${TXT:-0}" = 1 ]; then
		echo "$(echo "$t1 - $t0" | bc -l) $(echo "$t2 - $t1" | bc -l)"
	else
		echo "$(echo "$t1 - $t0" | bc -l)"
	fi
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
}
news= txts= bases=
for i in $(seq 1 "$USAGES"); do
	r=$(TXT=1 usage_run build/sessfs -o prices="$PRICES")
	news="$news ${r%% *}"
	txts="$txts ${r##* }"
	[ -n "${BENCH_BASE:-}" ] && bases="$bases $(usage_run "$BENCH_BASE")"
done
first=$(median $news)
printf '  usage.json (every session'"'"'s tokens and dollars): first read %.2f s (%.0f MB/s; runs%s)%s, usage.txt after it %.3f s (runs%s)\n' \
	"$first" "$(echo "$(du -sm "$PJ/" | cut -f1) / $first" | bc -l)" "$news" \
	"$(against "$first" "$(ccusage_time daily "$PJ")" "ccusage daily")" "$(median $txts)" "$txts"
if [ -n "$bases" ]; then
	base=$(median $bases)
	printf '  ... without pricing (%s): first read %.2f s (runs%s): priced %+.1f%%\n' \
		"$BENCH_BASE" "$base" "$bases" "$(echo "($first - $base) * 100 / $base" | bc -l)"
fi
mkdir -p "$MNT"
build/sessfs -f -o prices="$PRICES" "$PJ" "$MNT" 2>"$DIR/pj.err" &
PID=$!
for _ in $(seq 1 600); do mountpoint -q "$MNT" && break; sleep 0.1; done
cat "$MNT/usage.json" > /dev/null
sleep 1.1
t0=$(now); cat "$MNT/usage.json" > /dev/null; t1=$(now)
printf '  usage.json after a rescan %.3f s\n' "$(echo "$t1 - $t0" | bc -l)"
fusermount3 -u "$MNT"
wait "$PID"
PID=

# The same figures on real material, when the corpus is there: a folder of
# N sessions made of its real Claude Code 2.1.x logs (tests/bench/realdir.py:
# its main logs of at most 160 KB, every uuid and id made unique; built
# under BENCH_DIR, never in the project), exec to the first ls sessions/
# against a single mount of one of those logs; then what a mount nobody
# reads costs: the daemon's CPU (all its threads, schedstat) over
# BENCH_PJ_IDLE (60) s once a glob over sessions/*/branches/current/ opened
# every session and 20 s passed (the open logs are signed and checked in
# the background meanwhile), following the folder with inotify, and with
# the look once a second it falls back to (SESSFS_NO_INOTIFY=1).
CORPUS=${SESSFS_CORPUS:-../shared/corpus}
REAL=$DIR/real-$N
IDLE=${BENCH_PJ_IDLE:-60}
if [ ! -d "$CORPUS" ]; then
	echo "  real logs: skipped (no corpus at $CORPUS)"
	exit 0
fi
if [ ! -f "$REAL/.done" ]; then
	rm -rf "$REAL"
	python3 tests/bench/realdir.py "$CORPUS" "$REAL" "$N" > "$DIR/realdir.out" || exit 1
	touch "$REAL/.done"
fi
ONE=$(ls "$REAL"/-home-user-src-app0/*.jsonl | head -n 1)
cat "$REAL"/*/*.jsonl > /dev/null
echo
echo "== projects folder of real logs: $N sessions in $NP projects, $(du -sm "$REAL/" | cut -f1) MB ($(sed 's/.*: //' "$DIR/realdir.out" 2>/dev/null))"
single=$(ready branches "$ONE") || exit 1
folder=$(ready sessions "$REAL") || exit 1
printf '  ready (exec to first ls): folder sessions/ %.3f s, single log branches/ %.3f s: %sx; %.1f us per session\n' \
	"$folder" "$single" "$(ratio "$folder" "$single")" "$(echo "$folder * 1000000 / $N" | bc -l)"
floor_line "$REAL" "$folder" "$single"
# usage.json of the real folder on a fresh mount, against ccusage over it
mkdir -p "$MNT"
build/sessfs -f "$REAL" "$MNT" 2>"$DIR/pj.err" &
PID=$!
for _ in $(seq 1 600); do mountpoint -q "$MNT" && break; sleep 0.1; done
t0=$(now); cat "$MNT/usage.json" > /dev/null; t1=$(now)
fusermount3 -u "$MNT"
wait "$PID"
PID=
first=$(echo "$t1 - $t0" | bc -l)
printf '  usage.json, first read: %.2f s%s\n' "$first" \
	"$(against "$first" "$(ccusage_time daily "$REAL")" "ccusage daily")"
# cpu_ns PID: the CPU time of all of PID's threads so far, in ns.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }
idle_cpu() {
	local a b
	mkdir -p "$MNT"
	build/sessfs -f "$REAL" "$MNT" 2>"$DIR/pj.err" &
	PID=$!
	for _ in $(seq 1 600); do mountpoint -q "$MNT" && break; sleep 0.1; done
	echo "$MNT"/sessions/*/branches/current/ > /dev/null
	sleep 20
	a=$(cpu_ns "$PID")
	sleep "$IDLE"
	b=$(cpu_ns "$PID")
	fusermount3 -u "$MNT"
	wait "$PID"
	PID=
	echo "$(( (b - a) / 1000000 ))"
}
with=$(idle_cpu)
without=$(SESSFS_NO_INOTIFY=1 idle_cpu)
# under a millisecond counts as one: "at least Nx less"
printf '  idle, every session open: %s ms of CPU in %s s with inotify (%.3f s per 10 min), %s ms with the look once a second (%.2f s per 10 min): %s%sx less\n' \
	"$with" "$IDLE" "$(echo "$with * 600 / $IDLE / 1000" | bc -l)" "$without" \
	"$(echo "$without * 600 / $IDLE / 1000" | bc -l)" "$([ "$with" -gt 0 ] || echo 'at least ')" \
	"$(ratio "$without" "$(( with > 0 ? with : 1 ))")"
