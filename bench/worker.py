"""The measuring process. run.py starts it and sends one case per line on stdin (JSON: the case and
the providers to measure); it answers with JSON lines on its original stdout. A kernel that
crashes the compiler or hangs takes this process down, not the run: the parent records the
failure, starts a new worker and goes on.

`worker.py --compile-probe KERNEL` instead times the first call of one kernel in this fresh
process (compile, load and launch; TRITON_CACHE_DIR is set by the parent) and prints it.
"""

import argparse
import ctypes
import faulthandler
import json
import os
import re
import statistics
import sys
import time
from importlib.metadata import PackageNotFoundError, version

import kernels
import machine
import numpy as np
import torch
import torch.nn.functional as F
import triton
from cases import TRIAD, Case
from timing import launch_ms, paired_speedup, rounds_ms

# mxfp4: bytes of two fp4 values each, with a byte of scale per 32 of them (mx-matmul).
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "mxfp4": torch.uint8}
# Largest error allowed relative to the largest |value| of the fp32 torch reference: a few ulps of
# the output type, which also covers fp32 sums taken in another order.
TOLERANCE = {"fp32": 1e-5, "fp16": 2e-3, "bf16": 1.6e-2, "mxfp4": 1e-5}
# Rounds at least, for a case timed with the triad in turns (3 otherwise): layer norm 4096 x 4096's
# share of the triad over consecutive runs of 15 rounds in one process measured 0.64-0.85, of 30
# rounds 0.78-0.81.
TRIAD_ROUNDS = 30
LAYER_NORM_EPS = 1e-5


class WrongResult(Exception):
    pass


