#!/usr/bin/env bash
# team.sh — issue 39's resuscitation team over SSH, as its people use it: `ward serve` in tmux on
# the offline backend (--seed 1), three trainees enrolled and formed into a team with `ward team`
# while it runs, each at their own tmux terminal running the real OpenSSH client. The team runs
# the VF arrest to ROSC (the leader orders, the members say it back done); one member's
# connection drops mid-arrest and she comes back to the same arrest; `ward aar` of the team's
# shift names who did what, the closed-loop rate and the order never said done.
# The driver is sshteam_test.go (package main); then 8 teams of 4 under load (Go SSH clients,
# ui/lab/team_load_test.go; figures in BENCHMARKS.md, "Team"). The team's other tests (the review,
# the turn, arrival order, the server with Go SSH clients) run in the suite itself. About 30 s
# warm; every step has its -timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/ward.sh
needs tmux ssh ssh-keygen
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
ward_into "$bin"
WARD_BIN="$bin/ward" go test -count=1 -timeout 3m -run '^TestSSHTeam$' -v .
WARD_BIN="$bin/ward" go test -count=1 -timeout 3m -run '^TestTeamLoadOverSSH$' -v ./ui/lab/
