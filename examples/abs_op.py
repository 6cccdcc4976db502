"""An elementwise op and its accuracy test in the style of FlagGems (its ``abs`` and
``test_accuracy_abs``): a pointwise Triton kernel over the flattened tensor, checked against
torch.abs for several shapes and dtypes, bit for bit (abs only clears the sign bit).

    python3 examples/abs_op.py                      on the host CPU
    python3 examples/abs_op.py --riscv              for the SpacemiT X60 (qemu off RISC-V)
    python3 examples/abs_op.py --arch-id 0xA03C     for another SpacemiT core

Prints, per shape and dtype, whether the result matches torch; exits with 1 on a mismatch.
"""

import sys

import example_cli
import torch
import triton
import triton.language as tl


@triton.jit
def abs_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.abs(x), mask=mask)


def abs(x):
    """|x| elementwise, the op a library like FlagGems puts behind torch.abs."""
    x = x.contiguous()
    out = torch.empty_like(x)
    n_elements = x.numel()

    def grid(meta):
        return (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)

    abs_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)
    return out


FLOAT_DTYPES = [torch.float16, torch.float32, torch.bfloat16]
INT_DTYPES = [torch.int32]
# A single element, odd sizes (masked tails), a row, and many blocks.
POINTWISE_SHAPES = [(1,), (2, 19, 7), (1, 32), (160, 1024), (1024, 1024)]
# Under qemu every instruction is emulated: small enough to take a second or two.
EMULATED_SHAPES = [(1,), (2, 19, 7), (33, 100)]
_SAME_WIDTH_INT = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32}


def assert_equal(res, ref):
    """Bitwise equality, so -0.0 against 0.0 and NaNs count too."""
    assert res.dtype == ref.dtype and res.shape == ref.shape, (res.dtype, res.shape, ref.dtype, ref.shape)
    if res.dtype in _SAME_WIDTH_INT:
        res, ref = res.view(_SAME_WIDTH_INT[res.dtype]), ref.view(_SAME_WIDTH_INT[ref.dtype])
    differ = (res != ref).sum().item()
    assert differ == 0, f"{differ} of {res.numel()} elements differ"


def test_accuracy_abs(shape, dtype):
    """abs of random values (with -0.0, infinities and NaN at the front when they fit) against
    torch.abs; prints the verdict and raises AssertionError when they differ."""
    if dtype.is_floating_point:
        inp = torch.randn(shape, dtype=dtype)
        special = torch.tensor([-0.0, float("inf"), -float("inf"), float("nan"), -2.5], dtype=dtype)
        flat = inp.view(-1)
        flat[: special.numel()] = special[: flat.numel()]
    else:
        inp = torch.randint(-1000, 1000, shape, dtype=dtype)
    ref_out = torch.abs(inp)
    res_out = abs(inp)
    try:
        assert_equal(res_out, ref_out)
    except AssertionError as error:
        example_cli.report(f"abs {tuple(shape)} {dtype}", False, str(error))
        raise
    example_cli.report(f"abs {tuple(shape)} {dtype}", True)


def main(argv=None) -> int:
    emulated = example_cli.setup(__doc__.splitlines()[0], argv)
    torch.manual_seed(0)
    results = []
    for dtype in FLOAT_DTYPES + INT_DTYPES:
        for shape in EMULATED_SHAPES if emulated else POINTWISE_SHAPES:
            try:
                test_accuracy_abs(shape, dtype)
                results.append(True)
            except AssertionError:
                results.append(False)
    return example_cli.finish(results)


if __name__ == "__main__":
    sys.exit(main())
