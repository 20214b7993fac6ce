#!/usr/bin/env bash
# cli-smoke.sh — use the ward binary as a person or a script would, and check what it says.
# Run from the repository root (.ci/run does).
#
# Covers: `ward run` writes one JSON event per line and one turn_end per input line; dump, aar
# --out, archive list|show|restore and stats read the shift; scenarios validate names file:line; --help exits
# 0 and a bad flag does not; a second ward on the same file is refused in one line naming it; a
# `ward run` killed with SIGKILL keeps every turn it acknowledged.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ward" .
ward() { "$tmp/ward" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
db="$tmp/ward.db"

# One JSON object per line, and exactly one turn_end per non-empty input line.
printf 'review patient_1\n\nany allergies?\n/vitals\n/nonsense\n' |
	ward run --db "$db" --backend offline >"$tmp/run.jsonl"
grep -qv '^{"event":"[a-z_]*",.*}$' "$tmp/run.jsonl" && fail "ward run printed a line that is not a JSON event"
[ "$(grep -c '^{"event":"turn_end"' "$tmp/run.jsonl")" -eq 4 ] || fail "4 input lines did not give 4 turn_end events"

# A shift read back: dump, the AAR to a file, stats, archives after a clear.
printf '/admit patient_2 asthma-exacerbation\napplying oxygen 15 L NRB\n/wait 2m\n' | ward run --db "$db" --backend offline >/dev/null
ward dump --db "$db" | grep -q '"asthma-exacerbation"' || fail "dump lacks the admitted scenario"
ward aar --db "$db" --out "$tmp/aar.md"
grep -qi "oxygen" "$tmp/aar.md" || fail "the AAR file does not list the oxygen given"
ward stats --db "$db" | grep -q '"merges"' || fail "stats lacks the entity counters"
echo clear | ward run --db "$db" --backend offline >/dev/null
ward archive list --db "$db" | grep -q "2 patient(s)" || fail "archive list after a clear"
archive="$(ward archive list --db "$db" | head -1 | cut -d' ' -f1)"
ward archive show "$archive" --db "$db" | grep -q '"patient_2"' || fail "archive show lacks the archived patient"
if ward archive show nope --db "$db" >/dev/null 2>"$tmp/show.err"; then fail "showing a missing archive succeeded"; fi
grep -q 'no archive "nope" in this shift' "$tmp/show.err" || fail "missing archive: $(cat "$tmp/show.err")"
ward archive restore "$archive" --db "$db" | grep -q "restored archive" || fail "archive restore"
ward dump --db "$db" | grep -q '"patient_2"' || fail "the restored shift lacks patient_2"

# Errors say what is wrong.
printf 'id: broken\ntitle: Broken\nnews2:\n  scale: 3\n' >"$tmp/bad.yaml"
if ward scenarios validate "$tmp/bad.yaml" >"$tmp/validate.out" 2>&1; then fail "a bad scenario validated"; fi
grep -q "bad.yaml:4:" "$tmp/validate.out" || fail "validate does not name line 4: $(cat "$tmp/validate.out")"
ward --help >/dev/null 2>&1 || fail "--help exits non-zero"
if ward archive --db "$db" >/dev/null 2>"$tmp/archive.err"; then fail "archive with no subcommand succeeded"; fi
grep -q "usage: ward archive" "$tmp/archive.err" || fail "archive with no subcommand: $(cat "$tmp/archive.err")"
if ward run --db "$db" --backend gpt </dev/null 2>/dev/null; then fail "an unknown backend was accepted"; fi

# A second ward on the same file: refused at once, in one line naming the file.
mkfifo "$tmp/hold"
ward run --db "$db" --backend offline <"$tmp/hold" >/dev/null &
holder=$!
exec 3>"$tmp/hold"
sleep 0.5
if ward dump --db "$db" >/dev/null 2>"$tmp/locked.err"; then fail "a second ward opened a file in use"; fi
[ "$(wc -l <"$tmp/locked.err")" -eq 1 ] && grep -qF "$db" "$tmp/locked.err" || fail "lock error: $(cat "$tmp/locked.err")"
exec 3>&-
wait "$holder"

# Killed mid-session: every acknowledged turn survives.
kdb="$tmp/killed.db"
mkfifo "$tmp/in"
ward run --db "$kdb" --backend offline <"$tmp/in" >"$tmp/killed.jsonl" &
pid=$!
exec 4>"$tmp/in"
for i in $(seq 1 10); do
	echo "review patient_1 and note $i" >&4
	until grep -q "\"turn_end\",\"input\":\"review patient_1 and note $i\"" "$tmp/killed.jsonl" 2>/dev/null; do sleep 0.05; done
done
echo "a turn that may or may not land" >&4
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
exec 4>&-
ward dump --db "$kdb" >"$tmp/killed.dump"
for i in $(seq 1 10); do
	grep -q "review patient_1 and note $i\"" "$tmp/killed.dump" || fail "acknowledged turn $i lost after kill -9"
done

echo "cli-smoke: ok"
