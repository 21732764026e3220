#!/bin/bash
# sessfs-nofuse, the build without FUSE (make NOFUSE=1 makes it alone):
# linked with no libfuse, it exports and checks as sessfs does (the same
# tree, byte for byte; the same facts) and refuses to mount, saying why.
. "$(dirname "$0")/lib.sh"
NF="$BUILD/sessfs-nofuse"
DEMO=mnt-examples/demo.jsonl
[ -x "$NF" ] || { bad "$NF: not built"; finish; exit 1; }

! ldd "$NF" | grep -q fuse && ok "linked with no libfuse" || bad "links libfuse: $(ldd "$NF" | grep fuse)"
"$NF" export -q "$DEMO" "$T/nf" && "$SESSFS" export -q "$DEMO" "$T/fs" &&
	d=$(diff -r "$T/nf" "$T/fs") && [ -z "$d" ] && [ -L "$T/nf/branches/current" ] &&
	ok "export: the tree sessfs exports" || bad "export: $(echo "${d:-failed}" | head -3)"
"$NF" export -q "$DEMO" - | tar -t > "$T/nf.t" && [ -s "$T/nf.t" ] &&
	ok "export: a tar stream ($(wc -l < "$T/nf.t") entries)" || bad "export: tar stream"
cmp -s <("$NF" --check "$DEMO") <("$SESSFS" --check "$DEMO") &&
	ok "--check: the facts sessfs gives" || bad "--check differs"
mkdir -p "$T/m"
out=$("$NF" "$DEMO" "$T/m" 2>&1)
rc=$?
[ "$rc" -eq 2 ] && echo "$out" | grep -q "built without FUSE" && ! mountpoint -q "$T/m" &&
	ok "a mount is refused: exit 2, said why" || bad "mount: exit $rc: $out"
finish
