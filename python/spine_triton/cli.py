"""The ``spine-triton`` command: compile one @triton.jit kernel and show what the compiler made of it.

``spine-triton compile FILE.py:KERNEL`` runs the same backend stages as a kernel launch (through
``triton.compile``, so the Triton cache and ``SPINE_TRITON_DUMP_PATH`` apply) and prints any
stage, or the instruction mix of the kernel's innermost loops (``--stats``).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import platform
import re
import sys
import tempfile
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

STAGES = ("ttir", "linalg", "llmlir", "llir", "asm", "obj", "so")
# The core `--target riscv64` compiles for on a host that is not RISC-V (spacemit-x60, VLEN 256).
DEFAULT_RISCV_ARCH_ID = 0x503C

COMPILE_EXAMPLES = """\
examples:
  # the LLVM IR of the tutorial vector add
  spine-triton compile examples/demo.py:add_kernel --signature "*fp32,*fp32,*fp32,i32" \\
      --constexpr BLOCK_SIZE=1024 --emit llir

  # arguments by name; write the Linalg stage to a file
  spine-triton compile examples/demo.py:add_kernel \\
      --signature "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n_elements=i32" \\
      --constexpr BLOCK_SIZE=1024 --emit linalg -o add.linalg.mlir

  # did tl.dot become vector FMAs? (vfmadd on x86, vfmacc on RISC-V)
  spine-triton compile examples/demo.py:matmul_kernel \\
      --signature "*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32" \\
      --constexpr BLOCK_M=32 --constexpr BLOCK_N=32 --constexpr BLOCK_K=16 --stats
  # the same for a SpacemiT X60 (cross-compiled on x86-64)
  spine-triton compile examples/demo.py:matmul_kernel \\
      --signature "*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32" \\
      --constexpr BLOCK_M=32 --constexpr BLOCK_N=32 --constexpr BLOCK_K=16 \\
      --target riscv64 --arch-id 0x503C --stats

