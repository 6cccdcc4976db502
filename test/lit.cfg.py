# -*- Python -*-
# ruff: noqa: F821  (lit injects `config` and `lit_config`)
"""lit configuration for spine-triton's test/ tree.

Runs every .mlir / .ttir file under test/ as a lit test: the pass tests (test/lit/), the error
tests (test/lit/errors/) and the TTIR corpus (test/corpus/ttir/, one file per kernel).

    lit -sv test/                           # spine-triton-opt from PATH, else build/dev/bin
    lit -sv test/ -Dspine_triton_opt=PATH   # or SPINE_TRITON_OPT=PATH: a specific binary

Tools: spine-triton-opt (pip-installed one on PATH first, then build/dev/bin), FileCheck, not and
count from the pinned LLVM (/usr/lib/llvm-22/bin), falling back to the pip `filecheck` package.
Substitutions: %python (this interpreter), %expect_exit N (run a command, succeed only if it
exits with status exactly N: `not` also accepts crashes and signals).
"""

import os
import shutil
import sys

import lit.formats

config.name = "spine-triton"
# The internal shell: portable, and `not` there already treats a signal as failure.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".ttir"]
# python/ holds pytest files, helpers/ support scripts; Output/ is lit's own scratch space.
config.excludes = ["python", "helpers", "Output", "CMakeLists.txt", "README.md", "kernels.py", "generate.py"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(config.test_source_root)
# Keep %t files out of the source tree (build/ is git-ignored).
config.test_exec_root = os.path.join(repo_root, "build", "lit")

LLVM_BIN = os.environ.get("SPINE_LLVM_BIN", "/usr/lib/llvm-22/bin")


def find_spine_triton_opt():
    explicit = lit_config.params.get("spine_triton_opt") or os.environ.get("SPINE_TRITON_OPT")
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            lit_config.fatal(f"spine-triton-opt given as {explicit!r} is not an executable file")
        return os.path.abspath(explicit)
    on_path = shutil.which("spine-triton-opt")
    if on_path:
        return on_path
    for build in ("dev", "release", "debug"):
        candidate = os.path.join(repo_root, "build", build, "bin", "spine-triton-opt")
        if os.access(candidate, os.X_OK):
            return candidate
    lit_config.fatal(
        "spine-triton-opt not found: `pip install .` (puts it on PATH) or build it with "
        "`ninja -C build/dev spine-triton-opt`, or pass -Dspine_triton_opt=PATH"
    )


opt = find_spine_triton_opt()
lit_config.note(f"using spine-triton-opt: {opt}")

# RUN lines name the tool; it is replaced by the chosen binary's full path (whatever its file
# name), so a stale copy elsewhere on PATH can never run instead.
config.substitutions.append((r"(?<![\w./-])spine-triton-opt(?![\w.-])", f'"{opt}"'))
# The LLVM tools are found through PATH (lit runs tests with a clean environment).
path = []
if all(os.access(os.path.join(LLVM_BIN, t), os.X_OK) for t in ("FileCheck", "not", "count")):
    path.append(LLVM_BIN)
else:
    # pip's `filecheck` (a Python port) is named in lower case; lit's internal shell has `not`.
    filecheck = shutil.which("filecheck")
    if not filecheck:
        lit_config.fatal(f"FileCheck not found in {LLVM_BIN} and no `filecheck` on PATH")
    lit_config.warning(f"FileCheck not in {LLVM_BIN}: using {filecheck}")
    config.substitutions.append((r"\bFileCheck\b", f'"{filecheck}"'))
config.environment["PATH"] = os.pathsep.join(path + [os.environ.get("PATH", "")])

helpers = os.path.join(config.test_source_root, "lit", "helpers")
config.substitutions.append(
    ("%expect_exit", f'"{sys.executable}" "{os.path.join(helpers, "expect_exit.py")}"')
)
config.substitutions.append(("%python", f'"{sys.executable}"'))

# Diagnostics are matched as text: keep them free of colours and locale effects.
config.environment["LC_ALL"] = "C"
for var in ("SPINE_TRITON_DUMP_PATH", "MLIR_CRASH_REPRODUCER_DIRECTORY"):
    config.environment.pop(var, None)
