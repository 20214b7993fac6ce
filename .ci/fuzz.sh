#!/usr/bin/env bash
# fuzz.sh — run every Fuzz* target in the repository for a while, and check that each one really
# explored: the targets are found in every package's test files (a `func FuzzX(f *testing.F)` at
# the start of a line, read with grep rather than `go test -list`, which would build every test
# binary of the module once more), so a new one is run without editing this file.
#
# FUZZ_TIME is the time per target (default 1s, what CI runs). A long run, for a scheduled job
# or before a release: FUZZ_TIME=10m bash .ci/fuzz.sh
#
# -fuzzminimizetime is kept short (FUZZ_MINIMIZE_TIME, default 1s): with Go's default of 60s the
# workers spend the run minimising the first inputs that find new coverage, and the exec
# counters stay at 0/sec. A target fails when it reports fewer than FUZZ_MIN_EXECS executions
# (default 100) after its seed corpus, or when the fuzzer finds a failing input (go test writes
# it under the package's testdata/fuzz/, to commit with the fix).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZ_TIME:-1s}"
minimize="${FUZZ_MINIMIZE_TIME:-1s}"
min_execs="${FUZZ_MIN_EXECS:-100}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# fuzz_one runs one target. Go 1.26's fuzz coordinator can fail a target with a bare "context
# deadline exceeded" as -fuzztime ends, having found nothing (go.dev/issue/75804, fixed in Go
# 1.27): such a run wrote no failing input, so it is run once more. A run that wrote a failing
# input fails at once; a second bare deadline is reported and not counted as a finding.
# A target whose baseline (its seeds, testdata and the inputs Go's fuzz cache kept from earlier
# runs) takes most of FUZZ_TIME runs fewer than FUZZ_MIN_EXECS inputs; it is run once more at
# three times the time.
# execs_in LOG: the inputs run, from the last progress line ("fuzz: elapsed: 3s, execs: 12430 ...").
execs_in() {
	local n
	n="$({ grep -o 'execs: [0-9]*' "$1" || true; } | tail -1 | cut -d' ' -f2)"
	echo "${n:-0}"
}

fuzz_one() { # fuzz_one PKG TARGET LOG
	local try time=$fuzztime
	for try in 1 2; do
		if go test "$1" -run '^$' -fuzz "^$2\$" -fuzztime "$time" -fuzzminimizetime "$minimize" >"$3" 2>&1; then
			if [ "$(execs_in "$3")" -ge "$min_execs" ] || [ "$try" = 2 ]; then
				return 0
			fi
			[[ $fuzztime =~ ^[0-9]+s$ ]] && time=$((${fuzztime%s} * 3))s
			echo "note: $2 ran $(execs_in "$3") inputs in $fuzztime, most of it its baseline; run again for $time" >&2
			continue
		fi
		if grep -q 'Failing input written to' "$3" || ! grep -q 'context deadline exceeded' "$3"; then
			return 1
		fi
		echo "note: $2 ended with Go's fuzz-coordinator deadline race (go.dev/issue/75804) and no failing input (run $try)" >&2
	done
	return 0
}

targets=0
while read -r pkg dir; do
	for target in $(cat "$dir"/*_test.go 2>/dev/null | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*\*testing\.F).*/\1/p' | sort -u); do
		targets=$((targets + 1))
		log="$tmp/$target.log"
		if ! fuzz_one "$pkg" "$target" "$log"; then
			cat "$log"
			echo "FAIL: $pkg $target" >&2
			exit 1
		fi
		# Progress lines read "fuzz: elapsed: 3s, execs: 12430 (4143/sec), new interesting: ...".
		execs="$(execs_in "$log")"
		stalled="$(grep -c 'execs: [0-9]* (0/sec)' "$log" || true)"
		reports="$(grep -c 'execs: [0-9]*' "$log" || true)"
		printf '%-45s %-24s %9s execs, %s of %s progress reports at 0/sec\n' "$pkg" "$target" "${execs:-0}" "$stalled" "$reports"
		if [ "${execs:-0}" -lt "$min_execs" ]; then
			cat "$log"
			echo "FAIL: $target ran only ${execs:-0} inputs in $fuzztime: the fuzzer did not explore" >&2
			exit 1
		fi
	done
done < <(go list -f '{{.ImportPath}} {{.Dir}}' ./...)
[ "$targets" -gt 0 ] || { echo "FAIL: no fuzz targets found" >&2; exit 1; }
echo "fuzz: $targets targets, $fuzztime each: ok"
