// The forward-reference guard of spine_triton._C and spine-triton-opt (cpp/parser/ParserGuards.h)
// lets valid IR through: a use before its definition in a CFG region the definition's block
// dominates, names reused by sibling regions and by functions, one-line functions, region
// arguments.
// RUN: %python %S/../helpers/run_stage.py %s | FileCheck %s
// RUN: spine-triton-opt %s | FileCheck %s

// CHECK-LABEL: func.func @cfg
// CHECK: return %[[X:.*]] : i32
// CHECK: %[[X]] = arith.constant 1 : i32
func.func @cfg() -> i32 {
  cf.br ^bb2
^bb1:
  return %x : i32
^bb2:
  %x = arith.constant 1 : i32
  cf.br ^bb1
}

// CHECK-LABEL: func.func @one_line
func.func @one_line(%a: i32) -> i32 { return %a : i32 }

// CHECK-LABEL: func.func @siblings
func.func @siblings(%a: i32, %n: index) -> i32 {
  %0 = scf.execute_region -> i32 {
    %x = arith.addi %a, %a : i32
    scf.yield %x : i32
  }
  %1 = scf.execute_region -> i32 {
    %x = arith.muli %a, %0 : i32
    scf.yield %x : i32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %1) -> (i32) {
    %y = arith.addi %acc, %a : i32
    scf.yield %y : i32
  }
  %3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %2) -> (i32) {
    scf.yield %acc : i32
  }
  return %3 : i32
}
