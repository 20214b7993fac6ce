#!/usr/bin/env bash
# fsyncs-per-turn.sh — how many fdatasyncs a turn of `ward run --backend offline` makes, by kind
# of line: ten lines of a kind in one process, less the same process given no line, counted by
# strace on a shift of two patients. Each bbolt commit syncs twice (data pages, then the meta
# page), so 20 is one commit a line. Fails when a line of any kind makes more than one commit
# (over 22: the first line of a process may write what resuming brought up to date).
#
#   bash .ci/fsyncs-per-turn.sh            # builds ward (or uses WARD_BIN, as .ci/run sets it)
#   WARD=/tmp/old-ward bash .ci/fsyncs-per-turn.sh   # another binary, e.g. an older commit's
set -euo pipefail
cd "$(dirname "$0")/.."
command -v strace >/dev/null || { apt-get install -y strace >/dev/null 2>&1 || true; }
command -v strace >/dev/null || { echo "fsyncs-per-turn: strace is not installed" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ -n "${WARD:-}" ]; then
	ln -s "$(realpath "$WARD")" "$tmp/ward"
else
	source .ci/ward.sh
	ward_into "$tmp"
fi
db="$tmp/ward.db"
printf '/admit patient_1 sepsis-urosepsis\n/admit patient_2 asthma-exacerbation\nreview patient_1\n' |
	timeout 60 "$tmp/ward" run --db "$db" --backend offline >/dev/null
syncs() { # syncs: the fdatasyncs and fsyncs of one `ward run` reading its standard input
	timeout 60 strace -f -e trace=fdatasync,fsync -c -o "$tmp/strace" "$tmp/ward" run --db "$db" --backend offline >/dev/null
	awk '/fdatasync|fsync/ {n += $4} END {print n + 0}' "$tmp/strace"
}
line() { # line KIND I: the I-th line of a kind
	case $1 in
	bedside) echo "how are you feeling ($2)?" ;;
	switch) echo "review patient_$(($2 % 2 + 1))" ;;
	vitals) echo "/vitals" ;;
	wait) echo "/wait 1m" ;;
	wait10) echo "/wait 10m" ;;
	esac
}
base=$(: | syncs)
status=0
for kind in bedside switch vitals wait wait10; do
	n=$(for i in $(seq 1 10); do line "$kind" "$i"; done | syncs)
	echo "fsyncs-per-turn: $kind: $((n - base)) fdatasyncs over 10 lines"
	if [ $((n - base)) -gt 22 ]; then status=1; fi
done
exit "$status"
