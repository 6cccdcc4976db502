// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-matmul{vector-bits=256 vector-registers=16}))' %s | FileCheck %s
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-matmul{vector-bits=256 vector-registers=32}))' %s | FileCheck %s --check-prefix=RVV
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-matmul{vector-bits=512 vector-registers=32 bf16-dot-product=1}))' %s | FileCheck %s --check-prefix=BF16
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-matmul{vector-bits=512 vector-registers=32 bf16-dot-product=1 amx-tiles=1}))' %s | FileCheck %s --check-prefix=AMX
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-matmul{vector-bits=256 vector-registers=16 int16-pair-product=1}))' %s | FileCheck %s --check-prefix=I16
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-matmul{vector-bits=512 vector-registers=32 int16-pair-product=1}))' %s | FileCheck %s --check-prefix=I16-512
// RUN: spine-triton-opt --pass-pipeline='builtin.module(func.func(spine-vectorize-matmul{vector-bits=256 vector-registers=32 fp16-widening-fma=1}))' %s | FileCheck %s --check-prefix=WFMA

// fp32 with 16 registers: 12 accumulators of vector<8xf32> (6 rows x 2
// vectors) carried by the K loop; each step loads 2 vectors of B, broadcasts
// one element of A per row, and issues one FMA per accumulator. C is read
// before and written after the K loop only. 6 does not divide 64: rows 60..63
// get a 4-row block of their own.
// CHECK-LABEL: func.func @f32
// CHECK: scf.for %[[I:.*]] = %c0{{.*}} to %c60 step %c6
// CHECK: scf.for %[[J:.*]] = %c0{{.*}} to %{{.*}} step %c16
// CHECK-COUNT-12: vector.load %arg2{{.*}} : memref<64x64xf32>, vector<8xf32>
// CHECK: scf.for %[[K:.*]] = %c0{{.*}} to %{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-2: vector.load %arg1[%[[K]], {{.*}}] : memref<32x64xf32>, vector<8xf32>
// CHECK: memref.load %arg0[%[[I]], %[[K]]]
// CHECK: vector.broadcast {{.*}} : f32 to vector<8xf32>
// CHECK-COUNT-2: vector.fma
// CHECK: memref.load %arg0
// CHECK: vector.broadcast
// CHECK-COUNT-2: vector.fma
// CHECK: scf.yield
// CHECK-COUNT-12: vector.store {{.*}}, %arg2
// The row loop is marked for spine-schedule-tile-prefetches.
// CHECK: } {spine.micro_kernel_rows}
// CHECK: scf.for %{{.*}} = %c60{{.*}} to %c64{{.*}} step %c4
// CHECK-COUNT-8: vector.fma
// CHECK-NOT: linalg.matmul
// With 32 registers (RVV) the block grows to 6 rows x 4 vectors.
// RVV-LABEL: func.func @f32
// RVV: scf.for {{.*}} step %c6
// RVV-COUNT-24: vector.fma
func.func @f32(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// 8 rows: one 6 x 2-vector block, then the 2 leftover rows get the widest
// block that fits instead of 2 x 2 vectors (4 chains of dependent FMAs):
// 2 rows x 4 vectors, 8 accumulators.
// CHECK-LABEL: func.func @two_leftover_rows
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c6{{.*}} step %c6
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step %c16
// CHECK-COUNT-12: vector.fma
// CHECK: scf.for %{{.*}} = %c6{{.*}} to %c8{{.*}} step %c2
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step %c32
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-8: vector.fma
// CHECK-NOT: vector.fma
func.func @two_leftover_rows(%a: memref<8x32xf32>, %b: memref<32x64xf32>, %c: memref<8x64xf32>) {
  linalg.matmul ins(%a, %b : memref<8x32xf32>, memref<32x64xf32>) outs(%c : memref<8x64xf32>)
  return
}

// A B tile the kernel allocates, with rows of 2 KiB (its 32 rows would
// share two L1 sets), gets a cache line of padding per row: the copy into
// it and the K loop index it as before.
// CHECK-LABEL: func.func @padded_rows
// CHECK: %[[TILE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x528xf32>
// CHECK: memref.store %{{.*}}, %[[TILE]][%{{.*}}, %{{.*}}] : memref<32x528xf32>
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.load %[[TILE]][%{{.*}}, %{{.*}}] : memref<32x528xf32>, vector<8xf32>
// CHECK: memref.dealloc %[[TILE]] : memref<32x528xf32>
func.func @padded_rows(%a: memref<12x32xf32>, %c: memref<12x512xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  %b = memref.alloc() {alignment = 64 : i64} : memref<32x512xf32>
  scf.for %k = %c0 to %c32 step %c1 {
    scf.for %n = %c0 to %c512 step %c1 {
      memref.store %v, %b[%k, %n] : memref<32x512xf32>
    }
  }
  linalg.matmul ins(%a, %b : memref<12x32xf32>, memref<32x512xf32>) outs(%c : memref<12x512xf32>)
  memref.dealloc %b : memref<32x512xf32>
  return
}

// fp16 B widened into an f32 copy with rows of 2 KiB: the copy is padded.
// CHECK-LABEL: func.func @padded_widened_copy
// CHECK: %[[COPY:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32x528xf32>
// CHECK: vector.store %{{.*}}, %[[COPY]]
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.load %[[COPY]][%{{.*}}, %{{.*}}] : memref<32x528xf32>, vector<8xf32>
func.func @padded_widened_copy(%a: memref<12x32xf16>, %b: memref<32x512xf16>, %c: memref<12x512xf32>) {
  linalg.matmul ins(%a, %b : memref<12x32xf16>, memref<32x512xf16>) outs(%c : memref<12x512xf32>)
  return
}

// Left as they are: rows of 512 bytes (8 sets apart), a B the kernel was
// given (an argument), and a tile another op reads whole (a copy).
// CHECK-LABEL: func.func @unpadded_rows
// CHECK: memref.alloc() {{.*}} : memref<32x128xf32>
// CHECK: memref.alloc() {{.*}} : memref<32x512xf32>
// CHECK-NOT: memref<32x528xf32>
// CHECK: return
func.func @unpadded_rows(%a: memref<12x32xf32>, %b: memref<32x512xf32>, %c: memref<12x512xf32>, %c2: memref<12x128xf32>, %out: memref<32x512xf32>) {
  %short = memref.alloc() {alignment = 64 : i64} : memref<32x128xf32>
  linalg.matmul ins(%a, %short : memref<12x32xf32>, memref<32x128xf32>) outs(%c2 : memref<12x128xf32>)
  memref.dealloc %short : memref<32x128xf32>
  linalg.matmul ins(%a, %b : memref<12x32xf32>, memref<32x512xf32>) outs(%c : memref<12x512xf32>)
  %copied = memref.alloc() {alignment = 64 : i64} : memref<32x512xf32>
  linalg.matmul ins(%a, %copied : memref<12x32xf32>, memref<32x512xf32>) outs(%c : memref<12x512xf32>)
  memref.copy %copied, %out : memref<32x512xf32> to memref<32x512xf32>
  memref.dealloc %copied : memref<32x512xf32>
  return
}

// i1 elements (no whole bytes per element) are not padded; this used to
// divide by zero.
// CHECK-LABEL: func.func @i1_rows_unpadded
// CHECK: memref.alloc() : memref<32x1024xi1>
// CHECK-NOT: linalg.matmul
func.func @i1_rows_unpadded(%a: memref<16x32xi1>, %c: memref<16x1024xi1>) {
  %b = memref.alloc() : memref<32x1024xi1>
  linalg.matmul ins(%a, %b : memref<16x32xi1>, memref<32x1024xi1>) outs(%c : memref<16x1024xi1>)
  memref.dealloc %b : memref<32x1024xi1>
  return
}

// fp16 inputs that the K loops would widen more than once are widened once
// into f32 stack copies: A (read by both column blocks of 16) and B (read by
// all three row blocks of 6). The K loop is then the f32 one: A's element
// broadcast from memory, no conversion per FMA row.
// CHECK-LABEL: func.func @f16
// CHECK-DAG: %[[B32:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK-DAG: %[[A32:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x16xf32>
// CHECK: %[[AH:.*]] = vector.load %arg0[{{.*}}] : memref<16x16xf16>, vector<8xf16>
// CHECK: %[[AW:.*]] = arith.extf %[[AH]] : vector<8xf16> to vector<8xf32>
// CHECK: vector.store %[[AW]], %[[A32]]
// CHECK: %[[BH:.*]] = vector.load %arg1[{{.*}}] : memref<16x32xf16>, vector<8xf16>
// CHECK: %[[BW:.*]] = arith.extf %[[BH]] : vector<8xf16> to vector<8xf32>
// CHECK: vector.store %[[BW]], %[[B32]]
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: arith.extf
// CHECK: vector.load %[[B32]]
// CHECK: memref.load %[[A32]]
// CHECK: vector.fma
// CHECK-NOT: arith.extf
// CHECK: return
// With fp16-widening-fma (RVV Zvfh), nothing is copied: each step loads B's
// fp16 vectors and A's fp16 elements, and their extensions feed the FMA,
// which LLVM selects as vfwmacc.vf.
// WFMA-LABEL: func.func @f16
// WFMA-NOT: memref.alloca
// WFMA: scf.for {{.*}} iter_args
// WFMA: %[[BH:.*]] = vector.load %arg1[{{.*}}] : memref<16x32xf16>, vector<8xf16>
// WFMA: %[[BW:.*]] = arith.extf %[[BH]] : vector<8xf16> to vector<8xf32>
// WFMA: %[[AH:.*]] = memref.load %arg0[{{.*}}] : memref<16x16xf16>
// WFMA: %[[AW:.*]] = arith.extf %[[AH]] : f16 to f32
// WFMA: %[[AS:.*]] = vector.broadcast %[[AW]] : f32 to vector<8xf32>
// WFMA: vector.fma %[[AS]], %[[BW]], %{{.*}} : vector<8xf32>
// WFMA: return
func.func @f16(%a: memref<16x16xf16>, %b: memref<16x32xf16>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x16xf16>, memref<16x32xf16>) outs(%c : memref<16x32xf32>)
  return
}

