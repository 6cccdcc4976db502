"""The Triton driver: loads compiled kernels and launches them over the grid on CPU threads."""

from __future__ import annotations

import _ctypes
import ctypes
import functools
import hashlib
import os
import re
import struct
import sys
import time
from pathlib import Path

from triton.backends.compiler import GPUTarget
from triton.backends.driver import DriverBase, _parse_descriptor

from . import emulation, targets
from .compiler import CORE_MEMORY, ENTRY_SUFFIX

# The name this package is registered under in the `triton.backends` entry-point group: the one
# Triton's CPU backend goes by, which torch.compile looks up (its Triton CPU path switches to the
# driver of `triton.backends.backends["cpu"]`, and `torch.utils._triton.has_triton` on a CPU
# device asks for that key). TRITON_DEFAULT_BACKEND takes it.
BACKEND_NAME = "cpu"
# The module path code written for SpacemiT's spine-triton imports (`triton.backends.spine_triton`).
MODULE_ALIAS = "spine_triton"
# A limit a CPU does not have (registers per core: its programs run one after another, each
# with the whole register file; threads per program).
_NO_LIMIT = 2**31 - 1
# The least the benchmarker writes between timed runs to evict their inputs from the caches.
_MIN_BENCH_CACHE_BYTES = 64 * 1024 * 1024
_SIZE_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}

# Struct code (little-endian, padded to an 8-byte slot) and Python expression per scalar type
# string, as docs/kernel-abi.md lays the slots out.
_SCALAR_SLOTS = {
    **{t: ("q", "{}") for t in ("i1", "i8", "i16", "i32", "i64")},
    **{t: ("Q", "{}") for t in ("u1", "u8", "u16", "u32", "u64")},
    "fp16": ("e6x", "{}"),
    "bf16": ("H6x", "_bf16_bits({})"),
    "fp32": ("f4x", "{}"),
    "fp64": ("d", "{}"),
}


def _bf16_bits(value: float) -> int:
    """The bf16 bit pattern of a Python float, rounded to nearest even as torch does."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if (bits & 0x7FFFFFFF) > 0x7F800000:  # NaN: keep it quiet, keep the sign
        return (bits >> 16) | 0x40
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


# The slot expression of a pointer: `<argument>.data_ptr()` (emulation.py relies on it too).
_POINTER_EXPR = re.compile(r"^(?P<obj>.+)\.data_ptr\(\)$")


def _slots(ty, expr):
    """(struct code, expression) of every slot one argument of type `ty` fills."""
    if isinstance(ty, tuple):
        return [slot for i, sub in enumerate(ty) for slot in _slots(sub, f"{expr}[{i}]")]
    if ty == "constexpr":
        return []
    if ty.startswith("*"):
        return [("Q", f"{expr}.data_ptr()")]
    if ty.startswith("tensordesc"):
        # docs/kernel-abi.md, "Tensor descriptors": the descriptor's own slots (base, shape, strides,
        # NaN padding), then the TTIR signature's `.shape.N` and `.stride.N` arguments.
        _, ndim = _parse_descriptor(ty)
        dims = [("q", f"{expr}.shape[{i}]") for i in range(ndim)]
        dims += [("q", f"{expr}.strides[{i}]") for i in range(ndim)]
        return [("Q", f"{expr}.base.data_ptr()"), *dims, ("q", f"{expr}.padding == 'nan'"), *dims]
    if ty not in _SCALAR_SLOTS:
        raise TypeError(f"spine-triton: kernel arguments of type {ty} are not supported")
    code, template = _SCALAR_SLOTS[ty]
    return [(code, template.format(expr))]


def _not_on_cpu(obj, name: str):
    raise ValueError(
        f"spine-triton: kernel argument '{name}' is a tensor on device '{obj.device}'; "
        "spine-triton runs kernels on the CPU and takes CPU tensors (move it with .cpu())"
    )


def _packing(signature, names=None):
    """(parameters, source of the pointer checks, the `_pack(...)` call, scope) of the code that
    packs a kernel's arguments into the 8-byte slots of docs/kernel-abi.md: one `struct.pack`
    call, after checking that every pointer argument is a CPU tensor (`names`: the parameters'
    names, for that error)."""
    params = [f"a{i}" for i in range(len(signature))]
    names = list(names) if names is not None else params
    slots = [slot for param, ty in zip(params, signature) for slot in _slots(ty, param)]
    layout = struct.Struct("<" + "".join(code for code, _ in slots))
    # A tensor on another device (meta, cuda) would hand the kernel an address it cannot read.
    checks = ""
    for _, expr in slots:
        if match := _POINTER_EXPR.match(expr):
            obj = match.group("obj")
            name = names[int(re.match(r"a(\d+)", obj).group(1))]
            checks += f"    if not getattr({obj}, 'is_cpu', True):\n        _not_on_cpu({obj}, {name!r})\n"
    pack = f"_pack({', '.join(expr for _, expr in slots)})"
    scope = {"_pack": layout.pack, "_bf16_bits": _bf16_bits, "_not_on_cpu": _not_on_cpu}
    return params, checks, pack, scope


def _generated(source: str, name: str, scope: dict):
    """The function `name` that `source` defines, run in `scope`. Generated code, like Triton's
    own argument binder: no per-argument dispatch at launch."""
    exec(compile(source, f"<spine-triton {name}>", "exec"), scope)  # noqa: S102
    return scope[name]


def make_arg_packer(signature, names=None):
    """A function of all kernel arguments (constexprs included, as Triton passes them) returning
    the 8-byte argument slots of docs/kernel-abi.md. Built once per kernel."""
    params, checks, pack, scope = _packing(signature, names)
    return _generated(f"def pack({', '.join(params)}):\n{checks}    return {pack}\n", "pack", scope)


class DeviceAssertionError(AssertionError):
    """A ``tl.device_assert`` failed during a launch: the first failure of that launch.

    The failing program stopped at the assert and the rest of the grid was skipped (programs
    already running finish); the kernel can be launched again.
    """

    def __init__(self, message: str, file: str, line: int, function: str, pid: tuple[int, int, int]):
        self.message = message
        self.file = file
        self.line = line
        self.function = function
        self.pid = pid
        super().__init__(f"{file}:{line}: {function}: program {pid}: Assertion `{message}` failed.")


class _AssertState(ctypes.Structure):
    """A kernel library's `__spine_triton_assert` (docs/kernel-abi.md, "Debug ops")."""

    _fields_ = [
        ("failed", ctypes.c_int32),
        ("line", ctypes.c_int32),
        ("pid_x", ctypes.c_int32),
        ("pid_y", ctypes.c_int32),
        ("pid_z", ctypes.c_int32),
        ("message", ctypes.c_char_p),
        ("file", ctypes.c_char_p),
        ("function", ctypes.c_char_p),
    ]


