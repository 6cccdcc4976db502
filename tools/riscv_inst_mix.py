#!/usr/bin/env python3
"""Dynamic instruction mix of the tutorial matmul compiled for a SpacemiT core, run under qemu-user.

    python tools/riscv_inst_mix.py [--arch-id 0x503C] [--size 128] [--block 32]

For each vec_method (``auto``: the register-blocked micro-kernel; ``none``: tl.dot left to the
scalar loops, which LLVM may still vectorize) it runs one single-threaded launch under
``qemu-riscv64 -d strace,in_asm,exec,nochain`` and counts every instruction executed from the
kernel's first instruction to its last: in the kernel library and in what it calls (malloc, memset,
...), split into vector FMA, other vector, scalar FP and other, with instructions per useful
multiply-add (M*N*K). qemu 7.2 has no instruction-counting plugin in Debian, so the counts come
from its logs: ``in_asm`` gives each translated block's instructions, ``exec`` (with ``nochain``)
every execution of a block, ``strace`` where the dynamic loader mapped the kernel library.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from array import array
from collections import Counter
from pathlib import Path

import torch
import triton
from spine_triton import emulation, targets
from triton.backends.spine_triton.driver import CPUDriver

# The tutorial matmul is defined once, in examples/ (a directory of scripts).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import tutorial_matmul

CLASSES = ("vector FMA", "other vector", "scalar FP", "other")
# vfmacc, vfnmsac, vfwmacc, vfmadd, ... and the integer vmacc, vmadd, vwmacc.
_VECTOR_FMA = re.compile(r"^v(f?w?n?m(acc|add|sac|sub)|w?macc|madd|nmsac|nmsub)")

_BLOCK_START = re.compile(r"^IN:")
_INSTRUCTION = re.compile(r"^0x([0-9a-f]+):\s+[0-9a-f]+\s+(\S+)")
_EXEC = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/")
_OPEN = re.compile(r'openat\(AT_FDCWD,"([^"]+)",.*\) = (\d+)$')
_MMAP = re.compile(r"mmap\(NULL,(\d+),PROT_EXEC[^,]*,[^,]+,(\d+),0\) = 0x([0-9a-f]+)$")


def classify(mnemonic: str) -> str:
    if _VECTOR_FMA.match(mnemonic):
        return "vector FMA"
    if mnemonic.startswith("v"):
        return "other vector"
    if mnemonic.startswith(("f", "c.f")) and not mnemonic.startswith("fence"):
        return "scalar FP"
    return "other"


def traced_matmul(size: int, block: int, vec_method: str, log: str):
    """Runs the matmul once under qemu with its logs going to `log`; returns the library path."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    c = torch.empty(size, size)
    blocks = {"BLOCK_SIZE_M": block, "BLOCK_SIZE_N": block, "BLOCK_SIZE_K": block, "GROUP_SIZE_M": 8}
    flags = os.environ.get(emulation.QEMU_FLAGS_ENV, "")
    os.environ[emulation.QEMU_FLAGS_ENV] = f"{flags} -d strace,in_asm,exec,nochain -D {log}"
    try:
        kernel = tutorial_matmul.launch(
            tutorial_matmul.matmul_kernel, a, b, c, **blocks, num_threads=1, vec_method=vec_method
        )
    finally:
        os.environ[emulation.QEMU_FLAGS_ENV] = flags
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-3)
    # An emulated kernel's function is the path of the library the runner loaded.
    return kernel.function


def instruction_mix(log: str, library: str) -> tuple[Counter, Counter, list]:
    """(counts in the kernel library, counts in what it calls, the kernel's hottest blocks as
    (library offset, instructions executed, their mix)) of the logged run."""
    blocks: dict[int, list[str]] = {}
    executed = array("Q")
    library_fd, text = None, None
    current = None
    with open(log, errors="replace") as lines:
        for line in lines:
            if current is not None:
                if match := _INSTRUCTION.match(line):
                    current.append(match.group(2))
                    continue
                current = None
            if match := _EXEC.match(line):
                executed.append(int(match.group(1), 16))
            elif _BLOCK_START.match(line):
                current = []
                start = next(lines)
                match = _INSTRUCTION.match(start)
                blocks[int(match.group(1), 16)] = current
                current.append(match.group(2))
            elif (match := _OPEN.search(line)) and match.group(1) == library:
                library_fd = match.group(2)
            elif text is None and (match := _MMAP.search(line)) and match.group(2) == library_fd:
                base = int(match.group(3), 16)
                text = (base, base + int(match.group(1)))
    if text is None:
        raise RuntimeError(f"the log does not show {library} being mapped")
    inside = [i for i, pc in enumerate(executed) if text[0] <= pc < text[1]]
    runs = Counter(executed[inside[0] : inside[-1] + 1])
    kernel, calls = Counter(), Counter()
    for pc, times in runs.items():
        counts = kernel if text[0] <= pc < text[1] else calls
        for mnemonic in blocks[pc]:
            counts[classify(mnemonic)] += times
    hot = sorted((pc for pc in runs if text[0] <= pc < text[1]), key=lambda pc: -runs[pc] * len(blocks[pc]))
    hottest = [(pc - text[0], runs[pc] * len(blocks[pc]), Counter(blocks[pc])) for pc in hot[:3]]
    return kernel, calls, hottest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--arch-id", default="0x503C", help="SpacemiT arch id (default 0x503C, X60)")
    parser.add_argument("--size", type=int, default=128, help="M = N = K (default 128)")
    parser.add_argument("--block", type=int, default=32, help="BLOCK_SIZE_M/N/K (default 32)")
    opts = parser.parse_args(argv)

    driver = CPUDriver()
    driver.set_current_arch_id(opts.arch_id)
    triton.runtime.driver.set_active(driver)
    target = targets.resolve(driver.get_current_target().arch)
    macs = opts.size**3
    print(
        f"tutorial matmul fp32, M=N=K={opts.size}, blocks {opts.block}, {target.name} under "
        f"qemu-riscv64 -cpu {emulation.qemu_cpu(target)}, 1 thread; {macs} multiply-adds"
    )
    header = f"{'vec_method':<11}{'where':<9}" + "".join(f"{c:>14}" for c in CLASSES)
    print(header + f"{'total':>14}{'per MAC':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for vec_method in ("auto", "none"):
            log = os.path.join(tmp, f"{vec_method}.log")
            library = traced_matmul(opts.size, opts.block, vec_method, log)
            kernel, calls, hottest = instruction_mix(log, library)
            for where, counts in (("kernel", kernel), ("calls", calls), ("all", kernel + calls)):
                total = sum(counts.values())
                cells = "".join(f"{counts[c]:>14}" for c in CLASSES)
                print(f"{vec_method:<11}{where:<9}{cells}{total:>14}{total / macs:>10.3f}")
            if fma := (kernel + calls)["vector FMA"]:
                print(f"{'':<11}useful multiply-adds per vector FMA: {macs / fma:.2f}")
            for offset, count, mix in hottest:
                top = ", ".join(f"{n} {m}" for m, n in mix.most_common(6))
                print(f"{'':<11}hot block at +0x{offset:x}: {count / macs:.3f} per MAC ({top}, ...)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
