# Helpers for the mount tests: mount with a bound, unmount on every path.
# Source it; then use mount_log / unmount_log / ok / bad / finish.
# Every path a test writes or mounts is under $T, a fresh folder under
# TMPDIR (/tmp by default; the runner gives each test its own), so tests
# run side by side share nothing.
set -u
SESSFS=${SESSFS:-build/sessfs}
CORPUS=${SESSFS_CORPUS:-../shared/corpus}
BUILD=${SESSFS_BUILD:-build}
FULL=${SESSFS_FULL:-0}			# 1 under make test-full: walk every file
MOUNT_WAIT=${MOUNT_WAIT:-20}		# seconds to wait for a mount
# Under ASan, make test takes the heaviest parts lighter (LIGHT=1): fewer
# growth steps, smaller hostile inputs, every other corpus log where a
# test exports or walks them all. The plain build runs them whole, and
# make test-full (FULL=1) runs them whole under ASan too.
LIGHT=0
case $SESSFS in *asan*) [ "$FULL" = 1 ] || LIGHT=1 ;; esac
# Files a walk takes of one tree under make test (150 under LIGHT).
SAMPLE=${SESSFS_SAMPLE:-$([ "$LIGHT" = 1 ] && echo 150 || echo 400)}
T=$(mktemp -d "${TMPDIR:-/tmp}/sessfs-mt.XXXXXX")
passed=0
failed=0
MOUNTS=""
DAEMONS=""

ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }

cleanup() {
	for m in $MOUNTS; do
		# also when the daemon died: mountpoint fails on a dead mount
		fusermount3 -u -z "$m" 2>/dev/null
	done
	for p in $DAEMONS; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# mount_log LOG MNT [options]: starts sessfs in the foreground, waits for
# the mount. Sets PID. Returns non-zero if it did not come up in time.
mount_log() {
	local log=$1 mnt=$2 i
	shift 2
	mkdir -p "$mnt"
	"$SESSFS" -f "$@" "$log" "$mnt" 2>"$mnt.err" &
	PID=$!
	DAEMONS="$DAEMONS $PID"
	MOUNTS="$MOUNTS $mnt"
	for i in $(seq 1 $((MOUNT_WAIT * 10))); do
		mountpoint -q "$mnt" && return 0
		kill -0 "$PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# mount_or_end LOG MNT [options]: mount_log, or the failure counted, the
# tally printed and the test ended (the trap unmounts what is left).
mount_or_end() {
	mount_log "$@" && return 0
	bad "mount: $(cat "$2.err")"
	finish
	exit 1
}

# unmount_log MNT: unmounts, waits for the daemon (bounded), checks it
# exited 0 and printed nothing on stderr.
unmount_log() {
	local mnt=$1 rc i
	fusermount3 -u "$mnt" || { bad "unmount $mnt"; return 1; }
	for i in $(seq 1 100); do
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$PID"
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$mnt.err" ]; then
		ok "daemon exited 0, quietly ($(basename "$mnt"))"
	else
		bad "daemon exit $rc, stderr: $(head -c 2000 "$mnt.err")"
	fi
}

finish() {
	echo "$(basename "$0" .sh): $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# corpus_logs: every log of the corpus (main logs and stages).
corpus_logs() {
	ls "$CORPUS"/*/projects/*/*.jsonl "$CORPUS"/*/stage*/session.jsonl 2>/dev/null
}

# light WHOLE LIGHTER: the first, or the second under LIGHT=1.
light() { if [ "$LIGHT" = 1 ]; then echo "$2"; else echo "$1"; fi; }

# light_logs: the lines of stdin, or every other one under LIGHT=1 (the
# first, the third, ...).
light_logs() { if [ "$LIGHT" = 1 ]; then awk 'NR % 2 == 1'; else cat; fi; }

# files_of DIR: the regular files under DIR, NUL-separated, sorted: all
# of them under make test-full (FULL=1) or when there are at most
# $SAMPLE; else every k-th, about $SAMPLE spread over the whole tree.
files_of() {
	local -a all
	local i k=1
	mapfile -d '' all < <(find "$1" -type f -print0 | LC_ALL=C sort -z)
	if [ "$FULL" != 1 ] && [ "${#all[@]}" -gt "$SAMPLE" ]; then
		k=$(((${#all[@]} + SAMPLE - 1) / SAMPLE))
	fi
	for ((i = 0; i < ${#all[@]}; i += k)); do
		printf '%s\0' "${all[i]}"
	done
}

# check_sizes DIR: stat's size is the bytes a read gives, for every file
# under DIR that files_of takes (one process: build/tests/sizes).
check_sizes() {
	local out
	out=$(files_of "$1" | timeout 120 "$BUILD/tests/sizes")
	if [ $? -eq 0 ]; then
		ok "stat size = bytes read under $(basename "$1")/ (${out##*sizes: })"
	else
		bad "sizes under $1:"
		echo "$out" | head -20
	fi
}

need_corpus() {
	if [ -d "$CORPUS" ]; then return 0; fi
	if [ "${CI:-}" = true ]; then
		bad "corpus $CORPUS missing (CI=true requires it)"
		finish
		exit 1
	fi
	echo "corpus $CORPUS not found: skipped"
	finish
	exit 0
}
