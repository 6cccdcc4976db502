"""How many threads a launch runs the grid on: the ``num_threads`` launch option, else
``SPINE_TRITON_NUM_THREADS``, else OpenMP's default (``OMP_NUM_THREADS``; all cores when unset;
what ``torch.set_num_threads`` set in the launching thread).

Each case runs in a process of its own and counts the threads the launch added: OpenMP keeps a
team's worker threads after the parallel region, so a launch on N threads leaves N - 1 more. That
test_vector_add.py's thread counts all give the right result is the other half.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import json, os, sys
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def copy_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))

    def threads():
        return len(os.listdir("/proc/self/task"))

    x = torch.arange(256, dtype=torch.float32)
    out = torch.empty_like(x)
    copy_kernel[(16,)](x, out, BLOCK=16, num_threads=1)  # compiles; runs on this thread only
    if "TORCH_SET_NUM_THREADS" in os.environ:
        torch.set_num_threads(int(os.environ["TORCH_SET_NUM_THREADS"]))
    before = threads()
    options = json.loads(sys.argv[1])
    out.zero_()
    copy_kernel[(16,)](x, out, BLOCK=16, **options)
    print(json.dumps({"threads": threads() - before + 1, "correct": torch.equal(out, x),
                      "omp_default": torch.get_num_threads()}))
""")


def launch_threads(tmp_path, options, **env):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child_env = {
        k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "SPINE_TRITON_NUM_THREADS")
    }
    child_env.update(env)
    result = subprocess.run(
        [sys.executable, str(script), json.dumps(options)],
        env=child_env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["correct"]
    return report


@pytest.mark.parametrize(
    "options, env, expected",
    [
        ({"num_threads": 3}, {}, 3),
        ({"num_threads": 1}, {}, 1),
        ({}, {"SPINE_TRITON_NUM_THREADS": "3"}, 3),
        ({}, {"OMP_NUM_THREADS": "1"}, 1),
        # The launch option wins over both variables.
        ({"num_threads": 2}, {"OMP_NUM_THREADS": "1", "SPINE_TRITON_NUM_THREADS": "3"}, 2),
        # SPINE_TRITON_NUM_THREADS wins over OpenMP's default.
        ({}, {"OMP_NUM_THREADS": "1", "SPINE_TRITON_NUM_THREADS": "2"}, 2),
        # torch.set_num_threads sets the OpenMP default of the thread that launches.
        ({}, {"TORCH_SET_NUM_THREADS": "1"}, 1),
        ({"num_threads": 2}, {"TORCH_SET_NUM_THREADS": "1"}, 2),
    ],
    ids=[
        "option-3",
        "option-1",
        "spine-env-3",
        "omp-env-1",
        "option-over-env",
        "spine-env-over-omp",
        "torch-set-1",
        "option-over-torch-set",
    ],
)
def test_launch_thread_count(tmp_path, options, env, expected):
    assert launch_threads(tmp_path, options, **env)["threads"] == expected


def test_default_is_openmp_default(tmp_path):
    # No option, no variable: OpenMP's default team (the one torch uses too), at most the grid.
    report = launch_threads(tmp_path, {})
    assert report["threads"] == min(report["omp_default"], 16)
    assert report["omp_default"] == len(os.sched_getaffinity(0))
