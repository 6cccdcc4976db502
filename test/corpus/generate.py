#!/usr/bin/env python3
"""Regenerate the TTIR corpus (test/corpus/ttir/*.ttir) from the kernels in kernels.py.

Uses the INSTALLED triton, in-process and without any GPU or active driver:

    python test/corpus/generate.py            # writes test/corpus/ttir/
    python test/corpus/generate.py --out DIR  # writes elsewhere (test_corpus_current.py does this)

For every case below: build `triton.compiler.ASTSource(fn, signature, constexprs, attrs)` exactly
as `JITFunction.run` would for the given sample arguments, call `make_ir` with a minimal options
object and codegen functions, run the TTIR pass list of triton's `backends/nvidia/compiler.py`
`make_ttir` (without `rewrite_tensor_descriptor_to_pointer`: we keep descriptors), and write
`str(module)`, which triton prints WITH source locations. Each file starts with lit RUN lines, so
each corpus file is its own lit test (parse + verify + print/parse round trip).

The output is deterministic: absolute file paths in locations are rewritten to repository-relative
ones (test/corpus/kernels.py) or to triton-package-relative ones (<triton>/language/...), so the
text does not depend on where the repository or triton is installed.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import re
import sys
import warnings
from pathlib import Path

# Environment knobs that would change the TTIR (or, for TRITON_INTERPRET, turn every @triton.jit,
# triton's own library included, into an interpreter function): cleared before importing triton,
# so that the corpus does not depend on the caller's environment.
for _var in ("TRITON_F32_DEFAULT", "TRITON_INTERPRET", "TRITON_DEBUG", "TRITON_INSTRUMENTATION_MODE"):
    os.environ.pop(_var, None)

import triton
from triton._C.libtriton import ir, passes
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_OUT = HERE / "ttir"
TRITON_DIR = Path(triton.__file__).resolve().parent

sys.path.insert(0, str(HERE))
import kernels as K

# shape_ops uses tl.cat(can_reorder=True) on purpose (the only way to get tt.cat)
warnings.filterwarnings("ignore", message=r"tl\.cat\(can_reorder=True\)")

# ---------------------------------------------------------------------------------------------
# Sample launch arguments -> (signature, constexprs, attrs), the way JITFunction.run specialises


@dataclasses.dataclass(frozen=True)
class Ptr:
    """A pointer argument; aligned=True models a torch allocation (16-byte aligned)."""

    dtype: str
    aligned: bool = True


@dataclasses.dataclass(frozen=True)
class Scalar:
    """A scalar of an explicit type that is never specialised (like do_not_specialize)."""

    ty: str


@dataclasses.dataclass(frozen=True)
class Desc:
    """A host-side TensorDescriptor argument (triton.tools.tensor_descriptor)."""

    dtype: str
    block: tuple[int, ...]


def specialize(fn, args: dict) -> tuple[dict, dict, dict]:
    """Mirror JITFunction's specialisation for a launch with these sample arguments.

    Constexpr parameters take the given value. Integers equal to 1 become constexprs (triton
    removes them from the signature), integers divisible by 16 get tt.divisibility=16, other ints
    are i32 or i64 by range; floats are fp32; aligned pointers get tt.divisibility=16.
    """
    names = fn.arg_names
    missing = set(names) ^ set(args)
    assert not missing, f"{fn.__name__}: arguments do not match parameters: {sorted(missing)}"
    signature, constexprs, attrs = {}, {}, {}
    for i, (name, param) in enumerate(zip(names, fn.params)):
        v = args[name]
        divisible = False
        if param.is_constexpr:
            signature[name] = "constexpr"
            constexprs[name] = v
            continue
        if isinstance(v, Ptr):
            signature[name] = f"*{v.dtype}"
            divisible = v.aligned
        elif isinstance(v, Desc):
            signature[name] = f"tensordesc<{v.dtype}[{','.join(map(str, v.block))}]>"
        elif isinstance(v, Scalar):
            signature[name] = v.ty
        elif isinstance(v, bool):
            signature[name] = "u1"
        elif isinstance(v, int):
            if v == 1:
                signature[name] = "constexpr"
                constexprs[name] = 1
                continue
            signature[name] = "i32" if -(2**31) <= v < 2**31 else "i64"
            divisible = v % 16 == 0
        elif isinstance(v, float):
            signature[name] = "fp32"
        else:
            raise TypeError(f"{fn.__name__}.{name}: unsupported sample argument {v!r}")
        if divisible:
            attrs[(i,)] = [["tt.divisibility", 16]]
    return signature, constexprs, attrs


@dataclasses.dataclass(frozen=True)
class Case:
    fn: object
    args: dict
    debug: bool = False  # debug=True keeps tl.device_assert (and integer-overflow checks)


F32, F16, I32 = Ptr("fp32"), Ptr("fp16"), Ptr("i32")

# file stem -> case. Sample sizes are chosen to exercise both specialisations (e.g. 1000 is not a
# multiple of 16, 4096 is).
CASES: dict[str, Case] = {
    # elementwise
    "vector_add": Case(
        K.vector_add, {"x_ptr": F32, "y_ptr": F32, "out_ptr": F32, "n_elements": 1000, "BLOCK": 1024}
    ),
    "where_clamp": Case(
        K.where_clamp,
        {"x_ptr": F32, "y_ptr": F32, "out_ptr": F32, "n": 1000, "lo": -1.0, "hi": 1.0, "BLOCK": 256},
    ),
    "math_funcs": Case(K.math_funcs, {"x_ptr": F32, "out_ptr": F32, "n": 4096, "BLOCK": 128}),
    "math_f64": Case(K.math_f64, {"x_ptr": Ptr("fp64"), "out_ptr": Ptr("fp64"), "n": 1000, "BLOCK": 128}),
    "casts": Case(
        K.casts,
        {
            "f32_ptr": F32,
            "f16_ptr": F16,
            "bf16_ptr": Ptr("bf16"),
            "i32_ptr": I32,
            "u8_ptr": Ptr("u8"),
            "f64_ptr": Ptr("fp64"),
            "i1_ptr": Ptr("i1"),
            "n": 1000,
            "BLOCK": 64,
        },
    ),
    "int_bitwise": Case(K.int_bitwise, {"a_ptr": I32, "b_ptr": I32, "out_ptr": I32, "n": 1000, "BLOCK": 128}),
    "int8_arith": Case(
        K.int8_arith,
        {
            "a_ptr": Ptr("i8"),
            "b_ptr": Ptr("i8"),
            "out_ptr": Ptr("i8"),
            "sum_ptr": I32,
            "n": 1000,
            "scale": 0.05,
            "BLOCK": 256,
        },
    ),
    "dropout": Case(
        K.dropout, {"x_ptr": F32, "out_ptr": F32, "n": 1000, "p": 0.5, "seed": Scalar("i32"), "BLOCK": 1024}
    ),
    "randint4": Case(K.randint4, {"out_ptr": Ptr("u32"), "n": 1000, "seed": Scalar("i64"), "BLOCK": 256}),
    "fp16_elementwise": Case(
        K.fp16_elementwise, {"x_ptr": F16, "y_ptr": F16, "out_ptr": F16, "n": 1000, "BLOCK": 512}
    ),
    # reductions, scans, sorting
    "softmax_rows": Case(
        K.softmax_rows,
        {
            "out_ptr": F32,
            "in_ptr": F32,
            "in_row_stride": 781,
            "out_row_stride": 781,
            "n_cols": 781,
            "BLOCK": 1024,
        },
    ),
    "softmax_persistent": Case(
        K.softmax_persistent,
        {"out_ptr": F32, "in_ptr": F32, "row_stride": 1024, "n_rows": 1823, "n_cols": 1000, "BLOCK": 1024},
    ),
    "layer_norm_fwd": Case(
        K.layer_norm_fwd,
        {
            "x_ptr": F16,
            "y_ptr": F16,
            "w_ptr": F32,
            "b_ptr": F32,
            "mean_ptr": F32,
            "rstd_ptr": F32,
            "stride": 4096,
            "n_cols": 4000,
            "eps": 1e-5,
            "BLOCK": 1024,
        },
    ),
    "argmax_rows": Case(
        K.argmax_rows,
        {"x_ptr": F32, "val_ptr": F32, "idx_ptr": I32, "n_cols": 100, "stride": 100, "BLOCK": 128},
    ),
    "reduce_2d": Case(
        K.reduce_2d,
        {
            "x_ptr": F32,
            "rows_ptr": F32,
            "cols_ptr": F32,
            "all_ptr": F32,
            "M": 30,
            "N": 50,
            "BLOCK_M": 32,
            "BLOCK_N": 64,
        },
    ),
    "scan_ops": Case(
        K.scan_ops,
        {"a_ptr": F32, "b_ptr": F32, "h_ptr": F32, "csum_ptr": F32, "cprod_ptr": F32, "n": 100, "BLOCK": 128},
    ),
    "sort_flip": Case(
        K.sort_flip,
        {"x_ptr": F32, "sorted_ptr": F32, "flipped_ptr": F32, "topk_ptr": F32, "BLOCK": 64, "K": 8},
    ),
    "histogram": Case(K.histogram, {"x_ptr": I32, "hist_ptr": I32, "n": 1000, "BLOCK": 256, "BINS": 32}),
    # matmul: fp32 x fp32 and fp16 x fp16 -> fp32 accumulate, K loop, M/N/K edge masks, epilogue;
    # unit strides along K / N are specialised away exactly as at a launch on contiguous tensors
    "matmul_fp32": Case(
        K.matmul,
        {
            "a_ptr": F32,
            "b_ptr": F32,
            "c_ptr": F32,
            "M": 500,
            "N": 300,
            "K": 200,
            "stride_am": 200,
            "stride_ak": 1,
            "stride_bk": 300,
            "stride_bn": 1,
            "stride_cm": 300,
            "stride_cn": 1,
            "BLOCK_M": 32,
            "BLOCK_N": 32,
            "BLOCK_K": 16,
            "GROUP_M": 8,
            "ACTIVATION": "leaky_relu",
        },
    ),
    "matmul_fp16_fp32acc": Case(
        K.matmul,
        {
            "a_ptr": F16,
            "b_ptr": F16,
            "c_ptr": F32,
            "M": 512,
            "N": 512,
            "K": 512,
            "stride_am": 512,
            "stride_ak": 1,
            "stride_bk": 512,
            "stride_bn": 1,
            "stride_cm": 512,
            "stride_cn": 1,
            "BLOCK_M": 64,
            "BLOCK_N": 64,
            "BLOCK_K": 32,
            "GROUP_M": 8,
            "ACTIVATION": "leaky_relu",
        },
    ),
    "matmul_strided_noact": Case(
        K.matmul,
        {
            "a_ptr": F32,
            "b_ptr": F32,
            "c_ptr": F16,
            "M": 100,
            "N": 100,
            "K": 100,
            "stride_am": 3,
            "stride_ak": 300,
            "stride_bk": 100,
            "stride_bn": 2,
            "stride_cm": 100,
            "stride_cn": 1,
            "BLOCK_M": 16,
            "BLOCK_N": 16,
            "BLOCK_K": 16,
            "GROUP_M": 4,
            "ACTIVATION": "",
        },
    ),
    "matmul_int8": Case(
        K.matmul_int8,
        {
            "a_ptr": Ptr("i8"),
            "b_ptr": Ptr("i8"),
            "c_ptr": I32,
            "M": 100,
            "N": 100,
            "K": 100,
            "BLOCK_M": 32,
            "BLOCK_N": 32,
            "BLOCK_K": 32,
        },
    ),
    "batched_dot": Case(
        K.batched_dot, {"a_ptr": F32, "b_ptr": F32, "c_ptr": F32, "B": 2, "M": 16, "N": 16, "K": 16}
    ),
    # tensor descriptors: triton 3.9's replacement for block pointers (tl.make_block_ptr and
    # tl.advance now raise NotImplementedError). rewrite_tensor_descriptor_to_pointer is NOT run,
    # so tt.make_tensor_descriptor / tt.descriptor_* ops stay in the TTIR for our passes.
    "desc_scale_2d": Case(
        K.desc_scale_2d, {"ptr": F32, "M": 100, "N": 128, "alpha": 2.0, "BLOCK_M": 32, "BLOCK_N": 32}
    ),
    "desc_matmul": Case(
        K.desc_matmul,
        {
            "a_ptr": F16,
            "b_ptr": F16,
            "c_ptr": F32,
            "M": 256,
            "N": 256,
            "K": 256,
            "BLOCK_M": 64,
            "BLOCK_N": 64,
            "BLOCK_K": 32,
        },
    ),
    "desc_host_arg": Case(
        K.desc_host_arg,
        {"in_desc": Desc("fp32", (32, 32)), "out_desc": Desc("fp32", (32, 32)), "BLOCK_M": 32, "BLOCK_N": 32},
    ),
    "desc_gather_scatter": Case(
        K.desc_gather_scatter,
        {"src_ptr": F32, "dst_ptr": F32, "idx_ptr": I32, "M": 64, "N": 128, "BLOCK_R": 8, "BLOCK_N": 64},
    ),
    # atomics
    "atomics": Case(
        K.atomics,
        {
            "counter_ptr": I32,
            "acc_ptr": F32,
            "max_ptr": F32,
            "lock_ptr": I32,
            "x_ptr": F32,
            "n": 1000,
            "BLOCK": 128,
        },
    ),
    "atomics_misc": Case(
        K.atomics_misc,
        {"ptr_i32": I32, "ptr_f32": F32, "ptr_i64": Ptr("i64"), "vals_ptr": I32, "n": 100, "BLOCK": 128},
    ),
    # grids, control flow, calls, debugging
    "grid_3d": Case(K.grid_3d, {"out_ptr": I32, "stride_x": 3, "stride_y": 100}),
    "early_return": Case(
        K.early_return, {"x_ptr": F32, "out_ptr": F32, "n": 1000, "n_valid_blocks": 4, "BLOCK": 256}
    ),
    "control_flow": Case(
        K.control_flow,
        {
            "x_ptr": F32,
            "out_ptr": F32,
            "n": 1000,
            "limit": 10.0,
            "mode": Scalar("i32"),
            "BLOCK": 128,
            "UNROLL": 3,
        },
    ),
    "noinline_call": Case(K.noinline_call, {"x_ptr": F32, "out_ptr": F32, "scale": 0.5, "BLOCK": 128}),
    "print_assert": Case(K.print_assert, {"x_ptr": I32, "n": 1000, "BLOCK": 64}, debug=True),
    "hints_scalars": Case(
        K.hints_scalars, {"x_ptr": F32, "out_ptr": F32, "n": Scalar("i64"), "offset": 7, "BLOCK": 128}
    ),
    "inline_asm": Case(K.inline_asm, {"x_ptr": F32, "out_ptr": I32, "BLOCK": 128}),
    "map_elementwise": Case(K.map_elementwise, {"x_ptr": F32, "out_ptr": F32, "BLOCK": 128}),
    # memory access patterns and shape ops
    "tile_copy_2d": Case(
        K.tile_copy_2d,
        {
            "src_ptr": F32,
            "dst_ptr": F32,
            "M": 100,
            "N": 60,
            "stride_sm": 64,
            "stride_sn": 1,
            "stride_dm": 3,
            "stride_dn": 300,
            "BLOCK_M": 32,
            "BLOCK_N": 32,
        },
    ),
    "transpose_2d": Case(
        K.transpose_2d, {"src_ptr": F32, "dst_ptr": F32, "M": 100, "N": 60, "BLOCK_M": 32, "BLOCK_N": 16}
    ),
    "embedding_gather": Case(
        K.embedding_gather,
        {
            "ids_ptr": Ptr("i64"),
            "table_ptr": F16,
            "out_ptr": F16,
            "n_ids": 100,
            "dim": 96,
            "BLOCK_I": 16,
            "BLOCK_D": 128,
        },
    ),
    "scatter_add": Case(
        K.scatter_add, {"idx_ptr": I32, "src_ptr": F32, "dst_ptr": F32, "n": 1000, "BLOCK": 128}
    ),
    "gather_in_register": Case(
        K.gather_in_register, {"x_ptr": F32, "idx_ptr": I32, "out_ptr": F32, "M": 8, "N": 16}
    ),
    "shape_ops": Case(K.shape_ops, {"x_ptr": F32, "y_ptr": F32, "out_ptr": F32, "N": 16}),
}

# ---------------------------------------------------------------------------------------------
# Compilation to TTIR


@dataclasses.dataclass(frozen=True)
class CorpusOptions:
    """The option fields triton's frontend reads while building TTIR (code_generator/semantic).

    The dot precisions are CUDA's, so that kernels tuned for GPUs (input_precision="tf32") compile
    unchanged. Note that tl.dot without input_precision takes "tf32" whenever it is allowed
    (core.dot ignores default_dot_input_precision), so fp32 dots carry inputPrecision = tf32 in the
    TTIR; the CPU lowering computes them in full fp32 anyway. Overflow sanitising is on as on CUDA
    (only visible with debug=True).
    """

    debug: bool = False
    sanitize_overflow: bool = True
    arch: str = "cpu"
    backend_name: str = "cpu"
    instrumentation_mode: str = ""
    supported_fp8_dtypes: tuple = ("fp8e4nv", "fp8e5")
    deprecated_fp8_dot_operand_dtypes: tuple = ()
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: tuple = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: int = 0


# The frontend asks the target for the smallest legal dot shape; a CPU has no minimum.
CODEGEN_FNS = {"min_dot_size": lambda lhs_type, rhs_type: (1, 1, 1)}
TARGET = GPUTarget("cpu", "generic", 1)  # unused by ASTSource.make_ir, required by its signature


def make_ttir(case: Case) -> str:
    signature, constexprs, attrs = specialize(case.fn, case.args)
    src = ASTSource(case.fn, signature, constexprs, attrs)
    context = ir.context()
    ir.load_dialects(context)
    module = src.make_ir(TARGET, CorpusOptions(debug=case.debug), CODEGEN_FNS, {}, context)
    # triton 3.9 backends/nvidia/compiler.py make_ttir, minus rewrite_tensor_descriptor_to_pointer
    pm = ir.pass_manager(module.context)
    passes.common.add_inliner(pm)
    passes.common.add_canonicalizer(pm)
    passes.ttir.add_combine(pm)
    passes.ttir.add_reorder_broadcast(pm)
    passes.common.add_cse(pm)
    passes.common.add_symbol_dce(pm)
    passes.ttir.add_loop_unroll(pm)
    pm.run(module, "make_ttir")
    # str(module) is printed with debug info (locations); module.str_nodebug() would drop them
    return str(module)


_LOC_FILE = re.compile(r'loc\("([^"]+)":')


def _portable_path(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        for root, prefix in ((REPO, ""), (TRITON_DIR, "<triton>/")):
            try:
                return prefix + p.resolve().relative_to(root).as_posix()
            except ValueError:
                pass
    return path


def _rewrite_locations(text: str) -> str:
    return _LOC_FILE.sub(lambda m: f'loc("{_portable_path(m.group(1))}":', text)


def render(stem: str, case: Case) -> str:
    fn = case.fn
    line = fn.def_file_line_number
    src = _portable_path(fn.file_name)
    signature, constexprs, _ = specialize(fn, case.args)
    header = [
        f"// Generated by test/corpus/generate.py from {src}:{line} ({fn.__name__}); do not edit.",
        f"// triton {triton.__version__}; signature {signature}; constexprs {constexprs}"
        + ("; debug=True" if case.debug else ""),
        "// Parses and verifies, and the printed form parses again to the same text, with and",
        "// without debug info; source locations survive.",
        "// RUN: spine-triton-opt %s -o %t.1 && spine-triton-opt %t.1 -o %t.2 && diff %t.1 %t.2",
        (
            "// RUN: spine-triton-opt %s -mlir-print-debuginfo -o %t.3 && "
            "spine-triton-opt %t.3 -mlir-print-debuginfo -o %t.4 && diff %t.3 %t.4"
        ),
        "// RUN: FileCheck %s --input-file %t.3",
        f"// CHECK-DAG: tt.func public @{fn.__name__}(",
        f'// CHECK-DAG: loc("{src}":{line}:',
        "",
    ]
    return "\n".join(header) + _rewrite_locations(make_ttir(case))


def generate(out: Path, only: list[str] | None = None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, case in CASES.items():
        if only and stem not in only:
            continue
        path = out / f"{stem}.ttir"
        path.write_text(render(stem, case))
        written.append(path)
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    ap.add_argument(
        "--check", action="store_true", help="do not write; exit 1 if the corpus in --out is stale"
    )
    ap.add_argument("cases", nargs="*", help="only these case names (default: all)")
    args = ap.parse_args(argv)
    unknown = set(args.cases) - set(CASES)
    if unknown:
        ap.error(f"unknown cases: {sorted(unknown)}")
    if args.check:
        stale = []
        for stem, case in CASES.items():
            path = args.out / f"{stem}.ttir"
            new = render(stem, case)
            old = path.read_text() if path.exists() else ""
            if old != new:
                stale.append(stem)
                sys.stdout.writelines(
                    difflib.unified_diff(
                        old.splitlines(True), new.splitlines(True), str(path), "regenerated", n=1
                    )
                )
        extra = sorted(p.stem for p in args.out.glob("*.ttir") if p.stem not in CASES)
        if stale or extra:
            print(f"stale: {stale}; not generated by any case: {extra}", file=sys.stderr)
            return 1
        return 0
    for path in generate(args.out, args.cases):
        print(os.path.relpath(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
