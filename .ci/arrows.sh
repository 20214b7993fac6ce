#!/usr/bin/env bash
# arrows.sh — check that imports point the way ARCHITECTURE.md draws them, from `go list`:
#   - ui imports only session (the slash commands, error codes), session/live (the screen's
#     adapter and view types), session/records (a transcript) and themes of ward's packages, and
#     links no model backend (`go list -deps ./ui` names neither agents/ollama nor the Ollama
#     client); ui/board (the instructor's views) only session, session/live and themes;
#   - session's rooms: the turn (session) imports neither its adapter (session/live), its tools
#     (session/playback) nor agents/eval or agents/replay; the read side (session/records) imports
#     no session package but the engine's (physio, aar, action, scenario); only session/playback,
#     of session's packages, imports agents/eval and agents/replay; session/sessiontest and
#     session/scenario/scenariotest serve tests only;
#   - the engine's three jobs point one way: the action language (session/action) imports of
#     ward's packages only session/scenario and memory/words; the engine (session/physio) only
#     session/action, session/scenario and persist/jsonappend; the After Action Review
#     (session/aar) only the engine, the language and session/scenario;
#   - persist/jsonappend (JSON written as encoding/json writes it, for the engine, memory and the
#     store)
#     imports nothing of ward's;
#   - wiring in one place: only main (the composition root) imports agents/backend, which makes
#     the backends; the backends themselves (agents/ollama, agents/offline) are imported by
#     agents/backend, main and the test rigs (agents/ollamatest, session/sessiontest) only, so
#     the turn and the screens link none;
#   - only the Ollama backend and its test helper import github.com/ollama/ollama (tests included);
#   - agents, memory and persist never import session or ui; memory's code imports only memory
#     and persist/jsonappend (its tests may use the real store);
#   - nothing imports main; nothing but main imports ui/lab (the SSH server), which imports of
#     ward's packages only ui, ui/board, session, session/live, persist (and persist/outfile),
#     agents/llm and themes.
#
# All of it is read from one `go list` of the module. GOFLAGS passes through, which is how
# .ci/arrows-selftest.sh injects a wrong import (-overlay) to see this check fail.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/ward-sim/ward
fail=0
bad() { echo "arrows: $*" >&2; fail=1; }

# table: one line per package: PATH<TAB>its code's imports<TAB>its tests' imports.
table=$(go list -f '{{.ImportPath}}{{"\t"}}{{join .Imports " "}}{{"\t"}}{{join .TestImports " "}} {{join .XTestImports " "}}' ./...)
row() { # row PKG: PKG's line of the table (PKG as an import path, or ./dir)
	local pkg=${1%/}
	case "$pkg" in .) pkg=$mod ;; ./*) pkg=$mod/${pkg#./} ;; esac
	awk -F'\t' -v p="$pkg" '$1 == p' <<<"$table"
}
ward_only() { tr ' ' '\n' | grep -E "^$mod(/|$)" | sort -u || true; }
code_imports() { row "$1" | cut -f2 | ward_only; }
imports() { # the ward packages PKG imports, its tests' imports included
	local pkg
	pkg=$(row "$1" | cut -f1)
	row "$1" | cut -f2,3 | tr '\t' ' ' | ward_only | grep -vx "$pkg" || true
}
only_imports() { # only_imports PKG ALLOWED...: PKG's code imports no ward package but ALLOWED
	local pkg=$1 dep
	shift
	for dep in $(code_imports "./$pkg"); do
		[[ " $* " == *" ${dep#"$mod/"} "* ]] || bad "$pkg imports $dep"
	done
}

only_imports ui session session/live session/records themes
if go list -deps ./ui | grep -E "^$mod/agents/(ollama|offline|backend)$|^github.com/ollama/ollama"; then
	bad "ui links a model backend (go list -deps ./ui, above)"
fi
only_imports ui/lab ui ui/board session session/live persist persist/outfile agents/llm themes
only_imports ui/board session session/live themes
only_imports session/action session/scenario memory/words
only_imports session/physio session/action session/scenario persist/jsonappend
only_imports persist/jsonappend
only_imports session/aar session/physio session/action session/scenario
for dep in $(code_imports ./session); do
	case "$dep" in "$mod/session/live" | "$mod/session/playback" | "$mod/agents/eval" | "$mod/agents/replay") bad "the turn (session) imports $dep" ;; esac
done
for dep in $(code_imports ./session/records); do
	case "$dep" in "$mod/session/physio" | "$mod/session/aar" | "$mod/session/action" | "$mod/session/scenario") ;; "$mod/session"*) bad "the read side (session/records) imports $dep" ;; esac
done
while IFS=$'\t' read -r pkg code tests; do
	if [[ " $code $tests " == *" github.com/ollama/ollama"* ]]; then
		case "$pkg" in "$mod/agents/ollama" | "$mod/agents/ollamatest") ;; *) bad "$pkg imports ollama" ;; esac
	fi
	for dep in $(imports "$pkg"); do
		case "$pkg" in
		"$mod/agents"* | "$mod/memory"* | "$mod/persist"*)
			case "$dep" in "$mod/session"* | "$mod/ui"* | "$mod") bad "$pkg imports $dep" ;; esac ;;
		esac
		[ "$dep" != "$mod" ] || bad "$pkg imports main"
	done
	for dep in $(ward_only <<<"$code"); do
		case "$dep:$pkg" in
		"$mod/ui/lab:$mod") ;;
		"$mod/ui/lab:"*) bad "$pkg imports ui/lab (only main may)" ;;
		"$mod/agents/backend:$mod") ;;
		"$mod/agents/backend:"*) bad "$pkg imports agents/backend (only main, the composition root, may)" ;;
		"$mod/agents/ollama:$mod" | "$mod/agents/ollama:$mod/agents/backend" | "$mod/agents/ollama:$mod/agents/ollamatest") ;;
		"$mod/agents/offline:$mod" | "$mod/agents/offline:$mod/agents/backend" | "$mod/agents/offline:$mod/session/sessiontest") ;;
		"$mod/agents/ollama:"* | "$mod/agents/offline:"*) bad "$pkg imports the backend $dep (only main wires backends)" ;;
		"$mod/session/sessiontest:"*) bad "$pkg imports session/sessiontest outside its tests" ;;
		"$mod/session/scenario/scenariotest:"*) bad "$pkg imports session/scenario/scenariotest outside its tests" ;;
		"$mod/agents/eval:$mod/session/playback" | "$mod/agents/replay:$mod/session/playback") ;;
		"$mod/agents/eval:$mod/session"* | "$mod/agents/replay:$mod/session"* | "$mod/agents/eval:$mod/ui"* | "$mod/agents/replay:$mod/ui"*)
			bad "$pkg imports $dep (only session/playback may)" ;;
		esac
	done
	case "$pkg" in "$mod/memory"*)
		for dep in $(ward_only <<<"$code"); do
			case "$dep" in "$mod/memory"* | "$mod/persist/jsonappend") ;; *) bad "$pkg imports $dep" ;; esac
		done ;;
	esac
done <<<"$table"
[ "$fail" -eq 0 ] && echo "arrows: ok"
exit "$fail"
