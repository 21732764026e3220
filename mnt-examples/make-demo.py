#!/usr/bin/env python3
"""Writes mnt-examples/demo.jsonl: a small session log in the shape Claude Code
2.1.x writes, made up for the examples. It has tool calls (one parallel pair),
a compaction with a preserved message, a rewind that starts a second branch,
and the metadata records a real log carries. Deterministic: same bytes on
every run. Usage: python3 make-demo.py > demo.jsonl
"""
import json
import sys

SID = "d3e0d3e0-0000-4000-8000-000000000001"
CWD = "/home/user/src/todo-app"
T0 = 1767261600000  # 2026-01-01T10:00:00Z
n = 0
clock = 0
out = []


def uid():
    global n
    n += 1
    return "%08x-0000-4000-8000-%012x" % (0xd3300000 + n, n)


def ts():
    global clock
    clock += 1700
    ms = T0 + clock
    s, ms3 = divmod(ms, 1000)
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + ".%03dZ" % ms3


def env(rec):
    rec.update({"userType": "external", "entrypoint": "cli", "cwd": CWD,
                "sessionId": SID, "version": "2.1.328", "gitBranch": "main"})
    return rec


def emit(rec):
    out.append(json.dumps(rec, separators=(",", ":"), ensure_ascii=False))


def user(parent, text, **kw):
    u = uid()
    emit(env({"parentUuid": parent, "isSidechain": False, "type": "user",
              "message": {"role": "user", "content": text}, "uuid": u,
              "timestamp": ts(), "permissionMode": "default", **kw}))
    return u


def attachment(parent, atype, text, role="system", **payload):
    u = uid()
    rec = {"parentUuid": parent, "isSidechain": False,
           "attachment": {"type": atype, **payload}, "type": "attachment",
           "uuid": u, "timestamp": ts()}
    if text is not None:
        rec["rendered"] = [{"content": "<system-reminder>\n%s\n</system-reminder>" % text}]
        rec["renderedRole"] = role
    emit(env(rec))
    return u


MSG = [0]


def assistant(parent, block, msg_id=None):
    u = uid()
    if msg_id is None:
        MSG[0] += 1
        msg_id = "msg_demo%04d" % MSG[0]
    emit(env({"parentUuid": parent, "isSidechain": False, "message": {
        "model": "claude-opus-5-5", "id": msg_id, "type": "message",
        "role": "assistant", "content": [block], "stop_reason": None,
        "usage": {"input_tokens": 12, "output_tokens": 30}},
        "requestId": "req_demo", "type": "assistant", "uuid": u,
        "timestamp": ts(), "effort": "medium"}))
    return u, msg_id


def tool_use(parent, tid, name, inp, msg_id=None):
    return assistant(parent, {"type": "tool_use", "id": tid, "name": name,
                              "input": inp}, msg_id)


def tool_result(parent, tid, text, source, structured, is_error=False):
    u = uid()
    block = {"tool_use_id": tid, "type": "tool_result", "content": text}
    if is_error:
        block["is_error"] = True
    emit(env({"parentUuid": parent, "isSidechain": False, "type": "user",
              "message": {"role": "user", "content": [block]}, "uuid": u,
              "timestamp": ts(), "toolUseResult": structured,
              "sourceToolAssistantUUID": source}))
    return u


def text(parent, s):
    return assistant(parent, {"type": "text", "text": s})[0]


def meta(rec):
    emit({**rec, "sessionId": SID})


def prompt(parent, s, first=False):
    meta({"type": "queue-operation", "operation": "enqueue", "timestamp": ts(), "content": s})
    u = user(parent, s, promptId="p-%d" % n)
    last = u
    if first:
        last = attachment(last, "environment", "# Environment\n - Primary working directory: %s" % CWD)
        last = attachment(last, "session_context", "As you answer the user's questions, you can use the following context:\n# gitStatus\nCurrent branch: main", role="user")
    last = attachment(last, "date", "Today's date is 2026-01-01.")
    last = attachment(last, "prompt_snapshot", None, systemPrompt="You are Claude Code.")
    meta({"type": "file-history-snapshot", "messageId": u, "isSnapshotUpdate": False,
          "snapshot": {"messageId": u, "trackedFileBackups": {}, "timestamp": ts()}})
    return u, last


def checkpoint(leaf, **kw):
    meta({"type": "last-prompt", "leafUuid": leaf, **kw})


README = "# todo-app\n\nA tiny command line todo list.\n\nUsage: python3 todo.py add TEXT\n"
TODO = "import json, sys\n\nDB = 'todos.json'\n\ndef load():\n    try:\n        return json.load(open(DB))\n    except FileNotFoundError:\n        return []\n"

