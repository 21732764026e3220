#!/bin/bash
# state/: the worktree, agent, read cache and file history of corpus logs,
# seen with cat, cmp, find, stat and getfattr; a log with hostile paths
# (.., NUL, 300-byte parts) mounts, nothing under state/ leads outside,
# and each path is reported in errors.txt; state follows a growing log.
. "$(dirname "$0")/lib.sh"

# Folders 0555, files 0444, stat size = bytes read, no links.
check_modes() {
	local st=$1 n
	n=$(find "$st" -type d ! -perm 0555 | wc -l)
	[ "$n" -eq 0 ] && ok "state folders are 0555" || bad "$n state folders not 0555"
	n=$(find "$st" -type f ! -perm 0444 | wc -l)
	[ "$n" -eq 0 ] && ok "state files are 0444" || bad "$n state files not 0444"
	n=$(find "$st" ! -type f ! -type d | wc -l)
	[ "$n" -eq 0 ] && ok "state holds only files and folders" || bad "$n other entries in state"
	n=0
	while IFS= read -r -d '' f; do
		[ "$(stat -c %s "$f")" = "$(wc -c < "$f")" ] || n=$((n + 1))
	done < <(find "$st" -type f -print0)
	[ "$n" -eq 0 ] && ok "state sizes exact" || bad "$n state sizes differ"
}

# Every path under state/ resolves inside it.
check_inside() {
	local st=$1 real n=0
	real=$(realpath "$st")
	while IFS= read -r -d '' f; do
		case "$(realpath "$f")" in "$real"|"$real"/*) ;; *) n=$((n + 1)) ;; esac
	done < <(find "$st" -print0)
	[ "$n" -eq 0 ] && ok "every path under state/ stays inside it" || bad "$n paths lead outside"
}

check_worktree() {
	local log mnt f
	log=$(ls "$CORPUS"/worktree/projects/*/*.jsonl | head -1)
	mnt="$T/worktree"
	mount_log "$log" "$mnt" || { bad "mount worktree"; return; }
	f="$mnt/state/worktree.json"
	grep -q '"worktreePath": "/home/user/src/todo-app/.claude/worktrees/feature-due"' "$f" &&
		ok "worktree.json: worktree path" || bad "worktree path: $(cat "$f")"
	grep -q '"worktreeBranch": "worktree-feature-due"' "$f" &&
		ok "worktree.json: worktree branch" || bad "worktree branch: $(cat "$f")"
	grep -q '"worktreePathExists": false' "$f" &&
		ok "worktree.json: the path does not exist on this machine" || bad "worktreePathExists"
	grep -q '"permissionMode": "plan"' "$mnt/state/agent.json" &&
		ok "agent.json: permission mode of the newest user row (plan)" || bad "permission mode"
	check_modes "$mnt/state"
	unmount_log "$mnt"
}

