#!/usr/bin/env bash
# arrows.sh — check that imports point the way ARCHITECTURE.md draws them, from `go list`:
#   - ui imports only session and themes of ward's packages;
#   - only the Ollama backend and its test helper import github.com/ollama/ollama (tests included);
#   - agents, memory and persist never import session or ui; memory's code imports only memory
#     (its tests may use the real store);
#   - nothing imports main.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/ward-sim/ward
fail=0
bad() { echo "arrows: $*" >&2; fail=1; }

imports() { # imports PKG: the ward packages PKG imports, its tests' imports included
	go list -f '{{join .Imports "\n"}}{{"\n"}}{{join .TestImports "\n"}}{{"\n"}}{{join .XTestImports "\n"}}' "$1" |
		grep -E "^$mod(/|$)" | grep -vx "$1" | sort -u || true
}

for dep in $(go list -f '{{join .Imports "\n"}}' ./ui | grep "^$mod" || true); do
	case "$dep" in "$mod/session" | "$mod/themes") ;; *) bad "ui imports $dep" ;; esac
done
while read -r pkg; do
	if go list -f '{{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}' "$pkg" | grep -q 'github.com/ollama/ollama'; then
		case "$pkg" in "$mod/agents/ollama" | "$mod/agents/ollamatest") ;; *) bad "$pkg imports ollama" ;; esac
	fi
	for dep in $(imports "$pkg"); do
		case "$pkg" in
		"$mod/agents"* | "$mod/memory"* | "$mod/persist"*)
			case "$dep" in "$mod/session"* | "$mod/ui"* | "$mod") bad "$pkg imports $dep" ;; esac ;;
		esac
		[ "$dep" != "$mod" ] || bad "$pkg imports main"
	done
	case "$pkg" in
	"$mod/memory"*)
		for dep in $(go list -f '{{join .Imports "\n"}}' "$pkg" | grep "^$mod" || true); do
			case "$dep" in "$mod/memory"*) ;; *) bad "$pkg imports $dep" ;; esac
		done ;;
	esac
done < <(go list ./...)
[ "$fail" -eq 0 ] && echo "arrows: ok"
exit "$fail"
