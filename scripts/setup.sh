#!/usr/bin/env bash
# Sets up everything spine-triton needs on Debian 12 and installs the package:
# the pinned LLVM/MLIR 22 (Debian packages), the Python dependencies, then
# `pip install .` (C++ passes, spine-triton-opt, the nanobind module).
# Safe to re-run: it skips what is already there, and ccache keeps rebuilds fast.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22 # the pinned LLVM 22.1.8
  ccache ninja-build                                                     # fast rebuilds
  gcc-riscv64-linux-gnu g++-riscv64-linux-gnu qemu-user                  # emulated RISC-V runs
  gdb                                                                    # debug builds' line info
  clang-format-22                                                        # test_style.py
)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -ne 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

PY=${PYTHON:-python3}
# torch is pinned to the CPU build the machines carry; triton to the version
# whose TTIR and .td files the passes are written against.
$PY -m pip install -q torch==2.13.0 triton==3.9.0 numpy nanobind scikit-build-core \
  pytest pytest-xdist lit filecheck ruff \
  matplotlib pandas # triton.testing.perf_report (examples/gemm_autotune.py)

# ccache makes a rebuild from a fresh clone cheap; the base dir makes its
# entries reusable across clones at different paths.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
export CMAKE_GENERATOR=Ninja
$PY -m pip install -q --no-build-isolation \
  -Cbuild-dir=build/pip \
  -Ccmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache \
  -Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache \
  .
echo "setup: spine-triton installed ($(command -v spine-triton-opt))"
