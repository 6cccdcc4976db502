// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-element-loops{vector-bits=512}))' %s | FileCheck %s

// A kernel (public, with the six program-id arguments) whose loop reduces a
// view of its row: the launcher runs pid_x + 1, pid_x + 2... next on this
// thread, so each strip also prefetches, into L2 (hint 2), the same lines of
// a later program's row (the view's descriptor recomputed with its pid_x),
// when that program
// exists (a row of 4 KiB: two programs ahead, which cover 8 KiB, as the
// prefetches' attribute says for spine-schedule-tile-prefetches). No loop over tiles is
// around the loop, so nothing else guards it.
// CHECK-LABEL: func.func @row_sum(
// CHECK-SAME: %[[X:[a-z0-9]+]]: i64, %{{[a-z0-9]+}}: memref<f32>, %[[PID:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32, %[[NX:[a-z0-9]+]]: i32
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[PID]], %[[TWO]] : i32
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %[[NEXT]], %[[NX]] : i32
// CHECK: %[[ROW:.*]] = arith.extsi %[[NEXT]] : i32 to i64
// CHECK: %[[OFFSET:.*]] = arith.muli %[[ROW]], %{{.*}} : i64
// CHECK: arith.addi %[[X]], %[[OFFSET]] : i64
// CHECK: %[[AT:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[LINE:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: scf.if %[[EXISTS]] {
// CHECK-NEXT: "llvm.intr.prefetch"(%[[LINE]]) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 2 : i64}
// CHECK-COUNT-3: "llvm.intr.prefetch"({{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 2 : i64}
// CHECK-NOT: llvm.intr.prefetch
// CHECK: vector.load %{{.*}}[%[[I]]] : memref<1024xf32>, vector<64xf32>
// CHECK: return

func.func @row_sum(%x: i64, %sum: memref<f32>, %pid: i32, %pidy: i32, %pidz: i32, %nx: i32, %ny: i32, %nz: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096_i64 = arith.constant 4096 : i64
  %c1_i64 = arith.constant 1 : i64
  %c1024_i64 = arith.constant 1024 : i64
  %c0_i64 = arith.constant 0 : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %row = arith.extsi %pid : i32 to i64
  %offset = arith.muli %row, %c4096_i64 : i64
  %address = arith.addi %x, %offset : i64
  %ptr = llvm.inttoptr %address : i64 to !llvm.ptr
  %d0 = llvm.insertvalue %ptr, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d1 = llvm.insertvalue %ptr, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d2 = llvm.insertvalue %c0_i64, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d3 = llvm.insertvalue %c1024_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<1024xf32>
  scf.for %i = %c0 to %c1024 step %c1 {
    %v = memref.load %view[%i] : memref<1024xf32>
    %a = memref.load %sum[] : memref<f32>
    %s = arith.addf %a, %v fastmath<reassoc> : f32
    memref.store %s, %sum[] : memref<f32>
  }
  return
}

// A row of 256 floats (1 KiB): as many programs ahead as cover 8 KiB, eight
// (also the most).
// CHECK-LABEL: func.func @short_row_sum(
// CHECK-SAME: %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: memref<f32>, %[[PID:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32, %[[NX:[a-z0-9]+]]: i32
// CHECK: scf.for
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK: %[[AHEAD:.*]] = arith.addi %[[PID]], %[[EIGHT]] : i32
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %[[AHEAD]], %[[NX]] : i32
// CHECK: scf.if %[[EXISTS]] {
// CHECK: "llvm.intr.prefetch"({{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 8 : i64}

