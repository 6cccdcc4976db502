"""What the suite measures: kernels, sizes per mode, the work each case does, and its roof.

Plain Python (no torch, no triton) so the parent process, which only orchestrates workers and
writes the report, never imports the compiler it is measuring.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

MODES = ("full", "quick", "smoke")
PROVIDERS = ("spine-triton", "torch", "inductor", "numpy", "stream-triad")
# The STREAM triad (bench/stream_triad.c) timed in turns with a memory-bound kernel's providers:
# the machine's bandwidth at the moments the kernels ran. Its work is its own (3 arrays of
# machine.stream_elements doubles), not the case's.
TRIAD = "stream-triad"


@dataclass(frozen=True)
class Kernel:
    name: str
    unit: str  # "GFLOP/s", "GB/s" or "us/launch"
    roof: str | None  # "fma" (compute bound), "stream" (memory bound) or None
    providers: tuple[str, ...]
    sizes: dict[str, list[tuple[int, ...]]]
    dtypes: tuple[str, ...] = ("fp32",)


def _squares(*ns):
    return [(n, n, n) for n in ns]


# spine-triton first: when its first call crashes the worker, no other provider's work is lost.
_ALL = ("spine-triton", "torch", "numpy", "inductor")
_MEMORY_BOUND = (*_ALL, TRIAD)

KERNELS = {
    k.name: k
    for k in (
        Kernel(
            "matmul",
            "GFLOP/s",
            "fma",
            _ALL,
            {
                "full": _squares(128, 256, 512, 1024, 2048, 4096),
                "quick": _squares(128, 256, 512, 1024),
                "smoke": _squares(64),
            },
            dtypes=("fp32", "fp16", "bf16"),
        ),
        Kernel(
            "fused-mm-softmax",
            "GFLOP/s",
            "fma",
            _ALL,
            {
                "full": _squares(128, 256, 512, 1024),
                "quick": _squares(128, 256, 512),
                "smoke": [(64, 48, 40)],
            },
        ),
        # MXFP4 A @ B with tl.dot_scaled (tutorial 10's format), against torch dequantizing the
        # same bytes and multiplying in fp32 (a CPU has no scaled matmul).
        Kernel(
            "mx-matmul",
            "GFLOP/s",
            "fma",
            ("spine-triton", "torch", "inductor"),
            {
                "full": _squares(256, 1024, 2048),
                "quick": _squares(256, 1024),
                "smoke": _squares(128),
            },
            dtypes=("mxfp4",),
        ),
        # FlashAttention-2 forward (tutorial 06), Z x H x N x D, no causal mask.
        Kernel(
            "attention",
            "GFLOP/s",
            "fma",
            ("spine-triton", "torch", "inductor"),
            {
                "full": [(1, 8, n, 64) for n in (512, 1024, 2048)] + [(1, 8, 1024, 128)],
                "quick": [(1, 8, n, 64) for n in (512, 1024)],
                "smoke": [(1, 2, 64, 32)],
            },
            dtypes=("fp32", "bf16"),
        ),
        Kernel(
            "softmax",
            "GB/s",
            "stream",
            _MEMORY_BOUND,
            {
                "full": [(4096, n) for n in (256, 1024, 4096, 8192)],
                "quick": [(4096, n) for n in (256, 1024, 4096)],
                "smoke": [(16, 100)],
            },
        ),
        Kernel(
            "layer-norm",
            "GB/s",
            "stream",
            _MEMORY_BOUND,
            {
                "full": [(4096, n) for n in (512, 1024, 4096, 8192)],
                "quick": [(4096, n) for n in (512, 1024, 4096)],
                "smoke": [(16, 100)],
            },
        ),
        Kernel(
            "vector-add",
            "GB/s",
            "stream",
            _MEMORY_BOUND,
            {
                "full": [(2**p,) for p in (16, 20, 22, 25)],
                "quick": [(2**p,) for p in (16, 20, 24)],
                "smoke": [(1000,)],
            },
        ),
        # One program on 16 elements: what a launch of a cached kernel costs.
        Kernel("launch", "us/launch", None, ("spine-triton", "torch"), {mode: [(16,)] for mode in MODES}),
    )
}

# fp32 matmul on one thread, set against the same size on all threads from the sweep.
SCALING_SIZE = {"full": 1024, "quick": 512, "smoke": 64}
SCALING_PROVIDERS = ("spine-triton", "torch")

# Kernels whose cold and cached compile times are measured, each in fresh processes.
COMPILE_PROBES = ("vector-add", "softmax", "layer-norm", "matmul", "fused-mm-softmax", "attention")


@dataclass(frozen=True)
class Case:
    kernel: str
    dtype: str
    shape: tuple[int, ...]
    threads: int = 0  # 0: all cores (the default of every provider)

    @property
    def spec(self) -> Kernel:
        return KERNELS[self.kernel]

    @property
    def series(self) -> tuple[str, str, int]:
        """Cases that differ only in size: a slow smaller size predicts a slower larger one."""
        return self.kernel, self.dtype, self.threads

    @property
    def label(self) -> str:
        if self.kernel in ("matmul", "mx-matmul") and len(set(self.shape)) == 1:
            return str(self.shape[0])
        if self.kernel == "fused-mm-softmax":
            return "{}x{}x{}".format(*self.shape)
        return "x".join(map(str, self.shape))

    @property
    def work(self) -> float:
        """FLOPs (compute-bound kernels) or bytes moved (memory-bound ones) per call."""
        if self.kernel in ("matmul", "fused-mm-softmax", "mx-matmul"):
            m, n, k = self.shape
            return 2.0 * m * n * k  # the softmax's O(MN) is noise next to 2MNK
        if self.kernel == "attention":
            z, h, n, d = self.shape
            return 4.0 * z * h * n * n * d  # Q K^T and P V
        if self.kernel == "vector-add":
            return 3.0 * 4 * self.shape[0]
        if self.kernel in ("softmax", "layer-norm"):
            return 2.0 * 4 * math.prod(self.shape)  # read x once, write y once, as the tutorials count
        return 1.0

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(data: dict) -> Case:
        return Case(data["kernel"], data["dtype"], tuple(data["shape"]), data.get("threads", 0))


def sweep(mode: str) -> list[Case]:
    """Every case of a run, smallest size first within a series."""
    cases = [
        Case(k.name, dtype, shape) for k in KERNELS.values() for dtype in k.dtypes for shape in k.sizes[mode]
    ]
    n = SCALING_SIZE[mode]
    cases.append(Case("matmul", "fp32", (n, n, n), threads=1))
    return cases


def providers(case: Case) -> tuple[str, ...]:
    if case.threads:
        return SCALING_PROVIDERS
    if case.dtype != "fp32":
        # numpy has no bf16, and its fp16 matmul is a scalar loop: not a reference anyone uses.
        return tuple(p for p in case.spec.providers if p != "numpy")
    return case.spec.providers
