#!/usr/bin/env bash
# sshlab.sh — issue 28's class over SSH as its people use it: `ward serve` in tmux on the offline
# backend, three keys made with ssh-keygen and enrolled (two trainees, the instructor), each
# person at their own tmux terminal running the real OpenSSH client. Each trainee plays a turn;
# neither can open the other's shift; a key no one enrolled is refused with one line.
# The driver is sshlab_test.go (package main).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in tmux ssh ssh-keygen; do
	command -v "$tool" >/dev/null || { echo "sshlab.sh needs $tool (Debian: tmux, openssh-client)"; exit 1; }
done
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/ward" .
WARD_BIN="$bin/ward" go test -count=1 -run '^TestSSHLab' -v .
