#!/usr/bin/env python3
"""Mutation fuzzer for spine-triton's parser and pipelines, run in-process.

Seeds are the TTIR corpus (test/corpus/ttir/*.ttir) and its Linalg stage (each seed lowered with
triton-to-linalg-experimental when the fuzzer starts). Each input is a seed mutated a few times
(characters, tokens, numbers, types, tensor shapes, SSA names, op names, whole lines, lines
spliced from another seed) and runs through the same in-process stages a kernel launch does
(spine_triton._C): parse + verify, triton-to-linalg-experimental for TTIR, spine-triton-pipeline,
and for some inputs the LLVM stages (translation with line info, -O3, code generation for x86-64
or RISC-V). Every input must end in success or a diagnostic (CompileError).

A worker process loads the module once and forks a child per input (a fork server), so every
input starts from the same state and a crash belongs to the input that caused it: the child's
death (signal, abort, assertion) or its silence past the time limit (a hang) is reported by the
worker, and the input is saved with a report to the crashers directory. After each input the
child also churns the heap, so that memory corrupted without a crash shows up on that input.

    python3 tools/fuzz_pipeline.py --minutes 30               # a long run by hand, 2 workers
    python3 tools/fuzz_pipeline.py --seconds 60 --seed 1 --jobs 1
    python3 tools/fuzz_pipeline.py --replay FILE              # run one input in this process
    python3 tools/fuzz_pipeline.py --minimize FILE            # shrink a crasher, same failure

Inputs that reach a new outcome (a stage reached, or a first diagnostic not seen before) join
the corpus, so mutations build on each other. A crasher, once fixed, becomes a regression test in
test/lit/fuzz/. Exit status: 0 when nothing crashed or hung, 1 otherwise.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import random
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

REPO = Path(__file__).resolve().parent.parent
TTIR_CORPUS = REPO / "test" / "corpus" / "ttir"
T2L = "builtin.module(triton-to-linalg-experimental)"
LOWER = "builtin.module(spine-triton-pipeline{{vector-bits={bits} vector-registers={registers}}})"
# (vector bits, registers) of the targets spine-triton knows, plus "no vectors" (vec_method=none).
VECTOR_SHAPES = [(256, 16), (512, 32), (256, 32), (128, 32), (1024, 32), (0, 16)]
# Address-space cap of a worker: an input that asks for absurd memory fails there, not the machine.
WORKER_MEMORY = 6 << 30


# ---------------------------------------------------------------------------------------------
# The stages, as a launch runs them (worker side)


class Stages:
    """The in-process stages of spine_triton.compiler, on text."""

    def __init__(self):
        from spine_triton import _C, targets

        self._C = _C
        self.targets = [targets.resolve("native"), targets.resolve("spacemit-x60")]

    def run(self, kind: str, text: str, bits: int, registers: int, llvm: int, progress=None):
        """Runs `text` (TTIR or Linalg) through the stages. Returns (outcome, stage, message):
        outcome "ok" or "diagnostic" (a CompileError). `llvm`: 0 stops at the LLVM dialect, else
        1 + the index of the target whose LLVM stages run."""
        _C = self._C

        def stage(name, fn, *args, **kwargs):
            if progress:
                progress(name)
            return fn(*args, **kwargs)

        current = "parse"
        try:
            if kind == "ttir":
                current = "linalg"
                text = stage(current, _C.run_pipeline, text, T2L)
            current = "llmlir"
            text = stage(current, _C.run_pipeline, text, LOWER.format(bits=bits, registers=registers))
            if llvm:
                t = self.targets[(llvm - 1) % len(self.targets)]
                current = "llir"
                llir = stage(current, _C.translate_to_llvmir, text, line_info=True)
                llir = stage(current, _C.optimize_llvmir, llir, t.triple, t.cpu, t.features, opt_level=3)
                current = "obj"
                stage(current, _C.compile_llvmir, llir, t.triple, t.cpu, t.features, optimize=False)
        except _C.CompileError as e:
            message = str(e)
            # A stage's input that does not parse (or verify) is reported as such.
            return "diagnostic", "parse" if message.startswith("cannot parse") else current, message
        return "ok", current, ""


def _read_message(stream) -> dict | None:
    header = stream.read(4)
    if len(header) < 4:
        return None
    (size,) = struct.unpack("<I", header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return json.loads(data)


def _write_message(stream, message: dict):
    data = json.dumps(message).encode()
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()


def _churn_heap():
    """Allocates and frees blocks of every small size class and trims the heap: glibc checks the
    free lists on the way and aborts on a corrupted one (a write to freed memory)."""
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    for size in range(16, 1040, 16):
        blocks = [libc.malloc(size) for _ in range(8)]
        for block in blocks:
            libc.free(block)
    libc.malloc_trim(0)


def _run_forked(fn, timeout: float) -> dict:
    """`fn()` (a JSON-able dict) computed in a forked child: {"outcome": "crash"|"hang", ...}
    when the child dies or does not finish within `timeout` seconds."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 0
        try:
            os.close(read_end)
            data = json.dumps(fn()).encode()
            while data:
                data = data[os.write(write_end, data) :]
            os.close(write_end)
            _churn_heap()
        except BaseException:  # noqa: BLE001 - reported to the parent as the exit status
            import traceback

            traceback.print_exc()
            status = 3
        finally:
            sys.stderr.flush()
            os._exit(status)
    os.close(write_end)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"outcome": "hang", "detail": f"no result within {timeout:.0f} s"}
            data = os.read(read_end, 1 << 16)
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"outcome": "crash", "detail": f"killed by {_signal_name(os.WTERMSIG(status))}"}
    if os.WEXITSTATUS(status) != 0 or not chunks:
        return {"outcome": "crash", "detail": f"exited with status {os.WEXITSTATUS(status)}"}
    return json.loads(b"".join(chunks))