def make_inputs(case: Case):
    torch.manual_seed(0)
    dtype = DTYPES[case.dtype]
    if case.kernel == "matmul":
        m, n, k = case.shape
        return torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)
    if case.kernel == "mx-matmul":
        m, n, k = case.shape
        # Any byte is two fp4 values; scales near 2^0 keep the products in range.
        return (
            torch.randint(0, 256, (m, k // 2), dtype=dtype),
            torch.randint(124, 131, (m, k // 32), dtype=dtype),
            torch.randint(0, 256, (k // 2, n), dtype=dtype),
            torch.randint(124, 131, (n, k // 32), dtype=dtype),
        )
    if case.kernel == "fused-mm-softmax":
        m, n, k = case.shape
        # Scaled like attention scores, so the softmax is not one-hot.
        return torch.randn(m, k) / k**0.5, torch.randn(k, n)
    if case.kernel == "attention":
        return tuple(torch.randn(case.shape, dtype=dtype) for _ in range(3))
    if case.kernel == "softmax":
        return (torch.randn(case.shape),)
    if case.kernel == "layer-norm":
        m, n = case.shape
        return -2.3 + 0.5 * torch.randn(m, n), torch.rand(n), torch.rand(n)
    # vector-add, launch: the launch case also gets its (preallocated) output.
    x, y = torch.rand(case.shape), torch.rand(case.shape)
    return (x, y, torch.empty_like(x)) if case.kernel == "launch" else (x, y)


def _torch_matmul(a, b):
    return a @ b


_FP4_VALUES = torch.tensor([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


def _torch_mx_matmul(a, a_scale, b, b_scale):
    """What a CPU user without scaled dots runs: both operands decoded to fp32 and scaled, then
    a matmul."""

    def decode(packed, scale):  # packed: [rows, K / 2] with pairs along K
        values = torch.stack((_FP4_VALUES[(packed & 0xF).long()], _FP4_VALUES[(packed >> 4).long()]), -1)
        values = values.reshape(packed.shape[0], -1)
        return values * torch.exp2(scale.float() - 127).repeat_interleave(32, dim=1)

    return decode(a, a_scale) @ decode(b.T, b_scale).T


def _torch_fused_mm_softmax(a, b):
    return torch.softmax(a @ b, dim=-1)


def _torch_attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)


def _torch_softmax(x):
    return torch.softmax(x, dim=-1)


def _torch_layer_norm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, LAYER_NORM_EPS)


def _torch_add(x, y):
    return x + y


def _torch_launch(x, y, out):
    return torch.add(x, y, out=out)


TORCH = {
    "matmul": _torch_matmul,
    "fused-mm-softmax": _torch_fused_mm_softmax,
    "mx-matmul": _torch_mx_matmul,
    "attention": _torch_attention,
    "softmax": _torch_softmax,
    "layer-norm": _torch_layer_norm,
    "vector-add": _torch_add,
    "launch": _torch_launch,
}


def _np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _np_layer_norm(x, w, b):
    return (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(
        x.var(axis=-1, keepdims=True) + LAYER_NORM_EPS
    ) * w + b


NUMPY = {
    "matmul": np.matmul,
    "fused-mm-softmax": lambda a, b: _np_softmax(a @ b),
    "softmax": _np_softmax,
    "layer-norm": _np_layer_norm,
    "vector-add": np.add,
}


def _triton_launch(x, y, out, num_threads):
    kernels.add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=x.numel(), num_threads=num_threads)
    return out


TRITON = {
    "matmul": kernels.matmul,
    "fused-mm-softmax": kernels.fused_mm_softmax,
    "mx-matmul": kernels.mx_matmul,
    "attention": kernels.attention,
    "softmax": kernels.softmax,
    "layer-norm": lambda x, w, b, num_threads: kernels.layer_norm(x, w, b, LAYER_NORM_EPS, num_threads),
    "vector-add": kernels.add,
    "launch": _triton_launch,
}


class Triad:
    """The STREAM triad's loop (bench/stream_triad.c built as a library by run.py), one more
    provider of memory-bound cases: timed in turns with the kernels, it measures the bandwidth the
    machine gave at the same moments. Its arrays move as many bytes as the case does (3 arrays of
    doubles, counted as STREAM counts): the cache is cleared before every call, so an array need
    not be several times the cache, and the bandwidth a loop reaches depends on its footprint
    (on this machine's VMs, 3 x 128 MiB measured 30-55% faster than 3 x 256 MiB, in turns)."""

    def __init__(self, spec: dict):
        if "error" in spec:
            raise RuntimeError(f"no triad in turns: {spec['error']}")
        self.loop = getattr(ctypes.CDLL(spec["library"]), f"stream_triad_{spec['stores']}")
        self.loop.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_double, ctypes.c_long, ctypes.c_int]
        self.loop.restype = None

    @staticmethod
    def elements(case: Case) -> int:
        return max(1, round(case.work / 24))

    def fn(self, case: Case):
        n = self.elements(case)
        a = torch.zeros(n, dtype=torch.float64)
        b = torch.ones(n, dtype=torch.float64)
        c = torch.full((n,), 2.0, dtype=torch.float64)
        threads = case.threads or len(os.sched_getaffinity(0))

        def run():
            self.loop(a.data_ptr(), b.data_ptr(), c.data_ptr(), 3.0, n, threads)
            return a

        return run


_triad: Triad | None = None


def triad() -> Triad:
    global _triad
    if _triad is None:
        spec = os.environ.get(machine.TRIAD_ENV)
        if spec is None:
            raise RuntimeError(f"no triad in turns: {machine.TRIAD_ENV} is not set (run bench/run.py)")
        _triad = Triad(json.loads(spec))
    return _triad


def provider_fn(case: Case, provider: str, inputs):
    """A no-argument callable returning the provider's output as a torch tensor."""
    if provider == "spine-triton":
        fn = TRITON[case.kernel]
        return lambda: fn(*inputs, num_threads=case.threads)
    if provider == "torch":
        fn = TORCH[case.kernel]
        return lambda: fn(*inputs)
    if provider == "inductor":
        # A fresh compile per case: no recompile limit to hit, no guessed dynamic shapes.
        torch._dynamo.reset()
        fn = torch.compile(TORCH[case.kernel], dynamic=False)
        return lambda: fn(*inputs)
    if provider == TRIAD:
        return triad().fn(case)
    if provider == "numpy":
        arrays = [t.numpy() for t in inputs]
        fn = NUMPY[case.kernel]
        return lambda: torch.from_numpy(np.asarray(fn(*arrays)))
    raise ValueError(f"unknown provider {provider}")


def check(case: Case, out, ref):
    if out.shape != ref.shape:
        raise WrongResult(f"wrong result: shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
    err = ((out.double() - ref.double()).abs().max() / ref.double().abs().max().clamp_min(1e-30)).item()
    tol = TOLERANCE[case.dtype]
    if not err <= tol:  # also catches NaN
        raise WrongResult(f"wrong result: max |error| is {err:.2g} of max |reference| (tolerance {tol:g})")


# A case on fewer threads (matmul scaling) also times each provider on all threads, in the same
# rounds: the speedup is then the median of per-round ratios, which a busy moment falling on one
# of two separately measured cases does not skew.
_ALL_THREADS = "all threads: "
SCALING_ROUNDS = 8


def all_threads_fns(case: Case, fns: dict, inputs, ref, default_threads: int) -> tuple[dict, dict]:
    """For a case with `threads`: each prepared provider's call on all threads (keys prefixed
    with _ALL_THREADS), kept where its first result checks against `ref`, and for the others
    why not (provider -> error, which the report shows). torch's thread count is switched
    around each call: it is also the OpenMP default that spine-triton's `num_threads=0` takes."""
    if not case.threads:
        return {}, {}
    calls = {
        "spine-triton": lambda: TRITON[case.kernel](*inputs, num_threads=0),
        "torch": lambda: TORCH[case.kernel](*inputs),
    }

    def on_all_threads(fn):
        def run():
            torch.set_num_threads(default_threads)
            try:
                return fn()
            finally:
                torch.set_num_threads(case.threads)

        return run

    every = {_ALL_THREADS + p: on_all_threads(calls[p]) for p in fns if p in calls}
    errors = {}
    for name, fn in list(every.items()):
        try:
            check(case, fn(), ref)
        except Exception as e:  # noqa: BLE001 - the speedup falls back to the sweep's all-threads case
            del every[name]
            errors[name.removeprefix(_ALL_THREADS)] = summary(e)
    return every, errors


def prepare(case: Case, provider: str, inputs, ref):
    """The provider's callable, after its first call (compile, autotune) gave a checked result:
    a wrong kernel gets no number."""
    fn = provider_fn(case, provider, inputs)
    if provider == TRIAD:
        # b + 3 c with b = 1 and c = 2 everywhere.
        if not bool((fn() == 7.0).all()):
            raise WrongResult("wrong result: the triad's output is not 7 everywhere")
        return fn
    check(case, fn(), ref)
    return fn


def note(case: Case, provider: str) -> dict:
    if provider == TRIAD:
        return {"work": 24.0 * Triad.elements(case)}
    if provider == "spine-triton" and case.kernel == "matmul":
        cfg = kernels.matmul_autotuned.best_config.kwargs
        return {"note": "best {BLOCK_SIZE_M}x{BLOCK_SIZE_N}x{BLOCK_SIZE_K} g{GROUP_SIZE_M}".format(**cfg)}
    if provider == "spine-triton" and case.kernel == "mx-matmul":
        cfg = kernels.mx_matmul_kernel.best_config.kwargs
        return {"note": "best {BLOCK_M}x{BLOCK_N}x{BLOCK_K}".format(**cfg)}
    return {}


def summary(error: BaseException) -> str:
    """The error's first line; triton's CompilationError starts with a bare "at L:C:", so its
    last line (the message) is added."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    text = lines[0] if lines else ""
    if re.fullmatch(r"at \d+:\d+:", text) and len(lines) > 1:
        text = f"{text} {lines[-1]}"
    # The cache is a new temporary directory per run: naming it keeps messages comparable.
    if cache := os.environ.get("TRITON_CACHE_DIR"):
        text = text.replace(cache, "$TRITON_CACHE_DIR")
    return f"{type(error).__name__}: {text}"


def versions() -> dict:
    try:
        spine = version("spine-triton")
    except PackageNotFoundError:
        spine = "not installed"
    return {
        "torch": torch.__version__,
        "triton": triton.__version__,
        "numpy": np.__version__,
        "spine-triton": spine,
    }


def serve():
    # Inductor, triton and the kernels may print: only protocol lines go to the real stdout.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    def send(**message):
        proto.write(json.dumps(message) + "\n")

    default_threads = torch.get_num_threads()
    send(event="hello", versions=versions())
    for line in sys.stdin:
        request = json.loads(line)
        case = Case.from_json(request["case"])
        # spine-triton takes the case's thread count as its num_threads launch option.
        torch.set_num_threads(case.threads or default_threads)
        try:
            inputs = make_inputs(case)
            ref = TORCH[case.kernel](*(t.float() if t.is_floating_point() else t for t in inputs))
        except Exception as e:  # noqa: BLE001 - e.g. out of memory: every provider fails the same way
            for provider in request["providers"]:
                send(event="result", provider=provider, error=summary(e))
        else:
            fns = {}
            for provider in request["providers"]:
                send(event="start", provider=provider)
                try:
                    fns[provider] = prepare(case, provider, inputs, ref)
                except Exception as e:  # noqa: BLE001 - recorded in the report, the run goes on
                    send(event="result", provider=provider, error=summary(e))
            send(event="timing")
            if case.kernel == "launch":
                for provider, ms in launch_ms(fns).items():
                    send(event="result", provider=provider, ms=ms, **note(case, provider))
            else:
                every, all_threads_errors = all_threads_fns(case, fns, inputs, ref, default_threads)
                # With the triad in turns, more rounds: its paired ratio is a median over them.
                min_rounds = TRIAD_ROUNDS if TRIAD in fns else SCALING_ROUNDS if every else 3
                rounds = rounds_ms(fns | every, min_rounds=min_rounds)
                for provider in fns:
                    times = rounds[provider]
                    paired = {}
                    if TRIAD in rounds and provider != TRIAD:
                        paired["per_triad"] = paired_speedup(times, rounds[TRIAD])
                    if (all_times := rounds.get(_ALL_THREADS + provider)) is not None:
                        paired["all_threads_ms"] = statistics.median(all_times)
                        paired["all_threads_speedup"] = paired_speedup(all_times, times)
                    if provider in all_threads_errors:
                        paired["all_threads_error"] = all_threads_errors[provider]
                    ms = statistics.median(times)
                    send(event="result", provider=provider, ms=ms, **paired, **note(case, provider))
        torch.set_num_threads(default_threads)
        send(event="done")


def _probe_matmul():
    a, b, c = torch.randn(64, 64), torch.randn(64, 64), torch.empty(64, 64)
    kernels.tutorial_matmul.launch(kernels.matmul_kernel, a, b, c, **kernels.MATMUL_CONFIGS[3].all_kwargs())


# Small inputs: the first call is all compile, load and launch overhead.
PROBES = {
    "vector-add": lambda: kernels.add(torch.rand(1000), torch.rand(1000)),
    "softmax": lambda: kernels.softmax(torch.randn(16, 100)),
    "layer-norm": lambda: kernels.layer_norm(torch.randn(16, 100), torch.rand(100), torch.rand(100)),
    # One config of the tutorial matmul (the autotuner would compile them all).
    "matmul": _probe_matmul,
    "fused-mm-softmax": lambda: kernels.fused_mm_softmax(torch.randn(64, 40), torch.randn(40, 48)),
    "attention": lambda: kernels.attention(*(torch.randn(1, 1, 64, 32) for _ in range(3))),
}


def main():
    faulthandler.enable()  # a crash leaves a Python stack in the worker log
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile-probe", choices=sorted(PROBES))
    args = parser.parse_args()
    if args.compile_probe is None:
        serve()
        return
    start = time.perf_counter()
    try:
        PROBES[args.compile_probe]()
    except Exception as e:  # noqa: BLE001 - reported in the compile-time table
        print(json.dumps({"error": summary(e)}))
    else:
        print(json.dumps({"seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main()
