"""The spine-triton command line: every --emit stage, --stats, user errors, and every command that
README.md, docs/reading-the-dumps.md, docs/adding-a-pass.md and `spine-triton compile --help` show."""

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from spine_triton import cli

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo.py"
ADD = [f"{DEMO}:add_kernel", "--signature", "*fp32,*fp32,*fp32,i32", "--constexpr", "BLOCK_SIZE=1024"]
MATMUL = [
    f"{DEMO}:matmul_kernel",
    "--signature",
    "*fp32,*fp32,*fp32," + ",".join(["i32"] * 9),
    *("-c", "BLOCK_M=32", "-c", "BLOCK_N=32", "-c", "BLOCK_K=16"),
]
RISCV = ["--target", "riscv64", "--arch-id", "0x503C"]
x86_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="checks x86-64 code on an x86-64 host")


def compile_(capsys, *args):
    """Runs `spine-triton compile ARGS` in this process: (exit code, stdout, stderr)."""
    code = cli.main(["compile", *args])
    out, err = capsys.readouterr()
    return code, out, err


def elf_header(data: bytes) -> tuple[int, int]:
    """(e_type, e_machine) of a little-endian ELF file."""
    assert data[:4] == b"\x7fELF", data[:16]
    return int.from_bytes(data[16:18], "little"), int.from_bytes(data[18:20], "little")


# --- every stage ---------------------------------------------------------------------------------

STAGE_MARKERS = {
    "ttir": [r"tt\.func public @add_kernel\(", r"tt\.load", r"tt\.store"],
    "linalg": [r"func\.func @add_kernel\("],
    "llmlir": [r"llvm\.func @add_kernel\(", r"llvm\.func @add_kernel__spine_entry\("],
    "llir": [r"define void @add_kernel\(", r"define void @add_kernel__spine_entry\("],
    "asm": [r"^add_kernel:", r"^add_kernel__spine_entry:", r"^\s+\.text"],
}


@pytest.mark.parametrize("stage", list(STAGE_MARKERS))
def test_emit_text_stage(capsys, stage):
    code, out, err = compile_(capsys, *ADD, "--emit", stage)
    assert code == 0, err
    for marker in STAGE_MARKERS[stage]:
        assert re.search(marker, out, re.MULTILINE), f"{marker!r} not in the {stage} stage:\n{out[:2000]}"
    if stage != "ttir":  # every Triton op is lowered after the TTIR stage
        assert not re.search(r"\btt\.[a-z_]+ ", out), out[:2000]


@pytest.mark.parametrize("stage,e_type", [("obj", 1), ("so", 3)])  # ET_REL, ET_DYN
@pytest.mark.parametrize("target,e_machine", [([], 62), (RISCV, 243)])  # EM_X86_64, EM_RISCV
def test_emit_binary_stage(capsys, tmp_path, stage, e_type, target, e_machine):
    if not target and platform.machine() != "x86_64":
        pytest.skip("native x86-64 code on an x86-64 host")
    out_file = tmp_path / f"add.{stage}"
    code, out, err = compile_(capsys, *ADD, *target, "--emit", stage, "-o", str(out_file))
    assert code == 0, err
    assert out == ""
    assert elf_header(out_file.read_bytes()) == (e_type, e_machine)


def test_matmul_stages(capsys):
    code, ttir, err = compile_(capsys, *MATMUL, "--emit", "ttir")
    assert code == 0, err
    assert "tt.dot" in ttir
    code, linalg, err = compile_(capsys, *MATMUL, "--emit", "linalg")
    assert code == 0, err
    assert "linalg." in linalg and "tt.dot" not in linalg


def test_riscv_stages_target_riscv(capsys):
    code, llir, err = compile_(capsys, *ADD, *RISCV, "--emit", "llir")
    assert code == 0, err
    assert 'target triple = "riscv64' in llir
    code, asm, err = compile_(capsys, *ADD, *RISCV, "--emit", "asm")
    assert code == 0, err
    assert re.search(r"^\s+vsetvli\s", asm, re.MULTILINE), asm


