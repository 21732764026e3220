#!/bin/bash
# The projects mount's token totals and continuations: usage.json at the
# root gives every session's totals, equal to what ccusage 20.0.24
# reported for each corpus log (tests/ccusage-20.0.24.tsv) and to each
# session's own usage.json, and their cost in dollars as ccusage prices it
# (tests/ccusage-20.0.24-cost.tsv); sessions.json carries a session's totals once
# it has been read; the days sum to the totals; a grown log is counted
# again. Then small 1.0.x-style
# logs of our own: a summary whose leafUuid is in a sibling log gives
# continued-from and continuedFrom.
. "$(dirname "$0")/lib.sh"
TABLE=$(dirname "$0")/../ccusage-20.0.24.tsv
FIG=$(dirname "$0")/../ccusage-20.0.24-cost.tsv
P=home-user-src-todo-app

# ---- continuations (no corpus needed) ----

# v1 ID PARENT-ID-OR-null TEXT...: a 1.0.x user row
row() {
	printf '{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"%s","version":"1.0.98","type":"%s","message":{"role":"%s","content":"%s"},"uuid":"%s","timestamp":"%s"}\n' \
		"$1" "$2" "$3" "$3" "$4" "$5" "$6"
}
C1="$T/v1/projects/-home-u-app"
mkdir -p "$C1"
A=aaaaaaaa-0000-4000-8000-000000000001
B=bbbbbbbb-0000-4000-8000-000000000002
N=cccccccc-0000-4000-8000-000000000003
{
	row null $A user "fix the parser" a1000000-0000-4000-8000-000000000001 2025-06-01T10:00:00.000Z
	row '"a1000000-0000-4000-8000-000000000001"' $A assistant "done" \
		a1000000-0000-4000-8000-000000000002 2025-06-01T10:00:05.000Z
} > "$C1/$A.jsonl"
{
	printf '{"type":"summary","summary":"Parser fix","leafUuid":"a1000000-0000-4000-8000-000000000002"}\n'
	row null $B user "go on" b1000000-0000-4000-8000-000000000001 2025-06-02T10:00:00.000Z
	row '"b1000000-0000-4000-8000-000000000001"' $B assistant "ok" \
		b1000000-0000-4000-8000-000000000002 2025-06-02T10:00:05.000Z
} > "$C1/$B.jsonl"
{
	printf '{"type":"summary","summary":"Lost","leafUuid":"dddddddd-0000-4000-8000-00000000dead"}\n'
	row null $N user "alone" c1000000-0000-4000-8000-000000000001 2025-06-03T10:00:00.000Z
} > "$C1/$N.jsonl"
V="$T/mv"
mount_or_end "$T/v1" "$V"
grep "\"$B\"" "$V/sessions.json" | grep -q '"continuedFrom":null' &&
	ok "sessions.json: continuedFrom null before the session is read" ||
	bad "continuedFrom before read: $(grep "\"$B\"" "$V/sessions.json")"
ls "$V/projects/home-u-app/$B/" > "$T/ls.txt"
grep -qx continued-from "$T/ls.txt" && ! grep -qx forked-from "$T/ls.txt" &&
	ok "continued-from listed in the continuing session" || bad "listing: $(tr '\n' ' ' < "$T/ls.txt")"
[ "$(readlink "$V/projects/home-u-app/$B/continued-from")" = "../../home-u-app/$A" ] &&
	grep -q '"sessionId": "'$A'"' "$V/projects/home-u-app/$B/continued-from/session.json" &&
	ok "continued-from leads to the session holding the leaf" ||
	bad "continued-from: $(readlink "$V/projects/home-u-app/$B/continued-from")"
grep "\"$B\"" "$V/sessions.json" |
	grep -q "\"continuedFrom\":{\"sessionId\":\"$A\",\"leafUuid\":\"a1000000-0000-4000-8000-000000000002\"}" &&
	ok "sessions.json: continuedFrom once read" ||
	bad "sessions.json continuedFrom: $(grep "\"$B\"" "$V/sessions.json")"
