#!/usr/bin/env bash
# tui-smoke.sh — drive the real TUI in a detached tmux session and check
# what a user would see. Run from the repository root (.ci/run does).
#
#   .ci/tui-smoke.sh              # build, run, assert
#   CAPTURE_OUT=shot.txt .ci/tui-smoke.sh   # also keep the 120×40 screen
#
# Steps: start `ward --db TMP --backend offline --new --shift` (patient_1, an opioid overdose) at
# 120×40, whose first screen says the sim clock is running and how to pause it; review patient_1, ask a question, give oxygen, /wait 3m and /vitals; admit patient_2 (y confirms);
# switch with alt+1/alt+2; from the focused roster reorder (alt+o), pick a patient
# and type /wait (nothing typed is lost); scroll the chat with the mouse wheel and
# click a roster row (SGR mouse sequences); search the chat; copy a message (OSC 52);
# `ward dump` while the TUI holds the database; /clear asks first and n keeps
# everything; /export writes the chat; /help shows its table; resize to 80×24 and alt+2 shows patient_2 on
# the roster strip; quit with ctrl+c; check `ward dump` kept the turns, `ward replay` replays
# the session's --trace and `ward inspect` browses it. Then the light
# theme on a light tmux background paints its own colours, and none with NO_COLOR; the start
# dialog hides the screen behind it and starts the clock with the shift, and an alarm on one patient
# shows while another is active: roster, status bar, bell, alt+a to go, alt+k to acknowledge.
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