def worker_main():
    """Answers jobs from stdin on stdout until stdin closes, each in a forked child. Stage names
    go to stderr as they start, so the parent can name the stage of a crash."""
    import faulthandler
    import resource

    faulthandler.enable()
    # AddressSanitizer (scripts/sanitize.sh) reserves terabytes of address space for its shadow.
    if "libasan" not in os.environ.get("LD_PRELOAD", ""):
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = WORKER_MEMORY if hard == resource.RLIM_INFINITY else min(WORKER_MEMORY, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # Nothing but framed messages may reach the parent on stdout.
    sys.stdout = sys.stderr
    stages = Stages()
    # The harness's own test: "crash:TEXT" aborts, "hang:TEXT" sleeps, on inputs containing TEXT.
    selftest, _, marker = os.environ.get("SPINE_FUZZ_SELFTEST", "").partition(":")

    def progress(name):
        sys.stderr.write(f"[fuzz-stage] {name}\n")
        sys.stderr.flush()

    def run(job):
        progress("parse")
        if marker and marker in job["text"]:
            if selftest == "hang":
                time.sleep(3600)
            os.abort()
        try:
            outcome, stage, message = stages.run(
                job["kind"], job["text"], job["bits"], job["registers"], job["llvm"], progress
            )
        except Exception as e:  # noqa: BLE001 - anything but CompileError is a bug of its own
            outcome, stage, message = "exception", "python", f"{type(e).__name__}: {e}"
        return {"outcome": outcome, "stage": stage, "message": message[:2000]}

    def lower(seeds):
        lowered = {name: _lower(stages, text) for name, text in seeds.items()}
        return {"linalg": {name: text for name, text in lowered.items() if text is not None}}

    _write_message(stdout, {"ready": True})
    while (job := _read_message(stdin)) is not None:
        if job.get("op") == "lower_seeds":
            answer = _run_forked(lambda job=job: lower(job["seeds"]), job["timeout"])
        else:
            answer = _run_forked(lambda job=job: run(job), job["timeout"])
        _write_message(stdout, answer)


def _lower(stages: Stages, text: str) -> str | None:
    try:
        return stages._C.run_pipeline(text, T2L)
    except stages._C.CompileError:
        return None


# ---------------------------------------------------------------------------------------------
# Workers (parent side)


class WorkerDied(Exception):
    """The worker itself (not the child running an input) died or stopped answering."""


class Worker:
    """A fork-server process running Stages (see worker_main)."""

    def __init__(self, env=None):
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the worker
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
        )
        self.job = None
        self.deadline = None
        if not self._receive(120.0).get("ready"):
            raise RuntimeError("fuzz worker did not start")

    def send(self, job: dict, timeout: float):
        """Starts `job`; the worker gives it `timeout` seconds before calling it a hang."""
        self.job = {**job, "timeout": timeout}
        # The worker's own deadline is a backstop: its child is killed well before.
        self.deadline = time.monotonic() + timeout + 60
        self.clear_log()
        _write_message(self.proc.stdin, self.job)

    def fileno(self):
        return self.proc.stdout.fileno()

    def receive(self) -> dict:
        """The answer to the job sent, with "stage" and "detail" (the child's last stage and the
        tail of its stderr) for a crash or hang."""
        try:
            answer = self._receive(max(0.0, self.deadline - time.monotonic()))
        finally:
            self.job = None
        if answer.get("outcome") in ("crash", "hang"):
            answer["stage"] = self._last_stage()
            answer["detail"] += "\n" + self._log_tail()
        return answer

    def _receive(self, timeout: float) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.kill()
            raise WorkerDied(f"the fuzz worker did not answer within {timeout:.0f} s")
        message = _read_message(self.proc.stdout)
        if message is None:
            rc = self.proc.wait()
            raise WorkerDied(f"the fuzz worker exited ({rc}):\n{self._log_tail()}")
        return message

    def _log_text(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def _log_tail(self, lines: int = 60) -> str:
        text = [line for line in self._log_text().splitlines() if not line.startswith("[fuzz-stage]")]
        return "\n".join(text[-lines:])

    def _last_stage(self) -> str:
        stages = re.findall(r"^\[fuzz-stage\] (\S+)$", self._log_text(), re.MULTILINE)
        return stages[-1] if stages else "start"

    def clear_log(self):
        self.log.seek(0)
        self.log.truncate()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# ---------------------------------------------------------------------------------------------
# Mutations

_TOKEN = re.compile(
    r"%[\w.$-]+|#[\w.$-]+|\^[\w.$-]+|@[\w.$-]+|\"(?:[^\"\\\n]|\\.)*\"|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|"
    r"[A-Za-z_][\w.$]*|->|[^\s\w]"
)
_NUMBER = re.compile(r"(?<![\w.#%@^])-?\d+(?![\w.])")
_SSA = re.compile(r"%[\w.$-]+")
_TYPE = re.compile(r"\b(?:[iu](?:1|8|16|32|64)|f16|bf16|f32|f64|f8E5M2|index)\b")
_SHAPE = re.compile(r"(?<=tensor<)(\d+(?:x\d+)*)(?=x)|(?<=memref<)(\d+(?:x\d+)*)(?=x)")
_OP = re.compile(r"\b(?:tt|arith|math|scf|linalg|tensor|memref|func|bufferization|cf)\.[a-z_]+\b")
INTERESTING_NUMBERS = [
    "0", "1", "-1", "2", "3", "7", "16", "17", "255", "256", "1023", "1024", "4096", "65535",
    "65536", "2147483647", "-2147483648", "2147483648", "4294967295", "4294967296",
    "9223372036854775807", "-9223372036854775808", "18446744073709551616",
]  # fmt: skip
TYPES = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "index", "f8E5M2", "i3", "i128"]
RANDOM_TEXT = list('(){}[]<>,:=%#@^"!x0123456789-. \n') + ["\x00", "\t", "é", "\u2028", "->", "tensor<"]