ls "$V/projects/home-u-app/$N/" > /dev/null
[ ! -e "$V/projects/home-u-app/$N/continued-from" ] && [ ! -e "$V/projects/home-u-app/$A/continued-from" ] &&
	grep "\"$N\"" "$V/sessions.json" | grep -q '"continuedFrom":{"sessionId":null,"leafUuid":"dddddddd' &&
	ok "a leaf found nowhere: no link, continuedFrom without a session" ||
	bad "unfound leaf: $(grep "\"$N\"" "$V/sessions.json")"
unmount_log "$V"

# ---- totals over the corpus ----

need_corpus
C="$T/claude"
mkdir -p "$C/projects"
for d in "$CORPUS"/*/projects; do cp -r "$d/." "$C/projects/"; done
M="$T/m"
mount_or_end "$C" "$M"
S=$(ls "$M/projects/$P/" | head -1)
grep "\"$S\"" "$M/sessions.json" | grep -q '"usage":null' &&
	ok "sessions.json: usage null before the session is read" || bad "usage before read"
cat "$M/projects/$P/$S/session.json" > /dev/null
grep "\"$S\"" "$M/sessions.json" | grep -q '"usage":{"inputTokens":' &&
	ok "sessions.json: usage once the session is read" ||
	bad "usage after read: $(grep "\"$S\"" "$M/sessions.json")"
[ "$(stat -c %s "$M/usage.json")" = "$(wc -c < "$M/usage.json")" ] &&
	ok "usage.json: exact size at stat" || bad "usage.json size"
python3 - "$M" "$TABLE" "$P" <<'EOF' && ok "usage.json: every session = ccusage and its own usage.json; sums" || bad "usage.json"
import json, sys, os
m, table, p = sys.argv[1:]
u = json.load(open(m + "/usage.json"))
want = {}
for line in open(table):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    if "/projects/" in f[0] and "/agent-" not in f[0]:
        want[os.path.basename(f[0])[:-6]] = f
sess = {x["sessionId"]: x for x in u["sessions"]}
assert len(sess) == len(u["sessions"]) == len(json.load(open(m + "/sessions.json")))
assert set(want) <= set(sess), set(want) - set(sess)
keys = ["inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens", "totalTokens"]
for sid, f in want.items():
    x = sess[sid]
    assert [x[k] for k in keys] == [int(v) for v in f[1:6]], (sid, x, f)
    assert x["modelsUsed"] == f[6].split(","), (sid, x["modelsUsed"])
    own = json.load(open(m + "/" + x["folder"] + "/usage.json"))["session"]
    for k in keys + ["modelsUsed", "responses", "costUSD", "costUSDLogged"]:
        assert own.get(k) == x.get(k), (sid, k, own.get(k), x.get(k))
for k in keys + ["responses"]:
    assert u["totals"][k] == sum(x[k] for x in u["sessions"]), k
    assert u["totals"][k] == sum(x[k] for x in u["projects"]), k
    assert u["totals"][k] == sum(x[k] for x in u["daily"]), k
assert u["totals"]["sessions"] == len(u["sessions"])
d = [x["date"] for x in u["daily"]]
assert d == sorted(set(d)) and d, d
assert [x["project"] for x in u["projects"]] == sorted(os.listdir(m + "/projects"))
EOF
python3 - "$M" "$FIG" "$C/projects" <<'EOF' && ok "usage.json: each session's costUSD = ccusage's, the totals = ccusage's but for the agent logs no session holds" || bad "usage.json: costs against ccusage"
# ccusage 20.0.24 over this folder (tests/ccusage-20.0.24-cost.tsv, set
# corpus): a session's figure is its own log's (its subagents/ counted in
# when it has that folder); a 2.0.x agent-*.jsonl beside the logs is a
# "session" of its own there, which sessfs counts in the session that ran
# it (usage.json: agents). Its total less the agent logs that no session
# of ours holds is ours, tokens and dollars.
import json, os, sys
m, fig, projects = sys.argv[1:]
u = json.load(open(m + "/usage.json"))
keys = ["inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens", "totalTokens"]
cc, total = {}, None
for line in open(fig):
    f = line.rstrip("\n").split("\t")
    if line.startswith("#") or f[0] != "corpus":
        continue
    fig_row = dict(zip(keys, map(int, f[3:8])), costUSD=float(f[9]), auto=float(f[10]))
    if f[1] == "session":
        cc[f[2]] = fig_row
    elif f[1] == "total":
        total = fig_row
assert total and cc
def same(x, y, what):
    assert [x[k] for k in keys] == [y[k] for k in keys], (what, x, y)
    assert abs(x["costUSD"] - y["costUSD"]) < 1e-9, (what, x["costUSD"], y["costUSD"])
    assert abs(y["auto"] - y["costUSD"]) < 1e-12, what   # no row logs its cost here
agents = []
for x in u["sessions"]:
    own = json.load(open(m + "/" + x["folder"] + "/usage.json"))
    sub = os.path.isdir(os.path.join(projects, os.path.dirname(x["path"]), x["sessionId"], "subagents"))
    if x["sessionId"] in cc:
        same(own["session" if sub else "log"], cc[x["sessionId"]], x["sessionId"])
    if not sub:
        agents += own["agents"]
left = [v for k, v in cc.items() if k.startswith("agent-")]
for a in agents:    # each agent of ours is one agent log of ccusage's
    hit = [v for v in left if [v[k] for k in keys] == [a[k] for k in keys] and
           abs(v["costUSD"] - a["costUSD"]) < 1e-9]
    assert hit, a
    left.remove(hit[0])
t = u["totals"]
for k in keys + ["costUSD"]:
    assert abs(t[k] - (total[k] - sum(v[k] for v in left))) < 1e-9, (k, t[k], total[k], left)
assert t["costUSD"] > 0.1 and t["unpricedModels"] == ["claude-opus-5-5"], t
for part in ("daily", "monthly", "models"):
    assert abs(sum(x["costUSD"] for x in u[part]) - t["costUSD"]) < 1e-9, part
EOF
grep "\"$S\"" "$M/sessions.json" | grep -q '"usage":{' && ok "sessions.json: usage after usage.json" ||
	bad "sessions.json usage after usage.json"

# A log that grows is counted again (after the folder is looked at again).
G=5e55f500-0000-4000-8000-000000000101
before=$(grep "\"$G\"" "$M/usage.json" | sed 's/.*"inputTokens":\([0-9]*\).*/\1/')
printf '%s\n' '{"parentUuid":null,"type":"assistant","sessionId":"'$G'","uuid":"99999999-0000-4000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","requestId":"req_grown","message":{"id":"msg_grown","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"more"}],"usage":{"input_tokens":1000,"output_tokens":7,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}' \
	>> "$C/projects/-home-user-src-todo-app/$G.jsonl"
in_of() { grep "\"$G\"" "$M/usage.json" | sed 's/.*"inputTokens":\([0-9]*\).*/\1/'; }
in_is() { [ "$(in_of)" = "$1" ]; }
wait_until 10 in_is "$((before + 1000))"	# once the folder is looked at again
after=$(in_of)
[ -n "$before" ] && [ "$after" = "$((before + 1000))" ] &&
	ok "a grown log is counted again ($before -> $after in)" || bad "grown log: $before -> $after"
[ "$(stat -c %s "$M/usage.json")" = "$(wc -c < "$M/usage.json")" ] &&
	ok "usage.json: exact size at stat after growth" || bad "usage.json size after growth"
unmount_log "$M"
finish