// One block of 4 rows x 16 columns reads each input element once. B is not
// copied: the K loop widens each of its vectors once, for all the rows. A's
// element widened in the loop would cost a vector conversion per row and K
// step (vcvtph2ps; on RVV without Zvfh's widening FMA, a splat feeding a
// vector-vector FMA), so A is widened into an f32 copy a vector at a time
// and the loop broadcasts from it.
// CHECK-LABEL: func.func @f16_one_block
// CHECK: %[[A32:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: vector.store {{.*}}, %[[A32]]
// CHECK-NOT: memref.alloca
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.load %arg1{{.*}} : memref<16x16xf16>, vector<8xf16>
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// CHECK-NOT: f16 to f32
// CHECK: memref.load %[[A32]]
// CHECK: vector.fma
// CHECK-NOT: f16 to f32
// CHECK: return
func.func @f16_one_block(%a: memref<4x16xf16>, %b: memref<16x16xf16>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x16xf16>, memref<16x16xf16>) outs(%c : memref<4x16xf32>)
  return
}

// int8 x int8 -> int32 multiplies and adds in i32. With int16-pair-product
// (x86 vpmaddwd), B's rows are packed in pairs widened to i16, as bf16's
// below, and the K loop runs over the 8 pairs: A's pair of the row is
// broadcast as one i32, and vpmaddwd sums the pair's two products into each
// i32 lane. A is widened to i16 into a copy first, though one block of
// columns reads each pair once: widened in the loop, each row's pair cost
// three vector instructions (vmovd, vpmovsxbw, vpbroadcastd) on the ports
// vpaddd needs.
// CHECK-LABEL: func.func @i8
// CHECK: arith.extsi {{.*}} : vector<8xi8> to vector<8xi32>
// CHECK: arith.muli
// CHECK: arith.addi
// I16-LABEL: func.func @i8
// I16-DAG: %[[PACKED:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x32xi16>
// I16-DAG: %[[WIDE_A:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x16xi16>
// I16: %[[ROW:.*]] = vector.load %arg0{{.*}} : memref<16x16xi8>, vector<8xi8>
// I16: %[[ROW16:.*]] = arith.extsi %[[ROW]] : vector<8xi8> to vector<8xi16>
// I16: vector.store %[[ROW16]], %[[WIDE_A]]
// I16: %[[FIRST:.*]] = arith.extsi %{{.*}} : vector<8xi8> to vector<8xi16>
// I16: %[[SECOND:.*]] = arith.extsi %{{.*}} : vector<8xi8> to vector<8xi16>
// I16: vector.interleave %[[FIRST]], %[[SECOND]] : vector<8xi16> -> vector<16xi16>
// I16: scf.for %[[STEP:.*]] = %c0{{.*}} to %c8{{.*}} step %c1{{.*}} iter_args
// I16: vector.load %[[PACKED]][%[[STEP]], %{{.*}}] : memref<8x32xi16>, vector<16xi16>
// I16-NOT: arith.extsi
// I16: %[[A:.*]] = vector.load %[[WIDE_A]][%{{.*}}, %{{.*}}] : memref<16x16xi16>, vector<2xi16>
// I16-NEXT: vector.bitcast %[[A]] : vector<2xi16> to vector<1xi32>
// I16: %[[SUMS:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%{{.*}}, %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// I16: arith.addi %{{.*}}, %[[SUMS]] : vector<8xi32>
// I16-NOT: arith.muli {{.*}} : vector
// I16-512-LABEL: func.func @i8
// I16-512: llvm.call_intrinsic "llvm.x86.avx512.pmaddw.d.512"(%{{.*}}, %{{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<16xi32>
func.func @i8(%a: memref<16x16xi8>, %b: memref<16x16xi8>, %c: memref<16x16xi32>) {
  linalg.matmul ins(%a, %b : memref<16x16xi8>, memref<16x16xi8>) outs(%c : memref<16x16xi32>)
  return
}

