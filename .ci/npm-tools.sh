# npm-tools.sh — the pinned npm packages the xAPI checks run, in one place. Sourced:
#   npm_prefix TMP                         the directory to install into (WARD_NPM_PREFIX, or TMP/npm)
#   npm_tool DIR PACKAGE@VERSION TIMEOUT   installs PACKAGE into DIR unless it is there
# .ci/run installs both into one directory in the background while the Go tests run (the
# registry, not the CPU, is what makes an install slow here: about 2 minutes for both) and
# passes it as WARD_NPM_PREFIX; a script run alone installs into its own temp dir.
XAPI_VALIDATION=xapi-validation@2.1.4
XAPI_STATEMENTS=xapi-statements@5.0.1

npm_prefix() { # npm_prefix TMP: the directory the packages are (or go) in, made
	local dir="${WARD_NPM_PREFIX:-$1/npm}"
	mkdir -p "$dir"
	echo "$dir"
}

npm_tool() {
	local dir=$1 pkg=$2 limit=$3
	[ -d "$dir/node_modules/${pkg%@*}" ] && return 0
	(cd "$dir" && timeout "$limit" npm install --silent --no-audit --no-fund --prefix "$dir" "$pkg" >/dev/null)
}
