"""The Triton compiler backend: TTIR -> Linalg -> LLVM dialect -> LLVM IR -> assembly -> .so.

Every stage after TTIR runs in-process through ``spine_triton._C``; each stage's text lands in
the Triton cache entry (``CompiledKernel.asm``) next to the shared library. With
``SPINE_TRITON_DUMP_PATH=DIR`` every compilation also writes its stages to
``DIR/<kernel>-<hash>/`` (see docs/reading-the-dumps.md).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from triton import knobs
from triton._C.libtriton import ir, passes
from triton.backends.compiler import BaseBackend, GPUTarget, Language

from . import targets

# A core seen as a GPU's multiprocessor: one program at a time runs on it, with all of its
# on-chip memory. So a kernel's "shared memory" is the whole of what the device reports
# (`max_shared_mem`), and occupancy computed from the two, as tutorial 02 sizes its persistent
# grid, is one program per core.
CORE_MEMORY = 2**31 - 1

ENTRY_SUFFIX = "__spine_entry"
# The default of the vec_method option: "auto" or "none".
VEC_METHOD_ENV = "SPINE_TRITON_VEC_METHOD"
VEC_METHODS = ("auto", "vector", "none")
DUMP_PATH_ENV = "SPINE_TRITON_DUMP_PATH"
STREAMING_STORE_BYTES_ENV = "SPINE_TRITON_STREAMING_STORE_BYTES"


class KernelCompileError(RuntimeError):
    """A kernel that spine-triton cannot compile: names the op and the kernel's source line."""

    def __init__(self, kernel: str, stage: str, diagnostics: str):
        self.kernel = kernel
        self.stage = stage
        self.diagnostics = diagnostics
        self.file, self.line, self.op = _first_error(diagnostics)
        header = f"spine-triton cannot compile kernel '{kernel}' ({stage} stage)"
        if self.file:
            header += f" at {self.file}:{self.line}"
        if self.op:
            header += f", op '{self.op}'"
        super().__init__(f"{header}:\n{diagnostics}")


_ERROR_LINE = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.MULTILINE
)
# "'tt.foo' op ..." (Operation::emitOpError) or "... operation 'tt.foo' ..." (dialect conversion).
_OP_IN_MESSAGE = re.compile(r"'(?P<op>[a-z_]\w*\.[\w.]+)' op|operation '(?P<op2>[a-z_]\w*\.[\w.]+)'")
# TTIR through which one program can wait for another: atomics (a flag another program sets, a
# lock) and volatile loads (a spin on a plain store). Without any, the launcher may claim a
# thread's programs several at once (docs/kernel-abi.md, "The launcher").
_PROGRAMS_MAY_WAIT = re.compile(r"\btt\.atomic_\w+|isVolatile = true")
_TAKES_TILE_CACHE = re.compile(r"\{spine\.tile_cache\}")
_OP_IN_NOTE = re.compile(r"see current operation:\s*(?:%[^=\n]+= )?\"?([a-z_]\w*\.[\w.]+)")


def _first_error(diagnostics: str) -> tuple[str | None, int | None, str | None]:
    """The source file, line and op of the first error in MLIR diagnostics."""
    match = _ERROR_LINE.search(diagnostics)
    if match is None:
        return None, None, None
    op = None
    if named := _OP_IN_MESSAGE.search(match.group("msg")):
        op = named.group("op") or named.group("op2")
    elif noted := _OP_IN_NOTE.search(diagnostics):
        op = noted.group(1)
    return match.group("file"), int(match.group("line")), op


def _run(kernel: str, stage: str, fn, *args, **kwargs):
    """Calls a _C stage, turning its CompileError into a KernelCompileError."""
    from . import _C

    try:
        return fn(*args, **kwargs)
    except _C.CompileError as e:
        raise KernelCompileError(kernel, stage, str(e)) from None


def _build_files() -> list[Path]:
    """The files whose bytes make up the build id: the compiled module and this package's Python
    sources."""
    from . import _C

    return [Path(_C.__file__), *sorted(Path(__file__).parent.glob("*.py"))]


@functools.cache
def _build_id() -> str:
    """Hash of the compiled module and of this package's Python sources: any rebuild or edit of
    the backend invalidates cached kernels."""
    digest = hashlib.sha256()
    for path in _build_files():
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("spine-triton")
    except PackageNotFoundError:  # running from a source tree
        return "source"