# Turn 1: look around (Bash, Read).
p1, last = prompt(None, "What does this project do?", first=True)
a, _ = tool_use(last, "toolu_demo01", "Bash", {"command": "ls -la", "description": "List files"})
r = tool_result(a, "toolu_demo01", "README.md\ntodo.py\ntest_todo.py", a,
                {"stdout": "README.md\ntodo.py\ntest_todo.py", "stderr": "", "interrupted": False})
a, _ = tool_use(r, "toolu_demo02", "Read", {"file_path": CWD + "/README.md"})
r = tool_result(a, "toolu_demo02", "1\t" + README.replace("\n", "\n2\t", 1), a,
                {"type": "text", "file": {"filePath": CWD + "/README.md", "content": README,
                                          "numLines": 5, "startLine": 1, "totalLines": 5}})
end1 = text(r, "It is a tiny command line todo list in Python; todos live in todos.json.")
checkpoint(end1)

# Turn 2: two checks at once (a parallel pair), then an edit.
p2, last = prompt(end1, "Run the tests and show git status, then add a 'done' command.")
t, mid = assistant(last, {"type": "text", "text": "Running two checks at once."})
b1, _ = tool_use(t, "toolu_demo03", "Bash", {"command": "python3 -m pytest -q"}, mid)
b2, _ = tool_use(b1, "toolu_demo04", "Bash", {"command": "git status --short"}, mid)
r2 = tool_result(b2, "toolu_demo04", " M todo.py", b2, {"stdout": " M todo.py", "stderr": ""})
r1 = tool_result(b1, "toolu_demo03", "1 passed in 0.01s", b1, {"stdout": "1 passed in 0.01s", "stderr": ""})
a, _ = tool_use(r1, "toolu_demo05", "Edit", {"file_path": CWD + "/todo.py", "old_string": "DB = 'todos.json'",
                                             "new_string": "DB = 'todos.json'\n\ndef done(i):\n    pass"})
r = tool_result(a, "toolu_demo05", "The file todo.py has been updated.", a,
                {"filePath": CWD + "/todo.py", "oldString": "DB = 'todos.json'"})
end2 = text(r, "Tests pass; I added a `done` stub to todo.py.")
checkpoint(end2)

# The compaction: boundary (no parent), summary, /compact rows; the last
# reply is kept word for word (a preserved segment).
bnd = uid()
summary = uid()
emit(env({"parentUuid": None, "logicalParentUuid": end2, "isSidechain": False, "type": "system",
          "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
          "timestamp": ts(), "uuid": bnd, "level": "info",
          "compactMetadata": {"trigger": "manual", "preTokens": 4200,
                              "preservedSegment": {"headUuid": end2, "anchorUuid": summary, "tailUuid": end2},
                              "preservedMessages": {"anchorUuid": summary, "uuids": [end2], "allUuids": [end2]}}}))
emit(env({"parentUuid": bnd, "isSidechain": False, "type": "user", "message": {"role": "user", "content":
          "This session is being continued from a previous conversation that ran out of context. "
          "Summary: the user has a Python todo app; tests pass; a `done` stub was added to todo.py."},
          "isVisibleInTranscriptOnly": True, "isCompactSummary": True, "uuid": summary, "timestamp": ts()}))
c1 = user(summary, "<local-command-caveat>Caveat: the command below was run directly in Claude Code.</local-command-caveat>", isMeta=True)
c2 = user(c1, "<command-name>/compact</command-name>")
c3 = user(c2, "<local-command-stdout>Compacted</local-command-stdout>")
checkpoint(c3)

# Turn 3 (after the compaction): write a changelog.
p3, last = prompt(c3, "Write a CHANGELOG.")
a, _ = tool_use(last, "toolu_demo06", "Write", {"file_path": CWD + "/CHANGELOG.md", "content": "# Changelog\n\n- done command\n"})
r = tool_result(a, "toolu_demo06", "File created successfully at: " + CWD + "/CHANGELOG.md", a,
                {"type": "create", "filePath": CWD + "/CHANGELOG.md", "content": "# Changelog\n\n- done command\n"})
end3 = text(r, "Wrote CHANGELOG.md.")
checkpoint(end3)

# Turn 4: a question; then the user rewinds to the end of turn 3 and asks
# something else: a second branch, made current by an explicit checkpoint.
p4, last = prompt(end3, "Which Python version do I need?")
end4 = text(last, "Any Python 3 works.")
checkpoint(end4)
checkpoint(end3, explicit=True, rewound=True)
p5, last = prompt(end3, "Actually: add a test for done().")
a, _ = tool_use(last, "toolu_demo07", "Bash", {"command": "grep -n done todo.py"})
r = tool_result(a, "toolu_demo07", "5:def done(i):", a, {"stdout": "5:def done(i):", "stderr": ""})
end5 = text(r, "done() exists at line 5; I will test it next.")
checkpoint(end5)
meta({"type": "custom-title", "customTitle": "demo: todo app"})

sys.stdout.write("\n".join(out) + "\n")