func.func @short_row_sum(%x: i64, %sum: memref<f32>, %pid: i32, %pidy: i32, %pidz: i32, %nx: i32, %ny: i32, %nz: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 256 : index
  %c4096_i64 = arith.constant 4096 : i64
  %c1_i64 = arith.constant 1 : i64
  %c1024_i64 = arith.constant 256 : i64
  %c0_i64 = arith.constant 0 : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %row = arith.extsi %pid : i32 to i64
  %offset = arith.muli %row, %c4096_i64 : i64
  %address = arith.addi %x, %offset : i64
  %ptr = llvm.inttoptr %address : i64 to !llvm.ptr
  %d0 = llvm.insertvalue %ptr, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d1 = llvm.insertvalue %ptr, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d2 = llvm.insertvalue %c0_i64, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d3 = llvm.insertvalue %c1024_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<256xf32>
  scf.for %i = %c0 to %c1024 step %c1 {
    %v = memref.load %view[%i] : memref<256xf32>
    %a = memref.load %sum[] : memref<f32>
    %s = arith.addf %a, %v fastmath<reassoc> : f32
    memref.store %s, %sum[] : memref<f32>
  }
  return
}

// A loop that does not reduce (a row copied), and a private function (no
// launcher runs it over a grid): no next-program prefetch.
// CHECK-LABEL: func.func @row_copy(
// CHECK-NOT: llvm.intr.prefetch
// CHECK: return
// CHECK-LABEL: func.func private @row_sum_helper(
// CHECK-NOT: llvm.intr.prefetch
// CHECK: return

func.func @row_copy(%x: i64, %out: memref<1024xf32>, %pid: i32, %pidy: i32, %pidz: i32, %nx: i32, %ny: i32, %nz: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096_i64 = arith.constant 4096 : i64
  %c1_i64 = arith.constant 1 : i64
  %c1024_i64 = arith.constant 1024 : i64
  %c0_i64 = arith.constant 0 : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %row = arith.extsi %pid : i32 to i64
  %offset = arith.muli %row, %c4096_i64 : i64
  %address = arith.addi %x, %offset : i64
  %ptr = llvm.inttoptr %address : i64 to !llvm.ptr
  %d0 = llvm.insertvalue %ptr, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d1 = llvm.insertvalue %ptr, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d2 = llvm.insertvalue %c0_i64, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d3 = llvm.insertvalue %c1024_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<1024xf32>
  scf.for %i = %c0 to %c1024 step %c1 {
    %v = memref.load %view[%i] : memref<1024xf32>
    memref.store %v, %out[%i] : memref<1024xf32>
  }
  return
}

func.func private @row_sum_helper(%x: i64, %sum: memref<f32>, %pid: i32, %pidy: i32, %pidz: i32, %nx: i32, %ny: i32, %nz: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096_i64 = arith.constant 4096 : i64
  %c1_i64 = arith.constant 1 : i64
  %c1024_i64 = arith.constant 1024 : i64
  %c0_i64 = arith.constant 0 : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %row = arith.extsi %pid : i32 to i64
  %offset = arith.muli %row, %c4096_i64 : i64
  %address = arith.addi %x, %offset : i64
  %ptr = llvm.inttoptr %address : i64 to !llvm.ptr
  %d0 = llvm.insertvalue %ptr, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d1 = llvm.insertvalue %ptr, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d2 = llvm.insertvalue %c0_i64, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d3 = llvm.insertvalue %c1024_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<1024xf32>
  scf.for %i = %c0 to %c1024 step %c1 {
    %v = memref.load %view[%i] : memref<1024xf32>
    %a = memref.load %sum[] : memref<f32>
    %s = arith.addf %a, %v fastmath<reassoc> : f32
    memref.store %s, %sum[] : memref<f32>
  }
  return
}