ASSERT_STATE_SYMBOL = "__spine_triton_assert"
# The assert states of the loaded kernel libraries that define one (kernels using tl.device_assert):
# by entry address for the launcher, and [entry address, load count] by dlopen handle so a state is
# forgotten when its library is unloaded.
_assert_states: dict[int, _AssertState] = {}
_assert_loads: dict[int, list[int]] = {}


def _raise_device_assert(state: _AssertState):
    """Raises the failure recorded in `state` after clearing it, so the next launch starts clean."""

    def text(value):
        return value.decode(errors="replace") if value is not None else "unknown"

    error = DeviceAssertionError(
        text(state.message),
        text(state.file),
        state.line,
        text(state.function),
        (state.pid_x, state.pid_y, state.pid_z),
    )
    ctypes.memset(ctypes.addressof(state), 0, ctypes.sizeof(state))
    raise error


def _default_num_threads() -> int:
    value = os.environ.get("SPINE_TRITON_NUM_THREADS", "0")
    if not value.isdigit():
        raise ValueError(f"SPINE_TRITON_NUM_THREADS must be a non-negative integer, got {value!r}")
    return int(value)


def _independent_programs(metadata) -> bool:
    """Whether no program of the kernel waits for another (make_linalg reads that off the TTIR);
    claims of one program at a time when a compile that skipped that stage did not say."""
    return getattr(metadata, "independent_programs", False)


def _tile_cache(metadata) -> bool:
    """Whether the kernel takes the tile cache as its last argument (make_linalg reads that off the
    lowered kernel; docs/kernel-abi.md, "Tile cache")."""
    return getattr(metadata, "tile_cache", False)


# Whether a launch hook Triton passes has something to call, as an expression of `hook`: None, or
# a triton.knobs.HookChain with no hooks added (what Triton passes unless a profiler adds one), has
# not. Calling an empty chain costs as much as packing a tensor argument.
_HOOK_SET = "{0} is not None and getattr({0}, 'calls', True)"


