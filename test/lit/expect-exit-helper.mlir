// Self-test of the %expect_exit helper the error tests rely on: it accepts exactly the given
// status and rejects other statuses and deaths by signal (which lit's `not` would accept).
// RUN: %expect_exit 1 %python -c "raise SystemExit(1)"
// RUN: %expect_exit 0 %python -c "pass"
// RUN: not %expect_exit 1 %python -c "raise SystemExit(2)"
// RUN: not %expect_exit 1 %python -c "import os; os.abort()" 2>&1 | FileCheck %s
// CHECK: was killed by SIGABRT, expected exit status 1