// Several column blocks read A's pairs: A is widened to i16 once, into a
// copy, and each step broadcasts a pair from it as it is.
// I16-LABEL: func.func @i8_column_blocks
// I16-DAG: %[[PACKED_B:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x128xi16>
// I16-DAG: %[[WIDE_A:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x32xi16>
// I16: scf.for {{.*}} iter_args
// I16: vector.load %[[PACKED_B]]
// I16: %[[A:.*]] = vector.load %[[WIDE_A]][%{{.*}}, %{{.*}}] : memref<8x32xi16>, vector<2xi16>
// I16-NEXT: vector.bitcast %[[A]] : vector<2xi16> to vector<1xi32>
// I16: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
func.func @i8_column_blocks(%a: memref<8x32xi8>, %b: memref<32x64xi8>, %c: memref<8x64xi32>) {
  linalg.matmul ins(%a, %b : memref<8x32xi8>, memref<32x64xi8>) outs(%c : memref<8x64xi32>)
  return
}

// An odd K keeps the widening multiplies.
// I16-LABEL: func.func @i8_odd_k
// I16-NOT: llvm.call_intrinsic
// I16: arith.muli {{.*}} : vector<8xi32>
func.func @i8_odd_k(%a: memref<16x3xi8>, %b: memref<3x16xi8>, %c: memref<16x16xi32>) {
  linalg.matmul ins(%a, %b : memref<16x3xi8>, memref<3x16xi8>) outs(%c : memref<16x16xi32>)
  return
}

