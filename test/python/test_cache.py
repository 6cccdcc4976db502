"""A second process running the same kernel with the same TRITON_CACHE_DIR reuses the cached binary."""

import json
import os
import subprocess
import sys
import textwrap

# Runs the vector add once and prints, as JSON, what Triton reported (cache hit or not) and which
# backend stages actually ran in this process.
CHILD = textwrap.dedent("""
    import json
    import torch
    import triton
    import triton.language as tl
    from triton import knobs
    from spine_triton.compiler import CPUBackend

    stages_run = []
    add_stages = CPUBackend.add_stages

    def counting_add_stages(self, stages, options, language):
        add_stages(self, stages, options, language)
        for name, stage in list(stages.items()):
            def counted(src, metadata, name=name, stage=stage):
                stages_run.append(name)
                return stage(src, metadata)
            stages[name] = counted

    CPUBackend.add_stages = counting_add_stages

    cache_hits = []
    knobs.compilation.listener = lambda **kw: cache_hits.append(kw["cache_hit"])

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                 mask=mask)

    x, y = torch.rand(5000), torch.rand(5000)
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(5000, 1024),)](x, y, out, 5000, BLOCK_SIZE=1024)
    print(json.dumps({"cache_hits": cache_hits, "stages_run": stages_run,
                      "correct": torch.equal(out, x + y)}))
""")


def run_child(cache_dir, workdir, extra_env=None):
    script = workdir / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, TRITON_CACHE_DIR=str(cache_dir), **(extra_env or {}))
    result = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=False, timeout=600
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def cache_files(cache_dir):
    return sorted(str(p.relative_to(cache_dir)) for p in cache_dir.rglob("*") if p.is_file())


def test_second_process_reuses_cached_binary(tmp_path):
    cache_dir = tmp_path / "cache"
    first = run_child(cache_dir, tmp_path)
    assert first == {
        "cache_hits": [False],
        "stages_run": ["ttir", "linalg", "llmlir", "llir", "asm", "so"],
        "correct": True,
    }
    files = cache_files(cache_dir)
    assert any(f.endswith("add_kernel.so") for f in files)

    second = run_child(cache_dir, tmp_path)
    assert second == {"cache_hits": [True], "stages_run": [], "correct": True}
    # Nothing was compiled or written again: the second process loaded the first one's files.
    assert cache_files(cache_dir) == files
