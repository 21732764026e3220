#!/bin/bash
# Logs of older Claude Code versions, mounted (no corpus needed):
#   - 1.0.x (mnt-examples/v1-sidechains.jsonl): inline sidechains under
#     agents/, named by their Task call, linked from its result; summary
#     titles; a sidechain and a Task call appended while mounted;
#   - 2.0.x: progress rows, a compact boundary, an agent log beside it;
#   - a log with no links: one branch; a file of usage rows: refused.
. "$(dirname "$0")/lib.sh"

EX="$(dirname "$0")/../../mnt-examples/v1-sidechains.jsonl"
LOG="$T/v1.jsonl"
cp "$EX" "$LOG"
M="$T/m1"
mount_or_end "$LOG" "$M"

# ---- inline sidechains ----
names=$(ls "$M/agents" | tr '\n' ' ')
[ "$names" = "sidechain-0000001e toolu_01Parsers toolu_02Tests " ] &&
	ok "agents/: two Task calls and one unmatched sidechain" || bad "agents/: $names"
for a in toolu_01Parsers toolu_02Tests sidechain-0000001e; do
	[ -L "$M/agents/$a/branches/current" ] && [ -s "$M/agents/$a/context/messages.json" ] &&
		[ -f "$M/agents/$a/README.md" ] && [ ! -e "$M/agents/$a/state" ] &&
		ok "$a: branches/current, context/, README.md, no state/" || bad "$a: tree incomplete"
