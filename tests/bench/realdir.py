#!/usr/bin/env python3
"""realdir: a projects folder of N sessions made from the corpus's real logs.

    realdir.py CORPUS OUT N [PROJECTS [MAX_KB]]

Takes every Claude Code 2.1.x main log of the corpus (CORPUS/<scenario>/
projects/<folder>/<id>.jsonl, each scenario's own session: not the forks
beside it, nor the stages)
of at most MAX_KB kilobytes (default 160: the corpus's smallest real logs,
107-160 KB), and writes N sessions into OUT, spread over PROJECTS (20)
project folders, copy i of each log made unique: a new session id (its
file name), every uuid and every message id ("msg_...") its own, the
project's own working directory. The subagents' logs beside a session
(<id>/subagents/) are copied the same way. Nothing of the corpus is kept
in the project: the bench builds the folder at run time, under /tmp.
"""
import hashlib
import os
import re
import sys

UUID = re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
MSGID = re.compile(rb'"(msg_[A-Za-z0-9]+)"')
CWD = b"/home/user/src/todo-app"


def logs(corpus, max_kb):
    out = []
    for scen in sorted(os.listdir(corpus)):
        pdir = os.path.join(corpus, scen, "projects")
        main = os.path.join(corpus, scen, "session.jsonl")
        if not os.path.isdir(pdir) or not os.path.isfile(main):
            continue
        # The scenario's own session, not the forks beside it (their
        # origin would be another copy's, made unique).
        m = re.search(rb'"sessionId":"([^"]+)"', open(main, "rb").read(1 << 16))
        if not m:
            continue
        for folder in sorted(os.listdir(pdir)):
            fdir = os.path.join(pdir, folder)
            for name in sorted(os.listdir(fdir)):
                path = os.path.join(fdir, name)
                if name != m.group(1).decode() + ".jsonl":
                    continue
                size = os.path.getsize(path)
                if size == 0 or size > max_kb * 1024:
                    continue
                head = open(path, "rb").read(1 << 16)
                if b'"version":"2.1.' not in head:
                    continue
                out.append(path)
    return out


def remap(data, i, sid_old, sid_new):
    """data with every uuid and message id of copy i its own."""
    seen = {}

    def uuid(m):
        u = m.group(0)
        if u == sid_old:
            return sid_new
        if u not in seen:
            h = hashlib.sha1(u + b"/%d" % i).hexdigest().encode()
            seen[u] = b"%s-%s-4%s-8%s-%s" % (h[0:8], h[8:12], h[13:16], h[17:20], h[20:32])
        return seen[u]

    data = UUID.sub(uuid, data)
    return MSGID.sub(lambda m: b'"%s_%d"' % (m.group(1), i), data)


def main():
    corpus, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    nproj = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    max_kb = int(sys.argv[5]) if len(sys.argv) > 5 else 160
    src = logs(corpus, max_kb)
    if not src:
        sys.exit("realdir: no 2.1.x log of at most %d KB in %s" % (max_kb, corpus))
    base = [(p, open(p, "rb").read()) for p in src]
    for i in range(n):
        path, data = base[i % len(base)]
        p = i % nproj
        sid_old = os.path.basename(path)[:-6].encode()
        sid_new = b"5e55f5%02x-%04x-4000-8000-%012d" % (p, i % 0x10000, i)
        cwd = b"/home/user/src/app%d" % p
        folder = os.path.join(out, "-home-user-src-app%d" % p)
        os.makedirs(folder, exist_ok=True)
        new = remap(data, i, sid_old, sid_new).replace(CWD, cwd)
        with open(os.path.join(folder, sid_new.decode() + ".jsonl"), "wb") as f:
            f.write(new)
        sub = os.path.join(path[:-6], "subagents")
        if os.path.isdir(sub):
            dst = os.path.join(folder, sid_new.decode(), "subagents")
            os.makedirs(dst, exist_ok=True)
            for name in sorted(os.listdir(sub)):
                body = open(os.path.join(sub, name), "rb").read()
                with open(os.path.join(dst, name), "wb") as f:
                    f.write(remap(body, i, sid_old, sid_new).replace(CWD, cwd))
    print("%d sessions from %d logs: %s" % (n, len(base),
          " ".join(os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(p))))
                   for p, _ in base)))


if __name__ == "__main__":
    main()
