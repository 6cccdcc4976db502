"""torch.compile's Triton CPU path (inductor with ``cpu_backend="triton"``) runs on this backend.

Inductor finds Triton's CPU backend as ``triton.backends.backends["cpu"]`` (the entry-point name
this package registers) and compiles for ``GPUTarget("cpu", "", ...)``: the CPU's compute
capability is empty. Each case checks that inductor emitted Triton kernels (not its C++ ones) and
that their results match eager torch.
"""

import pytest
import torch
import torch._inductor.config as inductor_config
import triton
from spine_triton.driver import CPUDriver
from torch._inductor.utils import run_and_get_code
from torch.utils._triton import has_triton


@pytest.fixture(autouse=True)
def triton_cpu_backend(tmp_path, monkeypatch):
    # A fresh inductor cache: every case compiles, none reuses another run's code.
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))
    torch._dynamo.reset()
    with inductor_config.patch(cpu_backend="triton", compile_threads=1):
        yield
    torch._dynamo.reset()


def compiled(fn, *args):
    """fn compiled by inductor, run on args: (result, the generated modules' source)."""
    result, code = run_and_get_code(torch.compile(fn), *args)
    assert any("@triton.jit" in source for source in code), "inductor did not emit Triton kernels"
    return result


def test_inductor_finds_this_backend_as_tritons_cpu_backend():
    assert "cpu" in triton.backends.backends
    assert triton.backends.backends["cpu"].driver is CPUDriver
    assert has_triton()  # for the CPU device: what gates inductor's Triton features there


X = torch.randn(64, 300)
ROW = torch.randn(300)
Z = torch.randn(300, 64)

CASES = {
    "elementwise-broadcast": (lambda x, y: torch.sigmoid(x) * y + torch.tanh(x), (X, ROW)),
    "softmax": (lambda x: torch.softmax(x, -1), (X,)),
    "log-softmax-columns": (lambda x: torch.log_softmax(x, 0), (X,)),
    "layer-norm": (lambda x, w: torch.nn.functional.layer_norm(x, (300,), w, w), (X, ROW)),
    "gelu": (lambda x: torch.nn.functional.gelu(x), (X,)),
    "cumsum": (lambda x: torch.cumsum(x, 1), (X,)),
    "transposed-input": (lambda x, z: x + z.t(), (X, Z)),
    "gather": (lambda x, i: x[:, i] * 2, (X, torch.randint(0, 300, (50,)))),
    "argmax-and-max": (lambda x: (x.argmax(1), x.max(1).values + x.min(0).values.sum()), (X,)),
    "integer-arithmetic": (lambda a: (a * 3 + 7) // 5 % 11, (torch.randint(-100, 100, (1000,)),)),
    "bf16-out": (
        lambda a: (a.float().exp() * 2).to(torch.bfloat16),
        (torch.randn(1000, dtype=torch.bfloat16),),
    ),
    "long-rows": (lambda a: a.sum(1), (torch.randn(8, 100000),)),
}


@pytest.mark.parametrize("name", CASES)
def test_compiled_matches_eager(name):
    fn, args = CASES[name]
    expected = fn(*args)
    result = compiled(fn, *args)
    if not isinstance(expected, tuple):
        result, expected = (result,), (expected,)
    for got, want in zip(result, expected, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        if want.dtype == torch.bfloat16:
            torch.testing.assert_close(got, want, rtol=1e-2, atol=1e-2)
        elif want.is_floating_point():
            # Reductions sum in another order than eager; the tail of sums of 1e5 elements differs.
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-3)
        else:
            assert torch.equal(got, want)


def test_dropout_keeps_about_half_and_scales_what_it_keeps():
    x = torch.randn(256, 1024)
    out = compiled(lambda t: torch.nn.functional.dropout(t, 0.5, True), x)
    kept = out != 0
    assert 0.48 < kept.float().mean().item() < 0.52
    torch.testing.assert_close(out[kept], x[kept] * 2)
