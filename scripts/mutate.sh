#!/bin/bash
# The mutation smoke: does each test catch what it claims to?
#   scripts/mutate.sh [-l | -c] [ID_REGEX]
# Applies the mutations of scripts/mutations.txt one at a time (each a
# one-line change of the source at a named rule or check), rebuilds what
# the mutation's runners need, runs them (scripts/run-tests.sh, plain
# build), and counts the mutation caught when one of them fails or times
# out. It fails when a mutation survives (its runners all pass), does not
# apply (its find snippet names no file or several, its old text is not
# there exactly once) or does not build, and when a runner the list names
# fails (or skips) before any mutation: then a failure would prove nothing.
#
# Everything happens in a temporary copy of the tree (the files git knows
# and the new ones it does not ignore) under /tmp, built there (starting
# from a copy of the plain build's objects, when there are, which make
# then brings up to date): the real sources are never changed, whatever
# happens; the copy is restored after each mutation and removed on every
# exit (trap).
# SESSFS_CORPUS (default ../shared/corpus, from the tree) is passed on as
# an absolute path. MUTATIONS=FILE reads another list. -l lists the
# mutations; -c only checks that each applies (no build: make test runs
# it, so that code moved under an entry is named at once); ID_REGEX runs only the
# mutations whose id matches. MUTATE_JOBS: make's jobs (2). Time limits
# of a runner: MUTATE_UNIT_LIMIT (60 s), MUTATE_MOUNT_LIMIT (300 s).
#
# The list's format: entries separated by blank lines, '#' lines ignored,
# each line a key, blanks, and the value (the rest of the line, verbatim):
#   id     a short name, unique
#   rule   the rule or check it breaks (core/RULES.md's number, a header's
#          promise)
#   find   a snippet of code that only one .c file under core/ and fs/
#          holds (found with grep -rlF, so files may move between folders)
#   old    the text to replace, in that file exactly once
#   new    what replaces it (the change must build: -Werror)
#   tests  the runners that must catch it, as run-tests.sh names them
#          (unit/test_branch, test_cli.sh, corpus_check, context_check)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
list=${MUTATIONS:-$here/scripts/mutations.txt}
list_only=0 check_only=0
[ "${1:-}" = -l ] && { list_only=1; shift; }
[ "${1:-}" = -c ] && { check_only=1; shift; }
only=${1:-}
jobs=${MUTATE_JOBS:-2}
corpus=$(cd "$here" && realpath -m "${SESSFS_CORPUS:-../shared/corpus}")

# ---- the list ----
ids=() rules=() finds=() olds=() news=() tests=()
bad_list=0
parse() {
	local key val n=-1 lineno=0
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		case $line in
		'#'*) continue ;;
		'') n=-1; continue ;;
		esac
		key=${line%%[[:blank:]]*}
		val=${line#"$key"}
		val=${val#"${val%%[![:blank:]]*}"}
		if [ "$n" -lt 0 ]; then
			n=${#ids[@]}
			ids[n]="" rules[n]="" finds[n]="" olds[n]="" news[n]="" tests[n]=""
		fi
		case $key in
		id) ids[n]=$val ;;
		rule) rules[n]=$val ;;
		find) finds[n]=$val ;;
		old) olds[n]=$val ;;
		new) news[n]=$val ;;
		tests) tests[n]=$val ;;
		*) echo "mutations.txt:$lineno: unknown key '$key'"; bad_list=1 ;;
		esac
	done < "$list"
	for n in "${!ids[@]}"; do
		if [ -z "${ids[n]}" ] || [ -z "${finds[n]}" ] || [ -z "${olds[n]}" ] ||
		   [ -z "${tests[n]}" ] || [ -z "${rules[n]}" ]; then
			echo "mutations.txt: entry $((n + 1)) (${ids[n]:-no id}) lacks a field"
			bad_list=1
		fi
		[ "${olds[n]}" = "${news[n]}" ] && { echo "mutation ${ids[n]}: new is old"; bad_list=1; }
	done
	[ "$(printf '%s\n' "${ids[@]}" | sort | uniq -d)" = "" ] ||
		{ echo "mutations.txt: ids not unique"; bad_list=1; }
}
parse
[ "$bad_list" = 0 ] || exit 1
sel=()
for n in "${!ids[@]}"; do
	[ -z "$only" ] || echo "${ids[n]}" | grep -Eq -- "$only" && sel+=("$n")
