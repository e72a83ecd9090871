#!/usr/bin/env bash
# Counts the instructions a binary spends in each phase of one session of
# the heavy benchmark user, under valgrind's callgrind: the start, a
# sign-in (argon2), 20 loads of the dashboard, and a CSV of 2,000 bookings
# (the first 2,000 of tools/bench-import.sh's file) staged, reconciled,
# and decided and confirmed through the same requests as
# tools/bench-import.sh. Instructions do not change with the machine's
# load, so two builds (release settings, docs/performance.md "The
# binary") compare on a busy machine. Needs valgrind.
#
#   tools/bench-phases.sh target/release/cashkeeper
#   WORK=/dev/shm/phases tools/bench-phases.sh /tmp/other/cashkeeper
set -euo pipefail
bin=$(realpath "${1:?usage: tools/bench-phases.sh BINARY}")
here=$(dirname "$(realpath "$0")")
work=${WORK:-/tmp/bench-phases}
port=${PORT:-3113}
rm -rf "$work" && mkdir -p "$work"

# The file, from the import benchmark's generator.
FILE_ONLY=1 WORK="$work/file" BIN="$bin" "$here/bench-import.sh" 100000 csv >/dev/null
head -n 2001 "$work/file/umsaetze.csv" >"$work/umsaetze.csv"

export CASHKEEPER_DATA_DIR=$work/data CASHKEEPER_BIND=127.0.0.1:$port \
       CASHKEEPER_RATES_REFRESH=false RUST_LOG=${RUST_LOG:-warn} \
       NOTIFICATION_SCHEDULE=off INSIGHTS_SCHEDULE=off
echo 'benchmark pw' | "$bin" demo --email heavy@example.org --heavy --password-stdin >/dev/null

valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$bin" >"$work/service.log" 2>"$work/valgrind.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
base=http://127.0.0.1:$port
until curl -sf "$base/api/v1/health" >/dev/null; do sleep 0.2; done

# Writes the counts since the last dump and names the phase.
n=0
phase() {
  callgrind_control -d "$pid" >/dev/null 2>&1
  n=$((n + 1))
  until [ -s "$work/cg.out.$n" ]; do sleep 0.2; done
  sleep 0.5
  awk -v name="$1" '/^(summary|totals):/ {printf "%-34s %16s\n", name, $2; exit}' "$work/cg.out.$n"
}
phase "start"

cookie=$(curl -s -i -X POST "$base/actions/login" -H 'content-type: application/json' \
    -H "origin: $base" -d '{"email":"heavy@example.org","password":"benchmark pw"}' \
  | sed -n 's/.*cashkeeper_session=\([0-9a-f]*\).*/\1/p')
[ -n "$cookie" ] || { echo "sign-in failed" >&2; exit 1; }
phase "sign-in"

for _ in $(seq 20); do
  curl -sf -o /dev/null "$base/" -H "cookie: cashkeeper_session=$cookie"
done
phase "20 dashboard loads"

act() { # name, json → data
  curl -sf -X POST "$base/actions/$1" -H 'content-type: application/json' \
    -H "origin: $base" -H "cookie: cashkeeper_session=$cookie" -d "$2"
}
account=$(act listAccounts '{}' | python3 -c \
  'import json,sys; print(next(a["id"] for a in json.load(sys.stdin)["data"] if a["type"]=="checking"))')
batch=$(curl -sf "$base/api/imports" -H "origin: $base" -H "cookie: cashkeeper_session=$cookie" \
    -F "accountId=$account" -F "file=@$work/umsaetze.csv" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
phase "stage 2,000 rows"

act reconcileImport "{\"id\":\"$batch\"}" >/dev/null
phase "reconcile"

act decideImportConflict "{\"id\":\"$batch\",\"all\":\"conflict\",\"decision\":\"import\"}" >/dev/null
act confirmImport "{\"id\":\"$batch\"}" >/dev/null
phase "decide and confirm"
