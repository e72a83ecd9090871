#!/usr/bin/env python3
"""Times pages of a running cashkeeper right after a write and once more:
moves the user's data version (as any write does) N times, and after each
asks every page once and then again. Prints the medians in milliseconds.
Numbers and how to read them: docs/performance.md.

    tools/bench-after-write.py PORT SESSION_COOKIE DATA_DIR/cashkeeper.db N PAGE...
    tools/bench-after-write.py 3111 "$C" /tmp/bench/data/cashkeeper.db 40 / /budgets
"""
import sqlite3
import statistics
import sys
import time
import urllib.request

port, cookie, db, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
conn = sqlite3.connect(db, timeout=10)


def get(path):
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        headers={"cookie": f"cashkeeper_session={cookie}"},
    )
    started = time.perf_counter()
    with urllib.request.urlopen(req) as res:
        res.read()
    return (time.perf_counter() - started) * 1000


for path in sys.argv[5:]:
    after, again = [], []
    for _ in range(n):
        conn.execute("UPDATE user_data_versions SET version = version + 1")
        conn.commit()
        after.append(get(path))
        again.append(get(path))
    print(
        f"{path}: after a write median {statistics.median(after):.1f} ms,"
        f" again median {statistics.median(again):.1f} ms"
    )
