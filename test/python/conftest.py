"""Shared pytest set-up for the kernel tests."""

import os
import shutil
import tempfile

# A fresh Triton cache for every test session (and every xdist worker), so no result comes from a
# kernel an older build compiled. Triton reads the variable when it compiles, so setting it at
# import time, before any test runs, is enough.
_CACHE_DIR = tempfile.mkdtemp(prefix="spine-triton-test-cache-")
os.environ["TRITON_CACHE_DIR"] = _CACHE_DIR
# Triton 3.9 warns on every process that FP fusion is left at its default; pin it.
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
