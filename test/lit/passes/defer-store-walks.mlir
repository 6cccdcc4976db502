// RUN: spine-triton-opt --split-input-file --pass-pipeline='builtin.module(func.func(spine-defer-store-walks))' %s | FileCheck %s

// Tutorial 02's softmax after spine-fuse-element-loops: a program's loop over
// rows (pid_x, num_programs apart) reads the row in place (a view, where the
// output row is elsewhere) or copies it, takes its maximum, writes the
// exponentials to a tile buffer and sums them, and ends with the store walk
// (two versions: whole row, masked). The store walk moves into the next
// iteration's exponentials: the loop carries "a row is pending" and the walk's
// scalars (its scale, the output row's address, its version), an iteration
// whose reads may meet the pending row's bytes stores it first, the
// exponentials' loop takes the pending row's element before writing its own
// (one version per store walk version, the loop alone when nothing is
// pending), and the last row is stored after the loop.
// CHECK-LABEL: func.func @softmax_rows
// CHECK: %[[ROWS:.*]]:4 = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PENDING:.*]] = %false, %[[SCALE:.*]] = %{{.*}}, %[[OUT:.*]] = %{{.*}}, %[[WHOLE:.*]] = %{{.*}}) -> (i1, f32, i64, i1)
// CHECK: %[[OUT_END:.*]] = arith.addi %[[OUT]], %c16384
// CHECK: arith.cmpi ule, %[[OUT_END]], %[[IN:.*]] : i64
// CHECK: arith.cmpi ule, %{{.*}}, %[[OUT]] : i64
// CHECK: %[[NOW:.*]] = arith.andi %[[PENDING]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[NOW]] {
// CHECK-NEXT: scf.if %[[WHOLE]] {
// CHECK-NEXT: scf.for
// CHECK: llvm.store
// CHECK: %[[STILL:.*]] = arith.andi %[[PENDING]], %{{.*}} : i1
// CHECK: scf.for
// CHECK: arith.maxnumf
// CHECK: scf.if %[[STILL]] {
// CHECK-NEXT: scf.if %[[WHOLE]] {
// CHECK-NEXT: scf.for %[[I:.*]] =
// CHECK: %[[PREV:.*]] = memref.load %[[BUF:.*]][%[[I]]]
// CHECK-NEXT: arith.mulf %[[PREV]], %[[SCALE]]
// CHECK: llvm.inttoptr %[[OUT]]
// CHECK: llvm.store
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[I]]]
// CHECK: } else {
// CHECK-NEXT: scf.for
// CHECK: scf.if
// CHECK: llvm.store
// CHECK: math.exp
// CHECK: } else {
// CHECK-NEXT: scf.for
// CHECK-NOT: llvm.store
// CHECK: math.exp
// CHECK: %[[S:.*]] = arith.divf
// CHECK: scf.yield %true{{.*}}, %[[S]], %{{.*}}, %{{.*}} : i1, f32, i64, i1
// CHECK-NEXT: } {tt.num_stages = 2 : i32}
// CHECK-NEXT: scf.if %[[ROWS]]#0 {
// CHECK-NEXT: scf.if %[[ROWS]]#3 {
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[BUF]]
// CHECK: arith.mulf %{{.*}}, %[[ROWS]]#1
// CHECK: llvm.inttoptr %[[ROWS]]#2
// CHECK: llvm.store
// CHECK: return
func.func @softmax_rows(%arg0: i64, %arg1: i64, %arg2: i32, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32, %arg11: i32) {
  %c4_i64 = arith.constant 4 : i64
  %c4095_i64 = arith.constant 4095 : i64
  %c4611686018427387904_i64 = arith.constant 4611686018427387904 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_i64 = arith.constant 1 : i64
  %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %1 = llvm.mlir.constant(0 : i64) : i64
  %2 = llvm.mlir.constant(4096 : i64) : i64
  %c4096 = arith.constant 4096 : index
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0x7FC00000 : f32
  %cst_1 = arith.constant -0.000000e+00 : f32
  %cst_2 = arith.constant 1.000000e+00 : f32
  %c16384_i64 = arith.constant 16384 : i64
  %alloca = memref.alloca() {alignment = 64 : i64} : memref<4096xf32>
  %alloca_3 = memref.alloca() {alignment = 64 : i64} : memref<f32>
  %alloca_4 = memref.alloca() : memref<4096xf32>
  scf.for %arg12 = %arg6 to %arg4 step %arg9  : i32 {
    %3 = arith.muli %arg12, %arg3 : i32
    %4 = arith.extsi %3 : i32 to i64
    %5 = arith.muli %4, %c4_i64 : i64
    %6 = arith.addi %arg0, %5 : i64
    %7 = arith.muli %arg12, %arg2 : i32
    %8 = arith.extsi %7 : i32 to i64
    %9 = arith.muli %8, %c4_i64 : i64
    %10 = arith.addi %arg1, %9 : i64
    %11 = arith.extsi %arg5 : i32 to i64
    %12 = arith.cmpi sgt, %11, %c4095_i64 : i64
    %13 = arith.cmpi ult, %10, %c4611686018427387904_i64 : i64
    %14 = arith.cmpi ult, %6, %c4611686018427387904_i64 : i64
    %15 = arith.addi %10, %c16384_i64 : i64
    %16 = arith.addi %6, %c16384_i64 : i64
    %17 = arith.cmpi sle, %15, %6 : i64
    %18 = arith.cmpi sle, %16, %10 : i64
    %19 = arith.ori %18, %17 : i1
    %20 = arith.andi %13, %14 : i1
    %21 = arith.andi %20, %19 : i1
    %22 = arith.andi %12, %21 : i1
    %23 = scf.if %22 -> (memref<4096xf32>) {
      %27 = llvm.inttoptr %10 : i64 to !llvm.ptr
      %28 = llvm.insertvalue %27, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %29 = llvm.insertvalue %27, %28[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %30 = llvm.insertvalue %1, %29[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %31 = llvm.insertvalue %2, %30[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %32 = llvm.insertvalue %c1_i64, %31[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %33 = builtin.unrealized_conversion_cast %32 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4096xf32>
      scf.yield %33 : memref<4096xf32>
    } else {
      scf.for %arg13 = %c0 to %c4096 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.cmpi slt, %27, %arg5 : i32
        %29 = arith.extsi %27 : i32 to i64
        %30 = arith.muli %29, %c4_i64 : i64
        %31 = scf.if %28 -> (f32) {
          %32 = llvm.inttoptr %10 : i64 to !llvm.ptr
          %33 = llvm.getelementptr %32[%30] : (!llvm.ptr, i64) -> !llvm.ptr, i8
          %34 = llvm.load %33 {alignment = 4 : i64} : !llvm.ptr -> f32
          scf.yield %34 : f32
        } else {
          scf.yield %cst : f32
        }
        memref.store %31, %alloca_4[%arg13] : memref<4096xf32>
      }
      scf.yield %alloca_4 : memref<4096xf32>
    }
    memref.store %cst_0, %alloca_3[] : memref<f32>
    scf.for %arg13 = %c0 to %c4096 step %c1 {
      %27 = memref.load %23[%arg13] : memref<4096xf32>
      %28 = memref.load %alloca_3[] : memref<f32>
      %29 = arith.maxnumf %28, %27 fastmath<reassoc> : f32
      memref.store %29, %alloca_3[] : memref<f32>
    }
    %24 = memref.load %alloca_3[] : memref<f32>
    memref.store %cst_1, %alloca_3[] : memref<f32>
    scf.for %arg13 = %c0 to %c4096 step %c1 {
      %27 = memref.load %23[%arg13] : memref<4096xf32>
      %28 = arith.subf %27, %24 : f32
      %29 = math.exp %28 : f32
      memref.store %29, %alloca[%arg13] : memref<4096xf32>
      %30 = memref.load %alloca_3[] : memref<f32>
      %31 = arith.addf %30, %29 fastmath<reassoc> : f32
      memref.store %31, %alloca_3[] : memref<f32>
    }
    %25 = memref.load %alloca_3[] : memref<f32>
    %26 = arith.divf %cst_2, %25 : f32
    scf.if %12 {
      scf.for %arg13 = %c0 to %c4096 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.extsi %27 : i32 to i64
        %29 = arith.muli %28, %c4_i64 : i64
        %30 = memref.load %alloca[%arg13] : memref<4096xf32>
        %31 = arith.mulf %30, %26 : f32
        %32 = llvm.inttoptr %6 : i64 to !llvm.ptr
        %33 = llvm.getelementptr %32[%29] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        llvm.store %31, %33 {alignment = 4 : i64} : f32, !llvm.ptr
      }
    } else {
      scf.for %arg13 = %c0 to %c4096 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.extsi %27 : i32 to i64
        %29 = arith.muli %28, %c4_i64 : i64
        %30 = memref.load %alloca[%arg13] : memref<4096xf32>
        %31 = arith.mulf %30, %26 : f32
        %32 = arith.cmpi slt, %27, %arg5 : i32
        scf.if %32 {
          %33 = llvm.inttoptr %6 : i64 to !llvm.ptr
          %34 = llvm.getelementptr %33[%29] : (!llvm.ptr, i64) -> !llvm.ptr, i8
          llvm.store %31, %34 {alignment = 4 : i64} : f32, !llvm.ptr
        }
      }
    }
  } {tt.num_stages = 2 : i32}
  return
}

// -----

// Rows of 8192 floats (a 32 KiB buffer, with the row it is computed from
// twice Zen 4's L1) are deferred as well.
// CHECK-LABEL: func.func @wide_rows
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %false, {{.*}}) -> (i1, f32, i64, i1)
// CHECK: memref.load %alloca[
// CHECK: llvm.store
// CHECK: math.exp
// CHECK: return
func.func @wide_rows(%arg0: i64, %arg1: i64, %arg2: i32, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32, %arg11: i32) {
  %c4_i64 = arith.constant 4 : i64
  %c8191_i64 = arith.constant 8191 : i64
  %c4611686018427387904_i64 = arith.constant 4611686018427387904 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_i64 = arith.constant 1 : i64
  %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %1 = llvm.mlir.constant(0 : i64) : i64
  %2 = llvm.mlir.constant(8192 : i64) : i64
  %c8192 = arith.constant 8192 : index
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0x7FC00000 : f32
  %cst_1 = arith.constant -0.000000e+00 : f32
  %cst_2 = arith.constant 1.000000e+00 : f32
  %c32768_i64 = arith.constant 32768 : i64
  %alloca = memref.alloca() {alignment = 64 : i64} : memref<8192xf32>
  %alloca_3 = memref.alloca() {alignment = 64 : i64} : memref<f32>
  %alloca_4 = memref.alloca() : memref<8192xf32>
  scf.for %arg12 = %arg6 to %arg4 step %arg9  : i32 {
    %3 = arith.muli %arg12, %arg3 : i32
    %4 = arith.extsi %3 : i32 to i64
    %5 = arith.muli %4, %c4_i64 : i64
    %6 = arith.addi %arg0, %5 : i64
    %7 = arith.muli %arg12, %arg2 : i32
    %8 = arith.extsi %7 : i32 to i64
    %9 = arith.muli %8, %c4_i64 : i64
    %10 = arith.addi %arg1, %9 : i64
    %11 = arith.extsi %arg5 : i32 to i64
    %12 = arith.cmpi sgt, %11, %c8191_i64 : i64
    %13 = arith.cmpi ult, %10, %c4611686018427387904_i64 : i64
    %14 = arith.cmpi ult, %6, %c4611686018427387904_i64 : i64
    %15 = arith.addi %10, %c32768_i64 : i64
    %16 = arith.addi %6, %c32768_i64 : i64
    %17 = arith.cmpi sle, %15, %6 : i64
    %18 = arith.cmpi sle, %16, %10 : i64
    %19 = arith.ori %18, %17 : i1
    %20 = arith.andi %13, %14 : i1
    %21 = arith.andi %20, %19 : i1
    %22 = arith.andi %12, %21 : i1
    %23 = scf.if %22 -> (memref<8192xf32>) {
      %27 = llvm.inttoptr %10 : i64 to !llvm.ptr
      %28 = llvm.insertvalue %27, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %29 = llvm.insertvalue %27, %28[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %30 = llvm.insertvalue %1, %29[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %31 = llvm.insertvalue %2, %30[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %32 = llvm.insertvalue %c1_i64, %31[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %33 = builtin.unrealized_conversion_cast %32 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<8192xf32>
      scf.yield %33 : memref<8192xf32>
    } else {
      scf.for %arg13 = %c0 to %c8192 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.cmpi slt, %27, %arg5 : i32
        %29 = arith.extsi %27 : i32 to i64
        %30 = arith.muli %29, %c4_i64 : i64
        %31 = scf.if %28 -> (f32) {
          %32 = llvm.inttoptr %10 : i64 to !llvm.ptr
          %33 = llvm.getelementptr %32[%30] : (!llvm.ptr, i64) -> !llvm.ptr, i8
          %34 = llvm.load %33 {alignment = 4 : i64} : !llvm.ptr -> f32
          scf.yield %34 : f32
        } else {
          scf.yield %cst : f32
        }
        memref.store %31, %alloca_4[%arg13] : memref<8192xf32>
      }
      scf.yield %alloca_4 : memref<8192xf32>
    }
    memref.store %cst_0, %alloca_3[] : memref<f32>
    scf.for %arg13 = %c0 to %c8192 step %c1 {
      %27 = memref.load %23[%arg13] : memref<8192xf32>
      %28 = memref.load %alloca_3[] : memref<f32>
      %29 = arith.maxnumf %28, %27 fastmath<reassoc> : f32
      memref.store %29, %alloca_3[] : memref<f32>
    }
    %24 = memref.load %alloca_3[] : memref<f32>
    memref.store %cst_1, %alloca_3[] : memref<f32>
    scf.for %arg13 = %c0 to %c8192 step %c1 {
      %27 = memref.load %23[%arg13] : memref<8192xf32>
      %28 = arith.subf %27, %24 : f32
      %29 = math.exp %28 : f32
      memref.store %29, %alloca[%arg13] : memref<8192xf32>
      %30 = memref.load %alloca_3[] : memref<f32>
      %31 = arith.addf %30, %29 fastmath<reassoc> : f32
      memref.store %31, %alloca_3[] : memref<f32>
    }
    %25 = memref.load %alloca_3[] : memref<f32>
    %26 = arith.divf %cst_2, %25 : f32
    scf.if %12 {
      scf.for %arg13 = %c0 to %c8192 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.extsi %27 : i32 to i64
        %29 = arith.muli %28, %c4_i64 : i64
        %30 = memref.load %alloca[%arg13] : memref<8192xf32>
        %31 = arith.mulf %30, %26 : f32
        %32 = llvm.inttoptr %6 : i64 to !llvm.ptr
        %33 = llvm.getelementptr %32[%29] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        llvm.store %31, %33 {alignment = 4 : i64} : f32, !llvm.ptr
      }
    } else {
      scf.for %arg13 = %c0 to %c8192 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.extsi %27 : i32 to i64
        %29 = arith.muli %28, %c4_i64 : i64
        %30 = memref.load %alloca[%arg13] : memref<8192xf32>
        %31 = arith.mulf %30, %26 : f32
        %32 = arith.cmpi slt, %27, %arg5 : i32
        scf.if %32 {
          %33 = llvm.inttoptr %6 : i64 to !llvm.ptr
          %34 = llvm.getelementptr %33[%29] : (!llvm.ptr, i64) -> !llvm.ptr, i8
          llvm.store %31, %34 {alignment = 4 : i64} : f32, !llvm.ptr
        }
      }
    }
  } {tt.num_stages = 2 : i32}
  return
}

// -----

// The exponentials' buffer allocated in each iteration: the next iteration's
// walk writes another one, so the row cannot wait there. Not deferred.
// CHECK-LABEL: func.func @buffer_per_row
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NOT: iter_args
// CHECK: return
func.func @buffer_per_row(%arg0: i64, %arg1: i64, %arg2: i32, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32, %arg11: i32) {
  %c4_i64 = arith.constant 4 : i64
  %c8191_i64 = arith.constant 8191 : i64
  %c4611686018427387904_i64 = arith.constant 4611686018427387904 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_i64 = arith.constant 1 : i64
  %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %1 = llvm.mlir.constant(0 : i64) : i64
  %2 = llvm.mlir.constant(8192 : i64) : i64
  %c8192 = arith.constant 8192 : index
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0x7FC00000 : f32
  %cst_1 = arith.constant -0.000000e+00 : f32
  %cst_2 = arith.constant 1.000000e+00 : f32
  %c32768_i64 = arith.constant 32768 : i64
  %alloca_3 = memref.alloca() {alignment = 64 : i64} : memref<f32>
  %alloca_4 = memref.alloca() : memref<8192xf32>
  scf.for %arg12 = %arg6 to %arg4 step %arg9  : i32 {
    %alloca = memref.alloca() {alignment = 64 : i64} : memref<8192xf32>
    %3 = arith.muli %arg12, %arg3 : i32
    %4 = arith.extsi %3 : i32 to i64
    %5 = arith.muli %4, %c4_i64 : i64
    %6 = arith.addi %arg0, %5 : i64
    %7 = arith.muli %arg12, %arg2 : i32
    %8 = arith.extsi %7 : i32 to i64
    %9 = arith.muli %8, %c4_i64 : i64
    %10 = arith.addi %arg1, %9 : i64
    %11 = arith.extsi %arg5 : i32 to i64
    %12 = arith.cmpi sgt, %11, %c8191_i64 : i64
    %13 = arith.cmpi ult, %10, %c4611686018427387904_i64 : i64
    %14 = arith.cmpi ult, %6, %c4611686018427387904_i64 : i64
    %15 = arith.addi %10, %c32768_i64 : i64
    %16 = arith.addi %6, %c32768_i64 : i64
    %17 = arith.cmpi sle, %15, %6 : i64
    %18 = arith.cmpi sle, %16, %10 : i64
    %19 = arith.ori %18, %17 : i1
    %20 = arith.andi %13, %14 : i1
    %21 = arith.andi %20, %19 : i1
    %22 = arith.andi %12, %21 : i1
    %23 = scf.if %22 -> (memref<8192xf32>) {
      %27 = llvm.inttoptr %10 : i64 to !llvm.ptr
      %28 = llvm.insertvalue %27, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %29 = llvm.insertvalue %27, %28[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %30 = llvm.insertvalue %1, %29[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %31 = llvm.insertvalue %2, %30[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %32 = llvm.insertvalue %c1_i64, %31[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %33 = builtin.unrealized_conversion_cast %32 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<8192xf32>
      scf.yield %33 : memref<8192xf32>
    } else {
      scf.for %arg13 = %c0 to %c8192 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.cmpi slt, %27, %arg5 : i32
        %29 = arith.extsi %27 : i32 to i64
        %30 = arith.muli %29, %c4_i64 : i64
        %31 = scf.if %28 -> (f32) {
          %32 = llvm.inttoptr %10 : i64 to !llvm.ptr
          %33 = llvm.getelementptr %32[%30] : (!llvm.ptr, i64) -> !llvm.ptr, i8
          %34 = llvm.load %33 {alignment = 4 : i64} : !llvm.ptr -> f32
          scf.yield %34 : f32
        } else {
          scf.yield %cst : f32
        }
        memref.store %31, %alloca_4[%arg13] : memref<8192xf32>
      }
      scf.yield %alloca_4 : memref<8192xf32>
    }
    memref.store %cst_0, %alloca_3[] : memref<f32>
    scf.for %arg13 = %c0 to %c8192 step %c1 {
      %27 = memref.load %23[%arg13] : memref<8192xf32>
      %28 = memref.load %alloca_3[] : memref<f32>
      %29 = arith.maxnumf %28, %27 fastmath<reassoc> : f32
      memref.store %29, %alloca_3[] : memref<f32>
    }
    %24 = memref.load %alloca_3[] : memref<f32>
    memref.store %cst_1, %alloca_3[] : memref<f32>
    scf.for %arg13 = %c0 to %c8192 step %c1 {
      %27 = memref.load %23[%arg13] : memref<8192xf32>
      %28 = arith.subf %27, %24 : f32
      %29 = math.exp %28 : f32
      memref.store %29, %alloca[%arg13] : memref<8192xf32>
      %30 = memref.load %alloca_3[] : memref<f32>
      %31 = arith.addf %30, %29 fastmath<reassoc> : f32
      memref.store %31, %alloca_3[] : memref<f32>
    }
    %25 = memref.load %alloca_3[] : memref<f32>
    %26 = arith.divf %cst_2, %25 : f32
    scf.if %12 {
      scf.for %arg13 = %c0 to %c8192 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.extsi %27 : i32 to i64
        %29 = arith.muli %28, %c4_i64 : i64
        %30 = memref.load %alloca[%arg13] : memref<8192xf32>
        %31 = arith.mulf %30, %26 : f32
        %32 = llvm.inttoptr %6 : i64 to !llvm.ptr
        %33 = llvm.getelementptr %32[%29] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        llvm.store %31, %33 {alignment = 4 : i64} : f32, !llvm.ptr
      }
    } else {
      scf.for %arg13 = %c0 to %c8192 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.extsi %27 : i32 to i64
        %29 = arith.muli %28, %c4_i64 : i64
        %30 = memref.load %alloca[%arg13] : memref<8192xf32>
        %31 = arith.mulf %30, %26 : f32
        %32 = arith.cmpi slt, %27, %arg5 : i32
        scf.if %32 {
          %33 = llvm.inttoptr %6 : i64 to !llvm.ptr
          %34 = llvm.getelementptr %33[%29] : (!llvm.ptr, i64) -> !llvm.ptr, i8
          llvm.store %31, %34 {alignment = 4 : i64} : f32, !llvm.ptr
        }
      }
    }
  } {tt.num_stages = 2 : i32}
  return
}

// -----

// A store through a pointer before the exponentials (the maximum, written out):
// the next iteration would write before the pending row is stored. Not
// deferred.
// CHECK-LABEL: func.func @store_before_the_exponentials
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NOT: iter_args
// CHECK: return
func.func @store_before_the_exponentials(%arg0: i64, %arg1: i64, %arg2: i32, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32, %arg11: i32) {
  %c4_i64 = arith.constant 4 : i64
  %c4095_i64 = arith.constant 4095 : i64
  %c4611686018427387904_i64 = arith.constant 4611686018427387904 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_i64 = arith.constant 1 : i64
  %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  %1 = llvm.mlir.constant(0 : i64) : i64
  %2 = llvm.mlir.constant(4096 : i64) : i64
  %c4096 = arith.constant 4096 : index
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0x7FC00000 : f32
  %cst_1 = arith.constant -0.000000e+00 : f32
  %cst_2 = arith.constant 1.000000e+00 : f32
  %c16384_i64 = arith.constant 16384 : i64
  %alloca = memref.alloca() {alignment = 64 : i64} : memref<4096xf32>
  %alloca_3 = memref.alloca() {alignment = 64 : i64} : memref<f32>
  %alloca_4 = memref.alloca() : memref<4096xf32>
  scf.for %arg12 = %arg6 to %arg4 step %arg9  : i32 {
    %3 = arith.muli %arg12, %arg3 : i32
    %4 = arith.extsi %3 : i32 to i64
    %5 = arith.muli %4, %c4_i64 : i64
    %6 = arith.addi %arg0, %5 : i64
    %7 = arith.muli %arg12, %arg2 : i32
    %8 = arith.extsi %7 : i32 to i64
    %9 = arith.muli %8, %c4_i64 : i64
    %10 = arith.addi %arg1, %9 : i64
    %11 = arith.extsi %arg5 : i32 to i64
    %12 = arith.cmpi sgt, %11, %c4095_i64 : i64
    %13 = arith.cmpi ult, %10, %c4611686018427387904_i64 : i64
    %14 = arith.cmpi ult, %6, %c4611686018427387904_i64 : i64
    %15 = arith.addi %10, %c16384_i64 : i64
    %16 = arith.addi %6, %c16384_i64 : i64
    %17 = arith.cmpi sle, %15, %6 : i64
    %18 = arith.cmpi sle, %16, %10 : i64
    %19 = arith.ori %18, %17 : i1
    %20 = arith.andi %13, %14 : i1
    %21 = arith.andi %20, %19 : i1
    %22 = arith.andi %12, %21 : i1
    %23 = scf.if %22 -> (memref<4096xf32>) {
      %27 = llvm.inttoptr %10 : i64 to !llvm.ptr
      %28 = llvm.insertvalue %27, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %29 = llvm.insertvalue %27, %28[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %30 = llvm.insertvalue %1, %29[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %31 = llvm.insertvalue %2, %30[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %32 = llvm.insertvalue %c1_i64, %31[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %33 = builtin.unrealized_conversion_cast %32 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4096xf32>
      scf.yield %33 : memref<4096xf32>
    } else {
      scf.for %arg13 = %c0 to %c4096 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.cmpi slt, %27, %arg5 : i32
        %29 = arith.extsi %27 : i32 to i64
        %30 = arith.muli %29, %c4_i64 : i64
        %31 = scf.if %28 -> (f32) {
          %32 = llvm.inttoptr %10 : i64 to !llvm.ptr
          %33 = llvm.getelementptr %32[%30] : (!llvm.ptr, i64) -> !llvm.ptr, i8
          %34 = llvm.load %33 {alignment = 4 : i64} : !llvm.ptr -> f32
          scf.yield %34 : f32
        } else {
          scf.yield %cst : f32
        }
        memref.store %31, %alloca_4[%arg13] : memref<4096xf32>
      }
      scf.yield %alloca_4 : memref<4096xf32>
    }
    memref.store %cst_0, %alloca_3[] : memref<f32>
    scf.for %arg13 = %c0 to %c4096 step %c1 {
      %27 = memref.load %23[%arg13] : memref<4096xf32>
      %28 = memref.load %alloca_3[] : memref<f32>
      %29 = arith.maxnumf %28, %27 fastmath<reassoc> : f32
      memref.store %29, %alloca_3[] : memref<f32>
    }
    %24 = memref.load %alloca_3[] : memref<f32>
    %max_at = llvm.inttoptr %arg0 : i64 to !llvm.ptr
    llvm.store %24, %max_at : f32, !llvm.ptr
    memref.store %cst_1, %alloca_3[] : memref<f32>
    scf.for %arg13 = %c0 to %c4096 step %c1 {
      %27 = memref.load %23[%arg13] : memref<4096xf32>
      %28 = arith.subf %27, %24 : f32
      %29 = math.exp %28 : f32
      memref.store %29, %alloca[%arg13] : memref<4096xf32>
      %30 = memref.load %alloca_3[] : memref<f32>
      %31 = arith.addf %30, %29 fastmath<reassoc> : f32
      memref.store %31, %alloca_3[] : memref<f32>
    }
    %25 = memref.load %alloca_3[] : memref<f32>
    %26 = arith.divf %cst_2, %25 : f32
    scf.if %12 {
      scf.for %arg13 = %c0 to %c4096 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.extsi %27 : i32 to i64
        %29 = arith.muli %28, %c4_i64 : i64
        %30 = memref.load %alloca[%arg13] : memref<4096xf32>
        %31 = arith.mulf %30, %26 : f32
        %32 = llvm.inttoptr %6 : i64 to !llvm.ptr
        %33 = llvm.getelementptr %32[%29] : (!llvm.ptr, i64) -> !llvm.ptr, i8
        llvm.store %31, %33 {alignment = 4 : i64} : f32, !llvm.ptr
      }
    } else {
      scf.for %arg13 = %c0 to %c4096 step %c1 {
        %27 = arith.index_cast %arg13 : index to i32
        %28 = arith.extsi %27 : i32 to i64
        %29 = arith.muli %28, %c4_i64 : i64
        %30 = memref.load %alloca[%arg13] : memref<4096xf32>
        %31 = arith.mulf %30, %26 : f32
        %32 = arith.cmpi slt, %27, %arg5 : i32
        scf.if %32 {
          %33 = llvm.inttoptr %6 : i64 to !llvm.ptr
          %34 = llvm.getelementptr %33[%29] : (!llvm.ptr, i64) -> !llvm.ptr, i8
          llvm.store %31, %34 {alignment = 4 : i64} : f32, !llvm.ptr
        }
      }
    }
  } {tt.num_stages = 2 : i32}
  return
}
