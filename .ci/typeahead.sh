#!/usr/bin/env bash
# typeahead.sh — issue 22 as a trainee types: in tmux, each sequence's keys sent back to back
# with no delay while ward is busy (a switching line, questions and alt+3; /wait then questions;
# /clear then a line with a y in it; a new patient named in free text, a line and alt+2; an ID
# ward cannot use, then a question, which is held; a clear answered y), on the offline backend
# and on an httptest Ollama model that takes 2 s a reply.
# `ward dump` must then hold every line once, whole, in the history of the patient it was typed
# for, in order, and no clear without a y. The driver is typeahead_test.go (package main).
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/ward.sh
needs tmux
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
ward_into "$bin"
WARD_BIN="$bin/ward" go test -count=1 -run '^TestTypeahead' -v .
