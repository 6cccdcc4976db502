"""spine-triton's benchmark suite: one command, one report.

    python bench/run.py [--quick | --smoke] [--out DIR] [--only KERNEL ...]

Measures the machine's limits (fp32 FMA peak, STREAM triad), then every kernel of bench/kernels.py
against torch eager, torch.compile (inductor) and numpy on the same inputs, compile times and
launch overhead, and writes DIR/results.md, DIR/results.json and one PNG plot per kernel and
dtype. docs/benchmarks.md explains every column.

This process never imports torch or triton: cases run in a worker process (bench/worker.py), so a
kernel that crashes or hangs is recorded as a failure and the run goes on in a new worker.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import cases
import machine
import report
from cases import Case

HERE = Path(__file__).resolve().parent

# A provider whose projected time per call (from the previous size of the same series) is over
# this many seconds is skipped: it bounds the run, as the sizes grow by up to 8x in work.
MAX_CALL_SECONDS = {"full": 5.0, "quick": 1.0, "smoke": 60.0}
# Any single measurement (compile, verify, time) taking longer than this is killed as hung.
TIMEOUT_SECONDS = {"full": 300.0, "quick": 120.0, "smoke": 600.0}
# For a new worker to import torch and triton: seconds, but far longer on a busy machine.
STARTUP_SECONDS = 180.0
# glibc: no mmap for large blocks, and never trim the heap (see where the worker starts).
MALLOC_KEEPS_FREED_MEMORY = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=1099511627776"


def _describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


_CRASH_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<fn>\S+)', re.MULTILINE)


def _crash_site(log_path: Path, offset: int) -> str:
    """Where faulthandler saw the crash, from the log written since `offset`: the innermost two
    Python frames, e.g. " at compiler.py:75 _run < compiler.py:277 make_llir"."""
    with open(log_path, "rb") as f:
        f.seek(offset)
        text = f.read().decode(errors="replace")
    _, fatal, dump = text.rpartition("Fatal Python error")
    frames = [f"{Path(m['file']).name}:{m['line']} {m['fn']}" for m in _CRASH_FRAME.finditer(dump)][:2]
    return f" at {' < '.join(frames)}" if fatal and frames else ""


class Worker:
    """The current worker process, started on demand and restarted after it dies or hangs."""

    def __init__(self, env: dict[str, str], log):
        self.env = env
        self.log = log
        self.log_offset = 0  # where this worker's part of the log starts
        self.proc: subprocess.Popen | None = None
        self.buffer = b""
        self.hello: dict = {}

    def _start(self):
        self.log_offset = os.fstat(self.log.fileno()).st_size
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "worker.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=self.env,
        )
        self.buffer = b""
        self.hello = self._read(STARTUP_SECONDS) or self.hello

    def _read(self, timeout: float) -> dict | None:
        """The next message, or None when the worker has exited. Reads the pipe unbuffered, so a
        message already received is never left waiting behind select()."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            if select.select([self.proc.stdout], [], [], remaining)[0]:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    return None
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def stop(self, grace: float = 0.0):
        """Ends the worker: closing its stdin lets it exit (and torch.compile shut its pools down)
        within `grace` seconds, else it is killed."""
        if self.proc is None:
            return
        self.proc.stdin.close()
        try:
            self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def _died(self, phase: str) -> str:
        returncode = self.proc.wait()
        self.proc = None
        site = _crash_site(Path(self.log.name), self.log_offset)
        return f"worker died ({_describe_exit(returncode)}) {phase}{site}; see worker.log"

    def run(self, case: Case, providers: list[str], timeout: float) -> dict[str, dict]:
        """{provider: {"ms": ...} or {"error": ...}} for each provider of `case`."""
        results: dict[str, dict] = {}
        pending = list(providers)
        while pending:
            # The provider the worker said it started and has not finished, and what it is doing.
            current, phase = None, "before starting a provider"
            failure = None
            try:
                if self.proc is None:
                    self._start()
                self.proc.stdin.write(
                    json.dumps({"case": case.to_json(), "providers": pending}).encode() + b"\n"
                )
                self.proc.stdin.flush()
                while (message := self._read(timeout)) is not None and message["event"] != "done":
                    if message["event"] == "start":
                        current, phase = message["provider"], "in its first call"
                    elif message["event"] == "timing":
                        current, phase = None, "while timing"
                    else:
                        current = None
                        results[message.pop("provider")] = {k: v for k, v in message.items() if k != "event"}
                if message is None:
                    failure = {"error": self._died(phase)}
            except BrokenPipeError:
                failure = {"error": self._died(phase)}
            except TimeoutError:
                self.stop()
                failure = {"error": f"timed out after {timeout:.0f} s {phase}", "timeout": True}
            if failure:
                unfinished = [p for p in pending if p not in results]
                # While timing, the providers take turns: the failure is every unfinished one's.
                for provider in unfinished if phase == "while timing" else [current or unfinished[0]]:
                    results[provider] = dict(failure)
            pending = [p for p in providers if p not in results]
        return results


