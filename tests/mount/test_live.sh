#!/bin/bash
# Live logs: the mount follows a log while it is written.
#   - every corpus log (and the demo) is written into a mounted empty file
#     in chunks of random size, lines split across writes, while the mount
#     is read between the writes; once it stops growing, the mount shows
#     the same tree as a fresh mount of the final log, byte for byte;
#   - a log that shrinks, is rewritten in place (also when it grows at
#     once), or is replaced by another file at its path is indexed again:
#     the tree is the new log's, and errors.txt says what happened;
#   - what the kernel keeps for long is invalidated when it does change:
#     a record replaced by a later duplicate, rows that move in a branch;
#   - names looked up before the log is rewritten in place (its mtime
#     kept; or followed at once by growth), truncated, replaced or deleted
#     and written again read as the new log's after it, and errors.txt
#     says so;
#   - a second sessfs over the mount of a growing log, and over it dead,
#     is refused;
#   - eight readers at once while the log grows: no error, no deadlock.
# full: each corpus log grows in ~120 writes (the big one in ~40), the
# demo in ~40, the 1.0.x example in ~20, and the eight readers read while
# a log grows in ~60. make test: ~6 writes a corpus log, ~15 the demo,
# ~10 the 1.0.x example, ~15 for the readers (under ASan ~3, ~10, ~6 and
# ~8), and each build a quarter of the corpus logs (quarter_logs): every
# other log grows in one make test, lines split across writes, fewer
# states read in between.
. "$(dirname "$0")/lib.sh"

RANDOM=7	# the same chunks every run

# snapshot MNT OUT: every path with its type, size and link target, every
# file's bytes and every extended attribute: what two trees must share.
snapshot() {
	(
		cd "$1" || exit 1
		find . -printf '%y %s %p -> %l\n' | LC_ALL=C sort
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
		getfattr -R -d -m - --absolute-names . 2>/dev/null
	) > "$2"
}

