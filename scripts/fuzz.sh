#!/bin/sh
# The fuzz targets (tests/fuzz/fuzz_*.c): libFuzzer, clang, ASan + UBSan.
#   scripts/fuzz.sh run     build, then fuzz each target for FUZZ_SECONDS (60)
#   scripts/fuzz.sh smoke   build, run every seed once, then fuzz each target
#                           for FUZZ_SMOKE_SECONDS (10) from the seeds alone:
#                           the check of make test
#   scripts/fuzz.sh cov     source coverage of the corpus (llvm-cov report)
#   scripts/fuzz.sh merge   cut each corpus down to what keeps its coverage
# FUZZ_TARGETS="fuzz_session ..." runs only those.
# Under build/fuzz/: <target>/corpus (what the fuzzer found, kept between
# runs), <target>/seeds (made afresh each run), <target>/artifacts (crashes,
# leaks, timeouts), <target>/run.log, smoke.log. Seeds: mnt-examples/*.jsonl,
# tests/fuzz/seeds/*.jsonl (small logs written for the fuzzer: state, file
# history, compaction, agents, a long path), and the first and last lines
# of each log of the test corpus (../shared/corpus, or SESSFS_CORPUS) when
# it is there (but in fuzz_fs's smoke). Nothing under build/fuzz/ is
# committed.
# Exit status: 0 when nothing was found, 1 when a target failed.
set -u
mode=${1:-run}
root=build/fuzz
corpus_src=${SESSFS_CORPUS:-../shared/corpus}
seconds=${FUZZ_SECONDS:-60}
[ "$mode" = smoke ] && seconds=${FUZZ_SMOKE_SECONDS:-10}
LLVM=${LLVM:-/usr/lib/llvm-14/bin}
CLANG=${FUZZ_CC:-clang}
MAX_LEN=${FUZZ_MAX_LEN:-65536}
LINE_MAX=4096		# longer lines are left out of the cut-down seeds
HEAD_LINES=40
TAIL_LINES=30

if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "fuzz: $CLANG not found; fuzzing skipped"
	exit 0
fi

