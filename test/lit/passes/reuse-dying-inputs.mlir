// RUN: spine-triton-opt --spine-reuse-dying-inputs %s | FileCheck %s

#map = affine_map<(d0) -> (d0)>

// `acc + x` in a loop: the accumulator is used only here, so the sum is
// written over it (bufferization then updates one buffer in place).
// CHECK-LABEL: func.func @accumulate
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: linalg.generic {{.*}} ins(%[[ACC]], %{{.*}} : tensor<64xf32>, tensor<64xf32>) outs(%[[ACC]] : tensor<64xf32>)
func.func @accumulate(%x: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) {
    %e = tensor.empty() : tensor<64xf32>
    %s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%acc, %x : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %v = arith.addf %a, %b : f32
      linalg.yield %v : f32
    } -> tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// Kept on tensor.empty: an input used again later, a constant, an input of
// another type.
// CHECK-LABEL: func.func @kept
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<64xf32>)
func.func @kept(%x: tensor<64xf32>, %i: tensor<64xi32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %cst = arith.constant dense<1.0> : tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.negf %v : f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%cst : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.negf %v : f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%i : tensor<64xi32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: i32, %o: f32):
    %w = arith.sitofp %v : i32 to f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  return %a, %b, %c, %x : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// A load's view of kernel memory (a descriptor cast to a memref) is neither
// reused nor kept as an init elementwise-to-linalg chose: the result gets a
// tensor.empty of its own. A load's copy (a buffer it allocated) is reused.
// CHECK-LABEL: func.func @views
// CHECK: %[[VIEW:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<64xf32>
// CHECK: %[[COPY:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<64xf32>
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<64xf32>
// CHECK: linalg.generic {{.*}} ins(%[[VIEW]] : tensor<64xf32>) outs(%[[E1]] : tensor<64xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<64xf32>
// CHECK: linalg.generic {{.*}} ins(%[[VIEW]] : tensor<64xf32>) outs(%[[E2]] : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[COPY]] : tensor<64xf32>) outs(%[[COPY]] : tensor<64xf32>)
func.func @views(%desc: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %m = builtin.unrealized_conversion_cast %desc : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<64xf32>
  %view = bufferization.to_tensor %m restrict : memref<64xf32> to tensor<64xf32>
  %buf = memref.alloc() : memref<64xf32>
  %copy = bufferization.to_tensor %buf restrict : memref<64xf32> to tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%view : tensor<64xf32>) outs(%view : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.negf %v : f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%view : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.negf %v : f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%copy : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = arith.negf %v : f32
    linalg.yield %w : f32
  } -> tensor<64xf32>
  return %a, %b, %c : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// A splat constant an scf.if yields becomes a filled tensor.empty, so the
// if's result is writable like the other branch's.
// CHECK-LABEL: func.func @yielded_constant
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<64xf32>
// CHECK-NEXT: %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<64xf32>)
// CHECK-NEXT: scf.yield %[[F]]
func.func @yielded_constant(%c: i1, %x: tensor<64xf32>) -> tensor<64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = scf.if %c -> (tensor<64xf32>) {
    scf.yield %x : tensor<64xf32>
  } else {
    scf.yield %zero : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// An accumulator updated differently in the two branches of an `if` dies at
// each update: at most one runs. Across a loop between the value and the
// `if` both branches run, one per iteration, and the value stays intact.
// CHECK-LABEL: func.func @branches
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: scf.if
// CHECK: linalg.generic {{.*}} outs(%[[ACC]] : tensor<64xf32>)
// CHECK: } else {
// CHECK: linalg.generic {{.*}} outs(%[[ACC]] : tensor<64xf32>)
// CHECK: scf.for
// CHECK: scf.if
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<64xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E1]] : tensor<64xf32>)
// CHECK: } else {
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<64xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E2]] : tensor<64xf32>)
func.func @branches(%x: tensor<64xf32>, %c: i1, %n: index) -> (tensor<64xf32>, tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) {
    %s = scf.if %c -> (tensor<64xf32>) {
      %e = tensor.empty() : tensor<64xf32>
      %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
          ins(%acc, %x : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
      ^bb0(%u: f32, %v: f32, %o: f32):
        %w = arith.addf %u, %v : f32
        linalg.yield %w : f32
      } -> tensor<64xf32>
      scf.yield %a : tensor<64xf32>
    } else {
      %e = tensor.empty() : tensor<64xf32>
      %b = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
          ins(%acc, %x : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
      ^bb0(%u: f32, %v: f32, %o: f32):
        %w = arith.subf %u, %v : f32
        linalg.yield %w : f32
      } -> tensor<64xf32>
      scf.yield %b : tensor<64xf32>
    }
    scf.yield %s : tensor<64xf32>
  }
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %zero) -> (tensor<64xf32>) {
    %s = scf.if %c -> (tensor<64xf32>) {
      %e = tensor.empty() : tensor<64xf32>
      %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
          ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
      ^bb0(%v: f32, %o: f32):
        %w = arith.negf %v : f32
        linalg.yield %w : f32
      } -> tensor<64xf32>
      scf.yield %a : tensor<64xf32>
    } else {
      %e = tensor.empty() : tensor<64xf32>
      %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
          ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
      ^bb0(%v: f32, %o: f32):
        %w = math.absf %v : f32
        linalg.yield %w : f32
      } -> tensor<64xf32>
      scf.yield %b : tensor<64xf32>
    }
    scf.yield %s : tensor<64xf32>
  }
  return %r, %t : tensor<64xf32>, tensor<64xf32>
}