done
# Every sidechain row is a record of exactly one agent; none is on a main branch.
side=$(grep -c '"isSidechain":true' "$LOG")
inagents=$(ls "$M"/agents/*/records | grep -c '\.json$')
[ "$side" = "$inagents" ] && ok "all $side sidechain rows are under agents/" ||
	bad "$side sidechain rows, $inagents under agents/"
n=0
for f in "$M"/branches/*/*.md "$M"/context/*.md; do
	u=$(sed -n 's/^uuid: //p' "$f" | head -1)
	grep -q "\"isSidechain\":true.*\"uuid\":\"$u\"" "$LOG" && n=$((n + 1))
done
[ "$n" -eq 0 ] && ok "no sidechain row in the main branches or context" || bad "$n sidechain rows in main"
first=$(ls "$M/agents/toolu_02Tests/branches/current/" | head -1)
grep -q "Run the date tests" "$M/agents/toolu_02Tests/branches/current/$first" &&
	ok "toolu_02Tests starts at its prompt" || bad "toolu_02Tests starts with $first"
grep -q '"sidechainRoot"' "$M/agents/toolu_01Parsers/session.json" &&
	ok "an agent's session.json names its root" || bad "no sidechainRoot"
# The Task results link to their agents.
for f in "$M"/branches/main/*-tool_result-Task.md; do
	a=$(getfattr --only-values -n user.sessfs.agent "$f" 2>/dev/null)
	[ -n "$a" ] && [ -d "$M/agents/$a" ] && grep -q "^agent: agents/$a\$" "$f" &&
		ok "$(basename "$f"): agent $a (xattr, header line)" || bad "$(basename "$f"): agent '$a'"
done

# ---- summaries ----
grep -q '^- title: Fix the date parser that drops time zones$' "$M/README.md" &&
	ok "README.md: the session's title" || bad "README.md: no title"
grep -q '"title": "Fix the date parser that drops time zones"' "$M/session.json" &&
	grep -q '"leafUuid": "0d5e11a1-9999-4000-8000-00000000abcd"' "$M/session.json" &&
	ok "session.json: title and continuedFrom" || bad "session.json: title/continuedFrom"

# ---- growth: a new Task call and its sidechain, while mounted ----
cat >> "$LOG" <<'EOF'
{"parentUuid":"00000028-1000-4000-8000-000000000028","isSidechain":false,"userType":"external","cwd":"/home/user/src/dates","sessionId":"7b1c0a10-0000-4000-8000-000000000100","version":"1.0.98","message":{"id":"msg_04","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"tool_use","id":"toolu_04Fix","name":"Task","input":{"description":"Fix it","prompt":"Make parse_datetime attach UTC."}}],"stop_reason":"tool_use"},"type":"assistant","uuid":"00000029-1000-4000-8000-000000000029","timestamp":"2025-08-20T10:01:00.000Z"}
{"parentUuid":null,"isSidechain":true,"userType":"external","cwd":"/home/user/src/dates","sessionId":"7b1c0a10-0000-4000-8000-000000000100","version":"1.0.98","type":"user","message":{"role":"user","content":"Make parse_datetime attach UTC."},"uuid":"00000032-1000-4000-8000-000000000032","timestamp":"2025-08-20T10:01:01.000Z"}
EOF
ls "$M/agents/toolu_04Fix/branches/current/" >/dev/null 2>&1 &&
	[ "$(ls "$M/agents/toolu_04Fix/branches/current/" | wc -l)" = 1 ] &&
	ok "a sidechain written while mounted shows up under its Task id" ||
	bad "agents/toolu_04Fix missing: $(ls "$M/agents" | tr '\n' ' ')"
cat >> "$LOG" <<'EOF'
{"parentUuid":"00000032-1000-4000-8000-000000000032","isSidechain":true,"userType":"external","cwd":"/home/user/src/dates","sessionId":"7b1c0a10-0000-4000-8000-000000000100","version":"1.0.98","message":{"id":"msg_F1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"text","text":"Done: tz defaults to UTC."}],"stop_reason":"end_turn"},"type":"assistant","uuid":"00000033-1000-4000-8000-000000000033","timestamp":"2025-08-20T10:01:02.000Z"}
EOF
[ "$(ls "$M/agents/toolu_04Fix/branches/current/" | wc -l)" = 2 ] &&
	ok "the new agent grows with the log" || bad "agent did not grow"
[ "$(ls "$M/branches/main/" | wc -l)" = 10 ] && ok "main grows by the Task call only" ||
	bad "main has $(ls "$M/branches/main/" | wc -l) files"
unmount_log "$M"

# ---- 2.0.x ----
SID=5e55f500-0000-4000-8000-000000000200
E='"isSidechain":false,"userType":"external","cwd":"/home/u/p","sessionId":"'$SID'","version":"2.0.49","slug":"quiet-dancing-otter"'
L2="$T/$SID.jsonl"
cat > "$L2" <<EOF
{"parentUuid":null,$E,"type":"user","message":{"role":"user","content":"list the files"},"uuid":"u1","timestamp":"2025-11-20T10:00:00.000Z","thinkingMetadata":{"level":"high"},"todos":[]}
{"parentUuid":"u1",$E,"type":"progress","data":{"type":"hook_progress"},"uuid":"p1","timestamp":"2025-11-20T10:00:00.500Z"}
{"parentUuid":"p1",$E,"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"prompt":"Warmup"}}],"stop_reason":"tool_use"},"uuid":"a1","timestamp":"2025-11-20T10:00:01.000Z"}
{"parentUuid":"a1",$E,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"ready"}]},"toolUseResult":{"agentId":"a1b2c3d4","status":"completed"},"uuid":"r1","timestamp":"2025-11-20T10:00:02.000Z"}
{"type":"turn_end","sessionId":"$SID"}
{"parentUuid":null,"logicalParentUuid":"r1",$E,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","level":"info","compactMetadata":{"trigger":"auto","preTokens":155000},"uuid":"b1","timestamp":"2025-11-20T10:05:00.000Z"}
{"parentUuid":"b1",$E,"type":"user","message":{"role":"user","content":"This session is being continued. Summary: ls"},"isCompactSummary":true,"uuid":"s1","timestamp":"2025-11-20T10:05:01.000Z"}
EOF
cat > "$T/agent-a1b2c3d4.jsonl" <<EOF
{"parentUuid":null,"isSidechain":true,"sessionId":"$SID","version":"2.0.49","agentId":"a1b2c3d4","type":"user","message":{"role":"user","content":"Warmup"},"uuid":"w1","timestamp":"2025-11-20T10:00:01.500Z"}
EOF
M2="$T/m2"
mount_or_end "$L2" "$M2"
files=$(ls "$M2/branches/main" | tr '\n' ' ')
[ "$files" = "000001-user.md 000002-tool_use-Task.md 000003-tool_result-Task.md 000004-compact_boundary.md 000005-summary.md " ] &&
	ok "2.0.x: progress bridged, boundary joined: $files" || bad "2.0.x branch: $files"
grep -q 155000 "$M2/branches/main/000004-compact_boundary.md" && ok "2.0.x: boundary shows preTokens" ||
	bad "2.0.x: boundary file"
[ -d "$M2/agents/a1b2c3d4/branches" ] &&
	[ "$(getfattr --only-values -n user.sessfs.agent "$M2/branches/main/000003-tool_result-Task.md" 2>/dev/null)" = a1b2c3d4 ] &&
	ok "2.0.x: agent-<id>.jsonl beside the log, linked" || bad "2.0.x: agent"
[ ! -s "$M2/errors.txt" ] && ok "2.0.x: errors.txt empty (turn_end, slug, todos ignored)" ||
	bad "2.0.x errors: $(cat "$M2/errors.txt")"
unmount_log "$M2"

# ---- no links; not a log ----
L3="$T/flat.jsonl"
for i in 1 2 3 4; do
	echo "{\"type\":\"user\",\"uuid\":\"r$i\",\"message\":{\"role\":\"user\",\"content\":\"row $i\"}}"
done > "$L3"
M3="$T/m3"
mount_or_end "$L3" "$M3"
[ "$(ls "$M3/branches")" = "$(printf 'current\nmain')" ] && [ "$(ls "$M3/branches/main" | wc -l)" = 4 ] &&
	ok "unlinked log: one branch of 4 rows" || bad "unlinked: $(ls "$M3/branches")"
grep -q "read in file order as one branch" "$M3/errors.txt" && [ "$(wc -l < "$M3/errors.txt")" = 1 ] &&
	ok "unlinked log: one line in errors.txt" || bad "unlinked errors: $(cat "$M3/errors.txt")"
unmount_log "$M3"

# ---- a 1.0.98 session resumed three times: one conversation ----
# Each -p --resume of 1.0.x writes a new log: summary rows naming the
# resumed log's leaves, a copy of its chain (new sessionId, new times),
# then the new turn. sessions/ lists the conversation once (its newest
# log), and the logs link each other (continued-from, continued-by).
PJ="$T/pj/projects/-home-u-p"
mkdir -p "$PJ"
python3 - "$PJ" <<'EOF'
import json, sys, uuid
d = sys.argv[1]
def row(sid, u, p, t, kind, text, sec):
    m = {"role": kind, "content": text} if kind == "user" else \
        {"id": "msg_" + u[:8], "type": "message", "role": "assistant",
         "model": "claude-sonnet-4-20250514", "content": [{"type": "text", "text": text}]}
    return {"parentUuid": p, "isSidechain": False, "userType": "external", "cwd": "/home/u/p",
            "sessionId": sid, "version": "1.0.98", "type": kind, "message": m, "uuid": u,
            "timestamp": "2025-08-01T10:%02d:%02d.000Z" % (t, sec)}
chain, ids = [], ["a0000000-0000-4000-8000-00000000000%d" % i for i in range(1, 5)]
for n, sid in enumerate(ids):
    rows = [{"type": "summary", "summary": "Old work", "leafUuid": chain[-1][0]}] if chain else []
    rows += [row(sid, u, p, n, k, x, i) for i, (u, p, k, x) in enumerate(chain)]
    last = chain[-1][0] if chain else None
    q, a = str(uuid.uuid4()), str(uuid.uuid4())
    chain = chain + [(q, last, "user", "Turn %d, PROMPT-%d" % (n + 1, n + 1)),
                     (a, q, "assistant", "Answer %d." % (n + 1))]
    rows += [row(sid, q, last, n, "user", chain[-2][3], 50), row(sid, a, q, n, "assistant", chain[-1][3], 51)]
    with open("%s/%s.jsonl" % (d, sid), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
EOF
M5="$T/m5"
mount_or_end "$T/pj" "$M5"
A=a0000000-0000-4000-8000-00000000000
P5="$M5/projects/home-u-p"
[ "$(ls "$M5/sessions" | wc -l)" = 1 ] && [ "$(readlink -f "$M5/sessions/"*)" = "$(readlink -f "$P5/${A}4")" ] &&
	ok "1.0.98 resumed three times: sessions/ lists it once, by its newest log" ||
	bad "1.0.98 resumed: sessions/: $(ls "$M5/sessions")"
[ "$(readlink "$P5/${A}4/continued-from")" = "../../home-u-p/${A}3" ] &&
	[ "$(readlink "$P5/${A}2/continued-from")" = "../../home-u-p/${A}1" ] &&
	[ "$(readlink "$P5/${A}1/continued-by")" = "../../home-u-p/${A}2" ] &&
	[ "$(readlink "$P5/${A}3/continued-by")" = "../../home-u-p/${A}4" ] &&
	[ ! -e "$P5/${A}1/continued-from" ] && [ ! -e "$P5/${A}4/continued-by" ] &&
	ok "1.0.98 resumed three times: continued-from and continued-by link the logs" ||
	bad "1.0.98 resumed: links: $(ls "$P5"/*/continued-*)"
