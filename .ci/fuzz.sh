#!/usr/bin/env bash
# fuzz.sh — run every Fuzz* target in the repository for a while, and check that each one really
# explored: the targets are found with `go test -list` in every package, so a new one is run
# without editing this file.
#
# FUZZ_TIME is the time per target (default 5s, what CI runs). A long run, for a scheduled job
# or before a release: FUZZ_TIME=10m bash .ci/fuzz.sh
#
# -fuzzminimizetime is kept short (FUZZ_MINIMIZE_TIME, default 1s): with Go's default of 60s the
# workers spend the run minimising the first inputs that find new coverage, and the exec
# counters stay at 0/sec. A target fails when it reports fewer than FUZZ_MIN_EXECS executions
# (default 1000) after its seed corpus, or when the fuzzer finds a failing input (go test writes
# it under the package's testdata/fuzz/, to commit with the fix).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZ_TIME:-5s}"
minimize="${FUZZ_MINIMIZE_TIME:-1s}"
min_execs="${FUZZ_MIN_EXECS:-1000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

targets=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		targets=$((targets + 1))
		log="$tmp/$target.log"
		if ! go test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" >"$log" 2>&1; then
			cat "$log"
			echo "FAIL: $pkg $target" >&2
			exit 1
		fi
		# Progress lines read "fuzz: elapsed: 3s, execs: 12430 (4143/sec), new interesting: ...".
		execs="$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
		stalled="$(grep -c 'execs: [0-9]* (0/sec)' "$log" || true)"
		reports="$(grep -c 'execs: [0-9]*' "$log" || true)"
		printf '%-45s %-24s %9s execs, %s of %s progress reports at 0/sec\n' "$pkg" "$target" "${execs:-0}" "$stalled" "$reports"
		if [ "${execs:-0}" -lt "$min_execs" ]; then
			cat "$log"
			echo "FAIL: $target ran only ${execs:-0} inputs in $fuzztime: the fuzzer did not explore" >&2
			exit 1
		fi
	done
done
[ "$targets" -gt 0 ] || { echo "FAIL: no fuzz targets found" >&2; exit 1; }
echo "fuzz: $targets targets, $fuzztime each: ok"
