#!/usr/bin/env bash
# class-load.sh — issue 35's class that one trainee cannot knock over: `ward serve` (built here)
# on an encrypted database, 30 trainees × 5 turns on the offline backend, played once alone and
# once while three enrolled trainees misbehave (a 30000×10000 terminal, a passphrase guessed on
# 12 connections at once, turns that panic through the test-only hook). The test
# (ui/lab/hostile_test.go) fails if a turn is lost, the others' p99 turn passes 1.5× the quiet
# run's, the server's peak RSS passes 448 MiB, or its memory grows after everyone has gone.
# The in-process bounds and isolation tests of ui/lab run in the suite itself (`go test ./...`).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
. .ci/ward.sh
ward_into "$bin" # the one binary .ci/run built, or one of its own when run alone
WARD_BIN="$bin/ward" WARD_HOSTILE=1 timeout 600 go test -count=1 -timeout 9m -run '^TestLoadWithHostileConnections$' -v ./ui/lab/
