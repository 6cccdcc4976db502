// RUN: spine-triton-opt --spine-half-floats-as-bits %s | FileCheck %s

// Loads, stores, selects, shuffles and the masked memory intrinsics of bf16 and f16
// values move i16; bitcasts connect them to the float values around them.
// x86 without AVX512-BF16 would lower each bf16 op through f32 and one
// __truncsfbf2 call per lane.

// CHECK-LABEL: llvm.func @tile_row
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : vector<32xbf16>
// CHECK: %[[PASS:.*]] = llvm.bitcast %[[ZERO]] : vector<32xbf16> to vector<32xi16>
// CHECK: %[[ROW:.*]] = llvm.intr.masked.load %{{.*}}, %{{.*}}, %[[PASS]] {alignment = 2 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xi16>) -> vector<32xi16>
// CHECK: %[[ZERO_BITS:.*]] = llvm.bitcast %[[ZERO]] : vector<32xbf16> to vector<32xi16>
// CHECK: %[[PICKED:.*]] = llvm.select %{{.*}}, %[[ROW]], %[[ZERO_BITS]] : vector<32xi1>, vector<32xi16>
// CHECK: llvm.store %[[PICKED]], %{{.*}} {alignment = 64 : i64} : vector<32xi16>, !llvm.ptr
llvm.func @tile_row(%p: !llvm.ptr, %q: !llvm.ptr, %mask: vector<32xi1>) {
  %zero = llvm.mlir.zero : vector<32xbf16>
  %row = llvm.intr.masked.load %p, %mask, %zero {alignment = 2 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xbf16>) -> vector<32xbf16>
  %picked = llvm.select %mask, %row, %zero : vector<32xi1>, vector<32xbf16>
  llvm.store %picked, %q {alignment = 64 : i64} : vector<32xbf16>, !llvm.ptr
  llvm.return
}

// Arithmetic keeps its float type: a loaded f16 vector is widened to f32
// from the bits, a scalar f16 is stored as i16; f32 is left alone.
// CHECK-LABEL: llvm.func @widen
// CHECK: %[[H:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xi16>
// CHECK: %[[AS_F16:.*]] = llvm.bitcast %[[H]] : vector<8xi16> to vector<8xf16>
// CHECK: %[[W:.*]] = llvm.fpext %[[AS_F16]] : vector<8xf16> to vector<8xf32>
// CHECK: llvm.store %[[W]], %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK: %[[S:.*]] = llvm.bitcast %{{.*}} : f16 to i16
// CHECK: llvm.store %[[S]], %{{.*}} : i16, !llvm.ptr
llvm.func @widen(%p: !llvm.ptr, %q: !llvm.ptr, %s: f16) {
  %h = llvm.load %p : !llvm.ptr -> vector<8xf16>
  %w = llvm.fpext %h : vector<8xf16> to vector<8xf32>
  llvm.store %w, %q : vector<8xf32>, !llvm.ptr
  llvm.store %s, %q : f16, !llvm.ptr
  llvm.return
}

// Gathers and scatters too.
// CHECK-LABEL: llvm.func @gather_scatter
// CHECK: llvm.intr.masked.gather %{{.*}}, %{{.*}}, %{{.*}} {alignment = 2 : i32} : (vector<8x!llvm.ptr>, vector<8xi1>, vector<8xi16>) -> vector<8xi16>
// CHECK: llvm.intr.masked.scatter %{{.*}}, %{{.*}}, %{{.*}} {alignment = 2 : i32} : vector<8xi16>, vector<8xi1> into vector<8x!llvm.ptr>
llvm.func @gather_scatter(%ptrs: vector<8x!llvm.ptr>, %mask: vector<8xi1>, %pass: vector<8xbf16>) {
  %v = llvm.intr.masked.gather %ptrs, %mask, %pass {alignment = 2 : i32} : (vector<8x!llvm.ptr>, vector<8xi1>, vector<8xbf16>) -> vector<8xbf16>
  llvm.intr.masked.scatter %v, %ptrs, %mask {alignment = 2 : i32} : vector<8xbf16>, vector<8xi1> into vector<8x!llvm.ptr>
  llvm.return
}

// Shuffles (the blocks of a transposed tile) too.
// CHECK-LABEL: llvm.func @transpose_step
// CHECK: %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xi16>
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xi16>
// CHECK: %[[S:.*]] = llvm.shufflevector %[[A]], %[[B]] [0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30] : vector<16xi16>
// CHECK: llvm.store %[[S]], %{{.*}} : vector<16xi16>, !llvm.ptr
llvm.func @transpose_step(%p: !llvm.ptr, %q: !llvm.ptr) {
  %a = llvm.load %p : !llvm.ptr -> vector<16xbf16>
  %b = llvm.load %q : !llvm.ptr -> vector<16xbf16>
  %s = llvm.shufflevector %a, %b [0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30] : vector<16xbf16>
  llvm.store %s, %p : vector<16xbf16>, !llvm.ptr
  llvm.return
}
