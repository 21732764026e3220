#!/bin/bash
# sessfs export of a large log (the bench's generator, tests/bench/genlog/),
# as a tar stream and into a folder: the export's peak RSS stays within a
# constant (BOUND_MB) over what the log's index and replay take (the peak
# of sessfs --check of the same log), however long the transcripts of its
# branches are (they are streamed, never held whole), and the stream is a
# well-formed archive that GNU tar lists. Each run is bounded in time by
# timeout(1); no figure of speed is checked (make bench prints those).
# No mount, no corpus.
. "$(dirname "$0")/lib.sh"
BOUND_MB=64
SIZE=$(light 50M 30M)
# The log and the folder export on a tmpfs when there is one (tens of
# thousands of small files with their attributes: a disk's journal makes
# that the slow part, not the export).
scratch_dir X
# ASan keeps freed memory for a while (its quarantine, 256 MB by default):
# kept small here, as for both runs compared.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
command -v python3 > /dev/null || { skip "python3 (it reads the peak RSS)"; finish; exit $?; }

# peak_kb OUT CMD...: runs CMD with stdout into OUT ("tar": piped into
# tar -t, whose listing goes to $T/list) and prints CMD's own peak RSS in
# KB (getrusage of that process alone), then its exit status and tar's.
peak_kb() {
	python3 - "$@" <<'PY'
import os, subprocess, sys
out, cmd = sys.argv[1], sys.argv[2:]
if out == "tar":
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    lst = open(os.environ["T"] + "/list", "wb")
    q = subprocess.Popen(["tar", "-t"], stdin=p.stdout, stdout=lst)
    p.stdout.close()
else:
    p = subprocess.Popen(cmd, stdout=open(out, "wb"))
    q = None
_, status, ru = os.wait4(p.pid, 0)
rc = os.waitstatus_to_exitcode(status)
print(ru.ru_maxrss, rc, q.wait() if q else 0)
PY
}
export T

gen=$T/genlog log=$X/big.jsonl
cc -O2 -std=c11 -D_FILE_OFFSET_BITS=64 -o "$gen" tests/bench/genlog/*.c || { bad "build genlog"; finish; exit 1; }
"$gen" "$SIZE" "$log" 2>/dev/null || { bad "genlog $SIZE"; finish; exit 1; }

read -r base rc _ < <(peak_kb /dev/null timeout 300 "$SESSFS" --check "$log")
[ "$rc" = 0 ] || bad "--check of the $SIZE log: exit $rc"
bound=$((base + BOUND_MB * 1024))

read -r tarkb rc tarrc < <(peak_kb tar timeout 600 "$SESSFS" export -q "$log" -)
entries=$(wc -l < "$T/list")
if [ "$rc" != 0 ] || [ "$tarrc" != 0 ]; then
	bad "export $SIZE log as a tar stream: exit $rc, tar -t exit $tarrc"
elif [ "$entries" -lt 1000 ] || ! grep -q '^\./transcripts/current\.md$' "$T/list"; then
	bad "tar stream of the $SIZE log: $entries entries, transcripts/current.md: $(grep -c transcripts/ "$T/list")"
else
	ok "tar stream of the $SIZE log: GNU tar lists its $entries entries"
fi
if [ "$tarkb" -le "$bound" ]; then
	ok "tar stream: peak RSS $((tarkb / 1024)) MB <= --check's $((base / 1024)) MB + $BOUND_MB MB"
else
	bad "tar stream: peak RSS $((tarkb / 1024)) MB > --check's $((base / 1024)) MB + $BOUND_MB MB"
fi

out=$X/out
read -r dirkb rc _ < <(peak_kb /dev/null timeout 600 "$SESSFS" export -q "$log" "$out")
# the longest transcript (a fork's starts where it leaves main)
cur=$( (stat -c %s "$out"/transcripts/*.md 2>/dev/null || echo 0) | sort -n | tail -1)
if [ "$rc" = 0 ] && [ "$cur" -gt $((1 << 20)) ]; then
	ok "export into a folder: its longest transcript is $((cur >> 20)) MB"
else
	bad "export into a folder: exit $rc, the longest transcript $cur bytes"
fi
if [ "$dirkb" -le "$bound" ]; then
	ok "export into a folder: peak RSS $((dirkb / 1024)) MB <= --check's $((base / 1024)) MB + $BOUND_MB MB"
else
	bad "export into a folder: peak RSS $((dirkb / 1024)) MB > --check's $((base / 1024)) MB + $BOUND_MB MB"
fi
rm -rf "$out" "$log"
finish