done
if [ "$list_only" = 1 ]; then
	for n in "${sel[@]}"; do
		printf '%-28s %-28s %s\n' "${ids[n]}" "${tests[n]}" "${rules[n]}"
	done
	echo "${#sel[@]} mutations"
	exit 0
fi
[ "${#sel[@]}" -gt 0 ] || { echo "mutate: no mutation matches '$only'"; exit 1; }

# applies N: whether mutation N applies to the tree in the current folder:
# its find snippet in exactly one .c file ($files), its old text there
# exactly once; else false, with the reason in $why.
applies() {
	local count
	files=$(grep -rlF --include='*.c' -- "${finds[$1]}" core fs 2>/dev/null)
	if [ "$(echo "$files" | grep -c .)" -ne 1 ]; then
		why="its find snippet is in $(echo "$files" | grep -c .) files"
		return 1
	fi
	count=$(OLD=${olds[$1]} perl -0777 -ne '$c = () = /\Q$ENV{OLD}\E/g; print $c' "$files")
	if [ "$count" != 1 ]; then
		why="its old text is in $files $count times"
		return 1
	fi
}
if [ "$check_only" = 1 ]; then
	cd "$here" || exit 1
	nbad=0
	for n in "${sel[@]}"; do
		applies "$n" || { echo "BROKEN   ${ids[n]}: $why"; nbad=$((nbad + 1)); }
	done
	echo "mutations: ${#sel[@]} listed, $((${#sel[@]} - nbad)) apply to the tree, $nbad do not"
	[ "$nbad" = 0 ]
	exit
fi

