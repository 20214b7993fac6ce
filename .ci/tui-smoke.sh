#!/usr/bin/env bash
# tui-smoke.sh — drive the real TUI in a detached tmux session and check
# what a user would see. Run from the repository root (.ci/run does).
#
#   .ci/tui-smoke.sh              # build, run, assert
#   CAPTURE_OUT=shot.txt .ci/tui-smoke.sh   # also keep the 120×40 screen
#
# Steps: start `ward --db TMP --backend offline --new` at 120×40; admit
# patient_1, ask a question, give oxygen, /wait 3m and /vitals; admit patient_2;
# switch with alt+1/alt+2;
# resize to 80×24; quit with ctrl+c; check `ward dump` kept the turns.
# After every step the pane must show no panic.
set -euo pipefail

cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
	echo "tmux missing; installing it with apt" >&2
	sudo_cmd=""
	[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
	$sudo_cmd apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq tmux >/dev/null
fi

tmp="$(mktemp -d)"
session="ward-smoke-$$"
db="$tmp/ward.db"
cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/ward" .

fail() {
	echo "FAIL: $*" >&2
	echo "----- screen -----" >&2
	screen >&2 || true
	echo "----- stderr -----" >&2
	cat "$tmp/stderr" >&2 2>/dev/null || true
	exit 1
}

screen() { tmux capture-pane -p -t "$session"; }

# wait_for PATTERN [SECONDS]: poll the pane until an extended regex matches.
wait_for() {
	local pattern=$1 deadline=$((SECONDS + ${2:-15}))
	while [ "$SECONDS" -lt "$deadline" ]; do
		if screen | grep -Eq -- "$pattern"; then
			return 0
		fi
		sleep 0.2
	done
	fail "timed out waiting for /$pattern/"
}

# wait_idle: the status bar stops saying a reply is coming.
wait_idle() {
	local deadline=$((SECONDS + ${1:-60}))
	while [ "$SECONDS" -lt "$deadline" ]; do
		if ! screen | grep -q "generating…"; then
			return 0
		fi
		sleep 0.2
	done
	fail "the reply never finished"
}

no_panic() {
	if screen | grep -Eq "panic:|goroutine [0-9]+ \[|WARD_EXIT=[1-9]"; then
		fail "panic or crash after: $1"
	fi
}

header() { screen | head -n 1; }

type_line() {
	tmux send-keys -t "$session" -l -- "$1"
	tmux send-keys -t "$session" Enter
}

# The pane stays open after ward exits, so a crash can still be read.
tmux new-session -d -s "$session" -x 120 -y 40 \
	"cd '$tmp' && ./ward --db '$db' --backend offline --new 2>'$tmp/stderr'; echo WARD_EXIT=\$?; sleep 600"

wait_for "review patient_1" # the first screen says how to begin
no_panic "start"

type_line "review patient_1"
wait_for "^patient_1 "
wait_idle
no_panic "review patient_1"

type_line "how are you feeling right now?"
wait_for "how are you feeling right now\?"
wait_idle
screen | grep -q "▸1 patient_1" || fail "roster lacks patient_1 as the active patient"
# The Patient answered: an agent label below the question.
screen | awk '/how are you feeling right now\?/ { q = 1; next } q && /│ Patient *$/ { r = 1 } END { exit !r }' ||
	fail "no reply from the Patient below the question"
no_panic "question"

# Treatment and time: the engine's numbers reach the screen through the Monitor.
type_line "applying oxygen via non-rebreather at 15 L/min and checking vitals"
wait_for "Vitals: HR [0-9]+"
wait_idle
type_line "/wait 3m"
wait_for "3:00 passed"
type_line "/vitals"
wait_for "Measured at T\\+"
wait_idle
no_panic "oxygen, /wait and /vitals"
if [ -n "${CAPTURE_OUT:-}" ]; then
	screen >"$CAPTURE_OUT"
fi

type_line "review patient_2"
wait_for "^patient_2 "
wait_idle
no_panic "review patient_2"

tmux send-keys -t "$session" M-1
wait_for "^patient_1 "
header | grep -q "^patient_1 " || fail "alt+1 did not show patient_1 in the header"
screen | grep -q "how are you feeling right now" || fail "patient_1's chat lost the question"
no_panic "alt+1"

tmux send-keys -t "$session" M-2
wait_for "^patient_2 "
no_panic "alt+2"

tmux resize-window -t "$session" -x 80 -y 24
wait_for "patient_[12] .*│ .*patient_[12]" # below 100 columns the roster is one line
no_panic "resize to 80x24"

tmux send-keys -t "$session" C-c
wait_for "WARD_EXIT=0"

dump="$("$tmp/ward" dump --db "$db")" || fail "ward dump failed"
for want in "review patient_1" "how are you feeling right now?" "review patient_2" '"assistant"'; do
	grep -qF -- "$want" <<<"$dump" || fail "ward dump lacks $want"
done

echo "tui-smoke: ok"
