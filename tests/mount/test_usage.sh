#!/bin/bash
# usage.json, the usage of message files and transcripts/ on every corpus
# log and a log of the bench's generator: the session's totals equal what
# ccusage 20.0.24 reported (recorded in tests/ccusage-20.0.24.tsv and
# tests/ccusage-20.0.24-genlog.tsv), transcripts exist with exact sizes,
# current.md is the current branch's, and a rewind diffs as one hunk.
# full: every corpus log under ASan too; make test takes every other one
# there (lib.sh's LIGHT), and all of them in the plain build.
. "$(dirname "$0")/lib.sh"
TABLE=$(dirname "$0")/../ccusage-20.0.24.tsv

# The value of key in the "session" object of usage.json.
session_field() {
	sed -n '/^  "session": {/,/^  }/p' "$1" | grep -m1 "^    \"$2\":" |
		sed 's/.*: \([0-9]*\),*$/\1/'
}

check_totals() {
	local mnt=$1 log=$2 in=$3 out=$4 cc=$5 cr=$6 total=$7 k v want
	for k in inputTokens:$in outputTokens:$out cacheCreationTokens:$cc \
		 cacheReadTokens:$cr totalTokens:$total; do
		want=${k#*:}
		v=$(session_field "$mnt/usage.json" "${k%%:*}")
		[ "$v" = "$want" ] || { bad "$log: ${k%%:*} $v, ccusage $want"; return; }
	done
	ok "$log: usage.json session = ccusage ($in in / $out out)"
}

check_transcripts() {
	local mnt=$1 log=$2 n=0 nb f cur
	nb=$(ls "$mnt/branches" | grep -vc '^current$')
	[ "$(ls "$mnt/transcripts" | grep -c '\.md$')" -eq $((nb + 1)) ] ||
		{ bad "$log: transcripts: $(ls "$mnt/transcripts" | tr '\n' ' ')"; return; }
	for f in "$mnt"/transcripts/*.md; do
		[ "$(stat -L -c %s "$f")" = "$(wc -c < "$f")" ] || n=$((n + 1))
	done
	[ "$n" -eq 0 ] || { bad "$log: $n transcript sizes differ from stat"; return; }
	cur=$(readlink "$mnt/branches/current")
	[ "$(readlink "$mnt/transcripts/current.md")" = "$cur.md" ] ||
		{ bad "$log: current.md is not $cur.md"; return; }
	grep -q '^## Turn [0-9]*\(, continued\)\{0,1\} · ' "$mnt/transcripts/current.md" ||
		{ bad "$log: no turn heading"; return; }
	ok "$log: $((nb + 1)) transcripts, exact sizes, current.md = $cur.md"
}

# A message file of a response: its header's usage line and attributes.
check_message() {
	local mnt=$1 log=$2 f
	f=$(ls "$mnt"/branches/current/ | grep -m 20 -e '-assistant\.md$' -e '-tool_use-' |
		(cd "$mnt/branches/current" && xargs grep -l '^usage: ' 2>/dev/null) | head -1)
	[ -n "$f" ] || { bad "$log: no usage line in an assistant file"; return; }
	f="$mnt/branches/current/$f"
	getfattr -n user.sessfs.usage.input --only-values "$f" 2>/dev/null | grep -q '^[0-9]' ||
		{ bad "$log: no user.sessfs.usage.input on $f"; return; }
	grep -q '"contextTokensReal": [0-9]' "$mnt/session.json" &&
		grep -q '^## What the model last saw' "$mnt/context/window.md" ||
		{ bad "$log: no real context size"; return; }
	ok "$log: usage line, xattrs, contextTokensReal"
}

# The recipes of mnt-examples/ that read transcripts, on the demo log.
check_recipes() {
	local mnt="$T/demo" fork out
	mount_log mnt-examples/demo.jsonl "$mnt" || { bad "mount demo"; return; }
	sh mnt-examples/bash-commands.sh "$mnt" | grep -qx '\$ ls -la' &&
		ok "bash-commands.sh: commands from the transcript" || bad "bash-commands.sh"
	out=$(sh mnt-examples/forgotten.sh "$mnt")
	echo "$out" | grep -q '^-- [0-9]* messages .* [0-9]* more never were$' &&
		! echo "$out" | grep -q 'prompt_snapshot' &&
		ok "forgotten.sh: what was forgotten, never-sent rows only counted" ||
		bad "forgotten.sh: $(echo "$out" | tail -3)"
	fork=$(ls "$mnt/branches" | grep -m1 '^fork-')
	out=$(sh mnt-examples/diverge.sh "$mnt" main "$fork")
	echo "$out" | grep -q "^$fork continues with: *[0-9]*-user.md" &&
		ok "diverge.sh: the first sent row of each side" || bad "diverge.sh: $out"
	unmount_log "$mnt"
}

# A log of the bench's generator: its usage as ccusage counted it
# (tests/ccusage-20.0.24-genlog.tsv), each response once, its cache writes.
check_genlog() {
	local gen="$T/genlog" args sum in out cc cr total mnt="$T/gen"
	cc -O2 -std=c11 -D_FILE_OFFSET_BITS=64 -o "$gen" tests/bench/genlog/*.c || { bad "build genlog"; return; }
	while IFS=$'\t' read -r args sum in out cc cr total; do
		case $args in '#'*|'') continue ;; esac
		# shellcheck disable=SC2086	# the arguments, split at spaces
		"$gen" $args "$T/gen.jsonl" 2>/dev/null || { bad "genlog $args"; return; }
		[ "$(sha256sum < "$T/gen.jsonl" | cut -d' ' -f1)" = "$sum" ] ||
			{ bad "genlog $args writes another log than ccusage was measured on: measure again"; return; }
		mount_log "$T/gen.jsonl" "$mnt" || { bad "mount genlog $args"; return; }
		check_totals "$mnt" "genlog $args" "$in" "$out" "$cc" "$cr" "$total"
		unmount_log "$mnt"
	done < "$(dirname "$0")/../ccusage-20.0.24-genlog.tsv"
}

check_recipes
check_genlog
need_corpus
i=0
while IFS=$'\t' read -r log in out cc cr total models; do
	case $log in '#'*|'') continue ;; esac
	i=$((i + 1))
	[ "$LIGHT" = 1 ] && [ $((i % 2)) -eq 0 ] && continue
	mnt="$T/m$i"
	mount_log "$CORPUS/$log" "$mnt" || { bad "mount $log"; continue; }
	short=${log%%/projects/*}
	case $log in */subagents/*) short="$short/$(basename "$log")" ;; esac
	check_totals "$mnt" "$short" "$in" "$out" "$cc" "$cr" "$total"
	check_transcripts "$mnt" "$short"
	check_message "$mnt" "$short"
	if [ "$short" = subagent ]; then
		n=$(ls "$mnt/agents" | wc -l)
		grep -q "\"name\": \"$(ls "$mnt/agents" | head -1)\"" "$mnt/usage.json" && [ "$n" -eq 2 ] &&
			ok "subagent: usage.json lists the 2 agents" || bad "subagent: agents in usage.json"
	fi
	other=$(ls "$mnt/transcripts" | grep -m1 '^fork-')
	if [ "$short" = fork ] && [ -n "$other" ]; then
		h=$(diff -u "$mnt/transcripts/main.md" "$mnt/transcripts/$other" | grep -c '^@@')
		[ "$h" -eq 1 ] && ok "fork: diff -u main.md $other is one hunk" ||
			bad "fork: diff -u of the transcripts has $h hunks"
	fi
	fusermount3 -u "$mnt"
	wait "$PID"
	reaped "$mnt" "$PID"
done < "$TABLE"
[ "$i" -ge 20 ] && ok "$i logs checked" || bad "only $i logs in $TABLE"
finish