signature types: *fp32 *fp16 *bf16 *i32 ... (pointers), i1 i8 i16 i32 i64 u8 ... fp16 bf16 fp32 fp64;
TYPE:16 says the value is divisible by 16 (pointers: 16-byte aligned), as triton specializes a launch.
--stats disassembles the kernel object (llvm-objdump-22 -d) and counts, per innermost loop (a
natural loop of the control-flow graph) and per function, vector FMAs, other vector instructions,
scalar floating point and the rest.
"""


class UserError(Exception):
    """A mistake in the command line or in the kernel: reported without a traceback."""


class CompileFailed(Exception):
    """The kernel does not compile: the message names the kernel, the op and the source line."""


# --- loading the kernel -------------------------------------------------------------------------


def load_kernel(spec: str):
    """The JITFunction named by ``FILE.py:KERNEL`` (autotune/heuristics wrappers unwrapped)."""
    from triton.runtime.jit import JITFunction

    file, sep, name = spec.rpartition(":")
    if not sep or not file or not name:
        raise UserError(f"expected FILE.py:KERNEL, got {spec!r}")
    path = Path(file)
    if not path.is_file():
        raise UserError(f"no such file: {file}")
    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    if module_spec is None:
        raise UserError(f"cannot load {file} as Python source")
    module = importlib.util.module_from_spec(module_spec)
    # Registered like an imported module (dataclasses look it up); the file's siblings import too.
    sys.modules[module_spec.name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 -- whatever the user's file raises is theirs to fix
        frames = [f for f in traceback.extract_tb(e.__traceback__) if Path(f.filename) == path.resolve()]
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        raise UserError(f"running {file} failed{where}: {type(e).__name__}: {e}") from None

    def unwrap(obj):
        while obj is not None and not isinstance(obj, JITFunction) and hasattr(obj, "fn"):
            obj = obj.fn
        return obj if isinstance(obj, JITFunction) else None

    kernel = unwrap(getattr(module, name, None))
    if kernel is None:
        found = sorted(k for k, v in vars(module).items() if unwrap(v) is not None)
        what = "is not a @triton.jit kernel" if hasattr(module, name) else "not found"
        raise UserError(
            f"kernel '{name}' {what} in {file}; @triton.jit kernels there: {', '.join(found) or 'none'}"
        )
    return kernel


# --- signature and constexprs -------------------------------------------------------------------


def split_list(text: str) -> list[str]:
    """Splits on commas outside brackets: ``tensordesc<fp32[16, 16]>`` stays one item."""
    items, depth, current = [], 0, ""
    for ch in text:
        if ch in "<[(":
            depth += 1
        elif ch in ">])":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        items.append(current.strip())
    return items


def parse_type(name: str, text: str) -> tuple[str, bool]:
    """(canonical triton type, divisible by 16) of one signature entry such as ``*fp32:16``."""
    from triton._utils import type_canonicalisation_dict

    ty, _, hint = text.strip().partition(":")
    if hint and hint.strip() != "16":
        raise UserError(f"argument '{name}': the only hint is ':16' (divisible by 16), got {text!r}")
    if ty.startswith("tensordesc"):
        return ty, bool(hint)
    pointer = re.match(r"(?:\*k?)?", ty).group(0)
    element = type_canonicalisation_dict.get(ty[len(pointer) :])
    if element is None or element == "void":
        known = " ".join(sorted(set(type_canonicalisation_dict.values()) - {"void"}))
        raise UserError(f"argument '{name}': unknown type {ty!r}; types: {known}, *TYPE for pointers")
    return pointer + element, bool(hint)


def parse_constexpr(text: str):
    """A --constexpr value: a Python literal, a ``tl.<dtype>``, or else the string itself."""
    import triton.language as tl

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    dtype = getattr(tl, text.removeprefix("tl."), None)
    return dtype if isinstance(dtype, tl.dtype) else text


def build_signature(kernel, signature: str | None, constexpr_args: list[str]):
    """(signature, constexprs, attrs) for ASTSource from the command line's strings."""
    params = [p.name for p in kernel.params]
    constexprs = {}
    for item in constexpr_args:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in params:
            raise UserError(f"--constexpr {item!r}: expected NAME=VALUE with NAME one of {', '.join(params)}")
        constexprs[key] = parse_constexpr(value.strip())
    for p in kernel.params:
        if p.is_constexpr and p.name not in constexprs:
            if not p.has_default:
                raise UserError(
                    f"kernel '{kernel.__name__}' needs a value for constexpr '{p.name}': "
                    f"add --constexpr {p.name}=VALUE"
                )
            constexprs[p.name] = p.default
    runtime = [name for name in params if name not in constexprs]

    items = split_list(signature or "")
    named = [item for item in items if "=" in item]
    if named and len(named) != len(items):
        raise UserError("--signature: give every argument as NAME=TYPE, or only types in order")
    if named:
        given = {}
        for item in items:
            key, _, ty = item.partition("=")
            key = key.strip()
            if key in given:
                raise UserError(f"--signature: '{key}' is given twice")
            if key not in runtime:
                why = "is a constexpr" if key in constexprs else "is not an argument of the kernel"
                raise UserError(f"--signature: '{key}' {why}; runtime arguments: {', '.join(runtime)}")
            given[key] = ty
        if missing := [name for name in runtime if name not in given]:
            raise UserError(f"--signature: no type for {', '.join(missing)}")
        types = [given[name] for name in runtime]
    else:
        if len(items) != len(runtime):
            raise UserError(
                f"--signature: kernel '{kernel.__name__}' has {len(runtime)} runtime arguments "
                f"({', '.join(runtime) or 'none'}), got {len(items)} types"
            )
        types = items

    parsed = {name: parse_type(name, ty) for name, ty in zip(runtime, types)}
    sig = {name: "constexpr" if name in constexprs else parsed[name][0] for name in params}
    attrs = {(params.index(name),): [["tt.divisibility", 16]] for name, (_, div) in parsed.items() if div}
    return sig, constexprs, attrs


# --- target and compilation ---------------------------------------------------------------------


def target_name(target: str | None, arch_id: str | None) -> str:
    """The spine-triton target (GPUTarget arch) that --target / --arch-id select."""
    from . import targets

    host = platform.machine()
    if arch_id is not None:
        if target not in (None, "riscv64"):
            raise UserError("--arch-id selects a SpacemiT RISC-V core: use it with --target riscv64")
        try:
            return targets.from_arch_id(arch_id).name
        except ValueError as e:
            raise UserError(str(e)) from None
    if target in (None, host):
        return targets.NATIVE
    if target == "riscv64":
        return targets.SPACEMIT_TARGETS[DEFAULT_RISCV_ARCH_ID].name
    raise UserError(f"cannot compile for {target} on this {host} host: x86-64 code is only built natively")