class Budget:
    """Skips a provider on a size it cannot finish in time, judged by the previous size."""

    def __init__(self, max_call_seconds: float):
        self.max_call_seconds = max_call_seconds
        self.last: dict[tuple, tuple[float, float]] = {}  # (series, provider) -> (work, seconds)
        self.timed_out: set[tuple] = set()

    def skip_reason(self, case: Case, provider: str) -> str | None:
        if provider == cases.TRIAD:
            return None  # a streaming loop: never the slow one
        key = (case.series, provider)
        if key in self.timed_out:
            return "skipped: a smaller size timed out"
        if key in self.last:
            work, seconds = self.last[key]
            projected = seconds * case.work / work
            if projected > self.max_call_seconds:
                # The same message for every such skip: one footnote in the report.
                return f"skipped: a smaller size projects over {self.max_call_seconds:g} s per call"
        return None

    def record(self, case: Case, provider: str, result: dict):
        key = (case.series, provider)
        if "ms" in result:
            self.last[key] = (case.work, result["ms"] / 1e3)
        elif result.get("timeout"):
            self.timed_out.add(key)


def run_sweep(mode: str, selected: list[Case], worker: Worker) -> list[dict]:
    budget = Budget(MAX_CALL_SECONDS[mode])
    rows = []
    for i, case in enumerate(selected, 1):
        start = time.monotonic()
        results, to_run = {}, []
        for provider in cases.providers(case):
            reason = budget.skip_reason(case, provider)
            if reason:
                results[provider] = {"skipped": reason}
            else:
                to_run.append(provider)
        if to_run:
            results.update(worker.run(case, to_run, TIMEOUT_SECONDS[mode]))
        results = {p: results[p] for p in cases.providers(case)}  # the report's column order
        for provider, result in results.items():
            budget.record(case, provider, result)
        row = {
            "case": case.to_json(),
            "label": case.label,
            "unit": case.spec.unit,
            "work": case.work,
            "results": results,
        }
        rows.append(row)
        print(f"[{i}/{len(selected)}] {report.describe(row)} ({time.monotonic() - start:.0f} s)", flush=True)
    return rows


def run_compile_probes(kernels: list[str], env: dict[str, str], tmp: Path, log, timeout: float) -> dict:
    """Cold (fresh TRITON_CACHE_DIR) then cached (same directory, a second process) first-call
    times per kernel."""
    results = {}
    for kernel in kernels:
        probe_env = {**env, "TRITON_CACHE_DIR": str(tmp / f"probe-cache-{kernel}")}
        results[kernel] = {}
        for phase in ("cold", "cached"):
            cmd = [sys.executable, str(HERE / "worker.py"), "--compile-probe", kernel]
            offset = os.fstat(log.fileno()).st_size
            try:
                proc = subprocess.run(
                    cmd, check=False, stdout=subprocess.PIPE, stderr=log, env=probe_env, timeout=timeout
                )
            except subprocess.TimeoutExpired:
                results[kernel][phase] = {"error": f"timed out after {timeout:.0f} s"}
                continue
            if proc.returncode != 0:
                site = _crash_site(Path(log.name), offset)
                results[kernel][phase] = {
                    "error": f"probe died ({_describe_exit(proc.returncode)}){site}; see worker.log"
                }
            else:
                results[kernel][phase] = json.loads(proc.stdout.decode().strip().splitlines()[-1])
        print(f"compile time {kernel}: {report.describe_compile(results[kernel])}", flush=True)
    return results