def test_output_file_matches_stdout_and_named_signature_matches_positional(capsys, tmp_path):
    code, printed, _ = compile_(capsys, *ADD, "--emit", "llmlir")
    assert code == 0
    named = [
        f"{DEMO}:add_kernel",
        "--signature",
        "x_ptr=*fp32, n_elements=i32, y_ptr=*fp32, out_ptr=*fp32",  # any order
        "--constexpr",
        "BLOCK_SIZE=1024",
    ]
    code, _, err = compile_(capsys, *named, "--emit", "llmlir", "-o", str(tmp_path / "add.mlir"))
    assert code == 0, err
    assert (tmp_path / "add.mlir").read_text() == printed


# --- --stats -------------------------------------------------------------------------------------


def stats_rows(out: str) -> list[dict]:
    """The rows of --stats output: function, region, insns, the categories and FMA mnemonics."""
    rows = []
    pattern = re.compile(
        r"^(\S+)\s+(loop 0x[0-9a-f]+|\(function\))\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)(.*)$"
    )
    for line in out.splitlines():
        if m := pattern.match(line):
            counts = dict(zip(("insns", *cli.CATEGORIES), map(int, m.groups()[2:7])))
            rows.append({"function": m[1], "region": m[2], **counts, "fmas": m[8].strip()})
    return rows


@x86_only
def test_stats_x86_dot_loop_uses_vector_fma(capsys):
    code, out, err = compile_(capsys, *MATMUL, "--stats")
    assert code == 0, err
    loops = [r for r in stats_rows(out) if r["region"].startswith("loop")]
    hot = [r for r in loops if r["vector-FMA"] > 0]
    assert hot, f"no innermost loop of the dot kernel has vector FMAs:\n{out}"
    assert all(re.search(r"\bvfmadd\d+ps\b", r["fmas"]) for r in hot), out


def test_stats_riscv_dot_loop_uses_vfmacc(capsys):
    code, out, err = compile_(capsys, *MATMUL, *RISCV, "--stats")
    assert code == 0, err
    assert "riscv64" in out.splitlines()[0]
    hot = [r for r in stats_rows(out) if r["region"].startswith("loop") and r["vector-FMA"] > 0]
    assert hot, f"no innermost loop of the dot kernel has vector FMAs:\n{out}"
    assert any("vfmacc" in r["fmas"] for r in hot), out


@pytest.mark.parametrize("target", [[], RISCV], ids=["native", "riscv64"])
def test_stats_vector_add_is_vector_code_without_fma(capsys, target):
    code, out, err = compile_(capsys, *ADD, *target, "--stats")
    assert code == 0, err
    rows = stats_rows(out)
    assert {r["function"] for r in rows} == {"add_kernel", "add_kernel__spine_entry"}, out
    assert all(r["vector-FMA"] == 0 for r in rows), out
    assert any(r["region"].startswith("loop") and r["other-vector"] > 0 for r in rows), out


def objdump(machine_lines: list[tuple[int, str]]) -> str:
    """llvm-objdump -d --no-show-raw-insn text of one function `k` from (address, instruction)."""
    body = "".join(f"{addr:8x}:      \t{insn}\n" for addr, insn in machine_lines)
    return f"\nDisassembly of section .text:\n\n0000000000000000 <k>:\n{body}"


def test_loop_stats_finds_innermost_natural_loops_x86():
    text = objdump(
        [
            (0x00, "xorl\t%eax, %eax"),
            (0x02, "je\t0x60 <k+0x60>"),
            (0x10, "movl\t$0x0, %ecx"),  # outer loop header
            (0x20, "vfmadd231ps\t%ymm1, %ymm2, %ymm0"),  # inner loop header
            (0x26, "vaddps\t%ymm3, %ymm0, %ymm0"),
            (0x2A, "vfmadd231ss\t%xmm1, %xmm2, %xmm0"),
            (0x2C, "addl\t$0x1, %ecx"),
            (0x30, "jne\t0x20 <k+0x20>"),
            (0x40, "addl\t$0x1, %eax"),
            (0x44, "jne\t0x10 <k+0x10>"),
            (0x48, "retq"),
            # Jumps backwards without being a loop: 0x48 does not dominate this block.
            (0x60, "vaddss\t%xmm0, %xmm1, %xmm1"),
            (0x64, "jmp\t0x48 <k+0x48>"),
        ]
    )
    loop, whole = cli.loop_stats(text, "x86_64")
    assert (loop.is_loop, loop.start) == (True, 0x20)
    assert loop.counts == {"vector-FMA": 1, "other-vector": 1, "scalar-FP": 1, "other": 2}
    assert loop.fma_mnemonics == {"vfmadd231ps": 1}
    assert (whole.is_loop, sum(whole.counts.values()), whole.counts["scalar-FP"]) == (False, 13, 2)


