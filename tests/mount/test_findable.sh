#!/bin/bash
# Findable: one home for every file, harness text out of the way, names
# that say what is inside, the way back to Claude Code (issue 30).
#   - every corpus log mounted alone (half of them under each build of
#     make test, all under make test-full): each record has one file (branches/
#     and harness/ hold distinct records), every link leads to a file,
#     context/ holds files only for the rows the resume adds, no branch
#     holds a harness row as a file, and a grep -rl from the root lists a
#     prompt at most once in context/ and in transcripts/ per record that
#     holds it (once in branches/ by the first check);
#   - a fork's transcript starts where it leaves, with a link that leads;
#     transcripts/current.md is a link;
#   - titles without markup, a session /clear started titled by its first
#     real prompt; agents named from their call; the README lists them
#     with the call that ran each;
#   - a projects mount: forks/ and continued-by/ links, resume commands,
#     messages exact once a session is opened, and a grep over
#     sessions/*/branches/ that meets every message once and no harness
#     file.
# full: every corpus log under each build.
. "$(dirname "$0")/lib.sh"
need_corpus

# Kinds of the harness rows the corpus holds (harness.h HN_ATTACHMENTS).
HARNESS_RE='-(attachment-(environment|model|date|session_context|remote_session_change|prompt_snapshot|deferred_tools_delta|agent_listing_delta|skill_listing|auto_mode|plan_mode|plan_mode_exit)|system-(turn_duration|informational))\.md$'

# one_home MNT NAME: the checks on one mounted log.
one_home() {
	local m=$1 name=$2 n u broken bad_ctx line hits hits_tx hits_ctx recs
	n=$(cd "$m" && find branches harness -type f | wc -l)
	# a message file's first line is "uuid: <its record's uuid>"
	u=$(cd "$m" && find branches harness -type f -exec sed -n '1s/^uuid: //p' {} + |
		sort | uniq -d | wc -l)
	[ "$u" -eq 0 ] &&
		ok "$name: $n files in branches/ and harness/, each record once" ||
		bad "$name: $u records have more than one file"
	broken=$(cd "$m" && find . -xtype l | head -3)
	[ -z "$broken" ] && ok "$name: every link leads to a file" ||
		bad "$name: broken links: $broken"
	bad_ctx=$(cd "$m" && find context -type f ! -name messages.json ! -name window.md \
		! -name '*-tool_result-interrupted.md' ! -name '*-assistant-no_response.md' | head -3)
	[ -z "$bad_ctx" ] && ok "$name: context/ links its rows to their files" ||
		bad "$name: context/ files: $bad_ctx"
	bad_ctx=$(cd "$m" && find branches -type f | grep -E -- "$HARNESS_RE" | head -3)
	[ -z "$bad_ctx" ] && ok "$name: no harness row is a file in branches/" ||
		bad "$name: harness rows in branches/: $bad_ctx"
	# every prompt's longest line: a grep -rl from the root meets it at
	# most once in context/, and in transcripts/ at most once per record
	local worst="" k=0
	while IFS= read -r -d '' f; do
		k=$((k + 1)); [ "$k" -le 4 ] || break	# four prompts a log
		line=$(sed '1,/^$/d' "$m/$f" | awk 'length > length(best) { best = $0 } END { print best }')
		[ "${#line}" -ge 12 ] || continue
		hits=$(cd "$m" && grep -rlF -- "$line" branches transcripts context)
		recs=$(echo "$hits" | grep -c '^branches/')
		hits_tx=$(echo "$hits" | grep -c '^transcripts/')
		hits_ctx=$(echo "$hits" | grep -c '^context/')
		if [ "$hits_ctx" -gt 1 ] || [ "$hits_tx" -gt "$recs" ]; then
			worst="$f: $recs records, $hits_tx transcripts, $hits_ctx in context/"
			break
		fi
	done < <(cd "$m" && find branches -type f -name '*-user.md' -print0)
	[ -z "$worst" ] && ok "$name: grep -rl meets each prompt once per folder" ||
		bad "$name: $worst"
}

# ---- every corpus log, alone ----