// A column count that is not a multiple of the vector length stays a
// linalg.matmul (lowered to scalar loops later).
// CHECK-LABEL: func.func @odd
// CHECK: linalg.matmul
func.func @odd(%a: memref<4x4xf32>, %b: memref<4x6xf32>, %c: memref<4x6xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x6xf32>) outs(%c : memref<4x6xf32>)
  return
}

// bf16 x bf16 -> f32. Without bf16-dot-product, both are widened (into
// f32 copies, as f16 above) and multiplied one K step at a time. With it (x86 AVX512-BF16), B's tile is
// packed once, the two rows of each pair of K steps interleaved into a
// stack buffer, and the K loop runs over the 16 pairs: each loads a packed
// vector of 32 bf16 per column block, broadcasts A's pair of the row as one
// i32, and adds both products to the f32 lanes with vdpbf16ps.
// CHECK-LABEL: func.func @bf16
// CHECK: arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: vector.fma
// BF16-LABEL: func.func @bf16
// BF16: %[[PACKED:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x128xbf16>
// BF16: scf.for %[[KK:.*]] = %c0{{.*}} to %c16{{.*}} step %c1
// BF16: %[[EVEN:.*]] = arith.muli %[[KK]], %c2
// BF16: %[[ODD:.*]] = arith.addi %[[EVEN]], %c1
// BF16: scf.for %[[N:.*]] = %c0{{.*}} to %c64{{.*}} step %c16
// BF16: %[[FIRST:.*]] = vector.load %arg1[%[[EVEN]], %[[N]]] : memref<32x64xbf16>, vector<16xbf16>
// BF16: %[[SECOND:.*]] = vector.load %arg1[%[[ODD]], %[[N]]] : memref<32x64xbf16>, vector<16xbf16>
// BF16: %[[PAIR:.*]] = vector.interleave %[[FIRST]], %[[SECOND]] : vector<16xbf16> -> vector<32xbf16>
// BF16: vector.store %[[PAIR]], %[[PACKED]][%[[KK]], %{{.*}}] : memref<16x128xbf16>, vector<32xbf16>
// BF16: } {spine.micro_kernel_rows}
// BF16-NOT: vector.fma
// BF16: scf.for %[[STEP:.*]] = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// BF16: %[[K:.*]] = arith.muli %[[STEP]], %c2
// BF16: vector.load %[[PACKED]][%[[STEP]], %{{.*}}] : memref<16x128xbf16>, vector<32xbf16>
// BF16: %[[A:.*]] = vector.load %arg0[%{{.*}}, %[[K]]] : memref<16x32xbf16>, vector<2xbf16>
// BF16: %[[WORD:.*]] = vector.bitcast %[[A]] : vector<2xbf16> to vector<1xi32>
// BF16: %[[I32:.*]] = vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// BF16: %[[SPLAT:.*]] = vector.broadcast %[[I32]] : i32 to vector<16xi32>
// BF16: %[[AS_BF16:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// BF16: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%{{.*}}, %[[AS_BF16]], %{{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// BF16-NOT: vector.fma
func.func @bf16(%a: memref<16x32xbf16>, %b: memref<32x64xbf16>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x32xbf16>, memref<32x64xbf16>) outs(%c : memref<16x64xf32>)
  return
}