@dataclass
class Compiled:
    kernel: object  # triton CompiledKernel
    backend: object  # CPUBackend
    options: object  # CPUOptions

    def stage(self, name: str) -> str | bytes:
        if name == "obj":
            return self.backend.make_obj(self.kernel.asm["llir"], {"name": self.kernel.name}, self.options)
        return self.kernel.asm[name]


def compile_kernel(kernel, signature, constexprs, attrs, arch: str) -> Compiled:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    from triton.compiler.errors import CompilationError

    from .compiler import KernelCompileError

    target = GPUTarget("cpu", arch, 1)
    backend = make_backend(target)
    options = backend.parse_options({})
    try:
        compiled = triton.compile(
            ASTSource(kernel, signature, constexprs, attrs), target=target, options=options.__dict__
        )
    except KernelCompileError as e:
        raise CompileFailed(str(e)) from None
    except CompilationError as e:
        # Triton's frontend counts lines from the kernel's `def`; name the file line too.
        where = ""
        if e.src == kernel.src and hasattr(e.node, "lineno"):
            where = f" at {kernel.fn.__code__.co_filename}:{kernel.def_file_line_number + e.node.lineno - 1}"
        raise CompileFailed(
            f"spine-triton cannot compile kernel '{kernel.__name__}' (frontend){where}:\n{e}"
        ) from None
    return Compiled(compiled, backend, options)


# --- instruction mix of the innermost loops -----------------------------------------------------

CATEGORIES = ("vector-FMA", "other-vector", "scalar-FP", "other")
_FUNCTION = re.compile(r"^([0-9a-f]+) <(.+)>:$")
_INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
_BRANCH_TARGET = re.compile(r"\b0x([0-9a-f]+) <")
_RISCV_FMA = re.compile(r"^vfw?n?m(?:acc|sac|add|sub)")
# vfmadd231ps (packed) is a vector FMA, vfmadd231ss (scalar) is scalar FP.
_X86_FMA = re.compile(r"^v?fn?m(?:add|sub|addsub|subadd)\d*(?P<kind>[ps])[sdh]$")
# Scalar SSE/AVX: *ss/*sd/*sh but not packed-integer (vpminsd) or broadcasts, and conversions.
_X86_SCALAR_FP = re.compile(r"^(?!v?p)(?!.*broadcast)\w*s[sdh]$|^v?cvtt?s[sdh]2|^v?u?comis[sdh]$")
_X86_VECTOR_OPERAND = re.compile(r"%[xyz]mm\d+|%k[0-7]\b")


def classify(machine: str, mnemonic: str, operands: str) -> str:
    if machine.startswith("riscv"):
        if _RISCV_FMA.match(mnemonic):
            return "vector-FMA"
        if mnemonic.startswith("v"):
            return "other-vector"
        if mnemonic.startswith("f") and not mnemonic.startswith("fence"):
            return "scalar-FP"
        return "other"
    if fma := _X86_FMA.match(mnemonic):
        return "vector-FMA" if fma["kind"] == "p" else "scalar-FP"
    if _X86_SCALAR_FP.match(mnemonic):
        return "scalar-FP"
    if _X86_VECTOR_OPERAND.search(operands) or mnemonic.startswith("k"):
        return "other-vector"
    if mnemonic.startswith("f"):  # x87
        return "scalar-FP"
    return "other"


def control_flow(machine: str, mnemonic: str, target: int | None) -> tuple[bool, list[int]] | None:
    """None for an instruction that continues to the next one (calls included), else (falls
    through, branch targets) of a branch, jump or return."""
    if machine.startswith("riscv"):
        if mnemonic in ("ret", "jr", "unimp", "ebreak"):
            return False, []
        if mnemonic == "j":
            return False, [target] if target is not None else []
        if mnemonic.startswith("b") and target is not None:  # Zbs bset/bclr/... have no target
            return True, [target]
        return None
    if mnemonic.startswith("ret") or mnemonic in ("ud2", "hlt"):
        return False, []
    if mnemonic.startswith("jmp"):
        return False, [target] if target is not None else []
    if mnemonic.startswith(("j", "loop")):
        return True, [target] if target is not None else []
    return None


