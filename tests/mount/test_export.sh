#!/bin/bash
# sessfs export: for every corpus log, one mount and one export into a
# folder, then diff -r, the same names, kinds, sizes, mtimes and link
# targets (find -printf), and the same extended attributes on a sample.
# The tar stream of each log, extracted by GNU tar, is the same tree too.
# A projects folder exports as its mount shows it too.
# Then the command itself: a DEST not empty is refused, --force writes
# into it without following what is in the way, bad usage, a DEST
# without extended attributes, no FUSE used.
# full: every corpus log under each build; make test takes a quarter
# under each (lib.sh's quarter_logs): every other log.
. "$(dirname "$0")/lib.sh"
need_corpus
# Exports go to a tmpfs when there is one (thousands of small files with
# their attributes: a disk's journal makes that the slow part).
X=$(mktemp -d /dev/shm/sessfs-ex.XXXXXX 2>/dev/null || mktemp -d "$T/ex.XXXXXX")
RAMFS=
trap 'rm -rf "$X"; [ -z "$RAMFS" ] || umount "$RAMFS"; cleanup' EXIT

# listing DIR: one line per entry (path, kind, size of files, mtime in
# ns, link target), sorted. Folder sizes and modes are the filesystem's.
listing() {
	(cd "$1" && find . -mindepth 1 -printf '%p %y %T@ %l\n' && find . -type f -printf '%p %s\n') |
		LC_ALL=C sort
}

# xattrs DIR LIST: the extended attributes of the files named in LIST.
xattrs() {
	(cd "$1" && xargs -d '\n' getfattr -h -d -m - --absolute-names < "$2" 2>/dev/null)
}

same() {	# same WHAT A B: ok when files A and B are equal
	if cmp -s "$2" "$3"; then ok "$1"; else bad "$1: $(diff "$2" "$3" | head -5)"; fi
}

