#!/bin/bash
# Trust (issue 29): what a hostile or careless user can do to a mount,
# and that the mount neither goes stale nor lies quietly about it.
#   paths      a relative projects folder (".") serves that folder, not
#              "/"; a relative name that does not exist fails up front;
#              the folder is held by a descriptor: renamed, the mount
#              follows it, and a new folder at the old path is not read;
#   perms      the tree gives no one more than the log gives: owner and
#              group of the log, its read bits (execute on folders where
#              read is set), checked by the kernel (default_permissions),
#              for another user through -o allow_other; per session in a
#              projects mount; a chmod of the log is followed;
#   race       pairs of mounts started together on one mountpoint: one
#              mounts, the other is refused, never two stacked;
#   unreadable a log the daemon can no longer read and a projects folder
#              deleted under a mount: said in errors.txt and README.md,
#              what can still be shown is shown; a single log deleted is
#              said as deleted, not as "changed in place";
#   dirswap    a directory takes the log's path, then a new log does: the
#              mount follows the new log;
#   empty      a folder with no session log and no projects/ (a home
#              folder) is refused: mount, --check and export, by sessfs
#              and by sessfs-nofuse; a projects folder that is merely
#              empty today mounts;
#   small      comm is "sessfs" for a projects mount; a log named .jsonl
#              is a line of errors.txt; unknown options and extra
#              arguments get sessfs's own words; export names a bad
#              option; other warning and optimisation flags build.
# full: the two builds with other CFLAGS (make test builds neither).
# The runs as another user take the uid and gid 65534 (nobody, nogroup),
# which need no account; the folders they use are made theirs.
. "$(dirname "$0")/lib.sh"
DEMO=mnt-examples/demo.jsonl
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
chmod 755 "$T"

# expect RC PATTERN CMD...: the exit code, stderr matching PATTERN, and
# no libfuse message ("fuse: ...") in it.
expect() {
	local want=$1 pat=$2 rc err
	shift 2
	err=$(timeout 20 "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ] && echo "$err" | grep -q -- "$pat" && ! echo "$err" | grep -q '^fuse:'; then
		ok "exit $rc: ${err%%$'\n'*}"
	else
		bad "$*: exit $rc (want $want, /$pat/), stderr: $err"
	fi
}

# A small session log of its own: LOG SID [PROMPT].
put_log() {
	local sid=$2 p=${3:-hello}
	printf '{"parentUuid":null,"isSidechain":false,"type":"user","cwd":"/home/u/app","sessionId":"%s","version":"2.1.1","message":{"role":"user","content":"%s"},"uuid":"%s-0001","timestamp":"2026-01-01T10:00:00.000Z"}\n' \
		"$sid" "$p" "$sid" > "$1"
	printf '{"parentUuid":"%s-0001","isSidechain":false,"type":"assistant","cwd":"/home/u/app","sessionId":"%s","version":"2.1.1","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}]},"uuid":"%s-0002","timestamp":"2026-01-01T10:00:01.000Z"}\n' \
		"$sid" "$sid" "$sid" >> "$1"
}

# daemon DIR ARG MNT: sessfs ARG MNT started from the folder DIR, as a
# daemon (it changes to / then: what it serves must not). 0 once mounted.
daemon() {
	(cd "$1" && timeout 20 "$OLDPWD/$SESSFS" "$2" "$3") 2>"$3.err" || return 1
	MOUNTS="$MOUNTS $3"
	mountpoint -q "$3"
}

# lists MNT NAME: projects/*/ of the mount lists a session named NAME.
lists() { ls "$1"/projects/*/ 2>/dev/null | grep -qx -- "$2"; }

# ---- paths ----

paths() {
	local d="$T/pj-rel" sid=cccccccc-0000-4000-8000-00000000000
	mkdir -p "$d/-home-u-app" "$T/rel-dot" "$T/rel-name"
	put_log "$d/-home-u-app/${sid}1.jsonl" "${sid}1"
	# "." from inside the folder: a new session shows (the rescan reads
	# the folder, not "/"), and README.md names the folder.
	daemon "$d" . "$T/rel-dot" || { bad "paths: sessfs . MNT: $(cat "$T/rel-dot.err")"; return; }
	put_log "$d/-home-u-app/${sid}2.jsonl" "${sid}2"
	if wait_until 10 lists "$T/rel-dot" "${sid}2" &&
	   grep -qx "Folder: $d" "$T/rel-dot/README.md" && [ "$(ls "$T/rel-dot/projects")" = home-u-app ]; then
		ok "sessfs . MNT: the rescan reads the folder (a new session shows), not /"
	else
		bad "sessfs . MNT: $(grep Folder: "$T/rel-dot/README.md"); projects: $(ls "$T/rel-dot/projects" | head -5 | tr '\n' ' ')"
	fi
	fusermount3 -u "$T/rel-dot"
	# A relative name that does not exist from /: followed the same way.
	daemon "$T" pj-rel "$T/rel-name" || { bad "paths: sessfs pj-rel MNT: $(cat "$T/rel-name.err")"; return; }
	put_log "$d/-home-u-app/${sid}3.jsonl" "${sid}3"
	wait_until 10 lists "$T/rel-name" "${sid}3" &&
		ok "sessfs pj-rel MNT (a name / does not have): the mount follows the folder" ||
		bad "sessfs pj-rel MNT: ${sid}3 never showed: $(ls "$T"/rel-name/projects/*/ | tr '\n' ' ')"
	# Renamed: the mount follows it; a new folder at the old path is not read.
	mv "$d" "$d.moved"
	mkdir -p "$d/-home-u-app"
	put_log "$d/-home-u-app/${sid}8.jsonl" "${sid}8"
	put_log "$d.moved/-home-u-app/${sid}4.jsonl" "${sid}4"
	if wait_until 10 lists "$T/rel-name" "${sid}4" && ! lists "$T/rel-name" "${sid}8" &&
	   grep -qx "Folder: $d.moved" "$T/rel-name/README.md"; then
		ok "the folder renamed: the mount follows it (by its descriptor), not the new folder at its path"
	else
		bad "renamed folder: $(ls "$T"/rel-name/projects/*/ | tr '\n' ' '); $(grep Folder: "$T/rel-name/README.md")"
	fi
	fusermount3 -u "$T/rel-name"
	rm -rf "$d" "$d.moved"
	# A relative name that does not exist at all: refused up front.
	(cd "$T" && expect 1 "no-such-folder: No such file" "$OLDPWD/$SESSFS" no-such-folder "$T/rel-name")
}