// With amx-tiles (x86 AMX-BF16), the same product is tiles: B is packed in
// pairs as for vdpbf16ps, then each block of 1 x 2 C tiles (16 rows: one
// row of tiles) is loaded into tile registers, the K loop steps 32 K steps
// (one A tile, read in place, and two B tiles from the packed copy) and
// multiplies into both C tiles, which are stored after it. No vector FMA or
// vdpbf16ps is left.
// AMX-LABEL: func.func @bf16
// AMX: %[[PACKED:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x128xbf16>
// AMX: vector.interleave
// AMX: vector.store {{.*}}, %[[PACKED]]
// AMX: scf.for %[[I:.*]] = %c0{{.*}} to %c16{{.*}} step %c16
// AMX: scf.for %[[J:.*]] = %c0{{.*}} to %c64{{.*}} step %c32
// AMX: %[[J1:.*]] = arith.addi %[[J]], %c16
// AMX-COUNT-2: amx.tile_load %arg2[%[[I]], {{.*}}] : memref<16x64xf32> into !amx.tile<16x16xf32>
// AMX: scf.for %[[K:.*]] = %c0{{.*}} to %c32{{.*}} step %c32{{.*}} iter_args({{.*}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// AMX: %[[KK:.*]] = arith.divui %[[K]], %c2
// AMX: %[[A:.*]] = amx.tile_load %arg0[%[[I]], %[[K]]] : memref<16x32xbf16> into !amx.tile<16x32xbf16>
// AMX: %[[B0:.*]] = amx.tile_load %[[PACKED]][%[[KK]], {{.*}}] : memref<16x128xbf16> into !amx.tile<16x32xbf16>
// AMX: %[[B1:.*]] = amx.tile_load %[[PACKED]][%[[KK]], {{.*}}] : memref<16x128xbf16> into !amx.tile<16x32xbf16>
// AMX: amx.tile_mulf %[[A]], %[[B0]]
// AMX: amx.tile_mulf %[[A]], %[[B1]]
// AMX: scf.yield
// AMX: amx.tile_store %arg2[%[[I]], %[[J]]]
// AMX: amx.tile_store %arg2[%[[I]], %[[J1]]]
// AMX: } {spine.micro_kernel_rows}
// AMX-NOT: vector.fma
// AMX-NOT: llvm.call_intrinsic

