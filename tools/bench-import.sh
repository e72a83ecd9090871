#!/usr/bin/env bash
# Stages, reconciles and confirms a generated bank file of N rows into the
# checking account of the heavy benchmark user, and prints each step's
# seconds and the service's peak memory. The file is in the Sparkasse
# CSV-CAMT layout, or with a second argument an MT940 statement (`mt940`,
# German DFÜ style, one statement a day), a camt.053 statement (`camt`,
# one Stmt a day), an OFX 1.02 statement (`ofx`, SGML, one STMTTRN a
# booking) or a QIF file (`qif`, `!Type:Bank`) of the same bookings. Beside
# each step's wall time it prints the CPU time the service spent on it
# (user + system, from /proc/PID/stat), which other processes on the
# machine do not change. Numbers and how to read them: docs/performance.md.
#
#   cargo build --release && tools/bench-import.sh 100000
#   tools/bench-import.sh 100000 mt940
#   tools/bench-import.sh 100000 camt
#   tools/bench-import.sh 100000 ofx
#   tools/bench-import.sh 100000 qif
set -euo pipefail
rows=${1:-100000}
format=${2:-csv}
case $format in
  csv) file=umsaetze.csv ;;
  mt940) file=umsaetze.sta ;;
  camt) file=umsaetze.xml ;;
  ofx) file=umsaetze.ofx ;;
  qif) file=umsaetze.qif ;;
  *) echo "format: csv, mt940, camt, ofx or qif, not $format" >&2; exit 2 ;;
esac
bin=${BIN:-./target/release/cashkeeper}
work=${WORK:-/tmp/bench-import}
port=${PORT:-3112}
rm -rf "$work" && mkdir -p "$work"
export CASHKEEPER_DATA_DIR=$work/data CASHKEEPER_BIND=127.0.0.1:$port \
       CASHKEEPER_RATES_REFRESH=false RUST_LOG=${RUST_LOG:-warn} \
       NOTIFICATION_SCHEDULE=off INSIGHTS_SCHEDULE=off
# SEED: a data directory made by an earlier run's demo step, copied
# instead of made again (the demo's single write transaction may outlast
# its budget on a busy machine).
# FILE_ONLY: writes the file and stops (tools/bench-phases.sh uses it).
if [ -n "${FILE_ONLY:-}" ]; then
  :
elif [ -n "${SEED:-}" ] && [ -d "$SEED" ]; then
  cp -r "$SEED" "$work/data"
else
  echo 'benchmark pw' | "$bin" demo --email heavy@example.org --heavy --password-stdin >/dev/null
  [ -n "${SEED:-}" ] && cp -r "$work/data" "$SEED"
fi

# The file: payees from a list of merchants, a year of dates; the CSV and
# MT940 in Windows-1252, camt in UTF-8. The same seed gives the three
# formats the same bookings.
python3 - "$rows" "$work/$file" "$format" <<'PY'
import random, sys, datetime
from xml.sax.saxutils import escape
n, path, fmt = int(sys.argv[1]), sys.argv[2], sys.argv[3]
random.seed(7)
shops = ["REWE Markt", "EDEKA Center", "Lidl Dienstleistung", "ALDI SÜD", "dm-drogerie markt",
         "Rossmann", "Bäckerei Müller", "Tankstelle Aral", "Deutsche Bahn", "Amazon EU",
         "Stadtwerke", "Café Kränzle", "IKEA", "MediaMarkt", "Apotheke am Markt"]
