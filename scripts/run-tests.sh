#!/bin/bash
# Runs the test runners side by side, TEST_JOBS at a time (one more than
# the cores, at least 2), and prints the closing line "tests: N passed, M
# failed, K skipped" (CI reads it).
#   scripts/run-tests.sh [--full] BUILD_DIR:LABEL...
# A runner is one unit test binary, the layers check of core/
# (scripts/check-layers.py), one corpus check, one mount test
# (every tests/mount/test_*.sh, picked up by name), or the fuzz smoke (the
# asan label, when clang is there), for each build given. --full (make
# test-full) runs only the mount tests that have a full part (a line
# "# full: ..." in their head), with SESSFS_FULL=1: every file of every log.
#
# Each runner gets a time limit, its own TMPDIR (a folder under
# /tmp/sessfs-tests.XXXXXX, so mount tests run side by side never share a
# mountpoint, and nothing is mounted inside the repository), and its own
# log, build/test-logs/<label>-<name>.log. A line says how each ended and
# how long it took; a failure prints its FAIL lines and the log's tail; a
# timeout says so and shows what was running then. The times are kept in
# build/test-times*.txt: the next run starts the longest runners first.
# A runner that checked nothing (a mount test without the corpus) exits
# 77 and counts as skipped, with the reasons of its log's "skipped: "
# lines; one that passed and skipped a part says which in its line. The
# corpus is SESSFS_CORPUS (../shared/corpus by default); under CI=true a
# skip for want of it is a failure. A sanitizer's report (ASan, LSan,
# UBSan) from any process a runner started fails the runner and is shown.
# TESTS=REGEX runs only the runners whose "LABEL NAME" matches, e.g.
# TESTS='plain (unit|test_cli)' scripts/run-tests.sh build:plain
set -u
full=0
[ "${1:-}" = --full ] && { full=1; shift; }
# One more than the cores: a runner waits about a third of its time (on
# the mount's watcher, FUSE round trips, sleeps between polls), measured
# as the CPU the runners used against their wall time.
jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 2) + 1))}
[ "$jobs" -ge 2 ] || jobs=2
corpus=${SESSFS_CORPUS:-../shared/corpus}
logdir=build/test-logs
times=build/test-times.txt
[ "$full" = 1 ] && times=build/test-times-full.txt
# Time limits in seconds (each can be set from the environment).
UNIT_LIMIT=${UNIT_LIMIT:-300}
CORPUS_LIMIT=${CORPUS_LIMIT:-300}
MOUNT_LIMIT=${MOUNT_LIMIT:-600}
[ "$full" = 1 ] && MOUNT_LIMIT=${FULL_LIMIT:-2400}
FUZZ_LIMIT=${FUZZ_LIMIT:-600}
KILL_GRACE=10

mkdir -p "$logdir"
[ -f "$times" ] || : > "$times"
tmproot=$(mktemp -d /tmp/sessfs-tests.XXXXXX) || exit 1
chmod 755 "$tmproot"	# tests that run a command as another user go through it
# The sanitizers' reports go to files of their own (log_path; one per
# process, report.PID), on /dev/shm when it is there: a report is never
# lost to a full disk or to what a process did with its stderr, and one
# from any process a runner started fails the runner, its exit status
# aside. lib.sh shows a daemon's own (SESSFS_SANLOG.PID).
sanroot=$(mktemp -d /dev/shm/sessfs-san.XXXXXX 2>/dev/null) || sanroot=$tmproot/san

# The runners: parallel arrays, one entry each.
keys=() labels=() builds=() limits=() cmds=()
passed=0 failed=0 skipped=() nskipped=0
SKIP_EXIT=77

add() {	# add LABEL BUILD NAME LIMIT COMMAND
	[ -n "${TESTS:-}" ] && ! echo "$1 $3" | grep -Eq -- "$TESTS" && return
	keys+=("$1 $3") labels+=("$1") builds+=("$2") limits+=("$4") cmds+=("$5")
}

not_run() {	# not_run LABEL NAME WHY: a runner skipped before it started
	[ -n "${TESTS:-}" ] && ! echo "$1 $2" | grep -Eq -- "$TESTS" && return
	skipped+=("$1 $2: $3")
}

