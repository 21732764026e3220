# What the bench's scripts share (sourced by scripts/bench.sh,
# bench_projects.sh and bench_findable.sh): clocks, ratios, and the
# baselines other programs give.

now() { date +%s.%N; }
# ratio A B: A / B to one decimal.
ratio() { printf '%.1f' "$(echo "$1 / $2" | bc -l)"; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# best CMD...: the smallest wall time of RUNS runs of CMD, in seconds.
best() {
	local b= t0 t1 d i
	for i in $(seq 1 "${RUNS:-3}"); do
		t0=$(now); "$@" > /dev/null 2>&1; t1=$(now)
		d=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$d < $b" | bc -l)" = 1 ]; then b=$d; fi
	done
	printf '%.3f' "$b"
}

# ccusage_bin: the ccusage the figures are checked against (20.0.24),
# from BENCH_CCUSAGE, the PATH, or installed once under build/bench/ccusage
# with npm; prints nothing when none can be had (the figures then say so).
CCUSAGE_VERSION=20.0.24
ccusage_bin() {
	local d=build/bench/ccusage
	if [ -n "${BENCH_CCUSAGE:-}" ]; then echo "$BENCH_CCUSAGE"; return; fi
	if command -v ccusage > /dev/null 2>&1; then command -v ccusage; return; fi
	if [ ! -x "$d/node_modules/.bin/ccusage" ] && command -v npm > /dev/null 2>&1; then
		mkdir -p "$d"
		npm install --prefix "$d" --no-audit --no-fund --silent \
			"ccusage@$CCUSAGE_VERSION" > /dev/null 2>&1 || :
	fi
	[ -x "$d/node_modules/.bin/ccusage" ] && echo "$PWD/$d/node_modules/.bin/ccusage"
}

# ccusage_time CMD PROJECTS: seconds ccusage's CMD (daily, session) takes
# over the folder PROJECTS, offline, as JSON; empty when there is no
# ccusage or it counted nothing (it follows no link to a file).
# CLAUDE_CONFIG_DIR is a folder of this run's own whose projects/ is a
# link to PROJECTS.
ccusage_time() {
	local bin cfg t0 t1
	bin=$(ccusage_bin)
	[ -n "$bin" ] || return 0
	cfg=$(mktemp -d) || return 0
	ln -s "$(realpath "$2")" "$cfg/projects"
	t0=$(now)
	CLAUDE_CONFIG_DIR=$cfg "$bin" "$1" --offline --json > "$cfg/out" 2>/dev/null
	t1=$(now)
	grep -q '"totalTokens": [1-9]' "$cfg/out" 2>/dev/null && printf '%.3f' "$(echo "$t1 - $t0" | bc -l)"
	rm -rf "$cfg"
}

# against FIGURE BASE NAME: " = Nx NAME", or " (NAME: not available)".
against() {
	if [ -n "$2" ]; then
		printf ' = %.2fx %s (%s s)' "$(echo "$1 / $2" | bc -l)" "$3" "$2"
	else
		printf ' (%s: not available)' "$3"
	fi
}
