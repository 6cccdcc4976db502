"""The benchmark suite still runs: `bench/run.py --smoke` on tiny sizes produces a report with a
row for every kernel, dtype and section. Numbers are not checked (timing never goes in tests), and
a kernel that fails to compile is a row with a failure, which is what the suite is for."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
# bench/ is a directory of scripts, not a package.
sys.path.insert(0, str(BENCH))

import cases


def test_smoke_run_reports_every_kernel(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--smoke", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = (tmp_path / "results.md").read_text()

    for kernel in cases.KERNELS.values():
        if kernel.name == "launch":
            continue
        for dtype in kernel.dtypes:
            assert f"| {kernel.name} | {dtype} |" in report, f"no row for {kernel.name} {dtype}"
    for section in ("## Machine limits", "## Matmul scaling", "## Launch overhead", "## Compile time"):
        assert section in report
    for probe in cases.COMPILE_PROBES:
        assert f"| {probe} |" in report.split("## Compile time")[1]

    # Every provider of every case either has a time or says why not.
    data = json.loads((tmp_path / "results.json").read_text())
    assert len(data["cases"]) == len(cases.sweep("smoke"))
    for row in data["cases"]:
        case = cases.Case.from_json(row["case"])
        assert set(row["results"]) == set(cases.providers(case))
        for result in row["results"].values():
            assert {"ms", "error", "skipped"} & set(result), result
        if case.threads:
            # The scaling case times the all-threads calls in the same rounds.
            for provider in cases.SCALING_PROVIDERS:
                result = row["results"][provider]
                assert result["all_threads_ms"] > 0 and result["all_threads_speedup"] > 0, result
        # Memory-bound rows are set against the triad timed in turns with them, call for call.
        if case.spec.roof == "stream":
            assert "ms" in row["results"][cases.TRIAD], row["results"][cases.TRIAD]
            for provider, result in row["results"].items():
                if provider != cases.TRIAD and "ms" in result:
                    assert result["per_triad"] > 0, (provider, result)
    for limit in ("fma", "stream"):
        assert {"all", "error"} & set(data["machine"][limit])
    # Tensors and the triad's arrays ask for huge pages unless --small-pages, and the report says so.
    assert data["pages"]["asked"] == "huge"
    if "error" not in data["machine"]["stream"]:
        assert data["machine"]["stream"]["pages"] == "huge"
    assert "Memory: torch allocates large tensors in transparent huge pages" in report


def test_scaling_row_says_why_an_all_threads_call_was_dropped():
    import report

    one = cases.Case("matmul", "fp32", (64, 64, 64), threads=1)
    every = cases.Case("matmul", "fp32", (64, 64, 64))
    work = 2 * 64**3
    data = {
        "machine": {"fma": {"1": 100.0, "all": 200.0}},
        "host": {"threads": 2},
        "cases": [
            {
                "case": one.to_json(),
                "label": "64",
                "unit": "GFLOP/s",
                "work": work,
                "results": {
                    "spine-triton": {"ms": 1.0, "all_threads_error": "AssertionError: max |diff| 3.0"},
                    "torch": {"ms": 1.0, "all_threads_ms": 0.5, "all_threads_speedup": 2.0},
                },
            },
            {
                "case": every.to_json(),
                "label": "64",
                "unit": "GFLOP/s",
                "work": work,
                "results": {"spine-triton": {"ms": 0.8}},
            },
        ],
    }
    notes = report.Notes()
    table = "\n".join(report._scaling_section(data, notes))
    # The sweep's all-threads figure stands in, footnoted with the failure.
    assert "| spine-triton | fp32 64 | 0.52 | 0.66 [1] | 1.25x |" in table, table
    assert notes.lines() == ["1. all threads, in the 1-thread case's rounds: AssertionError: max /diff/ 3.0"]
    assert "| torch | fp32 64 | 0.52 | 1.05 | 2.00x |" in table, table
