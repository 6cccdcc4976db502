"""SPINE_TRITON_DUMP_PATH: every compilation writes each stage into DIR/<kernel>-<hash>/, and the
compiled kernel's .asm dict holds the same stages."""

import json
import os
import platform
import subprocess
import sys
import textwrap

import pytest

TEXT_STAGES = ("ttir", "linalg", "llmlir", "llir", "asm")

# Launches (or, for a RISC-V arch id, only compiles) the vector add and prints the kernel's name,
# cache hash and .asm dict as JSON.
CHILD = textwrap.dedent("""
    import json, sys
    import torch, triton, triton.language as tl
    from triton.backends.spine_triton.driver import CPUDriver

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                 mask=mask)

    x, y = torch.rand(5000), torch.rand(5000)
    out = torch.empty_like(x)
    if len(sys.argv) > 1:
        driver = CPUDriver()
        driver.set_current_arch_id(sys.argv[1])
        triton.runtime.driver.set_active(driver)
        kernel = add_kernel.warmup(x, y, out, 5000, BLOCK_SIZE=1024, grid=(5,))
    else:
        kernel = add_kernel[(5,)](x, y, out, 5000, BLOCK_SIZE=1024)
        assert torch.equal(out, x + y)
    asm = {k: v.hex() if isinstance(v, bytes) else v for k, v in kernel.asm.items()}
    print(json.dumps({"name": kernel.name, "hash": kernel.hash, "asm": asm}))
""")

UNSUPPORTED = textwrap.dedent("""
    import torch, triton, triton.language as tl

    @triton.jit
    def inline_asm_kernel(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        y = tl.inline_asm_elementwise("mov $0, $1", "=r,r", [tl.load(x_ptr + offs)], dtype=tl.float32,
                                      is_pure=True, pack=1)
        tl.store(x_ptr + offs, y)

    inline_asm_kernel[(1,)](torch.zeros(16), BLOCK=16)
""")


def run_child(tmp_path, source, *args, dump=None, cache=None):
    script = tmp_path / "child.py"
    script.write_text(source)
    env = dict(os.environ, TRITON_CACHE_DIR=str(cache or tmp_path / "cache"))
    env.pop("SPINE_TRITON_DUMP_PATH", None)
    if dump is not None:
        env["SPINE_TRITON_DUMP_PATH"] = str(dump)
    return subprocess.run(
        [sys.executable, str(script), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def launch(tmp_path, *args, **kwargs) -> dict:
    result = run_child(tmp_path, CHILD, *args, **kwargs)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def elf_type(data: bytes) -> int:
    assert data[:4] == b"\x7fELF"
    return int.from_bytes(data[16:18], "little")


def test_launch_dumps_every_stage_as_the_asm_dict_has_it(tmp_path):
    dump = tmp_path / "dumps"
    kernel = launch(tmp_path, dump=dump)
    name, asm = kernel["name"], kernel["asm"]
    # The compiled kernel exposes every stage (and triton's own "source": the TTIR before its passes).
    assert set(asm) == {"source", *TEXT_STAGES, "so"}

    folder = dump / f"{name}-{kernel['hash'][:10]}"
    assert sorted(p.name for p in dump.iterdir()) == [folder.name]
    expected = {f"{name}.{ext}" for ext in (*TEXT_STAGES, "o", "so")}
    if platform.machine() == "riscv64":
        expected.add(f"{name}.disasm")
    assert {p.name for p in folder.iterdir()} == expected
    for stage in TEXT_STAGES:
        assert (folder / f"{name}.{stage}").read_text() == asm[stage], stage
    assert (folder / f"{name}.so").read_bytes() == bytes.fromhex(asm["so"])
    assert elf_type((folder / f"{name}.o").read_bytes()) == 1  # ET_REL
    assert "tt.func public @add_kernel" in asm["ttir"]
    assert "llvm.func @add_kernel__spine_entry" in asm["llmlir"]
    assert "define void @add_kernel(" in asm["llir"]


@pytest.mark.skipif(platform.machine() != "x86_64", reason="cross-compiles for RISC-V from x86-64")
def test_riscv_dump_has_rvv_disassembly(tmp_path):
    dump = tmp_path / "dumps"
    kernel = launch(tmp_path, "0x503C", dump=dump)
    folder = dump / f"add_kernel-{kernel['hash'][:10]}"
    disasm = (folder / "add_kernel.disasm").read_text()
    assert "file format elf64-littleriscv" in disasm
    # Decoded RVV instructions, not the `.4byte` words binutils prints without the V extension.
    assert "vsetvli" in disasm and "vle32.v" in disasm
    assert ".4byte" not in disasm


def test_dump_path_applies_to_a_kernel_already_in_the_cache(tmp_path):
    cache = tmp_path / "cache"
    launch(tmp_path, cache=cache)
    dump = tmp_path / "dumps"
    kernel = launch(tmp_path, dump=dump, cache=cache)
    assert (dump / f"add_kernel-{kernel['hash'][:10]}" / "add_kernel.ttir").is_file()


def test_failed_compile_keeps_the_stages_before_the_failure(tmp_path):
    dump = tmp_path / "dumps"
    result = run_child(tmp_path, UNSUPPORTED, dump=dump)
    assert result.returncode != 0
    assert "tt.elementwise_inline_asm" in result.stderr
    (folder,) = dump.iterdir()
    assert folder.name.startswith("inline_asm_kernel-")
    assert [p.name for p in folder.iterdir()] == ["inline_asm_kernel.ttir"]
    assert "tt.elementwise_inline_asm" in (folder / "inline_asm_kernel.ttir").read_text()
