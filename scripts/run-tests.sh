#!/bin/sh
# Runs every test against one build directory and records the counts.
#   scripts/run-tests.sh BUILD_DIR LABEL
# Unit tests (cmocka), the corpus check, the mount tests, and (with the
# asan label, when clang is there) the fuzz smoke test. Writes
# "PASSED FAILED" to BUILD_DIR/results.txt; the summary adds them up.
set -u
build=$1
label=$2
passed=0
failed=0
corpus=${SESSFS_CORPUS:-../shared/corpus}
export SESSFS="$build/sessfs" SESSFS_CORPUS="$corpus" SESSFS_BUILD="$build"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

count() {
	if [ "$1" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED ($label): $2"; fi
}

echo "== $label: unit tests"
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	"$t"
	count $? "$(basename "$t")"
done

echo "== $label: corpus"
if [ -d "$corpus" ]; then
	"$build/tests/corpus_check" "$build/sessfs" "$corpus"
	count $? corpus_check
	"$build/tests/context_check" "$corpus"
	count $? context_check
elif [ "${CI:-}" = true ]; then
	echo "corpus: $corpus is missing, and CI=true requires it"
	count 1 corpus_missing
else
	echo "corpus: $corpus not found; corpus tests skipped"
fi

echo "== $label: mount tests"
for t in tests/mount/test_*.sh; do
	[ -f "$t" ] || continue
	timeout 600 bash "$t"
	count $? "$(basename "$t")"
done

# The fuzz targets are built with ASan + UBSan of their own: run them once,
# with the sanitizer run (a short smoke; make fuzz fuzzes longer).
if [ "$label" = asan ]; then
	echo "== $label: fuzz smoke"
	if command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
		sh scripts/fuzz.sh smoke
		count $? fuzz_smoke
	else
		echo "fuzz: ${FUZZ_CC:-clang} not found; fuzz smoke skipped"
	fi
fi

echo "$label: $passed passed, $failed failed"
echo "$passed $failed" > "$build/results.txt"