@dataclass
class Region:
    function: str
    is_loop: bool  # else the whole function
    start: int  # the loop header's (or the function's) first address
    counts: Counter = field(default_factory=Counter)
    fma_mnemonics: Counter = field(default_factory=Counter)


def innermost_loops(insns: list[tuple[int, str, str]], machine: str) -> list[tuple[int, set[int]]]:
    """The innermost natural loops (back edges to a dominating header, as LLVM's LoopInfo finds
    them) of one function: (header address, addresses of the loop's instructions) each."""
    addrs = [addr for addr, _, _ in insns]
    inside = set(addrs)
    flow = {}
    for i, (addr, mnemonic, operands) in enumerate(insns):
        target = _BRANCH_TARGET.search(operands)
        target = int(target.group(1), 16) if target else None
        info = control_flow(machine, mnemonic, target)
        if info is not None:
            falls, targets = info
            # Jumps out of the function (tail calls) end the path.
            succ = [t for t in targets if t in inside] + (
                [addrs[i + 1]] if falls and i + 1 < len(insns) else []
            )
            flow[addr] = succ
    leaders = {addrs[0]} | {t for succ in flow.values() for t in succ}
    leaders |= {addrs[i + 1] for i, a in enumerate(addrs[:-1]) if a in flow}
    blocks = sorted(leaders)
    members: dict[int, list[int]] = {}  # block start -> its instructions
    block = addrs[0]
    for addr in addrs:
        block = addr if addr in leaders else block
        members.setdefault(block, []).append(addr)
    succs = {}
    for i, start in enumerate(blocks):
        following = [blocks[i + 1]] if i + 1 < len(blocks) else []
        succs[start] = flow.get(members[start][-1], following)

    reachable, stack = set(), [blocks[0]]
    while stack:
        b = stack.pop()
        if b not in reachable:
            reachable.add(b)
            stack.extend(succs[b])
    preds = {b: [p for p in reachable if b in succs[p]] for b in reachable}
    dom = {b: set(reachable) for b in reachable}
    dom[blocks[0]] = {blocks[0]}
    changed = True
    while changed:
        changed = False
        for b in sorted(reachable - {blocks[0]}):
            new = {b} | set.intersection(*(dom[p] for p in preds[b]))
            if new != dom[b]:
                dom[b], changed = new, True

    loops: dict[int, set[int]] = {}
    for tail in reachable:
        for header in succs[tail]:
            if header in dom[tail]:
                body, work = loops.setdefault(header, {header}), [tail]
                while work:
                    b = work.pop()
                    if b not in body:
                        body.add(b)
                        work.extend(preds[b])
    return [
        (header, {addr for b in body for addr in members[b]})
        for header, body in sorted(loops.items())
        if not any(other != header and other in body for other in loops)
    ]


def loop_stats(disassembly: str, machine: str) -> list[Region]:
    """Per function of ``llvm-objdump -d --no-show-raw-insn`` output: the instruction mix of each
    innermost loop, then of the whole function."""
    functions: dict[str, list[tuple[int, str, str]]] = {}
    current = None
    for line in disassembly.splitlines():
        if m := _FUNCTION.match(line):
            current = functions.setdefault(m.group(2), [])
        elif current is not None and (m := _INSTRUCTION.match(line)):
            current.append((int(m.group(1), 16), m.group(2), m.group(3).split("#")[0]))

    regions = []
    for name, insns in functions.items():
        if not insns:
            continue
        spans = [(True, header, body) for header, body in innermost_loops(insns, machine)]
        spans.append((False, insns[0][0], {addr for addr, _, _ in insns}))
        for is_loop, start, body in spans:
            region = Region(name, is_loop, start)
            for addr, mnemonic, operands in insns:
                if addr not in body:
                    continue
                kind = classify(machine, mnemonic, operands)
                region.counts[kind] += 1
                if kind == "vector-FMA":
                    region.fma_mnemonics[mnemonic] += 1
            regions.append(region)
    return regions


def format_stats(regions: list[Region], kernel_name: str, target) -> str:
    header = f"{'function':<30} {'region':<16} {'insns':>6}" + "".join(f" {c:>12}" for c in CATEGORIES)
    lines = [
        f"kernel {kernel_name}: {target.triple}, cpu {target.cpu} ({target.name})",
        "innermost loops (by header address) and whole functions, from llvm-objdump -d of the object:",
        header + "  FMA mnemonics",
    ]
    for r in regions:
        region = f"loop 0x{r.start:x}" if r.is_loop else "(function)"
        fmas = " ".join(f"{m} x{n}" for m, n in r.fma_mnemonics.most_common())
        lines.append(
            f"{r.function:<30} {region:<16} {sum(r.counts.values()):>6}"
            + "".join(f" {r.counts[c]:>12}" for c in CATEGORIES)
            + (f"  {fmas}" if fmas else "")
        )
    return "\n".join(lines) + "\n"


