#!/usr/bin/env bash
# class-speed.sh — issue 35's class's speed (BENCHMARKS.md, "A class over SSH"): `ward serve` on
# the offline backend under TestLoadOverSSH (ui/lab/load_test.go), N trainees × 50 turns, each
# run beside the load average it ran at, printed as one table.
#   OLD=<commit>  also build that commit and alternate old and new, ROUNDS times (default 3), at
#                 the first size: the two binaries under the same machine, turn about. OLD_BIN
#                 names that commit's binary when it is built already.
#   SIZES         the class sizes, the first compared (default "30x50 60x50 100x50").
#   SHM=1         one more run of the first size with the database on tmpfs (/dev/shm): what the
#                 disk's fsync adds to a turn.
# The same test binary (this tree's) drives every server. Bounded: each run 10 minutes at most.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-3}"
read -r -a sizes <<<"${SIZES:-30x50 60x50 100x50}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/new" .
go test -c -o "$work/lab.test" ./ui/lab
if [ -n "${OLD_BIN:-}" ]; then
	ln -s "$(realpath "$OLD_BIN")" "$work/old"
elif [ -n "${OLD:-}" ]; then
	mkdir "$work/old-src"
	git archive "$OLD" | tar -x -C "$work/old-src"
	(cd "$work/old-src" && go build -o "$work/old" .)
fi

# run LABEL BIN SIZE [TMPDIR]: one load test, one row of the table.
run() {
	local label="$1" bin="$2" size="$3" tmp="${4:-${TMPDIR:-/tmp}}" load line
	load="$(cut -d' ' -f1 /proc/loadavg)"
	line="$(cd ui/lab && TMPDIR="$tmp" WARD_BIN="$bin" WARD_LOAD="$size" timeout 600 "$work/lab.test" \
		-test.run '^TestLoadOverSSH$' -test.count=1 -test.v -test.timeout 590s 2>&1 | grep -E 'trainees ×|FAIL|panic' || true)"
	load="$load–$(cut -d' ' -f1 /proc/loadavg)"
	if [[ "$line" != *"0 lost"* ]]; then
		echo "| $label | $size | failed: $line |"
		failed=1
		return
	fi
	# "30 trainees × 50 turns: 0 lost; turn p50 X p99 Y; keystroke to frame p50 A p99 B; server peak RSS R MiB, CPU C s; clients' CPU D s"
	local turns cpu
	turns=$(( ${size%x*} * ${size#*x} ))
	cpu="$(sed -E 's/.*server peak RSS [0-9]+ MiB, CPU ([0-9.]+) s.*/\1/' <<<"$line")"
	sed -E "s/.*turn p50 (\S+) p99 (\S+); keystroke to frame p50 (\S+) p99 (\S+); server peak RSS ([0-9]+) MiB, CPU ([0-9.]+) s; clients' CPU ([0-9.]+) s.*/| $label | $size | \1 | \2 | \4 | \6 s | $(awk -v c="$cpu" -v n="$turns" 'BEGIN { printf "%.1f", 1000 * c / n }') ms | \7 s | \5 MiB | $load |/" <<<"$line"
}

failed=0
echo "| binary | trainees × turns | turn p50 | turn p99 | keystroke p99 | server CPU | server CPU ÷ turns | clients' CPU | server peak RSS | load average (before–after) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
old="${OLD:-${OLD_BIN##*/}}" # a label: a path would end the table's sed
if [ -n "$old" ]; then
	for _ in $(seq "$rounds"); do
		run "old ($old)" "$work/old" "${sizes[0]}"
		run new "$work/new" "${sizes[0]}"
	done
fi
for size in "${sizes[@]}"; do
	if [ -n "$old" ] && [ "$size" = "${sizes[0]}" ]; then
		continue
	fi
	run new "$work/new" "$size"
done
if [ "${SHM:-}" = 1 ]; then
	mkdir -p /dev/shm/class-speed
	run "new, database on tmpfs" "$work/new" "${sizes[0]}" /dev/shm/class-speed
	rm -rf /dev/shm/class-speed
fi
exit "$failed"
