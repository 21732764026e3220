# Helpers for the mount tests: mount with a bound, unmount on every path.
# Source it; then use mount_log / unmount_log / ok / bad / skip / finish.
# A test that checked nothing because what it needs is missing exits
# SKIP_EXIT (77), which scripts/run-tests.sh reports as skipped, with the
# reasons its "skipped: " lines give; one that checked something and
# skipped a part exits 0, and the runner's line names the part. Under
# CI=true a missing corpus is a failure, not a skip (need_corpus).
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
skipped=0
SKIP_EXIT=77
MOUNTS=""
DAEMONS=""		# daemons started and not waited for yet
declare -A MNT_PID	# the daemon of each mount mount_log made

ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
# skip WHAT (WHY): a part not checked, said and counted.
skip() { skipped=$((skipped + 1)); echo "skipped: $*"; }

cleanup() {
	for m in $MOUNTS; do
		# also when the daemon died: mountpoint fails on a dead mount
		fusermount3 -u -z "$m" 2>/dev/null
	done
	# Only daemons not waited for: a pid reaped may be another's now
	# (a test beside this one), and is never killed.
	for p in $DAEMONS; do
		kill "$p" 2>/dev/null
	done
	rm -rf "$T" $SCRATCH
}
# SCRATCH: folders of a test outside $T (on /dev/shm), removed with it.
SCRATCH=
# scratch_dir VAR: VAR names a new folder on /dev/shm (a tmpfs: what is
# written there costs no disk writes), else under $T; removed at exit.
scratch_dir() {
	local d
	d=$(mktemp -d /dev/shm/sessfs-mt.XXXXXX 2>/dev/null) || d=$(mktemp -d "$T/scratch.XXXXXX")
	SCRATCH="$SCRATCH $d"
	printf -v "$1" '%s' "$d"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- waiting: for a condition, with a deadline, never a fixed time ----

# now_us: the time, in microseconds.
now_us() { echo "${EPOCHREALTIME/./}"; }

# wait_until SECONDS CMD...: runs CMD until it succeeds (0) or SECONDS
# (a decimal) passed (1), every 100 ms; at least once.
wait_until() {
	local end
	end=$(($(now_us) + $(awk -v s="$1" 'BEGIN { printf "%d", s * 1000000 }')))
	shift
	while ! "$@"; do
		[ "$(now_us)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# watcher_task PID: /proc/PID/task/TID of the thread of daemon PID that
# looks at the logs (fs/notify.h: NT_THREAD_NAME), or nothing.
watcher_task() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = sessfs-notify ] && { echo "$t"; return; }
	done
}

# watcher_rchar PID: the bytes that thread has read so far (its rchar),
# or nothing when it cannot be told.
watcher_rchar() {
	local t
	t=$(watcher_task "$1")
	[ -n "$t" ] && awk '/^rchar:/ { print $2 }' "$t/io" 2>/dev/null
}

# watcher_wakes PID: how many times that thread went to sleep and woke
# (voluntary context switches: once per look at the log, once per look
# at agents/ a request asked for), or nothing.
watcher_wakes() {
	local t
	t=$(watcher_task "$1")
	[ -n "$t" ] && awk '/^voluntary_ctxt_switches:/ { print $2 }' "$t/status" 2>/dev/null
}

# watcher_read PID BYTES: that thread has read BYTES or more. Of a single
# log without agents it reads nothing but the log: its first look signs
# what was indexed (indexed_bytes, in one read), and a look after the
# log's size or times changed reads the signed bytes again (the check of
# the signature).
watcher_read() {
	local r
	r=$(watcher_rchar "$1")
	[ -n "$r" ] && [ "$r" -ge "$2" ]
}

# indexed_bytes LOG: the bytes of LOG up to its last newline (a torn last
# line waits for its newline).
indexed_bytes() {
	local n
	n=$(stat -c %s "$1")
	[ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' ')" = 0a ] || n=$((n - $(tail -n 1 "$1" | wc -c)))
	echo "$n"
}

# signed PID LOG: wait (20 s at most) until daemon PID's watcher signed
# LOG's indexed bytes; 1 if it did not.
signed() {
	wait_until 20 watcher_read "$1" "$(indexed_bytes "$2")"
}

# watcher_quiet PID: that thread read nothing for the last 1.5 s (more
# than a look's period, LV_POLL_MS): whatever it had to sign and check
# (every open session of a projects folder) it has. Call watcher_quiet_reset
# first; use it through wait_until.
watcher_quiet_reset() { _wq_last="" _wq_since=0; }
watcher_quiet() {
	local r now
	r=$(watcher_rchar "$1")
	now=$(now_us)
	[ -n "$r" ] || return 1
	if [ "$r" != "$_wq_last" ]; then
		_wq_last=$r _wq_since=$now
		return 1
	fi
	[ $((now - _wq_since)) -ge 1500000 ]
}

# settled PID: wait (30 s at most) until watcher_quiet; 1 if it is not.
settled() {
	watcher_quiet_reset
	wait_until 30 watcher_quiet "$1"
}

# mount_log LOG MNT [options]: starts sessfs in the foreground, waits for
# the mount. Sets PID. Returns non-zero if it did not come up in time.
mount_log() {
	local log=$1 mnt=$2
	shift 2
	mkdir -p "$mnt"
	"$SESSFS" -f "$@" "$log" "$mnt" 2>"$mnt.err" &
	PID=$!
	DAEMONS="$DAEMONS $PID"
	MNT_PID[$mnt]=$PID
	MOUNTS="$MOUNTS $mnt"
	wait_until "$MOUNT_WAIT" mounted_or_dead "$mnt" "$PID" && mountpoint -q "$mnt"
}

# mounted_or_dead MNT PID: MNT is mounted, or daemon PID ended.
mounted_or_dead() { mountpoint -q "$1" || ! kill -0 "$2" 2>/dev/null; }

# mount_or_end LOG MNT [options]: mount_log, or the failure counted, the
# tally printed and the test ended (the trap unmounts what is left).
mount_or_end() {
	mount_log "$@" && return 0
	bad "mount: $(cat "$2.err")"
	finish
	exit 1
}

# reaped MNT PID: daemon PID of MNT was waited for: never to be killed.
reaped() {
	local p rest=""
	for p in $DAEMONS; do [ "$p" = "$2" ] || rest="$rest $p"; done
	DAEMONS=$rest
	unset "MNT_PID[$1]"
}

# unmount_log MNT: unmounts, waits for MNT's daemon (bounded; the one
# mount_log started for MNT, else $PID), checks it exited 0 and printed
# nothing on stderr; a daemon found dead is reported with its status.
unmount_log() {
	local mnt=$1 rc pid=${MNT_PID[$1]:-$PID}
	if ! fusermount3 -u "$mnt"; then
		bad "unmount $mnt"
		kill -0 "$pid" 2>/dev/null && return 1
		wait "$pid"
		rc=$?
		bad "... its daemon had ended: status $rc, stderr: $(head -c 2000 "$mnt.err")$(daemon_report "$pid")"
		reaped "$mnt" "$pid"
		return 1
	fi
	wait_until 10 gone "$pid"
	wait "$pid"
	rc=$?
	reaped "$mnt" "$pid"
	# The request counts SESSFS_STATS asks for are no complaint.
	if [ "$rc" -eq 0 ] && ! grep -qv '^sessfs: requests: ' "$mnt.err"; then
		ok "daemon exited 0, quietly ($(basename "$mnt"))"
	else
		bad "daemon exit $rc, stderr: $(head -c 2000 "$mnt.err")$(daemon_report "$pid")"
	fi
}

# daemon_report PID: the sanitizers' report of daemon PID, when the
# runner gave them a file of their own (SESSFS_SANLOG), and the free space
# where its stderr was written: what a failed exit with a silent stderr
# can be told by.
daemon_report() {
	local f=${SESSFS_SANLOG:-}.$1
	[ -n "${SESSFS_SANLOG:-}" ] && [ -s "$f" ] && printf '\n    its sanitizer report:\n%s' "$(head -c 3000 "$f")"
	printf '\n    free space: %s' "$(df -h --output=avail "$T" /dev/shm 2>/dev/null | tail -n +2 | tr -s ' \n' ' ')"
}

# finish: the tally; the test's status: 1 when a check failed, SKIP_EXIT
# when nothing was checked and something skipped, else 0.
finish() {
	echo "$(basename "$0" .sh): $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] || return 1
	[ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ] && return "$SKIP_EXIT"
	return 0
}

# run_parts "$@": with arguments, runs only the parts they name (each a
# function of the test; a part may hold its arguments, split at spaces),
# then ends the test with its tally; without, returns: the test runs all.
run_parts() {
	[ $# -gt 0 ] || return 0
	for part in "$@"; do $part; done
	finish
	exit
}

# corpus_logs: every log of the corpus (main logs and stages) that holds
# something: the empty <id>.jsonl that 2.0.x leaves beside a log it resumes
# is no session (corpus_check checks what --check says of them).
corpus_logs() {
	local f
	for f in "$CORPUS"/*/projects/*/*.jsonl "$CORPUS"/*/stage*/session.jsonl; do
		[ -s "$f" ] && echo "$f"
	done
}

# light WHOLE LIGHTER: the first, or the second under LIGHT=1.
light() { if [ "$LIGHT" = 1 ]; then echo "$2"; else echo "$1"; fi; }

# light_logs: the lines of stdin, or every other one under LIGHT=1 (the
# first, the third, ...).
light_logs() { if [ "$LIGHT" = 1 ]; then awk 'NR % 2 == 1'; else cat; fi; }

# half_logs: for the heaviest walks, one half of the lines of stdin under
# each build of make test (ASan the first, the third, ...; the plain build
# the others), so that make test takes each log once; all of them under
# make test-full.
half_logs() {
	if [ "$FULL" = 1 ]; then cat
	elif [ "$LIGHT" = 1 ]; then awk 'NR % 2 == 1'
	else awk 'NR % 2 == 0'
	fi
}

# quarter_logs: for the heaviest of all (each log grown while read, each
# log exported three ways), a quarter of the lines of stdin under each
# build of make test (ASan the 1st, 5th, ...; the plain build the 3rd,
# 7th, ...): every other log in one make test; all of them, under each
# build, in make test-full.
quarter_logs() {
	if [ "$FULL" = 1 ]; then cat
	elif [ "$LIGHT" = 1 ]; then awk 'NR % 4 == 1'
	else awk 'NR % 4 == 3'
	fi
}

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

# holds FILE TEXT: FILE can be read and holds TEXT (and a newline or not).
holds() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

# more_than N CMD...: CMD prints more than N lines.
more_than() {
	local n=$1
	shift
	[ "$("$@" 2>/dev/null | wc -l)" -gt "$n" ]
}

# gone PID: process PID ended.
gone() { ! kill -0 "$1" 2>/dev/null; }

# wait_for CMD...: up to 3 s for CMD to succeed (an invalidation is sent
# by a thread of its own, just after the request that noticed the change;
# a rewrite in place is noticed by the watcher, within about a second).
wait_for() { wait_until 3 "$@"; }

# sums MNT LIST: a line per name of LIST: its bytes' sum, or why not
# (file-history.json aside: it names the log's folder).
sums() {
	( cd "$1" && xargs -d '\n' sha256sum < "$2" 2>&1 |
		grep -v ' state/file-history.json$' | LC_ALL=C sort )
}

# names_agree LIVE FRESH LIST: every name of LIST reads the same in both
# mounts, or is in neither.
names_agree() {
	sums "$1" "$3" > "$3.live"
	sums "$2" "$3" > "$3.fresh"
	cmp -s "$3.live" "$3.fresh"
}

# look_up MNT LIST: up to 400 names of every kind (message files, records,
# context rows, state; an inline sidechain's under agents/ too) written to
# LIST, each looked up, read, stat'ed and its attributes read (the kernel
# keeps the names for a day).
look_up() {
	( cd "$1" && { find branches/main/ branches/current/ records context state -type f
	  find agents/*/branches/ agents/*/records -type f; } 2>/dev/null | head -400 ) > "$2"
	( cd "$1" && xargs -d '\n' cat < "$2" > /dev/null
	  xargs -d '\n' stat < "$2" > /dev/null
	  xargs -d '\n' getfattr -d < "$2" > /dev/null 2>&1 )
	echo branches/main >> "$2"
}

# same_main A B: branches/main lists the same in the mounts A and B.
same_main() {
	cmp -s <(ls "$1/branches/main" 2>&1) <(ls "$2/branches/main" 2>&1)
}

# change_case WHAT HOW OLD NEW: mounts a copy of OLD, looks up and reads
# names of every kind (look_up), changes the copy HOW into NEW's bytes:
#   truncate  cut to nothing and written again (O_TRUNC), at its inode;
#   replace   another file renamed over it;
#   recreate  deleted, then written again;
#   inplace   NEW (of OLD's size) written over it, its mtime kept: only the
#             watcher's signature of the indexed bytes tells (live.h);
#   rewrite   NEW (of OLD's size) written over it, with a new mtime (an
#             editor saving in place);
#   rewrite-grow  NEW (OLD's size with early bytes changed, then more)
#             written over it at once: growth, as far as a stat and the
#             bytes before the old end tell; the watcher's background
#             check of the signed bytes finds it (ss_scrub());
# then branches/main lists as a fresh mount of NEW does (at once, but for
# inplace and rewrite-grow), every name looked up before (those of the
# inline sidechains under agents/ too) reads as in that mount, and
# errors.txt says the log was indexed again.
change_case() {
	local what=$1 how=$2 new=$4 dir="$T/change-$1" m
	mkdir -p "$dir"
	m="$dir/m"
	cp "$3" "$dir/s.jsonl"
	mount_log "$dir/s.jsonl" "$m" || { bad "$what: mount: $(cat "$m.err")"; return; }
	ls "$m/branches/main" > /dev/null
	look_up "$m" "$dir/names"
	case $how in
	truncate) cat "$new" > "$dir/s.jsonl" ;;
	replace) cp "$new" "$dir/new.jsonl"; mv "$dir/new.jsonl" "$dir/s.jsonl" ;;
	recreate) rm "$dir/s.jsonl"; cp "$new" "$dir/s.jsonl" ;;
	inplace|rewrite)
		[ "$(stat -c %s "$new")" = "$(stat -c %s "$3")" ] || bad "$what: not the same size"
		touch -r "$dir/s.jsonl" "$dir/times"
		dd if="$new" of="$dir/s.jsonl" conv=notrunc status=none
		if [ "$how" = inplace ]; then
			touch -r "$dir/times" "$dir/s.jsonl"
		else
			touch -d '+1 minute' "$dir/s.jsonl"
		fi ;;
	rewrite-grow)
		[ "$(stat -c %s "$new")" -gt "$(stat -c %s "$3")" ] || bad "$what: not longer"
		signed "$PID" "$dir/s.jsonl" || bad "$what: the watcher did not sign the log"
		dd if="$new" of="$dir/s.jsonl" bs=64M conv=notrunc status=none ;;
	esac
	ls "$m/branches/main" > "$dir/ls" 2> "$dir/ls.err" || [ "$how" = inplace ] ||
		[ "$how" = rewrite-grow ] ||
		bad "$what: ls branches/main right after the change: $(cat "$dir/ls.err")"
	mount_log "$new" "$dir/fresh" || { bad "$what: fresh mount"; unmount_log "$m"; return; }
	if [ "$how" = inplace ] || [ "$how" = rewrite-grow ]; then
		wait_for same_main "$m" "$dir/fresh" && ok "$what: branches/main lists the new log's files, unasked"
	else
		cmp -s "$dir/ls" <(ls "$dir/fresh/branches/main") &&
			ok "$what: branches/main lists the new log's files at once"
	fi ||
		bad "$what: branches/main lists the old log's files"
	wait_for names_agree "$m" "$dir/fresh" "$dir/names" &&
		ok "$what: $(wc -l < "$dir/names") names looked up before read as the new log's" ||
		bad "$what: names looked up before still read the old log: $(
			diff "$dir/names.live" "$dir/names.fresh" | head -6)"
	grep -q 'indexed again from scratch' "$m/errors.txt" &&
		ok "$what: errors.txt says the log was indexed again" ||
		bad "$what: errors.txt: $(cat "$m/errors.txt")"
	unmount_log "$dir/fresh"
	unmount_log "$m"
}

