"""Compares two installs of spine-triton (say, before and after a change) on the suite's kernels.

One call measures, in one process, each case's spine-triton and torch throughput, timed in turns
after a 64 MiB cache flush as bench/run.py does, and prints them as one line of JSON. Run it
under each install in alternating processes and compare the ratios to torch, which share each
process's busy and quiet moments:

    python -m venv --system-site-packages /tmp/before      # then pip install the old tree there
    export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=1099511627776
    for round in 1 2 3; do
      /tmp/before/bin/python bench/side_by_side.py --label before >> ab.jsonl
      python3 bench/side_by_side.py --label after >> ab.jsonl
    done
    python3 bench/side_by_side.py --summarize ab.jsonl

(GLIBC_TUNABLES as the suite's worker has it: outputs over 32 MiB reuse freed heap instead of
being faulted in afresh by every call.)

Give each install its own TRITON_CACHE_DIR, or set none (the cache key covers the build).
"""

import argparse
import collections
import json
import os
import statistics
import sys
import time

# The worker's settings (see bench/run.py): outputs reuse freed heap, no OpenBLAS spinning.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")


def measure(threads: int) -> dict:
    import kernels
    import torch
    from triton.runtime import driver

    torch.set_num_threads(threads)
    cache = driver.active.get_empty_cache_for_benchmark()

    def rates(work, spine, reference, rounds):
        """[spine-triton, torch] throughput: medians of calls timed in turns."""
        fns = {"spine": spine, "torch": reference}
        for fn in fns.values():
            fn()
        times = {name: [] for name in fns}
        for _ in range(rounds):
            for name, fn in fns.items():
                driver.active.clear_cache(cache)
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        return [work / statistics.median(times[name]) / 1e9 for name in fns]

    def softmax(n):
        x = torch.randn(4096, n)
        return rates(4096 * n * 8, lambda: kernels.softmax(x, threads), lambda: torch.softmax(x, 1), 15)

    def layer_norm(n):
        x, w, b = torch.randn(4096, n), torch.randn(n), torch.randn(n)
        return rates(
            4096 * n * 8,
            lambda: kernels.layer_norm(x, w, b, num_threads=threads),
            lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5),
            15,
        )

    def matmul(dtype, n):
        a, b = torch.randn(n, n, dtype=dtype), torch.randn(n, n, dtype=dtype)
        return rates(2 * n**3, lambda: kernels.matmul(a, b, threads), lambda: a @ b, 8)

    def fused_mm_softmax(n):
        a, b = torch.randn(n, n), torch.randn(n, n)
        return rates(
            2 * n**3, lambda: kernels.fused_mm_softmax(a, b, threads), lambda: torch.softmax(a @ b, 1), 8
        )

    def add(n):
        x, y = torch.rand(n), torch.rand(n)
        return rates(n * 12, lambda: kernels.add(x, y, threads), lambda: x + y, 15)

    out = {f"softmax 4096x{n} GB/s": softmax(n) for n in (256, 1024, 4096)}
    out.update({f"layer norm 4096x{n} GB/s": layer_norm(n) for n in (1024, 4096)})
    for dtype, n in ((torch.float32, 1024), (torch.float32, 2048), (torch.bfloat16, 1024)):
        out[f"matmul {str(dtype)[6:]} {n} GFLOP/s"] = matmul(dtype, n)
    out["fused mm+softmax 1024 GFLOP/s"] = fused_mm_softmax(1024)
    out["vector add 2^22 GB/s"] = add(2**22)
    return out


def summarize(path: str):
    results = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(path) as runs:
        for line in runs:
            record = json.loads(line)
            for name, (spine, torch_) in record["cases"].items():
                results[name][record["label"]].append((spine, torch_))
    for name, by_label in results.items():
        cells = []
        for label, values in by_label.items():
            spine = [s for s, _ in values]
            ratios = [s / t for s, t in values]
            cells.append(
                f"{label}: {min(spine):.3g}-{max(spine):.3g} ({min(ratios):.2f}-{max(ratios):.2f}x torch)"
            )
        print(f"{name} | " + " | ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="this", help="the install's name in the JSON line")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--summarize", metavar="JSONL", help="print the ranges of a file of runs")
    args = parser.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    print(json.dumps({"label": args.label, "cases": measure(args.threads)}))


if __name__ == "__main__":
    main()