nlogs=0 nforks=0
while read -r log; do
	case $log in */agent-*) continue ;; esac
	m="$T/one"
	mount_log "$log" "$m" || { bad "mount $log: $(cat "$m.err")"; continue; }
	name=$(basename "$(dirname "$(dirname "$(dirname "$log")")")")/$(basename "$log")
	nlogs=$((nlogs + 1))
	one_home "$m" "$name"
	nb=$(ls "$m/branches" | grep -vc '^current$')
	if [ "$nb" -gt 1 ]; then
		nforks=$((nforks + 1))
		for tx in "$m"/transcripts/fork-*.md; do
			[ -f "$tx" ] || continue
			parent=$(sed -n 's/^Rows 1 to [0-9]* are the same as on branch \([^:]*\):.*/\1/p' "$tx")
			if [ -n "$parent" ] && [ -f "$m/transcripts/$parent.md" ] &&
			   ! grep -q '^## Turn 1 ·' "$tx"; then
				ok "$name: $(basename "$tx") starts where it leaves $parent"
			else
				bad "$name: $(basename "$tx"): $(sed -n 3,5p "$tx")"
			fi
			break
		done
	fi
	if [ -e "$m/transcripts/current.md" ]; then
		[ -L "$m/transcripts/current.md" ] &&
			[ "$(readlink "$m/transcripts/current.md")" = "$(readlink "$m/branches/current").md" ] &&
			ok "$name: transcripts/current.md links the current branch's" ||
			bad "$name: transcripts/current.md: $(ls -l "$m/transcripts/current.md")"
	fi
	unmount_log "$m" > /dev/null
done < <(corpus_logs | half_logs)
[ "$nforks" -ge 2 ] && ok "$nlogs logs mounted, $nforks with several branches" ||
	bad "only $nforks of $nlogs logs have several branches"

# ---- titles ----

# A session /clear started: the command, its empty output, then a prompt.
clear_log() {
	local sid=5e55f500-0000-4000-8000-0000000c1ea4
	printf '{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\\n            <command-message>clear</command-message>\\n            <command-args></command-args>"},"uuid":"c1ea0001-0000-4000-8000-000000000001","timestamp":"2026-12-06T10:00:00.000Z","cwd":"/home/user/src/todo-app","sessionId":"%s","version":"2.1.332"}\n' $sid
	printf '{"parentUuid":"c1ea0001-0000-4000-8000-000000000001","isSidechain":false,"type":"user","message":{"role":"user","content":"<local-command-stdout></local-command-stdout>"},"uuid":"c1ea0001-0000-4000-8000-000000000002","timestamp":"2026-12-06T10:00:00.100Z","cwd":"/home/user/src/todo-app","sessionId":"%s","version":"2.1.332"}\n' $sid
	printf '{"parentUuid":"c1ea0001-0000-4000-8000-000000000002","isSidechain":false,"type":"user","message":{"role":"user","content":"Fix the login bug in auth.py"},"uuid":"c1ea0001-0000-4000-8000-000000000003","timestamp":"2026-12-06T10:00:05.000Z","cwd":"/home/user/src/todo-app","sessionId":"%s","version":"2.1.332"}\n' $sid
	printf '{"parentUuid":"c1ea0001-0000-4000-8000-000000000003","isSidechain":false,"type":"assistant","message":{"id":"msg_c1ea","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Looking."}],"usage":{"input_tokens":10,"output_tokens":2}},"uuid":"c1ea0001-0000-4000-8000-000000000004","timestamp":"2026-12-06T10:00:06.000Z","cwd":"/home/user/src/todo-app","sessionId":"%s","version":"2.1.332"}\n' $sid
}

C="$T/claude"
mkdir -p "$C/projects"
for d in "$CORPUS"/*/projects; do cp -r "$d/." "$C/projects/"; done
clear_log > "$C/projects/-home-user-src-todo-app/5e55f500-0000-4000-8000-0000000c1ea4.jsonl"
P="$T/pj"
mount_or_end "$C/projects" "$P"

markup=$(ls "$P/sessions" | grep -E 'command-(name|message|args)' | head -3)
[ -z "$markup" ] && ok "sessions/ names carry no command markup" || bad "sessions/: $markup"
python3 - "$P/sessions.json" <<'EOF' && ok "sessions.json: no title has markup; /compact is \"/compact\"; /clear's is its prompt" || bad "sessions.json titles"
import json, sys
rows = json.load(open(sys.argv[1]))
titles = {r["sessionId"]: r["title"] for r in rows}
bad = [t for t in titles.values() if t and "<command-" in t]
assert not bad, bad
assert "/compact" in titles.values(), sorted(t for t in titles.values() if t)
assert titles["5e55f500-0000-4000-8000-0000000c1ea4"] == "Fix the login bug in auth.py", titles
EOF
ls "$P/sessions" | grep -q -- '-fix-the-login-bug-in-auth-py-5e55f500$' &&
	ok "the session /clear started is named by its first prompt" ||
	bad "no sessions/ name for the /clear session: $(ls "$P/sessions" | grep c1ea)"

# ---- agents ----

s=$(ls -d "$P"/sessions/*use-an-agent* | head -1)
agents=$(ls "$s/agents" | tr '\n' ' ')
[ "$agents" = "find-test-files-ae2d31bc find-todo-persistence-a56002e4 " ] &&
	ok "agents named from their call: $agents" || bad "agents/: $agents"
line=$(grep '^  - agents/find-todo-persistence-a56002e4: Find todo persistence, run by ' "$s/README.md")
call=${line##*run by }
[ -n "$line" ] && [ -f "$s/$call" ] && grep -q '^--- tool_use Agent' "$s/$call" &&
	ok "README.md names the call that ran each agent ($call)" ||
	bad "README.md agents: $(grep -A3 '^- subagents' "$s/README.md")"
res=$(grep -rl '^agent: agents/find-todo-persistence-a56002e4$' "$s/branches" | head -1)
[ -n "$res" ] && ok "the Task result names the agent's folder" || bad "no result names agents/find-todo-persistence-a56002e4"
w=$(ls "$P"/projects/*/5e55f500-0000-4000-8000-000000000706/agents 2>/dev/null | head -1)
[ "$w" = warmup-2a5af511 ] && ok "an agent no call ran is named by its first prompt ($w)" ||
	bad "2.0.28 warmup agent: $w"
