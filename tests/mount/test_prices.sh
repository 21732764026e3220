#!/bin/bash
# Dollars, against ccusage 20.0.24: the projects mount of tests/ccusage/claude
# (logs of our own with real model names: make-logs.py there says what they
# hold) gives, in usage.json, each session's, month's and five-hour block's
# costUSD and the total as ccusage's `--mode calculate` (recorded in
# tests/ccusage-20.0.24-cost.tsv) to the cent, and costUSDLogged as its
# `--mode auto`; each day as ccusage's `daily` but for the rows the README
# names; usage.txt and errors.txt say the same. Then one session at a time:
# README.md's and the transcript's line, the message headers, xattrs and
# errors.txt; -o prices=FILE and -o tz=ZONE, and their errors.
. "$(dirname "$0")/lib.sh"
FIG=$(dirname "$0")/../ccusage-20.0.24-cost.tsv
C=$(dirname "$0")/../ccusage/claude
SHOP=projects/home-u-shop
S1=a1a1a1a1-0000-4000-8000-000000000001
S2=b2b2b2b2-0000-4000-8000-000000000002
S3=c3c3c3c3-0000-4000-8000-000000000003

# ---- the folder, days in New York ----

M="$T/m"
mount_or_end "$C" "$M" -o tz=America/New_York
[ "$(stat -c %s "$M/usage.txt")" = "$(wc -c < "$M/usage.txt")" ] &&
	[ "$(stat -c %s "$M/usage.json")" = "$(wc -c < "$M/usage.json")" ] &&
	ok "usage.json, usage.txt: exact sizes at stat" || bad "usage.json/txt sizes"
python3 - "$M" "$FIG" <<'EOF' && ok "usage.json = ccusage: sessions, months, blocks, total to the cent; days but for the named rows" || bad "usage.json against ccusage"
import json, sys
m, fig = sys.argv[1:]
u = json.load(open(m + "/usage.json"))
want = {}
for line in open(fig):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    if f[0] == "own":
        want.setdefault(f[1], []).append(f)
toks = ["inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens", "totalTokens"]
def same(x, f, what, cost=True):
    got = [x[k] for k in toks]
    assert got == [int(v) for v in f[3:8]], (what, got, f)
    if cost:    # to the cent, and nearer: float sums in another order
        assert abs(x["costUSD"] - float(f[9])) < 1e-9, (what, x["costUSD"], f[9])
def models(f):
    return set(v.replace("-fast", "") for v in f[11].split(",")) - {"-"}
assert u["timeZone"] == "America/New_York", u["timeZone"]
sess = {x["sessionId"]: x for x in u["sessions"]}
for f in want["session"]:
    x = sess[f[2]]
    same(x, f, f[2])
    assert set(x["modelsUsed"]) == models(f), (f[2], x["modelsUsed"])
    if abs(float(f[10]) - float(f[9])) > 1e-9:  # rows that log their cost
        assert abs(x["costUSDLogged"] - float(f[10])) < 1e-9, (f[2], x)
t = u["totals"]
same(t, want["total"][0], "total")
assert t["unpricedModels"] == ["claude-opus-5-5"] == want["total"][0][11].split(","), t
assert abs(t["costUSDLogged"] - (4.2 + 0.11704)) < 1e-9, t   # S1's cost-state, S2's rows
for x, f in zip(u["monthly"], want["monthly-ny"]):
    assert x["month"] == f[2], (x["month"], f[2])
    same(x, f, x["month"])
    assert set(x["modelsUsed"]) == models(f), x["month"]
assert len(u["monthly"]) == len(want["monthly-ny"])
assert len(u["blocks"]) == len(want["block"]), [b["id"] for b in u["blocks"]]
for x, f in zip(u["blocks"], want["block"]):
    key = "%s/%s/%s" % (x["id"], x["endTime"], x["actualEndTime"] or "-")
    assert key == f[2], (key, f[2])
    assert x["isGap"] == f[2].startswith("gap-"), key
    same(x, f, key)
    assert x["responses"] == int(f[8]), (key, x["responses"], f[8])
    assert set(x["modelsUsed"]) == models(f), key
# ccusage's daily reads no subagent log (the agent's two responses, on
# 2025-11-30 in New York) and counts the first row of a response split
# without a requestId again (S2's, 2025-10-14): ours is its days minus
# the one, plus the other.
agent = json.load(open(m + "/projects/home-u-shop/a1a1a1a1-0000-4000-8000-000000000001/usage.json"))["agents"][0]
first_row = {"inputTokens": 10, "outputTokens": 40, "cacheCreationTokens": 800,
             "cacheReadTokens": 15000, "costUSD": 0.002168}