// A persistent program's loop over rows from pid_x, num_programs_x apart,
// rows of 4 KiB (prefetched two iterations ahead): in its last two
// iterations the strips prefetch the first row of the program that follows,
// pid_x + 1 however short its rows (the loop's lower bound as that program
// computes it), not another row of this one; other iterations prefetch the
// row two iterations on (next-iteration prefetches).
// CHECK-LABEL: func.func @persistent_row_sums(
// CHECK-SAME: %[[X:[a-z0-9]+]]: i64, %{{[a-z0-9]+}}: memref<f32>, %[[N:[a-z0-9]+]]: i32, %[[PID:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32, %[[NX:[a-z0-9]+]]: i32
// CHECK: scf.for %[[R:.*]] = %[[PID]] to %[[N]] step %[[NX]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[TWICE:.*]] = arith.muli %[[NX]], %c2_i32 : i32
// CHECK: %[[AHEAD:.*]] = arith.addi %[[R]], %[[TWICE]] : i32
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[AHEAD]], %[[N]] : i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[PID]], %{{.*}} : i32
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %[[NEXT]], %[[NX]] : i32
// CHECK: %[[ROW:.*]] = arith.extsi %[[NEXT]] : i32 to i64
// CHECK: %[[OFFSET:.*]] = arith.muli %[[ROW]], %{{.*}} : i64
// CHECK: arith.addi %[[X]], %[[OFFSET]] : i64
// CHECK: %[[LAST:.*]] = arith.xori %[[MORE]], %{{.*}} : i1
// CHECK: %[[WHEN:.*]] = arith.andi %[[EXISTS]], %[[LAST]] : i1
// CHECK: scf.if %[[WHEN]] {
// CHECK-NEXT: "llvm.intr.prefetch"({{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 1 : i64}
// CHECK: scf.if %[[MORE]] {
// CHECK-NEXT: "llvm.intr.prefetch"({{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}> {spine.next_iteration_prefetch}

func.func @persistent_row_sums(%x: i64, %sum: memref<f32>, %n: i32, %pid: i32, %pidy: i32, %pidz: i32, %nx: i32, %ny: i32, %nz: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096_i64 = arith.constant 4096 : i64
  %c1_i64 = arith.constant 1 : i64
  %c1024_i64 = arith.constant 1024 : i64
  %c0_i64 = arith.constant 0 : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  scf.for %r = %pid to %n step %nx : i32 {
    %row = arith.extsi %r : i32 to i64
    %offset = arith.muli %row, %c4096_i64 : i64
    %address = arith.addi %x, %offset : i64
    %ptr = llvm.inttoptr %address : i64 to !llvm.ptr
    %d0 = llvm.insertvalue %ptr, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d1 = llvm.insertvalue %ptr, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d2 = llvm.insertvalue %c0_i64, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d3 = llvm.insertvalue %c1024_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<1024xf32>
    scf.for %i = %c0 to %c1024 step %c1 {
      %v = memref.load %view[%i] : memref<1024xf32>
      %a = memref.load %sum[] : memref<f32>
      %s = arith.addf %a, %v fastmath<reassoc> : f32
      memref.store %s, %sum[] : memref<f32>
    }
  }
  return
}

// Two loops over rows around the strips: where the next program starts in
// them is not worked out, and no next-program prefetch is made.
// CHECK-LABEL: func.func @nested_row_loops(
// CHECK-NOT: spine.next_program_prefetch
// CHECK: return

func.func @nested_row_loops(%x: i64, %sum: memref<f32>, %n: i32, %pid: i32, %pidy: i32, %pidz: i32, %nx: i32, %ny: i32, %nz: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c1_i32 = arith.constant 1 : i32
  %c4096_i64 = arith.constant 4096 : i64
  %c1_i64 = arith.constant 1 : i64
  %c1024_i64 = arith.constant 1024 : i64
  %c0_i64 = arith.constant 0 : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  scf.for %q = %pid to %n step %nx : i32 {
    scf.for %r = %q to %n step %c1_i32 : i32 {
      %row = arith.extsi %r : i32 to i64
      %offset = arith.muli %row, %c4096_i64 : i64
      %address = arith.addi %x, %offset : i64
      %ptr = llvm.inttoptr %address : i64 to !llvm.ptr
      %d0 = llvm.insertvalue %ptr, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %d1 = llvm.insertvalue %ptr, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %d2 = llvm.insertvalue %c0_i64, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %d3 = llvm.insertvalue %c1024_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<1024xf32>
      scf.for %i = %c0 to %c1024 step %c1 {
        %v = memref.load %view[%i] : memref<1024xf32>
        %a = memref.load %sum[] : memref<f32>
        %s = arith.addf %a, %v fastmath<reassoc> : f32
        memref.store %s, %sum[] : memref<f32>
      }
    }
  }
  return
}