m1="$T/v1"
if mount_log mnt-examples/v1-sidechains.jsonl "$m1"; then
	a=$(ls "$m1/agents" | tr '\n' ' ')
	[ "$a" = "find-date-parsers-01Parser run-date-tests-02Tests sidechain-0000001e " ] &&
		ok "1.0.x inline conversations named from their Task call: $a" || bad "v1 agents/: $a"
	unmount_log "$m1" > /dev/null
fi

# ---- the way back, forks/ and continued-by/ ----

python3 - "$P/sessions.json" "$C/projects" <<'EOF' && ok "sessions.json: resume commands for every session" || bad "sessions.json resume"
import json, os, sys
for r in json.load(open(sys.argv[1])):
    stem = os.path.basename(r["path"])[:-6]
    want = "cd %s && claude --resume %s" % (r["cwd"], stem)
    assert r["resume"] == want, (r["resume"], want)
EOF
grep -q '^- resume it in Claude Code: `cd /home/user/src/todo-app && claude --resume 5e55f500-0000-4000-8000-000000000107`$' "$s/README.md" &&
	ok "README.md gives the command that resumes the session" ||
	bad "README.md resume: $(grep resume "$s/README.md")"
f=$(ls -d "$P"/projects/*/5e55f500-0000-4000-8000-000000000104/forks/*/ 2>/dev/null | head -1)
[ -n "$f" ] && [ -f "$f/README.md" ] &&
	[ "$(cd "$f" && basename "$(readlink -f forked-from)")" = 5e55f500-0000-4000-8000-000000000104 ] &&
	ok "forks/ links the fork, whose forked-from leads back" || bad "forks/ of 104: $(ls -l "$P"/projects/*/5e55f500-0000-4000-8000-000000000104/)"
c=$(ls -d "$P"/projects/*/5e55f500-0000-4000-8000-000000000605/continued-by/*/ 2>/dev/null | head -1)
[ -n "$c" ] && [ -f "$c/README.md" ] && [ -L "$c/continued-from" ] &&
	ok "continued-by/ links the log that continues it" || bad "continued-by/ of 605"
[ ! -e "$P"/projects/home-user-src-todo-app/5e55f500-0000-4000-8000-000000000101/forks ] &&
	ok "no forks/ where nothing forked" || bad "forks/ where nothing forked"

# ---- messages exact once opened ----

x=$(ls -d "$P"/projects/*/5e55f500-0000-4000-8000-000000000110 | head -1)
ls "$x/branches" > /dev/null
wait_until 10 python3 - "$P/sessions.json" "$C/projects" <<'EOF' && ok "messages exact for a session opened" || bad "messages of 110: $(grep 000000000110 "$P/sessions.json" | head -c 300)"
import json, glob, sys
r = [r for r in json.load(open(sys.argv[1])) if r["sessionId"].endswith("000000000110")][0]
n = 0
for l in open(glob.glob(sys.argv[2] + "/*/" + r["path"].split("/")[-1])[0]):
    try:
        n += json.loads(l).get("type") in ("user", "assistant")
    except ValueError:
        pass
assert r["messagesExact"] and r["messages"] == n, (r["messages"], r["messagesExact"], n)
EOF

# ---- a grep over every session's branches ----

files=$(grep -rli commit "$P"/sessions/*/branches/ | wc -l)
harness=$(grep -rli commit "$P"/sessions/*/branches/ | grep -cE -- "$HARNESS_RE")
cur=$(grep -rli commit "$P"/sessions/*/branches/current/ | grep -cE -- "$HARNESS_RE")
[ "$harness" -eq 0 ] && [ "$cur" -eq 0 ] &&
	ok "grep -rli commit sessions/*/branches/: $files files, no harness file" ||
	bad "grep over branches returned $harness harness files ($cur under current/)"
dups=$(grep -rl 'what license' "$P"/sessions/*/ | sed 's|/sessions/\([^/]*\)/\([^/]*\)/.*|\1 \2|' | sort | uniq -d)
[ -z "$dups" ] && ok "a prompt several branches share: once per folder of its session" ||
	bad "found twice in: $dups"
unmount_log "$P" > /dev/null
finish