# Interchangeable words: swapping one for another of its group usually keeps the IR valid and
# sends it down another lowering.
def _words(text: str) -> list[str]:
    return text.split()


_OP_GROUPS = [
    _words("addf subf mulf divf remf maximumf minimumf maxnumf minnumf"),
    _words(
        "addi subi muli divsi divui remsi remui andi ori xori maxsi minsi maxui minui shli shrsi "
        "shrui ceildivsi floordivsi"
    ),
    _words("extsi extui"),
    _words("sitofp uitofp"),
    _words("fptosi fptoui"),
    _words("exp exp2 log log2 log10 sqrt rsqrt sin cos tan tanh erf absf floor ceil log1p expm1"),
]
# (a pattern whose one group is the word, the word's alternatives)
_WORD_CONTEXTS = [
    *((r"\b(?:arith|math)\.(" + "|".join(g) + r")\b", g) for g in _OP_GROUPS),
    (r"\barith\.cmpi (\w+),", _words("eq ne slt sle sgt sge ult ule ugt uge")),
    (r"\barith\.cmpf (\w+),", _words("oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno")),
    (r"\btt\.get_program_id (\w)\b", _words("x y z")),
    (r"\btt\.atomic_rmw (\w+),", _words("add fadd max min umax umin and or xor exch")),
    (r"\b(acq_rel|acquire|release|relaxed)\b", _words("acq_rel acquire release relaxed")),
    (r"\b(gpu|cta|sys)\b", _words("gpu cta sys")),
]
_CONSTANT = re.compile(r"(?<=arith\.constant )(?:dense<)?(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|true|false)")
_DEF = re.compile(r"^\s*(%[\w.$-]+)\s*=\s*(.*?)(?:\s+loc\(.*)?$")
_BLOCK_ARG = re.compile(r"(%[\w.$-]+): ([^\s,()]+(?:<[^>]*>)?)")


