"""An autotuned GEMM benchmark as GPU users write it (triton.autotune over triton.Configs,
triton.heuristics, triton.testing.do_bench and perf_report), run on the CPU.

This is the GEMM script of the "ROCm-triton" tutorial (configs + EVEN_K heuristic + leaky_relu
epilogue + correctness check + perf_report against the vendor BLAS). What changed for the CPU:
``DEVICE = "cpu"``; the configs are CPU-sized tiles (their ``num_warps``/``num_stages`` are accepted
and ignored: one program is one CPU task); torch.matmul stands in for rocBLAS; sizes fit a CPU and
the y axis is GFLOP/s. The kernel and the host code are the tutorial's.

    python3 examples/gemm_autotune.py            # correctness, then the benchmark table and plot
    python3 examples/gemm_autotune.py --quick    # small sizes and two configs (what the test runs)
    python3 examples/gemm_autotune.py -v --save-path out/   # print best configs; write PNG + CSV
    python3 examples/gemm_autotune.py --dtype float32        # fp32 inputs (fp16 as the tutorial)

Exit status 1 if any result differs from torch.
"""

import argparse
import os
import sys

import torch
import triton
import triton.language as tl

DEVICE = "cpu"
DTYPE = torch.float16  # --dtype float32: what CPUs (and torch on them) are fastest at

