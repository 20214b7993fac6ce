#!/usr/bin/env bash
# dump-speed.sh — `ward dump` against `sqlite3 -json` on the same rows (BENCHMARKS.md, "`ward dump`
# in bounded memory"): a shift of 100 histories × 1,000 messages (TestWriteShiftFixture, 36
# patients on its roster), and its histories' rows (patient, seq, role, agent, content, at,
# sim) put in a SQLite table by Python's sqlite3. RUNS rounds (default 9), each running every
# binary given (default this tree's ward, or WARD_BIN) and then sqlite3, in turn; prints the
# median elapsed time, CPU (user+sys) and peak RSS of each, and each ward's medians ÷ sqlite3's.
#
#   .ci/dump-speed.sh
#   RUNS=15 .ci/dump-speed.sh /tmp/old-ward /tmp/new-ward
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/ward.sh
needs sqlite3 python3
runs=${RUNS:-9}
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	ward_into "$tmp"
	bins=("$tmp/ward")
fi
WARD_FIXTURE_DB="$tmp/big.db" go test -count=1 -run TestWriteShiftFixture ./session >/dev/null
"${bins[0]}" dump --db "$tmp/big.db" --instructor | python3 -c '
import json, sqlite3, sys
rows = [(p, i, m.get("role"), m.get("agent"), m.get("content"), m.get("at"), m.get("sim"))
        for p, h in json.load(sys.stdin)["histories"].items() for i, m in enumerate(h)]
db = sqlite3.connect(sys.argv[1])
db.execute("create table messages(patient text, seq int, role text, agent text, content text, at text, sim real)")
db.executemany("insert into messages values (?,?,?,?,?,?,?)", rows)
db.commit()
print(len(rows), "rows", file=sys.stderr)' "$tmp/big.sqlite"

# timed LABEL COMMAND...: one run, "LABEL elapsed cpu rss" appended to the results.
timed() {
	local label=$1
	shift
	/usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$@" >/dev/null
	awk -v l="$label" '{ printf "%s %.3f %.3f %.1f\n", l, $1, $2 + $3, $4 / 1024 }' "$tmp/time" >>"$tmp/results"
}
for _ in $(seq "$runs"); do
	for i in "${!bins[@]}"; do
		timed "ward$i" "${bins[$i]}" dump --db "$tmp/big.db" --instructor
	done
	timed sqlite3 sqlite3 -json "$tmp/big.sqlite" 'select * from messages'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/results" "${bins[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = {f"ward{i}": b for i, b in enumerate(sys.argv[2:])}
names["sqlite3"] = "sqlite3 -json"
med = {}
for label in names:
    got = [r for r in rows if r[0] == label]
    med[label] = [statistics.median(float(r[k]) for r in got) for k in (1, 2, 3)]
    e, c, m = med[label]
    print(f"{names[label]:40} elapsed {e:.3f} s  CPU {c:.3f} s  peak RSS {m:.1f} MiB  (medians of {len(got)})")
for label in names:
    if label != "sqlite3":
        e, c, _ = med[label]
        print(f"{names[label]:40} ÷ sqlite3: elapsed {e / med['sqlite3'][0]:.2f}×, CPU {c / med['sqlite3'][1]:.2f}×")
PY