@dataclass
class Seed:
    kind: str  # "ttir" or "linalg"
    name: str
    text: str


@dataclass
class Mutator:
    rng: random.Random
    seeds: list[Seed]
    op_names: list[str] = field(default_factory=list)

    def __post_init__(self):
        names = set()
        for seed in self.seeds:
            names.update(_OP.findall(seed.text))
        self.op_names = sorted(names)

    def mutate(self, text: str) -> str:
        for _ in range(self.rng.choice([1, 1, 1, 1, 2, 2, 3, 5])):
            name = self.rng.choices(list(self.STRATEGIES), weights=self.STRATEGIES.values())[0]
            text = getattr(self, name)(text) or text
        return text

    # Each strategy returns the mutated text (or None to leave it).

    def _replace_match(self, text: str, pattern: re.Pattern, replacement) -> str | None:
        matches = list(pattern.finditer(text))
        if not matches:
            return None
        m = self.rng.choice(matches)
        return text[: m.start()] + replacement(m.group(0)) + text[m.end() :]

    def number(self, text):
        return self._replace_match(
            text,
            _NUMBER,
            lambda old: self.rng.choice(
                [*INTERESTING_NUMBERS, str(int(old) + self.rng.choice([-1, 1])), str(int(old) * 2)]
            ),
        )

    def type_swap(self, text):
        return self._replace_match(text, _TYPE, lambda old: self.rng.choice(TYPES))

    def shape(self, text):
        def new_shape(old):
            dims = old.split("x")
            i = self.rng.randrange(len(dims))
            dims[i] = self.rng.choice(["0", "1", "2", "3", "5", "64", "4096", str(int(dims[i]) * 2)])
            if self.rng.random() < 0.2:
                dims.insert(i, self.rng.choice(["1", "2", "4"]))
            elif self.rng.random() < 0.2 and len(dims) > 1:
                del dims[i]
            return "x".join(dims)

        return self._replace_match(text, _SHAPE, new_shape)

    def ssa_swap(self, text):
        names = sorted(set(_SSA.findall(text)))
        if len(names) < 2:
            return None
        return self._replace_match(text, _SSA, lambda old: self.rng.choice(names))

    def op_swap(self, text):
        return self._replace_match(text, _OP, lambda old: self.rng.choice(self.op_names))

    def constant(self, text):
        """A new value for a constant: numbers that stress ranges, shifts and divisions."""

        def value(old):
            if old in ("true", "false"):
                return self.rng.choice(["true", "false"])
            if "." in old or "e" in old:
                return self.rng.choice(["0.0", "-0.0", "1.0e+38", "-1.0e-45", "3.5", "0x7FC00000"])
            return self.rng.choice(INTERESTING_NUMBERS[:17])

        return self._replace_match(text, _CONSTANT, value)

    def typed_ssa_swap(self, text):
        """A use of a value replaced by an earlier value of the same type: different dataflow
        through IR that usually still verifies."""
        lines = text.split("\n")
        defined = []  # (line, name, type)
        for i, line in enumerate(lines):
            if m := _DEF.match(line):
                ty = m.group(2).rsplit(" : ", 1)[-1].rsplit("-> ", 1)[-1].strip()
                defined.append((i, m.group(1), ty))
            elif line.lstrip().startswith("^"):
                defined += [(i, name, ty) for name, ty in _BLOCK_ARG.findall(line)]
        types = {name: ty for _, name, ty in defined}
        uses = [
            (i, m)
            for i, line in enumerate(lines)
            for m in _SSA.finditer(line)
            if m.group(0) in types and not _DEF.match(line[: m.end()] + " = ")
        ]
        self.rng.shuffle(uses)
        for i, m in uses[:20]:
            ty = types[m.group(0)]
            candidates = [n for j, n, t in defined if j < i and t == ty and n != m.group(0)]
            if candidates:
                lines[i] = lines[i][: m.start()] + self.rng.choice(candidates) + lines[i][m.end() :]
                return "\n".join(lines)
        return None

    def word_swap(self, text):
        """An op, predicate or keyword replaced by another of its group (addf -> maxnumf, slt -> uge,
        exp -> rsqrt, ...)."""
        matches = []
        for pattern, group in _WORD_CONTEXTS:
            matches += [(m, group) for m in re.finditer(pattern, text)]
        if not matches:
            return None
        m, group = self.rng.choice(matches)
        return text[: m.start(1)] + self.rng.choice(group) + text[m.end(1) :]

    def token_delete(self, text):
        return self._replace_match(text, _TOKEN, lambda old: "")

    def token_duplicate(self, text):
        return self._replace_match(text, _TOKEN, lambda old: old + " " + old)

    def char(self, text):
        if not text:
            return None
        i = self.rng.randrange(len(text))
        choice = self.rng.random()
        if choice < 0.4:
            return text[:i] + self.rng.choice(RANDOM_TEXT) + text[i:]
        if choice < 0.7:
            return text[:i] + text[i + self.rng.randint(1, 8) :]
        return text[:i] + self.rng.choice(RANDOM_TEXT) + text[i + 1 :]

    def truncate(self, text):
        return text[: self.rng.randrange(len(text) + 1)] if text else None

    def _lines(self, text):
        lines = text.split("\n")
        return lines, self.rng.randrange(len(lines))

    def line_delete(self, text):
        lines, i = self._lines(text)
        del lines[i : i + self.rng.choice([1, 1, 1, 2, 5])]
        return "\n".join(lines)

    def line_duplicate(self, text):
        lines, i = self._lines(text)
        lines.insert(self.rng.randrange(len(lines) + 1), lines[i])
        return "\n".join(lines)

    def line_swap(self, text):
        lines, i = self._lines(text)
        j = self.rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines)

    def splice(self, text):
        """Lines of another seed (of either stage) inserted at a random line."""
        other = self.rng.choice(self.seeds).text.split("\n")
        start = self.rng.randrange(len(other))
        chunk = other[start : start + self.rng.choice([1, 1, 2, 3, 8])]
        lines, i = self._lines(text)
        lines[i:i] = chunk
        return "\n".join(lines)

    # Strategy names and how often each is picked.
    STRATEGIES: ClassVar[dict[str, int]] = {
        "constant": 4, "typed_ssa_swap": 4, "word_swap": 5,
        "number": 2, "type_swap": 2, "shape": 2, "ssa_swap": 1, "op_swap": 1, "token_delete": 1,
        "token_duplicate": 1, "char": 2, "truncate": 1, "line_delete": 2, "line_duplicate": 1,
        "line_swap": 1, "splice": 2,
    }  # fmt: skip


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("//"))