n=0
for log in $(corpus_logs | quarter_logs); do
	n=$((n + 1))
	mnt=$T/m$n out=$X/e$n tx=$X/t$n
	name=${log#"$CORPUS"/}
	mount_log "$log" "$mnt" || { bad "$name: mount: $(cat "$mnt.err")"; continue; }
	# --check, the mount and (by diff -r below) the export: the same facts.
	"$SESSFS" --check "$log" > "$T/check.json" 2>/dev/null
	same "$name: --check = the mount's session.json" "$T/check.json" "$mnt/session.json"
	if ! timeout 120 "$SESSFS" export -q "$log" "$out" 2>"$out.err"; then
		bad "$name: export failed: $(head -c 500 "$out.err")"
	elif [ -s "$out.err" ]; then
		bad "$name: export said: $(head -c 500 "$out.err")"
	elif d=$(diff -r "$mnt" "$out" 2>&1); then
		ok "$name: diff -r of mount and export is empty"
	else
		bad "$name: diff -r: $(echo "$d" | head -5)"
	fi
	listing "$mnt" > "$T/lm"
	listing "$out" > "$T/le"
	same "$name: names, kinds, sizes, mtimes, link targets" "$T/lm" "$T/le"
	# A sample: every 17th file, and all of state/ (its own attributes).
	(cd "$out" && find . -type f | LC_ALL=C sort | awk 'NR % 17 == 1 || /^\.\/state\//') > "$T/sample"
	xattrs "$mnt" "$T/sample" > "$T/xm"
	xattrs "$out" "$T/sample" > "$T/xe"
	if grep -q user.sessfs "$T/xe" || ! grep -q user.sessfs "$T/xm"; then
		same "$name: extended attributes ($(wc -l < "$T/sample") files)" "$T/xm" "$T/xe"
	else
		bad "$name: export has no extended attributes"
	fi
	unmount_log "$mnt" >/dev/null
	# The tar stream, as GNU tar extracts it, is the export.
	mkdir -p "$tx"
	if timeout 120 "$SESSFS" export -q "$log" - 2>"$tx.err" |
	   tar -x --xattrs --xattrs-include='user.*' -C "$tx" 2>>"$tx.err" &&
	   [ ! -s "$tx.err" ] && d=$(diff -r "$out" "$tx" 2>&1); then
		listing "$tx" > "$T/lt"
		xattrs "$tx" "$T/sample" > "$T/xt"
		if cmp -s "$T/le" "$T/lt" && cmp -s "$T/xe" "$T/xt"; then
			ok "$name: tar stream extracts to the same tree, times and attributes"
		else
			bad "$name: tar: $(diff "$T/le" "$T/lt" | head -3) $(diff "$T/xe" "$T/xt" | head -3)"
		fi
	else
		bad "$name: tar: $(head -c 500 "$tx.err") $(echo "${d:-}" | head -5)"
	fi
	rm -rf "$out" "$tx"
done
[ "$n" -gt 0 ] || bad "no corpus logs found"

# A finished log whose last line lacks its newline: that line is a record
# for the mount, export and --check alike (every count, the title, the
# last message); the newline written later adds nothing.
log=$CORPUS/plain/session.jsonl
head -c -1 "$log" > "$T/nonl.jsonl"
mount_log "$T/nonl.jsonl" "$T/mnonl" || bad "no newline: mount"
"$SESSFS" export -q "$T/nonl.jsonl" "$X/nonl" || bad "no newline: export"
"$SESSFS" --check "$T/nonl.jsonl" > "$T/nonl.check"
"$SESSFS" --check "$log" | sed "s|\"source\": \".*\"|\"source\": \"$T/nonl.jsonl\"|; s|\"bytes\": \([0-9]*\)|\"bytes\": BYTES|" > "$T/full.check"
same "no final newline: --check = the mount's session.json" "$T/nonl.check" "$T/mnonl/session.json"
same "no final newline: --check = the export's session.json" "$T/nonl.check" "$X/nonl/session.json"
sed 's|"bytes": \([0-9]*\)|"bytes": BYTES|' "$T/nonl.check" > "$T/nonl.check2"
same "no final newline: the same facts as the whole log" "$T/full.check" "$T/nonl.check2"
last=$(ls "$T/mnonl/branches/current/" | tail -1)
[ -n "$last" ] && [ "$last" = "$(ls "$X/nonl/branches/current/" | tail -1)" ] &&
	cmp -s "$T/mnonl/branches/current/$last" "$X/nonl/branches/current/$last" &&
	ok "no final newline: the last message is in the mount and the export" ||
	bad "no final newline: last message $(ls "$T/mnonl/branches/current/" | tail -1)"
printf '\n' >> "$T/nonl.jsonl"
wait_for grep -q '"unfinishedLastLine": 0' "$T/mnonl/session.json" &&
	cmp -s <("$SESSFS" --check "$T/nonl.jsonl" | sed 's|"bytes": [0-9]*||') \
	       <(sed 's|"bytes": [0-9]*||' "$T/mnonl/session.json") &&
	! grep -qv 'is not in the price table' "$T/mnonl/errors.txt" &&
	ok "no final newline: the newline written after it adds no line, no error" ||
	bad "no final newline: after the newline: $(cat "$T/mnonl/errors.txt")"
unmount_log "$T/mnonl"

# A projects folder (every case's projects/ merged, as test_projects.sh
# makes it): the export is the mount, byte for byte (diff -r, links not
# followed: sessions/ and latest lead back into the tree), as a folder and
# as a tar stream.
C="$T/claude"
mkdir -p "$C/projects"
for d in "$CORPUS"/*/projects; do cp -r "$d/." "$C/projects/"; done
if mount_log "$C/projects" "$T/mpj" && "$SESSFS" export -q "$C/projects" "$X/pj" 2>"$T/pj.err" &&
   [ ! -s "$T/pj.err" ]; then
	d=$(diff -r --no-dereference "$T/mpj" "$X/pj" 2>&1)
	[ -z "$d" ] && [ -L "$X/pj/latest" ] && [ -d "$X/pj/projects" ] &&
		[ "$(ls "$X/pj/sessions" | wc -l)" -eq "$(ls "$T/mpj/sessions" | wc -l)" ] &&
		ok "a projects folder: diff -r of mount and export is empty ($(find "$X/pj" | wc -l) entries)" ||
		bad "a projects folder: diff -r: $(echo "$d" | head -5 | cut -c1-300)"
	unmount_log "$T/mpj"
	mkdir -p "$X/pjt"
	if "$SESSFS" export -q "$C/projects" - 2>"$T/pjt.err" | tar -x -C "$X/pjt" &&
	   [ ! -s "$T/pjt.err" ] && d=$(diff -r --no-dereference "$X/pj" "$X/pjt" 2>&1) && [ -z "$d" ]; then
		ok "a projects folder: the tar stream extracts to the same tree"
	else
		bad "a projects folder: tar: $(head -c 300 "$T/pjt.err") $(echo "${d:-}" | head -3)"
	fi
else
	bad "a projects folder: mount or export failed: $(cat "$T/mpj.err" "$T/pj.err" 2>/dev/null | head -3)"
fi
rm -rf "$X/pj" "$X/pjt"

# tar -tv reads the stream; the long paths come through pax headers.
log=$(ls -S $(corpus_logs) | head -1)
if "$SESSFS" export -q "$log" - > "$T/a.tar" && tar -tvf "$T/a.tar" > "$T/tv" 2>&1 &&
   grep -q '^lrwxrwxrwx .* \./branches/current -> ' "$T/tv" &&
   grep -q '^dr-xr-xr-x .* \./branches/$' "$T/tv"; then
	ok "tar -tvf lists $(wc -l < "$T/tv") entries, $(awk 'length($6) > 100' "$T/tv" | wc -l) of paths over 100 bytes"
else
	bad "tar -tvf: $(head -5 "$T/tv")"
fi

# Paths over 100 bytes go through pax headers: a tool name of 200 bytes.
DEMO=mnt-examples/demo.jsonl
long=$(printf 'T%.0s' $(seq 1 200))
sed "s/\"name\":\"Bash\"/\"name\":\"$long\"/" "$DEMO" > "$T/longname.jsonl"
mkdir -p "$X/lnt"
if "$SESSFS" export -q "$T/longname.jsonl" "$X/ln" &&
   "$SESSFS" export -q "$T/longname.jsonl" - | tar -x --xattrs --xattrs-include='user.*' -C "$X/lnt" &&
   diff -r "$X/ln" "$X/lnt" > /dev/null && cmp -s <(listing "$X/ln") <(listing "$X/lnt") &&
   nlong=$(cd "$X/lnt" && find . | awk 'length > 100' | wc -l) && [ "$nlong" -gt 0 ]; then
	ok "tar: $nlong paths over 100 bytes extract as exported"
else
	bad "tar: long paths: $(find "$X/lnt" | awk 'length > 150' | head -2)"
fi

# The command line.
expect() {	# expect RC PATTERN CMD...
	local want=$1 pat=$2 rc err
	shift 2
	err=$(timeout 20 "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ] && echo "$err" | grep -q -- "$pat"; then
		ok "exit $rc: ${err%%$'\n'*}"
	else
		bad "$*: exit $rc (want $want), stderr: $err"
	fi
}
mkdir -p "$T/full" "$T/outside"
echo keep > "$T/full/mine"
expect 1 "not empty (--force" "$SESSFS" export "$DEMO" "$T/full"
[ "$(ls "$T/full")" = mine ] && ok "a refused DEST is left as it was" || bad "refused DEST changed"
expect 2 "usage" "$SESSFS" export "$DEMO"
expect 2 "usage" "$SESSFS" export --bogus "$DEMO" "$T/x"
expect 1 "No such file" "$SESSFS" export "$T/nope.jsonl" "$T/x"
expect 1 "No such file" "$SESSFS" export "$DEMO" "$T/no/such/dest"
[ ! -e "$T/x" ] && ok "no DEST made for a bad SRC" || bad "DEST made for a bad SRC"

if command -v script >/dev/null; then	# stdout a terminal
	out=$(script -qec "$SESSFS export $DEMO -" /dev/null 2>&1)
	rc=$?
	[ "$rc" -eq 2 ] && echo "$out" | grep -q "refusing to write a tar stream to a terminal" &&
		ok "exit 2: no tar stream to a terminal" || bad "tar to a terminal: exit $rc: $out"
else
	skip "a tar stream to a terminal (no script(1) to make one)"
fi

# --force: what is in the way is replaced, never followed.
echo secret > "$T/outside/README.md"
ln -s "$T/outside/README.md" "$T/full/README.md"
ln -s "$T/outside" "$T/full/branches"
ln -s "$T/outside" "$T/full/state"
if "$SESSFS" export -q --force "$DEMO" "$T/full" 2>"$T/f.err"; then
	ok "--force exports into a DEST that is not empty"
else
	bad "--force: $(cat "$T/f.err")"
fi
if [ "$(cat "$T/outside/README.md")" = secret ] && [ "$(ls "$T/outside")" = README.md ] &&
   [ ! -L "$T/full/README.md" ] && [ -d "$T/full/branches" ] && [ ! -L "$T/full/branches" ] &&
   [ -f "$T/full/mine" ]; then
	ok "--force replaced the links in the way and wrote nothing outside DEST"
else
	bad "--force wrote outside DEST or followed a link: $(ls -la "$T/outside" "$T/full")"
fi
"$SESSFS" export -q "$DEMO" "$T/again" && "$SESSFS" export -q --force "$DEMO" "$T/again" &&
	ok "--force over an export of the same log" || bad "--force over an export"

# A DEST that keeps no extended attributes (ramfs, as root): one note, exit 0.
if [ "$(id -u)" -eq 0 ] && mkdir -p "$T/ramfs" && mount -t ramfs ramfs "$T/ramfs" 2>/dev/null; then
	RAMFS=$T/ramfs
	if "$SESSFS" export -q "$DEMO" "$RAMFS/out" 2>"$T/r.err" &&
	   grep -q "keeps no extended attributes: exported without them" "$T/r.err" &&
	   [ "$(wc -l < "$T/r.err")" -eq 1 ] && [ -L "$RAMFS/out/branches/current" ]; then
		ok "a DEST without extended attributes: one note, the export goes on"
	else
		bad "ramfs DEST: $(head -3 "$T/r.err")"
	fi
	umount "$RAMFS" && RAMFS=
else
	skip "a DEST without extended attributes (a ramfs needs root)"
fi

# No FUSE: the export opens no /dev/fuse (and needs no mount).
if command -v strace >/dev/null; then
	# (LeakSanitizer cannot run under ptrace: off for this one run)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -e trace=open,openat -o "$T/trace" "$SESSFS" export -q "$DEMO" "$T/nf" &&
	   ! grep -q /dev/fuse "$T/trace" && ok "export opens no /dev/fuse" ||
		bad "export touched /dev/fuse or failed"
else
	skip "that the export opens no /dev/fuse (no strace)"
fi
finish