def make_native_launcher(src, metadata):
    """The launcher of a kernel compiled for this host: a function of what Triton's
    CompiledKernel.run passes (grid, stream, entry address, metadata, launch hooks, then every
    kernel argument) that packs the arguments and runs the grid through spine_triton._C.launch.
    Generated per kernel as one function, with the arguments as named parameters: a launch is one
    Python call besides the packing and the native call (bench/: "launch overhead")."""
    from . import _C  # Loaded with the first kernel, not when triton imports the backend.

    params, checks, pack, scope = _packing(list(src.signature.values()), list(src.signature))
    scope |= {
        "_launch": _C.launch,
        "_assert_state": _assert_states.get,
        "_raise_device_assert": _raise_device_assert,
        "_num_threads": metadata.num_threads or _default_num_threads(),
        "_independent_programs": _independent_programs(metadata),
        "_tile_cache": _tile_cache(metadata),
    }
    head = "gridX, gridY, gridZ, stream, function, packed_metadata, launch_metadata, enter_hook, exit_hook"
    source = (
        f"def launch({', '.join([head, *params])}):\n"
        f"{checks}"
        f"    if {_HOOK_SET.format('enter_hook')}:\n"
        "        enter_hook(launch_metadata)\n"
        f"    _launch(function, {pack}, gridX, gridY, gridZ, _num_threads, _independent_programs, _tile_cache)\n"
        f"    if {_HOOK_SET.format('exit_hook')}:\n"
        "        exit_hook(launch_metadata)\n"
        "    # The one per-launch cost of device asserts: a dict miss for kernels without any.\n"
        "    state = _assert_state(function)\n"
        "    if state is not None and state.failed:\n"
        "        _raise_device_assert(state)\n"
    )
    return _generated(source, "launch", scope)


class EmulatedLauncher:
    """Runs the grid of a kernel compiled for RISC-V under qemu-user (see spine_triton.emulation)."""

    def __init__(self, src, metadata, target):
        num_threads = metadata.num_threads or _default_num_threads()
        self.emulator = emulation.Emulator(
            target,
            metadata.name + ENTRY_SUFFIX,
            list(src.signature.values()),
            num_threads,
            _independent_programs(metadata),
            _tile_cache(metadata),
        )

    def __call__(
        self,
        gridX,
        gridY,
        gridZ,
        stream,
        function,
        packed_metadata,
        launch_metadata,
        launch_enter_hook,
        launch_exit_hook,
        *args,
    ):
        if launch_enter_hook is not None:
            launch_enter_hook(launch_metadata)
        self.emulator.launch(function, (gridX, gridY, gridZ), args)
        if launch_exit_hook is not None:
            launch_exit_hook(launch_metadata)


def make_launcher(src, metadata):
    """The launcher of a compiled kernel: native, or under qemu-user for a RISC-V target on another
    host (targets.resolve gives every target one of the two)."""
    target = targets.resolve(metadata.target.arch)
    if target.emulated:
        return EmulatedLauncher(src, metadata, target)
    return make_native_launcher(src, metadata)


class CPUUtils:
    @staticmethod
    def load_binary(name, kernel, shared, device):
        """dlopens a kernel library (RTLD_LOCAL) and returns (module, entry address, n_regs,
        n_spills, n_max_threads) as Triton's CompiledKernel expects. n_regs is the target's
        vector registers, all of which the code generator may use."""
        from triton.runtime.cache import get_cache_manager

        # Content-addressed in the Triton cache: every process loads the same file, written once.
        cache = get_cache_manager(hashlib.sha256(kernel).hexdigest())
        file_name = f"{name}.so"
        path = cache.get_file(file_name) or cache.put(kernel, file_name, binary=True)
        target = targets.resolve(device)
        registers = targets.vector_registers(target)[1]
        if target.emulated:
            # The runner loads the library inside the emulator: the launcher needs only its path.
            return path, path, registers, 0, _NO_LIMIT
        # A kernel compiled with AMX tiles by another process (a shared cache) runs in this one:
        # ask Linux for them here too (once per process; it does nothing elsewhere).
        targets.has_amx_tiles(target)
        module = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
        entry = ctypes.cast(getattr(module, name + ENTRY_SUFFIX), ctypes.c_void_p).value
        try:
            state = _AssertState.in_dll(module, ASSERT_STATE_SYMBOL)
        except ValueError:  # no tl.device_assert in this kernel
            pass
        else:
            _assert_states[entry] = state
            _assert_loads.setdefault(module._handle, [entry, 0])[1] += 1
        return module, entry, registers, 0, _NO_LIMIT

    @staticmethod
    def unload_module(module):
        # _ctypes is imported with the module: kernels still loaded at interpreter exit are
        # unloaded after imports stop working.
        if isinstance(module, str):  # an emulated kernel's library path: nothing is loaded here
            return
        # dlopen counts loads of the same file: the state lives until the last one is unloaded.
        if (loads := _assert_loads.get(module._handle)) is not None:
            loads[1] -= 1
            if loads[1] == 0:
                del _assert_loads[module._handle], _assert_states[loads[0]]
        _ctypes.dlclose(module._handle)

    @staticmethod
    def get_device_properties(device):
        return {
            # Every kernel's metadata.shared: a program has its core to itself (compiler.py).
            "max_shared_mem": CORE_MEMORY,
            # Persistent kernels size their grid by this: the cores this process may run on.
            "multiprocessor_count": len(os.sched_getaffinity(0)),
            "max_num_regs": _NO_LIMIT,
            "warpSize": 1,
            "arch": str(device),
        }


