#!/usr/bin/env bash
# Builds spine-triton's C++ (passes, dialect, nanobind module, grid launcher,
# spine-triton-opt) with AddressSanitizer + UndefinedBehaviorSanitizer in
# build/asan and runs the pytest kernel suite (and the lit tests) against it.
# The installed package is left alone: the sanitized module is assembled in
# build/asan/python/spine_triton and put first on PYTHONPATH.
#
#   bash scripts/sanitize.sh                      # build, then pytest test/python + lit
#   bash scripts/sanitize.sh --build-only
#   bash scripts/sanitize.sh test/python/test_vector_add.py -k empty   # pytest arguments
#
# Python is not instrumented, so the ASan runtime is preloaded (LD_PRELOAD) into the
# interpreter, with libubsan. Leak detection is off for the interpreter: CPython, torch and
# triton keep allocations alive until exit by design, so LeakSanitizer reports thousands of
# "leaks" that are not ours. The first sanitizer report aborts the run (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
BUILD=build/asan

build_only=0
if [ "${1:-}" = "--build-only" ]; then
  build_only=1
  shift
fi

# One build at a time on this machine (the tree is shared): take the build lock.
(
  flock 9
  if [ ! -f $BUILD/build.ninja ]; then
    cmake -G Ninja -S . -B $BUILD -DSPINE_BUILD_PYTHON_MODULE=ON -DSPINE_TRITON_SANITIZE=ON \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -Dnanobind_DIR="$($PY -m nanobind --cmake_dir)"
  fi
  ninja -C $BUILD -j2 _C spine-triton-opt
) 9>/tmp/spine-build.lock

# A package directory holding the sources of this tree and the sanitized module.
pkg=$BUILD/python/spine_triton
installed=$($PY -c "import importlib.util, os; print(os.path.dirname(importlib.util.find_spec('spine_triton').origin))")
mkdir -p "$pkg"
rm -f "$pkg"/*.py "$pkg"/_C*.so "$pkg/bin"
for f in python/spine_triton/*.py; do ln -s "$PWD/$f" "$pkg/"; done
for so in $BUILD/cpp/python/_C*.so; do ln -s "$PWD/$so" "$pkg/"; done
# The riscv64 runner is not ours to sanitize (it runs under qemu): reuse the installed one.
if [ -d "$installed/bin" ]; then ln -s "$installed/bin" "$pkg/bin"; fi
[ "$build_only" = 1 ] && { echo "sanitize: built $pkg"; exit 0; }

export PYTHONPATH="$PWD/$BUILD/python${PYTHONPATH:+:$PYTHONPATH}"
export PATH="$PWD/$BUILD/bin:$PATH"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"

# The module that runs must be the sanitized one.
LD_PRELOAD="$preload" $PY -c "
import spine_triton._C as c, sys
assert c.__file__.startswith('$PWD/$BUILD/'), c.__file__
print('sanitize: using', c.__file__)
"

status=0
if [ $# -eq 0 ]; then
  echo "== lit test/ (sanitized spine-triton-opt)"
  # The tool exits through LLVM's normal path: leaks there are reported too.
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=1" lit -sv test/ -Dspine_triton_opt="$PWD/$BUILD/bin/spine-triton-opt" \
    || status=1
  set -- test/python
fi
echo "== pytest $* (ASan + UBSan)"
# gdb inherits the preloaded runtime and does not get through its session (test_debug_build.py);
# test_memory.py skips itself (ASan's quarantine holds freed memory).
LD_PRELOAD="$preload" $PY -m pytest -q -p no:benchmark -n "${SPINE_TEST_JOBS:-2}" \
  --deselect test/python/test_debug_build.py::test_gdb_steps_through_kernel_source "$@" || status=1
exit $status