// An odd K (no pairs to make) keeps the widening FMAs, with tiles or not.
// AMX-LABEL: func.func @bf16_odd_k
// AMX-NOT: amx.
// AMX: vector.fma
// BF16-LABEL: func.func @bf16_odd_k
// BF16-NOT: llvm.call_intrinsic
// BF16: vector.fma
func.func @bf16_odd_k(%a: memref<16x3xbf16>, %b: memref<3x64xbf16>, %c: memref<16x64xf32>) {
  linalg.matmul ins(%a, %b : memref<16x3xbf16>, memref<3x64xbf16>) outs(%c : memref<16x64xf32>)
  return
}

// With amx-tiles, consecutive dots into one C (an unrolled K loop's,
// spine-unroll-dot-loops) multiply into C's tiles in one pass: each block of
// C tiles is loaded once, one K loop per dot carries it on, and it is stored
// once, where the last dot of the run was. Loading the next tiles into
// buffers of their own between the dots does not end the run; overwriting a
// tile the run reads does, so the last dot runs on its own after it.
// AMX-LABEL: func.func @bf16_run
// AMX: memref.copy %arg4, %arg2
// AMX: scf.for
// AMX: scf.for
// AMX-COUNT-2: amx.tile_load %arg5
// AMX-NOT: amx.tile_store
// AMX: %[[FIRST:.*]]:2 = scf.for {{.*}} iter_args
// AMX: amx.tile_load %arg0
// AMX: %[[SECOND:.*]]:2 = scf.for {{.*}} iter_args({{.*}} = %[[FIRST]]#0, {{.*}} = %[[FIRST]]#1)
// AMX: amx.tile_load %arg2
// AMX: %[[THIRD:.*]]:2 = scf.for {{.*}} iter_args({{.*}} = %[[SECOND]]#0, {{.*}} = %[[SECOND]]#1)
// AMX: amx.tile_load %arg2
// AMX-COUNT-2: amx.tile_store %arg5{{.*}}%[[THIRD]]
// AMX: } {spine.micro_kernel_rows}
// AMX: memref.copy %arg4, %arg0
// AMX: scf.for
// AMX: scf.for
// AMX-COUNT-2: amx.tile_load %arg5
// AMX: scf.for
// AMX-NOT: scf.for
// AMX-COUNT-2: amx.tile_store %arg5
// AMX: } {spine.micro_kernel_rows}
// AMX-NOT: linalg.matmul
func.func @bf16_run(%a0: memref<16x32xbf16>, %b0: memref<32x32xbf16>, %a1: memref<16x32xbf16>, %b1: memref<32x32xbf16>, %src: memref<16x32xbf16>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a0, %b0 : memref<16x32xbf16>, memref<32x32xbf16>) outs(%c : memref<16x32xf32>)
  memref.copy %src, %a1 : memref<16x32xbf16> to memref<16x32xbf16>
  linalg.matmul ins(%a1, %b1 : memref<16x32xbf16>, memref<32x32xbf16>) outs(%c : memref<16x32xf32>)
  linalg.matmul ins(%a1, %b0 : memref<16x32xbf16>, memref<32x32xbf16>) outs(%c : memref<16x32xf32>)
  memref.copy %src, %a0 : memref<16x32xbf16> to memref<16x32xbf16>
  linalg.matmul ins(%a0, %b1 : memref<16x32xbf16>, memref<32x32xbf16>) outs(%c : memref<16x32xf32>)
  return
}

