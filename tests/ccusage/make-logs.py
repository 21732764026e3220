#!/usr/bin/env python3
# Wrote the logs under tests/ccusage/claude (a CLAUDE_CONFIG_DIR):
#   python3 tests/ccusage/make-logs.py tests/ccusage/claude
# that ccusage 20.0.24 measured once for tests/ccusage-20.0.24-cost.tsv:
# real model names, every model of data/prices.txt, cache writes of both
# lengths, responses past 200k tokens, a fast response, a split response,
# a subagent, a cost-state record, a 1.0.x log whose rows carry costUSD
# (one response split over two rows without a requestId), a model the
# table lacks, rows either side of midnight UTC and of five-hour gaps.
# The tests read the logs, never this script (no Python needed to run
# them); running it again writes the same bytes.
import json, os, sys
root = sys.argv[1]
def dump(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        for r in rows:
            f.write(json.dumps(r, separators=(',', ':')) + '\n')

class Log:
    def __init__(self, sid, cwd, version, side=False, agent=None):
        self.sid, self.cwd, self.version, self.side, self.agent = sid, cwd, version, side, agent
        self.rows, self.last, self.n = [], None, 0
    def uuid(self):
        self.n += 1
        return '%s-%04x-4000-8000-%012x' % (self.sid[:8], self.n, self.n)
    def base(self, typ, ts):
        u = self.uuid()
        r = {"parentUuid": self.last, "isSidechain": self.side, "userType": "external", "cwd": self.cwd,
             "sessionId": self.sid, "version": self.version}
        if self.agent:
            r["agentId"] = self.agent
        r.update({"type": typ, "uuid": u, "timestamp": ts})
        self.last = u
        return r
    def user(self, ts, text):
        r = self.base("user", ts)
        r["message"] = {"role": "user", "content": text}
        self.rows.append(r)
    def reply(self, ts, model, usage, text="done", mid=None, rid=None, cost=None, extra_rows=()):
        """One response; extra_rows: (ts, usage) of further rows of the same response."""
        mid = mid or "msg_%s_%d" % (self.sid[:8], self.n)
        for i, (t, u) in enumerate([(ts, usage)] + list(extra_rows)):
            r = self.base("assistant", t)
            r["message"] = {"id": mid, "type": "message", "role": "assistant", "model": model,
                            "content": [{"type": "text", "text": "%s (%d)" % (text, i)}],
                            "stop_reason": "end_turn", "stop_sequence": None, "usage": u}
            if rid:
                r["requestId"] = rid
            if cost is not None:
                r["costUSD"] = cost[i] if isinstance(cost, (list, tuple)) else cost
            self.rows.append(r)

def u21(inp, out, c5=0, c1=0, cr=0, speed=None):
    u = {"input_tokens": inp, "cache_creation_input_tokens": c5 + c1, "cache_read_input_tokens": cr,
         "output_tokens": out, "service_tier": "standard",
         "cache_creation": {"ephemeral_1h_input_tokens": c1, "ephemeral_5m_input_tokens": c5}}
    if speed:
        u["speed"] = speed
    return u

def u10(inp, out, cc=0, cr=0):
    return {"input_tokens": inp, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr,
            "output_tokens": out, "service_tier": "standard"}

P1 = root + '/projects/-home-u-shop'
P2 = root + '/projects/-home-u-blog'

# ---- S1: 2.1.x, every model of the table, both cache lengths, two days, a gap ----
S1 = 'a1a1a1a1-0000-4000-8000-000000000001'
s = Log(S1, '/home/u/shop', '2.1.30')
models = [
    ('claude-opus-5', u21(1200, 340, c5=2000, c1=1000, cr=50000)),
    ('claude-opus-4-8', u21(900, 120, c5=3000, cr=20000)),
    ('claude-opus-4-7', u21(800, 200, c1=4000, cr=10000)),
    ('claude-opus-4-6', u21(700, 150, c5=500, c1=500, cr=9000, speed='fast')),
    ('claude-opus-4-6', u21(650, 90, cr=9500)),
    ('claude-opus-4-5-20251101', u21(1500, 410, c5=6000, cr=30000)),
    ('claude-opus-4-1-20250805', u21(300, 80, c5=1000, c1=2000, cr=4000)),
    ('claude-opus-4-20250514', u21(250, 60, c1=1500, cr=3000)),
    ('claude-sonnet-5', u21(2000, 500, c5=10000, c1=5000, cr=60000)),
    ('claude-sonnet-4-6', u21(1800, 450, c5=7000, c1=3000, cr=80000)),
    ('claude-sonnet-4-5-20250929', u21(2200, 600, c5=9000, c1=2500, cr=120000)),
    ('claude-sonnet-4-20250514', u21(1700, 300, c5=4000, cr=40000)),
    ('claude-haiku-4-5-20251001', u21(5000, 700, c5=8000, c1=8000, cr=20000)),
    ('claude-3-7-sonnet-20250219', u21(1100, 250, c5=3000, cr=15000)),
    ('claude-3-5-sonnet-20241022', u21(1000, 240, c5=2000, c1=1000, cr=12000)),
    ('claude-3-5-haiku-20241022', u21(3000, 400, c5=5000, c1=1000, cr=10000)),
    ('claude-3-opus-20240229', u21(400, 100, c5=1000, cr=2000)),
    ('claude-3-haiku-20240307', u21(6000, 800, c5=4000, c1=2000, cr=30000)),
]
# day one, evening UTC (a late afternoon in New York), then past midnight UTC
times = ['2025-11-30T21:%02d:00.000Z' % (5 + 3 * i) for i in range(9)] + \
        ['2025-12-01T01:%02d:00.000Z' % (5 + 3 * i) for i in range(9)]
for i, (m, u) in enumerate(models):
    s.user(times[i].replace(':00.000Z', ':30.000Z').replace(':00:30', ':00:30'), 'step %d' % i)
    s.reply(times[i][:17] + '40.000Z', m, u, rid='req_s1_%d' % i)
# a split response: three rows of one message, the last the largest
s.user('2025-12-01T02:10:00.000Z', 'write the tests')
s.reply('2025-12-01T02:10:20.000Z', 'claude-sonnet-4-5-20250929', u21(3000, 20, c5=1000, cr=50000),
        rid='req_s1_split', extra_rows=[('2025-12-01T02:10:25.000Z', u21(3000, 60, c5=1000, cr=50000)),
                                        ('2025-12-01T02:10:30.000Z', u21(3000, 900, c5=1000, cr=50000))])
# a synthetic row (Claude Code's own, no tokens)
r = s.base('assistant', '2025-12-01T02:11:00.000Z')
r['message'] = {"id": "msg_synth_1", "type": "message", "role": "assistant", "model": "<synthetic>",
                "content": [{"type": "text", "text": "No response requested."}],
                "stop_reason": "stop_sequence", "stop_sequence": "",
                "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
s.rows.append(r)
# after a gap of more than five hours: a new block, the next day in New York too
s.user('2025-12-01T09:40:00.000Z', 'go on')
s.reply('2025-12-01T09:40:30.000Z', 'claude-opus-4-5-20251101', u21(900, 300, c1=12000, cr=70000), rid='req_s1_late')
# Claude Code's own running total
s.rows.append({"type": "cost-state", "sessionId": S1, "totalCostUSD": 4.2, "startTime": 1764536700000,
               "modelUsage": {"claude-opus-5": {"inputTokens": 1200, "outputTokens": 340, "costUSD": 4.2}}})
dump(P1 + '/' + S1 + '.jsonl', s.rows)
# its subagent
A1 = 'a5ab5ab5ab5ab5ab0'
a = Log(S1, '/home/u/shop', '2.1.30', side=True, agent=A1)
a.user('2025-11-30T21:30:00.000Z', 'look for TODOs')
a.reply('2025-11-30T21:30:10.000Z', 'claude-haiku-4-5-20251001', u21(4000, 200, c5=3000, cr=1000), rid='req_a1_1')
a.user('2025-11-30T21:30:20.000Z', '[tool result]')
a.reply('2025-11-30T21:30:30.000Z', 'claude-haiku-4-5-20251001', u21(4500, 260, cr=7000), rid='req_a1_2')
dump(P1 + '/' + S1 + '/subagents/agent-' + A1 + '.jsonl', a.rows)
os.makedirs(P1 + '/' + S1 + '/subagents', exist_ok=True)
with open(P1 + '/' + S1 + '/subagents/agent-' + A1 + '.meta.json', 'w') as f:
    f.write('{"agentType":"Explore","description":"Find TODOs"}\n')

# ---- S2: 1.0.x, costUSD on every row, cache writes without their lengths ----
S2 = 'b2b2b2b2-0000-4000-8000-000000000002'
s = Log(S2, '/home/u/shop', '1.0.30')
s.user('2025-10-14T08:00:00.000Z', 'add a cart')
s.reply('2025-10-14T08:00:12.000Z', 'claude-sonnet-4-20250514', u10(4, 350, cc=12000, cr=0), rid='req_s2_1', cost=0.0834)
s.user('2025-10-14T08:01:00.000Z', 'and a checkout')
s.reply('2025-10-14T08:01:15.000Z', 'claude-sonnet-4-20250514', u10(6, 520, cc=3000, cr=12000), rid='req_s2_2', cost=0.02286)
s.user('2025-10-14T08:02:00.000Z', 'explain')
# a response split into two rows without a requestId (older logs)
s.reply('2025-10-14T08:02:10.000Z', 'claude-3-5-haiku-20241022', u10(10, 40, cc=800, cr=15000),
        extra_rows=[('2025-10-14T08:02:11.000Z', u10(10, 180, cc=800, cr=15000))], cost=[0.00262, 0.00318])
s.user('2025-10-14T08:03:00.000Z', 'thanks')
s.reply('2025-10-14T08:03:09.000Z', 'claude-sonnet-4-20250514', u10(3, 95, cc=400, cr=15800), rid='req_s2_4', cost=0.0076)
dump(P1 + '/' + S2 + '.jsonl', s.rows)

# ---- S3: another project; responses above 200k input; a model the table lacks ----
S3 = 'c3c3c3c3-0000-4000-8000-000000000003'
s = Log(S3, '/home/u/blog', '2.1.40')
s.user('2026-01-20T15:00:00.000Z', 'read the whole archive')
s.reply('2026-01-20T15:00:40.000Z', 'claude-sonnet-4-5-20250929', u21(250000, 3000, c5=210000, c1=230000, cr=260000), rid='req_s3_1')
s.user('2026-01-20T15:05:00.000Z', 'summarise it')
s.reply('2026-01-20T15:05:30.000Z', 'claude-sonnet-4-20250514', u21(420000, 12000, cr=300000), rid='req_s3_2')
s.user('2026-01-20T15:06:00.000Z', 'try the new one')
s.reply('2026-01-20T15:06:20.000Z', 'claude-opus-5-5', u21(5000, 140, c5=1000), rid='req_s3_3')
s.user('2026-01-21T04:30:00.000Z', 'a late one')
s.reply('2026-01-21T04:30:20.000Z', 'claude-haiku-4-5-20251001', u21(800, 90, cr=40000), rid='req_s3_4')
dump(P2 + '/' + S3 + '.jsonl', s.rows)