# ---- the copy ----
t0=$EPOCHREALTIME
work=$(mktemp -d /tmp/sessfs-mutate.XXXXXX) || exit 1
tree=$work/tree
cur=""		# the file mutated now (restored from $work/orig)
rt=""		# run-tests.sh running now
cleanup() {
	local i
	if [ -n "$rt" ]; then	# it ends its runners and unmounts what they left
		kill -TERM "$rt" 2>/dev/null
		for i in $(seq 1 150); do
			kill -0 "$rt" 2>/dev/null || break
			sleep 0.2
		done
	fi
	[ -n "$cur" ] && cp "$work/orig" "$cur"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$tree"
if git -C "$here" rev-parse --git-dir > /dev/null 2>&1; then
	git -C "$here" ls-files -z --cached --others --exclude-standard |
		(cd "$here" && xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
		tar -C "$here" --null -T - -cf - | tar -C "$tree" -xf -
else
	tar -C "$here" --exclude=./build --exclude=./sessfs -cf - . | tar -C "$tree" -xf -
fi
for d in build/core build/fs build/tests; do	# the plain build's objects, times kept
	[ -d "$here/$d" ] && mkdir -p "$tree/build" && cp -a "$here/$d" "$tree/build/"
done
cd "$tree" || exit 1
log=$work/log
elapsed() { awk -v n="$EPOCHREALTIME" -v s="$1" 'BEGIN { printf "%.0f", n - s }'; }

# The make targets runner NAME needs.
targets_of() {
	case $1 in
	unit/*) echo "build/tests/${1#unit/}" ;;
	*.sh) echo "build/sessfs build/tests/sizes build/tests/loopfs" ;;
	corpus_check) echo "build/sessfs build/tests/corpus_check" ;;
	context_check) echo "build/tests/context_check" ;;
	*) echo "mutate: unknown runner $1" >&2; return 1 ;;
	esac
}

# run NAMES...: runs those runners (in the background, so that a signal's
# trap ends them at once); res is run-tests.sh's closing line.
run() {
	local re
	re=$(printf '%s\n' "$@" | sed 's/[.]/\\./g' | paste -sd '|')
	CI= TESTS="^plain ($re)\$" SESSFS_CORPUS="$corpus" \
	UNIT_LIMIT=${MUTATE_UNIT_LIMIT:-60} MOUNT_LIMIT=${MUTATE_MOUNT_LIMIT:-300} \
		bash scripts/run-tests.sh build:plain > "$log" 2>&1 &
	rt=$!
	wait "$rt"
	rt=""
	res=$(grep -a '^tests: ' "$log" | tail -n 1)
}

# ---- before any mutation: every runner named passes ----
all=$(for n in "${sel[@]}"; do printf '%s\n' ${tests[n]}; done | sort -u)
echo "mutate: ${#sel[@]} mutations; building a copy of the tree in $tree"
targets=$(for r in $all; do targets_of "$r" || exit 1; done | tr ' ' '\n' | sort -u) || exit 1
# shellcheck disable=SC2086
if ! make -s -j"$jobs" $targets > "$work/make.log" 2>&1; then
	echo "mutate: the tree does not build:"; tail -n 20 "$work/make.log"; exit 1
fi
# shellcheck disable=SC2086
run $all
if ! echo "$res" | grep -q ' 0 failed, 0 skipped$'; then
	echo "mutate: before any mutation, the runners do not all pass ($res):"
	grep -a -E '^(FAILED|TIMEOUT|skipped) ' "$log" | sed 's/^/    /'
	exit 1
fi
echo "mutate: unmutated, $(echo "$all" | wc -w) runners pass ($(elapsed "$t0") s)"

# ---- one mutation at a time ----
caught=0 survived=0 broken=0
failures=()
for n in "${sel[@]}"; do
	m0=$EPOCHREALTIME
	id=${ids[n]}
	if ! applies "$n"; then
		broken=$((broken + 1)) failures+=("$id: $why")
		echo "BROKEN   $id: $why"
		continue
	fi
	cp "$files" "$work/orig"
	cur=$files
	OLD=${olds[n]} NEW=${news[n]} perl -0777 -pi -e 's/\Q$ENV{OLD}\E/$ENV{NEW}/' "$files"
	# shellcheck disable=SC2086
	targets=$(for r in ${tests[n]}; do targets_of "$r"; done | tr ' ' '\n' | sort -u)
	# shellcheck disable=SC2086
	if ! make -s -j"$jobs" $targets > "$work/make.log" 2>&1; then
		broken=$((broken + 1)) failures+=("$id: does not build")
		echo "BROKEN   $id: does not build ($files):"
		grep -m 3 'error' "$work/make.log" | sed 's/^/    /'
	else
		# shellcheck disable=SC2086
		run ${tests[n]}
		if echo "$res" | grep -q ' 0 failed,'; then
			survived=$((survived + 1)) failures+=("$id: survived ${tests[n]}")
			printf 'SURVIVED %-28s %4s s  %s (%s)\n' "$id" "$(elapsed "$m0")" "${tests[n]}" "${rules[n]}"
		else
			caught=$((caught + 1))
			printf 'caught   %-28s %4s s  by %s\n' "$id" "$(elapsed "$m0")" \
				"$(grep -a -E '^(FAILED|TIMEOUT) ' "$log" | sed -E 's/^[A-Z]+ \(plain\): ([^,]*).*/\1/; s/ still running.*//' | paste -sd ' ')"
		fi
	fi
	cp "$work/orig" "$files"
	cur=""
done
echo "mutations: $caught caught, $survived survived, $broken broken, in $(elapsed "$t0") s"
for f in "${failures[@]+"${failures[@]}"}"; do
	echo "  $f"
done
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ]
