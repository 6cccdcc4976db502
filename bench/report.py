"""Turns a run's data (results.json) into results.md and the PNG plots."""

from __future__ import annotations

from pathlib import Path

from cases import PROVIDERS, SCALING_PROVIDERS, TRIAD, Case

ROOF_NAMES = {"fma": "fp32 FMA peak", "stream": "STREAM triad"}


def value(row: dict, provider: str) -> float | None:
    """Throughput (GFLOP/s, GB/s) or microseconds per launch; None if not measured."""
    result = row["results"].get(provider, {})
    if "ms" not in result:
        return None
    if row["unit"] == "us/launch":
        return result["ms"] * 1e3
    # The triad in turns brings its own work (its arrays are the same at every size).
    return result.get("work", row["work"]) / (result["ms"] / 1e3) / 1e9


def fmt(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def _status(result: dict) -> str:
    return result.get("error") or result.get("skipped") or ""


def describe(row: dict) -> str:
    """One progress line for a case."""
    case = Case.from_json(row["case"])
    threads = " (1 thread)" if case.threads else ""
    parts = []
    for provider, result in row["results"].items():
        v = value(row, provider)
        parts.append(f"{provider} {fmt(v)}" if v is not None else f"{provider} {_status(result)[:60]}")
    return f"{case.kernel} {case.dtype} {row['label']}{threads} [{row['unit']}]: " + ", ".join(parts)


def describe_machine(limits: dict) -> str:
    parts = []
    for name, unit in (("fma", "GFLOP/s"), ("stream", "GB/s")):
        m = limits[name]
        text = (
            m["error"]
            if "error" in m
            else f"{fmt(m['1'])} / {fmt(m['all'])} {unit} (1 / {m['threads']} threads)"
        )
        parts.append(f"{ROOF_NAMES[name]} {text}")
    return "; ".join(parts)


def describe_compile(phases: dict) -> str:
    return ", ".join(
        f"{phase} {p['seconds']:.2f} s" if "seconds" in p else f"{phase} {p['error']}"
        for phase, p in phases.items()
    )


class Notes:
    """Numbered footnotes for failures and skips, one number per distinct message."""

    def __init__(self):
        self.numbers: dict[str, int] = {}

    def ref(self, text: str) -> str:
        number = self.numbers.setdefault(text, len(self.numbers) + 1)
        return f"[{number}]"

    def lines(self) -> list[str]:
        return [f"{number}. {text.replace('|', '/')}" for text, number in self.numbers.items()]


def _cell(row: dict, provider: str, notes: Notes) -> str:
    result = row["results"].get(provider)
    if result is None:
        return ""  # the provider does not apply (numpy for fp16, ...)
    if "ms" in result:
        return fmt(value(row, provider))
    kind = "skip" if "skipped" in result else "fail"
    return f"{kind} {notes.ref(_status(result))}"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a is not None and b else "-"


def _percent(a: float | None, b: float | None) -> str:
    return f"{100 * a / b:.1f}%" if a is not None and b else "-"


def _roof(limits: dict, name: str | None, threads: str = "all") -> float | None:
    return limits.get(name, {}).get(threads) if name else None


def _section(title: str, header: list[str], rows: list[list[str]], intro: str = "") -> list[str]:
    """A markdown section with one table; nothing when there are no rows (e.g. with --only)."""
    if not rows:
        return []
    table = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    table += ["| " + " | ".join(r) + " |" for r in rows]
    return [f"## {title}", "", *([intro, ""] if intro else []), *table, ""]


def _share_of_peak(data: dict, row: dict, ours: float | None) -> str:
    """`% of peak`: for memory-bound rows, of the triad timed in turns with them (the median over
    rounds of the two calls' throughputs in the same round); else, or when that failed, of the
    machine's limit from the start of the run."""
    case = Case.from_json(row["case"])
    triad = row["results"].get(TRIAD, {})
    per_triad = row["results"].get("spine-triton", {}).get("per_triad")
    if case.spec.roof == "stream" and per_triad is not None and "work" in triad:
        return f"{100 * per_triad * row['work'] / triad['work']:.1f}%"
    return _percent(ours, _roof(data["machine"], case.spec.roof))


def kernel_rows(data: dict, notes: Notes) -> list[list[str]]:
    rows = []
    for row in data["cases"]:
        case = Case.from_json(row["case"])
        if case.threads or case.kernel == "launch":
            continue
        ours, torch_v, inductor_v = (value(row, p) for p in ("spine-triton", "torch", "inductor"))
        note = row["results"].get("spine-triton", {}).get("note", "")
        rows.append(
            [
                case.kernel,
                case.dtype,
                row["label"],
                row["unit"],
                *(_cell(row, p, notes) for p in PROVIDERS),
                _ratio(ours, torch_v),
                _ratio(ours, inductor_v),
                _share_of_peak(data, row, ours),
                note,
            ]
        )
    return rows


def _load_warning(data: dict) -> list[str]:
    if max(data["load_start"][0], data["load_end"][0]) <= data["host"]["threads"] / 2:
        return []
    return [
        (
            "**The machine was busy** (1-minute load average above half the threads): other processes "
            "took cores from this run, so absolute numbers, multi-threaded ones most, are low and noisy."
        ),
        "",
    ]


def _pages_line(data: dict) -> list[str]:
    pages = data.get("pages")
    if pages is None:
        return []
    system = f"Linux's transparent huge page mode: {pages['system']}"
    if pages["asked"] == "huge":
        text = (
            "Memory: torch allocates large tensors in transparent huge pages (`THP_MEM_ALLOC_ENABLE=1`) "
            "for every provider, the triads included (numpy does so by itself for its own arrays)"
        )
        if pages["system"] != "never":
            return [f"{text} ({system}).", ""]
        return [f"{text}, but the system gives none ({system}).", ""]
    return [f"Memory: 4 KiB pages asked for (`--small-pages`; {system}).", ""]


def _machine_section(data: dict, notes: Notes) -> list[str]:
    limits = data["machine"]
    n = data["host"]["threads"]
    rows = []
    for name, what in (("fma", "fp32 FMA peak (GFLOP/s)"), ("stream", "STREAM triad (GB/s)")):
        m = limits[name]
        if "error" in m:
            rows.append([what, f"fail {notes.ref(m['error'])}", "", ""])
            continue
        if name == "fma":
            detail = f"{m['lanes']} fp32 lanes per register, 12 independent chains"
        else:
            pages = {"huge": " in huge pages", "small": " in 4 KiB pages"}.get(m.get("pages", ""), "")
            detail = f"3 arrays of {float(m['mib']):g} MiB{pages}"
            if "plain_all" in m:
                detail += (
                    f"; the better of plain stores ({fmt(m['plain_1'])} / {fmt(m['plain_all'])})"
                    f" and streaming stores ({fmt(m['streaming_1'])} / {fmt(m['streaming_all'])})"
                )
            if stores := data.get("triad_in_turns", {}).get("stores"):
                detail += f"; the best of the run's start (the GB/s rows' `stream-triad`: {stores} stores, in turns)"
        rows.append([what, fmt(m["1"]), fmt(m["all"]), detail])
    return _section("Machine limits", ["measurement", "1 thread", f"{n} threads", "how"], rows)


def _scaling_section(data: dict, notes: Notes) -> list[str]:
    by_case = {(Case.from_json(r["case"]).series, r["label"]): r for r in data["cases"]}
    limits = data["machine"]
    rows = []
    for r in data["cases"]:
        case = Case.from_json(r["case"])
        if not case.threads:
            continue
        every = by_case.get((("matmul", case.dtype, 0), r["label"]))
        for provider in SCALING_PROVIDERS:
            one = value(r, provider)
            result = r["results"].get(provider, {})
            if "all_threads_ms" in result:
                # Timed in the same rounds as the 1-thread calls (worker.all_threads_fns).
                many = r["work"] / (result["all_threads_ms"] / 1e3) / 1e9
                many_cell, speedup = fmt(many), f"{result['all_threads_speedup']:.2f}x"
            else:
                many = value(every, provider) if every else None
                many_cell = _cell(every, provider, notes) if every else "-"
                speedup = _ratio(many, one)
                if error := result.get("all_threads_error"):
                    # Its all-threads call failed its check in these rounds: the sweep's figure.
                    many_cell += " " + notes.ref(f"all threads, in the 1-thread case's rounds: {error}")
            rows.append(
                [
                    provider,
                    f"{case.dtype} {r['label']}",
                    _cell(r, provider, notes),
                    many_cell,
                    speedup,
                    _percent(one, _roof(limits, "fma", "1")),
                    _percent(many, _roof(limits, "fma")),
                ]
            )
    n = data["host"]["threads"]
    header = [
        "provider",
        "matmul",
        "1 thread (GFLOP/s)",
        f"{n} threads (GFLOP/s)",
        "speedup",
        "% of 1-thread peak",
        f"% of {n}-thread peak",
    ]
    return _section("Matmul scaling", header, rows)


def _launch_section(data: dict, notes: Notes) -> list[str]:
    rows = []
    for r in data["cases"]:
        if r["case"]["kernel"] != "launch":
            continue
        torch_us = value(r, "torch")
        for provider, what in (
            ("spine-triton", "a cached 1-program kernel, `kernel[(1,)](...)`"),
            ("torch", "`torch.add(x, y, out=out)`"),
        ):
            us = value(r, provider)
            rows.append([provider, what, _cell(r, provider, notes), _ratio(us, torch_us)])
    header = ["provider", "what", "us per launch", "time / torch's"]
    return _section("Launch overhead (16 elements, back-to-back calls)", header, rows)


def _compile_section(data: dict, notes: Notes) -> list[str]:
    rows = []
    for kernel, phases in data["compile"].items():
        cells = [
            f"{p['seconds']:.2f}" if "seconds" in p else f"fail {notes.ref(p['error'])}"
            for p in (phases["cold"], phases["cached"])
        ]
        rows.append([kernel, *cells])
    header = ["kernel", "cold: fresh cache (s)", "cached: second process (s)"]
    intro = (
        "Cold: a fresh kernel cache (`TRITON_CACHE_DIR`). Triton's own cache key, a SHA-256 of its "
        "500 MB library, is remembered per install (`spine_triton/triton_key.py`): only the first "
        "process after installing or upgrading triton hashes it, which adds 0.3-1.3 s to its first call."
    )
    return _section("Compile time (first call in a new process)", header, rows, intro)


def plot(data: dict, out: Path) -> list[str]:
    """One PNG per kernel and dtype, throughput against size, the roof as a dashed line; returns
    the file names."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    series: dict[tuple[str, str], list[dict]] = {}
    for row in data["cases"]:
        case = Case.from_json(row["case"])
        if not case.threads and case.kernel != "launch":
            series.setdefault((case.kernel, case.dtype), []).append(row)
    names = []
    for (kernel, dtype), rows in series.items():
        fig, ax = plt.subplots(figsize=(7, 4.5))
        x = list(range(len(rows)))
        for provider in PROVIDERS:
            ys = [value(r, provider) if provider in r["results"] else None for r in rows]
            if any(y is not None for y in ys):
                ax.plot(x, [float("nan") if y is None else y for y in ys], marker="o", label=provider)
        roof_name = Case.from_json(rows[0]["case"]).spec.roof
        roof = _roof(data["machine"], roof_name)
        if roof:
            ax.axhline(
                roof,
                color="gray",
                linestyle="--",
                label=f"{ROOF_NAMES[roof_name]} ({data['host']['threads']} threads, the run's best)",
            )
        ax.set_xticks(x, [r["label"] for r in rows])
        ax.set_yscale("log")
        ax.set_xlabel("size")
        ax.set_ylabel(rows[0]["unit"])
        ax.set_title(f"{kernel} {dtype}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
        fig.tight_layout()
        name = f"{kernel}-{dtype}.png"
        fig.savefig(out / name, dpi=100)
        plt.close(fig)
        names.append(name)
    return names


def write(data: dict, out: Path):
    notes = Notes()
    versions = ", ".join(f"{k} {v}" for k, v in data.get("versions", {}).items())
    load = "/".join(f"{x:.1f}" for x in data["load_start"]), "/".join(f"{x:.1f}" for x in data["load_end"])
    lines = [
        "# spine-triton benchmarks",
        "",
        f"`{data['command']}` ({data['mode']} mode), {data['date']}, {data['seconds']:.0f} s.",
        "",
        (
            f"Host: {data['host']['cpu']}, {data['host']['threads']} threads ({data['host']['machine']}); "
            f"{versions}; tree at {data['git']}. Load average (1/5/15 min) {load[0]} at the start, "
            f"{load[1]} at the end: on a shared machine, compare ratios measured in the same run."
        ),
        "",
        *_load_warning(data),
        *_pages_line(data),
        *_machine_section(data, notes),
        *_section(
            "Kernels",
            ["kernel", "dtype", "size", "unit", *PROVIDERS, "vs torch", "vs inductor", "% of peak", "notes"],
            kernel_rows(data, notes),
            intro=(
                "Throughput from the median time per call; `vs torch` and `vs inductor` are spine-triton's "
                "throughput over theirs (above 1: faster); `stream-triad` is the STREAM triad timed in "
                "turns with the GB/s rows' providers (the same rounds, cache clearing and median); "
                "`% of peak` is spine-triton's share of the all-threads FMA peak (GFLOP/s rows) or of "
                "that triad (GB/s rows: the median over rounds of its share of the triad's call in the "
                "same round)."
            ),
        ),
        *_scaling_section(data, notes),
        *_launch_section(data, notes),
        *_compile_section(data, notes),
    ]
    try:
        names = plot(data, out)
    except ImportError as e:
        lines += [f"Plots skipped: {e} (`pip install matplotlib`, or `pip install .[bench]`).", ""]
    else:
        lines += ["## Plots", "", *(f"![{name[:-4]}]({name})" for name in names), ""]
    if notes.numbers:
        lines += ["## Failures and skips", "", *notes.lines(), ""]
    (out / "results.md").write_text("\n".join(lines))
