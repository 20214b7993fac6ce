#!/usr/bin/env bash
# sshlab.sh — issue 28's class over SSH as its people use it: `ward serve` in tmux on the offline
# backend, three keys made with ssh-keygen and enrolled (two trainees, the instructor), each
# person at their own tmux terminal running the real OpenSSH client. Each trainee plays a turn;
# neither can open the other's shift; a key no one enrolled is refused with one line; the
# instructor's board shows both, watching mirrors a trainee's screen read-only, and a
# deterioration injected from the board reaches the trainee's screen and their debrief; a dropped
# connection loses nothing; an idle one is closed, its shift saved. On an encrypted database the
# passphrase is asked over SSH, unechoed.
# The driver is sshlab_test.go (package main).
# Then the load test of ui/lab that needs the binary: Go SSH clients on loopback, 5 trainees × 5
# turns on the offline backend (load_test.go; WARD_LOAD=30x50 for the issue's class; the suite
# skips it without WARD_BIN). Figures: BENCHMARKS.md, "A class over SSH".
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/ward.sh
needs tmux ssh ssh-keygen
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
ward_into "$bin"
WARD_BIN="$bin/ward" go test -count=1 -run '^TestSSHLab' -v .
WARD_BIN="$bin/ward" go test -count=1 -run '^TestLoadOverSSH$' -v ./ui/lab/