# CPU-sized tiles: an fp32 accumulator of BLOCK_SIZE_M x BLOCK_SIZE_N stays in vector registers
# and caches; every config still compiles and runs on a GPU.
CONFIGS = [
    triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}, num_stages=5, num_warps=2),
    triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1}, num_stages=5, num_warps=2),
    triton.Config({"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1}, num_stages=5, num_warps=2),
]  # fmt: skip


# `triton.jit`'ed functions can be auto-tuned by using the `triton.autotune` decorator, which consumes:
#   - A list of `triton.Config` objects that define different configurations of
#       meta-parameters (e.g., `BLOCK_SIZE_M`) and compilation options (e.g., `num_warps`) to try
#   - An auto-tuning *key* whose change in values will trigger evaluation of all the
#       provided configs
@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_SIZE_K"] == 0})
@triton.jit
def matmul_kernel(
    # Pointers to matrices
    a_ptr, b_ptr, c_ptr,
    # Matrix dimensions
    M, N, K,
    # The stride variables represent how much to increase the ptr by when moving by 1
    # element in a particular dimension. E.g. `stride_am` is how much to increase `a_ptr`
    # by to get the element one row down (A has M rows).
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    # Meta-parameters
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    EVEN_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    ACTIVATION: tl.constexpr,
):  # fmt: skip
    """Kernel for computing the matmul C = A x B.
    A has shape (M, K), B has shape (K, N) and C has shape (M, N)
    """
    # -----------------------------------------------------------
    # Map program ids `pid` to the block of C it should compute.
    # This is done in a grouped ordering to promote L2 data reuse.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    if GROUP_SIZE_M == 1:
        pid_m = pid // num_pid_n
        pid_n = pid % num_pid_n
    else:
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + (pid % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m

    # ----------------------------------------------------------
    # Create pointers for the first blocks of A and B.
    # We will advance this pointer as we move in the K direction
    # and accumulate
    # `a_ptrs` is a block of [BLOCK_SIZE_M, BLOCK_SIZE_K] pointers
    # `b_ptrs` is a block of [BLOCK_SIZE_K, BLOCK_SIZE_N] pointers
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    # -----------------------------------------------------------
    # Iterate to compute a block of the C matrix.
    # We accumulate into a `[BLOCK_SIZE_M, BLOCK_SIZE_N]` block
    # of fp32 values for higher accuracy.
    # `accumulator` will be converted back to fp16 after the loop.
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
        # Load the next block of A and B, generate a mask by checking the K dimension.
        # If it is out of bounds, set it to 0.
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        # We accumulate along the K dimension.
        accumulator += tl.dot(a, b)
        # Advance the ptrs to the next K block.
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    # You can fuse arbitrary activation functions here
    # while the accumulator is still in FP32!
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    # -----------------------------------------------------------
    # Write back the block of the output matrix C with masks.
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# We can fuse `leaky_relu` by providing it as an `ACTIVATION` meta-parameter in `_matmul`.
@triton.jit
def leaky_relu(x):
    x = x + 1
    return tl.where(x >= 0, x, 0.01 * x)


def matmul(a, b, activation=""):
    # Check constraints.
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    assert a.is_contiguous(), "Matrix A must be contiguous"
    assert b.is_contiguous(), "Matrix B must be contiguous"
    M, K = a.shape
    K, N = b.shape
    # Allocates output.
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    # 1D launch kernel where each block gets its own program.
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    matmul_kernel[grid](
        a, b, c,
        M, N, K,
        a.stride(0), a.stride(1),
        b.stride(0), b.stride(1),
        c.stride(0), c.stride(1),
        ACTIVATION=activation,
    )  # fmt: skip
    return c


def torch_reference(a, b, activation=""):
    c = torch.matmul(a.float(), b.float())
    if activation == "leaky_relu":
        c = c + 1
        c = torch.where(c >= 0, c, 0.01 * c)
    return c.to(a.dtype)


def check_correctness(shapes):
    """The tutorial's unit test: each shape (K not a multiple of every BLOCK_SIZE_K among them, so
    both EVEN_K branches run), with and without the fused activation."""
    ok = True
    for M, N, K in shapes:
        for activation in ("", "leaky_relu"):
            a = torch.randn((M, K), device=DEVICE, dtype=DTYPE)
            b = torch.randn((K, N), device=DEVICE, dtype=DTYPE)
            triton_output = matmul(a, b, activation)
            torch_output = torch_reference(a, b, activation)
            match = torch.allclose(triton_output, torch_output, atol=1e-2, rtol=1e-2)
            name = f"M={M} N={N} K={K} {activation or 'no activation'}"
            print(f"{'✅ Triton and Torch match' if match else '❌ Triton and Torch differ'}: {name}")
            ok &= match
    return ok


verbose = False


def make_benchmark(sizes):
    @triton.testing.perf_report(
        triton.testing.Benchmark(
            x_names=["M", "N", "K"],  # Argument names to use as an x-axis for the plot
            x_vals=sizes,  # Different possible values for `x_name`
            line_arg="provider",  # Argument name whose value corresponds to a different line in the plot
            line_vals=["torch", "triton"],  # Possible values for `line_arg`
            line_names=["Torch", "Triton"],  # Label name for the lines
            styles=[("green", "-"), ("blue", "-")],  # Line styles
            ylabel="GFLOP/s",  # Label name for the y-axis
            plot_name="matmul-performance",  # Name for the plot, used also as a file name for saving the plot.
            args={},
        )
    )
    def benchmark(M, N, K, provider):
        a = torch.randn((M, K), device=DEVICE, dtype=DTYPE)
        b = torch.randn((K, N), device=DEVICE, dtype=DTYPE)
        quantiles = [0.5, 0.2, 0.8]
        if provider == "torch":
            ms, min_ms, max_ms = triton.testing.do_bench(lambda: torch.matmul(a, b), quantiles=quantiles)
        if provider == "triton":
            ms, min_ms, max_ms = triton.testing.do_bench(lambda: matmul(a, b), quantiles=quantiles)
            if verbose:
                print(f"SIZE: {M},{N},{K}   Best tuning config: ({matmul_kernel.best_config})")
        perf = lambda ms: 2 * M * N * K * 1e-9 / (ms * 1e-3)
        return perf(ms), perf(max_ms), perf(min_ms)

    return benchmark


def parse_args():
    parser = argparse.ArgumentParser(prog="GEMM tutorial example", allow_abbrev=False)
    parser.add_argument("-v", action="store_true", default=False, help="Print out the best tuning config")
    parser.add_argument(
        "--quick", action="store_true", help="small sizes and two configs (seconds, not minutes)"
    )
    parser.add_argument(
        "--save-path", default="", help="directory to write the plot (PNG) and table (CSV) to"
    )
    parser.add_argument("--dtype", choices=["float16", "float32"], default="float16", help="input type")
    parser.add_argument("--show", action="store_true", help="show the plot in a window")
    return parser.parse_args()


def main():
    # assign to a global verbose var to indicate whether print
    # best tuning config
    global verbose, DTYPE
    args = parse_args()
    verbose = args.v
    DTYPE = getattr(torch, args.dtype)
    if args.quick:
        matmul_kernel.configs = CONFIGS[:2]
        shapes = [(64, 64, 64), (96, 80, 48), (32, 128, 100)]
        sizes = [(128, 128, 128), (192, 192, 192)]
    else:
        shapes = [
            (128, 256, 32),
            (128, 16, 32),
            (32, 128, 64),
            (64, 128, 128),
            (100, 72, 200),
            (512, 512, 512),
        ]
        sizes = [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024)]
    if not check_correctness(shapes):
        return 1
    if args.save_path:
        os.makedirs(args.save_path, exist_ok=True)
    make_benchmark(sizes).run(show_plots=args.show, print_data=True, save_path=args.save_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
