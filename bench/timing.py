"""Wall-clock timing shared by every provider, and the benchmarker the matmul autotuner uses.

The providers of a case are timed in turns (one call of each per round), so that on a shared
machine they all see the same quiet and busy moments and their ratios stay meaningful even when
absolute times do not.

triton.testing.do_bench always makes at least 8 calls (one, five to estimate, a warm-up, a timed
one), which is minutes for a 4096 matmul running at a few GFLOP/s. This loop does what do_bench
does (a warm-up call, the cache cleared through the active driver before every timed call, the
median) but stops after `min_rounds` rounds once the time budget is spent.
"""

import statistics
import time

from triton.runtime import driver


def _rounds_ms(fns: dict, budget_ms: float, min_rounds: int, max_rounds: int) -> dict[str, list[float]]:
    active = driver.active
    cache = active.get_empty_cache_for_benchmark()
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    deadline = time.perf_counter() + budget_ms / 1e3
    rounds = 0
    while rounds < min_rounds or (rounds < max_rounds and time.perf_counter() < deadline):
        for name, fn in fns.items():
            # As do_bench does: inputs start out of cache, the same for every provider.
            active.clear_cache(cache)
            start = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start) * 1e3)
        rounds += 1
    return times


def rounds_ms(fns: dict, min_rounds: int = 3) -> dict[str, list[float]]:
    """Wall-clock milliseconds of each no-argument callable, timed in turns: one list per
    callable, entry i from round i."""
    return _rounds_ms(fns, budget_ms=200 * len(fns), min_rounds=min_rounds, max_rounds=2000)


def paired_speedup(times: list[float], reference: list[float]) -> float:
    """How many times faster than `reference` a callable ran, the median over rounds of the two
    calls made in the same round (rounds_ms): the machine's slow and quick moments cancel in each
    pair, where a ratio of two medians lets them in."""
    return statistics.median(r / t for t, r in zip(times, reference, strict=True))


def launch_ms(fns: dict, calls: int = 2000, batches: int = 5) -> dict[str, float]:
    """Milliseconds per call over batches of back-to-back calls (no cache clearing: the cost of
    the call itself), batches taken in turns; the median batch."""
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    for _ in range(batches):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - start) / calls * 1e3)
    return {name: statistics.median(t) for name, t in times.items()}


def tuning_bench(fn, quantiles):
    """The autotuner's benchmarker (`do_bench=`): fewer calls than the final measurement, as it
    only ranks configs (one timed call when that takes longer than the budget); returns the
    requested quantiles, as do_bench does."""
    times = sorted(_rounds_ms({"config": fn}, budget_ms=50, min_rounds=1, max_rounds=100)["config"])
    return [times[min(len(times) - 1, int(q * len(times)))] for q in quantiles]
