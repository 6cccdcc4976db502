#!/usr/bin/env python3
"""Run a command and succeed only if it exits with exactly the expected status.

    %expect_exit 1 spine-triton-opt bad.mlir

lit's `not` succeeds for any failure, including an abort or a segfault; a tool that reports bad
input must instead exit normally with status 1. The command's stdout and stderr pass through, so
the output can still be piped into FileCheck.
"""

import signal
import subprocess
import sys


def main(argv):
    if len(argv) < 3 or not argv[1].lstrip("-").isdigit():
        print("usage: expect_exit.py STATUS COMMAND [ARGS...]", file=sys.stderr)
        return 2
    expected = int(argv[1])
    rc = subprocess.run(argv[2:], check=False).returncode
    if rc == expected:
        return 0
    if rc < 0:
        try:
            how = f"was killed by {signal.Signals(-rc).name}"
        except ValueError:
            how = f"was killed by signal {-rc}"
    else:
        how = f"exited with status {rc}"
    print(f"expect_exit: `{' '.join(argv[2:])}` {how}, expected exit status {expected}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
