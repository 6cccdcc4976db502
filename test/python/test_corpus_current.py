"""The committed TTIR corpus (test/corpus/ttir/) must be what the installed triton produces.

The lit tests run on the committed files without regenerating them, so a triton upgrade (or an
edit of kernels.py / generate.py) would otherwise leave them silently stale.
"""

import difflib
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "test" / "corpus"
COMMITTED = CORPUS / "ttir"
REGENERATE = "python test/corpus/generate.py"


def test_corpus_is_current(tmp_path):
    # A separate process: generation imports kernels.py and builds many triton contexts, none of
    # which should leak into (or depend on) the state of this test process.
    proc = subprocess.run(
        [sys.executable, str(CORPUS / "generate.py"), "--out", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"generate.py failed:\n{proc.stdout}\n{proc.stderr}"

    fresh = {p.name: p.read_text() for p in tmp_path.glob("*.ttir")}
    committed = {p.name: p.read_text() for p in COMMITTED.glob("*.ttir")}
    assert fresh, "generate.py wrote no .ttir files"

    problems = []
    for name in sorted(fresh.keys() - committed.keys()):
        problems.append(f"{name}: generated but not committed")
    for name in sorted(committed.keys() - fresh.keys()):
        problems.append(f"{name}: committed but no longer generated (delete it)")
    for name in sorted(fresh.keys() & committed.keys()):
        if fresh[name] != committed[name]:
            diff = difflib.unified_diff(
                committed[name].splitlines(True),
                fresh[name].splitlines(True),
                f"committed/{name}",
                f"fresh/{name}",
                n=1,
            )
            problems.append(f"{name} differs:\n" + "".join(list(diff)[:40]))
    assert not problems, (
        f"the TTIR corpus in {COMMITTED.relative_to(REPO)} is stale for the installed triton: "
        f"rerun `{REGENERATE}`, review the diff and commit it.\n\n" + "\n".join(problems)
    )


def test_corpus_generation_is_deterministic(tmp_path):
    # Two runs in two processes give the same bytes (no addresses, paths or ordering leak in).
    outs = []
    for i in range(2):
        out = tmp_path / str(i)
        subprocess.run(
            [
                sys.executable,
                str(CORPUS / "generate.py"),
                "--out",
                str(out),
                "vector_add",
                "noinline_call",
                "matmul_fp32",
            ],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
        outs.append({p.name: p.read_bytes() for p in out.glob("*.ttir")})
    assert outs[0] == outs[1]
    assert len(outs[0]) == 3
