// RUN: spine-triton-opt --spine-materialize-program-ids --spine-block-grid-stride-loops --split-input-file %s | FileCheck %s
// RUN: spine-triton-opt --spine-materialize-program-ids --spine-block-grid-stride-loops --canonicalize --cse --split-input-file %s | FileCheck %s --check-prefix=NARROW

// Tutorial 02's softmax rows: versioned on the run-time check, program p
// takes rows [p * B, p * B + min(B, n - p * B)), B = ceil(n / programs).

// CHECK-LABEL: tt.func public @rows
// CHECK-SAME: (%[[OUT:[^:]*]]: !tt.ptr<f32>, %[[IN:[^:]*]]: !tt.ptr<f32>, %{{[^:]*}}: i32, %[[N:[^:]*]]: i32, %{{[^:]*}}: i32, %[[PID:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[P:[^:]*]]: i32,
// CHECK-DAG: tt.ptr_to_int %[[IN]] : !tt.ptr<f32> -> i64
// CHECK-DAG: tt.ptr_to_int %[[OUT]] : !tt.ptr<f32> -> i64
// CHECK: %[[ROWS:.*]] = arith.maxsi %[[N]], %{{.*}} : i32
// CHECK: %[[B:.*]] = arith.ceildivsi %[[ROWS]], %[[P]] : i32
// CHECK: %[[START:.*]] = arith.muli %[[PID]], %[[B]] : i32
// CHECK: %[[LEFT:.*]] = arith.subi %[[ROWS]], %[[START]] : i32
// CHECK: %[[TAKE:.*]] = arith.minsi %[[B]], %[[LEFT]] : i32
// CHECK: %[[END:.*]] = arith.addi %[[START]], %[[TAKE]] : i32
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: scf.for %[[ROW:.*]] = %[[START]] to %[[END]] step %{{.*}} : i32 {
// CHECK: tt.load
// CHECK: tt.store
// CHECK: } {tt.num_stages = 2 : i32}
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %{{.*}} = %[[PID]] to %[[N]] step %[[P]] : i32 {
// CHECK: } {tt.num_stages = 2 : i32}
// CHECK-NEXT: }
// CHECK-NEXT: tt.return
tt.func public @rows(%out: !tt.ptr<f32>, %in: !tt.ptr<f32>, %stride: i32, %n: i32, %cols: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  %other = arith.constant dense<0xFF800000> : tensor<128xf32>
  scf.for %row = %pid to %n step %programs : i32 {
    %offset = arith.muli %row, %stride : i32
    %in_row = tt.addptr %in, %offset : !tt.ptr<f32>, i32
    %lanes = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %in_rows = tt.splat %in_row : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %in_ptrs = tt.addptr %in_rows, %lanes : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %bound = tt.splat %cols : i32 -> tensor<128xi32>
    %mask = arith.cmpi slt, %lanes, %bound : tensor<128xi32>
    %x = tt.load %in_ptrs, %mask, %other : tensor<128x!tt.ptr<f32>>
    %y = math.exp %x : tensor<128xf32>
    %out_row = tt.addptr %out, %offset : !tt.ptr<f32>, i32
    %out_rows = tt.splat %out_row : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %out_ptrs = tt.addptr %out_rows, %lanes : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %out_ptrs, %y, %mask : tensor<128x!tt.ptr<f32>>
  } {tt.num_stages = 2 : i32}
  tt.return
}

// -----

// Rows wider than the block: a loop over column blocks inside, its counter's
// bounds as the lanes' range.

// CHECK-LABEL: tt.func public @column_blocks
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK: tt.store
// CHECK: } else {
tt.func public @column_blocks(%out: !tt.ptr<f32>, %in: !tt.ptr<f32>, %stride: i32, %n: i32, %cols: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  scf.for %row = %pid to %n step %programs : i32 {
    %offset = arith.muli %row, %stride : i32
    %in_row = tt.addptr %in, %offset : !tt.ptr<f32>, i32
    %out_row = tt.addptr %out, %offset : !tt.ptr<f32>, i32
    scf.for %col = %c0 to %cols step %c64 : i32 {
      %lanes = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
      %first = tt.splat %col : i32 -> tensor<64xi32>
      %at = arith.addi %first, %lanes : tensor<64xi32>
      %bound = tt.splat %cols : i32 -> tensor<64xi32>
      %mask = arith.cmpi slt, %at, %bound : tensor<64xi32>
      %in_rows = tt.splat %in_row : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
      %in_ptrs = tt.addptr %in_rows, %at : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
      %x = tt.load %in_ptrs, %mask : tensor<64x!tt.ptr<f32>>
      %out_rows = tt.splat %out_row : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
      %out_ptrs = tt.addptr %out_rows, %at : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
      tt.store %out_ptrs, %x, %mask : tensor<64x!tt.ptr<f32>>
    }
  }
  tt.return
}

// -----

// The inner loop's step is not a positive constant: left as written.

// CHECK-LABEL: tt.func public @column_step_unknown
// CHECK-NOT: scf.if
tt.func public @column_step_unknown(%out: !tt.ptr<f32>, %n: i32, %cols: i32, %step: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  scf.for %row = %pid to %n step %programs : i32 {
    %offset = arith.muli %row, %cols : i32
    %out_row = tt.addptr %out, %offset : !tt.ptr<f32>, i32
    scf.for %col = %c0 to %cols step %step : i32 {
      %ptr = tt.addptr %out_row, %col : !tt.ptr<f32>, i32
      tt.store %ptr, %zero : !tt.ptr<f32>
    }
  }
  tt.return
}

// -----

// The program id decides more than the rows: left as written.

// CHECK-LABEL: tt.func public @pid_in_body
// CHECK-NOT: scf.if
// CHECK: scf.for
tt.func public @pid_in_body(%out: !tt.ptr<i32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  scf.for %row = %pid to %n step %programs : i32 {
    %ptr = tt.addptr %out, %row : !tt.ptr<i32>, i32
    tt.store %ptr, %pid : !tt.ptr<i32>
  }
  tt.return
}

// -----

// A store outside the loop: another program's iterations might read it.

// CHECK-LABEL: tt.func public @store_before
// CHECK-NOT: scf.if
tt.func public @store_before(%out: !tt.ptr<i32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  %c0 = arith.constant 0 : i32
  tt.store %out, %c0 : !tt.ptr<i32>
  scf.for %row = %pid to %n step %programs : i32 {
    %ptr = tt.addptr %out, %row : !tt.ptr<i32>, i32
    tt.store %ptr, %row : !tt.ptr<i32>
  }
  tt.return
}

// -----

// Atomics, loop-carried values, and pointers read from memory are not
// analysed: left as written.

// CHECK-LABEL: tt.func public @atomic
// CHECK-NOT: scf.if
tt.func public @atomic(%out: !tt.ptr<i32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  scf.for %row = %pid to %n step %programs : i32 {
    %ptr = tt.addptr %out, %row : !tt.ptr<i32>, i32
    %old = tt.atomic_rmw add, relaxed, gpu, %ptr, %row : (!tt.ptr<i32>, i32) -> i32
  }
  tt.return
}

// CHECK-LABEL: tt.func public @carried
// CHECK-NOT: scf.if
tt.func public @carried(%out: !tt.ptr<i32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  %c0 = arith.constant 0 : i32
  %sum = scf.for %row = %pid to %n step %programs iter_args(%acc = %c0) -> (i32) : i32 {
    %ptr = tt.addptr %out, %row : !tt.ptr<i32>, i32
    tt.store %ptr, %acc : !tt.ptr<i32>
    %next = arith.addi %acc, %row : i32
    scf.yield %next : i32
  }
  tt.return
}

// CHECK-LABEL: tt.func public @loaded_pointer
// CHECK-NOT: scf.if
tt.func public @loaded_pointer(%table: !tt.ptr<!tt.ptr<i32>>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  scf.for %row = %pid to %n step %programs : i32 {
    %entry = tt.addptr %table, %row : !tt.ptr<!tt.ptr<i32>>, i32
    %ptr = tt.load %entry : !tt.ptr<!tt.ptr<i32>>
    tt.store %ptr, %row : !tt.ptr<i32>
  }
  tt.return
}

// -----

// An offset computed in 32 bits: the check requires that over all rows it
// takes only values an i32 holds, so that it does not wrap where the check's
// 64-bit model does not.

// CHECK-LABEL: tt.func public @narrow_offsets
// NARROW-LABEL: tt.func public @narrow_offsets
// NARROW-SAME: (%{{[^:]*}}: !tt.ptr<f32>, %[[STRIDE:[^:]*]]: i32, %[[SHIFT:[^:]*]]: i32, %[[N:[^:]*]]: i32,
// NARROW-DAG: %[[MAX:.*]] = arith.constant 2147483647 : i64
// NARROW-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i64
// NARROW-DAG: %[[S:.*]] = arith.extsi %[[STRIDE]] : i32 to i64
// NARROW-DAG: %[[C:.*]] = arith.extsi %[[SHIFT]] : i32 to i64
// NARROW-DAG: %[[ROWS:.*]] = arith.extsi %[[N]] : i32 to i64
// NARROW: %[[BEFORE_LAST:.*]] = arith.subi %[[ROWS]], %{{.*}} : i64
// NARROW: %[[LAST:.*]] = arith.maxsi %[[BEFORE_LAST]], %{{.*}} : i64
// NARROW: %[[SPAN:.*]] = arith.muli %[[S]], %[[LAST]] : i64
// NARROW: %[[DOWN:.*]] = arith.minsi %[[SPAN]], %{{.*}} : i64
// NARROW: %[[LOW:.*]] = arith.addi %[[C]], %[[DOWN]] : i64
// NARROW: %[[UP:.*]] = arith.maxsi %[[SPAN]], %{{.*}} : i64
// NARROW: %[[HIGH:.*]] = arith.addi %[[C]], %[[UP]] : i64
// NARROW-DAG: arith.cmpi sle, %[[HIGH]], %[[MAX]] : i64
// NARROW-DAG: arith.cmpi sge, %[[LOW]], %[[MIN]] : i64
// NARROW: scf.if
tt.func public @narrow_offsets(%out: !tt.ptr<f32>, %stride: i32, %shift: i32, %n: i32) {
  %pid = tt.get_program_id x : i32
  %programs = tt.get_num_programs x : i32
  scf.for %row = %pid to %n step %programs : i32 {
    %scaled = arith.muli %row, %stride : i32
    %offset = arith.addi %scaled, %shift : i32
    %start = tt.addptr %out, %offset : !tt.ptr<f32>, i32
    %lanes = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %starts = tt.splat %start : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %ptrs = tt.addptr %starts, %lanes : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %x = tt.load %ptrs : tensor<64x!tt.ptr<f32>>
    tt.store %ptrs, %x : tensor<64x!tt.ptr<f32>>
  }
  tt.return
}
