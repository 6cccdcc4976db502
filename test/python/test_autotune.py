"""Autotuning and timing on CPU: triton.autotune, triton.heuristics, triton.testing.do_bench and
perf_report, through the driver's wall-clock benchmarker with cache flushing between runs."""

import math
import os

import pytest
import torch
import triton
import triton.language as tl
from spine_triton import driver as cpu_driver

# perf_report draws with matplotlib: no display on a test machine.
os.environ.setdefault("MPLBACKEND", "Agg")

CONFIGS = [triton.Config({"BLOCK": b}) for b in (64, 256, 1024)]


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def make_kernel(do_bench=None):
    """A fresh autotuned kernel (autotune keeps its choices per kernel object), as in the GEMM
    tutorial: autotune over a heuristic over the jit function."""

    @triton.autotune(configs=CONFIGS, key=["n"], do_bench=do_bench)
    @triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @triton.jit
    def scale_kernel(x_ptr, out_ptr, used_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 3.0)
        else:
            mask = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)
        # Which meta-parameters the launch ran with, for the tests to see.
        if pid == 0:
            tl.store(used_ptr, BLOCK)
            tl.store(used_ptr + 1, EVEN)

    return scale_kernel


def run(kernel, n):
    x = torch.rand(n)
    out = torch.empty_like(x)
    used = torch.zeros(2, dtype=torch.int32)
    kernel[grid](x, out, used, n)
    torch.testing.assert_close(out, x * 3.0, rtol=0, atol=0)
    return {"BLOCK": int(used[0]), "EVEN": bool(used[1])}


class RecordingBench:
    """The driver's benchmarker, recording what it measured per call."""

    def __init__(self):
        self.calls = 0
        self.results = []

    def __call__(self, fn, quantiles):
        self.calls += 1
        result = triton.runtime.driver.active.get_benchmarker()(fn, quantiles=quantiles, warmup=2, rep=10)
        self.results.append(result)
        return result


def test_autotune_picks_the_fastest_measured_config():
    bench = RecordingBench()
    kernel = make_kernel(bench)
    used = run(kernel, 4096)
    # Every config was timed once with the driver's benchmarker: median, 20% and 80% quantiles.
    assert bench.calls == len(CONFIGS)
    for median, low, high in bench.results:
        assert 0 < low <= median <= high < math.inf
    timings = kernel.configs_timings
    assert set(timings) == set(CONFIGS)
    best = min(timings, key=timings.get)
    assert kernel.best_config == best
    # The launch after tuning ran with the chosen config.
    assert used["BLOCK"] == best.kwargs["BLOCK"]


@pytest.mark.parametrize("fastest", [0, 1, 2])
def test_autotune_launches_with_the_config_that_timed_fastest(fastest):
    # A benchmarker that reports config `fastest` as the quickest: the autotuner must launch it.
    def fake_bench(fn, quantiles):
        fn()
        block = fake_bench.order.pop(0)
        t = 1.0 if block == CONFIGS[fastest].kwargs["BLOCK"] else 5.0
        return [t, t, t]

    fake_bench.order = [c.kwargs["BLOCK"] for c in CONFIGS]
    kernel = make_kernel(fake_bench)
    assert run(kernel, 2048)["BLOCK"] == CONFIGS[fastest].kwargs["BLOCK"]
    assert kernel.best_config == CONFIGS[fastest]


def test_autotune_retunes_when_the_key_changes():
    bench = RecordingBench()
    kernel = make_kernel(bench)
    run(kernel, 2048)
    assert bench.calls == len(CONFIGS)
    run(kernel, 2048)  # same key: the cached choice
    assert bench.calls == len(CONFIGS)
    run(kernel, 3000)  # new n: tuned again
    assert bench.calls == 2 * len(CONFIGS)
    assert len(kernel.cache) == 2


def test_configs_with_gpu_tuning_knobs_run():
    # AMD's configs (tutorial 03 picks them on any backend but CUDA) and NVIDIA's carry knobs
    # a CPU has no use for: they are accepted and change nothing.
    configs = [
        triton.Config({"BLOCK": 256, "waves_per_eu": 2, "matrix_instr_nonkdim": 16, "kpack": 2}),
        triton.Config({"BLOCK": 1024}, num_warps=8, maxnreg=128),
    ]
    for config in configs:
        kernel = make_kernel()
        kernel.configs = [config]
        assert run(kernel, 3000) == {"BLOCK": config.kwargs["BLOCK"], "EVEN": False}


def test_heuristics_follow_the_chosen_config():
    # n = 2048 divides by every BLOCK; 2050 by none: EVEN is computed from each config's BLOCK.
    for config in CONFIGS:
        kernel = make_kernel()
        kernel.configs = [config]  # one config: launched without tuning
        for n, even in ((2048, True), (2050, False)):
            assert run(kernel, n) == {"BLOCK": config.kwargs["BLOCK"], "EVEN": even}