shops += [f"Laden {i:03d}" for i in range(200)]
start = datetime.date(2025, 11, 1)
def bookings():  # (i, day, payee, signed cents)
    for i in range(n):
        day = start + datetime.timedelta(days=i * 365 // n)
        shop = random.choice(shops)
        cents = random.randint(100, 25000)
        sign = 1 if random.random() < 0.05 else -1
        yield i, day, shop, sign * cents
def days():  # (day, its bookings), one statement each
    out, day = [], None
    for b in bookings():
        if out and b[1] != day:
            yield day, out
            out = []
        day = b[1]
        out.append(b)
    if out:
        yield day, out
def euros(cents, sep):
    return f"{abs(cents) // 100}{sep}{abs(cents) % 100:02d}"
iban, cp_iban, cp_bic = "DE89370400440532013000", "DE02120300000000202051", "BYLADEM1001"
opening = 250000000  # cents

if fmt == "csv":
    head = ('"Auftragskonto";"Buchungstag";"Valutadatum";"Buchungstext";"Verwendungszweck";'
            '"Glaeubiger ID";"Mandatsreferenz";"Kundenreferenz (End-to-End)";"Sammlerreferenz";'
            '"Lastschrift Ursprungsbetrag";"Auslagenersatz Ruecklastschrift";'
            '"Beguenstigter/Zahlungspflichtiger";"Kontonummer/IBAN";"BIC (SWIFT-Code)";"Betrag";'
            '"Waehrung";"Info"')
    with open(path, "w", encoding="cp1252", newline="") as f:
        f.write(head + "\r\n")
        for i, day, shop, cents in bookings():
            amount = ("-" if cents < 0 else "") + euros(cents, ",")
            d = day.strftime("%d.%m.%y")
            f.write(f'"12345678";"{d}";"{d}";"KARTENZAHLUNG";"Einkauf {i}";;;"{i}";;;;"{shop}";'
                    f'"{cp_iban}";"{cp_bic}";"{amount}";"EUR";"Umsatz gebucht"\r\n')

elif fmt == "mt940":
    # German DFÜ layout: :86: with GVC, ?00 booking text, ?20.. memo,
    # ?30/?31 counterparty bank and account, ?32/?33 payee (27 characters each).
    def bal(tag, day, cents):
        return f":{tag}:{'C' if cents >= 0 else 'D'}{day:%y%m%d}EUR{euros(cents, ',')}"
    balance = opening
    with open(path, "w", encoding="cp1252", newline="") as f:
        for k, (day, items) in enumerate(days(), 1):
            lines = [":20:STARTUMSE", ":25:37040044/0532013000", f":28C:{k:05d}/001",
                     bal("60F", day, balance)]
            for i, _, shop, cents in items:
                balance += cents
                lines.append(f":61:{day:%y%m%d%m%d}{'C' if cents > 0 else 'D'}"
                             f"{euros(cents, ',')}NMSCNONREF")
                lines.append(f":86:{'166' if cents > 0 else '106'}?00KARTENZAHLUNG?10{k:04d}")
                lines.append(f"?20Einkauf {i}")
                lines.append(f"?30{cp_bic}?31{cp_iban}")
                lines.append(f"?32{shop[:27]}" + (f"?33{shop[27:54]}" if shop[27:] else ""))
            lines += [bal("62F", day, balance), "-"]
            f.write("\r\n".join(lines) + "\r\n")

elif fmt == "camt":
    # One element a line without indentation: indented, the file of 100,000
    # rows is 70.5 MB and over the upload's 64 MiB.
    def bal(code, day, cents):
        return (f"<Bal><Tp><CdOrPrtry><Cd>{code}</Cd></CdOrPrtry></Tp>"
                f"<Amt Ccy=\"EUR\">{euros(cents, '.')}</Amt>"
                f"<CdtDbtInd>{'CRDT' if cents >= 0 else 'DBIT'}</CdtDbtInd>"
                f"<Dt><Dt>{day}</Dt></Dt></Bal>\n")
    balance = opening
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">\n'
                '<BkToCstmrStmt>\n'
                f'<GrpHdr><MsgId>BENCH{n}</MsgId><CreDtTm>{start}T06:00:00</CreDtTm></GrpHdr>\n')
        for k, (day, items) in enumerate(days(), 1):
            f.write(f"<Stmt>\n<Id>BENCH{k:05d}</Id><ElctrncSeqNb>{k}</ElctrncSeqNb>"
                    f"<CreDtTm>{day}T06:00:00</CreDtTm>\n"
                    f"<Acct><Id><IBAN>{iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>\n")
            f.write(bal("OPBD", day, balance))
            body = []
            for i, _, shop, cents in items:
                balance += cents
                credit = cents > 0
                party, acct = ("Dbtr", "DbtrAcct") if credit else ("Cdtr", "CdtrAcct")
                body.append(
                    f"""<Ntry>
<Amt Ccy="EUR">{euros(cents, '.')}</Amt>
<CdtDbtInd>{'CRDT' if credit else 'DBIT'}</CdtDbtInd>
<Sts>BOOK</Sts>
<BookgDt><Dt>{day}</Dt></BookgDt>
<ValDt><Dt>{day}</Dt></ValDt>
<BkTxCd><Prtry><Cd>NMSC+{'166' if credit else '106'}</Cd><Issr>DK</Issr></Prtry></BkTxCd>
<NtryDtls>
<TxDtls>
<Refs><EndToEndId>{i}</EndToEndId></Refs>
<RltdPties>
<{party}><Nm>{escape(shop)}</Nm></{party}>
<{acct}><Id><IBAN>{cp_iban}</IBAN></Id></{acct}>
</RltdPties>
<RmtInf><Ustrd>Einkauf {i}</Ustrd></RmtInf>
</TxDtls>
</NtryDtls>
<AddtlNtryInf>KARTENZAHLUNG</AddtlNtryInf>
</Ntry>
""")
            f.write(bal("CLBD", day, balance) + "".join(body) + "</Stmt>\n")
        f.write("</BkToCstmrStmt>\n</Document>\n")

