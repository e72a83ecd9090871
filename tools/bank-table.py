#!/usr/bin/env python3
"""Rebuilds third_party/banks/banks.tsv, the bundled table of German banks'
FinTS PIN/TAN addresses, from hbci4java's bank list (docs/bank-sync.md, "The
bank table").

    tools/bank-table.py BLZ_PROPERTIES COMMIT DATE > third_party/banks/banks.tsv

BLZ_PROPERTIES is `src/main/resources/blz.properties` of hbci4j/hbci4java at
COMMIT (40 hex digits), DATE the day of that commit (YYYY-MM-DD); both go into
the file's header. Each source line is

    BLZ=name|city|BIC|check method|HBCI host|PIN/TAN URL|HBCI version|PIN/TAN version|

Kept: bank code, BIC, name, city and the PIN/TAN URL if it is https://. The
URLs, about a hundred for four thousand banks, are listed once at the top
(`@N<TAB>url`) and named by their number in the rows; rows are sorted by bank
code, so a refresh's diff shows what changed.
"""
import re
import sys

path, commit, date = sys.argv[1], sys.argv[2], sys.argv[3]
if not re.fullmatch(r"[0-9a-f]{40}", commit) or not re.fullmatch(r"\d{4}-\d\d-\d\d", date):
    sys.exit("usage: tools/bank-table.py BLZ_PROPERTIES COMMIT DATE")

rows = []
with open(path, encoding="utf-8") as f:
    for number, line in enumerate(f, 1):
        line = line.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        code, rest = line.split("=", 1)
        fields = rest.split("|")
        name, city, bic, url = (fields[i].strip() for i in (0, 1, 2, 5))
        # A name in quotes ("Oldenburgische Landesbank AG (vormals …)").
        if len(name) > 1 and name[0] == name[-1] == '"':
            name = name[1:-1].strip()
        code = code.strip()
        if not re.fullmatch(r"\d{8}", code):
            sys.exit(f"{path}:{number}: bank code {code!r} is not 8 digits")
        if bic and not re.fullmatch(r"[A-Z0-9]{8}([A-Z0-9]{3})?", bic):
            sys.exit(f"{path}:{number}: BIC {bic!r} is not a BIC")
        for value in (name, city, url):
            if "\t" in value:
                sys.exit(f"{path}:{number}: a tab in {value!r}")
        if not name:
            sys.exit(f"{path}:{number}: no name")
        rows.append((code, bic, name, city, url if url.startswith("https://") else ""))

rows.sort()
urls = sorted({row[4] for row in rows if row[4]})
number_of = {url: i + 1 for i, url in enumerate(urls)}

out = sys.stdout
out.write(
    "# German banks' FinTS PIN/TAN addresses, for cashkeeper's bank sync.\n"
    "# From hbci4java (https://github.com/hbci4j/hbci4java),\n"
    "# src/main/resources/blz.properties at commit\n"
    f"# {commit} ({date}).\n"
    "# hbci4java is free software under the GNU Lesser General Public License,\n"
    "# version 2.1 (third_party/banks/LICENSE); this table is a part of it,\n"
    "# cut down by tools/bank-table.py to the columns below, and is under the\n"
    "# same licence.\n"
    "# Format (docs/bank-sync.md, \"The bank table\"): lines `@N<TAB>url` list the\n"
    "# PIN/TAN addresses; then one bank a line:\n"
    "# bank code<TAB>BIC<TAB>name<TAB>city<TAB>N of its address, or empty\n"
)
for url in urls:
    out.write(f"@{number_of[url]}\t{url}\n")
for code, bic, name, city, url in rows:
    ref = str(number_of[url]) if url else ""
    out.write(f"{code}\t{bic}\t{name}\t{city}\t{ref}\n")
