#!/usr/bin/env bash
# idle-rss.sh — the resident memory of the TUI at rest: the real binary opened in a 120×40
# pseudo-terminal (.ci/first_frame.py) on a shift of 10 patients × MESSAGES (default 100), left alone for
# IDLE seconds (default 5) after its first frame, then its VmRSS read from /proc. Prints each run
# and the median of RUNS (default 5) per binary; binaries given as arguments are run in turn,
# round by round, so that two builds are compared on the same load.
#
#   .ci/idle-rss.sh                       # this tree's ward (or WARD_BIN)
#   RUNS=9 .ci/idle-rss.sh /tmp/old-ward /tmp/new-ward
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
export IDLE=${IDLE:-5}
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	source .ci/ward.sh
	ward_into "$tmp"
	bins=("$tmp/ward")
fi
WARD_FIXTURE_DB="$tmp/ten.db" WARD_FIXTURE_PATIENTS=10 WARD_FIXTURE_MESSAGES="${MESSAGES:-100}" \
	go test -count=1 -run TestWriteShiftFixture ./session >/dev/null

declare -A rss
for _ in $(seq "$runs"); do
	for bin in "${bins[@]}"; do
		cp "$tmp/ten.db" "$tmp/run.db"
		out=$(python3 .ci/first_frame.py "patient_" "$bin" --db "$tmp/run.db" --backend offline)
		mib=$(echo "$out" | awk '/resident/ { print $1 }')
		[ -n "$mib" ] || { echo "FAIL: $bin: no resident set read: $out" >&2; exit 1; }
		echo "$bin: $mib MiB"
		rss[$bin]+="$mib "
	done
done
for bin in "${bins[@]}"; do
	printf '%s\n' ${rss[$bin]} | sort -n | awk -v name="$bin" -v n="$runs" '
		{ m[NR] = $1 } END { printf "%-40s median %5.1f MiB  (min %.1f, max %.1f, %d runs)\n", name, m[int((n+1)/2)], m[1], m[n], n }'
done
