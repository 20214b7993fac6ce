#!/usr/bin/env bash
# Random play (issue 33): long random sequences of lexicon actions, orders, examinations, waits,
# switches and injections on every built-in scenario, checked at every step against the
# invariants of docs/invariants.md (session/randomplay_test.go, pgregory.net/rapid). Bounded in
# time: it plays batches under fresh seeds until the budget (default 120 s) is spent. A failure
# prints the shrunk sequence and the seed that replays it, and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"

budget=${RANDOMPLAY_SECONDS:-120}
steps=${WARD_RANDOMPLAY_STEPS:-60}
bin=$(mktemp -d)/session.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./session/

start=$SECONDS sequences=0 played=0 batch=0
while (( SECONDS - start < budget )); do
	batch=$((batch + 1))
	seed=$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM ^ batch ))
	out=$(cd session && WARD_RANDOMPLAY_STEPS=$steps "$bin" -test.run '^TestRandomPlay$' -test.v \
		-rapid.checks=20 -rapid.seed="$seed" 2>&1) || { echo "$out" | grep -v '\[rapid\] draw' | tail -40; exit 1; }
	line=$(echo "$out" | grep -o 'random play: [0-9]* sequences, [0-9]* steps' | tail -1)
	sequences=$((sequences + $(echo "$line" | awk '{print $3}')))
	played=$((played + $(echo "$line" | awk '{print $5}')))
done
echo "random play: $sequences sequences, $played steps in $((SECONDS - start)) s ($batch batches, up to $steps steps each): every invariant held"