for spec in "$@"; do
	build=${spec%%:*} label=${spec#*:}
	if [ "$full" = 0 ]; then
		for t in "$build"/tests/test_*; do
			[ -x "$t" ] && add "$label" "$build" "unit/${t##*/}" $UNIT_LIMIT "$t"
		done
		# core/'s layers: includes and calls run downward, no circle (the
		# sources' rule: once, on the first build's objects)
		[ "$spec" = "$1" ] &&
			add "$label" "$build" layers $UNIT_LIMIT "python3 scripts/check-layers.py $build"
		# the mutation smoke's list still applies to the code (make
		# test-full runs the smoke itself)
		[ "$spec" = "$1" ] &&
			add "$label" "$build" mutations_list $UNIT_LIMIT "bash scripts/mutate.sh -c"
		if [ -d "$corpus" ]; then
			add "$label" "$build" corpus_check $CORPUS_LIMIT \
				"$build/tests/corpus_check $build/sessfs $corpus"
			add "$label" "$build" context_check $CORPUS_LIMIT "$build/tests/context_check $corpus"
		elif [ "${CI:-}" = true ]; then
			echo "corpus: $corpus is missing, and CI=true requires it"
			failed=$((failed + 1))
		else
			not_run "$label" corpus_check "no corpus at $corpus"
			not_run "$label" context_check "no corpus at $corpus"
		fi
	fi
	for t in tests/mount/test_*.sh; do
		[ -f "$t" ] || continue
		[ "$full" = 1 ] && ! grep -q '^# full:' "$t" && continue
		add "$label" "$build" "${t##*/}" $MOUNT_LIMIT "bash $t"
	done
	if [ "$full" = 0 ] && [ "$label" = asan ]; then
		if command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
			add "$label" "$build" fuzz_smoke $FUZZ_LIMIT "sh scripts/fuzz.sh smoke"
		else
			not_run "$label" fuzz_smoke "${FUZZ_CC:-clang} not found"
		fi
	fi
done

# The order: longest first, by the times of the last run, so the short
# ones fill in at the end. A runner not timed yet (a clean clone, as CI
# runs) is guessed by its kind: the fuzz smoke and the mount tests (ASan's
# first) before the corpus checks, the unit tests last.
order=()
while read -r _ i; do
	order+=("$i")
done < <(for i in "${!keys[@]}"; do printf '%s\t%s\n' "$i" "${keys[$i]}"; done |
	awk -F'\t' 'FILENAME == ARGV[1] { t[$1] = $2; next }
		function guess(k) {
			if (k ~ / fuzz_smoke$/) return 60
			if (k ~ /\.sh$/) return k ~ /^asan / ? 40 : 30
			if (k ~ / (corpus|context)_check$|layers$/) return 15
			if (k ~ / mutations_list$/) return 2
			return 1
		}
		{ print ($2 in t ? int(t[$2]) : guess($2)), $1 }' "$times" - 2>/dev/null |
	sort -s -k1,1nr)

# start I: runs runner I in a session of its own (setsid: its pid leads
# the session, so a timeout can list and end all it started). The wrapper
# writes "EXIT END START USER SYS" (user and system CPU of what it
# waited for, as bash times says them) to its .rc file when the runner ends.
pids=() starts=() rcfiles=() logs=() tmps=()
start() {
	local i=$1 build=${builds[$1]} log rcf tmp san
	log=${keys[$i]// /-}
	log="$logdir/${log//\//-}.log"
	rcf="$tmproot/$i.rc"
	tmp="$tmproot/$i"
	rm -f "$rcf"
	san="$sanroot/$i"
	rm -rf "$san"
	mkdir -p "$tmp" "$san"
	logs[$i]=$log rcfiles[$i]=$rcf tmps[$i]=$tmp
	SESSFS="$build/sessfs" SESSFS_BUILD="$build" SESSFS_CORPUS="$corpus" \
	SESSFS_FULL=$full TMPDIR="$tmp" SESSFS_SANLOG="$san/report" \
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86:log_path=$san/report" \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$san/report" \
	setsid bash -c 'f=$2 s=$EPOCHREALTIME; eval "$1"; rc=$?; e=$EPOCHREALTIME
		times > "$f.cpu"
		{ read -r _; read -r u y; } < "$f.cpu"
		echo "$rc $e $s $u $y" > "$f.tmp" && mv "$f.tmp" "$f"' \
		runner "${cmds[$i]}" "$rcf" > "$log" 2>&1 < /dev/null &
	pids[$i]=$!
	starts[$i]=$EPOCHREALTIME
}

secs() {	# secs M:SS or NmS.Ss (bash times): seconds
	local m=${1%%m*} s=${1#*m}
	awk -v m="$m" -v s="${s%s}" 'BEGIN { printf "%.1f", m * 60 + s }'
}

# The FAIL lines of a runner's log and its last lines.
show_failure() {
	local log=$1
	grep -a '^FAIL' "$log" | head -20 | sed 's/^/    /'
	echo "    --- last lines of $log:"
	tail -n 15 "$log" | sed 's/^/    /'
}

# Whatever a runner left mounted under its TMPDIR (after a timeout).
unmount_left() {
	local m
	findmnt -rn -o TARGET 2>/dev/null | grep -F "$1/" | sort -r | while read -r m; do
		fusermount3 -u -z "$m" 2>/dev/null
	done
}

record() {	# record I RESULT SECONDS CPU
	local i=$1
	printf '%s\t%s\n' "${keys[$i]}" "$3" >> "$tmproot/times"
	printf '%-8s %7s s  cpu %7s s  %s\n' "$2" "$3" "$4" "${keys[$i]}" >> "$tmproot/table"
}

# The reasons a runner's log gives for what it skipped ("skipped: "
# lines, of lib.sh's skip and the unit tests), joined by "; ".
skip_reasons() {
	grep -a '^skipped: ' "$1" | sed 's/^skipped: //' | sort -u |
		awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }'
}

# sanitizer_reports I: the sanitizers' reports of runner I's processes
# (report.PID), added to its log, a FAIL line before each; 0 when there
# was one.
sanitizer_reports() {
	local f found=1
	for f in "$sanroot/$1"/report.*; do
		[ -f "$f" ] || continue
		{ echo "FAIL a sanitizer's report, process ${f##*.}:"; cat "$f"; } >> "${logs[$1]}"
		found=0
	done
	rm -rf "${sanroot:?}/$1"
	return $found
}

# show_reports I: the first lines of the reports sanitizer_reports added
# to runner I's log.
show_reports() {
	grep -a -A 40 "^FAIL a sanitizer's report" "${logs[$1]}" | head -n 80 | sed 's/^/    /'
}

# finished I: the runner's wrapper wrote its .rc file; count and report.
finished() {
	local i=$1 rc e s u y took cpu why
	wait "${pids[$i]}" 2>/dev/null
	read -r rc e s u y < "${rcfiles[$i]}"
	# a report fails the runner, whatever its status
	sanitizer_reports "$i" && { [ "$rc" -eq 0 ] || [ "$rc" -eq "$SKIP_EXIT" ]; } && rc=1
	took=$(awk -v e="$e" -v s="$s" 'BEGIN { printf "%.1f", e - s }')
	cpu=$(awk -v u="$(secs "$u")" -v y="$(secs "$y")" 'BEGIN { printf "%.1f", u + y }')
	why=$(skip_reasons "${logs[$i]}")
	if [ "$rc" -eq "$SKIP_EXIT" ] && [ "${CI:-}" = true ] && echo "$why" | grep -q corpus; then
		echo "    (CI=true: a skip for want of the corpus is a failure)"
		rc=1
	fi
	if [ "$rc" -eq "$SKIP_EXIT" ]; then
		nskipped=$((nskipped + 1))
		printf 'skipped %7s s  %s: %s\n' "$took" "${keys[$i]}" "${why:-no reason given}"
		record "$i" skipped "$took" "$cpu"
	elif [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf 'ok      %7s s  %s%s\n' "$took" "${keys[$i]}" "${why:+ (part skipped: $why)}"
		# the corpus checks' counts: per release, and in all
		grep -a -E '^(corpus|context): ' "${logs[$i]}" | sed 's/^/        /'
		record "$i" ok "$took" "$cpu"
	else
		failed=$((failed + 1))
		printf 'FAILED (%s): %s, exit %s, after %s s\n' "${labels[$i]}" "${keys[$i]#* }" "$rc" "$took"
		show_failure "${logs[$i]}"
		show_reports "$i"
		record "$i" FAILED "$took" "$cpu"
	fi
	rm -rf "${tmps[$i]}"
}

# timed_out I: past its limit; say what was running, end it all.
timed_out() {
	local i=$1 pid=${pids[$1]} n
	failed=$((failed + 1))
	printf 'TIMEOUT (%s): %s still running after %s s, its limit. Running then:\n' \
		"${labels[$i]}" "${keys[$i]#* }" "${limits[$i]}"
	ps -s "$pid" -o pid=,etimes=,args= 2>/dev/null | cut -c1-200 | sed 's/^/    /'
	show_failure "${logs[$i]}"
	kill -TERM -- -"$pid" 2>/dev/null
	for n in $(seq 1 $((KILL_GRACE * 5))); do
		kill -0 -- -"$pid" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL -- -"$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	unmount_left "${tmps[$i]}"
	sanitizer_reports "$i" && show_reports "$i"
	record "$i" TIMEOUT "${limits[$i]}" "-"
	rm -rf "${tmps[$i]}"
}

elapsed() {	# elapsed I: whole seconds since runner I started
	awk -v n="$EPOCHREALTIME" -v s="${starts[$1]}" 'BEGIN { printf "%d", n - s }'
}

# interrupted: INT or TERM (^C, a timeout around make test, mutate.sh
# ended): every runner still running is ended as a timeout's is, and
# what it left mounted unmounted.
interrupted() {
	local i n
	trap '' INT TERM
	echo "tests: interrupted; ending the runners still running"
	for i in "${running[@]+"${running[@]}"}"; do
		kill -TERM -- -"${pids[$i]}" 2>/dev/null
	done
	for i in "${running[@]+"${running[@]}"}"; do
		for n in $(seq 1 $((KILL_GRACE * 5))); do
			kill -0 -- -"${pids[$i]}" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL -- -"${pids[$i]}" 2>/dev/null
		unmount_left "${tmps[$i]}"
	done
	rm -rf "$tmproot" "$sanroot"
	exit 130
}
running=()
trap interrupted INT TERM

t0=$EPOCHREALTIME
echo "tests: ${#keys[@]} runners, $jobs at a time; logs in $logdir/"
for s in "${skipped[@]+"${skipped[@]}"}"; do
	echo "skipped: $s"
done
: > "$tmproot/times"
: > "$tmproot/table"
running=()
next=0
while [ "$next" -lt "${#order[@]}" ] || [ "${#running[@]}" -gt 0 ]; do
	while [ "${#running[@]}" -lt "$jobs" ] && [ "$next" -lt "${#order[@]}" ]; do
		start "${order[$next]}"
		running+=("${order[$next]}")
		next=$((next + 1))
	done
	sleep 0.2
	still=()
	for i in "${running[@]}"; do
		if [ -f "${rcfiles[$i]}" ]; then
			finished "$i"
		elif [ "$(elapsed "$i")" -ge "${limits[$i]}" ]; then
			timed_out "$i"
		elif ! kill -0 -- "${pids[$i]}" 2>/dev/null && [ ! -f "${rcfiles[$i]}" ]; then
			failed=$((failed + 1))
			echo "FAILED (${labels[$i]}): ${keys[$i]#* } ended without a status (killed?)"
			show_failure "${logs[$i]}"
			record "$i" KILLED "$(elapsed "$i")" "-"
			unmount_left "${tmps[$i]}"
			rm -rf "${tmps[$i]}"
		else
			still+=("$i")
		fi
	done
	running=("${still[@]+"${still[@]}"}")
done
total=$(awk -v n="$EPOCHREALTIME" -v s="$t0" 'BEGIN { printf "%d", n - s }')

# The times file keeps the runners this run did not take (TESTS=).
awk -F'\t' '{ t[$1] = $2 } END { for (k in t) print k "\t" t[k] }' \
	"$times" "$tmproot/times" | sort > "$times.new" && mv "$times.new" "$times"
echo
echo "runner times (wall, and the CPU of the runner and what it waited for), longest first:"
sort -k2,2nr "$tmproot/table" | sed 's/^/  /'
echo "all runners: $total s wall, $jobs at a time"
rm -rf "$tmproot" "$sanroot"
echo "tests: $passed passed, $failed failed, $((nskipped + ${#skipped[@]})) skipped"
[ "$failed" -eq 0 ]
