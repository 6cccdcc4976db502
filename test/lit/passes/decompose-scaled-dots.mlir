// RUN: spine-triton-opt --split-input-file --spine-decompose-scaled-dots %s | FileCheck %s
// RUN: spine-triton-opt --triton-to-linalg-experimental %s -o /dev/null

// With scales, each operand is decoded with K split into blocks of 32 (for
// fp4 pairs along K: blocks of 16 bytes): fp4 pairs (low nibble first) are
// decoded by integer arithmetic from a pair axis behind the bytes whose
// element j shifts its byte by 4 j; fp8 is extended; e8m0 scales become
// powers of two (0 the subnormal 2^-127, 0xFF NaN), broadcast over the block
// and pair axes (the rhs's transposed to [K / 32, N] first) and multiplied
// in; reshapes give [M, K] and [K, N]; the dot multiplies f32.
// CHECK-LABEL: tt.func @e2m1_times_e4m3
// CHECK-SAME: (%[[A:.*]]: tensor<16x32xi8>, %[[SA:.*]]: tensor<16x2xi8>, %[[B:.*]]: tensor<64x16xf8E4M3FN>, %[[SB:.*]]: tensor<16x2xi8>, %[[C:.*]]: tensor<16x16xf32>)
// CHECK: %[[AB:.*]] = tt.reshape %[[A]] : tensor<16x32xi8> -> tensor<16x2x16xi8>
// CHECK: %[[AX:.*]] = tt.expand_dims %[[AB]] {axis = 3 : i32} : tensor<16x2x16xi8> -> tensor<16x2x16x1xi8>
// CHECK: %[[BYTES:.*]] = tt.broadcast %[[AX]] : tensor<16x2x16x1xi8> -> tensor<16x2x16x2xi8>
// CHECK: %[[J:.*]] = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
// CHECK: %[[JX:.*]] = tt.reshape %[[J]] : tensor<2xi32> -> tensor<1x1x1x2xi32>
// CHECK: %[[JB:.*]] = tt.broadcast %[[JX]] : tensor<1x1x1x2xi32> -> tensor<16x2x16x2xi32>
// CHECK: %[[FOUR:.*]] = arith.constant dense<4> : tensor<16x2x16x2xi32>
// CHECK: %[[SHIFT32:.*]] = arith.muli %[[JB]], %[[FOUR]] : tensor<16x2x16x2xi32>
// CHECK: %[[SHIFT:.*]] = arith.trunci %[[SHIFT32]] : tensor<16x2x16x2xi32> to tensor<16x2x16x2xi8>
// CHECK: %[[LOW4:.*]] = arith.constant dense<15> : tensor<16x2x16x2xi8>
// CHECK: %[[SHIFTED:.*]] = arith.shrui %[[BYTES]], %[[SHIFT]] : tensor<16x2x16x2xi8>
// CHECK: %[[NIBBLES:.*]] = arith.andi %[[SHIFTED]], %[[LOW4]] : tensor<16x2x16x2xi8>
// CHECK: arith.extui %[[NIBBLES]] : tensor<16x2x16x2xi8> to tensor<16x2x16x2xi32>
// CHECK: %[[PAIRS:.*]] = arith.bitcast %{{.*}} : tensor<16x2x16x2xi32> to tensor<16x2x16x2xf32>
// CHECK: %[[SA32:.*]] = arith.extui %[[SA]] : tensor<16x2xi8> to tensor<16x2xi32>
// CHECK: %[[POW:.*]] = arith.shli %[[SA32]], %{{.*}} : tensor<16x2xi32>
// CHECK: %[[SUBNORMAL:.*]] = arith.constant dense<4194304> : tensor<16x2xi32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : tensor<16x2xi32>
// CHECK: %[[ISZERO:.*]] = arith.cmpi eq, %[[SA32]], %[[ZERO]] : tensor<16x2xi32>
// CHECK: %[[NOZERO:.*]] = arith.select %[[ISZERO]], %[[SUBNORMAL]], %[[POW]]
// CHECK: %[[NAN:.*]] = arith.constant dense<2143289344> : tensor<16x2xi32>
// CHECK: %[[FF:.*]] = arith.constant dense<255> : tensor<16x2xi32>
// CHECK: %[[ISNAN:.*]] = arith.cmpi eq, %[[SA32]], %[[FF]] : tensor<16x2xi32>
// CHECK: %[[SABITS:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[NOZERO]]
// CHECK: %[[SAF:.*]] = arith.bitcast %[[SABITS]] : tensor<16x2xi32> to tensor<16x2xf32>
// CHECK: %[[SAX:.*]] = tt.reshape %[[SAF]] : tensor<16x2xf32> -> tensor<16x2x1x1xf32>
// CHECK: %[[SAB:.*]] = tt.broadcast %[[SAX]] : tensor<16x2x1x1xf32> -> tensor<16x2x16x2xf32>
// CHECK: %[[ASP:.*]] = arith.mulf %[[PAIRS]], %[[SAB]] : tensor<16x2x16x2xf32>
// CHECK: %[[AS:.*]] = tt.reshape %[[ASP]] : tensor<16x2x16x2xf32> -> tensor<16x64xf32>
// CHECK: %[[BB:.*]] = tt.reshape %[[B]] : tensor<64x16xf8E4M3FN> -> tensor<2x32x16xf8E4M3FN>
// CHECK: %[[BV:.*]] = arith.extf %[[BB]] : tensor<2x32x16xf8E4M3FN> to tensor<2x32x16xf32>
// CHECK: arith.extui %[[SB]] : tensor<16x2xi8> to tensor<16x2xi32>
// CHECK: %[[SBF:.*]] = arith.bitcast %{{.*}} : tensor<16x2xi32> to tensor<16x2xf32>
// CHECK: %[[SBT:.*]] = tt.trans %[[SBF]] {order = array<i32: 1, 0>} : tensor<16x2xf32> -> tensor<2x16xf32>
// CHECK: %[[SBX:.*]] = tt.reshape %[[SBT]] : tensor<2x16xf32> -> tensor<2x1x16xf32>
// CHECK: %[[SBB:.*]] = tt.broadcast %[[SBX]] : tensor<2x1x16xf32> -> tensor<2x32x16xf32>
// CHECK: %[[BSB:.*]] = arith.mulf %[[BV]], %[[SBB]] : tensor<2x32x16xf32>
// CHECK: %[[BS:.*]] = tt.reshape %[[BSB]] : tensor<2x32x16xf32> -> tensor<64x16xf32>
// CHECK-NOT: arith.truncf
// CHECK: %[[D:.*]] = tt.dot %[[AS]], %[[BS]], %[[C]] : tensor<16x64xf32> * tensor<64x16xf32> -> tensor<16x16xf32>
// CHECK: tt.return %[[D]]
// CHECK-NOT: tt.dot_scaled
tt.func @e2m1_times_e4m3(%a: tensor<16x32xi8>, %sa: tensor<16x2xi8>, %b: tensor<64x16xf8E4M3FN>, %sb: tensor<16x2xi8>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e2m1 rhs = e4m3 {fastMath = false} : tensor<16x32xi8>, tensor<16x2xi8> * tensor<64x16xf8E4M3FN>, tensor<16x2xi8> -> tensor<16x16xf32>
  tt.return %d : tensor<16x16xf32>
}

