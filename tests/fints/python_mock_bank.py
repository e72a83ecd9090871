"""Starts python-fints' own mock bank (its tests/conftest.py, extracted by
.ci/fints-python, never part of this repository) outside pytest, prints
its URL on the first line and serves until stdin is closed.

Usage: python python_mock_bank.py MOCKBANK_DIR
"""
import sys
import types

# conftest.py imports pytest only for its fixture decorator.
pytest = types.ModuleType("pytest")
pytest.fixture = lambda *a, **k: (a[0] if a and callable(a[0]) else (lambda f: f))
sys.modules["pytest"] = pytest
sys.path.insert(0, sys.argv[1])

import conftest  # noqa: E402

server = conftest.fints_server()
url = next(server)
# The mock prints every message it handles; only the URL goes to stdout.
sys.stdout.write(url + "\n")
sys.stdout.flush()
sys.stdout = sys.stderr
sys.stdin.read()
