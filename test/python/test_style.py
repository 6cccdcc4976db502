"""The tree keeps the project's style: C++ as clang-format's LLVM style formats it, Python as ruff
checks and formats it (its settings are in pyproject.toml). scripts/setup.sh installs both tools."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLANG_FORMAT = "clang-format-22"


def cpp_sources():
    return sorted(
        str(path)
        for folder in ("cpp", "tools")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".cpp", ".h")
    )


def run(command):
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_cpp_is_clang_formatted():
    assert shutil.which(CLANG_FORMAT), f"{CLANG_FORMAT} is missing: run scripts/setup.sh"
    sources = cpp_sources()
    assert len(sources) > 50
    result = run([CLANG_FORMAT, "--dry-run", "--Werror", "--style=LLVM", *sources])
    assert result.returncode == 0, result.stderr[-4000:]


def test_python_passes_ruff():
    check = run([sys.executable, "-m", "ruff", "check", "."])
    assert check.returncode == 0, check.stdout[-4000:] + check.stderr[-2000:]
    formatted = run([sys.executable, "-m", "ruff", "format", "--check", "."])
    assert formatted.returncode == 0, formatted.stdout[-4000:] + formatted.stderr[-2000:]
