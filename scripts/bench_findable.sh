#!/bin/bash
# The "findable" part of the benchmark (run by scripts/bench.sh, or on its
# own after a make): what a search of a projects mount costs and returns.
# For each folder (the corpus's projects folders in one; BENCH_FIND_REAL
# sessions made of the corpus's real logs by tests/bench/realdir.py; the
# generated folder of scripts/bench_projects.sh when it is there), prints:
#   - grep -rl WORD from the mount's root, cold (a fresh mount, the page
#     cache dropped where we may) and warm (the same mount again), against
#     the same command over a tmpfs copy of the tree (`sessfs export`);
#   - the same over sessions/*/branches/current/ and sessions/*/branches/;
#   - the files each returned, against the messages of the logs that hold
#     WORD (user and assistant records), how many of them a view returned
#     twice (a record met twice in branches/ or context/ of one session),
#     and how many were harness files (harness/ or a kind harness.h lists).
# Figures, not pass/fail: the machine is shared.
set -u
cd "$(dirname "$0")/.."
DIR=${BENCH_DIR:-/tmp/sessfs-bench}
# The word searched: one the corpus's prompts hold, and one that the
# corpus's 2.1.x logs copied into the folder of real logs hold (the
# "plain" session's second prompt, in one session of eight there).
WORD=${BENCH_FIND_WORD:-due date}
REAL_WORD=${BENCH_FIND_REAL_WORD:-Python version}
REAL=${BENCH_FIND_REAL:-2000}
REALDIR=${BENCH_REALDIR:-tests/bench/realdir.py}
CORPUS=${SESSFS_CORPUS:-../shared/corpus}
MNT=$DIR/findmnt
SHM=$(mktemp -d /dev/shm/sessfs-findbench.XXXXXX) || exit 1
PID=
cleanup() {
	fusermount3 -u -z "$MNT" 2>/dev/null
	rm -rf "$SHM"
}
trap cleanup EXIT
mkdir -p "$DIR" "$MNT"

source scripts/bench_lib.sh	# now, ratio
drop() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || :; }
mount_it() {
	fusermount3 -u -z "$MNT" 2>/dev/null
	./sessfs "$1" "$MNT" -o cache_size=256M || exit 1
	ls "$MNT/sessions" > /dev/null
}
# timed OUT CMD...: runs CMD with stdout to OUT, prints its seconds
timed() {
	local out=$1 t0 t1
	shift
	t0=$(now)
	"$@" > "$out" 2>/dev/null
	t1=$(now)
	printf '%.2f' "$(echo "$t1 - $t0" | bc -l)"
}

# The messages of the logs under $1 that hold WORD.
messages() {
	find "$1" -name '*.jsonl' -print0 | xargs -0 grep -hF -- "$WORD" 2>/dev/null |
		python3 -c '
import json, sys
n = 0
for l in sys.stdin:
    try:
        n += json.loads(l).get("type") in ("user", "assistant")
    except ValueError:
        pass
print(n)'
}

# What a list of paths (relative to a root) holds: files, records met
# twice in one view of one session, harness files.
HARNESS_RE='(^|/)harness/|-(attachment-(environment|model|date|session_context|remote_session_change|prompt_snapshot|deferred_tools_delta|agent_listing_delta|skill_listing|auto_mode|plan_mode|plan_mode_exit|plan_mode_reentry|todo_reminder|critical_system_reminder|mcp_instructions_delta|output_style|token_usage|budget_usd|compaction_reminder|companion_intro|context_tip|nested_memory|already_read_file|edited_text_file|compact_file_reference|invoked_skills|task_reminder|plugin_note|fork_briefing|read_truncation_notice|diagnostics|opened_file_in_ide|selected_lines_in_ide|echo_activities|pen_mode_enter|pen_mode_exit|verify_plan_reminder|fold_nudge)|system-[a-z_]+)\.md$'
tally() {	# LIST ROOT
	local files twice harness
	files=$(wc -l < "$1")
	harness=$(grep -cE -- "$HARNESS_RE" "$1")
	# a message file's first line is "uuid: <uuid>"; its view is the
	# folder of the session it is in: branches/*, context
	twice=$(grep -E '/(branches/[^/]+|context)/[0-9]{6}-[^/]*\.md$' "$1" | while read -r f; do
		u=$(head -1 "$2/$f" 2>/dev/null | sed -n 's/^uuid: //p')
		v=$(echo "$f" | sed -E 's#/branches/[^/]+/[^/]*$#/branches#; s#/context/[^/]*$#/context#')
		echo "$v $u"
	done | sort | uniq -d | wc -l)
	echo "$files files, $twice met twice in one view, $harness harness"
}

# bench NAME FOLDER [WORD]
bench() {
	local name=$1 pj=$2 n cold warm tmp out msgs WORD=${3:-$WORD}
	msgs=$(messages "$pj")
	n=$(find "$pj" -name '*.jsonl' | wc -l)
	echo "== $name: $n logs, $(du -sh "$pj" | cut -f1), $msgs messages hold '$WORD'"
	rm -rf "$SHM/x"
	./sessfs export "$pj" "$SHM/x" > /dev/null 2>&1 ||
		{ echo "  export failed"; return; }
	echo "  tree: $(find "$SHM/x" | wc -l) entries, $(find "$SHM/x" -type f | wc -l) files," \
		"$(find "$SHM/x" -type l | wc -l) links"
	for where in . 'sessions/*/branches/current/' 'sessions/*/branches/'; do
		drop
		mount_it "$pj"
		cold=$(cd "$MNT" && eval "timed $SHM/cold.out grep -rlF -- \"\$WORD\" $where")
		warm=$(cd "$MNT" && eval "timed $SHM/warm.out grep -rlF -- \"\$WORD\" $where")
		tmp=$(cd "$SHM/x" && eval "timed $SHM/tmp.out grep -rlF -- \"\$WORD\" $where")
		sed -i 's#^\./##' "$SHM/cold.out" "$SHM/tmp.out"
		out=$(tally "$SHM/cold.out" "$MNT")
		printf '  grep -rl %-30s cold %6s s, warm %6s s, tmpfs copy %6s s: cold/tmpfs %sx, warm/tmpfs %sx; %s (tmpfs: %s files)\n' \
			"$where" "$cold" "$warm" "$tmp" "$(ratio "$cold" "$tmp")" \
			"$(ratio "$warm" "$tmp")" "$out" "$(wc -l < "$SHM/tmp.out")"
	done
	fusermount3 -u "$MNT"
}

C=$DIR/findable-corpus
if [ -d "$CORPUS" ]; then
	rm -rf "$C"
	mkdir -p "$C"
	for d in "$CORPUS"/*/projects; do cp -r "$d/." "$C/"; done
	bench "the corpus's projects folders" "$C"
	R=$DIR/findable-real-$REAL
	if [ -f "$REALDIR" ] && [ "$REAL" -gt 0 ]; then
		[ -f "$R/.done" ] || { rm -rf "$R" && python3 "$REALDIR" "$CORPUS" "$R" "$REAL" > /dev/null &&
			touch "$R/.done"; } || exit 1
		bench "$REAL sessions of real logs" "$R" "$REAL_WORD"
	else
		echo "(the folder of real logs is skipped: BENCH_FIND_REAL=$REAL, $REALDIR)"
	fi
else
	echo "(no corpus at $CORPUS: its folders are skipped)"
fi
G=$(ls -d "$DIR"/projects-*/ 2>/dev/null | head -1)
[ -n "$G" ] && bench "the generated folder (bench_projects.sh)" "${G%/}"
exit 0
