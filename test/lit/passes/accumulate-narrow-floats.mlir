// RUN: spine-triton-opt --spine-accumulate-narrow-floats %s | FileCheck %s

// A bf16 sum: the operand is extended, the combine adds f32, the result is
// rounded back once.
// CHECK-LABEL: tt.func @sum_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<1024xbf16>)
// CHECK: %[[W:.*]] = arith.extf %[[X]] : tensor<1024xbf16> to tensor<1024xf32>
// CHECK: %[[S:.*]] = "tt.reduce"(%[[W]]) <{axis = 0 : i32}> ({
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK: %[[ADD:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: tt.reduce.return %[[ADD]] : f32
// CHECK: }) : (tensor<1024xf32>) -> f32
// CHECK: %[[R:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK: tt.return %[[R]] : bf16
tt.func @sum_bf16(%x: tensor<1024xbf16>) -> bf16 {
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: bf16, %b: bf16):
    %c = arith.addf %a, %b : bf16
    tt.reduce.return %c : bf16
  }) : (tensor<1024xbf16>) -> bf16
  tt.return %s : bf16
}

// A reversed fp16 cumprod along rows keeps its attributes; an f16 constant in
// the combine becomes f32, and the conversions of a combine that widens by
// itself are no-ops.
// CHECK-LABEL: tt.func @cumprod_f16
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : tensor<4x256xf16> to tensor<4x256xf32>
// CHECK: %[[S:.*]] = "tt.scan"(%[[W]]) <{axis = 1 : i32, reverse = true}> ({
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK: %[[K:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK: %[[N:.*]] = arith.mulf %[[M]], %[[K]] : f32
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: tt.scan.return %[[N]] : f32
// CHECK: }) : (tensor<4x256xf32>) -> tensor<4x256xf32>
// CHECK: arith.truncf %[[S]] : tensor<4x256xf32> to tensor<4x256xf16>
tt.func @cumprod_f16(%x: tensor<4x256xf16>) -> tensor<4x256xf16> {
  %s = "tt.scan"(%x) <{axis = 1 : i32, reverse = true}> ({
  ^bb0(%a: f16, %b: f16):
    %one = arith.constant 1.000000e+00 : f16
    %aw = arith.extf %a : f16 to f32
    %bw = arith.extf %b : f16 to f32
    %p = arith.mulf %aw, %bw : f32
    %pn = arith.truncf %p : f32 to f16
    %q = arith.mulf %pn, %one : f16
    tt.scan.return %q : f16
  }) : (tensor<4x256xf16>) -> tensor<4x256xf16>
  tt.return %s : tensor<4x256xf16>
}

// A sum carrying an integer operand beside the narrow one: only the narrow
// operand and result change.
// CHECK-LABEL: tt.func @sum_and_count
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : tensor<128xbf16> to tensor<128xf32>
// CHECK: %[[S:.*]]:2 = "tt.reduce"(%[[W]], %{{.*}}) <{axis = 0 : i32}> ({
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.addi %{{.*}} : i32
// CHECK: }) : (tensor<128xf32>, tensor<128xi32>) -> (f32, i32)
// CHECK: %[[R:.*]] = arith.truncf %[[S]]#0 : f32 to bf16
// CHECK: tt.return %[[R]], %[[S]]#1 : bf16, i32
tt.func @sum_and_count(%x: tensor<128xbf16>, %n: tensor<128xi32>) -> (bf16, i32) {
  %s:2 = "tt.reduce"(%x, %n) <{axis = 0 : i32}> ({
  ^bb0(%a: bf16, %an: i32, %b: bf16, %bn: i32):
    %c = arith.addf %a, %b : bf16
    %cn = arith.addi %an, %bn : i32
    tt.reduce.return %c, %cn : bf16, i32
  }) : (tensor<128xbf16>, tensor<128xi32>) -> (bf16, i32)
  tt.return %s#0, %s#1 : bf16, i32
}

// Left alone: maxima (exact in any type), an argmax's compare and select, f32
// sums, and a combine with an op that cannot be retyped.
// CHECK-LABEL: tt.func @kept
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: tt.return
tt.func @kept(%x: tensor<128xbf16>, %i: tensor<128xi32>, %y: tensor<128xf32>) -> (bf16, bf16, i32, f32, bf16) {
  %m = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: bf16, %b: bf16):
    %c = arith.maxnumf %a, %b : bf16
    tt.reduce.return %c : bf16
  }) : (tensor<128xbf16>) -> bf16
  %am:2 = "tt.reduce"(%x, %i) <{axis = 0 : i32}> ({
  ^bb0(%a: bf16, %ai: i32, %b: bf16, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : bf16
    %v = arith.select %gt, %a, %b : bf16
    %vi = arith.select %gt, %ai, %bi : i32
    tt.reduce.return %v, %vi : bf16, i32
  }) : (tensor<128xbf16>, tensor<128xi32>) -> (bf16, i32)
  %s = "tt.reduce"(%y) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tt.reduce.return %c : f32
  }) : (tensor<128xf32>) -> f32
  %o = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: bf16, %b: bf16):
    %ab = arith.bitcast %a : bf16 to i16
    %bb = arith.bitcast %b : bf16 to i16
    %c = arith.ori %ab, %bb : i16
    %cf = arith.bitcast %c : i16 to bf16
    %d = arith.addf %cf, %a : bf16
    tt.reduce.return %d : bf16
  }) : (tensor<128xbf16>) -> bf16
  tt.return %m, %am#0, %am#1, %s, %o : bf16, bf16, i32, f32, bf16
}