[ "$(grep -rl 'PROMPT-1' "$M5"/sessions/*/branches/current/ | wc -l)" = 1 ] &&
	[ "$(ls "$M5"/sessions/*/branches/current/ | grep -c 'user')" = 4 ] &&
	ok "1.0.98 resumed three times: every turn once, in one branch" ||
	bad "1.0.98 resumed: $(grep -rl 'PROMPT-1' "$M5"/sessions/*/branches/current/)"
python3 - "$M5/sessions.json" <<'EOF' && ok "1.0.98 resumed three times: sessions.json" || bad "1.0.98 resumed: sessions.json"
import json, sys
s = {x["sessionId"][-1]: x for x in json.load(open(sys.argv[1]))}
assert sorted(s) == ["1", "2", "3", "4"], s.keys()
for a, b in (("1", "2"), ("2", "3"), ("3", "4")):
    assert s[a]["continuedBy"] == s[b]["sessionId"], (a, s[a]["continuedBy"])
    assert s[b]["continuedFrom"]["sessionId"] == s[a]["sessionId"], (b, s[b]["continuedFrom"])
assert s["4"]["continuedBy"] is None and s["1"]["continuedFrom"] is None
EOF
[ ! -s "$M5/errors.txt" ] && ok "1.0.98 resumed three times: errors.txt empty" ||
	bad "1.0.98 resumed: $(cat "$M5/errors.txt")"
unmount_log "$M5"

L4="$T/usage.jsonl"
printf '%s\n' '{"timestamp":"2025-08-01T10:00:00Z","usage":{"input_tokens":3}}' > "$L4"
mkdir -p "$T/m4"
out=$("$SESSFS" "$L4" "$T/m4" 2>&1)
rc=$?
[ "$rc" = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && ! mountpoint -q "$T/m4" &&
	ok "usage-only file refused: $out" || { bad "usage-only file: rc $rc: $out"; fusermount3 -u -z "$T/m4" 2>/dev/null; }

finish
