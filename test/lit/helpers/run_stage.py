#!/usr/bin/env python3
"""Run MLIR text through spine_triton._C in-process, as a kernel compilation does.

    run_stage.py [--split-input-file] [--pipeline P | --translate] FILE

--pipeline P (default `builtin.module()`: parse and verify only) runs _C.run_pipeline; --translate
runs _C.translate_to_llvmir. The result goes to stdout; a CompileError's diagnostics go to stderr
and the exit status is 1 (with --split-input-file, each `// -----` chunk runs on its own, and the
status is 1 if any failed). A crash is the process's crash, which %expect_exit tells apart.
"""

import argparse
import sys

from spine_triton import _C


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--split-input-file", action="store_true")
    stage = parser.add_mutually_exclusive_group()
    stage.add_argument("--pipeline", default="builtin.module()")
    stage.add_argument("--translate", action="store_true")
    args = parser.parse_args(argv)
    with open(args.file) as f:
        text = f.read()
    chunks = text.split("// -----") if args.split_input_file else [text]
    status = 0
    for chunk in chunks:
        try:
            out = _C.translate_to_llvmir(chunk) if args.translate else _C.run_pipeline(chunk, args.pipeline)
        except _C.CompileError as e:
            print(e, file=sys.stderr)
            status = 1
        else:
            print(out)
        sys.stdout.flush()
        sys.stderr.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