def _git_revision() -> str:
    def git(*args):
        return subprocess.run(
            ["git", "-C", str(HERE), *args], capture_output=True, text=True, check=True
        ).stdout

    try:
        rev = git("rev-parse", "--short", "HEAD").strip()
        dirty = git("status", "--porcelain", "--untracked-files=no").strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{rev} (with uncommitted changes)" if dirty else rev


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="spine-triton benchmark suite")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="sizes up to 1024 (about 3 minutes)")
    size.add_argument("--smoke", action="store_true", help="tiny sizes: checks the suite runs, not speed")
    parser.add_argument("--out", type=Path, default=HERE / "results", help="output directory")
    parser.add_argument(
        "--small-pages",
        action="store_true",
        help="tensors in 4 KiB pages (default: transparent huge pages, THP_MEM_ALLOC_ENABLE=1)",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        choices=sorted(cases.KERNELS),
        metavar="KERNEL",
        help=f"measure only these kernels ({', '.join(cases.KERNELS)})",
    )
    args = parser.parse_args(argv)
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    selected = [c for c in cases.sweep(mode) if not args.only or c.kernel in args.only]
    args.out.mkdir(parents=True, exist_ok=True)

    data = {
        "command": shlex.join(["python", "bench/run.py", *(sys.argv[1:] if argv is None else argv)]),
        "mode": mode,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": {"cpu": machine.cpu_model(), "threads": machine.threads(), "machine": os.uname().machine},
        "git": _git_revision(),
        "pages": {"asked": "small" if args.small_pages else "huge", "system": machine.huge_page_setting()},
        "load_start": os.getloadavg(),
    }
    start = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="spine-triton-bench-") as tmp_name,
        open(args.out / "worker.log", "wb") as log,
    ):
        tmp = Path(tmp_name)
        # A fresh Triton cache: every kernel is compiled by the installed compiler, and the run
        # leaves nothing behind.
        env = {**os.environ, "TRITON_CACHE_DIR": str(tmp / "cache")}
        env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # silences triton 3.9's warning

        data["machine"] = machine.measure(mode, tmp, data["pages"]["asked"])
        print(f"machine: {report.describe_machine(data['machine'])}", flush=True)
        triad = machine.triad_in_turns(data["machine"], tmp)
        data["triad_in_turns"] = {k: v for k, v in triad.items() if k != "library"}
        # Outputs are allocated per call, as the tutorials' wrappers do. glibc hands blocks over
        # 32 MiB back to the kernel when freed, so each call would also fault in and zero its
        # output page by page (for every provider, at about 2 GB/s); kept in the heap instead,
        # they are reused, as a GPU's caching allocator reuses them.
        # torch allocates large tensors in transparent huge pages (unless --small-pages), as numpy
        # does for its own arrays and the machine-limit triad is told to: in one process, in
        # turns, layer norm and softmax at 4096 x 4096 ran 15-25% faster on tensors in huge pages,
        # the triad 0-10% (docs/benchmarks.md, session 26).
        # numpy's OpenBLAS threads busy-wait for about 2^28 cycles after each call, taking the
        # cores from whichever provider runs next in the round (measured: torch and spine-triton
        # 15-25% slower on a 256 fused matmul + softmax, numpy itself 5x); 2^4 cycles lets them
        # sleep at once.
        worker_env = {
            **env,
            "GLIBC_TUNABLES": MALLOC_KEEPS_FREED_MEMORY,
            "OPENBLAS_THREAD_TIMEOUT": "4",
            "THP_MEM_ALLOC_ENABLE": "0" if args.small_pages else "1",
            machine.TRIAD_ENV: json.dumps(triad),
        }
        worker = Worker(worker_env, log)
        try:
            data["cases"] = run_sweep(mode, selected, worker)
        finally:
            worker.stop(grace=30)
        data["versions"] = worker.hello.get("versions", {})
        probes = [k for k in cases.COMPILE_PROBES if not args.only or k in args.only]
        data["compile"] = run_compile_probes(probes, env, tmp, log, TIMEOUT_SECONDS[mode])
    data["load_end"] = os.getloadavg()
    data["seconds"] = time.monotonic() - start

    (args.out / "results.json").write_text(json.dumps(data, indent=1) + "\n")
    report.write(data, args.out)
    print(f"wrote {args.out / 'results.md'} in {data['seconds']:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
