# Helpers for the mount tests: mount with a bound, unmount on every path.
# Source it; then use mount_log / unmount_log / ok / bad / finish.
set -u
SESSFS=${SESSFS:-build/sessfs}
CORPUS=${SESSFS_CORPUS:-../shared/corpus}
MOUNT_WAIT=${MOUNT_WAIT:-20}		# seconds to wait for a mount
T=$(mktemp -d /tmp/sessfs-mt.XXXXXX)
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