// A view made before the run aliases the A it reads: writing through it
// between the dots ends the run too.
// AMX-LABEL: func.func @bf16_run_through_a_view
// AMX: %[[VIEW:.*]] = memref.subview %arg0
// AMX: } {spine.micro_kernel_rows}
// AMX: memref.copy %arg3, %[[VIEW]] :
// AMX: } {spine.micro_kernel_rows}
// AMX-NOT: linalg.matmul
func.func @bf16_run_through_a_view(%a: memref<16x32xbf16>, %b: memref<32x32xbf16>, %b1: memref<32x32xbf16>, %src: memref<16x16xbf16>, %c: memref<16x32xf32>) {
  %view = memref.subview %a[0, 0] [16, 16] [1, 1] : memref<16x32xbf16> to memref<16x16xbf16, strided<[32, 1]>>
  linalg.matmul ins(%a, %b : memref<16x32xbf16>, memref<32x32xbf16>) outs(%c : memref<16x32xf32>)
  memref.copy %src, %view : memref<16x16xbf16> to memref<16x16xbf16, strided<[32, 1]>>
  linalg.matmul ins(%a, %b1 : memref<16x32xbf16>, memref<32x32xbf16>) outs(%c : memref<16x32xf32>)
  return
}

// int8 into i32 with amx-tiles: B packed in quads of K steps (rows 0 and 1
// and rows 2 and 3 interleaved bytewise, then the two as 16-bit pairs), a
// 16 x 64 A tile per step (64 K steps), tdpbssd (amx.tile_muli) into i32
// tiles.
// AMX-LABEL: func.func @i8_tiles
// AMX: %[[PACKED:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x128xi8>
// AMX: %[[R01:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<16xi8> -> vector<32xi8>
// AMX: %[[LOW:.*]] = vector.bitcast %[[R01]] : vector<32xi8> to vector<16xi16>
// AMX: %[[R23:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<16xi8> -> vector<32xi8>
// AMX: %[[HIGH:.*]] = vector.bitcast %[[R23]] : vector<32xi8> to vector<16xi16>
// AMX: %[[QUADS:.*]] = vector.interleave %[[LOW]], %[[HIGH]] : vector<16xi16> -> vector<32xi16>
// AMX: %[[BYTES:.*]] = vector.bitcast %[[QUADS]] : vector<32xi16> to vector<64xi8>
// AMX: vector.store %[[BYTES]], %[[PACKED]]
// AMX-COUNT-2: amx.tile_load %arg2{{.*}} into !amx.tile<16x16xi32>
// AMX: scf.for {{.*}} step %c64
// AMX: arith.divui %{{.*}}, %c4
// AMX: amx.tile_load %arg0{{.*}} : memref<16x64xi8> into !amx.tile<16x64xi8>
// AMX-COUNT-2: amx.tile_load %[[PACKED]]{{.*}} : memref<16x128xi8> into !amx.tile<16x64xi8>
// AMX-COUNT-2: amx.tile_muli
// AMX-COUNT-2: amx.tile_store %arg2
// AMX-NOT: llvm.call_intrinsic
func.func @i8_tiles(%a: memref<16x64xi8>, %b: memref<64x32xi8>, %c: memref<16x32xi32>) {
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x32xi8>) outs(%c : memref<16x32xi32>)
  return
}