def test_loop_stats_riscv():
    text = objdump(
        [
            (0x00, "li\ta0, 0x10"),
            (0x02, "vsetvli\ta1, a0, e32, m2, ta, ma"),  # loop header
            (0x06, "vfmacc.vf\tv8, fa0, v16"),
            (0x0A, "fmadd.s\tfa1, fa2, fa3, fa1"),
            (0x0E, "bset\ta2, a2, a3"),  # Zbs: starts with b, but no branch
            (0x12, "addi\ta0, a0, -0x1"),
            (0x14, "bnez\ta0, 0x2 <k+0x2>"),
            (0x16, "ret"),
        ]
    )
    loop, _ = cli.loop_stats(text, "riscv64")
    assert (loop.is_loop, loop.start) == (True, 0x2)
    assert loop.counts == {"vector-FMA": 1, "other-vector": 1, "scalar-FP": 1, "other": 3}


# --- errors --------------------------------------------------------------------------------------


def test_unknown_kernel_lists_the_kernels(capsys):
    code, _, err = compile_(capsys, f"{DEMO}:no_such_kernel", "--emit", "ttir")
    assert code == 2
    assert "kernel 'no_such_kernel' not found" in err
    assert "add_kernel, matmul_kernel, softmax_kernel" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "signature,message",
    [
        ("*fp32,*fp32,*fp33,i32", "argument 'out_ptr': unknown type '*fp33'"),
        ("*fp32,i32", "has 4 runtime arguments (x_ptr, y_ptr, out_ptr, n_elements), got 2 types"),
        ("x_ptr=*fp32,y=*fp32", "'y' is not an argument of the kernel"),
        ("x_ptr=*fp32,BLOCK_SIZE=i32", "'BLOCK_SIZE' is a constexpr"),
        ("x_ptr=*fp32,*fp32", "give every argument as NAME=TYPE, or only types in order"),
        ("*fp32:8,*fp32,*fp32,i32", "the only hint is ':16'"),
    ],
)
def test_bad_signature(capsys, signature, message):
    code, _, err = compile_(
        capsys, f"{DEMO}:add_kernel", "-s", signature, "-c", "BLOCK_SIZE=64", "--emit", "ttir"
    )
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_missing_constexpr(capsys):
    code, _, err = compile_(capsys, f"{DEMO}:add_kernel", "-s", "*fp32,*fp32,*fp32,i32", "--emit", "ttir")
    assert code == 2
    assert "needs a value for constexpr 'BLOCK_SIZE': add --constexpr BLOCK_SIZE=VALUE" in err


UNSUPPORTED = """\
import triton
import triton.language as tl


@triton.jit
def inline_asm_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("mov $0, $1", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(x_ptr + offs, y)


@triton.jit
def undefined_name_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + no_such_name)
"""


def test_unsupported_op_names_kernel_op_and_source_line(capsys, tmp_path):
    source = tmp_path / "kernels.py"
    source.write_text(UNSUPPORTED)
    code, out, err = compile_(
        capsys, f"{source}:inline_asm_kernel", "-s", "*fp32", "-c", "BLOCK=16", "--emit", "asm"
    )
    assert code == 1
    assert out == ""
    assert "cannot compile kernel 'inline_asm_kernel'" in err
    assert f"{source}:9" in err  # the tl.inline_asm_elementwise line
    assert "op 'tt.elementwise_inline_asm'" in err
    assert "Traceback" not in err