# ---- permissions ----

OTHER="setpriv --reuid=65533 --regid=65533 --clear-groups"
# reads WHO FILE: the user WHO (NOBODY or OTHER) can read FILE.
reads() { $1 cat "$2" > /dev/null 2>&1; }
denied() { ! reads "$@"; }
modes() { stat -c '%a %u %g' "$@" | tr '\n' ' '; }

# A single log through -o allow_other: the log's owner and group, its
# read bits (and execute on folders where read is set), checked by the
# kernel; a chmod of the log is followed, for files read before too.
perms_log() {
	local d="$T/perm" m="$T/perm-m" f
	mkdir -p "$d"
	chmod 700 "$d"
	cp "$DEMO" "$d/s.jsonl"
	chown 0:65534 "$d/s.jsonl"
	chmod 640 "$d/s.jsonl"
	mount_log "$d/s.jsonl" "$m" -o allow_other || { bad "perms: mount: $(cat "$m.err")"; return; }
	f=$(ls "$m"/branches/main/* | head -1)
	findmnt -n -o OPTIONS "$m" | grep -q default_permissions &&
		ok "the mount has default_permissions" || bad "options: $(findmnt -n -o OPTIONS "$m")"
	[ "$(modes "$m" "$m/README.md" "$f" "$m/branches")" = "550 0 65534 440 0 65534 440 0 65534 550 0 65534 " ] &&
		ok "a 0640 log of root:65534: folders 0550, files 0440, root:65534" ||
		bad "perms: modes $(modes "$m" "$m/README.md" "$f" "$m/branches")"
	reads "$NOBODY" "$f" && reads "$NOBODY" "$m/README.md" && denied "$OTHER" "$f" && denied "$OTHER" "$m/README.md" &&
		ok "the log's group reads through the mount, another user does not" ||
		bad "perms: group or other user: $(reads "$NOBODY" "$f" && echo group reads) $(reads "$OTHER" "$f" && echo other reads)"
	chmod 600 "$d/s.jsonl"
	wait_until 10 denied "$NOBODY" "$f" && denied "$NOBODY" "$m/README.md" &&
	[ "$(modes "$m" "$f")" = "500 0 65534 400 0 65534 " ] &&
		ok "chmod 600 of the log: followed, also for a file read before" ||
		bad "chmod 600 not followed: $(modes "$m" "$f")"
	chmod 644 "$d/s.jsonl"
	wait_until 10 reads "$OTHER" "$f" && reads "$OTHER" "$m/README.md" &&
		ok "chmod 644 of the log: another user reads" || bad "chmod 644 not followed: $(modes "$m" "$f")"
	unmount_log "$m"
}

# closed_b MNT A B: session B's log made 0600 and 65534's shows so.
closed_b() {
	denied "$NOBODY" "$1/projects/home-u-app/$3/README.md" &&
	[ "$(modes "$1/projects/home-u-app/$2" "$1/projects/home-u-app/$3")" = "555 0 0 500 65534 65534 " ] &&
	[ "$(modes "$1" "$1/sessions.json")" = "500 0 0 400 0 0 " ] && denied "$OTHER" "$1/sessions.json"
}

# A projects folder: each session folder as its log gives; this layer's
# own folders and files (they list every session) as the folder and
# every log give.
perms_projects() {
	local d="$T/perm-pj" m="$T/perm-pjm" a b
	a=eeeeeeee-0000-4000-8000-000000000001 b=eeeeeeee-0000-4000-8000-000000000002
	mkdir -p "$d/-home-u-app"
	put_log "$d/-home-u-app/$a.jsonl" "$a"
	put_log "$d/-home-u-app/$b.jsonl" "$b"
	chmod 644 "$d/-home-u-app/"*.jsonl
	mount_log "$d" "$m" -o allow_other || { bad "perms projects: mount: $(cat "$m.err")"; return; }
	reads "$NOBODY" "$m/projects/home-u-app/$b/README.md" && reads "$NOBODY" "$m/sessions.json" &&
		ok "projects: 0644 logs in a 0755 folder: another user reads" ||
		bad "projects: 0644 logs: $(modes "$m" "$m/projects/home-u-app/$b")"
	chown 65534:65534 "$d/-home-u-app/$b.jsonl"
	chmod 600 "$d/-home-u-app/$b.jsonl"
	# (the kernel keeps this layer's folders until the look tells it)
	if wait_until 10 closed_b "$m" "$a" "$b"; then
		ok "projects: a log made 0600: its session folder 0500 as the log's owner, the layer closed to others"
	else
		bad "projects: a log made 0600: $(modes "$m/projects/home-u-app/$a" "$m/projects/home-u-app/$b" "$m" "$m/sessions.json")"
	fi
	unmount_log "$m"
}

perms() {
	perms_log
	perms_projects
}

# ---- two mounts at once ----

# PAIRS pairs, each two sessfs started together (daemons) on one
# mountpoint: one mounts, the other is refused (exit 1, "already
# mounted"), never two stacked. A log of some size, so that indexing
# keeps the window between the look and the mount open.
race() {
	local pairs=8 i m big="$T/race.jsonl" stacked=0 refused=0 up=0 n
	for i in $(seq 1 40); do cat "$DEMO"; done > "$big"
	for i in $(seq 1 $pairs); do
		m="$T/race$i"
		mkdir -p "$m"
		MOUNTS="$MOUNTS $m"
		( timeout 60 "$SESSFS" "$big" "$m" 2>"$m.err1"; echo $? > "$m.rc1" ) &
		( timeout 60 "$SESSFS" "$big" "$m" 2>"$m.err2"; echo $? > "$m.rc2" ) &
	done
	wait
	for i in $(seq 1 $pairs); do
		m="$T/race$i"
		n=$(findmnt -n "$m" | wc -l)
		[ "$n" -gt 1 ] && stacked=$((stacked + 1))
		[ "$n" -eq 1 ] && up=$((up + 1))
		if [ "$(sort "$m.rc1" "$m.rc2" | tr '\n' ' ')" = "0 1 " ] &&
		   cat "$m.err1" "$m.err2" | grep -q "already mounted"; then
			refused=$((refused + 1))
		fi
		while mountpoint -q "$m"; do fusermount3 -u "$m" || break; done
	done
	[ "$stacked" -eq 0 ] && [ "$up" -eq $pairs ] && [ "$refused" -eq $pairs ] &&
		ok "$pairs pairs of mounts started together: one mount each, the other refused" ||
		bad "$pairs pairs: $stacked stacked, $up mounted once, $refused refused as already mounted"
}

# ---- a log the daemon can no longer read, a folder deleted ----

# nocap: sessfs as root without the capabilities that read past a file's
# mode (as a user's daemon is: a log chmod'ed 000 cannot be opened), while
# the test, root, still reads everything through the mount.
nocap() {
	printf '#!/bin/sh\nexec setpriv --bounding-set=-dac_override,-dac_read_search "%s" "$@"\n' \
		"$(realpath "$SESSFS")" > "$T/nocap"
	chmod 755 "$T/nocap"
}

# A single log made unreadable while mounted: said in errors.txt and
# README.md, and all of it still shown (from the file held open).
gone_log() {
	local d="$T/gl" m="$T/gl-m" f
	mkdir -p "$d"
	cp "$DEMO" "$d/s.jsonl"
	SESSFS="$T/nocap" mount_log "$d/s.jsonl" "$m" || { bad "gone_log: mount: $(cat "$m.err")"; return; }
	f=$(ls "$m"/branches/main/* | tail -1)
	ls "$m/branches/main" > "$T/gl-before"
	chmod 000 "$d/s.jsonl"
	if wait_until 10 grep -q "cannot be read at its path now" "$m/errors.txt" &&
	   grep -q "cannot be read at its path now" "$m/README.md" && cat "$f" > /dev/null &&
	   cmp -s "$T/gl-before" <(ls "$m/branches/main"); then
		ok "a log made unreadable: errors.txt and README.md say so, the log is still shown"
	else
		bad "a log made unreadable: errors.txt: $(cat "$m/errors.txt")"
	fi
	chmod 644 "$d/s.jsonl"
	wait_until 10 grep -q "can be read at its path again" "$m/errors.txt" &&
		ok "... and readable again: said too" || bad "readable again: $(cat "$m/errors.txt")"
	unmount_log "$m"
}

# A projects folder: a log made unreadable (one open, one never opened),
# then the folder deleted. Each is a line of errors.txt; the sessions stay
# listed; an open one is still shown; one that cannot be opened shows a
# README.md and an errors.txt saying why.
gone_projects() {
	local d="$T/gp" m="$T/gp-m" a b c p
	a=ffffffff-0000-4000-8000-000000000001 b=ffffffff-0000-4000-8000-000000000002
	c=ffffffff-0000-4000-8000-000000000003
	mkdir -p "$d/-home-u-app"
	for x in $a $b $c; do put_log "$d/-home-u-app/$x.jsonl" "$x"; done
	SESSFS="$T/nocap" mount_log "$d" "$m" || { bad "gone_projects: mount: $(cat "$m.err")"; return; }
	p="$m/projects/home-u-app"
	cat "$p/$a/README.md" "$p/$c/README.md" > /dev/null	# a and c open
	chmod 000 "$d/-home-u-app/$a.jsonl" "$d/-home-u-app/$b.jsonl"
	if wait_until 10 grep -q "^-home-u-app/$b.jsonl: cannot be read now (Permission denied)" "$m/errors.txt" &&
	   grep -q "^-home-u-app/$a.jsonl: cannot be read now" "$m/errors.txt" &&
	   [ "$(ls "$p" | tr '\n' ' ')" = "$a $b $c " ] && ls "$p/$a/branches/main" > /dev/null &&
	   wait_until 10 grep -q "cannot be read at its path now" "$p/$a/errors.txt" &&
	   grep -q "cannot be opened now (Permission denied)" "$p/$b/README.md" &&
	   grep -q "cannot be opened now (Permission denied)" "$p/$b/errors.txt" &&
	   [ "$(ls "$p/$b" | tr '\n' ' ')" = "README.md errors.txt " ]; then
		ok "projects: logs made unreadable: said in errors.txt; still listed; an open one shown, another says why"
	else
		bad "projects: unreadable logs: $(cat "$m/errors.txt"); $(ls "$p/$b" 2>&1 | tr '\n' ' '); $(head -5 "$p/$b/README.md" 2>&1)"
	fi
	rm -rf "$d"
	if wait_until 10 grep -q "the projects folder was deleted" "$m/errors.txt" &&
	   grep -q "The folder was deleted" "$m/README.md" &&
	   [ "$(ls "$p" | tr '\n' ' ')" = "$a $b $c " ] && cat "$p/$c"/branches/main/* > /dev/null &&
	   grep -q "projects folder was deleted" "$p/$b/README.md"; then
		ok "projects: the folder deleted: errors.txt and README.md say so, the sessions stay listed, an open one shown"
	else
		bad "projects: folder deleted: $(cat "$m/errors.txt"); $(ls "$p" 2>&1 | tr '\n' ' ')"
	fi
	unmount_log "$m"
}

unreadable() {
	nocap
	gone_log
	gone_projects
}

# ---- a log deleted, a directory at its path ----

# The log deleted (at once, before its bytes are signed): errors.txt and
# README.md say it was deleted, not "changed in place", and it is still
# shown; then a directory takes its path (said), then a new log (another
# one): the mount follows the new log, as after a plain delete.
dirswap() {
	local d="$T/ds" m="$T/ds-m" other=mnt-examples/v1-sidechains.jsonl
	mkdir -p "$d"
	cp "$DEMO" "$d/s.jsonl"
	mount_log "$d/s.jsonl" "$m" || { bad "dirswap: mount: $(cat "$m.err")"; return; }
	ls "$m/branches/main" > "$T/ds-before"
	rm "$d/s.jsonl"
	if wait_until 10 grep -q "the log was deleted" "$m/errors.txt" &&
	   ! grep -q "in place" "$m/errors.txt" && grep -q "the log was deleted" "$m/README.md" &&
	   cmp -s "$T/ds-before" <(ls "$m/branches/main") && cat "$m"/branches/main/* > /dev/null; then
		ok "a log deleted: errors.txt and README.md say deleted (not changed in place), all still shown"
	else
		bad "a log deleted: errors.txt: $(cat "$m/errors.txt")"
	fi
	mkdir "$d/s.jsonl"
	wait_until 10 grep -q "a directory took the log's path" "$m/errors.txt" &&
		ok "a directory at the log's path: said in errors.txt" ||
		bad "a directory at the log's path: errors.txt: $(cat "$m/errors.txt")"
	rmdir "$d/s.jsonl"
	cp "$other" "$d/s.jsonl"
	mount_log "$other" "$T/ds-fresh" || { bad "dirswap: fresh mount"; unmount_log "$m"; return; }
	if wait_until 10 same_main "$m" "$T/ds-fresh" &&
	   grep -q "another file replaced the log at its path" "$m/errors.txt"; then
		ok "then a new log at the path: the mount follows it"
	else
		bad "then a new log at the path: still the old one: $(ls "$m/branches/main" | head -3 | tr '\n' ' '); errors: $(cat "$m/errors.txt")"
	fi
	unmount_log "$T/ds-fresh"
	unmount_log "$m"
}

# ---- a folder with no session ----

empty() {
	local h="$T/home" d m
	mkdir -p "$h/Documents" "$h/.cache" "$h/src/app" "$T/empty-mnt"
	echo hi > "$h/notes.txt"
	put_log "$h/src/app/x.jsonl" dddddddd	# deeper than DIR/*/*.jsonl
	expect 1 "home: no session log and no projects/ folder in it" "$SESSFS" "$h" "$T/empty-mnt"
	expect 1 "home: no session log and no projects/ folder in it" "$SESSFS" --check "$h"
	expect 1 "home: no session log and no projects/ folder in it" "$SESSFS" export -q "$h" "$T/empty-exp"
	[ -e "$T/empty-exp" ] && bad "empty: export made $T/empty-exp"
	expect 1 "home: no session log and no projects/ folder in it" "$BUILD/sessfs-nofuse" --check "$h"
	expect 1 "home: no session log and no projects/ folder in it" "$BUILD/sessfs-nofuse" export -q "$h" -
	mkdir -p "$T/nothing"
	expect 1 "nothing: no session log and no projects/ folder" "$SESSFS" "$T/nothing" "$T/empty-mnt"
	mountpoint -q "$T/empty-mnt" && { bad "empty: something mounted"; fusermount3 -u "$T/empty-mnt"; }
	# A projects folder merely empty today: ~/.claude/projects with no
	# log yet, a ~/.claude holding it, a folder of project folders only.
	mkdir -p "$T/claude/projects" "$T/shaped/-home-u-app" "$T/shaped/-home-u-other"
	for d in claude/projects claude shaped; do
		m="$T/empty-${d//\//-}"
		if "$SESSFS" --check "$T/$d" > "$m.check" && grep -q '"sessionCount":0' "$m.check" &&
		   mount_log "$T/$d" "$m"; then
			grep -q '^- sessions: 0' "$m/README.md" &&
				ok "an empty projects folder ($d): --check and the mount take it" ||
				bad "empty $d: README: $(head -5 "$m/README.md")"
			unmount_log "$m"
		else
			bad "an empty projects folder ($d) refused: $(cat "$m.err" 2>/dev/null)"
		fi
	done
}

# ---- small ones ----

options() {
	mkdir -p "$T/mnt"
	expect 2 "unknown option: -o no_such_option" "$SESSFS" -o no_such_option "$DEMO" "$T/mnt"
	expect 2 "unknown option: -o bogus=1" "$SESSFS" -o ro,bogus=1 "$DEMO" "$T/mnt"
	expect 2 "unknown option: --no-such-flag" "$SESSFS" --no-such-flag "$DEMO" "$T/mnt"
	expect 2 "sessfs: extra: one argument too many" "$SESSFS" "$DEMO" "$T/mnt" extra
	expect 2 "sessfs: -o max_threads=lots: a bad value" "$SESSFS" -o max_threads=lots "$DEMO" "$T/mnt"
	expect 2 "sessfs export: unknown option: --bogus" "$SESSFS" export --bogus "$DEMO" "$T/x"
	expect 2 "sessfs export: extra: one argument too many" "$SESSFS" export "$DEMO" "$T/x" extra
	mountpoint -q "$T/mnt" && { bad "options: something mounted"; fusermount3 -u "$T/mnt"; }
}

# A projects mount is "sessfs" in /proc/PID/comm (it starts itself again
# with huge pages: the kernel named it "exe"), so pgrep -x finds it; a log
# named ".jsonl" (no session id) is a line of errors.txt.
pjsmall() {
	local d="$T/comm-dir"
	mkdir -p "$d/-home-u-app"
	put_log "$d/-home-u-app/aaaaaaaa-0000-4000-8000-000000000001.jsonl" aaaaaaaa
	put_log "$d/-home-u-app/.jsonl" bbbbbbbb
	mount_log "$d" "$T/comm" || { bad "comm: mount: $(cat "$T/comm.err")"; return; }
	[ "$(cat "/proc/$PID/comm")" = sessfs ] && pgrep -x sessfs | grep -qx "$PID" &&
		ok "a projects mount is sessfs in /proc/PID/comm; pgrep -x sessfs finds it" ||
		bad "comm: /proc/$PID/comm is $(cat "/proc/$PID/comm")"
	grep -q '^-home-u-app/\.jsonl: no name before \.jsonl' "$T/comm/errors.txt" &&
		ok "a log named .jsonl: a line of errors.txt" ||
		bad "a log named .jsonl: errors.txt: $(cat "$T/comm/errors.txt")"
	unmount_log "$T/comm"
}

# make CFLAGS=... with other warning and optimisation flags: no warning
# (-Werror) stops the build. Two whole builds: under make test-full only,
# and in the plain build's run (ASan's would be the same builds).
cflags() {
	local f dir
	case $SESSFS in *asan*) echo "skip the CFLAGS builds under ASan"; return ;; esac
	[ "$FULL" = 1 ] || { skip "the builds with other CFLAGS (make test-full builds them)"; return; }
	for f in "-O3 -Wformat-truncation=2 -Wformat-overflow=2" "-Og"; do
		dir="$T/cflags${f//[^a-zA-Z0-9]/_}"
		if timeout 300 make -s -k BUILD="$dir" CFLAGS="$f" "$dir/sessfs" "$dir/sessfs-nofuse" \
			> "$dir.log" 2>&1; then
			ok "make CFLAGS='$f': built, no warning"
		else
			bad "make CFLAGS='$f': $(grep -m3 -E 'error|warning' "$dir.log")"
		fi
	done
}

# With arguments: only those parts.
run_parts "$@"
options
paths
perms
race
unreadable
dirswap
empty
pjsmall
cflags
finish
