#!/usr/bin/env bash
# arrows.sh — check that imports point the way ARCHITECTURE.md draws them, from `go list`:
#   - ui imports only session (the slash commands, error codes), session/live (the screen's
#     adapter and view types), session/records (a transcript) and themes of ward's packages;
#     ui/board (the instructor's views) only session, session/live and themes;
#   - session's rooms: the turn (session) imports neither its adapter (session/live), its tools
#     (session/playback) nor agents/eval or agents/replay; the read side (session/records) imports
#     no session package but the engine's (physio, scenario); only session/playback, of session's
#     packages, imports agents/eval and agents/replay; session/sessiontest serves tests only;
#   - the engine's three jobs point one way: the action language (session/action) imports of
#     ward's packages only session/scenario and memory/words; the engine (session/physio) only
#     session/action and session/scenario; the After Action Review (session/aar) only the engine,
#     the language and session/scenario;
#   - only the Ollama backend and its test helper import github.com/ollama/ollama (tests included);
#   - agents, memory and persist never import session or ui; memory's code imports only memory
#     (its tests may use the real store);
#   - nothing imports main; nothing but main imports ui/lab (the SSH server), which imports of
#     ward's packages only ui, ui/board, session, session/live, persist (and persist/outfile),
#     agents/llm and themes;
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
	case "$dep" in "$mod/session" | "$mod/session/live" | "$mod/session/records" | "$mod/themes") ;; *) bad "ui imports $dep" ;; esac
done
code_imports() { go list -f '{{join .Imports "\n"}}' "$1" | grep "^$mod" || true; }
for dep in $(code_imports ./ui/lab); do
	case "$dep" in "$mod/ui" | "$mod/ui/board" | "$mod/session" | "$mod/session/live" | "$mod/persist" | "$mod/persist/outfile" | "$mod/agents/llm" | "$mod/themes") ;;
	*) bad "ui/lab imports $dep" ;; esac
done
for pkg in $(go list ./...); do
	[ "$pkg" = "$mod" ] || [ "$pkg" = "$mod/ui/lab" ] || ! code_imports "$pkg" | grep -qx "$mod/ui/lab" || bad "$pkg imports ui/lab (only main may)"
done
for dep in $(code_imports ./session); do
	case "$dep" in "$mod/session/live" | "$mod/session/playback" | "$mod/agents/eval" | "$mod/agents/replay") bad "the turn (session) imports $dep" ;; esac
done
for dep in $(code_imports ./session/records); do
	case "$dep" in "$mod/session/physio" | "$mod/session/aar" | "$mod/session/action" | "$mod/session/scenario") ;; "$mod/session"*) bad "the read side (session/records) imports $dep" ;; esac
done
only_imports() { # only_imports PKG ALLOWED...: PKG's code imports no ward package but ALLOWED
	local pkg=$1 dep
	shift
	for dep in $(code_imports "./$pkg"); do
		[[ " $* " == *" ${dep#"$mod/"} "* ]] || bad "$pkg imports $dep"
	done
}
only_imports session/action session/scenario memory/words
only_imports session/physio session/action session/scenario
only_imports session/aar session/physio session/action session/scenario
for dep in $(code_imports ./ui/board); do
	case "$dep" in "$mod/session" | "$mod/session/live" | "$mod/themes") ;; *) bad "ui/board imports $dep" ;; esac
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
	case "$pkg" in "$mod/session"* | "$mod/ui"*)
		for dep in $(code_imports "$pkg"); do
			case "$dep:$pkg" in
			"$mod/agents/eval:$mod/session/playback" | "$mod/agents/replay:$mod/session/playback") ;;
			"$mod/agents/eval:"* | "$mod/agents/replay:"*) bad "$pkg imports $dep (only session/playback may)" ;;
			esac
		done ;;
	esac
	for dep in $(code_imports "$pkg"); do
		[ "$dep" != "$mod/session/sessiontest" ] || bad "$pkg imports session/sessiontest outside its tests"
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
