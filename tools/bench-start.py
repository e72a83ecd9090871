#!/usr/bin/env python3
"""Times starts of `cashkeeper serve`: from the process's start to its
"running at" line, on a new data directory and then again on the database
that start made, RUNS pairs. Prints the median, the fastest and the slowest
in milliseconds, each run, and the machine's load. Numbers and how to read
them: docs/performance.md, "A fresh start".

    tools/bench-start.py BINARY RUNS
    tools/bench-start.py target/release/cashkeeper 8
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def start(binary, data_dir):
    env = {
        "PATH": os.environ["PATH"],
        "CASHKEEPER_DATA_DIR": data_dir,
        "CASHKEEPER_BIND": "127.0.0.1:0",
        "RUST_LOG": "warn",
    }
    began = time.perf_counter()
    p = subprocess.Popen(
        [binary, "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    for line in p.stdout:
        if "running at" in line:
            break
    took = time.perf_counter() - began
    p.terminate()
    p.wait()
    return took * 1000


def main():
    binary, runs = sys.argv[1], int(sys.argv[2])
    fresh, again = [], []
    for _ in range(runs):
        d = tempfile.mkdtemp(prefix="cashkeeper-start-")
        fresh.append(start(binary, d))
        again.append(start(binary, d))
        shutil.rmtree(d)
    for name, times in (("fresh", fresh), ("again", again)):
        print(
            f"{name}: median {statistics.median(times):.1f} ms, "
            f"fastest {min(times):.1f}, slowest {max(times):.1f}; "
            + " ".join(f"{t:.0f}" for t in times)
        )
    print("load:", open("/proc/loadavg").read().strip())


if __name__ == "__main__":
    main()