check_agent() {
	local log mnt f title setting
	log=$(ls "$CORPUS"/agent/projects/*/*.jsonl | head -1)
	mnt="$T/agent"
	title=$(grep '"type":"custom-title"' "$log" | tail -1 | sed 's/.*"customTitle":"\([^"]*\)".*/\1/')
	setting=$(grep '"type":"agent-setting"' "$log" | tail -1 | sed 's/.*"agentSetting":"\([^"]*\)".*/\1/')
	mount_log "$log" "$mnt" || { bad "mount agent"; return; }
	f="$mnt/state/agent.json"
	[ "$setting" = reviewer ] && grep -q "\"agentSetting\": \"$setting\"" "$f" &&
		ok "agent.json: agentSetting reviewer" || bad "agentSetting: $(cat "$f")"
	[ -n "$title" ] && grep -q "\"customTitle\": \"$title\"" "$f" &&
		ok "agent.json: the last custom title ($title)" || bad "customTitle '$title': $(cat "$f")"
	[ ! -e "$mnt/state/worktree.json" ] && ok "no worktree.json without a worktree-state" ||
		bad "worktree.json without a record"
	unmount_log "$mnt"
}

check_tools() {
	local log mnt fh sid b n f rc line st
	log=$(ls "$CORPUS"/tools/projects/*/*.jsonl | head -1)
	sid=$(basename "$log" .jsonl)
	fh="$CORPUS/tools/file-history/$sid"
	mnt="$T/tools"
	mount_log "$log" "$mnt" || { bad "mount tools"; return; }
	st="$mnt/state"
	n=0
	for b in "$fh"/*; do
		f=$(find "$st/file-history" -type f -exec cmp -s "$b" {} \; -print | head -1)
		[ -n "$f" ] || { n=$((n + 1)); echo "  no copy of $(basename "$b")"; }
	done
	[ "$n" -eq 0 ] && ok "every backup of file-history/$sid is byte-identical under state/file-history" ||
		bad "$n backups not shown"
	n=0
	while IFS= read -r -d '' f; do
		rc=1
		for b in "$fh"/*; do cmp -s "$b" "$f" && { rc=0; break; }; done
		[ "$rc" -eq 0 ] || { n=$((n + 1)); echo "  $f is no backup"; }
	done < <(find "$st/file-history" -type f -print0)
	[ "$n" -eq 0 ] && ok "every file under state/file-history is a backup" || bad "$n files are not backups"
	f="$st/read-cache/home/user/src/todo-app/README.md"
	n=0
	while IFS= read -r line; do
		[ -z "$line" ] && continue
		grep -qF -- "$line" "$mnt"/branches/current/*-tool_result-Read.md || n=$((n + 1))
	done < "$f"
	[ -s "$f" ] && [ "$n" -eq 0 ] && ok "read-cache README.md holds what the Read returned" ||
		bad "read-cache README.md: $n lines not in the Read result"
	grep -q 'A tiny command line todo list' "$f" && ok "read-cache README.md content" || bad "README content"
	[ ! -e "$st/read-cache/home/user/src/todo-app/docs/USAGE.md" ] &&
		ok "the failed Read (is_error) is not cached" || bad "failed read cached"
	grep -q '"path": "/home/user/src/todo-app/README.md"' "$st/read-cache.json" &&
		ok "read-cache.json lists README.md" || bad "read-cache.json"
	grep -q '"snapshot": "001-' "$st/file-history.json" && ok "file-history.json indexes snapshots" ||
		bad "file-history.json"
	grep -q '^line [0-9]*: state:' "$mnt/errors.txt" && bad "state errors: $(grep state: "$mnt/errors.txt")" ||
		ok "no state errors with the backups at hand"
	check_modes "$st"
	check_inside "$st"
	unmount_log "$mnt"
}

# The top-level copy of the log has no file-history folder beside it:
# missing backups are listed, never fatal; -o file_history finds them.
check_missing_folder() {
	local log mnt n
	log="$CORPUS/tools/session.jsonl"
	mnt="$T/nofolder"
	mount_log "$log" "$mnt" || { bad "mount tools/session.jsonl"; return; }
	n=$(grep -c 'state: file-history: backup .* not found' "$mnt/errors.txt")
	[ "$n" -ge 1 ] && ok "missing backups reported in errors.txt ($n)" || bad "missing backups not reported"
	grep -q '"status": "missing"' "$mnt/state/file-history.json" &&
		ok "file-history.json marks them missing" || bad "file-history.json missing status"
	[ -z "$(find "$mnt/state/file-history" -type f)" ] && ok "no backup files without the folder" ||
		bad "backup files without a folder"
	unmount_log "$mnt"
	mnt="$T/withfolder"
	mount_log "$log" "$mnt" -o "file_history=$CORPUS/tools/file-history" ||
		{ bad "mount with -o file_history"; return; }
	n=$(find "$mnt/state/file-history" -type f | wc -l)
	[ "$n" -ge 5 ] && ok "-o file_history=DIR: $n backup files" || bad "-o file_history: $n files"
	grep -q 'state: file-history' "$mnt/errors.txt" && bad "errors with -o file_history" ||
		ok "-o file_history=DIR: nothing missing"
	unmount_log "$mnt"
}

# A log with hostile paths in Read inputs and file-history records.
write_hostile() {
	local f=$1 long
	long=$(printf 'p%.0s' $(seq 1 300))
	row() { printf '{"parentUuid":%s,"isSidechain":false,"type":"%s",%s,"uuid":"%s","timestamp":"2026-01-01T10:00:%02d.000Z","cwd":"/home/u/app","sessionId":"s-1","version":"2.1.328"}\n' "$1" "$2" "$3" "$4" "$5"; }
	read_pair() {	# n parent path-json
		row "\"$2\"" assistant "\"message\":{\"id\":\"m$1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t$1\",\"name\":\"Read\",\"input\":{\"file_path\":$3}}]}" "u$1" "$1"
		row "\"u$1\"" user "\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"t$1\",\"type\":\"tool_result\",\"content\":\"x\"}]},\"toolUseResult\":{\"type\":\"text\",\"file\":{\"filePath\":$3,\"content\":\"evil $1\\n\",\"numLines\":1,\"startLine\":1,\"totalLines\":1}}" "r$1" "$1"
	}
	{
		row null user '"message":{"role":"user","content":"go"}' u0 0
		echo '{"type":"file-history-snapshot","messageId":"u0","snapshot":{"messageId":"u0","trackedFileBackups":{"/../../etc/y":{"backupFileName":"0123456789abcdef@v1","version":1},"b/../../../c":{"backupFileName":"0123456789abcdef@v1","version":1},"/home/u/n\u0000ul":{"backupFileName":"0123456789abcdef@v1","version":1},"/home/u/ok":{"backupFileName":"../../../../etc/passwd","version":1}},"timestamp":"2026-01-01T10:00:00.000Z"},"isSnapshotUpdate":false}'
		read_pair 1 u0 '"/../../etc/x"'
		read_pair 2 r1 '"a/../../b"'
		read_pair 3 r2 '"/home/u/a\u0000/../../etc/passwd"'
		read_pair 4 r3 "\"/home/u/$long/x\""
		row '"r4"' assistant '"message":{"id":"m5","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t5","name":"Read","input":{"file_path":"/home/u/part.c","offset":3,"limit":2}}]}' u5 5
		row '"u5"' user '"message":{"role":"user","content":[{"tool_use_id":"t5","type":"tool_result","content":"     3\tc"}]},"toolUseResult":{"type":"text","file":{"filePath":"/home/u/part.c","content":"c\nd\n","numLines":2,"startLine":3,"totalLines":9}}' r5 5
		row '"r5"' assistant '"message":{"id":"m6","type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn"}' a6 6
	} > "$f"
}

check_hostile() {
	local log mnt st n
	log="$T/hostile.jsonl"
	write_hostile "$log"
	mnt="$T/hostile"
	mount_log "$log" "$mnt" || { bad "mount hostile log: $(cat "$mnt.err")"; return; }
	st="$mnt/state"
	timeout 60 find "$st" > "$T/hostile.find" && ok "find state/ on a hostile log" || bad "find hostile"
	n=$(grep -c -e '/\.\./' -e '/\.\.$' -e '/etc' "$T/hostile.find")
	[ "$n" -eq 0 ] && ok "no '..' or /etc entry under state/" || bad "escaping entries: $(grep -e '\.\.' -e etc "$T/hostile.find")"
	[ "$(cat "$st/read-cache/home/u/part.c")" = "$(printf 'c\nd')" ] && ok "the good read is there" || bad "part.c"
	[ "$(getfattr --absolute-names --only-values -n user.sessfs.partial "$st/read-cache/home/u/part.c" 2>/dev/null)" = "offset=3 limit=2" ] &&
		ok "getfattr user.sessfs.partial: offset=3 limit=2" || bad "partial xattr"
	for want in '"/../../etc/x" left out' '"a/../../b" left out' 'a NUL byte' \
		    'a part longer than 255 bytes' '"/../../etc/y" left out' '"b/../../../c" left out' \
		    'backup name of "/home/u/ok" left out'; do
		grep -qF -- "$want" "$mnt/errors.txt" && ok "errors.txt: $want" || bad "errors.txt lacks: $want"
	done
	[ "$(grep -c 'state: read-cache' "$mnt/errors.txt")" -eq 4 ] && ok "each hostile Read reported once" ||
		bad "read-cache reports: $(grep -c 'state: read-cache' "$mnt/errors.txt")"
	check_modes "$st"
	check_inside "$st"
	# The log grows: a new Read shows up without a remount.
	printf '%s\n' '{"parentUuid":"a6","isSidechain":false,"type":"user","message":{"role":"user","content":"more"},"uuid":"u7","timestamp":"2026-01-01T10:00:07.000Z","cwd":"/home/u/app","sessionId":"s-1"}' \
		'{"parentUuid":"u7","isSidechain":false,"type":"assistant","message":{"id":"m8","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t8","name":"Write","input":{"file_path":"/home/u/new.txt","content":"fresh\n"}}]},"uuid":"u8","timestamp":"2026-01-01T10:00:08.000Z","cwd":"/home/u/app","sessionId":"s-1"}' \
		'{"parentUuid":"u8","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t8","type":"tool_result","content":"ok"}]},"uuid":"r8","timestamp":"2026-01-01T10:00:08.500Z","cwd":"/home/u/app","sessionId":"s-1"}' >> "$log"
	wait_until 10 holds "$st/read-cache/home/u/new.txt" fresh &&
		ok "state follows the growing log (Write shows up)" || bad "new Write not seen"
	unmount_log "$mnt"
}

check_hostile
need_corpus
check_worktree
check_agent
check_tools
check_missing_folder
finish
