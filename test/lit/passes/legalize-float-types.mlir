// RUN: spine-triton-opt --spine-legalize-float-types %s | FileCheck %s
// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s --check-prefix=LINALG --implicit-check-not=f8E

// No fp8 type survives the Linalg stage (--implicit-check-not): values,
// pointees and signatures are bytes.

// fp8 pointers become byte pointers; f32 -> fp8 (here toward zero) is integer
// arithmetic on the f32 bits ending in the byte stored; fp8 -> f32 widens the
// bytes loaded back. f64 -> bf16 is rounded to odd in f32, then to bf16.
// CHECK-LABEL: tt.func public @convert(
// CHECK-SAME: %[[P:.*]]: !tt.ptr<i8>
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : tensor<16xf32> to tensor<16xi32>
// CHECK: arith.shrui %[[BITS]]
// Saturation at 448 (0x7e), NaN as 0x7f.
// CHECK: arith.constant dense<126> : tensor<16xi32>
// CHECK: arith.constant dense<127> : tensor<16xi32>
// CHECK: %[[BYTE:.*]] = arith.ori %{{.*}}, %{{.*}} : tensor<16xi8>
// CHECK: tt.store %{{.*}}, %[[BYTE]] : tensor<16x!tt.ptr<i8>>
// CHECK: %[[LOADED:.*]] = tt.load %{{.*}} : tensor<16x!tt.ptr<i8>>
// CHECK: arith.extui %[[LOADED]] : tensor<16xi8> to tensor<16xi32>
// Subnormals: mantissa * 2^-9.
// CHECK: arith.constant dense<0.001953125> : tensor<16xf32>
// CHECK: %[[WIDE:.*]] = arith.bitcast %{{.*}} : tensor<16xi32> to tensor<16xf32>
// CHECK: %[[F32:.*]] = arith.truncf %{{.*}} : tensor<16xf64> to tensor<16xf32>
// CHECK: arith.cmpf one
// CHECK: %[[ODD:.*]] = arith.ori %{{.*}}, %{{.*}} : tensor<16xi32>
// CHECK: %[[ODDF:.*]] = arith.bitcast %[[ODD]] : tensor<16xi32> to tensor<16xf32>
// CHECK: %[[BF16:.*]] = arith.truncf %[[ODDF]] : tensor<16xf32> to tensor<16xbf16>
// CHECK: tt.return %[[WIDE]], %[[BF16]]
tt.func public @convert(%p: !tt.ptr<f8E4M3FN>, %x: tensor<16xf32>, %d: tensor<16xf64>) -> (tensor<16xf32>, tensor<16xbf16>) {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %s = tt.splat %p : !tt.ptr<f8E4M3FN> -> tensor<16x!tt.ptr<f8E4M3FN>>
  %ptrs = tt.addptr %s, %r : tensor<16x!tt.ptr<f8E4M3FN>>, tensor<16xi32>
  %y = tt.fp_to_fp %x, rounding = rtz : tensor<16xf32> -> tensor<16xf8E4M3FN>
  tt.store %ptrs, %y : tensor<16x!tt.ptr<f8E4M3FN>>
  %l = tt.load %ptrs : tensor<16x!tt.ptr<f8E4M3FN>>
  %w = tt.fp_to_fp %l : tensor<16xf8E4M3FN> -> tensor<16xf32>
  %b = arith.truncf %d : tensor<16xf64> to tensor<16xbf16>
  tt.return %w, %b : tensor<16xf32>, tensor<16xbf16>
}

// Arithmetic runs on the operands widened to f32 and rounds back to f8E5M2
// (overflow to infinity, 0x7c); comparisons compare the widened values.
// Constants become their bytes (1.5 is 0x3e).
// CHECK-LABEL: tt.func public @arith(
// CHECK-SAME: tensor<16xi8>, %{{.*}}: tensor<16xi8>) -> (tensor<16xi8>, tensor<16xi1>)
// CHECK: %[[C:.*]] = arith.constant dense<62> : tensor<16xi8>
// CHECK: %[[A:.*]] = arith.bitcast %{{.*}} : tensor<16xi32> to tensor<16xf32>
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : tensor<16xi32> to tensor<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[A]], %[[B]] : tensor<16xf32>
// CHECK: arith.bitcast %[[SUM]] : tensor<16xf32> to tensor<16xi32>
// CHECK: arith.constant dense<124> : tensor<16xi32>
// CHECK: arith.extui %[[C]] : tensor<16xi8> to tensor<16xi32>
// CHECK: %[[PROD:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<16xf32>
// CHECK: %[[LT:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : tensor<16xf32>
// CHECK: tt.return %{{.*}}, %[[LT]] : tensor<16xi8>, tensor<16xi1>
tt.func public @arith(%a: tensor<16xf8E5M2>, %b: tensor<16xf8E5M2>) -> (tensor<16xf8E5M2>, tensor<16xi1>) {
  %c = arith.constant dense<1.5> : tensor<16xf8E5M2>
  %s = arith.addf %a, %b : tensor<16xf8E5M2>
  %m = arith.mulf %s, %c : tensor<16xf8E5M2>
  %lt = arith.cmpf olt, %a, %b : tensor<16xf8E5M2>
  tt.return %m, %lt : tensor<16xf8E5M2>, tensor<16xi1>
}

