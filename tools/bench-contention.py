#!/usr/bin/env python3
"""One user's large imports and loads next to everyone else's calls, against
a running cashkeeper (release build, a fresh data directory). Prints, per
probe, what was booked and how the other users' calls fared: how many
failed, and the slowest (which is at least as long as the longest time the
write lock was held). Numbers and how to read them: docs/performance.md.

    tools/bench-contention.py PORT twice ROWS       # one statement staged twice, confirmed at once
    tools/bench-contention.py PORT equal ROWS       # ROWS rows against ROWS records of one amount
    tools/bench-contention.py PORT load RECORDS     # an export of RECORDS one-time expenses loaded
                                                    # in Settings (up to about 300,000)
    BIN=… CASHKEEPER_DATA_DIR=… tools/bench-contention.py PORT load-cli RECORDS
                                                    # the same with `cashkeeper import-user`
"""
import os
import subprocess
import datetime
import http.cookiejar
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

port, probe, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = f"http://127.0.0.1:{port}"
VICTIMS = 58


def call(cookie, method, path, body=None, headers=None, timeout=600):
    data = None
    h = {"origin": base}
    if cookie:
        h["cookie"] = f"cashkeeper_session={cookie}"
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.setdefault("content-type", "application/json")
    h.update(headers or {})
    req = urllib.request.Request(base + path, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


def action(cookie, name, body):
    status, raw, _ = call(cookie, "POST", f"/actions/{name}", body)
    reply = json.loads(raw) if raw else {}
    if status != 200 or not reply.get("success"):
        raise RuntimeError(f"{name}: {status} {raw[:300]!r}")
    return reply["data"]


def register():
    email = f"bench-{uuid.uuid4().hex[:12]}@example.org"
    status, raw, headers = call(None, "POST", "/actions/register",
                                {"email": email, "password": "benchmark password"})
    cookie = next(c.split("=", 1)[1].split(";")[0] for c in headers.get_all("set-cookie")
                  if c.startswith("cashkeeper_session="))
    return cookie


def account(cookie):
    return action(cookie, "createAccount", {"name": "Giro", "type": "checking",
                                            "currency": "EUR", "balance": "0"})["id"]


MAPPING = {"date": "Datum", "amount": "Betrag", "payee": "Empfänger", "memo": "Zweck",
           "dateFormat": "%d.%m.%Y", "decimalSeparator": ","}


def csv(rows, payee, day_of, amount_of):
    lines = ["Datum;Betrag;Empfänger;Zweck"]
    for i in range(rows):
        lines.append(f"{day_of(i):%d.%m.%Y};{amount_of(i)};{payee} {i};Karte")
    return "\n".join(lines) + "\n"


def stage(cookie, acct, text):
    return action(cookie, "stageImport", {"accountId": acct, "fileName": "umsaetze.csv",
                                          "csv": text, "mapping": MAPPING})["id"]


class Victims:
    """VICTIMS other users, each writing a one-time expense and reading the
    dashboard in turn, without pause, until stopped."""

    def __init__(self):
        self.users = [(c, account(c)) for c in (register() for _ in range(VICTIMS))]
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.calls, self.failed, self.slowest = 0, [], 0.0

    def run(self, cookie, acct):
        i = 0
        while not self.stop.is_set():
            started = time.monotonic()
            if i % 2 == 0:
                status, raw, _ = call(cookie, "POST", "/actions/createDailyExpense",
                                      {"name": "Bäcker", "amount": "2.50",
                                       "date": "2026-03-01", "accountId": acct})
                ok = status == 200 and json.loads(raw).get("success")
            else:
                status, raw, _ = call(cookie, "GET", "/")
                ok = status == 200
            took = time.monotonic() - started
            with self.lock:
                self.calls += 1
                self.slowest = max(self.slowest, took)
                if not ok:
                    self.failed.append(status)
            i += 1

    def __enter__(self):
        self.threads = [threading.Thread(target=self.run, args=u) for u in self.users]
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        for t in self.threads:
            t.join()
        print(f"other users: {self.calls} calls, {len(self.failed)} failed "
              f"{sorted(set(self.failed))}, slowest {self.slowest:.2f} s")


def timed(what, f):
    started = time.monotonic()
    out = f()
    print(f"{what}: {time.monotonic() - started:.2f} s")
    return out


day0 = datetime.date(2026, 1, 1)
if probe == "twice":
    cookie = register()
    acct = account(cookie)
    text = csv(n, "Laden", lambda i: day0 + datetime.timedelta(days=i % 300),
               lambda i: f"-{1 + i % 90},{i % 100:02d}")
    a, b = stage(cookie, acct, text), stage(cookie, acct, text)
    results = []

    def confirm(batch):
        results.append(call(cookie, "POST", "/actions/confirmImport", {"id": batch})[1])

    def both():
        threads = [threading.Thread(target=confirm, args=(x,)) for x in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    with Victims():
        timed("both confirms", both)
    imported = [json.loads(r)["data"]["imported"] if json.loads(r)["success"]
                else json.loads(r)["error"] for r in results]
    print(f"{n} rows staged twice, confirmed at once: imported {imported}")
elif probe == "equal":
    cookie = register()
    acct = account(cookie)
    day = datetime.date(2026, 3, 10)
    first = stage(cookie, acct, csv(n, "Einkauf", lambda i: day, lambda i: "-1,00"))
    timed(f"confirm {n} records of one amount on one day",
          lambda: action(cookie, "confirmImport", {"id": first}))
    second = stage(cookie, acct, csv(n, "Laden", lambda i: day, lambda i: "-1,00"))
    with Victims():
        r = timed("reconcile", lambda: action(cookie, "reconcileImport", {"id": second}))
        c = timed("confirm", lambda: action(cookie, "confirmImport", {"id": second}))
    print(f"statuses {r['counts']}, imported {c['imported']}")
elif probe in ("load", "load-cli"):
    cookie = register()
    acct = account(cookie)
    step = 200_000
    for start in range(0, n, step):
        rows = min(step, n - start)
        batch = stage(cookie, acct, csv(rows, f"Laden{start}",
                                        lambda i: day0 + datetime.timedelta(days=i % 365),
                                        lambda i: f"-{1 + i % 90},{i % 100:02d}"))
        action(cookie, "confirmImport", {"id": batch})
    status, archive, _ = timed("export", lambda: call(cookie, "GET", "/api/export"))
    print(f"archive: {len(archive) / 1e6:.1f} MB")
    if probe == "load-cli":
        path = "/tmp/bench-contention-export.zip"
        with open(path, "wb") as f:
            f.write(archive)
        email = f"copy-{uuid.uuid4().hex[:8]}@example.org"
        with Victims():
            done = timed("import-user", lambda: subprocess.run(
                [os.environ["BIN"], "import-user", "--email", email, path],
                capture_output=True, text=True))
        print(f"import-user: exit {done.returncode} {done.stdout.strip()[:200]} "
              f"{done.stderr.strip()[-300:]}")
        sys.exit(0)
    fresh = register()
    boundary = "benchboundary"
    body = (f"--{boundary}\r\ncontent-disposition: form-data; name=\"file\"; "
            f"filename=\"export.zip\"\r\ncontent-type: application/zip\r\n\r\n").encode()
    body += archive + f"\r\n--{boundary}--\r\n".encode()
    with Victims():
        status, raw, _ = timed("load", lambda: call(
            fresh, "POST", "/api/import-data", body,
            {"content-type": f"multipart/form-data; boundary={boundary}"}))
    print(f"load: {status} {raw[:200]!r}")
else:
    sys.exit("probe: twice, equal or load")
