"""Triton's own cache key is remembered across processes (spine_triton/triton_key.py): the same
string triton computes, reused only while the files it hashes are unchanged."""

import json
import os
import subprocess
import sys

import triton.runtime.autotuner
import triton.runtime.cache
from spine_triton import triton_key


def test_installed_key_is_tritons(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_HOME", str(tmp_path))
    triton_key.triton_key.cache_clear()
    assert triton.runtime.cache.triton_key is triton_key.triton_key
    assert triton.runtime.autotuner.triton_key is triton_key.triton_key
    key = triton.runtime.cache.triton_key()
    assert key == triton_key._triton_key()
    stored = json.loads((tmp_path / ".triton" / "spine-triton" / "triton_key.json").read_text())
    assert stored["key"] == key
    triton_key.triton_key.cache_clear()


def test_stored_key_is_reused_under_the_same_fingerprint(tmp_path):
    store = tmp_path / "key.json"
    calls = []

    def compute():
        calls.append(1)
        return f"key{len(calls)}"

    assert triton_key.remembered(store, "fp1", compute) == "key1"
    assert triton_key.remembered(store, "fp1", compute) == "key1"
    assert len(calls) == 1
    # Any change to the hashed files' fingerprint recomputes and replaces the stored key.
    assert triton_key.remembered(store, "fp2", compute) == "key2"
    assert triton_key.remembered(store, "fp2", compute) == "key2"
    assert len(calls) == 2


def test_damaged_or_unwritable_store_computes(tmp_path):
    store = tmp_path / "key.json"
    store.write_text("{not json")
    assert triton_key.remembered(store, "fp", lambda: "fresh") == "fresh"
    assert json.loads(store.read_text()) == {"fingerprint": "fp", "key": "fresh"}
    store.write_text('["a list"]')
    assert triton_key.remembered(store, "fp", lambda: "again") == "again"
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert triton_key.remembered(blocked / "key.json", "fp", lambda: "unstored") == "unstored"


def test_fingerprint_follows_the_hashed_files(tmp_path):
    (tmp_path / "runtime").mkdir()
    (tmp_path / "language").mkdir()
    (tmp_path / "runtime" / "cache.py").write_text("a = 1\n")
    (tmp_path / "language" / "core.py").write_text("b = 1\n")
    before = triton_key.fingerprint(tmp_path)
    assert triton_key.fingerprint(tmp_path) == before
    (tmp_path / "language" / "core.py").write_text("b = 22\n")
    assert triton_key.fingerprint(tmp_path) != before
    changed = triton_key.fingerprint(tmp_path)
    (tmp_path / "language" / "new.py").write_text("")
    assert triton_key.fingerprint(tmp_path) != changed
    settled = triton_key.fingerprint(tmp_path)
    stat = os.stat(tmp_path / "runtime" / "cache.py")
    os.utime(tmp_path / "runtime" / "cache.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert triton_key.fingerprint(tmp_path) != settled


def test_second_process_reads_the_key(tmp_path):
    """A new process takes the key from the store instead of hashing libtriton.so again."""
    code = (
        "import triton, triton.runtime.cache as c\n"
        "from spine_triton import triton_key as t\n"
        "t._triton_key = lambda: 'computed'\n"
        "print(c.triton_key())\n"
    )
    env = {**os.environ, "TRITON_HOME": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.strip() == "computed"
    code = code.replace("'computed'", "'recomputed'")
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert second.stdout.strip() == "computed"
