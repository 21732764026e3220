#!/usr/bin/env python3
"""check-layers: core/'s one-way rule, checked (core/README.md).

    scripts/check-layers.py [BUILD_DIR]

1. Includes: a file of core/<layer>/ includes only headers of its own
   folder or of the folders below it (base < json < log < replay < session
   < tree < projects). The build says so too (each folder is compiled with
   the -I path of its own layer and those below); this names the file.
2. Calls: with BUILD_DIR (its core/*/*.o), no object uses a symbol defined
   by an object of a higher layer, and the objects' uses form no circle,
   not even inside one folder (a circle is a group of files each reaching
   the other: nm(1) tells which file defines what another one uses).

Prints each violation and exits 1, else prints what it checked and exits 0.
"""
import glob
import os
import re
import subprocess
import sys

LAYERS = ["base", "json", "log", "replay", "session", "tree", "projects"]
RANK = {l: i for i, l in enumerate(LAYERS)}


def layer_of(path):
    return path.split(os.sep)[1]


def check_includes():
    home = {}
    for h in glob.glob("core/*/*.h"):
        home.setdefault(os.path.basename(h), layer_of(h))
    bad, n = [], 0
    for f in sorted(glob.glob("core/*/*.[ch]")):
        mine = layer_of(f)
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(f).read(), re.M):
            n += 1
            other = home.get(os.path.basename(inc))
            if other is None:
                bad.append("%s: includes %s, which is no header of core/" % (f, inc))
            elif RANK[other] > RANK[mine]:
                bad.append("%s: includes %s of %s/, a layer above %s/" % (f, inc, other, mine))
    return bad, n


def symbols(obj):
    out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True, check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRVWC":
            defs.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            uses.add(p[1])
    return defs, uses


def circles(edges, nodes):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def check_calls(build):
    objs = sorted(glob.glob(os.path.join(build, "core", "*", "*.o")))
    if not objs:
        return ["%s: no core objects to check (build first)" % build], 0
    owner, uses = {}, {}
    for o in objs:
        name = os.path.relpath(o, build)[:-2] + ".c"
        d, u = symbols(o)
        for s in d:
            owner[s] = name
        uses[name] = u
    edges, bad = {}, []
    for f, us in uses.items():
        for s in us:
            g = owner.get(s)
            if g and g != f:
                edges.setdefault(f, set()).add(g)
                if RANK[layer_of(g)] > RANK[layer_of(f)]:
                    bad.append("%s: uses %s of %s, a layer above" % (f, s, g))
    for c in circles(edges, uses):
        bad.append("a circle of calls among: " + ", ".join(c))
    return bad, sum(len(e) for e in edges.values())


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    bad, n = check_includes()
    m = 0
    if len(sys.argv) > 1:
        more, m = check_calls(sys.argv[1])
        bad += more
    for b in bad:
        print("FAIL " + b)
    if bad:
        return 1
    print("ok   layers: %d includes of core/ run downward%s" %
          (n, "; %d file-to-file uses run downward, with no circle" % m if len(sys.argv) > 1 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
