#!/usr/bin/env bash
# first-frame.sh — time the real binary from exec to its first frame, as a person starts it: in a
# pseudo-terminal of 120×40 that answers the terminal queries a real terminal answers. Two
# databases: an empty one (the start dialog) and a shift of 100 histories × 1,000 messages with
# 36 patients on its roster (TestWriteShiftFixture; the roster is drawn). Prints each run and the median of RUNS (default 9) runs per database.
#
#   .ci/first-frame.sh            # from the repository root
#   RUNS=21 .ci/first-frame.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-9}
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source .ci/ward.sh
ward_into "$tmp"
WARD_FIXTURE_DB="$tmp/big.db" go test -count=1 -run TestWriteShiftFixture ./session >/dev/null

measure() { # measure NAME MARKER DB-SETUP
	local name=$1 marker=$2 setup=$3 times=()
	for _ in $(seq "$runs"); do
		eval "$setup"
		line=$(python3 .ci/first_frame.py "$marker" "$tmp/ward" --db "$tmp/run.db" --backend offline)
		times+=("$(echo "$line" | cut -d' ' -f1)")
	done
	printf '%s\n' "${times[@]}" | sort -n | awk -v name="$name" -v n="$runs" '
		{ t[NR] = $1 } END { printf "%-28s median %6.1f ms  (min %.1f, max %.1f, %d runs)\n", name, t[int((n+1)/2)], t[1], t[n], n }'
}

measure "empty database" "Start a shift" 'rm -f "$tmp/run.db"'
measure "100 histories x 1,000 msgs" "patient_" 'cp "$tmp/big.db" "$tmp/run.db"'
