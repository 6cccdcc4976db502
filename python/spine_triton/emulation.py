"""Emulated execution: kernels compiled for RISC-V run under qemu-user on an x86-64 host.

docs/kernel-abi.md, "Emulated RISC-V execution", describes the protocol. A launch copies every
tensor storage a pointer argument lives in into one arena file in ``/dev/shm``, writes the launch
header (entry point, grid, threads, argument slots with pointers as arena offsets) in front of
them, runs ``spine-triton-riscv-runner`` under ``qemu-riscv64`` and copies the storages back.
qemu-user runs the guest inside its own host process, so the runner's shared mapping of the file
is plain host memory: nothing is serialised but the arena itself.
"""

from __future__ import annotations

import ctypes
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import tempfile
from pathlib import Path

from . import targets

RUNNER = Path(__file__).parent / "bin" / "spine-triton-riscv-runner"
# Debian's riscv64 cross sysroot: the guest's ld.so, libc, libm and libgomp.
SYSROOT = "/usr/riscv64-linux-gnu"
# Extra qemu-riscv64 options for every emulated launch, e.g. "-d in_asm -D qemu.log" or "-strace".
QEMU_FLAGS_ENV = "SPINE_TRITON_QEMU_FLAGS"

# The runner's ArenaHeader (cpp/runtime/RiscvRunner.cpp): magic, version, slot count, grid,
# threads, launch flags (SpineLaunchFlags), entry symbol.
_HEADER = struct.Struct("<8sII3qiI256s")
_MAGIC = b"SPINEEMU"
_VERSION = 1
# Storages are placed at their host address modulo this, so every pointer keeps the alignment
# Triton specialised the kernel on (16-byte divisibility) and any the allocator gave.
_ALIGN = 64
# driver._slots passes a pointer as `<argument>.data_ptr()`: such slots are relocated.
_POINTER_SLOT = re.compile(r"^(?P<obj>.+)\.data_ptr\(\)$")


# How the runner reports a failed tl.device_assert: this exit status, and after the marker line
# in stderr the line, the program id, the file, the function and the message (the rest).
_ASSERT_FAILED = 3
_ASSERT_MARKER = "spine-triton-riscv-runner: device assert\n"


def _device_assertion(stderr: str):
    from .driver import DeviceAssertionError

    report = stderr[stderr.index(_ASSERT_MARKER) + len(_ASSERT_MARKER) :]
    line, pid, file, function, message = report.split("\n", 4)
    return DeviceAssertionError(message, file, int(line), function, tuple(int(v) for v in pid.split()))


class EmulationError(RuntimeError):
    """The emulated launch failed: the runner exited with an error or a signal."""


def qemu_cpu(target: targets.Target) -> str:
    """The qemu ``-cpu`` model of `target`: RVV 1.0 at the target's VLEN, plus the scalar
    extensions LLVM's RVA22 CPUs use that qemu 7.2 implements (Zfh, Zba, Zbb, Zbs)."""
    vlen = target.vlen or 128
    return f"rv64,v=true,vext_spec=v1.0,vlen={vlen},elen=64,Zfh=true,Zfhmin=true,zba=true,zbb=true,zbs=true"


def command(target: targets.Target, arena: str, library: str) -> list[str]:
    """The qemu-user command line that runs one launch."""
    qemu = shutil.which("qemu-riscv64")
    if qemu is None:
        raise EmulationError(
            f"spine-triton: running kernels compiled for {target.name} on this "
            f"{os.uname().machine} host needs qemu-riscv64: apt-get install qemu-user"
        )
    if not RUNNER.exists():
        raise EmulationError(
            f"spine-triton: {RUNNER} is missing: it is built with the riscv64 cross compiler; "
            "apt-get install g++-riscv64-linux-gnu, then reinstall spine-triton"
        )
    flags = shlex.split(os.environ.get(QEMU_FLAGS_ENV, ""))
    return [qemu, "-cpu", qemu_cpu(target), "-L", SYSROOT, *flags, str(RUNNER), arena, library]


def _torch_tensor(obj):
    import torch

    # triton.reinterpret wraps a tensor in a TensorWrapper whose `base` is the tensor.
    while not isinstance(obj, torch.Tensor):
        if not hasattr(obj, "base"):
            raise TypeError(f"spine-triton: emulated launches take torch tensors, got {type(obj)}")
        obj = obj.base
    if obj.device.type != "cpu":
        raise TypeError(f"spine-triton: emulated launches take CPU tensors, got one on {obj.device}")
    return obj


