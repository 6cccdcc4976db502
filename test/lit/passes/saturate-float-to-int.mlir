// RUN: spine-triton-opt --spine-saturate-float-to-int %s | FileCheck %s

// f32 -> i32: the truncation, then INT_MAX from 2^31 up, INT_MIN below -2^31,
// 0 for NaN.
// CHECK-LABEL: tt.func @signed_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<64xf32>)
// CHECK: %[[T:.*]] = arith.fptosi %[[X]] : tensor<64xf32> to tensor<64xi32>
// CHECK: %[[MAX:.*]] = arith.constant dense<2147483647> : tensor<64xi32>
// CHECK: %[[ABOVE:.*]] = arith.constant dense<2.14748365E+9> : tensor<64xf32>
// CHECK: %[[HI:.*]] = arith.cmpf oge, %[[X]], %[[ABOVE]]
// CHECK: %[[R1:.*]] = arith.select %[[HI]], %[[MAX]], %[[T]]
// CHECK: %[[MIN:.*]] = arith.constant dense<-2147483648> : tensor<64xi32>
// CHECK: %[[BELOW:.*]] = arith.constant dense<-2.14748365E+9> : tensor<64xf32>
// CHECK: %[[LO:.*]] = arith.cmpf olt, %[[X]], %[[BELOW]]
// CHECK: %[[R2:.*]] = arith.select %[[LO]], %[[MIN]], %[[R1]]
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : tensor<64xi32>
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK: %[[R3:.*]] = arith.select %[[NAN]], %[[ZERO]], %[[R2]]
// CHECK: tt.return %[[R3]]
tt.func @signed_tensor(%x: tensor<64xf32>) -> tensor<64xi32> {
  %r = arith.fptosi %x : tensor<64xf32> to tensor<64xi32>
  tt.return %r : tensor<64xi32>
}

// f16 -> u8: compared and converted in f32; 255 from 256 up, 0 below 0.
// CHECK-LABEL: tt.func @unsigned_half
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : tensor<8xf16> to tensor<8xf32>
// CHECK: %[[T:.*]] = arith.fptoui %[[W]] : tensor<8xf32> to tensor<8xi8>
// CHECK: arith.cmpf oge, %[[W]], %{{.*}} : tensor<8xf32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[T]] : tensor<8xi1>, tensor<8xi8>
// CHECK: arith.cmpf olt, %[[W]], %{{.*}} : tensor<8xf32>
// CHECK: arith.cmpf uno, %[[W]], %[[W]] : tensor<8xf32>
// CHECK-NOT: arith.fptoui
tt.func @unsigned_half(%x: tensor<8xf16>) -> tensor<8xi8> {
  %r = arith.fptoui %x : tensor<8xf16> to tensor<8xi8>
  tt.return %r : tensor<8xi8>
}

// Scalars too; u64's maximum is all ones, and 2^64 is its bound.
// CHECK-LABEL: tt.func @unsigned_scalar
// CHECK: arith.fptoui %{{.*}} : f64 to i64
// CHECK: arith.constant -1 : i64
// CHECK: arith.constant 1.8446744073709552E+19 : f64
tt.func @unsigned_scalar(%x: f64) -> i64 {
  %r = arith.fptoui %x : f64 to i64
  tt.return %r : i64
}