@functools.cache
def largest_cache_bytes() -> int:
    """The size of this machine's largest CPU cache (sysfs, e.g. ``32768K``), 0 if unknown."""
    largest = 0
    for path in Path("/sys/devices/system/cpu").glob("cpu*/cache/index*/size"):
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text[-1:] in _SIZE_UNITS and text[:-1].isdigit():
            largest = max(largest, int(text[:-1]) * _SIZE_UNITS[text[-1]])
        elif text.isdigit():
            largest = max(largest, int(text))
    return largest


def bench_cache_bytes() -> int:
    """What clearing the cache between benchmark runs writes: twice the largest cache, at least
    64 MiB (when sysfs does not say, as on some RISC-V boards)."""
    return max(_MIN_BENCH_CACHE_BYTES, 2 * largest_cache_bytes())


class WallClockEvent:
    """A torch.cuda.Event look-alike: CPU launches are synchronous, so wall-clock time is exact."""

    def __init__(self, enable_timing=True):
        self.time = None

    def record(self, stream=None):
        self.time = time.perf_counter()

    def elapsed_time(self, end):
        """Milliseconds from this event to `end`."""
        return (end.time - self.time) * 1e3


class CPUDeviceInterface:
    """The subset of torch.cuda that triton.testing.do_bench and the autotuner use."""

    Event = WallClockEvent

    @staticmethod
    def synchronize(device=None):
        pass

    @staticmethod
    def current_device():
        return 0


class CPUDriver(DriverBase):
    def __init__(self):
        super().__init__()
        self.utils = CPUUtils()
        self.launcher_cls = make_launcher
        self.target_name = targets.default_name()

    @classmethod
    def is_active(cls):
        # A CPU is always there, but Triton wants exactly one active driver: defer to any GPU
        # driver that is active, unless this backend was chosen with TRITON_DEFAULT_BACKEND.
        if os.environ.get("TRITON_DEFAULT_BACKEND") == BACKEND_NAME:
            return True
        backends = sys.modules["triton.backends"].backends
        return not any(b.driver.is_active() for b in backends.values() if b.driver is not cls)

    def set_current_arch_id(self, arch_id):
        """Compile for a SpacemiT core, e.g. ``"0xA03C"`` (see spine_triton.targets)."""
        self.target_name = targets.from_arch_id(arch_id).name

    def get_current_target(self):
        return GPUTarget("cpu", self.target_name, 1)

    # Triton keys its per-kernel caches on the device: one device per target keeps kernels
    # compiled for one arch from being launched after switching to another.
    def get_current_device(self):
        return self.target_name

    def get_current_stream(self, device=None):
        return 0

    def get_active_torch_device(self):
        import torch

        return torch.device("cpu")

    def get_device_interface(self):
        return CPUDeviceInterface

    def get_benchmarker(self):
        """Wall-clock timing (WallClockEvent): CPU launches return when the grid is done."""
        from triton.testing import do_bench

        return do_bench

    def get_empty_cache_for_benchmark(self):
        import torch

        return torch.empty(bench_cache_bytes() // 4, dtype=torch.int32)

    def clear_cache(self, cache):
        # Writing every byte evicts whatever the previous run left in any cache level, so each
        # timed run starts from memory as a first call would.
        cache.zero_()

    def map_python_to_cpp_type(self, ty: str) -> str:
        if ty.startswith("*"):
            return "uint64_t"
        return {
            "i1": "bool",
            "u1": "bool",
            "i8": "int8_t",
            "i16": "int16_t",
            "i32": "int32_t",
            "i64": "int64_t",
            "u8": "uint8_t",
            "u16": "uint16_t",
            "u32": "uint32_t",
            "u64": "uint64_t",
            "fp16": "_Float16",
            "bf16": "__bf16",
            "fp32": "float",
            "fp64": "double",
        }[ty]