def make_packer(signature):
    """A function of all kernel arguments returning (the slot values, {slot index: the tensor
    whose address it holds}). The slots are those of driver.make_arg_packer, with 0 in pointer
    slots."""
    from .driver import _bf16_bits, _generated, _slots

    params = [f"a{i}" for i in range(len(signature))]
    slots = [slot for param, ty in zip(params, signature) for slot in _slots(ty, param)]
    values, pointers = [], []
    for index, (code, expr) in enumerate(slots):
        if match := _POINTER_SLOT.match(expr):
            values.append("0")
            pointers.append(f"{index}: {match.group('obj')}")
        else:
            values.append(expr)
    layout = struct.Struct("<" + "".join(code for code, _ in slots))
    source = (
        f"def pack({', '.join(params)}):\n    return _pack({', '.join(values)}), {{{', '.join(pointers)}}}\n"
    )
    return _generated(source, "pack", {"_pack": layout.pack, "_bf16_bits": _bf16_bits}), len(slots)


def _bytes_at(address: int, size: int):
    return (ctypes.c_char * size).from_address(address)


class Emulator:
    """Launches one kernel's library under qemu-user."""

    def __init__(
        self,
        target: targets.Target,
        entry: str,
        signature,
        num_threads: int,
        independent_programs: bool = False,
        tile_cache: bool = False,
    ):
        if len(entry.encode()) >= 256:
            raise EmulationError(f"spine-triton: entry point name too long to emulate: {entry}")
        self.target = target
        self.entry = entry
        self.pack, self.num_slots = make_packer(signature)
        self.num_threads = num_threads
        # SPINE_LAUNCH_INDEPENDENT_PROGRAMS (cpp/runtime/Launcher.h).
        self.launch_flags = 1 if independent_programs else 0
        # A kernel that takes the tile cache gets 0 in its last slot: the runner has none, and the
        # kernel copies its own tiles.
        self.cache_slots = 1 if tile_cache else 0

    def launch(self, library: str, grid: tuple[int, int, int], args):
        if 0 in grid:
            return
        packed, pointers = self.pack(*args)
        slots = list(struct.unpack(f"<{self.num_slots}Q", packed)) + [0] * self.cache_slots
        num_slots = len(slots)
        flags = bytearray(num_slots)

        # One arena region per storage: arguments that alias (views, in-place outputs) stay
        # aliased, and every byte a kernel may reach through an argument is there.
        regions = {}  # storage address -> (arena offset, size)
        cursor = _HEADER.size + 9 * num_slots
        for index, obj in pointers.items():
            tensor = _torch_tensor(obj)
            storage = tensor.untyped_storage()
            start = storage.data_ptr()
            if start not in regions:
                cursor = (cursor + _ALIGN - 1) // _ALIGN * _ALIGN + start % _ALIGN
                regions[start] = (cursor, storage.nbytes())
                cursor += storage.nbytes()
            slots[index] = regions[start][0] + tensor.data_ptr() - start
            flags[index] = 1

        header = _HEADER.pack(
            _MAGIC, _VERSION, num_slots, *grid, self.num_threads, self.launch_flags, self.entry.encode()
        )
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        fd, arena = tempfile.mkstemp(prefix="spine-triton-arena-", dir=shm)
        try:
            os.ftruncate(fd, cursor)
            os.pwrite(fd, header + struct.pack(f"<{num_slots}Q", *slots) + flags, 0)
            for start, (offset, size) in regions.items():
                if size:
                    os.pwrite(fd, _bytes_at(start, size), offset)
            # The kernel's stdout (tl.device_print) is the process's, as in a native launch.
            result = subprocess.run(
                command(self.target, arena, library), check=False, stderr=subprocess.PIPE, text=True
            )
            if result.returncode == _ASSERT_FAILED and _ASSERT_MARKER in result.stderr:
                raise _device_assertion(result.stderr)
            if result.returncode != 0:
                raise EmulationError(self._failure(result))
            for start, (offset, size) in regions.items():
                if size and os.preadv(fd, [_bytes_at(start, size)], offset) != size:
                    raise EmulationError("spine-triton: the emulated launch's arena was truncated")
        finally:
            os.close(fd)
            os.unlink(arena)

    def _failure(self, result) -> str:
        if result.returncode < 0:
            how = f"was killed by {signal.Signals(-result.returncode).name}"
        else:
            how = f"exited with status {result.returncode}"
        stderr = result.stderr.strip() or "(no output)"
        return (
            f"spine-triton: the emulated launch of '{self.entry}' for {self.target.name} under "
            f"qemu-riscv64 -cpu {qemu_cpu(self.target)} {how}; stderr:\n{stderr}"
        )
