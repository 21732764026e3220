#!/bin/bash
# agents/: the subagents' own logs, mounted beside the session.
#   - the corpus's subagent scenario: one folder per subagent log, each a
#     tree like the session's, meta.json as written, and the main thread's
#     Agent results naming the folder of the agent they ran;
#   - hostile agent ids (in file names and in the results) in a temporary
#     copy: nothing escapes the mount, nothing crashes, each is reported;
#   - agents that appear while mounted, and agent logs that grow.
. "$(dirname "$0")/lib.sh"
need_corpus

SCEN="$CORPUS/subagent"
LOG=$(ls "$SCEN"/projects/*/*.jsonl | head -1)
SUB="${LOG%.jsonl}/subagents"

# A name sessfs may make: [A-Za-z0-9._-], 1..255 bytes, not . or ..
safe_name() {
	[ "${#1}" -ge 1 ] && [ "${#1}" -le 255 ] && [ "$1" != . ] && [ "$1" != .. ] &&
		! printf '%s' "$1" | LC_ALL=C grep -q '[^A-Za-z0-9._-]'
}

# check_agent MNT NAME LOG [META]: agents/NAME is LOG's own tree.
check_agent() {
	local a="$1/agents/$2" log=$3 meta=${4:-} leaf last
	[ -L "$a/branches/current" ] && [ -d "$a/branches/current/" ] &&
		ok "$2: branches/current resolves" || bad "$2: branches/current"
	[ -s "$a/context/messages.json" ] && grep -q '"role"' "$a/context/messages.json" &&
		ok "$2: context/messages.json holds messages" || bad "$2: context/messages.json"
	[ "$(ls "$a/records" | wc -l)" -gt 0 ] && ok "$2: records/" || bad "$2: records/ empty"
	for f in README.md session.json errors.txt; do
		[ -f "$a/$f" ] || bad "$2: no $f"
	done
	[ ! -e "$a/state" ] && [ ! -e "$a/agents" ] && ok "$2: no state/ or agents/ of its own" ||
		bad "$2: state/ or agents/ inside an agent"
	if [ -n "$meta" ]; then
		cmp -s "$a/meta.json" "$meta" && ok "$2: meta.json = $(basename "$meta")" ||
			bad "$2: meta.json differs"
	fi
	# The current branch ends at the log's last chain row, byte for byte.
	last=$(ls "$a/branches/current/" | tail -1)
	leaf=$(sed -n 's/^uuid: //p' "$a/branches/current/$last" | head -1)
	grep '"parentUuid"' "$log" | tail -1 | cmp -s - "$a/records/$leaf.json" &&
		ok "$2: current branch ends at the log's last row ($last)" ||
		bad "$2: current branch ends at $leaf, not the last row"
	[ "$(stat -c %i "$a/..")" = "$(stat -c %i "$1/agents")" ] &&
		ok "$2: .. is agents/" || bad "$2: .. is not agents/"
}

# ---- the corpus scenario ----
corpus_mount() {
	local mnt="$T/sub" want got f id v tu
	mount_log "$LOG" "$mnt" || { bad "mount $LOG: $(cat "$mnt.err")"; return; }
	want=$(cd "$SUB" && find . -name 'agent-*.jsonl' | sed 's|.*/agent-||; s|\.jsonl$||' | sort)
	got=$(ls "$mnt/agents" | sort)
	[ "$(echo "$got" | wc -l)" -eq 2 ] && [ "$got" = "$want" ] &&
		ok "ls agents: the two subagent logs ($(echo $got))" || bad "ls agents: '$got', want '$want'"
	grep -q '^- `agents/' "$mnt/README.md" && grep -q "agents/$(echo "$want" | head -1)" "$mnt/README.md" &&
		ok "README.md names agents/ and its folders" || bad "README.md lacks agents/"
	for id in $want; do
		f=$(find "$SUB" -name "agent-$id.jsonl" | head -1)
		check_agent "$mnt" "$id" "$f" "${f%.jsonl}.meta.json"
	done
	check_sizes "$mnt/agents"
	# Every Agent result names an existing folder, in xattr and header,
	# and it is the agent that call ran (its meta.json's toolUseId).
	n=0
	for f in "$mnt"/branches/current/*-tool_result-Agent.md; do
		v=$(getfattr --absolute-names --only-values -n user.sessfs.agent "$f" 2>/dev/null)
		tu=$(sed -n 's/^--- tool_result (\(.*\)) ---$/\1/p' "$f" | head -1)
		if [ -n "$v" ] && [ -d "$mnt/agents/$v" ] && grep -qx "agent: agents/$v" "$f" &&
		   grep -q "\"toolUseId\":\"$tu\"" "$mnt/agents/$v/meta.json"; then
			n=$((n + 1))
		else
			bad "$(basename "$f"): agent '$v' (call $tu)"
		fi
	done
	[ "$n" -eq 2 ] && ok "both Agent results name their agent's folder (xattr, header, toolUseId)" ||
		bad "$n Agent results linked, want 2"
	getfattr --absolute-names -d "$mnt"/branches/current/*-tool_result-Agent.md | grep -q 'user.sessfs.agent=' &&
		ok "getfattr -d lists user.sessfs.agent" || bad "getfattr -d lacks user.sessfs.agent"
	! getfattr --absolute-names -n user.sessfs.agent "$mnt"/branches/current/000001-user.md >/dev/null 2>&1 &&
		ok "a prompt has no user.sessfs.agent" || bad "a prompt has user.sessfs.agent"
	# the corpus's model is in no price table: said once, nothing else
	[ -z "$(grep -v 'is not in the price table' "$mnt/errors.txt")" ] &&
		ok "errors.txt: nothing but the model without a price" ||
		bad "errors.txt: $(cat "$mnt/errors.txt")"
	unmount_log "$mnt"
}

# ---- hostile ids in a temporary copy ----
# hostile_log SRC DST ID1 ID2: the main log with the two Agent results'
# agentId replaced (JSON string bodies).
hostile_log() {
	local ids
	ids=$(grep -o '"agentId":"[^"]*"' "$1" | sort -u | sed 's/"agentId":"//; s/"$//')
	set -- "$1" "$2" "$3" "$4" $ids
	sed -e "s|\"agentId\":\"$5\"|\"agentId\":\"$3\"|g" -e "s|\"agentId\":\"$6\"|\"agentId\":\"$4\"|g" "$1" > "$2"
}

hostile_mount() {
	local d="$T/h/proj" mnt="$T/hostile" a1 a2 long300 n names name e f v
	a1=$(ls "$SUB" | grep -m1 '\.jsonl$')
	a2=$(ls "$SUB" | grep '\.jsonl$' | sed -n 2p)
	mkdir -p "$d/S/subagents/x" "$d/S/subagents/y"
	long300=$(printf 'p%.0s' $(seq 1 300))
	hostile_log "$LOG" "$d/S.jsonl" '/../../etc/x' 'a/../../b'
	hostile_log "$LOG" "$d/N.jsonl" 'a\\u0000b' "$long300"
	mkdir -p "$d/N/subagents"
	cp "$SUB/$a1" "$d/S/subagents/agent-...jsonl"			# id ..
	cp "$SUB/$a1" "$d/S/subagents/agent-..jsonl"			# id .
	cp "$SUB/$a2" "$d/S/subagents/agent-.jsonl"			# id empty
	cp "$SUB/$a2" "$d/S/subagents/agent-a b\$(x).jsonl"
	cp "$SUB/$a2" "$d/S/subagents/agent-$(printf 'L%.0s' $(seq 1 240)).jsonl"
	cp "$SUB/$a1" "$d/S/subagents/x/$a1"				# same id twice
	cp "$SUB/$a1" "$d/S/subagents/y/$a1"
	echo 'not a session log' > "$d/S/subagents/agent-garbage.jsonl"
	ln -s /etc/passwd "$d/S/subagents/agent-etc.jsonl"
	ln -s / "$d/S/subagents/up"
	ln -s . "$d/S/subagents/loop"
	mount_log "$d/S.jsonl" "$mnt" || { bad "mount hostile copy: $(cat "$mnt.err")"; return; }
	names=$(ls -A "$mnt/agents")
	n=$(echo "$names" | wc -l)
	[ "$n" -eq 7 ] && ok "ls agents: 7 folders (5 odd ids, one id twice)" || bad "agents: $n: $names"
	e=0
	while IFS= read -r name; do safe_name "$name" || e=$((e + 1)); done <<< "$names"
	[ "$e" -eq 0 ] && ok "every agent folder name is safe" || bad "$e unsafe names: $names"
	[ "$(echo "$names" | sort -u | wc -l)" -eq "$n" ] && ok "agent folder names are unique" || bad "duplicate names"
	timeout 60 find "$mnt" > "$T/hfind" 2>"$T/hfind.err" && [ ! -s "$T/hfind.err" ] &&
		ok "find walks the whole mount ($(wc -l < "$T/hfind") entries)" || bad "find: $(head -3 "$T/hfind.err")"
	e=0
	while IFS= read -r f; do
		case "$(realpath -s "$f")" in "$mnt"|"$mnt"/*) ;; *) e=$((e + 1)) ;; esac
	done < "$T/hfind"
	[ "$e" -eq 0 ] && ok "every path stays inside the mount" || bad "$e paths outside"
	timeout 120 cat $(find "$mnt/agents" -type f) > /dev/null && ok "cat every agent file" || bad "cat agents"
	check_sizes "$mnt/agents"
	for f in 'agent id "\.\."' 'agent id "\."' 'agent id ""' 'agent id "a b\$(x)"' \
		 'agent id "LLLL' 'another agent has its name' \
		 'agent-etc.jsonl: a link that leads outside' 'agent-garbage.jsonl: cannot be shown'; do
		grep -q "$f" "$mnt/errors.txt" && ok "errors.txt reports: $f" || bad "errors.txt lacks: $f"
	done
	[ "$(grep -c "^agents: " "$mnt/errors.txt")" -eq 8 ] && ok "one line each, nothing else" ||
		bad "errors.txt: $(cat "$mnt/errors.txt")"
	[ -d "$mnt/agents/$(basename "$a1" .jsonl | sed 's/^agent-//')/branches/current/" ] &&
		ok "a plain id keeps its name next to hostile ones" || bad "plain id renamed"
	check_results "$mnt" '/../../etc/x' 'a/../../b'
	check_reported "$mnt" 'agent id "/\.\./\.\./etc/x" of this Agent result' \
		'agent id "a/\.\./\.\./b" of this Agent result'
	unmount_log "$mnt"
	mount_log "$d/N.jsonl" "$mnt" || { bad "mount NUL/300 copy: $(cat "$mnt.err")"; return; }
	[ -z "$(ls -A "$mnt/agents")" ] && ok "no subagents folder: agents/ is empty" || bad "agents/ not empty"
	check_results "$mnt" 'NUL' '300 bytes'
	check_reported "$mnt" 'agent id "a\\x00b" of this Agent result' \
		"agent id \"$long300\" of this Agent result"
	unmount_log "$mnt"
	[ ! -e /etc/x ] && [ ! -e "$T/h/b" ] && ok "nothing written outside" || bad "a file appeared outside"
}

# check_results MNT WHAT...: the Agent results of a hostile copy name a
# safe folder in xattr and header.
check_results() {
	local mnt=$1 f v n=0
	shift
	for f in "$mnt"/branches/current/*-tool_result-Agent.md; do
		v=$(getfattr --absolute-names --only-values -n user.sessfs.agent "$f" 2>/dev/null)
		if safe_name "$v" && grep -qx "agent: agents/$v" "$f"; then n=$((n + 1)); else bad "$(basename "$f"): '$v'"; fi
	done
	[ "$n" -eq 2 ] && ok "agent ids $* in results: safe folder names ($n)" || bad "results: $n"
}

# check_reported MNT PATTERN...: errors.txt has a line for each.
check_reported() {
	local mnt=$1 p
	shift
	for p in "$@"; do
		grep -q "^line [0-9]*: the $p" "$mnt/errors.txt" && ok "errors.txt reports: ${p:0:60}" ||
			bad "errors.txt lacks: $p ($(cat "$mnt/errors.txt"))"
	done
}

# ---- agents that appear, logs that grow ----
live_mount() {
	local d="$T/live/proj" mnt="$T/live-mnt" a1 id before after
	a1=$(ls "$SUB" | grep -m1 '\.jsonl$')
	id=${a1#agent-}
	id=${id%.jsonl}
	mkdir -p "$d/S/subagents"
	cp "$LOG" "$d/S.jsonl"
	mount_log "$d/S.jsonl" "$mnt" || { bad "mount live copy: $(cat "$mnt.err")"; return; }
	[ -z "$(ls -A "$mnt/agents")" ] && ok "no agents yet" || bad "agents before any log"
	head -n 5 "$SUB/$a1" > "$d/S/subagents/$a1"
	cp "$SUB/agent-$id.meta.json" "$d/S/subagents/"
	wait_until 5 test -d "$mnt/agents/$id"
	[ -d "$mnt/agents/$id/branches/current/" ] && ok "an agent that appears while mounted shows up" ||
		bad "new agent not shown: $(ls "$mnt/agents")"
	before=$(ls "$mnt/agents/$id/branches/current/" | wc -l)
	tail -n +6 "$SUB/$a1" >> "$d/S/subagents/$a1"
	wait_until 5 more_than "$before" ls "$mnt/agents/$id/branches/current/"
	after=$(ls "$mnt/agents/$id/branches/current/" | wc -l)
	[ "$after" -gt "$before" ] && ok "its log grows: $before -> $after messages" || bad "growth not seen ($before)"
	check_agent "$mnt" "$id" "$d/S/subagents/$a1" "$d/S/subagents/agent-$id.meta.json"
	check_sizes "$mnt/agents"
	unmount_log "$mnt"
}

# ---- the older layout: agent-<id>.jsonl beside the session log ----
old_layout_mount() {
	local d="$T/old/proj" mnt="$T/old-mnt" f id got want sid n=0 v
	mkdir -p "$d"
	cp "$LOG" "$d/"
	for f in "$SUB"/agent-*.jsonl; do cp "$f" "$d/"; done
	sid=$(basename "$LOG" .jsonl)
	# Another session's agent in the same project folder.
	sed "s/$sid/5e55f500-0000-4000-8000-0000000000ff/g" "$(ls "$SUB"/agent-*.jsonl | head -1)" > "$d/agent-other.jsonl"
	mount_log "$d/$(basename "$LOG")" "$mnt" || { bad "mount old layout: $(cat "$mnt.err")"; return; }
	want=$(cd "$SUB" && ls agent-*.jsonl | sed 's/^agent-//; s/\.jsonl$//' | sort)
	got=$(ls "$mnt/agents" | sort)
	[ "$got" = "$want" ] && ok "older layout: this session's agents only ($(echo $got))" ||
		bad "older layout: agents '$got', want '$want'"
	for id in $got; do
		check_agent "$mnt" "$id" "$d/agent-$id.jsonl"
		[ ! -e "$mnt/agents/$id/meta.json" ] && ok "$id: no meta.json where there is none" ||
			bad "$id: meta.json without a sidecar"
	done
	for f in "$mnt"/branches/current/*-tool_result-Agent.md; do
		v=$(getfattr --absolute-names --only-values -n user.sessfs.agent "$f" 2>/dev/null)
		[ -n "$v" ] && [ -d "$mnt/agents/$v" ] && n=$((n + 1))
	done
	[ "$n" -eq 2 ] && ok "older layout: both Agent results name an existing folder" || bad "older layout: $n linked"
	unmount_log "$mnt"
}

corpus_mount
hostile_mount
live_mount
old_layout_mount
finish
