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
# The load tests of ui/lab (load_test.go, fairshare_test.go; WARD_LOAD=30x50 for the issue's
# class) run in the suite itself; figures: BENCHMARKS.md, "A class over SSH".
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in tmux ssh ssh-keygen; do
	command -v "$tool" >/dev/null || { echo "sshlab.sh needs $tool (Debian: tmux, openssh-client)"; exit 1; }
done
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
source .ci/ward.sh
ward_into "$bin"
WARD_BIN="$bin/ward" go test -count=1 -run '^TestSSHLab' -v .