// tt.dot multiplies the operands decoded to f32.
// CHECK-LABEL: tt.func public @dot(
// CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x8xf32> * tensor<8x32xf32> -> tensor<16x32xf32>
// LINALG-LABEL: func.func @dot(
// LINALG: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x32xf32>)
tt.func public @dot(%a: tensor<16x8xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %d = tt.dot %a, %b, %c : tensor<16x8xf8E4M3FN> * tensor<8x32xf8E4M3FN> -> tensor<16x32xf32>
  tt.return %d : tensor<16x32xf32>
}

// Integers wider than 24 bits -> bf16 round once: to odd at 24 bits in the
// integer domain (exact in f32), then to nearest even in bf16. LLVM would go
// through f32 rounding twice. Narrower integers and other targets stay.
// CHECK-LABEL: tt.func public @int_to_bf16(
// CHECK: math.ctlz %{{.*}} : tensor<16xi32>
// CHECK: arith.uitofp %{{.*}} : tensor<16xi32> to tensor<16xf32>
// CHECK: %[[A:.*]] = arith.truncf %{{.*}} : tensor<16xf32> to tensor<16xbf16>
// CHECK: math.ctlz %{{.*}} : tensor<16xi64>
// CHECK: arith.uitofp %{{.*}} : tensor<16xi64> to tensor<16xf32>
// CHECK: %[[B:.*]] = arith.truncf %{{.*}} : tensor<16xf32> to tensor<16xbf16>
// CHECK: %[[C:.*]] = arith.sitofp %{{.*}} : tensor<16xi16> to tensor<16xbf16>
// CHECK: %[[D:.*]] = arith.sitofp %{{.*}} : tensor<16xi64> to tensor<16xf32>
// CHECK: tt.return %[[A]], %[[B]], %[[C]], %[[D]]
tt.func public @int_to_bf16(%a: tensor<16xi32>, %b: tensor<16xi64>, %c: tensor<16xi16>) -> (tensor<16xbf16>, tensor<16xbf16>, tensor<16xbf16>, tensor<16xf32>) {
  %x = arith.uitofp %a : tensor<16xi32> to tensor<16xbf16>
  %y = arith.sitofp %b : tensor<16xi64> to tensor<16xbf16>
  %z = arith.sitofp %c : tensor<16xi16> to tensor<16xbf16>
  %w = arith.sitofp %b : tensor<16xi64> to tensor<16xf32>
  tt.return %x, %y, %z, %w : tensor<16xbf16>, tensor<16xbf16>, tensor<16xbf16>, tensor<16xf32>
}

// The FNUZ formats (fp8e4b8, fp8e5b16): bytes as well. Narrowing to
// f8E4M3FNUZ rounds like the others and sends overflow (above 240, 0x7f),
// infinities and NaN to its one NaN, 0x80 (-128 as i8), and a zero to +0;
// widening reads 0x80 (128 as i32) as NaN, and 0x7f as a number.
// CHECK-LABEL: tt.func public @fnuz(
// CHECK-SAME: %{{.*}}: tensor<16xi8>, %{{.*}}: tensor<16xf32>) -> (tensor<16xi8>, tensor<16xf32>)
// CHECK: arith.constant dense<127> : tensor<16xi32>
// CHECK: %[[NARROWNAN:.*]] = arith.constant dense<-128> : tensor<16xi8>
// CHECK: %[[BYTE:.*]] = arith.select %{{.*}}, %[[NARROWNAN]], %{{.*}} : tensor<16xi1>, tensor<16xi8>
// CHECK: %[[CODE:.*]] = arith.extui %{{.*}} : tensor<16xi8> to tensor<16xi32>
// Bias 8: normals rebiased by 119 << 23, subnormals mantissa * 2^-10.
// CHECK: arith.constant dense<998244352> : tensor<16xi32>
// CHECK: arith.constant dense<9.765625E-4> : tensor<16xf32>
// CHECK: %[[WIDENAN:.*]] = arith.constant dense<128> : tensor<16xi32>
// CHECK: %[[ISNAN:.*]] = arith.cmpi eq, %[[CODE]], %[[WIDENAN]] : tensor<16xi32>
// CHECK: %[[WIDE:.*]] = arith.select %[[ISNAN]]
// CHECK: %[[F32:.*]] = arith.bitcast %[[WIDE]] : tensor<16xi32> to tensor<16xf32>
// CHECK: tt.return %[[BYTE]], %[[F32]]
tt.func public @fnuz(%x: tensor<16xf8E4M3FNUZ>, %y: tensor<16xf32>) -> (tensor<16xf8E4M3FNUZ>, tensor<16xf32>) {
  %n = tt.fp_to_fp %y, rounding = rtne : tensor<16xf32> -> tensor<16xf8E4M3FNUZ>
  %w = tt.fp_to_fp %x : tensor<16xf8E4M3FNUZ> -> tensor<16xf32>
  tt.return %n, %w : tensor<16xf8E4M3FNUZ>, tensor<16xf32>
}
