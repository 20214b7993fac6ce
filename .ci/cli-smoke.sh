#!/usr/bin/env bash
# cli-smoke.sh — use the ward binary as a person or a script would, and check what it says.
# Run from the repository root (.ci/run does).
#
# Covers: `ward run` writes one JSON event per line and one turn_end per input line; an overdose
# stopped, then overridden, and a nurse's escalation during /wait; `ward formulary DRUG`; dump, aar
# --out, export, archive list|show|restore (by number) and stats read the shift; scenarios validate
# names file:line; flags go before or after the command; every command has its own --help; an
# unknown command or flag is one line and exit status 2; read-only commands never create a file and
# work while another ward writes, seeing its latest commit, while a second writer is refused in one
# line naming the file; --out refuses the database and an existing file (exit 2, unchanged); a
# `ward run` killed with SIGKILL keeps every turn it acknowledged; an
# encrypted database shows `strings` nothing clinical and opens only with the right passphrase.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source .ci/ward.sh
ward_into "$tmp"
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
ward dump --db "$db" --debug >"$tmp/dump.json" && grep -q '"asthma-exacerbation"' "$tmp/dump.json" || fail "a developer's dump lacks the admitted scenario"
ward dump --db "$db" >"$tmp/trainee.json"
grep -q '"asthma-exacerbation"' "$tmp/trainee.json" && fail "a trainee's dump names the scenario"
grep -q "masked in a trainee's view" "$tmp/trainee.json" || fail "a trainee's dump does not say what it masks"
ward aar --db "$db" --out "$tmp/aar.md"
grep -qi "oxygen" "$tmp/aar.md" || fail "the AAR file does not list the oxygen given"
ward stats --db "$db" >"$tmp/stats.txt"
grep -q "merges" "$tmp/stats.txt" && ! grep -q "{" "$tmp/stats.txt" || fail "stats is not a table: $(cat "$tmp/stats.txt")"
ward stats --json --db "$db" | grep -q '"merges"' || fail "stats --json lacks the entity counters"
ward stats --json --db "$db" | grep -q 'recent_ns' && fail "stats --json shows ring-buffer internals"
ward export --db "$db" --patient patient_2 --out "$tmp/chat.md"
grep -q '^\*\*You\*\* · T+' "$tmp/chat.md" && grep -q "applying oxygen" "$tmp/chat.md" || fail "export: $(cat "$tmp/chat.md")"
# --out writes a new file, the user's alone, and never replaces the database or a file it did
# not create: exit 2 and the file as it was.
[ "$(stat -c %a "$tmp/chat.md")" = 600 ] || fail "the exported chat is $(stat -c %a "$tmp/chat.md"), not 600"
sum="$(sha256sum "$db" "$tmp/chat.md")"
for target in "$db" "$tmp/chat.md"; do
	code=0
	ward export --db "$db" --out "$target" >/dev/null 2>"$tmp/out.err" || code=$?
	[ "$code" -eq 2 ] && [ "$(wc -l <"$tmp/out.err")" -eq 1 ] || fail "export --out $target: exit $code: $(cat "$tmp/out.err")"
done
code=0
ward export --db "$db" --out "$db" --force >/dev/null 2>"$tmp/out.err" || code=$?
[ "$code" -eq 2 ] && grep -q "ward is using it" "$tmp/out.err" || fail "export --out the database --force: exit $code: $(cat "$tmp/out.err")"
[ "$(sha256sum "$db" "$tmp/chat.md")" = "$sum" ] || fail "a refused --out changed its target"
echo clear | ward run --db "$db" --backend offline >/dev/null
ward archive list --db "$db" | grep -q "^  1  .* 2 patient(s)" || fail "archive list after a clear: $(ward archive list --db "$db")"
ward archive show 1 --db "$db" | grep -q '"patient_2"' || fail "archive show 1 lacks the archived patient"
if ward archive show nope --db "$db" >/dev/null 2>"$tmp/show.err"; then fail "showing a missing archive succeeded"; fi
grep -q 'no archive "nope" in this shift' "$tmp/show.err" || fail "missing archive: $(cat "$tmp/show.err")"
ward archive restore 1 --db "$db" | grep -q "restored archive 1" || fail "archive restore 1"
ward dump --db "$db" >"$tmp/dump.json" && grep -q '"patient_2"' "$tmp/dump.json" || fail "the restored shift lacks patient_2"

