#!/bin/sh
# layer-of.sh FILE: the highest layer of core/ whose headers FILE includes,
# following the includes of the headers beside it (a test's own helpers);
# "base" when it includes none. The Makefile links a test with that layer
# and the ones below it only (core/README.md: the layers).
LAYERS="base json log replay session tree projects"
todo=$1 seen= top=0
while [ -n "$todo" ]; do
	set -- $todo
	f=$1
	shift
	todo=$*
	dir=$(dirname "$f")
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		if [ -f "$dir/$h" ] && [ "${dir#core/}" = "$dir" ]; then
			case " $seen " in *" $dir/$h "*) ;; *) seen="$seen $dir/$h"; todo="$todo $dir/$h";; esac
			continue
		fi
		i=0
		for l in $LAYERS; do
			i=$((i + 1))
			[ -f "core/$l/$h" ] && [ "$i" -gt "$top" ] && top=$i
		done
	done
done
[ "$top" -eq 0 ] && top=1
echo $LAYERS | cut -d' ' -f"$top"