// A C that a fill of +0, or a copy of a global of zeros (a tl.dot without an
// accumulator: tl.zeros' constant copied into the loop's C), sets right
// before the dot: the accumulators start at zero, C is not read, and the
// initializer goes. A fill of -0 (0 + -0 is +0: the result could differ in
// the sign of a zero), or one with a use of C in between, stays.
// CHECK-LABEL: func.func @zero_filled
// CHECK-NOT: linalg.fill
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NOT: vector.load %alloca
// CHECK: scf.for {{.*}} iter_args({{.*}} = %[[Z]], {{.*}} = %[[Z]]
// CHECK: vector.fma
// CHECK: vector.store {{.*}}, %alloca
func.func @zero_filled(%a: memref<16x8xf32>, %b: memref<8x16xf32>) -> f32 {
  %c = memref.alloca() : memref<16x16xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x16xf32>)
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x16xf32>) outs(%c : memref<16x16xf32>)
  %i = arith.constant 0 : index
  %v = memref.load %c[%i, %i] : memref<16x16xf32>
  return %v : f32
}

memref.global "private" constant @zeros : memref<16x16xf32> = dense<0.0>

// CHECK-LABEL: func.func @zero_copied
// CHECK-NOT: memref.copy
// CHECK-NOT: vector.load %alloca
// CHECK: vector.fma
// CHECK: vector.store {{.*}}, %alloca
func.func @zero_copied(%a: memref<16x8xf32>, %b: memref<8x16xf32>) -> f32 {
  %c = memref.alloca() : memref<16x16xf32>
  %g = memref.get_global @zeros : memref<16x16xf32>
  memref.copy %g, %c : memref<16x16xf32> to memref<16x16xf32>
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x16xf32>) outs(%c : memref<16x16xf32>)
  %i = arith.constant 0 : index
  %v = memref.load %c[%i, %i] : memref<16x16xf32>
  return %v : f32
}

// CHECK-LABEL: func.func @negative_zero_filled
// CHECK: linalg.fill
// CHECK: vector.load %alloca
func.func @negative_zero_filled(%a: memref<16x8xf32>, %b: memref<8x16xf32>) -> f32 {
  %c = memref.alloca() : memref<16x16xf32>
  %zero = arith.constant -0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x16xf32>)
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x16xf32>) outs(%c : memref<16x16xf32>)
  %i = arith.constant 0 : index
  %v = memref.load %c[%i, %i] : memref<16x16xf32>
  return %v : f32
}

// CHECK-LABEL: func.func @used_between
// CHECK: linalg.fill
// CHECK: memref.store
// CHECK: vector.load %alloca
func.func @used_between(%a: memref<16x8xf32>, %b: memref<8x16xf32>, %x: f32) -> f32 {
  %c = memref.alloca() : memref<16x16xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x16xf32>)
  %i = arith.constant 0 : index
  memref.store %x, %c[%i, %i] : memref<16x16xf32>
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x16xf32>) outs(%c : memref<16x16xf32>)
  %v = memref.load %c[%i, %i] : memref<16x16xf32>
  return %v : f32
}
