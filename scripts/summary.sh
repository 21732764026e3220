#!/bin/sh
# Adds up the counts of the test runs and prints the closing line.
set -u
p=0
f=0
for r in "$@"; do
	if [ -f "$r" ]; then
		read -r a b < "$r"
	else
		a=0; b=1; echo "summary: $r missing (that run did not finish)"
	fi
	p=$((p + a))
	f=$((f + b))
done
echo "tests: $p passed, $f failed"
[ "$f" -eq 0 ]