// An fp16 dot into an fp16 accumulator multiplies into f32, rounded after the
// dot; a dot into f32 is unchanged.
// CHECK-LABEL: tt.func @dots
// CHECK-SAME: (%[[A:.*]]: tensor<32x16xf16>, %[[B:.*]]: tensor<16x32xf16>, %[[C:.*]]: tensor<32x32xf16>, %[[D:.*]]: tensor<32x32xf32>)
// CHECK: %[[CW:.*]] = arith.extf %[[C]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK: %[[P:.*]] = tt.dot %[[A]], %[[B]], %[[CW]] : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
// CHECK: %[[R:.*]] = arith.truncf %[[P]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: %[[Q:.*]] = tt.dot %[[A]], %[[B]], %[[D]] : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
// CHECK: tt.return %[[R]], %[[Q]]
tt.func @dots(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %c: tensor<32x32xf16>, %d: tensor<32x32xf32>) -> (tensor<32x32xf16>, tensor<32x32xf32>) {
  %p = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf16>
  %q = tt.dot %a, %b, %d : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  tt.return %p, %q : tensor<32x32xf16>, tensor<32x32xf32>
}

// A combine converting a value from above it (an f32 here) and a narrow one:
// the f32 one is extended to f64 as before, the narrow one to f32 where it is
// used, and the f64 sum is rounded to f32 instead of bf16.
// CHECK-LABEL: tt.func @values_from_above
// CHECK: "tt.reduce"(%{{.*}}) <{axis = 0 : i32}> ({
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK: %[[YW:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: %[[HW:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[SH:.*]] = arith.addf %[[S]], %[[HW]] : f32
// CHECK: %[[SW:.*]] = arith.extf %[[SH]] : f32 to f64
// CHECK: %[[T:.*]] = arith.addf %[[SW]], %[[YW]] : f64
// CHECK: %[[TN:.*]] = arith.truncf %[[T]] : f64 to f32
// CHECK: tt.reduce.return %[[TN]] : f32
tt.func @values_from_above(%x: tensor<64xbf16>, %y: f32, %h: bf16) -> bf16 {
  %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: bf16, %b: bf16):
    %yw = arith.extf %y : f32 to f64
    %c = arith.addf %a, %b : bf16
    %ch = arith.addf %c, %h : bf16
    %cw = arith.extf %ch : bf16 to f64
    %t = arith.addf %cw, %yw : f64
    %tn = arith.truncf %t : f64 to bf16
    tt.reduce.return %tn : bf16
  }) : (tensor<64xbf16>) -> bf16
  tt.return %s : bf16
}