// A loop over the column blocks of the program's row (bounds that do not
// depend on pid_x), whose strips accumulate elementwise (layer norm with a
// block narrower than its row): in every block, not only the last, each
// strip prefetches the same block of the next program's row into L2 when
// that program exists. The weights every program reads (a view placed
// without pid_x) get no such prefetch.
// CHECK-LABEL: func.func @column_blocks(
// CHECK-SAME: %[[X:[a-z0-9]+]]: i64, %[[W:[a-z0-9]+]]: i64, %{{[a-z0-9]+}}: memref<1024xf32>, %[[N:[a-z0-9]+]]: i32, %[[PID:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32, %[[NX:[a-z0-9]+]]: i32
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %[[N]] step %{{.*}} : i32 {
// CHECK: scf.for
// CHECK: %[[NEXT:.*]] = arith.addi %[[PID]], %{{.*}} : i32
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %[[NEXT]], %[[NX]] : i32
// CHECK: %[[ROW:.*]] = arith.extsi %[[NEXT]] : i32 to i64
// CHECK: scf.if %[[EXISTS]] {
// CHECK-NEXT: "llvm.intr.prefetch"({{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}> {spine.next_program_prefetch = 1 : i64}
// CHECK-NOT: spine.next_program_prefetch
// CHECK: return

func.func @column_blocks(%x: i64, %w: i64, %acc: memref<1024xf32>, %n: i32, %pid: i32, %pidy: i32, %pidz: i32, %nx: i32, %ny: i32, %nz: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c0_i32 = arith.constant 0 : i32
  %c1024_i32 = arith.constant 1024 : i32
  %c4096_i64 = arith.constant 4096 : i64
  %c4_i64 = arith.constant 4 : i64
  %c1_i64 = arith.constant 1 : i64
  %c1024_i64 = arith.constant 1024 : i64
  %c0_i64 = arith.constant 0 : i64
  %poison = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  scf.for %c = %c0_i32 to %n step %c1024_i32 : i32 {
    %col = arith.extsi %c : i32 to i64
    %row = arith.extsi %pid : i32 to i64
    %first = arith.muli %row, %c4096_i64 : i64
    %element = arith.addi %first, %col : i64
    %bytes = arith.muli %element, %c4_i64 : i64
    %address = arith.addi %x, %bytes : i64
    %ptr = llvm.inttoptr %address : i64 to !llvm.ptr
    %d0 = llvm.insertvalue %ptr, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d1 = llvm.insertvalue %ptr, %d0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d2 = llvm.insertvalue %c0_i64, %d1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d3 = llvm.insertvalue %c1024_i64, %d2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %d4 = llvm.insertvalue %c1_i64, %d3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %view = builtin.unrealized_conversion_cast %d4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<1024xf32>
    %wbytes = arith.muli %col, %c4_i64 : i64
    %waddress = arith.addi %w, %wbytes : i64
    %wptr = llvm.inttoptr %waddress : i64 to !llvm.ptr
    %e0 = llvm.insertvalue %wptr, %poison[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %e1 = llvm.insertvalue %wptr, %e0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %e2 = llvm.insertvalue %c0_i64, %e1[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %e3 = llvm.insertvalue %c1024_i64, %e2[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %e4 = llvm.insertvalue %c1_i64, %e3[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %wview = builtin.unrealized_conversion_cast %e4 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<1024xf32>
    scf.for %i = %c0 to %c1024 step %c1 {
      %v = memref.load %view[%i] : memref<1024xf32>
      %u = memref.load %wview[%i] : memref<1024xf32>
      %a = memref.load %acc[%i] : memref<1024xf32>
      %p = arith.mulf %v, %u : f32
      %s = arith.addf %a, %p : f32
      memref.store %s, %acc[%i] : memref<1024xf32>
    }
  }
  return
}