def test_heuristics_alone():
    @triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"]), "EVEN": lambda args: True})
    @triton.jit
    def whole_kernel(x_ptr, out_ptr, used_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 3.0)
        tl.store(used_ptr, BLOCK)
        tl.store(used_ptr + 1, EVEN)

    # One program covers n = 300 with BLOCK = 512, unmasked (EVEN): the buffers have room for it.
    x = torch.rand(512)
    out = torch.empty_like(x)
    used = torch.zeros(2, dtype=torch.int32)
    whole_kernel[(1,)](x, out, used, 300)
    torch.testing.assert_close(out, x * 3.0, rtol=0, atol=0)
    assert used.tolist() == [512, 1]


# --- timing ---------------------------------------------------------------------------------------


def test_driver_benchmarker_is_do_bench():
    active = triton.runtime.driver.active
    assert isinstance(active, cpu_driver.CPUDriver)
    assert active.get_benchmarker() is triton.testing.do_bench
    assert active.get_device_interface().Event is cpu_driver.WallClockEvent


def test_do_bench_times_a_kernel():
    kernel = make_kernel()
    kernel.configs = [CONFIGS[1]]
    x = torch.rand(1 << 16)
    out = torch.empty_like(x)
    used = torch.zeros(2, dtype=torch.int32)

    def launch():
        kernel[grid](x, out, used, x.numel())

    ms = triton.testing.do_bench(launch, warmup=2, rep=20)
    assert 0 < ms < math.inf
    low, median, high = triton.testing.do_bench(launch, warmup=2, rep=20, quantiles=[0.2, 0.5, 0.8])
    assert 0 < low <= median <= high < math.inf
    runs = triton.testing.do_bench(launch, warmup=2, rep=20, return_mode="all")
    assert len(runs) >= 1 and all(0 < t < math.inf for t in runs)
    torch.testing.assert_close(out, x * 3.0, rtol=0, atol=0)


def test_benchmark_cache_flush_evicts_every_cache_level():
    active = triton.runtime.driver.active
    cache = active.get_empty_cache_for_benchmark()
    nbytes = cache.numel() * cache.element_size()
    largest = cpu_driver.largest_cache_bytes()
    assert largest > 0, "no cache sizes in /sys/devices/system/cpu/cpu*/cache"
    assert nbytes >= 2 * largest
    # Clearing writes every byte of it.
    cache.fill_(7)
    active.clear_cache(cache)
    assert not cache.any()


def test_do_bench_flushes_before_every_timed_run(monkeypatch):
    active = triton.runtime.driver.active
    events = []
    clear = active.clear_cache
    monkeypatch.setattr(active, "clear_cache", lambda cache: (events.append("clear"), clear(cache)))
    triton.testing.do_bench(lambda: events.append("run"), warmup=1, rep=200)
    # The timed runs come last, each right after a flush; before them the warm-up runs go
    # without one.
    timed = 0
    while events[len(events) - 2 * timed - 2 : len(events) - 2 * timed] == ["clear", "run"]:
        timed += 1
    # (How many depends on how long a flush takes: rep / the estimated time of one.)
    assert timed >= 1
    assert events[-2 * timed - 1] == "run"
    # The only other flushes are the five of the run-time estimate.
    assert events.count("clear") == 5 + timed


def test_perf_report_writes_plot_and_table(tmp_path):
    pytest.importorskip("matplotlib", reason="scripts/setup.sh installs matplotlib")
    pytest.importorskip("pandas", reason="scripts/setup.sh installs pandas")
    kernel = make_kernel()
    kernel.configs = [CONFIGS[2]]

    @triton.testing.perf_report(
        triton.testing.Benchmark(
            x_names=["n"],
            x_vals=[4096, 16384],
            line_arg="provider",
            line_vals=["triton", "torch"],
            line_names=["Triton", "Torch"],
            styles=[("blue", "-"), ("green", "-")],
            ylabel="GB/s",
            plot_name="scale-performance",
            args={},
        )
    )
    def benchmark(n, provider):
        x = torch.rand(n)
        out = torch.empty_like(x)
        used = torch.zeros(2, dtype=torch.int32)
        if provider == "triton":
            fn = lambda: kernel[grid](x, out, used, n)
        else:
            fn = lambda: torch.mul(x, 3.0, out=out)
        ms, min_ms, max_ms = triton.testing.do_bench(fn, warmup=1, rep=5, quantiles=[0.5, 0.2, 0.8])
        gbps = lambda t: 2 * x.numel() * x.element_size() * 1e-9 / (t * 1e-3)
        return gbps(ms), gbps(max_ms), gbps(min_ms)

    df = benchmark.run(save_path=str(tmp_path), print_data=False, return_df=True)
    columns = ["Triton (GB/s)", "Torch (GB/s)"]
    assert list(df.columns) == ["n", *columns]
    assert df["n"].tolist() == [4096, 16384]
    assert (df[columns] > 0).all().all()
    png = tmp_path / "scale-performance.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = (tmp_path / "scale-performance.csv").read_text().splitlines()
    assert csv[0] == "n,Triton (GB/s),Torch (GB/s)" and len(csv) == 3
    assert (tmp_path / "results.html").exists()
