"""The cache key covers everything that changes a kernel's code, and nothing that does not.

The key tests compute the key exactly as ``triton.compile`` does (``get_cache_key`` of the source,
the backend, the parsed options and triton's cache-invalidating environment variables) under one
changed component each. The subprocess tests show that a changed knob really recompiles and that
processes compiling into one cache at once leave only complete entries. That an unchanged second
process reuses the cache is test_cache.py's test.
"""

import ctypes
import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import triton
import triton.language as tl
from spine_triton import _C, compiler, driver, targets
from test_cache import run_child
from triton._C.libtriton import get_cache_invalidating_env_vars
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend
from triton.runtime.cache import get_cache_key


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def cache_key(arch=None, options=None):
    """The key ``triton.compile`` would file scale_kernel under, for the target named ``arch``
    (default: the one the driver starts with, from SPINE_TRITON_TARGET)."""
    target = GPUTarget("cpu", arch or driver.CPUDriver().get_current_target().arch, 1)
    src = ASTSource(
        scale_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 64}
    )
    # The backend hash is memoized per process: recompute it under every patched component.
    compiler._backend_hash.cache_clear()
    backend = make_backend(target)
    opts = backend.parse_options(dict(options or {}))
    return get_cache_key(src, backend, opts, get_cache_invalidating_env_vars())


def test_key_is_deterministic():
    assert cache_key() == cache_key()


# --- the compiler ---------------------------------------------------------------------------------


def test_triton_version_changes_key(monkeypatch):
    before = cache_key()
    monkeypatch.setattr(triton, "__version__", triton.__version__ + ".post1")
    assert cache_key() != before


def test_package_version_changes_key(monkeypatch):
    before = cache_key()
    monkeypatch.setattr(compiler, "_package_version", lambda: "999.0")
    assert cache_key() != before


def test_build_id_changes_key(monkeypatch):
    before = cache_key()
    monkeypatch.setattr(compiler, "_build_id", lambda: "another-build")
    assert cache_key() != before


def test_build_id_covers_module_and_sources():
    files = compiler._build_files()
    assert files[0].samefile(_C.__file__)
    assert {p.name for p in files[1:]} >= {"compiler.py", "driver.py", "targets.py", "emulation.py"}
    assert len(compiler._build_id()) == 64


@pytest.mark.parametrize("which", ["built against", "loaded"])
def test_llvm_version_changes_key(monkeypatch, which):
    before = cache_key()
    if which == "built against":
        monkeypatch.setattr(_C, "llvm_version", lambda: "22.1.9")
    else:
        monkeypatch.setattr(compiler, "_loaded_llvm_version", lambda: "22.1.9")
    assert cache_key() != before


def test_loaded_llvm_version_is_the_libraries():
    # The shared libLLVM this process runs reports its own version: the major.minor _C was built
    # against (the library's soname), the patch level of whatever update is installed.
    loaded = compiler._loaded_llvm_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", loaded), loaded
    assert loaded.split(".")[:2] == _C.llvm_version().split(".")[:2]


# --- the target -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [
        ("triple", "x86_64-unknown-linux-gnu"),
        ("cpu", "x86-64-v2"),
        ("features", "+sse2"),
    ],
)
def test_host_target_changes_key(monkeypatch, field, value):
    before = cache_key("native")
    host = dataclasses.replace(targets.host(), **{field: value})
    monkeypatch.setattr(targets, "host", lambda: host)
    assert cache_key("native") != before


@pytest.mark.parametrize("field, value", [("vlen", 512), ("arch_id", 0x5064), ("features", "+zvl512b")])
def test_riscv_target_changes_key(monkeypatch, field, value):
    # The same target name with another VLEN, arch id or feature string: only the backend's part
    # of the key can tell them apart.
    before = cache_key("spacemit-x60")
    x60 = targets._BY_NAME["spacemit-x60"]
    monkeypatch.setitem(targets._BY_NAME, "spacemit-x60", dataclasses.replace(x60, **{field: value}))
    assert cache_key("spacemit-x60") != before


