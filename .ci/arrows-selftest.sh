#!/usr/bin/env bash
# arrows-selftest.sh — a test of the arrows check itself: it runs .ci/arrows.sh on the tree with
# wrong imports injected through `go build -overlay` (files that exist only in the overlay, so
# the worktree is not touched), and fails unless arrows.sh fails and names every one of them:
#   - ui importing persist (the screen reads no store but through session);
#   - the turn (session) importing the Ollama backend, which also makes ui link it;
#   - the After Action Review (session/aar) importing agents/llm (it reads the engine only).
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/ward-sim/ward
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

probe() { # probe DIR PACKAGE IMPORT: a file in DIR of PACKAGE that imports IMPORT
	printf 'package %s\n\nimport _ "%s"\n' "$2" "$3" >"$tmp/$2.go"
	printf '"%s/%s/zz_arrows_probe.go": "%s"' "$PWD" "$1" "$tmp/$2.go"
}
{
	printf '{"Replace": {'
	probe ui ui "$mod/persist"
	printf ', '
	probe session session "$mod/agents/ollama"
	printf ', '
	probe session/aar aar "$mod/agents/llm"
	printf '}}\n'
} >"$tmp/overlay.json"

if GOFLAGS="${GOFLAGS:+$GOFLAGS }-overlay=$tmp/overlay.json" bash .ci/arrows.sh >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "arrows-selftest: FAIL: arrows.sh passed a tree with three wrong imports" >&2
	exit 1
fi
fail=0
for want in "arrows: ui imports $mod/persist" \
	"arrows: $mod/session imports the backend $mod/agents/ollama" \
	"arrows: ui links a model backend" \
	"arrows: session/aar imports $mod/agents/llm"; do
	grep -qF "$want" "$tmp/out" || { echo "arrows-selftest: FAIL: no '$want'" >&2; fail=1; }
done
if [ "$fail" -ne 0 ]; then
	cat "$tmp/out"
	exit 1
fi
echo "arrows-selftest: ok (arrows.sh failed on each injected import, naming it)"
