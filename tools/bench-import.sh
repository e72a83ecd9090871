#!/usr/bin/env bash
# Stages, reconciles and confirms a generated bank file of N rows in the
# Sparkasse CSV-CAMT layout into the checking account of the heavy
# benchmark user, and prints each step's seconds and the service's peak
# memory. Numbers and how to read them: docs/performance.md.
#
#   cargo build --release && tools/bench-import.sh 100000
set -euo pipefail
rows=${1:-100000}
bin=${BIN:-./target/release/cashkeeper}
work=${WORK:-/tmp/bench-import}
port=${PORT:-3112}
rm -rf "$work" && mkdir -p "$work"
export CASHKEEPER_DATA_DIR=$work/data CASHKEEPER_BIND=127.0.0.1:$port \
       CASHKEEPER_RATES_REFRESH=false RUST_LOG=warn \
       NOTIFICATION_SCHEDULE=off INSIGHTS_SCHEDULE=off
echo 'benchmark pw' | "$bin" demo --email heavy@example.org --heavy --password-stdin >/dev/null

# The file: payees from a list of merchants, a year of dates, Windows-1252.
python3 - "$rows" "$work/umsaetze.csv" <<'PY'
import random, sys, datetime
n, path = int(sys.argv[1]), sys.argv[2]
random.seed(7)
shops = ["REWE Markt", "EDEKA Center", "Lidl Dienstleistung", "ALDI SÜD", "dm-drogerie markt",
         "Rossmann", "Bäckerei Müller", "Tankstelle Aral", "Deutsche Bahn", "Amazon EU",
         "Stadtwerke", "Café Kränzle", "IKEA", "MediaMarkt", "Apotheke am Markt"]
shops += [f"Laden {i:03d}" for i in range(200)]
head = ('"Auftragskonto";"Buchungstag";"Valutadatum";"Buchungstext";"Verwendungszweck";'
        '"Glaeubiger ID";"Mandatsreferenz";"Kundenreferenz (End-to-End)";"Sammlerreferenz";'
        '"Lastschrift Ursprungsbetrag";"Auslagenersatz Ruecklastschrift";'
        '"Beguenstigter/Zahlungspflichtiger";"Kontonummer/IBAN";"BIC (SWIFT-Code)";"Betrag";'
        '"Waehrung";"Info"')
start = datetime.date(2025, 11, 1)
with open(path, "w", encoding="cp1252", newline="") as f:
    f.write(head + "\r\n")
    for i in range(n):
        day = start + datetime.timedelta(days=i * 365 // n)
        shop = random.choice(shops)
        cents = random.randint(100, 25000)
        sign = "" if random.random() < 0.05 else "-"
        amount = f"{sign}{cents // 100},{cents % 100:02d}"
        d = day.strftime("%d.%m.%y")
        f.write(f'"12345678";"{d}";"{d}";"KARTENZAHLUNG";"Einkauf {i}";;;"{i}";;;;"{shop}";'
                f'"DE02120300000000202051";"BYLADEM1001";"{amount}";"EUR";"Umsatz gebucht"\r\n')
PY
ls -l "$work/umsaetze.csv" | awk '{printf "file: %d rows, %.1f MB\n", '"$rows"', $5/1e6}'

"$bin" & pid=$!
trap 'kill $pid 2>/dev/null' EXIT
base=http://127.0.0.1:$port
until curl -sf "$base/api/v1/health" >/dev/null; do sleep 0.1; done
cookie=$(curl -s -i -X POST "$base/actions/login" -H 'content-type: application/json' \
    -H "origin: $base" -d '{"email":"heavy@example.org","password":"benchmark pw"}' \
  | sed -n 's/.*cashkeeper_session=\([0-9a-f]*\).*/\1/p')
act() { # name, json → prints data; seconds on fd 3
  curl -s -o "$work/out.json" -w '%{time_total}' -X POST "$base/actions/$1" \
    -H 'content-type: application/json' -H "origin: $base" \
    -H "cookie: cashkeeper_session=$cookie" -d "$2" >&3
  cat "$work/out.json"
}
account=$(exec 3>/dev/null; act listAccounts '{}' | python3 -c \
  'import json,sys; print(next(a["id"] for a in json.load(sys.stdin)["data"] if a["type"]=="checking"))')
echo "memory before: $(grep VmHWM /proc/$pid/status | awk '{print $2/1024 " MB"}')"

t=$(curl -s -o "$work/out.json" -w '%{time_total}' "$base/api/imports" -H "origin: $base" \
    -H "cookie: cashkeeper_session=$cookie" -F "accountId=$account" -F "file=@$work/umsaetze.csv")
batch=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$work/out.json")
hwm() { grep VmHWM /proc/$pid/status | awk '{printf "%.0f MB", $2/1024}'; }
echo "stage:     ${t} s   (peak so far $(hwm))"
exec 3>&1
printf 'reconcile: '; act reconcileImport "{\"id\":\"$batch\"}" | python3 -c \
  'import json,sys; print("  ", json.load(sys.stdin)["data"]["counts"], end="")'; echo "   (peak so far $(hwm))"
printf 'decide:    '; act decideImportConflict "{\"id\":\"$batch\",\"all\":\"conflict\",\"decision\":\"import\"}" | python3 -c \
  'import json,sys; print("  ", json.load(sys.stdin)["data"]["decided"], "conflicts imported")'
printf 'confirm:   '; act confirmImport "{\"id\":\"$batch\"}" | python3 -c \
  'import json,sys; d=json.load(sys.stdin)["data"]; print("  ", d["imported"], "written")'
echo "peak memory: $(grep VmHWM /proc/$pid/status | awk '{print $2/1024 " MB"}')"