# --- command line -------------------------------------------------------------------------------


def write_output(data: str | bytes, out: str | None, stage: str):
    if out is not None:
        Path(out).write_bytes(data) if isinstance(data, bytes) else Path(out).write_text(data)
    elif isinstance(data, bytes):
        if sys.stdout.isatty():
            raise UserError(f"--emit {stage} is binary: write it to a file with -o FILE")
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)


def run_compile(args) -> None:
    if args.emit is None and not args.stats:
        raise UserError("nothing to do: give --emit STAGE and/or --stats")
    kernel = load_kernel(args.kernel)
    signature, constexprs, attrs = build_signature(kernel, args.signature, args.constexpr)
    compiled = compile_kernel(kernel, signature, constexprs, attrs, target_name(args.target, args.arch_id))
    if args.emit is not None:
        write_output(compiled.stage(args.emit), args.output, args.emit)
    if args.stats:
        from .compiler import disassemble

        target = compiled.backend.cpu_target
        with tempfile.TemporaryDirectory() as tmp:
            obj = Path(tmp) / f"{compiled.kernel.name}.o"
            obj.write_bytes(compiled.stage("obj"))
            disassembly = disassemble(obj, target, "--no-show-raw-insn")
        sys.stdout.write(format_stats(loop_stats(disassembly, target.machine), compiled.kernel.name, target))


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spine-triton",
        description="spine-triton: an open Triton backend for CPUs (x86-64, RISC-V RVV).",
        epilog="Every compilation (launches too) also writes all its stages to "
        "$SPINE_TRITON_DUMP_PATH/<kernel>-<hash>/ when that variable is set.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    compile_ = commands.add_parser(
        "compile",
        help="compile a @triton.jit kernel and print a stage or its hot-loop instruction mix",
        description="Compile one @triton.jit kernel through the same backend stages a launch runs "
        "(ttir -> linalg -> llmlir -> llir -> asm -> so) and print one stage, or the instruction mix "
        "of its innermost loops.",
        epilog=COMPILE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    compile_.add_argument(
        "kernel", metavar="FILE.py:KERNEL", help="the file defining the kernel, and its name"
    )
    compile_.add_argument(
        "--signature",
        "-s",
        metavar="SIG",
        help='runtime argument types, in order ("*fp32,*fp32,i32") or by name ("x_ptr=*fp32,n=i32")',
    )
    compile_.add_argument(
        "--constexpr",
        "-c",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a tl.constexpr argument's value (repeat per argument; defaults apply to the others); "
        "any other argument given here is specialized to the value, as triton does for constants",
    )
    compile_.add_argument(
        "--target",
        choices=("x86_64", "riscv64"),
        help="the ISA to compile for (default: this host); riscv64 on another host cross-compiles "
        f"for --arch-id (default 0x{DEFAULT_RISCV_ARCH_ID:04X})",
    )
    compile_.add_argument(
        "--arch-id",
        metavar="ID",
        help="a SpacemiT core: 0x503C x60, 0x5064 x100, 0x50C8 x200, 0xA03C a60, 0xA064 a100, "
        "0xA0C8 a200, 0xF000 a200m",
    )
    compile_.add_argument("--emit", choices=STAGES, help="the stage to print (obj and so are binary)")
    compile_.add_argument("-o", "--output", metavar="OUT", help="write the stage to OUT instead of stdout")
    compile_.add_argument(
        "--stats",
        action="store_true",
        help="print the instruction mix of the innermost loops: vector FMA / other vector / scalar FP / other",
    )
    compile_.set_defaults(run=run_compile)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    # Triton warns in every process that leaves FP fusion at its default; "1" is that default.
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    try:
        args.run(args)
    except UserError as e:
        print(f"spine-triton: error: {e}", file=sys.stderr)
        return 2
    except CompileFailed as e:
        print(e, file=sys.stderr)  # already "spine-triton cannot compile kernel ..."
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
