// Found by tools/fuzz_pipeline.py (and by any kernel using tl.rand): translating to LLVM IR with
// line info crashed in upstream's DIScopeForLLVMFuncOp on call-site locations it cannot scope,
// a call site whose callee has no file (`callsite(unknown at ...)`, as tl.rand's inlined helpers
// leave) and a call site on an op outside any llvm.func (a global's initializer). Such ops keep
// the innermost caller location that has a file.
// RUN: %python %S/../helpers/run_stage.py --translate %s | FileCheck %s

// CHECK: @h = internal global i32 1
// CHECK: define float @k(float %0)
// CHECK: fadd float {{.*}} !dbg [[ADD:![0-9]+]]
// CHECK: fmul float {{.*}} !dbg [[MUL:![0-9]+]]
// CHECK: fsub float {{.*}} !dbg [[SUB:![0-9]+]]
// CHECK-DAG: [[ADD]] = !DILocation(line: 5, column: 3, scope: [[K:![0-9]+]])
// CHECK-DAG: [[MUL]] = !DILocation(line: 6, column: 3, scope: [[K]])
// A call site the pass can scope keeps its inlining.
// CHECK-DAG: [[SUB]] = !DILocation(line: 9, column: 1, scope: {{![0-9]+}}, inlinedAt: [[AT:![0-9]+]])
// CHECK-DAG: [[AT]] = !DILocation(line: 7, column: 3, scope: [[K]])
module {
  llvm.mlir.global internal @h() {addr_space = 0 : i32} : i32 {
    %0 = llvm.mlir.constant(1 : i32) : i32 loc(callsite("helper.py":1:1 at "k.py":2:2))
    llvm.return %0 : i32 loc(callsite("helper.py":1:1 at "k.py":2:2))
  } loc(callsite("helper.py":1:1 at "k.py":2:2))
  llvm.func @k(%arg0: f32) -> f32 {
    %0 = llvm.fadd %arg0, %arg0 : f32 loc(callsite(unknown at "k.py":5:3))
    %1 = llvm.fmul %0, %0 : f32 loc(callsite(callsite("r.py":7:1 at unknown) at "k.py":6:3))
    %2 = llvm.fsub %1, %0 : f32 loc(callsite("r.py":9:1 at "k.py":7:3))
    llvm.return %2 : f32 loc("k.py":8:3)
  } loc("k.py":4:1)
}
