#!/usr/bin/env bash
# Uploads hostile bank files of 63 MB through `POST /api/imports`, each to
# a fresh service so its peak memory is that upload's alone, and prints
# the answer, the seconds the request took, the peak (`VmHWM`) and the
# resident memory (`VmRSS`) after it. Then three different ones at once
# by three users, and two OFX files of unclosed tags (0.68 MB and 63 MB).
# Numbers and how to read them: docs/performance.md.
#
#   cargo build --release && tools/bench-hostile-uploads.sh
set -euo pipefail
bin=${BIN:-./target/release/cashkeeper}
work=${WORK:-/tmp/bench-hostile}
port=${PORT:-3113}
size=${SIZE:-63000000}
rm -rf "$work" && mkdir -p "$work"
export CASHKEEPER_BIND=127.0.0.1:$port CASHKEEPER_RATES_REFRESH=false \
       RUST_LOG=${RUST_LOG:-warn} NOTIFICATION_SCHEDULE=off INSIGHTS_SCHEDULE=off

# The files: a head, one unit as often as fits in the size, a tail.
python3 - "$work" "$size" <<'PY'
import sys
work, size = sys.argv[1], int(sys.argv[2])
def write(name, head, unit, tail, size=size):
    n = (size - len(head) - len(tail)) // len(unit)
    with open(f"{work}/{name}", "wb") as f:
        f.write(head.encode()); f.write(unit.encode() * n); f.write(tail.encode())
write("empty-elements.xml",
      '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt>',
      "<a/>", "</Stmt></BkToCstmrStmt></Document>\n")
write("blank-lines.sta",
      ":20:STARTUMS\n:25:10020030/1234567890\n:28C:1/1\n:60F:C240101EUR100,00\n"
      ":61:2401020102DR12,50NMSCNONREF\n:86:Miete\n", "\n", ":62F:C240102EUR87,50\n-\n")
write("empty-fields.csv", "Datum;Betrag;Empfänger\n", ";" * 998 + "\n", "")
write("empty-fields-one-line.csv", "Datum;Betrag;Empfänger\n", ";", "\n")
ofx_head = ("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>"
            "<CURDEF>EUR<BANKACCTFROM><ACCTID>12345</BANKACCTFROM><BANKTRANLIST>")
ofx_tail = ("<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240102<TRNAMT>-12.50<NAME>Laden</STMTTRN>"
            "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n")
write("unclosed-tags.ofx", ofx_head, "<X></Y>", ofx_tail)
write("unclosed-tags-small.ofx", ofx_head, "<X></Y>", ofx_tail, size=680000)
PY

start() {  # a fresh service in $work/data-$1; sets PID
  export CASHKEEPER_DATA_DIR=$work/data-$1
  "$bin" serve >/dev/null 2>&1 &
  PID=$!
  until curl -s -o /dev/null "127.0.0.1:$port/api/v1/health"; do sleep 0.1; done
}
user() {  # registers $1@example.org with an account; prints "cookie account"
  local c a
  c=$(curl -s -i -X POST "127.0.0.1:$port/actions/register" -H 'content-type: application/json' \
        -d "{\"email\":\"$1@example.org\",\"password\":\"correct horse battery\"}" \
      | sed -n 's/.*cashkeeper_session=\([0-9a-f]*\).*/\1/p')
  a=$(curl -s -X POST "127.0.0.1:$port/actions/createAccount" -H 'content-type: application/json' \
        -H "cookie: cashkeeper_session=$c" -d '{"name":"Giro","type":"checking","currency":"EUR"}' \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
  echo "$c $a"
}
upload() {  # cookie account file: the answer's status, first 100 bytes, seconds
  curl -s -o "$work/answer" -w '%{http_code} %{time_total}s ' -X POST "127.0.0.1:$port/api/imports" \
       -H "cookie: cashkeeper_session=$1" -F "accountId=$2" -F "file=@$3"
  head -c 100 "$work/answer"; echo
}
memory() { grep -E 'VmHWM|VmRSS' "/proc/$PID/status" | tr -s ' \n' ' '; echo; }

for f in empty-elements.xml blank-lines.sta empty-fields.csv empty-fields-one-line.csv \
         unclosed-tags-small.ofx unclosed-tags.ofx; do
  start "$f"
  read -r c a < <(user one)
  echo "== $f ($(stat -c %s "$work/$f") bytes); idle: $(memory)"
  upload "$c" "$a" "$work/$f"
  echo "after: $(memory)"
  kill "$PID"; wait "$PID" 2>/dev/null || true
done

echo "== three at once (camt, MT940, CSV), three users"
start three
read -r c1 a1 < <(user one); read -r c2 a2 < <(user two); read -r c3 a3 < <(user three)
upload "$c1" "$a1" "$work/empty-elements.xml" & p1=$!
upload "$c2" "$a2" "$work/blank-lines.sta" & p2=$!
upload "$c3" "$a3" "$work/empty-fields.csv" & p3=$!
wait "$p1" "$p2" "$p3"
echo "after: $(memory)"
kill "$PID"; wait "$PID" 2>/dev/null || true