// -----

// With fastMath, formats exact in bf16 once scaled multiply bf16.
// CHECK-LABEL: tt.func @fast_math_bf16
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<16x1x32xf32>
// CHECK: %[[AS:.*]] = tt.reshape %{{.*}} : tensor<16x1x32xf32> -> tensor<16x32xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<1x32x16xf32>
// CHECK: %[[BS:.*]] = tt.reshape %{{.*}} : tensor<1x32x16xf32> -> tensor<32x16xf32>
// CHECK: %[[A16:.*]] = arith.truncf %[[AS]] : tensor<16x32xf32> to tensor<16x32xbf16>
// CHECK: %[[B16:.*]] = arith.truncf %[[BS]] : tensor<32x16xf32> to tensor<32x16xbf16>
// CHECK: tt.dot %[[A16]], %[[B16]], %{{.*}} : tensor<16x32xbf16> * tensor<32x16xbf16> -> tensor<16x16xf32>
tt.func @fast_math_bf16(%a: tensor<16x32xf8E5M2>, %sa: tensor<16x1xi8>, %b: tensor<32x16xbf16>, %sb: tensor<16x1xi8>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e5m2 rhs = bf16 {fastMath = true} : tensor<16x32xf8E5M2>, tensor<16x1xi8> * tensor<32x16xbf16>, tensor<16x1xi8> -> tensor<16x16xf32>
  tt.return %d : tensor<16x16xf32>
}

// -----

// fp16 does not fit bf16: f32 even with fastMath. Without scales nothing is
// multiplied in.
// CHECK-LABEL: tt.func @fp16_unscaled
// CHECK-NOT: arith.mulf
// CHECK: %[[AV:.*]] = arith.extf %{{.*}} : tensor<16x32xf16> to tensor<16x32xf32>
// CHECK: %[[BV:.*]] = arith.extf %{{.*}} : tensor<32x16xf8E4M3FN> to tensor<32x16xf32>
// CHECK-NOT: arith.mulf
// CHECK: tt.dot %[[AV]], %[[BV]], %{{.*}} : tensor<16x32xf32> * tensor<32x16xf32> -> tensor<16x16xf32>
tt.func @fp16_unscaled(%a: tensor<16x32xf16>, %b: tensor<32x16xf8E4M3FN>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tt.dot_scaled %a, %b, %c lhs = fp16 rhs = e4m3 {fastMath = true} : tensor<16x32xf16> * tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
  tt.return %d : tensor<16x16xf32>
}