@pytest.mark.parametrize("permitted", [True, False])
def test_amx_permission_changes_key(monkeypatch, permitted):
    """An AMX host's key tells a process that Linux granted the tile registers from one it
    refused, which gets kernels without tile instructions (a tile kernel from a shared cache would
    raise SIGILL there)."""
    amx = ",".join(f"+{f}" for f in ("amx-tile", "amx-bf16", "amx-int8"))
    host = dataclasses.replace(targets.host(), triple="x86_64-unknown-linux-gnu", features=amx)
    monkeypatch.setattr(targets, "host", lambda: host)
    monkeypatch.setattr(targets, "amx_tiles_permitted", lambda: permitted)
    before = cache_key("native")
    monkeypatch.setattr(targets, "amx_tiles_permitted", lambda: not permitted)
    assert cache_key("native") != before


def test_arch_ids_with_the_same_cpu_have_different_keys():
    # The A60 is an X60 to LLVM (same triple, CPU and features): its kernels are still its own.
    a60, x60 = targets.from_arch_id(0xA03C), targets.from_arch_id(0x503C)
    assert (a60.triple, a60.cpu, a60.features, a60.vlen) == (x60.triple, x60.cpu, x60.features, x60.vlen)
    assert cache_key(a60.name) != cache_key(x60.name)


def test_set_current_arch_id_changes_key():
    cpu_driver = driver.CPUDriver()
    native = cache_key(cpu_driver.get_current_target().arch)
    cpu_driver.set_current_arch_id("0xA03C")
    assert cache_key(cpu_driver.get_current_target().arch) != native


# --- options --------------------------------------------------------------------------------------

# A value other than the default for every option. A new option fails
# test_every_option_changes_key until it is listed here.
OTHER_OPTION_VALUES = {
    "num_warps": 8,
    "num_ctas": 2,
    "num_stages": 3,
    "warp_size": 32,
    "waves_per_eu": 2,
    "matrix_instr_nonkdim": 16,
    "kpack": 2,
    "maxnreg": 128,
    "launch_pdl": True,
    "num_threads": 2,
    "arch": "spacemit-x60",
    "vec_method": "none",
    "streaming_store_bytes": 0,
    "debug": True,
    "sanitize_overflow": False,
    "enable_fp_fusion": False,
    "opt_level": 1,
    "launch_cooperative_grid": True,
    "extern_libs": (("libdevice", "/tmp/libdevice.bc"),),
    "supported_fp8_dtypes": ("fp8e5",),
    "deprecated_fp8_dot_operand_dtypes": ("fp8e5",),
    "default_dot_input_precision": "tf32",
    "allowed_dot_input_precisions": ("ieee",),
    "max_num_imprecise_acc_default": 1,
    "backend_name": "cpu2",
    "instrumentation_mode": "fpsan",
    "fpsan_homomorphic_casts": True,
}


def test_every_option_has_another_value():
    assert set(OTHER_OPTION_VALUES) == {f.name for f in dataclasses.fields(compiler.CPUOptions)}


@pytest.mark.parametrize("name", sorted(OTHER_OPTION_VALUES))
def test_every_option_changes_key(name):
    default = compiler.CPUOptions()
    changed = dataclasses.replace(default, **{name: OTHER_OPTION_VALUES[name]})
    assert changed.hash() != default.hash()


@pytest.mark.parametrize(
    "options",
    [
        {"debug": True},
        {"opt_level": 2},
        {"vec_method": "none"},
        {"enable_fp_fusion": False},
        {"streaming_store_bytes": 0},
    ],
)
def test_launch_options_change_key(options):
    # Options given at launch (kernel[grid](..., debug=True)) reach the key through parse_options.
    assert cache_key(options=options) != cache_key()


# --- environment knobs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "var, before, after",
    [
        ("SPINE_TRITON_VEC_METHOD", None, "none"),
        ("SPINE_TRITON_STREAMING_STORE_BYTES", None, "0"),
        ("SPINE_TRITON_TARGET", None, "0x503C"),
        ("SPINE_TRITON_DUMP_PATH", None, "/tmp/spine-triton-dumps"),
        ("TRITON_DEFAULT_FP_FUSION", "1", "0"),
        ("TRITON_DISABLE_LINE_INFO", None, "1"),
    ],
)
def test_code_changing_env_var_changes_key(monkeypatch, var, before, after):
    # (TRITON_DEBUG is read once at import and becomes the debug option of every launch:
    # test_debug_build.py compiles with it in a process of its own.)
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    if before is None:
        monkeypatch.delenv(var, raising=False)
    else:
        monkeypatch.setenv(var, before)
    key = cache_key()
    monkeypatch.setenv(var, after)
    assert cache_key() != key


