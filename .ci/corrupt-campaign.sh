#!/usr/bin/env bash
# corrupt-campaign.sh — damage a real ward database and check that ward never crashes on it and
# never changes a damaged file. Run from the repository root (.ci/run does).
#
# The database is cut at every page boundary, then CORRUPT_FLIPS copies (default 60, what CI
# runs; a long run: CORRUPT_FLIPS=2000 bash .ci/corrupt-campaign.sh) get 1 to 8 random bytes
# changed among the pages in use. On each damaged file ward runs dump, aar, archive list, stats,
# run (one turn) and recover. It fails on any crash (a Go panic, a fatal fault: exit status 2 or
# more), and on any change to a damaged file, which it checks by sha256 after every command. The
# one command allowed to write is a `ward run` that accepted the file (damage ward cannot see,
# such as a changed letter inside a message, or a cut in the free space at the end). The file
# recover writes must open, and `ward dump` on it must work (see check_recovered for the one
# exception it counts). CORRUPT_SEED repeats the cuts and flips of a run (the summary line prints
# the seed used; the database itself is built again, with new times in it), and a file that made
# ward fail is kept in $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."

flips="${CORRUPT_FLIPS:-60}"
seed="${CORRUPT_SEED:-$$}"
RANDOM="$seed"
# The campaign is about damage, not the disk: on tmpfs a commit's fsync costs nothing.
tmp="$(mktemp -d -p /dev/shm ward-campaign.XXXXXX 2>/dev/null || mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source .ci/ward.sh
ward_into "$tmp"
ward() { "$tmp/ward" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# A real shift: patients admitted, turns, a clear (an archive), then more turns.
base="$tmp/base.db"
{
	echo "review patient_1"
	echo "/admit patient_2 asthma-exacerbation"
	echo "/admit patient_3 sepsis-urosepsis"
	for i in $(seq 1 40); do
		echo "review patient_$((i % 3 + 1)) and note $i"
		if [ $((i % 10)) -eq 0 ]; then echo "/wait 2m"; fi
	done
	echo clear
	echo "/admit patient_4 hypoglycaemia"
	for i in $(seq 41 60); do echo "review patient_4 and note $i"; done
} | ward run --db "$base" --backend offline >/dev/null

page="$(getconf PAGESIZE)" # bbolt's page size is the OS page size the file was created with
size="$(stat -c %s "$base")"
# The pages in use are where damage matters; bbolt records how many in its meta page, but the
# campaign does not parse the file: it flips bytes anywhere below the last page written.
used=$(((size / page) * page))

commands=0 damaged=0 crashes=0 modified=0 recovered=0 unusable=0 files=0
sha() { sha256sum "$1" | cut -d' ' -f1; }

# check_recovered DAMAGED: `ward dump` reads the file recovered from DAMAGED. A document that
# is valid JSON but that the session cannot use (a digit changed into a letter inside a number
# held as a string, say) is beyond what recover checks: it is counted, not failed.
check_recovered() {
	local code=0
	ward dump --db "$tmp/recovered.db" >/dev/null 2>"$tmp/err" || code=$?
	if [ "$code" -eq 0 ] || grep -q 'no session in this database yet' "$tmp/err"; then
		recovered=$((recovered + 1))
	elif [ "$code" -eq 1 ] && ! grep -Eq 'is damaged|not a ward database' "$tmp/err"; then
		unusable=$((unusable + 1))
		echo "note: the file recovered from $(basename "$1") holds a document the session cannot use: $(head -c 160 "$tmp/err")" >&2
	else
		echo "UNREADABLE: the file recovered from $(basename "$1") (exit $code): $(head -1 "$tmp/err")" >&2
	fi
}

# keep FILE: copy a file that made ward fail out of the temporary directory, to reproduce.
keep() {
	cp "$1" "${TMPDIR:-/tmp}/ward-failed-$seed-$files.db"
	echo "kept as ${TMPDIR:-/tmp}/ward-failed-$seed-$files.db" >&2
}

# check FILE: run every command on FILE and count what happened.
check() {
	local f=$1 before out code cmd
	files=$((files + 1))
	for cmd in dump aar "archive list" stats run recover; do
		before="$(sha "$f")"
		rm -f "$tmp/recovered.db"
		case $cmd in
		run) echo "review patient_1 and check" | ward run --db "$f" --backend offline >/dev/null 2>"$tmp/err" && code=0 || code=$? ;;
		recover) ward recover --db "$f" --out "$tmp/recovered.db" >/dev/null 2>"$tmp/err" && code=0 || code=$? ;;
		*) ward $cmd --db "$f" >/dev/null 2>"$tmp/err" && code=0 || code=$? ;;
		esac
		commands=$((commands + 1))
		if [ "$code" -ge 2 ] || grep -Eq 'panic:|fatal error:|SIGBUS|SIGSEGV' "$tmp/err"; then
			crashes=$((crashes + 1))
			echo "CRASH: ward $cmd on $(basename "$f") (exit $code):" >&2
			head -5 "$tmp/err" >&2
			keep "$f"
		fi
		grep -q 'is damaged' "$tmp/err" && damaged=$((damaged + 1))
		if [ "$(sha "$f")" != "$before" ] && ! { [ "$cmd" = run ] && [ "$code" -eq 0 ]; }; then
			modified=$((modified + 1))
			echo "MODIFIED: ward $cmd changed $(basename "$f") (exit $code): $(head -1 "$tmp/err")" >&2
		fi
		if [ "$cmd" = recover ] && [ "$code" -eq 0 ]; then
			check_recovered "$f"
		elif [ "$cmd" = recover ]; then
			echo "RECOVER FAILED on $(basename "$f"): $(head -1 "$tmp/err")" >&2
			keep "$f"
		fi
	done
}

# Cut at every page boundary (a zero-length file is a new database, so start at one page).
cuts=0
for ((at = page; at < size; at += page)); do
	cp "$base" "$tmp/cut.db"
	truncate -s "$at" "$tmp/cut.db"
	check "$tmp/cut.db"
	cuts=$((cuts + 1))
done

# Flip 1 to 8 random bytes, each XORed with a random non-zero value.
for ((run = 1; run <= flips; run++)); do
	cp "$base" "$tmp/flip.db"
	for ((n = RANDOM % 8 + 1; n > 0; n--)); do
		off=$((((RANDOM << 15) | RANDOM) % used))
		old="$(od -An -tu1 -j "$off" -N1 "$tmp/flip.db" | tr -d ' ')"
		printf "\\x$(printf %02x $((old ^ (RANDOM % 255 + 1))))" | dd of="$tmp/flip.db" bs=1 seek="$off" conv=notrunc status=none
	done
	check "$tmp/flip.db"
done

echo "corrupt-campaign: seed $seed, $cuts cuts and $flips flipped copies of a $size-byte database, $commands commands:" \
	"$crashes crashes, $modified damaged files modified; ward said damaged $damaged times; recover wrote a file that dumps" \
	"$recovered of $files times ($unusable more hold a document only the session finds damaged)"
[ "$crashes" -eq 0 ] || fail "$crashes crashes"
[ "$modified" -eq 0 ] || fail "$modified damaged files modified"
[ $((recovered + unusable)) -eq "$files" ] || fail "recover failed on $((files - recovered - unusable)) files"
