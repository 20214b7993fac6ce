#!/usr/bin/env bash
# xapi.sh — a small class played offline, exported with `ward report --format xapi`, and every
# statement validated by Learning Locker's xapi-validation (npm, installed into a temp dir).
# The class covers what the export writes: critical actions passed and failed, a diagnosis, a
# disposition, a case completed, reflective answers, a cardiac arrest's measures, and a patient
# never opened (not attempted: no statement). Needs node and npm; about 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
source .ci/ward.sh
ward_into "$tmp"
ward() { timeout 60 "$tmp/ward" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
db="$tmp/ward.db"

source .ci/npm-tools.sh
npm="$(npm_prefix "$tmp")"
npm_tool "$npm" "$XAPI_VALIDATION" 120 || fail "npm could not install $XAPI_VALIDATION"

# alice: asthma sent to HDU with three reflective answers, then a VF arrest brought back.
printf '%s\n' "/admit patient_1 asthma-exacerbation" "applying oxygen 15 L NRB" "/diagnosis acute severe asthma" "/dispo HDU" \
	"She could not complete sentences and her respiratory rate was over 25" "oxygen and nebulised salbutamol first" \
	"a silent chest or exhaustion" \
	"/admit patient_2 arrest-vf-ward" "attach the monitor" "/wait 35s" "crash call, start CPR, pads on, charge to 150 J" \
	"/wait 20s" "stop compressions, rhythm check" "VF, shock 150 J, resume CPR" "/wait 2m" "stop compressions, rhythm check" \
	"shock 200 J, resume CPR" "/wait 2m" "pulse check" "/dispo ICU" |
	ward run --db "$db" --backend offline --new --seed 4 --trainee alice >/dev/null
# bob: sepsis, sent to the ward with little done; a second patient admitted and never opened.
printf '%s\n' "/admit patient_1 sepsis-urosepsis" "check vitals" "/admit patient_3 hypoglycaemia" "/switch patient_1" "/dispo ward" |
	ward run --db "$db" --backend offline --new --seed 4 --trainee bob >/dev/null

ward report --db "$db" --format xapi --xapi-base https://lrs.example.org/ward/ --out "$tmp/class.json"
for want in /reflections/1 /arrest /disposition; do
	grep -q "\"https://lrs.example.org/ward/scenarios/[a-z-]*$want\"" "$tmp/class.json" || fail "the export has no $want statement"
done
grep -q 'hypoglycaemia' "$tmp/class.json" && fail "a patient never opened has statements"
NODE_PATH="$npm/node_modules" node .ci/xapi-validate.js "$tmp/class.json"