def load_ttir_seeds() -> list[Seed]:
    return [
        Seed("ttir", path.stem, _strip_comments(path.read_text()))
        for path in sorted(TTIR_CORPUS.glob("*.ttir"))
    ]


# ---------------------------------------------------------------------------------------------
# The fuzzing loop


_DIGITS = re.compile(r"\d+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|%[\w.$-]+|@[\w.$-]+")


def _signature(answer: dict) -> str:
    """Coarse behaviour of an input: the stage reached and the kind of its first diagnostic."""
    first = ""
    for line in answer["message"].splitlines():
        if "error:" in line:
            first = line.split("error:", 1)[1]
            break
    first = _DIGITS.sub("N", _QUOTED.sub("Q", first))[:120]
    return f"{answer['outcome']}:{answer['stage']}:{first}"


@dataclass
class Failure:
    kind: str  # "crash", "hang" or "exception"
    stage: str
    detail: str
    job: dict

    @property
    def key(self) -> str:
        """Failures with the same key are one bug as far as the fuzzer can tell."""
        first = self.detail.splitlines()[0] if self.detail else ""
        return f"{self.kind}:{self.stage}:{first}"


@dataclass
class Stats:
    executions: int = 0
    outcomes: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)
    restarts: int = 0
    corpus: int = 0