def test_frontend_error_names_the_source_line(capsys, tmp_path):
    source = tmp_path / "kernels.py"
    source.write_text(UNSUPPORTED)
    code, _, err = compile_(
        capsys, f"{source}:undefined_name_kernel", "-s", "*fp32", "-c", "BLOCK=16", "--emit", "ttir"
    )
    assert code == 1
    assert f"cannot compile kernel 'undefined_name_kernel' (frontend) at {source}:16" in err
    assert "no_such_name is not defined" in err
    assert "Traceback" not in err


def test_bad_arch_id_lists_the_known_ones(capsys):
    code, _, err = compile_(capsys, *ADD, "--target", "riscv64", "--arch-id", "0x1234", "--emit", "asm")
    assert code == 2
    assert "0x503C (spacemit-x60)" in err


def test_nothing_to_do(capsys):
    code, _, err = compile_(capsys, *ADD)
    assert code == 2
    assert "give --emit STAGE and/or --stats" in err


# --- the installed command and the documented commands ------------------------------------------


def spine_triton_command() -> str:
    command = shutil.which("spine-triton")
    assert command, "the spine-triton console script is not on PATH: pip install ."
    return command


def test_console_script_exit_codes():
    ok = subprocess.run(
        [spine_triton_command(), "compile", *ADD, "--emit", "ttir"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert "tt.func public @add_kernel" in ok.stdout
    bad = subprocess.run(
        [spine_triton_command(), "compile", f"{DEMO}:nope", "--emit", "ttir"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    helped = subprocess.run(
        [spine_triton_command(), "compile", "--help"], check=False, capture_output=True, text=True
    )
    assert helped.returncode == 0
    assert "examples:" in helped.stdout


def shell_blocks(markdown: str) -> list[str]:
    """The ```sh blocks of a Markdown text."""
    return re.findall(r"^```sh\n(.*?)^```", markdown, re.MULTILINE | re.DOTALL)


def help_examples() -> list[str]:
    """The commands in `spine-triton compile --help`'s examples, continuation lines joined."""
    examples = cli.COMPILE_EXAMPLES.split("\nsignature types:")[0].replace("\\\n", " ")
    return [line.strip() for line in examples.splitlines() if line.strip().startswith("spine-triton ")]


def readme_section() -> str:
    text = (REPO / "README.md").read_text()
    match = re.search(
        r"^## Inspecting what the compiler did\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL
    )
    assert match, "README.md has no '## Inspecting what the compiler did' section"
    return match.group(1)


DOCUMENTED = {
    "README.md": lambda: shell_blocks(readme_section()),
    "docs/reading-the-dumps.md": lambda: shell_blocks((REPO / "docs/reading-the-dumps.md").read_text()),
    "docs/adding-a-pass.md": lambda: shell_blocks((REPO / "docs/adding-a-pass.md").read_text()),
    "spine-triton compile --help": help_examples,
}


@pytest.mark.parametrize("doc", list(DOCUMENTED))
def test_documented_commands_run(doc, tmp_path):
    # Each block runs in order in one scratch directory (later blocks read what earlier ones wrote),
    # which sees the repository's examples/ and test/ so the commands read as they would in a checkout.
    blocks = DOCUMENTED[doc]()
    assert blocks, f"{doc} shows no commands"
    for name in ("examples", "test"):
        (tmp_path / name).symlink_to(REPO / name)
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    env.pop("SPINE_TRITON_DUMP_PATH", None)
    for block in blocks:
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            cwd=tmp_path,
            env=env,
            check=False,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, (
            f"a command in {doc} failed (exit {result.returncode}):\n{block}\n"
            f"--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"
        )


def test_readme_lists_every_environment_variable():
    # Every TRITON_* / SPINE_TRITON_* name the package's sources mention: os.environ reads and the
    # constants they go through alike.
    named = set()
    for path in (REPO / "python" / "spine_triton").glob("*.py"):
        named |= set(re.findall(r"\"((?:SPINE_)?TRITON_[A-Z0-9_]+)\"", path.read_text()))
    assert "SPINE_TRITON_DUMP_PATH" in named
    missing = sorted(v for v in named if f"`{v}`" not in readme_section())
    assert not missing, f"README.md's 'Inspecting what the compiler did' does not list {missing}"
