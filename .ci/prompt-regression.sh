#!/usr/bin/env bash
# prompt-regression.sh — replays testdata/prompt-regression/trace.jsonl, a scripted shift
# (lines.txt) recorded with the offline backend, and fails when ward would send any request
# differently: `ward replay` names the call, turn, agent and section, and prints the diff.
# A change to the prompts that is meant is recorded again, on purpose, with
#   .ci/prompt-regression.sh --record
# and the new trace is committed with the change.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=testdata/prompt-regression
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source .ci/ward.sh
ward_into "$tmp"
case "${1:-}" in
--record)
	rm -f "$dir/trace.jsonl"
	PATIENT_ID_PATTERN= "$tmp/ward" run --db "$tmp/ward.db" --new --backend offline --seed 42 \
		--trace "$dir/trace.jsonl" <"$dir/lines.txt" >/dev/null
	echo "recorded $dir/trace.jsonl: $(grep -c '"kind":"call"' "$dir/trace.jsonl") calls"
	;;
"")
	"$tmp/ward" replay "$dir/trace.jsonl"
	;;
*)
	echo "usage: $0 [--record]" >&2
	exit 2
	;;
esac
