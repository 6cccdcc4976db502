"""Wall-clock timing shared by every provider, and the benchmarker the matmul autotuner uses.

triton.testing.do_bench always makes at least 8 calls (one, five to estimate, a warm-up, a timed
one), which is minutes for a 4096 matmul running at a few GFLOP/s. This loop does what do_bench
does (a warm-up call, the cache cleared through the active driver before every timed call, the
median) but stops after `min_reps` timed calls once the time budget is spent.
"""

import statistics
import time

from triton.runtime import driver


def _times_ms(fn, budget_ms, min_reps, max_reps):
    active = driver.active
    cache = active.get_empty_cache_for_benchmark()
    fn()
    times = []
    deadline = time.perf_counter() + budget_ms / 1e3
    while len(times) < min_reps or (len(times) < max_reps and time.perf_counter() < deadline):
        # As do_bench does: inputs start out of cache, the same for every provider.
        active.clear_cache(cache)
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def median_ms(fn):
    """Median wall-clock milliseconds of `fn()`."""
    return statistics.median(_times_ms(fn, budget_ms=200, min_reps=3, max_reps=2000))


def tuning_bench(fn, quantiles):
    """The autotuner's benchmarker (`do_bench=`): fewer calls than the final measurement, as it
    only ranks configs (one timed call when that takes longer than the budget); returns the
    requested quantiles, as do_bench does."""
    times = sorted(_times_ms(fn, budget_ms=50, min_reps=1, max_reps=100))
    return [times[min(len(times) - 1, int(q * len(times)))] for q in quantiles]