# poke MNT: reads what a user reads while the log grows, so the kernel and
# sessfs keep something of every intermediate state.
poke() {
	local m=$1
	cat "$m/session.json" "$m/errors.txt" "$m/README.md" "$m/context/messages.json" \
		"$m/context/window.md" > /dev/null 2>&1
	ls -lR "$m/branches" "$m/context" > /dev/null 2>&1
	cat "$m"/branches/current/* > /dev/null 2>&1
	[ -d "$m/state" ] && find "$m/state" -type f -exec cat {} + > /dev/null 2>&1
	return 0
}

# grow SRC DST MNT CHUNKS: appends SRC to DST in about CHUNKS writes of
# random size (at least one byte), poking MNT after each; the last byte
# (a last line's newline) comes alone, after its line was read.
grow() {
	local src=$1 dst=$2 mnt=$3 size off=0 n max
	size=$(stat -c %s "$src")
	max=$((size * 2 / $4 + 1))
	while [ "$off" -lt "$size" ]; do
		n=$((RANDOM * 32768 + RANDOM))
		n=$((n % max + 1))
		[ $((off + n)) -ge "$size" ] && [ $((size - off)) -gt 1 ] && n=$((size - off - 1))
		dd if="$src" of="$dst" bs=1M skip="$off" count="$n" iflag=skip_bytes,count_bytes \
			oflag=append conv=notrunc status=none
		off=$((off + n))
		poke "$mnt"
	done
}

# same_tree A B WHAT: the snapshots of two mounts agree.
same_tree() {
	snapshot "$1" "$T/a.snap"
	snapshot "$2" "$T/b.snap"
	if cmp -s "$T/a.snap" "$T/b.snap"; then
		ok "$3: same tree as a fresh mount ($(grep -c '^[dfl] ' "$T/a.snap") entries)"
	else
		bad "$3: the trees differ:"
		diff "$T/a.snap" "$T/b.snap" | head -20
	fi
}

# grow_log SRC NAME CHUNKS: mounts an empty file, grows it to SRC, compares.
grow_log() {
	local src=$1 name=$2 dir="$T/$2" live fresh sid
	mkdir -p "$dir"
	live="$dir/$(basename "$src")"
	sid=$(basename "$src" .jsonl)
	# The subagent logs are there from the start (agents/ is tested on
	# its own); the file-history folder is not, the same for both mounts.
	[ -d "$(dirname "$src")/$sid" ] && cp -r "$(dirname "$src")/$sid" "$dir/"
	: > "$live"
	mount_log "$live" "$dir/live" || { bad "$name: mount of an empty log: $(cat "$dir/live.err")"; return; }
	grow "$src" "$live" "$dir/live" "$3"
	cmp -s "$src" "$live" || bad "$name: the copy differs from the log"
	mount_log "$live" "$dir/fresh" || { bad "$name: fresh mount"; unmount_log "$dir/live"; return; }
	same_tree "$dir/live" "$dir/fresh" "$name grown in ~$3 writes"
	unmount_log "$dir/fresh"
	unmount_log "$dir/live"
}

# grow_agents SRC NAME: grows SRC while its subagents' logs appear and
# grow beside it (the first when a third is written, the rest at two
# thirds), then compares at once with a fresh mount.
grow_agents() {
	local src=$1 name=$2 dir="$T/$2" live sid sub a n=0 half
	sid=$(basename "$src" .jsonl)
	sub="$(dirname "$src")/$sid/subagents"
	[ -d "$sub" ] || return 0
	mkdir -p "$dir/$sid/subagents"
	live="$dir/$(basename "$src")"
	: > "$live"
	mount_log "$live" "$dir/live" || { bad "$name: mount: $(cat "$dir/live.err")"; return; }
	half=$(($(stat -c %s "$src") / 3))
	head -c "$half" "$src" > "$T/part1"
	tail -c +"$((half + 1))" "$src" > "$T/rest"
	grow "$T/part1" "$live" "$dir/live" 20
	for a in "$sub"/agent-*; do
		case $a in
		*.jsonl) head -n 3 "$a" > "$dir/$sid/subagents/$(basename "$a")" ;;
		*) cp "$a" "$dir/$sid/subagents/" ;;
		esac
		n=$((n + 1))
		poke "$dir/live"
	done
	grow "$T/rest" "$live" "$dir/live" 20
	for a in "$sub"/agent-*.jsonl; do
		tail -n +4 "$a" >> "$dir/$sid/subagents/$(basename "$a")"
	done
	mount_log "$live" "$dir/fresh" || { bad "$name: fresh mount"; unmount_log "$dir/live"; return; }
	same_tree "$dir/live" "$dir/fresh" "$name, its $n agent files appearing while it grew"
	unmount_log "$dir/fresh"
	unmount_log "$dir/live"
}

# ---- shrink, rewrite, replace ----

# restart WHAT LOG NEW MNT WORD: after the log changed into NEW's bytes, the
# mount shows NEW's tree (errors.txt aside, which says WORD).
check_restart() {
	local what=$1 log=$2 mnt=$4 word=$5 fresh="$T/restart-fresh"
	ls "$mnt/branches" > /dev/null
	grep -q "$word" "$mnt/errors.txt" && ok "$what: errors.txt says the log $word" ||
		bad "$what: errors.txt lacks '$word': $(cat "$mnt/errors.txt")"
	mount_log "$3" "$fresh" || { bad "$what: fresh mount"; return; }
	snapshot "$mnt" "$T/a.snap"
	snapshot "$fresh" "$T/b.snap"
	# errors.txt differs by the note; session.json by the path it names.
	if diff <(grep -v 'errors.txt\|session.json\|README.md' "$T/a.snap") \
		<(grep -v 'errors.txt\|session.json\|README.md' "$T/b.snap") > "$T/restart.diff"; then
		ok "$what: the tree is the new log's"
	else
		bad "$what: trees differ"
		head -20 "$T/restart.diff"
	fi
	unmount_log "$fresh"
}

restarts() {
	local src=mnt-examples/demo.jsonl dir="$T/rs" log half other
	mkdir -p "$dir"
	log="$dir/s.jsonl"
	cp "$src" "$log"
	mount_log "$log" "$dir/m" || { bad "mount demo: $(cat "$dir/m.err")"; return; }
	poke "$dir/m"
	# Shrink: keep the first half of the lines.
	head -n 30 "$src" > "$dir/half.jsonl"
	cp "$dir/half.jsonl" "$dir/expect.jsonl"
	truncate -s "$(stat -c %s "$dir/half.jsonl")" "$log"
	check_restart shrink "$log" "$dir/expect.jsonl" "$dir/m" shrank
	poke "$dir/m"
	# Rewrite in place, longer than before: other bytes where it ended.
	{ tail -n 30 "$src"; head -n 30 "$src"; } > "$dir/other.jsonl"
	[ "$(stat -c %s "$dir/other.jsonl")" -gt "$(stat -c %s "$log")" ] || bad "rewrite: test log too short"
	dd if="$dir/other.jsonl" of="$log" conv=notrunc status=none
	check_restart rewrite "$log" "$dir/other.jsonl" "$dir/m" rewritten
	poke "$dir/m"
	# Replace: another file takes the path.
	head -n 45 "$src" > "$dir/new.jsonl"
	mv "$dir/new.jsonl" "$log"
	head -n 45 "$src" > "$dir/new-copy.jsonl"
	check_restart replace "$log" "$dir/new-copy.jsonl" "$dir/m" replaced
	# A path that holds a folder now: the old file is still shown.
	mv "$log" "$dir/moved.jsonl"
	mkdir "$log"
	ls "$dir/m/branches" > /dev/null
	grep -q 'a directory took the log' "$dir/m/errors.txt" && [ -d "$dir/m/branches/main" ] &&
		ok "a folder at the log's path: reported, the log as it was still shown" ||
		bad "a folder at the log's path: $(tail -2 "$dir/m/errors.txt")"
	rmdir "$log"
	unmount_log "$dir/m"
}

# ---- names looked up before a reindex, read after it ----

stale_names() {
	local b
	STALE_A=$(ls "$CORPUS"/fork/projects/*/*104.jsonl 2>/dev/null | head -1)
	b=$(ls "$CORPUS"/tools/projects/*/*.jsonl 2>/dev/null | head -1)
	if [ -z "$STALE_A" ] || [ -z "$b" ]; then	# the demo, and it turned around
		STALE_A=mnt-examples/demo.jsonl
		b="$T/turned.jsonl"
		{ tail -n 30 "$STALE_A"; head -n 30 "$STALE_A"; } > "$b"
	fi
	head -n 20 "$STALE_A" > "$T/first20.jsonl"
	sed '2s/e/E/g' "$STALE_A" > "$T/inplace.jsonl"	# the same size, other bytes
	{ cat "$T/inplace.jsonl"; tail -n 3 "$b"; } > "$T/grown.jsonl"	# and more
	change_case inplace inplace "$STALE_A" "$T/inplace.jsonl"
	change_case rewrite-grow rewrite-grow "$STALE_A" "$T/grown.jsonl"
	change_case truncate truncate "$STALE_A" "$T/first20.jsonl"
	change_case replace replace "$STALE_A" "$b"
	change_case recreate recreate "$STALE_A" "$b"
}

# A second sessfs over a mount of a log being written: refused; then over
# it dead (its daemon killed): refused, saying how to clear it.
stacked() {
	local dir="$T/stack"
	mkdir -p "$dir"
	head -n 10 mnt-examples/demo.jsonl > "$dir/s.jsonl"
	mount_log "$dir/s.jsonl" "$dir/m" || { bad "stacked: mount: $(cat "$dir/m.err")"; return; }
	ls "$dir/m/branches/main" > /dev/null
	tail -n +11 mnt-examples/demo.jsonl >> "$dir/s.jsonl"
	ls "$dir/m/branches/main" > /dev/null
	no_stacking "$dir/s.jsonl" "$dir/m" "a growing log"
}

# ---- a rewrite in place of the same size ----

# Rewritten in place with the same size and a new mtime (an editor saving
# over the file): noticed within a few seconds, without a request, and
# indexed again; only touched: nothing changes.
# demo_mount DIR LABEL: a copy of the demo at DIR/s.jsonl mounted at DIR/m;
# sets m and f (the first prompt's file) for the caller. 1 if it failed.
demo_mount() {
	mkdir -p "$1"
	m="$1/m"
	f="$m/branches/main/000001-user.md"
	cp mnt-examples/demo.jsonl "$1/s.jsonl"
	mount_log "$1/s.jsonl" "$m" || { bad "$2: mount: $(cat "$m.err")"; return 1; }
	grep -q 'What does this project do?' "$f" || bad "$2: the demo's first prompt: $(cat "$f")"
}

rewrite_in_place() {
	local dir="$T/inplace" m f ino r
	demo_mount "$dir" "in place" || return
	ino=$(stat -c %i "$f")
	signed "$PID" "$dir/s.jsonl" || bad "in place: the watcher did not sign the log"
	r=$(watcher_rchar "$PID")
	touch -d '+1 minute' "$dir/s.jsonl"
	# the watcher reads the touched log again, to compare its signature
	wait_until 20 watcher_read "$PID" $((r + $(indexed_bytes "$dir/s.jsonl"))) ||
		bad "in place: the watcher did not look at the touched log"
	[ "$(stat -c %i "$f")" = "$ino" ] && ! grep -q 'indexed again' "$m/errors.txt" &&
		ok "in place: a touch changes nothing (the signature says the bytes are the same)" ||
		bad "in place: a touch was taken for a rewrite: $(cat "$m/errors.txt")"
	sed '2s/What does this project do?/What does this program do?/' mnt-examples/demo.jsonl > "$dir/new.jsonl"
	[ "$(stat -c %s "$dir/new.jsonl")" = "$(stat -c %s "$dir/s.jsonl")" ] || bad "in place: not the same size"
	dd if="$dir/new.jsonl" of="$dir/s.jsonl" conv=notrunc status=none
	touch -d '+2 minutes' "$dir/s.jsonl"
	wait_for grep -q 'What does this program do?' "$f" &&
		ok "in place: a same-size rewrite of an early line shows, unasked" ||
		bad "in place: the rewrite does not show: $(cat "$f")"
	grep -q 'rewritten in place (the same size, other bytes)' "$m/errors.txt" &&
		ok "in place: errors.txt says the log was rewritten in place" ||
		bad "in place: errors.txt: $(cat "$m/errors.txt")"
	# once: the touch before was not taken for a rewrite later either
	[ "$(grep -c 'indexed again' "$m/errors.txt")" -eq 1 ] &&
		ok "in place: indexed again once, for the rewrite alone" ||
		bad "in place: indexed again more than once: $(cat "$m/errors.txt")"
	unmount_log "$m"
}

# Rewritten in place with the same size and appended to in one write, so
# that no look can come between: growth alone compares only the bytes
# before the old end, the watcher's background check of the signed bytes
# (ss_scrub(), a pass over a small log in one look) finds it within a few
# seconds, and the log is indexed again.
rewrite_then_grow() {
	local dir="$T/ingrow" m f
	demo_mount "$dir" "in place, grown" || return
	signed "$PID" "$dir/s.jsonl" || bad "in place, grown: the watcher did not sign the log"
	{ sed '2s/What does this project do?/What does this program do?/' mnt-examples/demo.jsonl
	  row 901 0 user '"appended after a rewrite"'; } > "$dir/new.jsonl"
	dd if="$dir/new.jsonl" of="$dir/s.jsonl" bs=1M conv=notrunc status=none
	ls "$m/branches" > /dev/null	# a request indexes the growth first
	wait_until 10 grep -q 'What does this program do?' "$f" 2>/dev/null
	grep -q 'What does this program do?' "$f" &&
		ok "in place, grown: a same-size rewrite followed by growth shows, unasked" ||
		bad "in place, grown: the rewrite does not show: $(cat "$f")"
	grep -q 'found by the background check' "$m/errors.txt" &&
		ok "in place, grown: errors.txt says the indexed bytes were rewritten" ||
		bad "in place, grown: errors.txt: $(cat "$m/errors.txt")"
	grep -rqs 'appended after a rewrite' "$m/branches" &&
		ok "in place, grown: the appended row shows" ||
		bad "in place, grown: the appended row does not show"
	unmount_log "$m"
}

# ---- what the kernel keeps for long ----

U() { printf '%08d-0000-4000-8000-%012d' "$1" "$1"; }

row() {	# row UUID PARENT TYPE CONTENT [MSGID]
	local p=null
	[ "$2" != 0 ] && p="\"$(U "$2")\""
	if [ "$3" = user ]; then
		printf '{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":%s},"uuid":"%s","timestamp":"2026-01-01T10:00:%02d.000Z","sessionId":"s1"}\n' \
			"$p" "$4" "$(U "$1")" "$1"
	else
		printf '{"parentUuid":%s,"isSidechain":false,"type":"assistant","message":{"id":"%s","role":"assistant","model":"m","content":%s},"uuid":"%s","timestamp":"2026-01-01T10:00:%02d.000Z","sessionId":"s1"}\n' \
			"$p" "$5" "$4" "$(U "$1")" "$1"
	fi
}

shows() { grep -q "$2" "$1" 2>/dev/null && [ "$(stat -c %s "$1")" = "$(wc -c < "$1")" ]; }
absent() { [ ! -e "$1" ]; }

invalidations() {
	local dir="$T/inv" log f
	mkdir -p "$dir"
	log="$dir/s.jsonl"
	{
		row 1 0 user '"first prompt"'
		row 2 1 assistant '[{"type":"text","text":"first answer"}]' m1
		row 3 2 user '"second prompt"'
		row 4 3 assistant '[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]' m2
		row 5 4 user '[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}]'
	} > "$log"
	mount_log "$log" "$dir/m" || { bad "mount: $(cat "$dir/m.err")"; return; }
	f="$dir/m/branches/main/000002-assistant.md"
	grep -q 'first answer' "$f" && [ -e "$dir/m/branches/main/000005-tool_result-Bash.md" ] ||
		bad "the crafted log does not read as expected: $(ls "$dir/m/branches/main")"
	# A later line with uuid 2: the last value wins, at the first place.
	row 2 1 assistant '[{"type":"text","text":"a much longer second answer, which replaces the first"}]' m1 >> "$log"
	ls "$dir/m/branches/main" > /dev/null
	wait_for shows "$f" 'replaces the first' &&
		ok "a record replaced by a later duplicate: its file shows the new bytes, exact size" ||
		bad "duplicate: $(cat "$f")"
	# A second tool_use row of response m2, written after the first's
	# result: the result moves from 5 to 6, and its old name goes.
	row 6 4 assistant '[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/a"}}]' m2 >> "$log"
	ls "$dir/m/branches/main" > /dev/null
	wait_for absent "$dir/m/branches/main/000005-tool_result-Bash.md" &&
		[ -e "$dir/m/branches/main/000005-tool_use-Read.md" ] &&
		[ -e "$dir/m/branches/main/000006-tool_result-Bash.md" ] &&
		ok "rows that moved in a branch: the old name is gone, the new names are there" ||
		bad "moved rows: $(ls "$dir/m/branches/main" | tr '\n' ' ')"
	mount_log "$log" "$dir/fresh" || { bad "fresh mount"; return; }
	same_tree "$dir/m" "$dir/fresh" "after the duplicate and the move"
	unmount_log "$dir/fresh"
	unmount_log "$dir/m"
}

# ---- eight readers while the log grows ----

# diff and tar exit 1 when the tree changed under them, which it does
# while the log grows: only what is worse is an error.
reader() {	# reader N MNT STOP ERR: one of eight kinds, until STOP exists
	local n=$1 m=$2 stop=$3 err=$4 f
	while [ ! -e "$stop" ]; do
		case $n in
		1) grep -r -c tool_result "$m/branches/" > /dev/null; [ $? -le 1 ] ;;
		2) find "$m/branches" "$m/records" "$m/agents" > /dev/null ;;
		3) for f in "$m"/records/*; do cat "$f"; done > /dev/null ;;
		4) diff -r "$m/branches/main" "$m/branches/current/" > /dev/null; [ $? -le 1 ] ;;
		5) cat "$m/session.json" "$m/errors.txt" "$m/README.md" "$m/context/messages.json" > /dev/null ;;
		6) ls -lR "$m/branches" > /dev/null ;;
		7) tar --warning=no-file-changed -cf - -C "$m" branches records > /dev/null; [ $? -le 1 ] ;;
		8) grep -r -l user "$m/branches/current/" > /dev/null; [ $? -le 1 ] ;;
		esac || echo "reader $n failed" >> "$err"
	done 2>> "$err"
}

parallel_readers() {
	local src dir="$T/par" log i pids="" stop
	src=$(ls "$CORPUS"/fork/projects/*/*104.jsonl 2>/dev/null | head -1)
	[ -n "$src" ] || src=mnt-examples/demo.jsonl
	mkdir -p "$dir"
	log="$dir/s.jsonl"
	stop="$dir/stop"
	head -c 20000 "$src" > "$log"
	mount_log "$log" "$dir/m" || { bad "mount: $(cat "$dir/m.err")"; return; }
	: > "$dir/err"
	for i in 1 2 3 4 5 6 7 8; do
		reader "$i" "$dir/m" "$stop" "$dir/err" &
		pids="$pids $!"
	done
	tail -c +20001 "$src" > "$dir/rest"
	grow "$dir/rest" "$log" "$dir/m" "$([ "$FULL" = 1 ] && echo 60 || light 15 8)"
	touch "$stop"
	for i in $pids; do
		timeout 120 tail --pid="$i" -f /dev/null || bad "reader $i did not finish (deadlock?)"
	done
	[ ! -s "$dir/err" ] && ok "8 readers while the log grew: no error, no deadlock" ||
		bad "readers: $(head -5 "$dir/err")"
	mount_log "$log" "$dir/fresh" || { bad "fresh mount"; return; }
	same_tree "$dir/m" "$dir/fresh" "after 8 readers"
	unmount_log "$dir/fresh"
	unmount_log "$dir/m"
}