// -----

// fp4 packed along M (lhs) and N (rhs); an fp8 scale per 16 elements (NVFP4).
// The lhs's pair axis lies behind M's pairs, which the scales' rows split
// into alike; the unscaled rhs's pair axis lies behind N, its last dimension.
// CHECK-LABEL: tt.func @fp4_packed_along_m_and_n
// CHECK: tt.reshape %{{.*}} : tensor<8x32xi8> -> tensor<8x2x16xi8>
// CHECK: tt.expand_dims %{{.*}} {axis = 1 : i32} : tensor<8x2x16xi8> -> tensor<8x1x2x16xi8>
// CHECK: tt.reshape %{{.*}} : tensor<2xi32> -> tensor<1x2x1x1xi32>
// CHECK: %[[AP:.*]] = arith.bitcast %{{.*}} : tensor<8x2x2x16xi32> to tensor<8x2x2x16xf32>
// CHECK: %[[SAF:.*]] = arith.extf %{{.*}} : tensor<16x2xf8E4M3FN> to tensor<16x2xf32>
// CHECK: %[[SAX:.*]] = tt.reshape %[[SAF]] : tensor<16x2xf32> -> tensor<8x2x2x1xf32>
// CHECK: %[[SAB:.*]] = tt.broadcast %[[SAX]] : tensor<8x2x2x1xf32> -> tensor<8x2x2x16xf32>
// CHECK: %[[ASP:.*]] = arith.mulf %[[AP]], %[[SAB]] : tensor<8x2x2x16xf32>
// CHECK: %[[AS:.*]] = tt.reshape %[[ASP]] : tensor<8x2x2x16xf32> -> tensor<16x32xf32>
// CHECK: tt.expand_dims %{{.*}} {axis = 2 : i32} : tensor<32x8xi8> -> tensor<32x8x1xi8>
// CHECK: tt.reshape %{{.*}} : tensor<2xi32> -> tensor<1x1x2xi32>
// CHECK: %[[BP:.*]] = arith.bitcast %{{.*}} : tensor<32x8x2xi32> to tensor<32x8x2xf32>
// CHECK: %[[BV:.*]] = tt.reshape %[[BP]] : tensor<32x8x2xf32> -> tensor<32x16xf32>
// CHECK: tt.dot %[[AS]], %[[BV]], %{{.*}} : tensor<16x32xf32> * tensor<32x16xf32> -> tensor<16x16xf32>
tt.func @fp4_packed_along_m_and_n(%a: tensor<8x32xi8>, %sa: tensor<16x2xf8E4M3FN>, %b: tensor<32x8xi8>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tt.dot_scaled %a scale %sa, %b, %c lhs = e2m1 rhs = e2m1 {fastMath = false, lhs_k_pack = false, rhs_k_pack = false} : tensor<8x32xi8>, tensor<16x2xf8E4M3FN> * tensor<32x8xi8> -> tensor<16x16xf32>
  tt.return %d : tensor<16x16xf32>
}

// -----

// Batched: scales [B, rows, K / 32]; the rhs's scales swap the last two
// dimensions only.
// CHECK-LABEL: tt.func @batched
// CHECK: tt.reshape %{{.*}} : tensor<2x16x2xf32> -> tensor<2x16x2x1xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<2x16x2x32xf32>
// CHECK: tt.trans %{{.*}} {order = array<i32: 0, 2, 1>} : tensor<2x16x2xf32> -> tensor<2x2x16xf32>
// CHECK: tt.reshape %{{.*}} : tensor<2x2x16xf32> -> tensor<2x2x1x16xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<2x2x32x16xf32>
// CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x64xf32> * tensor<2x64x16xf32> -> tensor<2x16x16xf32>
tt.func @batched(%a: tensor<2x16x64xf8E4M3FN>, %sa: tensor<2x16x2xi8>, %b: tensor<2x64x16xf8E4M3FN>, %sb: tensor<2x16x2xi8>, %c: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e4m3 rhs = e4m3 {fastMath = false} : tensor<2x16x64xf8E4M3FN>, tensor<2x16x2xi8> * tensor<2x64x16xf8E4M3FN>, tensor<2x16x2xi8> -> tensor<2x16x16xf32>
  tt.return %d : tensor<2x16x16xf32>
}