first_row["totalTokens"] = 10 + 40 + 800 + 15000
assert [x["date"] for x in u["daily"]] == [f[2] for f in want["daily-ny"]]
for x, f in zip(u["daily"], want["daily-ny"]):
    fix = dict(x)
    for k in toks + ["costUSD"]:
        if x["date"] == "2025-11-30":
            fix[k] = x[k] - agent[k]
        if x["date"] == "2025-10-14":
            fix[k] = x[k] + first_row[k]
    same(fix, f, x["date"])
for part in ("daily", "monthly", "models", "projects", "sessions"):
    assert abs(sum(x["costUSD"] for x in u[part]) - t["costUSD"]) < 1e-9, part
models_cost = {x["modelName"]: x for x in u["models"]}
assert models_cost["claude-opus-5-5"].get("missingPricing") is True
assert abs(models_cost["claude-sonnet-4-5-20250929"]["costUSD"] - (3.426 + 0.1416)) < 1e-9
EOF
grep -q '^Total (3 sessions) .* \$6\.88$' "$M/usage.txt" && grep -q '^2025-11-30  sonnet-4 .* \$0\.98$' "$M/usage.txt" &&
	grep -q '^claude-opus-5-5 (no price) ' "$M/usage.txt" &&
	grep -q '^days and months in America/New_York\.' "$M/usage.txt" &&
	ok "usage.txt: the tables, the total \$6.88 (ccusage: \$6.88), the model without a price" ||
	bad "usage.txt: $(head -30 "$M/usage.txt")"
grep -qx "projects/home-u-blog/$S3: model \"claude-opus-5-5\" is not in the price table (data/prices.txt (built in)): its responses are priced at \$0 (usage.json: unpricedModels)" "$M/errors.txt" &&
	[ "$(grep -c 'claude-opus-5-5' "$M/errors.txt")" = 1 ] &&
	ok "errors.txt: the model without a price, once" || bad "errors.txt: $(cat "$M/errors.txt")"
grep "\"$S2\"" "$M/sessions.json" | grep -q '"costUSD":0.083332,"costUSDLogged":0.11704,' &&
	ok "sessions.json: costUSD and costUSDLogged" || bad "sessions.json: $(grep "\"$S2\"" "$M/sessions.json")"
unmount_log "$M"

# ---- one session: its files ----

M="$T/s1"
mount_or_end "$C/projects/-home-u-shop/$S1.jsonl" "$M"
LINE='tokens 42,900 in · 7,450 out · 113,000 cache write · 652,500 cache read · $1.15 (logged $4.20)'
grep -qxF -- "- $LINE, its subagents' included (usage.json)" "$M/README.md" &&
	[ "$(sed -n 3p "$M/transcripts/current.md")" = "$LINE" ] &&
	ok "README.md and the transcript: $LINE" ||
	bad "tokens line: $(grep tokens "$M/README.md"; sed -n 3p "$M/transcripts/current.md")"
