"""Code generation targets: the host, and SpacemiT RISC-V cores by arch id.

A target's ``name`` is the ``arch`` of the ``GPUTarget("cpu", name, 1)`` that the driver reports,
so it is what Triton keys its caches on; the backend resolves it back to an LLVM triple, CPU and
feature string with :func:`resolve`.

SpacemiT arch ids are ``series << 8 | model``. LLVM 22 knows only the X60 (``spacemit-x60``:
RVA22 + V + Zvfh + XSMTVDot, VLEN 256); the others get a generic RV64 CPU and a feature string of
their own. Their VLEN is an assumption: X100 is documented as RVA22 + RVV 1.0 with VLEN 256; for
the others no public figure exists, so they assume 256 too. ``+zvl<N>b`` only promises a *minimum*
VLEN, so code built this way is correct on any core with a VLEN of at least N.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import platform
import shutil
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    name: str
    triple: str
    cpu: str
    features: str
    # The minimum vector length (bits) code may assume; 0 when the CPU name implies it.
    vlen: int = 0
    arch_id: int | None = None
    # Runs on this host under qemu-user (spine_triton.emulation): compiled without what qemu 7.2
    # cannot run (QEMU_MISSING_FEATURES, static-rounding vector conversions), for boards as well.
    emulated: bool = False
    # The last-level cache in bytes (the host's; 0: unknown), which sizes streaming stores.
    llc_bytes: int = 0

    @property
    def machine(self) -> str:
        """The ISA part of the triple (``x86_64``, ``riscv64``)."""
        return self.triple.split("-", 1)[0]


NATIVE = "native"
_RISCV_TRIPLE = "riscv64-unknown-linux-gnu"
_RVA22_V = "+rva22u64,+v,+zvl256b"
_RVA23 = "+rva23u64,+zvl256b"

SPACEMIT_TARGETS = {
    t.arch_id: t
    for t in (
        Target("spacemit-x60", _RISCV_TRIPLE, "spacemit-x60", "", 256, 0x503C),
        Target("spacemit-x100", _RISCV_TRIPLE, "generic-rv64", _RVA22_V, 256, 0x5064),
        Target("spacemit-x200", _RISCV_TRIPLE, "generic-rv64", _RVA23, 256, 0x50C8),
        # The A cores are the X cores plus SpacemiT's matrix extension, which LLVM does not model.
        Target("spacemit-a60", _RISCV_TRIPLE, "spacemit-x60", "", 256, 0xA03C),
        Target("spacemit-a100", _RISCV_TRIPLE, "generic-rv64", _RVA22_V, 256, 0xA064),
        Target("spacemit-a200", _RISCV_TRIPLE, "generic-rv64", _RVA23, 256, 0xA0C8),
        Target("spacemit-a200m", _RISCV_TRIPLE, "generic-rv64", _RVA23, 256, 0xF000),
    )
}
_BY_NAME = {t.name: t for t in SPACEMIT_TARGETS.values()}


def known_arch_ids() -> str:
    return ", ".join(f"0x{i:04X} ({t.name})" for i, t in SPACEMIT_TARGETS.items())


def from_arch_id(arch_id: int | str) -> Target:
    """The target of a SpacemiT arch id given as an int or a string such as ``"0xA03C"``."""
    try:
        value = arch_id if isinstance(arch_id, int) else int(str(arch_id), 16)
    except ValueError:
        value = None
    if value not in SPACEMIT_TARGETS:
        raise ValueError(f"unknown SpacemiT arch id {arch_id!r}; known ids: {known_arch_ids()}")
    return SPACEMIT_TARGETS[value]


TARGET_ENV = "SPINE_TRITON_TARGET"
# What SPINE_TRITON_TARGET=riscv64 selects: the X60, the core of the K1 boards.
DEFAULT_RISCV_ARCH_ID = 0x503C


def default_name() -> str:
    """The target the driver starts with: ``SPINE_TRITON_TARGET`` (``native``, ``riscv64``, a
    target name such as ``spacemit-x60`` or a SpacemiT arch id such as ``0x503C``), else native."""
    value = os.environ.get(TARGET_ENV, "").strip()
    if value in ("", NATIVE):
        return NATIVE
    if value == "riscv64":
        return SPACEMIT_TARGETS[DEFAULT_RISCV_ARCH_ID].name
    if value in _BY_NAME:
        return value
    try:
        return from_arch_id(value).name
    except ValueError:
        raise ValueError(
            f"{TARGET_ENV}={value!r}: expected {NATIVE!r}, 'riscv64', a target name "
            f"({', '.join(_BY_NAME)}) or an arch id ({known_arch_ids()})"
        ) from None


def _last_level_cache_bytes(cache_dir: str = "/sys/devices/system/cpu/cpu0/cache") -> int:
    """The size of the highest-level data or unified cache of CPU 0 (Linux sysfs), 0 if unknown."""
    best_level, best_size = 0, 0
    try:
        entries = sorted(os.listdir(cache_dir))
    except OSError:
        return 0
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    for entry in entries:
        path = os.path.join(cache_dir, entry)
        try:
            with open(os.path.join(path, "level")) as f:
                level = int(f.read())
            with open(os.path.join(path, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(path, "size")) as f:
                size = f.read().strip()
        except (OSError, ValueError):
            continue
        if kind == "Instruction" or not size:
            continue
        try:
            value = int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
        except ValueError:
            continue
        if level > best_level:
            best_level, best_size = level, value
    return best_size


@functools.cache
def host() -> Target:
    from . import _C

    return Target(
        NATIVE,
        _C.host_triple(),
        _C.host_cpu(),
        _C.host_features(),
        llc_bytes=_last_level_cache_bytes(),
    )


# Extensions of these cores that LLVM emits on its own but qemu 7.2 (Debian 12's qemu-user) does
# not implement. Off a riscv64 host kernels for these cores run under that qemu, so they are
# compiled without them: the code runs there and on the boards alike.
QEMU_MISSING_FEATURES = "-zicond,-zfa,-zcb,-zcmop,-zimop,-zvbb,-zvkb"


def resolve(name: str) -> Target:
    """The target a ``GPUTarget.arch`` string names. An empty one is the host's: torch.compile's
    Triton CPU path (inductor's ``cpu_backend="triton"``) passes the CPU's compute capability,
    which is ``""``."""
    if name in (NATIVE, ""):
        return host()
    if name in _BY_NAME:
        target = _BY_NAME[name]
        if runs_natively(target):
            return target
        features = ",".join(f for f in (target.features, QEMU_MISSING_FEATURES) if f)
        return dataclasses.replace(target, features=features, emulated=True)
    raise ValueError(
        f"unknown spine-triton target {name!r}; expected {NATIVE!r} or one of {', '.join(_BY_NAME)}"
    )


def vector_registers(target: Target) -> tuple[int, int]:
    """(bits per vector register, number of vector registers) the code generator blocks for."""
    if target.machine.startswith("riscv"):
        return (target.vlen or 128), 32
    features = target.features.split(",")
    if "+avx512f" in features:
        return 512, 32
    if "+avx" in features:
        return 256, 16
    return 128, 16


def has_bf16_dot_product(target: Target) -> bool:
    """Whether the target multiplies and adds pairs of bf16 into fp32 lanes in one instruction
    (x86 AVX512-BF16's vdpbf16ps), which tl.dot of bf16 tiles then uses."""
    return target.machine == "x86_64" and "+avx512bf16" in target.features.split(",")


def has_int16_pair_product(target: Target) -> bool:
    """Whether the target multiplies pairs of int16 and adds each pair's products into an int32
    lane in one instruction at the width the code generator blocks for (x86's vpmaddwd: SSE2,
    AVX2, AVX512BW), which tl.dot of int8 tiles then uses."""
    if target.machine != "x86_64":
        return False
    bits, _ = vector_registers(target)
    features = target.features.split(",")
    return {128: True, 256: "+avx2" in features, 512: "+avx512bw" in features}[bits]


# Linux's arch_prctl request for a dynamically enabled state component, and AMX's tile data.
_SYS_ARCH_PRCTL = 158  # x86-64
_ARCH_REQ_XCOMP_PERM = 0x1023
_XFEATURE_XTILEDATA = 18


@functools.cache  # the permission is the process's, for all its threads, once granted
def amx_tiles_permitted() -> bool:
    """Asks Linux to let this process use AMX's tile registers, which it grants only on request
    (without it the first tile instruction raises SIGILL). True when granted (or already)."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.syscall(_SYS_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA) == 0


def has_amx_tiles(target: Target) -> bool:
    """Whether tl.dot of bf16 and int8 tiles may use AMX's tile products (x86 AMX-BF16's tdpbf16ps
    and AMX-INT8's tdpbssd, which every AMX CPU so far has both of): the target has them and, as
    x86 targets are this host, the kernel asked Linux for them."""
    features = target.features.split(",")
    return (
        target.machine == "x86_64"
        and all(f in features for f in ("+amx-tile", "+amx-bf16", "+amx-int8"))
        and amx_tiles_permitted()
    )


@functools.cache  # LLVM builds a target machine to answer
def has_fp16_widening_fma(target: Target) -> bool:
    """Whether the target's vector FMA takes fp16 operands into fp32 lanes, widening them itself
    (RVV's vfwmacc.vf with Zvfh, which the SpacemiT X60 has), which tl.dot of fp16 tiles into
    fp32 then uses without converting copies. LLVM answers from the CPU's features."""
    if not target.machine.startswith("riscv"):
        return False
    from . import _C

    return _C.target_has_features(target.triple, target.cpu, target.features, "+zvfh")


def has_avx512_scalef(target: Target) -> bool:
    """Whether the target scales floats by powers of two in one instruction on 128-, 256- and
    512-bit vectors (x86 AVX512F and AVX512VL's vscalefps), which f32 exp and exp2 then use."""
    features = target.features.split(",")
    return target.machine == "x86_64" and "+avx512f" in features and "+avx512vl" in features


# The most of a last-level cache a launch's data can count on. Server parts share an L3 of
# hundreds of MiB among dozens of cores (the Emerald Rapids VM of session 35 reports 300 MiB to
# its 2 vCPUs); what one tenant's launch writes does not stay there, and plain stores to it ran
# slower than streaming ones: in turns in the suite, with this cap against without (the whole
# 300 MiB), layer norm 4096 x 4096 54.5% -> 68.0% of the STREAM triad, 4096 x 1024 51.6% ->
# 64.3%, vector add 2^22 60.9% -> 84.0%, softmax 4096 x 1024 52.4% -> 59.5% (docs/benchmarks.md).
# The hosts the threshold was first tuned on had L3s of 32-33 MiB, which it leaves as they were.
STREAMING_LLC_CAP_BYTES = 32 << 20


def streaming_store_bytes(target: Target, requested: int = -1) -> int:
    """How many bytes a loop's accesses over one launch must reach for its stores to stream past
    the caches (spine-vectorize-element-loops' streaming-store-bytes) on x86-64, whose movnt
    stores do this: `requested`, or for -1 the last-level cache's size up to
    STREAMING_LLC_CAP_BYTES (0, never, when unknown). 0 elsewhere: RISC-V has only hints for it
    (Zihintntl), whose effect on SpacemiT cores is unmeasured."""
    if target.machine != "x86_64":
        return 0
    if requested >= 0:
        return requested
    return min(target.llc_bytes, STREAMING_LLC_CAP_BYTES)


def runs_natively(target: Target) -> bool:
    return target.machine == platform.machine()


def link_command(target: Target, obj: str, out: str) -> list[str]:
    """The command that links one kernel object into a shared library for ``target``."""
    if runs_natively(target):
        if shutil.which("cc") is None:
            raise RuntimeError("no C compiler driver 'cc' on PATH to link kernels: install gcc")
        return ["cc", "-shared", "-o", out, obj, "-lm"]
    # A cross gcc links libm in; without one, lld leaves libm's symbols for the loader to bind.
    for tool in ("riscv64-linux-gnu-gcc", "ld.lld-22", "ld.lld"):
        if path := shutil.which(tool):
            return [path, "-shared", "-o", out, obj] + (["-lm"] if tool.endswith("gcc") else [])
    raise RuntimeError(f"no linker for {target.triple}: install gcc-riscv64-linux-gnu or lld-22")
