// RUN: spine-triton-opt --spine-materialize-program-ids %s | FileCheck %s

// Program ids and grid sizes become the six trailing i32 arguments, and calls
// forward them.

// CHECK-LABEL: tt.func public @kernel
// CHECK-SAME: (%[[P:.*]]: !tt.ptr<i32>, %[[X:.*]]: i32, %[[Y:.*]]: i32, %[[Z:.*]]: i32, %[[NX:.*]]: i32, %[[NY:.*]]: i32, %[[NZ:.*]]: i32)
// CHECK-NOT: tt.get_program_id
// CHECK-NOT: tt.get_num_programs
// CHECK: arith.addi %[[Z]], %[[NY]]
// CHECK: tt.call @helper(%[[Y]], %[[X]], %[[Y]], %[[Z]], %[[NX]], %[[NY]], %[[NZ]])
tt.func public @kernel(%p: !tt.ptr<i32>) {
  %z = tt.get_program_id z : i32
  %ny = tt.get_num_programs y : i32
  %s = arith.addi %z, %ny : i32
  %y = tt.get_program_id y : i32
  %r = tt.call @helper(%y) : (i32) -> i32
  %t = arith.addi %s, %r : i32
  tt.store %p, %t : !tt.ptr<i32>
  tt.return
}

// CHECK-LABEL: tt.func private @helper
// CHECK-SAME: (%[[A:.*]]: i32, %[[HX:.*]]: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: arith.muli %[[A]], %[[HX]]
tt.func private @helper(%a: i32) -> i32 attributes {noinline = true} {
  %x = tt.get_program_id x : i32
  %m = arith.muli %a, %x : i32
  tt.return %m : i32
}