# seeds DIR TARGET: the bundled examples, and cut-down logs of the corpus;
# for fuzz_agents, Agent results (its input is a toolUseResult) too.
seeds() {
	rm -rf "$1" && mkdir -p "$1" || return 1
	if [ "$2" = fuzz_agents ]; then
		printf '%s' '{"status":"completed","agentId":"a56002e4baaeb4861","totalTokens":10}' > "$1/done"
		printf '%s' '{"isAsync":true,"status":"async_launched","agentId":"ae2d31bc","description":"x"}' > "$1/async"
		printf '%s' '{"agentId":"/../../etc/x"}' > "$1/path"
		printf '%s' '{"agentId":"a\u0000b\ud800\n"}' > "$1/escapes"
		head -n 5 mnt-examples/demo.jsonl > "$1/log"
		return 0
	fi
	for f in mnt-examples/*.jsonl tests/fuzz/seeds/*.jsonl; do
		[ -f "$f" ] && cp "$f" "$1/"
	done
	# fuzz_fs runs many calls per input: its smoke takes the bundled logs
	[ "$2-$mode" = fuzz_fs-smoke ] && return 0
	if [ ! -d "$corpus_src" ]; then
		# under CI=true the corpus's seeds are required, as everywhere
		[ "${CI:-}" = true ] && { echo "fuzz: no corpus at $corpus_src (CI=true requires it)"; return 1; }
		echo "skipped: the corpus's seeds for $2 (no corpus at $corpus_src)"
		return 0
	fi
	find "$corpus_src" -name '*.jsonl' -type f | sort | while read -r f; do
		sum=$(cksum < "$f" | cut -d' ' -f1)
		[ -f "$1/head-$sum" ] && continue	# the same log in projects/
		head -n "$HEAD_LINES" "$f" | awk -v m="$LINE_MAX" 'length($0) <= m' > "$1/head-$sum"
		tail -n "$TAIL_LINES" "$f" | awk -v m="$LINE_MAX" 'length($0) <= m' > "$1/tail-$sum"
	done
}

# fuzz BIN NAME: run one target; 0 when it found nothing. The smoke test
# starts from the seeds alone (an empty corpus of its own, a fixed seed):
# the kept corpus can take longer to load than the smoke runs.
fuzz() {
	dir=$root/$2
	corpus=$dir/corpus
	opts=
	if [ "$mode" = smoke ]; then
		corpus=$dir/smoke-corpus
		opts=-seed=1
		rm -rf "$corpus"
	fi
	log=$dir/$mode.log
	tmp=$dir/$mode.tmp	# the targets' folders (removed at exit, not on a crash)
	rm -rf "$tmp"
	mkdir -p "$corpus" "$dir/artifacts" "$tmp" || return 1
	seeds "$dir/seeds" "$2" || return 1
	echo "== fuzz: $2, ${seconds}s (log: $log)"
	TMPDIR=$tmp ASAN_OPTIONS="detect_leaks=1" \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	nice -n 19 "$1" -dict=tests/fuzz/sessfs.dict -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=2048 \
		-max_total_time="$seconds" -print_final_stats=1 $opts \
		-artifact_prefix="$dir/artifacts/" "$corpus" "$dir/seeds" \
		> "$log" 2>&1
	rc=$?
	rm -rf "$tmp"
	[ "$mode" = smoke ] && rm -rf "$corpus"
	grep -aE '^#[0-9]+ +DONE|^stat::number_of_executed_units|^Done [0-9]+ runs' "$log" | tail -2
	if [ $rc -ne 0 ]; then
		echo "fuzz: $2 failed (exit $rc); see $log and $dir/artifacts/"
		grep -aE 'ERROR|runtime error|check failed|SUMMARY' "$log" | head -5
		return 1
	fi
}

# cov: a coverage build run over each corpus, then llvm-cov's report.
cov() {
	make --no-print-directory fuzz-cov-build FUZZ_CC="$CLANG" >/dev/null || return 1
	for bin in "$root"/cov/fuzz_*; do
		name=$(basename "$bin")
		dir=$root/$name
		[ -d "$dir/corpus" ] || { echo "== $name: no corpus yet (make fuzz)"; continue; }
		mkdir -p "$dir/cov.tmp"
		TMPDIR=$dir/cov.tmp LLVM_PROFILE_FILE="$dir/cov.profraw" \
			"$bin" -runs=0 "$dir/corpus" "$dir/seeds" > "$dir/cov.log" 2>&1
		"$LLVM/llvm-profdata" merge -o "$dir/cov.profdata" "$dir/cov.profraw" || return 1
		echo "== coverage of core/ by $name over $dir/corpus"
		"$LLVM/llvm-cov" report "$bin" -instr-profile="$dir/cov.profdata" core/*/*.c
		rm -rf "$dir/cov.tmp"
	done
}

# merge: each corpus cut down to the inputs that keep its coverage.
merge() {
	make --no-print-directory fuzz-build FUZZ_CC="$CLANG" >/dev/null || return 1
	for bin in "$root"/obj/fuzz_*; do
		dir=$root/$(basename "$bin")
		[ -d "$dir/corpus" ] || continue
		rm -rf "$dir/corpus.new" "$dir/merge.tmp"
		mkdir -p "$dir/corpus.new" "$dir/merge.tmp"
		TMPDIR=$dir/merge.tmp nice -n 19 "$bin" -merge=1 -max_len="$MAX_LEN" \
			"$dir/corpus.new" "$dir/corpus" > "$dir/merge.log" 2>&1 || return 1
		rm -rf "$dir/corpus" "$dir/merge.tmp"
		mv "$dir/corpus.new" "$dir/corpus"
		echo "== $(basename "$bin"): $(ls "$dir/corpus" | wc -l) inputs kept"
	done
}

case $mode in
run|smoke) ;;
cov) cov; exit $? ;;
merge) merge; exit $? ;;
*) echo "usage: $0 run|smoke|cov|merge" >&2; exit 2 ;;
esac
make --no-print-directory fuzz-build FUZZ_CC="$CLANG" >/dev/null || exit 1
failed=0
for bin in "$root"/obj/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	case " ${FUZZ_TARGETS:-$name} " in *" $name "*) ;; *) continue ;; esac
	if [ "$mode" = smoke ]; then
		# every seed once, so a seed that breaks is named as such
		seeds "$root/$name/seeds" "$name" && mkdir -p "$root/$name/smoke.tmp" &&
		TMPDIR=$root/$name/smoke.tmp "$bin" -runs=0 "$root/$name/seeds" > "$root/$name/seeds.log" 2>&1 ||
			{ echo "fuzz: $name fails on a seed; see $root/$name/seeds.log"; failed=1; continue; }
	fi
	fuzz "$bin" "$name" || failed=1
done
exit $failed
