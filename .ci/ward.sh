#!/usr/bin/env bash
# ward.sh — sourced by the CI scripts that run the ward binary: ward_into DIR makes DIR/ward the
# binary .ci/run built once for every step (WARD_BIN, a link to it), or, when a script is run
# alone, builds one there.
ward_into() { # ward_into DIR
	if [ -n "${WARD_BIN:-}" ]; then
		ln -sf "$(realpath "$WARD_BIN")" "$1/ward"
	else
		go build -o "$1/ward" .
	fi
}