elif fmt == "ofx":
    # OFX 1.02 (SGML, Windows-1252), one statement, one STMTTRN a line.
    end = start + datetime.timedelta(days=364)
    balance = opening
    with open(path, "w", encoding="cp1252", newline="") as f:
        f.write("OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\n"
                "ENCODING:USASCII\r\nCHARSET:1252\r\nCOMPRESSION:NONE\r\n"
                "OLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n<OFX>\r\n"
                "<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS>"
                f"<DTSERVER>{end:%Y%m%d}120000<LANGUAGE>DEU</SONRS></SIGNONMSGSRSV1>\r\n"
                "<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>\r\n"
                "<STMTRS><CURDEF>EUR<BANKACCTFROM><BANKID>37040044<ACCTID>0532013000"
                "<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n"
                f"<BANKTRANLIST><DTSTART>{start:%Y%m%d}<DTEND>{end:%Y%m%d}\r\n")
        for i, day, shop, cents in bookings():
            balance += cents
            sign = "-" if cents < 0 else ""
            f.write(f"<STMTTRN><TRNTYPE>{'CREDIT' if cents > 0 else 'DEBIT'}"
                    f"<DTPOSTED>{day:%Y%m%d}000000<TRNAMT>{sign}{euros(cents, '.')}"
                    f"<FITID>{i}<NAME>{escape(shop)}<MEMO>Einkauf {i}</STMTTRN>\r\n")
        f.write(f"</BANKTRANLIST><LEDGERBAL><BALAMT>{'-' if balance < 0 else ''}"
                f"{euros(balance, '.')}<DTASOF>{end:%Y%m%d}</LEDGERBAL></STMTRS>"
                "</STMTTRNRS></BANKMSGSRSV1></OFX>\r\n")

elif fmt == "qif":
    # Quicken's bank section, Windows-1252, day first (German export).
    with open(path, "w", encoding="cp1252", newline="") as f:
        f.write("!Type:Bank\r\n")
        for i, day, shop, cents in bookings():
            sign = "-" if cents < 0 else ""
            f.write(f"D{day:%d.%m.%Y}\r\nT{sign}{euros(cents, '.')}\r\n"
                    f"P{shop}\r\nMEinkauf {i}\r\n^\r\n")
PY
ls -l "$work/$file" | awk '{printf "file: %d rows, %.1f MB\n", '"$rows"', $5/1e6}'
[ -n "${FILE_ONLY:-}" ] && exit 0

"$bin" & pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
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
hwm() { grep VmHWM /proc/$pid/status | awk '{printf "%.0f MB", $2/1024}'; }
# The service's CPU seconds so far (user + system; fields 14 and 15).
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' /proc/$pid/stat; }
since() { awk -v a="$1" -v b="$(cpu)" 'BEGIN {printf "%.2f", b - a}'; }
echo "memory before: $(hwm)"
c0=$(cpu) w0=$(date +%s.%N)

c=$(cpu)
t=$(curl -s -o "$work/out.json" -w '%{time_total}' "$base/api/imports" -H "origin: $base" \
    -H "cookie: cashkeeper_session=$cookie" -F "accountId=$account" -F "file=@$work/$file")
batch=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$work/out.json" 2>/dev/null) \
  || { echo "stage refused after ${t} s: $(head -c 300 "$work/out.json")"; exit 1; }
echo "stage:     ${t} s, cpu $(since "$c") s   (peak so far $(hwm))"
if [ "$format" != csv ]; then # what the reader made of the statement
  python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); f=b["format"]
print("   read as %s, %d rows, %d errors, closing balance %s" % (f["kind"], b["rowCount"],
      b["counts"]["error"], f["closingBalance"]))' "$work/out.json"
fi
exec 3>&1
c=$(cpu); printf 'reconcile: '; act reconcileImport "{\"id\":\"$batch\"}" | python3 -c \
  'import json,sys; print("  ", json.load(sys.stdin)["data"]["counts"], end="")'
echo ", cpu $(since "$c") s   (peak so far $(hwm))"
c=$(cpu); printf 'decide:    '; act decideImportConflict "{\"id\":\"$batch\",\"all\":\"conflict\",\"decision\":\"import\"}" | python3 -c \
  'import json,sys; print("  ", json.load(sys.stdin)["data"]["decided"], "conflicts imported", end="")'
echo ", cpu $(since "$c") s"
c=$(cpu); printf 'confirm:   '; act confirmImport "{\"id\":\"$batch\"}" | python3 -c \
  'import json,sys; d=json.load(sys.stdin)["data"]; print("  ", d["imported"], "written", end="")'
echo ", cpu $(since "$c") s"
echo "whole run: $(awk -v a="$w0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s, cpu $(since "$c0") s"
echo "peak memory: $(hwm)"