# Orders and alarms, as a trainee meets them: an overdose stopped by the Pharmacist, the same
# overdose given on an explicit override (a critical error), and an unseen patient whose nurse
# escalates during /wait. The formulary reads by any name of a drug.
printf '%s\n' "/admit patient_1 anaphylaxis" "give adrenaline 5 mg IM" "give adrenaline 5 mg IM override" \
	"/admit patient_2 acs-sildenafil" "/switch patient_1" "/wait 30m" |
	ward run --db "$tmp/orders.db" --new --backend offline >"$tmp/orders.jsonl"
grep -q '"event":"order".*"verdict":"stop".*"given":false' "$tmp/orders.jsonl" || fail "the overdose was not stopped"
grep -q '"agent":"Pharmacist","text":"STOP — adrenaline 5 mg IM' "$tmp/orders.jsonl" || fail "the Pharmacist did not say the stop"
grep -q '"event":"critical_error".*overrode the Pharmacist' "$tmp/orders.jsonl" || fail "the override is no critical error"
grep -q '"event":"escalation","patient_id":"patient_2".*"level":"emergency"' "$tmp/orders.jsonl" ||
	fail "the unseen STEMI raised no emergency escalation"
ward formulary adrenaline >"$tmp/formulary.txt"
grep -q "^adrenaline (epinephrine)" "$tmp/formulary.txt" && grep -q "RCUK-ANA" "$tmp/formulary.txt" || fail "ward formulary adrenaline: $(cat "$tmp/formulary.txt")"
if ward formulary unobtainium >/dev/null 2>"$tmp/formulary.err"; then fail "an unknown drug has a formulary entry"; fi
grep -q 'no formulary entry for "unobtainium"' "$tmp/formulary.err" || fail "unknown drug: $(cat "$tmp/formulary.err")"

# Errors say what is wrong.
printf 'id: broken\ntitle: Broken\nnews2:\n  scale: 3\n' >"$tmp/bad.yaml"
if ward scenarios validate "$tmp/bad.yaml" >"$tmp/validate.out" 2>&1; then fail "a bad scenario validated"; fi
grep -q "bad.yaml:4:" "$tmp/validate.out" || fail "validate does not name line 4: $(cat "$tmp/validate.out")"
ward --help >/dev/null 2>&1 || fail "--help exits non-zero"
if ward archive --db "$db" >/dev/null 2>"$tmp/archive.err"; then fail "archive with no subcommand succeeded"; fi
grep -q "usage: ward archive" "$tmp/archive.err" || fail "archive with no subcommand: $(cat "$tmp/archive.err")"
if ward run --db "$db" --backend gpt </dev/null 2>/dev/null; then fail "an unknown backend was accepted"; fi

# A conventional command line: flags before or after the command, help per command, one-line
# usage errors with exit status 2.
[ "$(ward --db "$db" dump)" = "$(ward dump --db "$db")" ] || fail "a flag before the command changed what dump printed"
# (Help goes to a file first: grep -q closing the pipe early would fail the pipeline.)
ward run --help >"$tmp/help.txt"
grep -q "^usage: ward run \[flags\]" "$tmp/help.txt" || fail "ward run --help is not run's usage"
grep -q -- "--theme" "$tmp/help.txt" && fail "ward run --help lists the TUI's --theme"
ward aar --help >"$tmp/help.txt"
grep -q -- "--patient ID" "$tmp/help.txt" || fail "ward aar --help lacks --patient"
ward --help >"$tmp/help.txt"
grep -q "^  archive " "$tmp/help.txt" || fail "ward --help lacks the command list"
usage_error() { # usage_error WANT ARGS...: exit status 2 and one line on stderr naming WANT
	local want=$1 code=0
	shift
	ward "$@" >/dev/null 2>"$tmp/usage.err" || code=$?
	[ "$code" -eq 2 ] || fail "ward $*: exit status $code, want 2"
	[ "$(wc -l <"$tmp/usage.err")" -eq 1 ] && grep -qF -- "$want" "$tmp/usage.err" || fail "ward $*: $(cat "$tmp/usage.err")"
}
usage_error 'unknown command "frob" — see ward --help' frob
usage_error 'unknown command "frob" — see ward --help' --db "$db" frob
usage_error "unknown flag --frob — see ward dump --help" dump --frob --db "$db"
usage_error "unknown flag --frob — see ward --help" --frob

