"""The machine's limits, measured in the same run as the kernels: the fp32 FMA peak and the STREAM
triad bandwidth, on one thread and on all of them. Both are small C programs compiled here with the
host's cc, so they use whatever vector ISA `-march=native` finds.
"""

from __future__ import annotations

import glob
import os
import platform
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The worker's environment variable holding triad_in_turns' answer (JSON).
TRIAD_ENV = "SPINE_BENCH_TRIAD"

# Seconds of FMA trials (the best trial counts) and STREAM repeats (the best one counts), per mode.
FMA_SECONDS = {"full": 2.0, "quick": 1.0, "smoke": 0.05}
STREAM_REPEATS = {"full": 10, "quick": 5, "smoke": 2}


def threads() -> int:
    """The cores this process may run on: what OpenMP, torch and the kernels use by default."""
    return len(os.sched_getaffinity(0))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "uarch", "isa"):
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def huge_page_setting() -> str:
    """Linux's transparent huge page mode (always, madvise or never): with `madvise` only
    memory that asks for huge pages gets them, with `never` none does."""
    try:
        text = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return "unavailable"
    return text.partition("[")[2].partition("]")[0] or text.strip()


def _last_level_cache_bytes() -> int:
    sizes = [0]
    for path in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size"):
        text = Path(path).read_text().strip()
        scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
        sizes.append(int(text.rstrip("KM")) * scale)
    return max(sizes)


def stream_elements(mode: str) -> int:
    """Doubles per array: STREAM's rule, at least 4x the last-level cache (and 256 MiB)."""
    if mode == "smoke":
        return 1 << 16
    n = 1 << 25
    while n * 8 < 4 * _last_level_cache_bytes():
        n *= 2
    return n


def _build(source: str, tmp: Path, *extra: str, suffix: str = "") -> Path:
    binary = tmp / (Path(source).stem + suffix)
    cmd = ["cc", "-O3", "-march=native", "-fopenmp", *extra, str(HERE / source), "-o", str(binary)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return binary


def _run(binary: Path, args: list[str], n_threads: int) -> dict[str, str]:
    """Runs a micro-benchmark; its output is `key value` pairs on one line."""
    env = {**os.environ, "OMP_NUM_THREADS": str(n_threads)}
    out = subprocess.run([str(binary), *args], check=True, capture_output=True, text=True, env=env).stdout
    words = out.split()
    return dict(zip(words[::2], words[1::2]))


def _error(e: Exception) -> str:
    if isinstance(e, subprocess.CalledProcessError):
        lines = (e.stderr or "").strip().splitlines()
        return f"{Path(e.cmd[0]).name} failed: {lines[0] if lines else f'exit status {e.returncode}'}"
    return f"{type(e).__name__}: {e}"


def measure(mode: str, tmp: Path, pages: str) -> dict:
    """{"fma": {...}, "stream": {...}}: per measurement the value on 1 and on all threads, or an
    "error". `pages` ("huge" or "small") is what the triad's arrays ask for, as the run's tensors
    do."""
    n_all = threads()
    plans = {
        "fma": ("fma_peak.c", [str(FMA_SECONDS[mode])], "gflops"),
        "stream": ("stream_triad.c", [str(stream_elements(mode)), str(STREAM_REPEATS[mode]), pages], "gbps"),
    }
    results = {}
    for name, (source, args, key) in plans.items():
        try:
            binary = _build(source, tmp)
            one = _run(binary, args, 1)
            every = _run(binary, args, n_all)
        except (OSError, subprocess.CalledProcessError) as e:
            results[name] = {"error": _error(e)}
            continue
        results[name] = {
            "1": float(one[key]),
            "all": float(every[key]),
            "threads": n_all,
            **{k: v for k, v in one.items() if k in ("lanes", "mib", "pages")},
            # The triad's two kinds of stores, on 1 and on all threads.
            **{
                f"{k}_{n}": float(run[k])
                for n, run in (("1", one), ("all", every))
                for k in ("plain", "streaming")
                if k in run
            },
        }
    return results


def triad_in_turns(limits: dict, tmp: Path) -> dict:
    """What the worker needs to time the triad in turns with the memory-bound kernels: the triad's
    loops as a shared library and the kind of stores that won in `limits` (streaming unless plain
    measured faster); {"error": ...} when it cannot be built."""
    stream = limits.get("stream", {})
    if "error" in stream:
        return {"error": stream["error"]}
    try:
        library = _build("stream_triad.c", tmp, "-shared", "-fPIC", "-DSTREAM_TRIAD_LIBRARY", suffix=".so")
    except (OSError, subprocess.CalledProcessError) as e:
        return {"error": _error(e)}
    plain_wins = stream.get("plain_all", 0.0) > stream.get("streaming_all", 0.0)
    return {"library": str(library), "stores": "plain" if plain_wins else "streaming"}