# no_stacking LOG MNT WHAT: a second sessfs over MNT, mounted by $PID, is
# refused (exit 1, nothing stacked); then over it dead (the daemon killed):
# refused, saying to run fusermount3 -u, which clears it. Ends the mount.
no_stacking() {
	local log=$1 mnt=$2 what=$3 err rc
	err=$(timeout 20 "$SESSFS" "$log" "$mnt" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 1 ] && echo "$err" | grep -q "already mounted" &&
	[ "$(findmnt -n "$mnt" | wc -l)" -eq 1 ] &&
		ok "$what: a second mount over the live one: exit 1, nothing stacked" ||
		bad "$what: a second mount over a live one: exit $rc, $err; $(findmnt -n "$mnt" | wc -l) mounts"
	kill -KILL "$PID"
	wait "$PID" 2>/dev/null
	reaped "$mnt" "$PID"
	err=$(timeout 20 "$SESSFS" "$log" "$mnt" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 1 ] && echo "$err" | grep -q "dead mount.*fusermount3 -u" &&
		ok "$what: a second mount over the dead one: exit 1, says fusermount3 -u" ||
		bad "$what: a second mount over a dead one: exit $rc, $err"
	fusermount3 -u -z "$mnt" && ! mountpoint -q "$mnt" && [ -z "$(findmnt -n "$mnt")" ] ||
		bad "$what: fusermount3 -u left $(findmnt -n "$mnt")"
}

# need_corpus: the rest of the test needs the corpus. Without it, the
# test ends here: a failure under CI=true, else the rest skipped (and the
# whole test, when it checked nothing before).
need_corpus() {
	if [ -d "$CORPUS" ]; then return 0; fi
	if [ "${CI:-}" = true ]; then
		bad "corpus $CORPUS missing (CI=true requires it)"
		finish
		exit 1
	fi
	skip "the checks over the corpus (no corpus at $CORPUS, see SESSFS_CORPUS)"
	finish
	exit
}