# A private server that outlives each session: a server left with no sessions exits, and a
# new-session racing that exit fails with "server exited unexpectedly" (seen in CI).
socket="ward-smoke-$$"
tmux() { command tmux -L "$socket" "$@"; }
tmux new-session -d -s keeper "sleep 3600"
cleanup() {
	tmux kill-server 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

source .ci/ward.sh
ward_into "$tmp"

fail() {
	echo "FAIL: $*" >&2
	echo "----- screen -----" >&2
	screen >&2 || true
	echo "----- stderr -----" >&2
	cat "$tmp/stderr" >&2 2>/dev/null || true
	exit 1
}

screen() { tmux capture-pane -p -t "$session"; }

# wait_until WHAT SECONDS COMMAND...: poll until the command succeeds.
wait_until() {
	local what=$1 deadline=$((SECONDS + $2))
	shift 2
	while [ "$SECONDS" -lt "$deadline" ]; do
		if "$@"; then
			return 0
		fi
		sleep 0.2
	done
	fail "timed out waiting for $what"
}

shows() { screen | grep -Eq -- "$1"; }

# wait_for PATTERN [SECONDS]: poll the pane until an extended regex matches.
wait_for() { wait_until "/$1/" "${2:-15}" shows "$1"; }

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

# Mouse events as a terminal reports them with SGR encoding; columns and rows count from 1.
mouse_event() { tmux send-keys -t "$session" -l -- "$(printf '\033[<%d;%d;%d%s' "$1" "$2" "$3" "$4")"; }
click() { mouse_event 0 "$1" "$2" M && mouse_event 0 "$1" "$2" m; }
wheel_up() { mouse_event 64 "$1" "$2" M; }

# row_of PATTERN: the screen row (from 1) of the first line matching an extended regex.
# No match prints nothing, and the caller's check names what is missing.
row_of() { screen | { grep -m1 -nE -- "$1" || true; } | cut -d: -f1; }

# The shift's one patient is the opioid overdose the checks below (and the README's capture) read:
# a patient admitted with no case is drawn from the whole library, so their case changes as it grows.
cat >"$tmp/smoke-shift.yaml" <<'EOF'
id: smoke
title: One patient for the smoke test
patients:
  - {id: patient_1, scenario: opioid-overdose}
EOF

# The pane stays open after ward exits, so a crash can still be read.
tmux new-session -d -s "$session" -x 120 -y 40 \
	"cd '$tmp' && ./ward --db '$db' --backend offline --new --shift '$tmp/smoke-shift.yaml' --trace tui.jsonl 2>'$tmp/stderr'; echo WARD_EXIT=\$?; sleep 600"

wait_for "review patient_1" # the first screen says how to begin
# ...and that the sim clock is running from the first second, and how to stop it.
wait_for "The sim clock is running"
shows "/pause stops it" || fail "the first screen does not say how to pause the clock"
no_panic "start"

type_line "review patient_1"
wait_for "^patient_1 "
wait_idle
no_panic "review patient_1"

type_line "how are you feeling right now?"
wait_for "how are you feeling right now\?"
wait_idle
screen | grep -q "▸1 patient_1" || fail "roster lacks patient_1 as the active patient"
# The Patient answered: an agent label below the question. The turn may not have begun when
# wait_idle looked, so this waits for the reply itself.
patient_replied() { screen | awk '/how are you feeling right now\?/ { q = 1; next } q && /│ Patient *$/ { r = 1 } END { exit !r }'; }
wait_until "a reply from the Patient below the question" 30 patient_replied
no_panic "question"

# The header gives the presentation, never the diagnosis or the engine's state.
header | grep -q "found unresponsive" || fail "the header does not show the presentation"
! header | grep -Eqi "overdose|state:" || fail "the header gives away the diagnosis or the state"

# Treatment and time: the nurse confirms what was done, the engine's numbers reach the screen
# through the Monitor.
type_line "applying oxygen via non-rebreather at 15 L/min and checking vitals"
wait_for "Oxygen on by a non-rebreather mask"
wait_for "Measured at T\\+00:[0-9]+: HR [0-9]+"
wait_idle
type_line "/wait 3m"
wait_for "3:00 passed"
type_line "/vitals"
wait_for "Measured at T\\+03:"
wait_idle
no_panic "oxygen, /wait and /vitals"
if [ -n "${CAPTURE_OUT:-}" ]; then
	screen >"$CAPTURE_OUT"
fi

type_line "review patient_2"
wait_for "Admit patient_2 as a"
sleep 1 # a person reads the question first: keys sooner go to the input, not to it
tmux send-keys -t "$session" y
wait_for "^patient_2 "
wait_idle
no_panic "review patient_2"

tmux send-keys -t "$session" M-1
wait_for "^patient_1 "
header | grep -q "^patient_1 " || fail "alt+1 did not show patient_1 in the header"
screen | grep -q "applying oxygen via non-rebreather" || fail "patient_1's chat lost what the trainee typed"
no_panic "alt+1"

tmux send-keys -t "$session" M-2
wait_for "^patient_2 "
no_panic "alt+2"

# Focus never eats input: with the roster focused, alt+o reorders it, ↓ and enter switch (to
# patient_1, after patient_2 in ID order), and what is typed next reaches the input.
tmux send-keys -t "$session" Tab Tab M-o Down Enter
wait_for "^patient_1 "
type_line "/wait 1m"
wait_for "01:00 passed"
wait_idle
no_panic "roster focus, then typing"

# The mouse: the wheel over the chat scrolls it, a click on a roster row switches.
for note in "checking pupils" "checking capillary refill"; do # enough chat to scroll
	type_line "$note"
	wait_for "$note"
	wait_idle
done
for _ in 1 2 3 4 5; do wheel_up 60 20; done
wait_for "chat \(scrolled; end follows\)"
tmux send-keys -t "$session" End
y="$(row_of "^ +2 patient_2 ")"
[ -n "$y" ] || fail "patient_2 is not in the sidebar"
click 6 "$y"
wait_for "^patient_2 "
tmux send-keys -t "$session" M-1
wait_for "^patient_1 "
no_panic "mouse"

# Search: incremental, the match counted and shown; esc ends it.
tmux send-keys -t "$session" C-f
tmux send-keys -t "$session" -l "feeling"
wait_for "search: feeling.*1/1"
tmux send-keys -t "$session" Escape
wait_for "─ chat "
no_panic "search"

# Copy the selected message: OSC 52 goes to the terminal (stderr here) and a toast says so.
tmux send-keys -t "$session" Escape # back to the input (alone: esc then tab would read as alt+tab)
sleep 0.3
tmux send-keys -t "$session" Tab Enter
wait_for "message copied"
grep -q $'\e]52;c;' "$tmp/stderr" || fail "no OSC 52 sequence written for the copy"
tmux send-keys -t "$session" Escape
no_panic "copy"

# Read while the TUI writes: dump sees the latest turns without the TUI quitting.
live="$("$tmp/ward" dump --db "$db")" || fail "ward dump while the TUI runs failed"
grep -qF "checking capillary refill" <<<"$live" || fail "ward dump while the TUI runs lacks the latest turn"

# A clear asks first, says how much it archives and how to restore it; n keeps everything.
type_line "/clear"
wait_for "Clear the whole shift\?"
wait_for "ward archive restore 1"
sleep 1
tmux send-keys -t "$session" -l "n"
wait_for "nothing was changed"
header | grep -q "^patient_1 " || fail "answering n still cleared the shift"
tmux send-keys -t "$session" C-u
no_panic "clear confirmation"

# The trainee's progress across their shifts, as `ward progress` prints it.
type_line "/progress"
wait_for "Progress of [^:]+: 1 shift\\(s\\), 2 patient\\(s\\)"
no_panic "/progress"

type_line "/export chat.md"
wait_for "chat exported to chat.md"
grep -q "how are you feeling right now?" "$tmp/chat.md" || fail "/export did not write the chat"

# /help in the chat is a table: each command on its own row, its columns kept. Its column rule is
# a box-drawing line, or a plain '|' under NO_COLOR (glamour's ASCII style).
type_line "/help"
wait_for "/prefs \\[NAME VALUE\\] +[│|] show your preferences"
shows "/clear +[│|] archive the whole shift" || fail "/help lacks the /clear row"
! screen | grep -q "/progress.*/prefs" || fail "/help ran two commands into one line"
no_panic "/help"

tmux resize-window -t "$session" -x 80 -y 24
wait_for "patient_[12] .*│ .*patient_[12]" # below 100 columns the roster is one line
tmux send-keys -t "$session" M-2
wait_for "▸2 patient_2"
[ "$(row_of "▸2 patient_2")" = 4 ] || fail "the active patient is not on the roster strip"
no_panic "resize to 80x24"

tmux send-keys -t "$session" C-c
wait_for "WARD_EXIT=0"

dump="$("$tmp/ward" dump --db "$db")" || fail "ward dump failed"
for want in "review patient_1" "how are you feeling right now?" "review patient_2" '"assistant"'; do
	grep -qF -- "$want" <<<"$dump" || fail "ward dump lacks $want"
done
tmux kill-session -t "$session"

# The session's trace replays with no model (inputs, the clock's ticks, switches and all), and
# the inspector opens on it: on the last turn, [ goes back a turn, esc quits.
"$tmp/ward" replay "$tmp/tui.jsonl" >"$tmp/replay.out" || fail "ward replay of the TUI's trace: $(cat "$tmp/replay.out")"
tmux new-session -d -s "$session" -x 120 -y 40 \
	"cd '$tmp' && ./ward inspect tui.jsonl 2>'$tmp/stderr'; echo WARD_EXIT=\$?; sleep 600"
wait_for "Turn [0-9]+ "
last="$(screen | grep -m1 -oE "Turn [0-9]+" | head -1)"
tmux send-keys -t "$session" "["
wait_for "Turn $((${last#Turn } - 1)) "
no_panic "ward inspect"
tmux send-keys -t "$session" Escape
wait_for "WARD_EXIT=0"
tmux kill-session -t "$session"

# The light theme on a light terminal: it paints its own white background and dark text. The
# machine running this may ask for no colour (CI has), which ward obeys; this run asks for colour.
# CI is unset too: termenv, under lipgloss, takes a set CI variable to mean "no terminal" and
# paints nothing, and the tmux server passes on the environment it was started in.
tmux new-session -d -s "$session" -x 100 -y 30 \
	"cd '$tmp' && env -u NO_COLOR -u CLICOLOR -u CI TERM=xterm-256color COLORTERM=truecolor ./ward --db '$tmp/light.db' --backend offline --new --theme light 2>'$tmp/stderr'; echo WARD_EXIT=\$?; sleep 600"
tmux set -t "$session" window-style "bg=white,fg=black"
wait_for "review patient_1"
colours="$(tmux capture-pane -p -e -t "$session")"
grep -q "48;2;255;255;255" <<<"$colours" || fail "the light theme paints no background"
grep -q "38;2;31;35;40" <<<"$colours" || fail "the light theme's text is not its dark foreground"
tmux send-keys -t "$session" C-c
wait_for "WARD_EXIT=0"
tmux kill-session -t "$session"

# NO_COLOR: the same light theme paints no colour at all.
tmux new-session -d -s "$session" -x 100 -y 30 \
	"cd '$tmp' && NO_COLOR=1 TERM=xterm-256color COLORTERM=truecolor ./ward --db '$tmp/nocolor.db' --backend offline --new --theme light 2>'$tmp/stderr'; echo WARD_EXIT=\$?; sleep 600"
wait_for "review patient_1"
colours="$(tmux capture-pane -p -e -t "$session")"
grep -q $'\e\\[[0-9;]*[34]8;' <<<"$colours" && fail "NO_COLOR is set, yet ward paints colours"
tmux send-keys -t "$session" C-c
wait_for "WARD_EXIT=0"
tmux kill-session -t "$session"

# The start dialog: nothing shows through it, and the chosen shift's clock starts at the choice.
tmux new-session -d -s "$session" -x 120 -y 40 \
	"cd '$tmp' && ./ward --db '$tmp/start.db' --backend offline 2>'$tmp/stderr'; echo WARD_EXIT=\$?; sleep 600"
wait_for "Start a shift"
screen | grep -q "Type 'review" && fail "the screen behind the start dialog shows through"
sleep 3 # the dialog stays open a while; the clock must not count it
tmux send-keys -t "$session" Enter
wait_for "on the roster"
header | grep -qE "sim 00:00:0[0-2]" || fail "the clock counted the time the start dialog was open: $(header)"
tmux send-keys -t "$session" C-c
wait_for "WARD_EXIT=0"
tmux kill-session -t "$session"

# An alarm while another patient is active: patient_1 on a monitor alarms (his breathing is below
# its limits), the trainee moves on to patient_2; the roster marks patient_1, the status bar names
# the alarm and the bell rings; alt+a goes to patient_1 and alt+k acknowledges, which closes it
# (attaching the monitor was the review).
tmux new-session -d -s "$session" -x 120 -y 40 \
	"cd '$tmp' && ./ward --db '$tmp/alarm.db' --backend offline --new 2>'$tmp/stderr'; echo WARD_EXIT=\$?; sleep 600"
wait_for "review patient_1"
type_line "/admit patient_1 opioid-overdose"
wait_for "^patient_1 "
type_line "put him on the monitor"
wait_for "ALARM patient_1: Alarm: RR"
wait_idle
type_line "/admit patient_2 asthma-exacerbation"
wait_for "^patient_2 "
wait_idle
screen | grep -qE "^ +[0-9] patient_1 .*!" || fail "the roster does not mark patient_1's alarm"
screen | tail -n 1 | grep -q "ALARM patient_1" || fail "the status bar does not name the alarm"
grep -q $'\a' "$tmp/stderr" || fail "the bell did not ring"
no_panic "alarm while patient_2 is active"
tmux send-keys -t "$session" M-a
wait_for "^patient_1 "
tmux send-keys -t "$session" M-k
wait_for "Acknowledged on patient_1"
screen | tail -n 1 | grep -q "ALARM patient_1" && fail "the acknowledged, reviewed alarm still shows"
no_panic "alt+a and alt+k"
tmux send-keys -t "$session" C-c
wait_for "WARD_EXIT=0"
tmux kill-session -t "$session"

echo "tui-smoke: ok"
