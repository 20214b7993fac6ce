#!/usr/bin/env bash
# crash-campaign.sh — kill `ward run` with SIGKILL at random moments, again and again on one
# database, and check after every kill that each turn ward acknowledged (a turn_end event on its
# output) is in `ward dump`. Run from the repository root (.ci/run does).
#
# CRASH_RUNS is the number of kills (default 40, what CI runs; the campaign the store is held
# to: CRASH_RUNS=200 bash .ci/crash-campaign.sh, or more). Each run resumes the shift, is sent 1
# to 40 turns at once and is killed either 0 to 59 ms after it starts or just after a random
# turn's acknowledgement, so kills land while ward opens the file, inside a turn's commits and
# between turns. It fails when a dump fails, when an
# acknowledged turn is missing, or when ward crashed on its own (a Go panic). CRASH_SEED makes
# a run repeatable; the summary line prints the seed used.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${CRASH_RUNS:-40}"
seed="${CRASH_SEED:-$$}"
RANDOM="$seed"
# The campaign is about kills, not the disk: on tmpfs a commit's fsync costs nothing, and a
# killed process loses nothing the kernel already has.
tmp="$(mktemp -d -p /dev/shm ward-campaign.XXXXXX 2>/dev/null || mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source .ci/ward.sh
ward_into "$tmp"
fail() { echo "FAIL (CRASH_SEED=$seed): $*" >&2; exit 1; }
db="$tmp/ward.db"
acked="$tmp/acked" # every acknowledged input so far, one a line
: >"$acked"

# The shift starts with its patients admitted, in a run that is not killed.
printf '/admit patient_2 asthma-exacerbation\n/admit patient_3 sepsis-urosepsis\nreview patient_1\n' |
	"$tmp/ward" run --db "$db" --backend offline >/dev/null

mkfifo "$tmp/in"
turns=0 before=0 inside=0 between=0
for ((run = 1; run <= runs; run++)); do
	"$tmp/ward" run --db "$db" --backend offline <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	exec 4>"$tmp/in" # ward reads until it is killed: this end stays open
	for ((turn = 1, n = RANDOM % 40 + 1; turn <= n; turn++)); do
		echo "review patient_$((RANDOM % 3 + 1)): crash run $run turn $turn"
		if [ $((RANDOM % 8)) -eq 0 ]; then echo "/wait 1m"; fi
	done >&4 # the pipe holds them all: no write waits for ward
	if ((RANDOM % 2)); then # at a random moment
		sleep "0.$(printf %03d $((RANDOM % 60)))"
	else # just after the k-th acknowledgement, while the next turn runs
		k=$((RANDOM % n))
		for ((wait = 0; wait < 5000; wait++)); do
			[ "$(grep -c '"event":"turn_end"' "$tmp/out")" -lt "$k" ] && kill -0 "$pid" 2>/dev/null || break
			sleep 0.002
		done
	fi
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	exec 4>&-
	if grep -Eq 'panic:|fatal error:' "$tmp/err"; then
		cat "$tmp/err" >&2
		fail "run $run: ward crashed on its own"
	fi
	if [ ! -s "$tmp/out" ]; then
		before=$((before + 1))
	elif tail -1 "$tmp/out" | grep -q '^{"event":"turn_end"'; then
		between=$((between + 1))
	else
		inside=$((inside + 1))
	fi
	grep -o '"event":"turn_end","input":"[^"]*crash run [0-9]* turn [0-9]*"' "$tmp/out" |
		sed 's/.*"input":"//; s/"$//' >>"$acked" || true
	turns="$(wc -l <"$acked")"

	if ! "$tmp/ward" dump --db "$db" >"$tmp/dump" 2>"$tmp/err"; then
		fail "run $run: dump after the kill: $(cat "$tmp/err")"
	fi
	# Before the first stored turn the dump holds none, and grep's "no match" is not a failure.
	{ grep -o '"content": "[^"]*crash run [0-9]* turn [0-9]*"' "$tmp/dump" || true; } |
		sed 's/^"content": "//; s/"$//' >"$tmp/stored"
	missing="$(grep -Fvx -f "$tmp/stored" "$acked" || true)"
	[ -z "$missing" ] || fail "run $run: acknowledged turns missing from the dump: $missing"
done

echo "crash-campaign: seed $seed, $runs runs killed with SIGKILL ($before before the first turn, $inside inside a turn," \
	"$between between turns), $turns acknowledged turns, 0 lost"