def save_failure(failure: Failure, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    job = failure.job
    digest = hashlib.sha1(job["text"].encode(errors="surrogatepass")).hexdigest()[:12]
    suffix = "ttir" if job["kind"] == "ttir" else "mlir"
    path = out_dir / f"{failure.kind}-{failure.stage}-{digest}.{suffix}"
    path.write_text(job["text"], errors="surrogatepass")
    report = {
        "kind": failure.kind,
        "stage": failure.stage,
        "input_kind": job["kind"],
        "bits": job["bits"],
        "registers": job["registers"],
        "llvm": job["llvm"],
        "detail": failure.detail,
        "replay": (
            f"python3 tools/fuzz_pipeline.py --replay {path} --kind {job['kind']} --bits {job['bits']} "
            f"--registers {job['registers']} --llvm {job['llvm']}"
        ),
    }
    path.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    return path


def lower_seeds(ttir: list[Seed], env) -> list[Seed]:
    """The Linalg stage of every TTIR seed that lowers, computed by a worker."""
    worker = Worker(env)
    try:
        worker.send({"op": "lower_seeds", "seeds": {s.name: s.text for s in ttir}}, timeout=600)
        answer = worker.receive()
    finally:
        worker.close()
    if "linalg" not in answer:
        print(f"fuzz: lowering the seeds failed: {answer.get('detail')}", file=sys.stderr)
        return []
    return [Seed("linalg", name, _strip_comments(text)) for name, text in sorted(answer["linalg"].items())]


def fuzz(args) -> Stats:
    rng = random.Random(args.seed)
    env = dict(os.environ)
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    seeds = load_ttir_seeds()
    if args.only:
        seeds = [s for s in seeds if re.search(args.only, s.name)]
    if not args.no_linalg:
        seeds += lower_seeds(seeds, env)
    if not seeds:
        raise SystemExit("fuzz: no seeds")
    mutator = Mutator(rng, seeds)
    corpus = list(seeds)
    seen: set[str] = set()
    stats = Stats()
    failure_keys: dict[str, int] = {}
    crashers = Path(args.crashers)

    def new_job():
        seed = rng.choice(corpus)
        bits, registers = rng.choice(VECTOR_SHAPES)
        llvm = 0 if rng.random() >= args.llvm_fraction else rng.randint(1, 2)
        return {"kind": seed.kind, "text": mutator.mutate(seed.text), "bits": bits,
                "registers": registers, "llvm": llvm}  # fmt: skip

    def record(failure: Failure):
        stats.failures.append(failure)
        count = failure_keys[failure.key] = failure_keys.get(failure.key, 0) + 1
        if count <= args.keep_per_bug:
            path = save_failure(failure, crashers)
            print(f"fuzz: {failure.kind} at stage {failure.stage}: {path}", flush=True)
            if not args.quiet:
                print("    " + "\n    ".join(failure.detail.splitlines()[-12:]), flush=True)

    deadline = time.monotonic() + args.seconds
    workers = [Worker(env) for _ in range(args.jobs)]
    last_report = time.monotonic()
    try:
        while True:
            now = time.monotonic()
            running = now < deadline and (args.runs == 0 or stats.executions < args.runs)
            for i, worker in enumerate(workers):
                if worker.job is None and running:
                    worker.send(new_job(), args.timeout)
            busy = [w for w in workers if w.job is not None]
            if not busy:
                break
            wait = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready, _, _ = select.select(busy, [], [], wait)
            for worker in busy if not ready else ready:
                if worker not in ready and time.monotonic() < worker.deadline:
                    continue
                job = worker.job
                stats.executions += 1
                try:
                    answer = worker.receive()
                except WorkerDied as died:
                    record(Failure("worker", "worker", str(died), job))
                    workers[workers.index(worker)] = Worker(env)
                    stats.restarts += 1
                    continue
                outcome = answer["outcome"]
                key = f"{outcome}@{answer['stage']}"
                stats.outcomes[key] = stats.outcomes.get(key, 0) + 1
                if outcome in ("crash", "hang"):
                    record(Failure(outcome, answer["stage"], answer["detail"], job))
                    continue
                if outcome == "exception":
                    record(Failure(outcome, answer["stage"], answer["message"], job))
                    continue
                signature = _signature(answer)
                if signature not in seen:
                    seen.add(signature)
                    if len(corpus) < args.max_corpus:
                        corpus.append(Seed(job["kind"], f"new{len(corpus)}", job["text"]))
            if not args.quiet and time.monotonic() - last_report > 30:
                last_report = time.monotonic()
                print(f"fuzz: {_summary(stats, len(corpus))}", flush=True)
    finally:
        for worker in workers:
            worker.close()
    stats.corpus = len(corpus)
    return stats


def _summary(stats: Stats, corpus: int) -> str:
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(stats.outcomes.items()))
    kinds = {}
    for failure in stats.failures:
        kinds[failure.kind] = kinds.get(failure.kind, 0) + 1
    failures = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none"
    return f"executions {stats.executions} ({outcomes}); failures: {failures}; corpus {corpus}"


