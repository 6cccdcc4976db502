"""What the runnable examples share: the command line that picks the target, and the report.

    python3 examples/X.py                      the host CPU
    python3 examples/X.py --riscv              SpacemiT X60 (arch id 0x503C)
    python3 examples/X.py --arch-id 0xA03C     another SpacemiT core (implies --riscv)

A RISC-V target is selected the way spine-triton users do it (``CPUDriver().set_current_arch_id``);
off a RISC-V host its kernels are cross-compiled and run under qemu-riscv64. Setting
``SPINE_TRITON_TARGET`` (e.g. ``0xA03C``) instead of passing a flag selects the core as well. Each
case prints ``match`` or ``MISMATCH`` against torch; the last line counts them, and the exit status
is 1 when any case differs.
"""

import argparse
import os
import platform

import triton
from spine_triton import targets


def select_arch_id(arch_id):
    """Compiles every following launch for the SpacemiT core `arch_id`, as in spine-triton's posts."""
    from triton.backends.spine_triton.driver import CPUDriver

    driver = CPUDriver()
    driver.set_current_arch_id(arch_id)
    triton.runtime.driver.set_active(driver)


def current_target() -> targets.Target:
    """The target launches compile for now: the active driver's, which SPINE_TRITON_TARGET sets."""
    current = triton.runtime.driver.active.get_current_target()
    if current.backend != "cpu":
        raise SystemExit(f"the active Triton backend is {current.backend!r}: set TRITON_DEFAULT_BACKEND=cpu")
    return targets.resolve(current.arch)


def setup(description: str, argv=None) -> bool:
    """Parses the command line, selects the target and prints it. True when kernels run emulated
    (under qemu), so the example can keep its sizes small."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--riscv",
        action="store_true",
        help=f"compile for a SpacemiT RISC-V core (default 0x{targets.DEFAULT_RISCV_ARCH_ID:04X}, the X60); "
        "off a RISC-V host the kernels run under qemu-riscv64",
    )
    parser.add_argument("--arch-id", help=f"the SpacemiT core, implies --riscv: {targets.known_arch_ids()}")
    args = parser.parse_args(argv)
    # Triton 3.9 warns at every compile that FP fusion is left at its default; keep that default.
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    if args.riscv or args.arch_id:
        select_arch_id(args.arch_id or hex(targets.DEFAULT_RISCV_ARCH_ID))
    target = current_target()
    if target.name == targets.NATIVE:
        where = f"the host CPU ({platform.machine()})"
    elif target.emulated:
        where = f"{target.name} (arch id 0x{target.arch_id:04X}), emulated under qemu-riscv64"
    else:
        where = f"{target.name} (arch id 0x{target.arch_id:04X}), native"
    print(f"target: {where}")
    return target.emulated


def report(case: str, ok: bool, detail: str = "") -> bool:
    """Prints one case's verdict against torch; returns `ok`."""
    print(f"{case:<44} {'match' if ok else 'MISMATCH'}{f'  ({detail})' if detail else ''}")
    return ok


def finish(results) -> int:
    """Prints the summary line and returns the exit status: 0 when every case matches torch."""
    results = list(results)
    failed = results.count(False)
    if failed:
        print(f"MISMATCH: {failed} of {len(results)} cases differ from torch")
        return 1
    print(f"all {len(results)} cases match torch")
    return 0