# A mount at <log folder>/<log stem>, where the subagents' folder would
# be: looking for agents leads into the mount itself, and once hung it.
# lookup_while_looked MNT PID WAKES: looks up a new name in MNT (sets hung
# when it took 10 s); true once daemon PID's watcher woke WAKES times.
lookup_while_looked() {
	i=$((i + 1))
	timeout 10 stat "$1/no-such-file-$i" > /dev/null 2>&1
	[ $? -eq 124 ] && { hung=1; return 0; }
	[ "$(watcher_wakes "$2")" -ge "$3" ] 2>/dev/null
}

own_folder() {
	local dir="$T/own" i w0 hung
	mkdir -p "$dir"
	cp mnt-examples/demo.jsonl "$dir/s.jsonl"
	mount_log "$dir/s.jsonl" "$dir/s" || { bad "mount at the log's stem: $(cat "$dir/s.err")"; return; }
	# Lookups of a new name each time until the watcher has woken four
	# times (about two of its looks, at the log and at agents/, which the
	# lookups ask for): the kernel holds the root locked while it waits
	# for each answer.
	w0=$(watcher_wakes "$PID") i=0 hung=0
	[ -n "$w0" ] || bad "own folder: the watcher thread not found"
	wait_until 20 lookup_while_looked "$dir/s" "$PID" $((w0 + 4)) ||
		bad "own folder: the watcher did not wake 4 times in 20 s"
	[ "$hung" = 1 ] && bad "a lookup hung ($i)"
	timeout 10 ls "$dir/s/agents" > /dev/null && ok "a mount at <folder>/<log stem>: answers while agents/ is looked for" ||
		bad "a mount at <folder>/<log stem> hangs"
	unmount_log "$dir/s"
	# With one thread, a look into the mount would wait for the one
	# thread, which waits for the look (up to its 2 s bound).
	mount_log "$dir/s.jsonl" "$dir/s" -s || { bad "mount -s at the log's stem"; return; }
	timeout 1.5 ls "$dir/s/agents" > /dev/null && timeout 1.5 cat "$dir/s/README.md" > /dev/null &&
		ok "... and with -s (one thread): agents/ and README.md answer at once" ||
		bad "with -s, agents/ or README.md waited for a look into the mount itself"
	unmount_log "$dir/s"
}

# With arguments: only those parts (e.g. stale_names), for a quick run.
run_parts "$@"
own_folder
stale_names
stacked
rewrite_in_place
rewrite_then_grow
grow_log mnt-examples/demo.jsonl demo "$([ "$FULL" = 1 ] && echo 40 || light 15 10)"
grow_log mnt-examples/v1-sidechains.jsonl v1-sidechains "$([ "$FULL" = 1 ] && echo 20 || light 10 6)"	# agents/ follow the session
invalidations
restarts
if [ -d "$CORPUS" ]; then
	while IFS= read -r log; do
		name=$(echo "$log" | sed "s|$CORPUS/||; s|/projects/[^/]*/|-|; s|/|-|g; s|\.jsonl$||")
		case $FULL-$name in
		1-big-*) n=40 ;; 1-*) n=120 ;; *) n=$(light 6 3) ;;
		esac
		grow_log "$log" "$name" "$n"
	done < <(ls "$CORPUS"/*/projects/*/*.jsonl | quarter_logs)
	grow_agents "$(ls "$CORPUS"/subagent/projects/*/*.jsonl | head -1)" subagent-agents
	parallel_readers
else
	need_corpus
fi
finish