@pytest.mark.parametrize(
    "var, value",
    [("SPINE_TRITON_NUM_THREADS", "1"), ("SPINE_TRITON_QEMU_FLAGS", "-strace"), ("OMP_NUM_THREADS", "1")],
)
def test_launch_only_env_var_keeps_key(monkeypatch, var, value):
    # Read when a kernel is launched, not compiled: changing them must not throw the cache away.
    monkeypatch.delenv(var, raising=False)
    before = cache_key()
    monkeypatch.setenv(var, value)
    assert cache_key() == before


# --- separate processes ---------------------------------------------------------------------------


def test_changed_knob_recompiles_and_unchanged_one_reuses(tmp_path):
    cache_dir = tmp_path / "cache"
    compiled = {
        "cache_hits": [False],
        "stages_run": ["ttir", "linalg", "llmlir", "llir", "asm", "so"],
        "correct": True,
    }
    reused = {"cache_hits": [True], "stages_run": [], "correct": True}
    assert run_child(cache_dir, tmp_path) == compiled
    # A knob that changes the code compiles again, into an entry of its own...
    assert run_child(cache_dir, tmp_path, {"SPINE_TRITON_VEC_METHOD": "none"}) == compiled
    # ...one that only changes how it is launched does not...
    assert run_child(cache_dir, tmp_path, {"SPINE_TRITON_NUM_THREADS": "1"}) == reused
    # ...and the changed knob's entry is there for the next process.
    assert run_child(cache_dir, tmp_path, {"SPINE_TRITON_VEC_METHOD": "none"}) == reused


# Waits for the start signal, then compiles and runs the shared kernel and a kernel of its own
# (another constexpr: another cache entry), and prints whether both results are right.
CONCURRENT_CHILD = textwrap.dedent("""
    import json, os, sys, time
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def shared_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)

    @triton.jit
    def own_kernel(x_ptr, out_ptr, n, SCALE: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)

    index, go = int(sys.argv[1]), sys.argv[2]
    x = torch.rand(3000)
    while not os.path.exists(go):
        time.sleep(0.005)
    shared = torch.empty_like(x)
    shared_kernel[(triton.cdiv(3000, 256),)](x, shared, 3000, BLOCK=256)
    own = torch.empty_like(x)
    own_kernel[(triton.cdiv(3000, 256),)](x, own, 3000, SCALE=index + 1, BLOCK=256)
    print(json.dumps({"shared": torch.equal(shared, x + 1.0),
                      "own": torch.equal(own, x * (index + 1))}))
""")


def test_concurrent_compiles_leave_complete_entries(tmp_path):
    cache_dir = tmp_path / "cache"
    script = tmp_path / "concurrent_child.py"
    script.write_text(CONCURRENT_CHILD)
    go = tmp_path / "go"
    env = dict(os.environ, TRITON_CACHE_DIR=str(cache_dir))
    children = [
        subprocess.Popen(
            [sys.executable, str(script), str(i), str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    # All of them import torch and triton first; then they compile at the same moment.
    go.touch()
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        assert json.loads(out.strip().splitlines()[-1]) == {"shared": True, "own": True}

    entries = [d for d in cache_dir.iterdir() if d.is_dir()]
    # Nothing half-written is left behind: no temporary directories or files.
    leftovers = [p for p in cache_dir.rglob("*") if "tmp" in p.name.split(".")]
    assert leftovers == []
    groups = list(cache_dir.rglob("__grp__*.json"))
    # One group per compiled kernel: the shared one and the eight of their own.
    assert len(groups) == 9
    libraries = 0
    for group in groups:
        children_paths = json.loads(group.read_text())["child_paths"]
        assert children_paths, group
        for name, path in children_paths.items():
            assert os.path.getsize(path) > 0, (group, name)
            if name.endswith(".json"):
                metadata = json.loads(Path(path).read_text())
                assert metadata["name"] in ("shared_kernel", "own_kernel")
            if name.endswith(".so"):
                ctypes.CDLL(path, mode=os.RTLD_LOCAL)
                libraries += 1
    assert libraries == 9
    # Every library the launches loaded (content-addressed entries of their own) loads too.
    for so in cache_dir.rglob("*.so"):
        library = ctypes.CDLL(str(so), mode=os.RTLD_LOCAL)
        assert hasattr(library, so.stem + compiler.ENTRY_SUFFIX)
    assert len(entries) >= 9
