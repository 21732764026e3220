#!/bin/bash
# Mounts every corpus log and drives the mount with the tools people use:
# ls, find, stat, cat, grep, tar, getfattr, diff; every write-like call
# must fail with EROFS; the log must be unchanged; the daemon must exit 0.
# full: cat, tar and the size check take every file of every log; make
# test takes every file of a log of up to $SAMPLE files, a sample of more,
# and each build every other log (lib.sh's half_logs): each log once.
. "$(dirname "$0")/lib.sh"
need_corpus

check_readonly() {
	local mnt=$1 msg f
	f=$(find "$mnt/branches/main/" -name '*.md' | head -1)
	for cmd in "touch $mnt/new" "mkdir $mnt/d" "rm -f $mnt/README.md" \
		   "mv $mnt/README.md $mnt/x" "chmod 600 $mnt/README.md" \
		   "truncate -s 0 $f" "ln -s x $mnt/l" "setfattr -n user.x -v 1 $f" \
		   "cp /etc/hostname $mnt/branches/" "rmdir $mnt/state"; do
		msg=$(timeout 10 $cmd 2>&1)
		case "$msg" in
		*"Read-only file system"*) ok "EROFS: ${cmd%% *}" ;;
		*) bad "$cmd did not fail with EROFS: $msg" ;;
		esac
	done
	msg=$( (echo x > "$f") 2>&1)
	case "$msg" in *"Read-only file system"*) ok "EROFS: write" ;; *) bad "write: $msg" ;; esac
}

check_xattr() {
	local f=$1 want got
	want=$(sed -n 's/^uuid: //p' "$f" | head -1)
	got=$(getfattr --absolute-names --only-values -n user.sessfs.uuid "$f" 2>/dev/null)
	[ -n "$want" ] && [ "$want" = "$got" ] && ok "getfattr uuid" || bad "xattr uuid '$got' != '$want'"
	getfattr --absolute-names -d "$f" | grep -q 'user.sessfs.line=' && ok "getfattr -d lists line" || bad "getfattr -d"
	# Only user.* exists: another namespace is not supported (ls -l then
	# asks once per mount, not once per file).
	case $(getfattr --absolute-names -n security.selinux "$f" 2>&1) in
	*"Operation not supported"*) ok "getfattr security.selinux: not supported" ;;
	*) bad "getfattr security.selinux: $(getfattr --absolute-names -n security.selinux "$f" 2>&1)" ;;
	esac
}

check_log() {
	local log=$1 name mnt sum f
	name=$(echo "$log" | sed "s|$CORPUS/||; s|/projects/[^/]*/|-|; s|/|-|g")
	mnt="$T/$name"
	sum=$(sha256sum < "$log")
	echo "== $log"
	if ! mount_log "$log" "$mnt"; then
		bad "mount $log: $(cat "$mnt.err")"
		return
	fi
	timeout 60 ls -l "$mnt" "$mnt/branches" > /dev/null && ok "ls -l" || bad "ls -l"
	[ -L "$mnt/branches/current" ] && [ -d "$mnt/branches/current/" ] &&
		ok "branches/current is a symlink to a branch" || bad "branches/current"
	timeout 60 find "$mnt" > "$T/find.out" && [ -s "$T/find.out" ] && ok "find ($(wc -l < "$T/find.out") entries)" || bad "find"
	files_of "$mnt" > "$T/files"
	timeout 120 xargs -0 cat < "$T/files" > /dev/null && ok "cat $(tr -cd '\0' < "$T/files" | wc -c) files" || bad "cat"
	check_sizes "$mnt"
	timeout 60 tar cf - --null -T "$T/files" > /dev/null 2>"$T/tar.err" && ok "tar cf" || bad "tar: $(cat "$T/tar.err")"
	f=$(ls "$mnt"/branches/current/*-user.md | head -1)
	check_xattr "$f"
	if grep -q '"toolUseResult"' "$log"; then
		timeout 60 grep -rq -- '--- tool_result' "$mnt/branches/" && ok "grep -r finds tool output" || bad "grep -r tool output"
	fi
	check_readonly "$mnt"
	unmount_log "$mnt"
	[ "$(sha256sum < "$log")" = "$sum" ] && ok "log unchanged (sha256)" || bad "log changed!"
}

# The tools log: grep -r finds a known Bash output in the current branch.
check_known_output() {
	local log mnt
	log=$(ls "$CORPUS"/tools/projects/*/*.jsonl | head -1)
	mnt="$T/known"
	mount_log "$log" "$mnt" || { bad "mount tools"; return; }
	timeout 60 grep -rl 'A tiny command line todo list' "$mnt/branches/current/" | grep -q tool_result-Bash &&
		ok "grep -r finds the Bash output of cat README.md" || bad "known Bash output not found"
	unmount_log "$mnt"
}

# The fork: diff -r main fork reports only files past the fork point.
check_fork_diff() {
	local log mnt fork seq first
	log=$(ls "$CORPUS"/fork/projects/*/*104.jsonl 2>/dev/null | head -1)
	[ -n "$log" ] || return
	mnt="$T/forkdiff"
	mount_log "$log" "$mnt" || { bad "mount fork"; return; }
	fork=$(ls "$mnt/branches" | grep '^fork-' | head -1)
	seq=$((10#$(echo "$fork" | cut -d- -f2)))
	diff -rq "$mnt/branches/main" "$mnt/branches/$fork" > "$T/diff.out"
	first=$(grep -o '[0-9]\{6\}-' "$T/diff.out" | sort | head -1 | tr -d -)
	if [ -s "$T/diff.out" ] && [ "$((10#$first))" -ge "$seq" ]; then
		ok "diff -r main $fork: first difference at $first, fork point $seq"
	else
		bad "diff -r: first difference at '$first', fork at $seq"
	fi
	for i in $(seq 1 $((seq - 1))); do
		p=$(printf '%06d' "$i")
		cmp -s "$mnt/branches/main/$p"-* "$mnt/branches/$fork/$p"-* || { bad "file $p differs before the fork"; break; }
	done
	unmount_log "$mnt"
}

while IFS= read -r log; do
	check_log "$log"
done < <(corpus_logs | half_logs)
check_known_output
check_fork_diff
finish