# Read-only commands never create a file or a directory: a missing database is an error naming it.
for cmd in dump aar export stats "archive list"; do
	# shellcheck disable=SC2086 # $cmd is a command and its subcommand
	if ward $cmd --db "$tmp/none/x.db" >/dev/null 2>"$tmp/none.err"; then fail "ward $cmd on a missing database succeeded"; fi
	grep -qF "$tmp/none/x.db" "$tmp/none.err" || fail "ward $cmd on a missing database: $(cat "$tmp/none.err")"
done
[ ! -e "$tmp/none" ] || fail "a read-only command created $tmp/none"

# While a ward writes the file, read-only commands read its latest commit; a second writer is
# refused at once, in one line naming the file.
mkfifo "$tmp/hold"
ward run --db "$db" --backend offline <"$tmp/hold" >"$tmp/hold.jsonl" &
holder=$!
exec 3>"$tmp/hold"
echo "a note written while dump reads" >&3
until grep -q '"turn_end","input":"a note written while dump reads"' "$tmp/hold.jsonl" 2>/dev/null; do sleep 0.05; done
ward dump --db "$db" >"$tmp/live.json" || fail "ward dump while ward run holds the database"
grep -q "a note written while dump reads" "$tmp/live.json" || fail "dump while ward run writes lacks its latest turn"
ward archive list --db "$db" | grep -q "^  1 " || fail "archive list while ward run holds the database"
if ward archive restore 1 --db "$db" >/dev/null 2>"$tmp/locked.err"; then fail "a second writer opened a file in use"; fi
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

# An encrypted database: nothing clinical in the file's bytes, a wrong passphrase is one line
# and changes nothing, a trainee's passphrase opens no one else's shift, the instructor's opens
# every one, and the audit record says who did what.
edb="$tmp/encrypted.db"
export WARD_INSTRUCTOR_PASSPHRASE="the night sister holds the keys" WARD_PASSPHRASE="alice on the night shift"
printf '/admit patient_1 asthma-exacerbation\nany past medical history?\n' |
	ward run --db "$edb" --encrypt --trainee alice --backend offline >/dev/null
WARD_PASSPHRASE="bob on the night shift" ward run --db "$edb" --trainee bob --backend offline </dev/null >/dev/null
ward dump --db "$edb" --trainee alice >"$tmp/dump.json" && grep -q "My chest's been bad since I was eight" "$tmp/dump.json" || fail "alice's dump lacks her patient's history"
needs strings
strings "$edb" | grep -q "My chest's been bad since I was eight" && fail "strings finds a disclosure in the encrypted file"
strings "$edb" | grep -q "Maya Okafor" && fail "strings finds a patient's name in the encrypted file"
sum="$(sha256sum "$edb")"
if ward dump --db "$edb" --trainee bob >/dev/null 2>"$tmp/wrong.err"; then fail "alice's passphrase opened bob's shift"; fi
[ "$(wc -l <"$tmp/wrong.err")" -eq 1 ] && grep -q "passphrase of trainee \"bob\" is wrong" "$tmp/wrong.err" || fail "wrong passphrase: $(cat "$tmp/wrong.err")"
[ "$(sha256sum "$edb")" = "$sum" ] || fail "a wrong passphrase changed the file"
ward report --db "$edb" --format csv | grep -q "^alice," || fail "the instructor's report lacks alice"
ward audit --db "$edb" >"$tmp/audit.txt" # (to a file: grep -q closing a pipe early would fail it)
grep -q "trainee bob .*passphrase_failed" "$tmp/audit.txt" || fail "the audit lacks the failed passphrase: $(cat "$tmp/audit.txt")"
# A weak passphrase is refused in one plain line, and nothing is written.
WARD_NEW_PASSPHRASE=x2 ward passwd --db "$edb" --instructor 2>"$tmp/weak.err" && fail "a two-character instructor's passphrase was accepted"
grep -q "at least 16 characters" "$tmp/weak.err" || fail "weak passphrase: $(cat "$tmp/weak.err")"
unset WARD_INSTRUCTOR_PASSPHRASE WARD_PASSPHRASE

echo "cli-smoke: ok"
