#!/usr/bin/env bash
# ward.sh — sourced by the CI scripts that run the ward binary:
#   ward_into DIR   makes DIR/ward the binary .ci/run built once for every step (WARD_BIN, a link
#                   to it), or, when a script is run alone, builds one there;
#   needs TOOL...   stops the script, naming the Debian package to install, when a tool is missing.
ward_into() { # ward_into DIR
	if [ -n "${WARD_BIN:-}" ]; then
		ln -sf "$(realpath "$WARD_BIN")" "$1/ward"
	else
		go build -o "$1/ward" .
	fi
}

needs() { # needs TOOL...
	local tool pkg
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		case "$tool" in
		ssh | ssh-keygen) pkg=openssh-client ;;
		strings) pkg=binutils ;;
		*) pkg=$tool ;;
		esac
		echo "${0##*/} needs $tool (Debian: $pkg)" >&2
		exit 1
	done
}