python3 - "$M" <<'EOF' && ok "usage.json: session = ccusage \$1.1472, logged = cost-state \$4.20; the agent, the branch, the context" || bad "usage.json of $S1"
import json, sys
u = json.load(open(sys.argv[1] + "/usage.json"))
s = u["session"]
assert abs(s["costUSD"] - 1.1472) < 1e-9 and s["costUSDLogged"] == 4.2, s
assert abs(u["agents"][0]["costUSD"] - 0.01535) < 1e-9, u["agents"]
assert abs(u["log"]["costUSD"] + u["agents"][0]["costUSD"] - s["costUSD"]) < 1e-9
b = [x for x in u["branches"] if x["current"]][0]
assert abs(b["costUSD"] - u["log"]["costUSD"]) < 1e-9 and "costUSDLogged" not in b
assert 0 < u["context"]["costUSD"] <= b["costUSD"] + 1e-9
fast = [x for x in s["modelBreakdowns"] if x["modelName"] == "claude-opus-4-6"][0]
assert abs(fast["costUSD"] - (0.11925 + 0.01025)) < 1e-9, fast   # one response fast: x6
assert u["pricedAs"] == "ccusage 20.0.24 offline: data/prices.txt (built in)", u["pricedAs"]
EOF
f=$(grep -l '^model: claude-opus-4-6$' "$M"/branches/main/*-assistant.md | head -1)
v=$(getfattr -n user.sessfs.usage --only-values "$f" 2>/dev/null)
grep -qx 'usage: 700 in · 150 out · 1,000 cache write · 9,000 cache read · claude-opus-4-6 · $0.1192' "$f" &&
	[ "$v" = "input=700 output=150 cache_creation=1000 cache_read=9000 cost_usd=0.11925 model=claude-opus-4-6" ] &&
	[ "$(getfattr -n user.sessfs.usage.cost_usd --only-values "$f" 2>/dev/null)" = 0.11925 ] &&
	ok "a fast response's header and attributes: \$0.11925" || bad "header/xattr of $f: $(grep usage: "$f") / $v"
n=$(grep -L '^usage: .* · \$[0-9]' $(grep -l '^usage: ' "$M"/branches/main/*.md) | wc -l)
[ "$n" = 0 ] && ok "every usage: line has its price" || bad "$n usage: lines without a price"
[ ! -s "$M/errors.txt" ] && ok "errors.txt empty: every model priced" || bad "errors.txt: $(cat "$M/errors.txt")"
unmount_log "$M"

M="$T/s2"
mount_or_end "$C/projects/-home-u-shop/$S2.jsonl" "$M"
f=$(grep -l '^usage: ' "$M"/branches/main/*-assistant.md | head -1)
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["session"]
assert abs(s["costUSD"] - 0.083332) < 1e-9 and abs(s["costUSDLogged"] - 0.11704) < 1e-9, s
' "$M/usage.json" && grep -qx 'usage: 4 in · 350 out · 12,000 cache write · 0 cache read · claude-sonnet-4-20250514 · $0.0503 (logged $0.0834)' "$f" &&
	getfattr -n user.sessfs.usage --only-values "$f" | grep -q ' cost_usd=0.050262 cost_usd_logged=0.0834 model=' &&
	ok "1.0.x rows: priced (ccusage calculate \$0.0833) beside their costUSD (ccusage auto \$0.1170)" ||
	bad "1.0.x: $(grep usage: "$f")"
unmount_log "$M"

M="$T/s3"
mount_or_end "$C/projects/-home-u-blog/$S3.jsonl" "$M"
f=$(grep -l '^model: claude-opus-5-5$' "$M"/branches/main/*-assistant.md | head -1)
[ "$(cat "$M/errors.txt")" = 'line 6: model "claude-opus-5-5" is not in the price table (data/prices.txt (built in)): its responses are priced at $0' ] &&
	grep -q '^usage: .* · claude-opus-5-5 · \$0\.0000 (not in the price table)$' "$f" &&
	python3 -c '
import json, sys
u = json.load(open(sys.argv[1]))["session"]
assert abs(u["costUSD"] - 5.65125) < 1e-9, u
assert [b.get("missingPricing") for b in u["modelBreakdowns"]] == [None, None, True, None], u
' "$M/usage.json" &&
	ok "a model without a price: \$0, said once in errors.txt, missingPricing; past 200k as ccusage (\$5.65125)" ||
	bad "unpriced: $(cat "$M/errors.txt"; grep usage: "$f")"
unmount_log "$M"

# ---- another table; bad options ----

P="$T/prices.txt"
printf '# mine\nclaude-haiku-4-5 100 100 100 100 100 - - - - - 1 2026-12-06 my own rates\n' > "$P"
M="$T/p"
mount_or_end "$C/projects/-home-u-blog/$S3.jsonl" "$M" -o prices="$P"
python3 -c '
import json, sys
u = json.load(open(sys.argv[1] + "/usage.json"))
assert u["pricedAs"] == "ccusage 20.0.24 offline: " + sys.argv[2], u["pricedAs"]
assert abs(u["session"]["costUSD"] - 40890 * 100e-6) < 1e-9, u["session"]
' "$M" "$P" && [ "$(grep -c 'is not in the price table' "$M/errors.txt")" = 3 ] &&
	ok "-o prices=FILE: its rates (\$4.089), the three models it lacks in errors.txt" ||
	bad "prices=FILE: $(cat "$M/errors.txt")"
unmount_log "$M"

expect_fail() {	# expect_fail RC PATTERN OPTION: exit code and the one stderr line
	local want=$1 pat=$2 rc err
	shift 2
	mkdir -p "$T/x"
	err=$(timeout 20 "$SESSFS" "$@" "$C/projects/-home-u-blog/$S3.jsonl" "$T/x" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q -- "$pat"; then
		ok "$*: exit $rc, $err"
	else
		bad "$*: exit $rc (want $want): $err"
		mountpoint -q "$T/x" && fusermount3 -u "$T/x"
	fi
}
printf 'claude-haiku-4-5 1 2 3\n' > "$T/bad.txt"
expect_fail 1 "prices=$T/bad.txt: line 1: a model and 13 columns" -o prices="$T/bad.txt"
expect_fail 1 "prices=$T/none.txt: No such file" -o prices="$T/none.txt"
expect_fail 2 "tz=Mars/Olympus: no such time zone" -o tz=Mars/Olympus
finish
