#!/usr/bin/env bash
# Developer loop: rebuild the C++ in build/dev (incremental, ccache) and copy
# the module, the Python sources and spine-triton-opt over an existing
# `pip install .`. Much faster than reinstalling the wheel after a small change.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -f build/dev/build.ninja ]; then
  cmake -G Ninja -S . -B build/dev -DSPINE_BUILD_PYTHON_MODULE=ON \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -Dnanobind_DIR="$($PY -m nanobind --cmake_dir)"
fi
ninja -C build/dev -j2 _C spine-triton-opt
pkg=$($PY -c "import importlib.util, os; print(os.path.dirname(importlib.util.find_spec('spine_triton').origin))")
# Replace files by renaming a fresh copy over them: overwriting a shared library
# in place crashes every process that has it loaded.
install_file() { cp "$1" "$2.tmp.$$" && mv -f "$2.tmp.$$" "$2"; }
for so in build/dev/cpp/python/_C*.so; do install_file "$so" "$pkg/$(basename "$so")"; done
cp python/spine_triton/*.py "$pkg/"
# The scripts directory pip installed into (not `command -v`, which may be a
# pyenv shim).
bindir=$($PY -c "import sysconfig; print(sysconfig.get_path('scripts'))")
install_file build/dev/bin/spine-triton-opt "$bindir/spine-triton-opt"
# The emulated RISC-V runner exists only where the riscv64 cross compiler does.
if ninja -C build/dev -t query spine-triton-riscv-runner >/dev/null 2>&1; then
  ninja -C build/dev spine-triton-riscv-runner
  mkdir -p "$pkg/bin"
  install_file build/dev/bin/spine-triton-riscv-runner "$pkg/bin/spine-triton-riscv-runner"
fi
echo "dev-install: updated $pkg"