# ---------------------------------------------------------------------------------------------
# Replay and minimization


def _job_from_args(args, text: str) -> dict:
    kind = args.kind or ("ttir" if re.search(r"\btt\.func\b", text) else "linalg")
    return {"kind": kind, "text": text, "bits": args.bits, "registers": args.registers, "llvm": args.llvm}


def replay(args) -> int:
    """Runs one input through the stages in this process: exit 0 on success, 1 on a diagnostic
    (printed to stderr). A crash is this process's crash."""
    job = _job_from_args(args, Path(args.replay).read_text())
    outcome, stage, message = Stages().run(
        job["kind"], job["text"], job["bits"], job["registers"], job["llvm"]
    )
    if outcome == "ok":
        print(f"replay: ok through stage {stage}")
        return 0
    print(message, file=sys.stderr)
    return 1


def _ddmin(units: list, fails) -> list:
    """Removes chunks of `units` (halving the chunk size) while `fails` still holds."""
    chunk = max(1, len(units) // 2)
    while chunk >= 1:
        i, changed = 0, False
        while i < len(units):
            candidate = units[:i] + units[i + chunk :]
            if candidate and fails(candidate):
                units, changed = candidate, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return units


def minimize(args) -> int:
    """Line-wise delta debugging: the smallest input (by lines) that still fails the same way
    (crash or hang, at the same stage) as the given one."""
    path = Path(args.minimize)
    job = _job_from_args(args, path.read_text())
    worker = Worker(dict(os.environ))

    def outcome(text: str) -> str:
        worker.send({**job, "text": text}, args.timeout)
        answer = worker.receive()
        return f"{answer['outcome']}:{answer['stage']}"

    target = outcome(job["text"])
    if not target.startswith(("crash:", "hang:")):
        print(f"minimize: {path} does not crash or hang ({target})", file=sys.stderr)
        return 1
    print(f"minimize: failure to keep: {target}")

    lines = _ddmin(job["text"].split("\n"), lambda candidate: outcome("\n".join(candidate)) == target)
    text = "\n".join(lines)
    worker.close()
    out = Path(args.output or path.with_name(path.stem + ".min" + path.suffix))
    out.write_text(text + "\n")
    print(f"minimize: {len(job['text'].splitlines())} -> {len(lines)} lines: {out}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=60.0, help="fuzzing time (default 60)")
    budget.add_argument("--minutes", type=float, help="fuzzing time in minutes")
    parser.add_argument("--runs", type=int, default=0, help="stop after this many executions")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from time)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: cores)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per input before a hang")
    parser.add_argument("--llvm-fraction", type=float, default=0.2,
                        help="share of inputs that also run the LLVM stages (default 0.2)")  # fmt: skip
    parser.add_argument("--crashers", default=str(REPO / "build" / "fuzz" / "crashers"))
    parser.add_argument("--keep-per-bug", type=int, default=3, help="inputs saved per distinct failure")
    parser.add_argument("--max-corpus", type=int, default=2000)
    parser.add_argument("--only", help="regex: only TTIR seeds whose name matches")
    parser.add_argument("--no-linalg", action="store_true", help="no Linalg seeds")
    parser.add_argument("--json", help="write the summary as JSON to this file")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--replay", metavar="FILE", help="run one input in-process")
    parser.add_argument("--minimize", metavar="FILE", help="shrink a failing input")
    parser.add_argument("--output", help="--minimize: where to write (default FILE.min.EXT)")
    parser.add_argument("--kind", choices=["ttir", "linalg"], help="input stage (default: guessed)")
    parser.add_argument("--bits", type=int, default=256)
    parser.add_argument("--registers", type=int, default=16)
    parser.add_argument("--llvm", type=int, default=0, help="1: LLVM stages for x86-64, 2: RISC-V")
    args = parser.parse_args(argv)

    if args.worker:
        worker_main()
        return 0
    if args.replay:
        return replay(args)
    if args.minimize:
        return minimize(args)
    if args.minutes is not None:
        args.seconds = args.minutes * 60
    if args.seed is None:
        args.seed = int(time.time())
    if args.jobs is None:
        args.jobs = max(1, len(os.sched_getaffinity(0)))
    print(f"fuzz: seed {args.seed}, {args.seconds:.0f} s, {args.jobs} worker(s), crashers in {args.crashers}")
    stats = fuzz(args)
    print(f"fuzz: {_summary(stats, stats.corpus)}")
    distinct = sorted({f.key for f in stats.failures})
    for key in distinct:
        print(f"fuzz: distinct failure {key}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "seed": args.seed,
                    "executions": stats.executions,
                    "outcomes": stats.outcomes,
                    "failures": [{"kind": f.kind, "stage": f.stage, "key": f.key} for f in stats.failures],
                    "distinct_failures": distinct,
                    "restarts": stats.restarts,
                    "corpus": stats.corpus,
                },
                indent=2,
            )
            + "\n"
        )
    return 1 if stats.failures else 0


if __name__ == "__main__":
    sys.exit(main())