@functools.cache
def _loaded_llvm_version() -> str:
    """The version of the libLLVM this process runs, which generates the code: a distribution
    update of the shared library changes it without rebuilding ``_C`` (whose
    ``llvm_version()`` is the version it was built against)."""
    import ctypes

    from . import _C  # noqa: F401 (loads libLLVM)

    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "/libLLVM" in line}
    for path in sorted(paths):
        try:
            get_version = ctypes.CDLL(path, mode=os.RTLD_LOCAL).LLVMGetVersion
        except (OSError, AttributeError):
            continue
        parts = [ctypes.c_uint() for _ in range(3)]
        get_version(*(ctypes.byref(p) for p in parts))
        return ".".join(str(p.value) for p in parts)
    return "unknown"  # a statically linked LLVM: the build id covers it


def backend_key(target: targets.Target, dump_path: str) -> str:
    """Everything about the compiler and the target that changes a kernel's code (the options
    and triton's own environment knobs are hashed by triton next to it)."""
    import triton

    from . import _C

    # The whole target: triple, CPU, features, arch id, VLEN, and whether it runs under qemu.
    target_key = ",".join(f"{f.name}={getattr(target, f.name)}" for f in dataclasses.fields(target))
    # Whether this process may use AMX's tile registers (Linux grants them per process, on
    # request): a process refused them must not load a tile kernel another compiled into a shared
    # cache, whose first tile instruction would raise SIGILL.
    amx = int(targets.has_amx_tiles(target))
    # The dump directory is in the key so that pointing it somewhere new recompiles (and so dumps)
    # kernels the cache already holds, instead of silently writing nothing.
    return (
        f"triton-{triton.__version__}-spine-{_package_version()}-{_build_id()}-"
        f"llvm-{_C.llvm_version()}-{_loaded_llvm_version()}-target-{target_key}-amx-{amx}-"
        f"dump-{dump_path}"
    )


@functools.cache
def _backend_hash(target: targets.Target, dump_path: str) -> str:
    return hashlib.sha256(backend_key(target, dump_path).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CPUOptions:
    # GPU launch shapes: accepted so GPU kernels and autotune configs run unchanged. A program
    # is one CPU task, so they do not change the generated code.
    num_warps: int = 4
    num_ctas: int = 1
    num_stages: int = 1
    warp_size: int = 1
    # GPU tuning knobs of triton.Config in AMD's and NVIDIA's configs (tutorial 03 picks AMD's
    # on any backend but CUDA): accepted, no effect on CPU code.
    waves_per_eu: int = 0
    matrix_instr_nonkdim: int = 0
    kpack: int = 1
    maxnreg: int | None = None
    launch_pdl: bool = False
    # OpenMP threads for the grid; 0: SPINE_TRITON_NUM_THREADS, else the OpenMP default.
    num_threads: int = 0
    # A target name from spine_triton.targets ("native", "spacemit-x60", ...).
    arch: str | None = None
    # "auto": tl.dot becomes the register-blocked vector micro-kernel where its shape allows, or
    # AMX tile products for bf16 and int8 on x86 hosts with AMX; "vector": the vector micro-kernel
    # even there; "none": it stays scalar loops (which LLVM may still auto-vectorize), to measure
    # the difference.
    # Unset: SPINE_TRITON_VEC_METHOD, else "auto".
    vec_method: str = "auto"
    # x86-64: a loop whose loads and stores over one launch reach this many bytes stores past the
    # caches (non-temporal stores); 0: never; -1: the last-level cache's size, at most 32 MiB (what
    # it cannot hold would be evicted before it is read again; targets.STREAMING_LLC_CAP_BYTES).
    # Unset: SPINE_TRITON_STREAMING_STORE_BYTES, else -1.
    streaming_store_bytes: int = -1
    # debug=True (a launch option, @triton.jit(debug=True) or TRITON_DEBUG=1): device asserts and
    # overflow checks, frame pointers, and, unless opt_level is given, -O0 code, which gdb steps
    # through by the kernel's source lines (the DWARF line table; optimized builds have one too).
    debug: bool = False
    sanitize_overflow: bool = True
    enable_fp_fusion: bool = True
    # LLVM's optimization level; unset: 3, or 0 with debug.
    opt_level: int = 3
    launch_cooperative_grid: bool = False
    extern_libs: tuple | None = None
    supported_fp8_dtypes: tuple[str, ...] = ("fp8e5", "fp8e4nv", "fp8e4b8", "fp8e5b16")
    deprecated_fp8_dot_operand_dtypes: tuple[str, ...] = ()
    # fp32 dots are exact fp32 on a CPU; the GPU precisions are accepted so kernels compile.
    default_dot_input_precision: str = "ieee"
    allowed_dot_input_precisions: tuple[str, ...] = ("ieee", "tf32", "tf32x3", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: int = 0
    backend_name: str = "cpu"
    instrumentation_mode: str = ""
    fpsan_homomorphic_casts: bool = False

    def __post_init__(self):
        if self.num_threads < 0:
            raise ValueError(f"num_threads must be >= 0, got {self.num_threads}")
        if self.opt_level not in (0, 1, 2, 3):
            raise ValueError(f"opt_level must be 0..3, got {self.opt_level}")
        if self.streaming_store_bytes < -1:
            raise ValueError(
                f"streaming_store_bytes ({STREAMING_STORE_BYTES_ENV}) must be >= -1, "
                f"got {self.streaming_store_bytes}"
            )
        if self.vec_method not in VEC_METHODS:
            raise ValueError(
                f"vec_method ({VEC_METHOD_ENV}) must be one of {VEC_METHODS}, got {self.vec_method!r}"
            )

    def hash(self):
        key = "_".join(f"{name}-{val}" for name, val in sorted(self.__dict__.items()))
        return hashlib.sha256(key.encode("utf-8")).hexdigest()


def llvm_objdump() -> str:
    """The pinned LLVM's objdump: Debian's binutils print RVV instructions as ``.4byte``."""
    for tool in ("llvm-objdump-22", "/usr/lib/llvm-22/bin/llvm-objdump"):
        if path := shutil.which(tool):
            return path
    raise RuntimeError("llvm-objdump-22 not found: install llvm-22 (apt-get install llvm-22)")


def disassemble(path: Path, target: targets.Target, *flags: str) -> str:
    """``llvm-objdump -d`` of an object or library built for ``target``."""
    mattr = ["--mattr=+v"] if target.machine.startswith("riscv") else []
    result = subprocess.run(
        [llvm_objdump(), "-d", *mattr, *flags, str(path)], check=False, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise RuntimeError(f"spine-triton: llvm-objdump failed: {result.stderr}")
    return result.stdout


def _write_atomically(path: Path, data: str | bytes):
    # Processes compiling the same kernel at once write the same files: never expose a torn one.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if isinstance(data, bytes):
        tmp.write_bytes(data)
    else:
        tmp.write_text(data)
    os.replace(tmp, path)


def min_dot_size(lhs_type, rhs_type):
    return (1, 1, 1)


class CPUBackend(BaseBackend):
    binary_ext = "so"

    @staticmethod
    def supports_target(target: GPUTarget):
        return target.backend == "cpu"

    def __init__(self, target: GPUTarget) -> None:
        super().__init__(target)
        self.cpu_target = targets.resolve(target.arch)

    def hash(self):
        dump_path = os.environ.get(DUMP_PATH_ENV)
        return _backend_hash(self.cpu_target, os.path.abspath(dump_path) if dump_path else "")

    def parse_options(self, opts) -> Any:
        args = {"arch": self.target.arch}
        args.update(
            {k: opts[k] for k in CPUOptions.__dataclass_fields__ if k in opts and opts[k] is not None}
        )
        if args["arch"] != self.target.arch:
            raise ValueError(
                f"arch option {args['arch']!r} does not match the driver's target "
                f"{self.target.arch!r}; use CPUDriver.set_current_arch_id instead"
            )
        args["enable_fp_fusion"] = knobs.language.fp_fusion_enabled(args.get("enable_fp_fusion"))
        if args.get("debug"):
            args.setdefault("opt_level", 0)
        args.setdefault("vec_method", os.environ.get(VEC_METHOD_ENV, "auto"))
        if "streaming_store_bytes" not in args:
            value = os.environ.get(STREAMING_STORE_BYTES_ENV, "-1")
            try:
                args["streaming_store_bytes"] = int(value)
            except ValueError:
                raise ValueError(f"{STREAMING_STORE_BYTES_ENV}={value!r}: expected an integer") from None
        if "extern_libs" in args:
            args["extern_libs"] = tuple(dict(args["extern_libs"]).items())
        return CPUOptions(**args)

    def pack_metadata(self, metadata):
        return ()

    def get_codegen_implementation(self, options):
        return {"min_dot_size": min_dot_size}

    def get_module_map(self) -> dict[str, ModuleType]:
        # tl.extra.libdevice resolves to CUDA's libdevice symbols; the Linalg conversion maps each to
        # the math/arith op of the same meaning.
        from triton.language.extra.cuda import libdevice

        return {"triton.language.extra.libdevice": libdevice}

    def load_dialects(self, ctx):
        pass

    @staticmethod
    def make_ttir(mod, metadata, options):
        # nvidia's make_ttir minus the tensor-descriptor rewrite: the Linalg conversion lowers
        # descriptors to structured accesses directly.
        pm = ir.pass_manager(mod.context)
        pm.enable_debug()
        passes.common.add_inliner(pm)
        passes.common.add_canonicalizer(pm)
        passes.ttir.add_combine(pm)
        passes.ttir.add_reorder_broadcast(pm)
        passes.common.add_cse(pm)
        passes.common.add_symbol_dce(pm)
        passes.ttir.add_loop_unroll(pm)
        pm.run(mod, "make_ttir")
        return mod

    @staticmethod
    def make_linalg(mod, metadata, options):
        from . import _C

        # Set here rather than in make_ttir, which a .ttir IRSource skips.
        name = mod.get_entry_func_name()
        metadata["name"] = name
        metadata["entry_name"] = name + ENTRY_SUFFIX
        metadata["shared"] = CORE_MEMORY
        ttir = str(mod)
        metadata["independent_programs"] = _PROGRAMS_MAY_WAIT.search(ttir) is None
        linalg = _run(name, "linalg", _C.run_pipeline, ttir, "builtin.module(triton-to-linalg-experimental)")
        # spine-tile-cache-argument gave the kernel a last argument for the launch's tile cache.
        metadata["tile_cache"] = _TAKES_TILE_CACHE.search(linalg) is not None
        return linalg

    def make_llmlir(self, src, metadata, options):
        from . import _C

        bits, registers = targets.vector_registers(self.cpu_target)
        if options.vec_method == "none":
            bits = 0  # no vector fits: spine-vectorize-matmul leaves every matmul alone
        streaming = targets.streaming_store_bytes(self.cpu_target, options.streaming_store_bytes)
        bf16_dot = int(bits > 0 and targets.has_bf16_dot_product(self.cpu_target))
        int16_pairs = int(bits > 0 and targets.has_int16_pair_product(self.cpu_target))
        fp16_fma = int(bits > 0 and targets.has_fp16_widening_fma(self.cpu_target))
        amx = int(bits > 0 and options.vec_method == "auto" and targets.has_amx_tiles(self.cpu_target))
        scalef = int(targets.has_avx512_scalef(self.cpu_target))
        # x86 shuffles what RVV has instructions for (strided loads, vfredmax), its vmaxps is a
        # compare and select where RVV's vfmax is IEEE maxNum, and its element loops take strips
        # of a cache line (measured there; RVV keeps one register group). A loop that stores a
        # deferred row prefetches the next in its first half only where that measured faster
        # (AVX-512, whose exponentials are quick; spread over all of it on AVX2).
        x86 = int(self.cpu_target.machine == "x86_64")
        pipeline = (
            "builtin.module(spine-triton-pipeline{"
            f"vector-bits={bits} vector-registers={registers} streaming-store-bytes={streaming} "
            f"bf16-dot-product={bf16_dot} int16-pair-product={int16_pairs} fp16-widening-fma={fp16_fma} "
            f"amx-tiles={amx} "
            f"shuffle-transposes={x86} shuffle-reductions={x86} "
            f"select-min-max={x86} line-strips={x86} avx512-scalef={scalef} "
            f"front-load-deferred={scalef}"
            "})"
        )
        return _run(metadata["name"], "llmlir", _C.run_pipeline, src, pipeline)

    def make_llir(self, src, metadata, options):
        from . import _C

        t = self.cpu_target
        llir = _run(
            metadata["name"],
            "llir",
            _C.translate_to_llvmir,
            src,
            line_info=not knobs.compilation.disable_line_info,
        )
        return _run(
            metadata["name"],
            "llir",
            _C.optimize_llvmir,
            llir,
            t.triple,
            t.cpu,
            t.features,
            opt_level=options.opt_level,
            debug=options.debug,
            dynamic_rounding_conversions=t.emulated,
        )

    def _codegen(self, llir, metadata, options, emit):
        from . import _C

        t = self.cpu_target
        # The IR is already optimized by make_llir: only code generation runs here.
        return _run(
            metadata["name"],
            emit,
            _C.compile_llvmir,
            llir,
            t.triple,
            t.cpu,
            t.features,
            opt_level=options.opt_level,
            emit=emit,
            debug=options.debug,
            optimize=False,
            fp_fusion=options.enable_fp_fusion,
        )

    def make_asm(self, src, metadata, options, state):
        state["llir"] = src
        return self._codegen(src, metadata, options, "asm").decode()

    def make_obj(self, llir, metadata, options) -> bytes:
        """The object file of optimized LLVM IR (the ``llir`` stage), as the library links it."""
        return self._codegen(llir, metadata, options, "obj")

    def make_so(self, src, metadata, options, state):
        # The library is built from the same LLVM IR as the assembly, with LLVM's own object
        # emission: no external assembler has to understand every target extension.
        obj = state["obj"] = self.make_obj(state["llir"], metadata, options)
        with tempfile.TemporaryDirectory() as tmp:
            obj_path = os.path.join(tmp, "kernel.o")
            so_path = os.path.join(tmp, "kernel.so")
            Path(obj_path).write_bytes(obj)
            cmd = targets.link_command(self.cpu_target, obj_path, so_path)
            result = subprocess.run(cmd, check=False, capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError(
                    f"spine-triton: linking kernel '{metadata['name']}' failed: "
                    f"{' '.join(cmd)}\n{result.stderr}"
                )
            return Path(so_path).read_bytes()

    def add_stages(self, stages, options, language):
        if language != Language.TRITON:
            raise NotImplementedError("spine-triton compiles Triton kernels; Gluon targets GPUs only")
        state = {}  # carries the LLVM IR from the asm stage to the so stage of one compilation
        stages["ttir"] = lambda src, metadata: self.make_ttir(src, metadata, options)
        stages["linalg"] = lambda src, metadata: self.make_linalg(src, metadata, options)
        stages["llmlir"] = lambda src, metadata: self.make_llmlir(src, metadata, options)
        stages["llir"] = lambda src, metadata: self.make_llir(src, metadata, options)
        stages["asm"] = lambda src, metadata: self.make_asm(src, metadata, options, state)
        stages["so"] = lambda src, metadata: self.make_so(src, metadata, options, state)
        if dump_path := os.environ.get(DUMP_PATH_ENV):
            for ext, stage in stages.items():
                stages[ext] = self._dumping(stage, ext, Path(dump_path), state)
        if knobs.runtime.add_stages_inspection_hook is not None:
            knobs.runtime.add_stages_inspection_hook(self, stages, options, language, None)

    def _dumping(self, stage, ext, dump_path: Path, state):
        """Wraps a stage to write its output to the dump directory as soon as it exists, so a
        later stage's failure still leaves the earlier ones to read."""

        def run(src, metadata):
            out = stage(src, metadata)
            # metadata["name"] is set by the linalg stage; the ttir stage's output is the module.
            name = metadata.get("name") or out.get_entry_func_name()
            folder = dump_path / f"{name}-{metadata['hash'][:10]}"
            folder.mkdir(parents=True, exist_ok=True)
            _write_atomically(folder / f"{name}.{ext}", out if isinstance(out, bytes) else str(out))
            if ext == "so":
                _write_atomically(folder / f"{name}.o", state["obj"])
                if self.cpu_target.machine.startswith("riscv"):
                    text = disassemble(folder / f"{name}.o", self.cpu_target)
                    _write_atomically(folder / f"{name}.disasm", text)
            return out

        return run
