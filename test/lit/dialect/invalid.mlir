// Verifier diagnostics of the tt dialect: one malformed op per split, each
// rejected with its own message.
// RUN: spine-triton-opt %s -split-input-file -verify-diagnostics

tt.func @make_range_empty() {
  // expected-error @+1 {{end (4) must be greater than start (8)}}
  %0 = tt.make_range {end = 4 : i32, start = 8 : i32} : tensor<4xi32>
  tt.return
}

// -----

tt.func @make_range_length() {
  // expected-error @+1 {{result has 8 elements but the range [0, 4) has 4}}
  %0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<8xi32>
  tt.return
}

// -----

tt.func @make_range_not_pow2() {
  // expected-error @+1 {{the number of elements must be a power of two}}
  %0 = tt.make_range {end = 6 : i32, start = 0 : i32} : tensor<6xi32>
  tt.return
}

// -----

tt.func @make_range_i64() {
  // expected-error @+1 {{result elements must be i32}}
  %0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi64>
  tt.return
}

// -----

tt.func @tensor_too_big(%x: f32) {
  // expected-error @+1 {{at most 1048576 are allowed}}
  %0 = tt.splat %x : f32 -> tensor<2048x1024xf32>
  tt.return
}

// -----

tt.func @dot_k_mismatch(%a: tensor<16x8xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{K dimension of a (8) does not match that of b (16)}}
  %0 = tt.dot %a, %b, %c : tensor<16x8xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func @dot_out_shape(%a: tensor<16x16xf32>, %b: tensor<16x32xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{accumulator shape does not match}}
  %0 = tt.dot %a, %b, %c : tensor<16x16xf32> * tensor<16x32xf32> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func @dot_mixed_width(%a: tensor<16x16xf16>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{must have the same width}}
  %0 = tt.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xf32> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func @dot_int_float(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{does not suit 'i8' operands}}
  %0 = tt.dot %a, %b, %c : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func @dot_rank(%a: tensor<16xf32>, %b: tensor<16xf32>, %c: tensor<16xf32>) {
  // expected-error @+1 {{operands must be 2-D or 3-D}}
  %0 = tt.dot %a, %b, %c : tensor<16xf32> * tensor<16xf32> -> tensor<16xf32>
  tt.return
}

// -----

tt.func @dot_batch(%a: tensor<2x16x16xf32>, %b: tensor<4x16x16xf32>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{batch dimensions}}
  %0 = tt.dot %a, %b, %c : tensor<2x16x16xf32> * tensor<4x16x16xf32> -> tensor<2x16x16xf32>
  tt.return
}

// -----

tt.func @addptr_shape(%p: tensor<4x!tt.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape}}
  %0 = tt.addptr %p, %o : tensor<4x!tt.ptr<f32>>, tensor<8xi32>
  tt.return
}

// -----

tt.func @load_mask_shape(%p: tensor<4x!tt.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{mask type matches ptr type}}
  %0 = "tt.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!tt.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @load_other_without_mask(%p: tensor<4x!tt.ptr<i1>>, %o: tensor<4xi1>) {
  // expected-error @+1 {{an 'other' value needs a mask}}
  %0 = "tt.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x!tt.ptr<i1>>, tensor<4xi1>) -> tensor<4xi1>
  tt.return
}

// -----

tt.func @load_store_cache_modifier(%p: tensor<4x!tt.ptr<f32>>) {
  // expected-error @+1 {{cache modifier 'wb' is not valid for a load}}
  %0 = tt.load %p {cachePolicy = #tt.cache_policy<cache_modifier = wb, eviction_policy = evict_normal>} : tensor<4x!tt.ptr<f32>>
  tt.return
}

// -----

tt.func @store_value_shape(%p: tensor<4x!tt.ptr<f32>>, %v: tensor<8xf32>) {
  // expected-error @+1 {{value type matches ptr type}}
  "tt.store"(%p, %v) : (tensor<4x!tt.ptr<f32>>, tensor<8xf32>) -> ()
  tt.return
}

// -----

tt.func @store_cache_modifier(%p: !tt.ptr<f32>, %v: f32) {
  // expected-error @+1 {{cache modifier 'ca' is not valid for a store}}
  tt.store %p, %v {cachePolicy = #tt.cache_policy<cache_modifier = ca, eviction_policy = evict_normal>} : !tt.ptr<f32>
  tt.return
}

// -----

tt.func @expand_dims_axis(%x: tensor<4xf32>) {
  // expected-error @+2 {{axis 2 is out of range [0, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tt.expand_dims %x {axis = 2 : i32} : tensor<4xf32> -> tensor<4x1x1xf32>
  tt.return
}

// -----

tt.func @expand_dims_result(%x: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tt.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  tt.return
}

// -----

tt.func @broadcast_non_unit(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{dimension 0 of size 2 cannot broadcast to 4}}
  %0 = tt.broadcast %x : tensor<2x4xf32> -> tensor<4x4xf32>
  tt.return
}

// -----

tt.func @broadcast_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{source rank 1 differs from result rank 2}}
  %0 = tt.broadcast %x : tensor<4xf32> -> tensor<4x4xf32>
  tt.return
}

// -----

tt.func @reshape_count(%x: tensor<16xf32>) {
  // expected-error @+1 {{cannot reshape}}
  %0 = tt.reshape %x : tensor<16xf32> -> tensor<4x8xf32>
  tt.return
}

// -----

tt.func @trans_order(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order must be a permutation of [0, 2)}}
  %0 = tt.trans %x {order = array<i32: 0, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  tt.return
}

// -----

tt.func @trans_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape must be the source shape permuted by the order, i.e. 'tensor<8x4xf32>'}}
  %0 = tt.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  tt.return
}

// -----

tt.func @join_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{result must be 'tensor<4x2xf32>'}}
  %0 = tt.join %x, %x : tensor<4xf32> -> tensor<2x4xf32>
  tt.return
}

// -----

tt.func @split_last_dim(%x: tensor<4x4xf32>) {
  // expected-error @+2 {{the last dimension of 'tensor<4x4xf32>' must have size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = tt.split %x : tensor<4x4xf32> -> tensor<4xf32>
  tt.return
}

// -----

tt.func @cat_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{result must hold the 8 elements}}
  %0 = tt.cat %x, %x : tensor<4xf32> -> tensor<16xf32>
  tt.return
}

// -----

tt.func @unsplat_many(%x: tensor<4xf32>) {
  // expected-error @+1 {{source must have exactly one element}}
  %0 = tt.unsplat %x : tensor<4xf32>
  tt.return
}

// -----

tt.func @reduce_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{axis 1 is out of range}}
  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<4xf32>) -> f32
  tt.return
}

// -----

tt.func @reduce_region_args(%x: tensor<4xf32>) {
  // expected-error @+1 {{combine region must take 2 arguments, takes 3}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<4xf32>) -> f32
  tt.return
}

// -----

tt.func @reduce_region_arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{combine region argument #1 must be 'f32', is 'f16'}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f16):
    tt.reduce.return %a : f32
  }) : (tensor<4xf32>) -> f32
  tt.return
}

// -----

tt.func @reduce_return_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{combine region must return 1 values of the operand element types}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 0 : i32
    tt.reduce.return %c : i32
  }) : (tensor<4xf32>) -> f32
  tt.return
}

// -----

tt.func @reduce_result_type(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{inferred type(s)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }) : (tensor<4x8xf32>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @scan_region(%x: tensor<4xf32>) {
  // expected-error @+1 {{combine region must end with tt.scan.return}}
  %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    llvm.unreachable
  }) : (tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @bitcast_width(%x: f32) {
  // expected-error @+1 {{cannot bitcast a 32-bit type to a 16-bit type}}
  %0 = tt.bitcast %x : f32 -> f16
  tt.return
}

// -----

tt.func @bitcast_ptr_int(%x: !tt.ptr<f32>) {
  // expected-error @+1 {{cannot bitcast between a pointer and a non-pointer}}
  %0 = tt.bitcast %x : !tt.ptr<f32> -> i64
  tt.return
}

// -----

tt.func @fp_to_fp_rounding(%x: f32) {
  // expected-error @+1 {{needs a rounding mode}}
  %0 = tt.fp_to_fp %x : f32 -> f16
  tt.return
}

// -----

tt.func @call_arity(%x: i32) {
  // expected-error @+1 {{passes 1 operands to @callee, which takes 2}}
  tt.call @callee(%x) : (i32) -> ()
  tt.return
}
tt.func @callee(%a: i32, %b: i32) {
  tt.return
}

// -----

tt.func @call_missing(%x: i32) {
  // expected-error @+1 {{'nope' does not name a tt.func}}
  tt.call @nope(%x) : (i32) -> ()
  tt.return
}

// -----

tt.func @return_type(%x: i32) -> f32 {
  // expected-error @+1 {{value #0 has type 'i32' but @return_type returns 'f32'}}
  tt.return %x : i32
}

// -----

tt.func @atomic_load_release(%p: !tt.ptr<i32>) {
  // expected-error @+1 {{an atomic load is relaxed or acquire, not release}}
  %0 = tt.atomic_load release, gpu, %p : (!tt.ptr<i32>) -> i32
  tt.return
}

// -----

tt.func @desc_indices(%d: !tt.tensordesc<16x32xf32>, %i: i32) {
  // expected-error @+1 {{expects 2 indices}}
  %0 = tt.descriptor_load %d[%i] : !tt.tensordesc<16x32xf32> -> tensor<16x32xf32>
  tt.return
}

// -----

tt.func @desc_elements(%d: !tt.tensordesc<16x32xf32>, %i: i32) {
  // expected-error @+1 {{does not hold the 512 elements of a descriptor block}}
  %0 = tt.descriptor_load %d[%i, %i] : !tt.tensordesc<16x32xf32> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func @desc_elem_type(%d: !tt.tensordesc<16x32xf32>, %i: i32, %v: tensor<16x32xf16>) {
  // expected-error @+1 {{tensor element type 'f16' does not match the descriptor element type 'f32'}}
  tt.descriptor_store %d[%i, %i], %v : !tt.tensordesc<16x32xf32>, tensor<16x32xf16>
  tt.return
}

// -----

tt.func @desc_reduce_kind(%d: !tt.tensordesc<16x32xf32>, %i: i32, %v: tensor<16x32xf32>) {
  // expected-error @+1 {{reduction 'xor' needs integer elements}}
  tt.descriptor_reduce xor, %d[%i, %i], %v : !tt.tensordesc<16x32xf32>, tensor<16x32xf32>
  tt.return
}

// -----

tt.func @desc_gather_rows(%d: !tt.tensordesc<2x32xf32>, %x: tensor<8xi32>, %y: i32) {
  // expected-error @+1 {{descriptor block must be 1 x C}}
  %0 = tt.descriptor_gather %d[%x, %y] : (!tt.tensordesc<2x32xf32>, tensor<8xi32>, i32) -> tensor<8x32xf32>
  tt.return
}

// -----

tt.func @gather_dims(%x: tensor<4x8xf32>, %i: tensor<2x4xi32>) {
  // expected-error @+1 {{indices dimension 1 (4) must match the source dimension (8)}}
  %0 = tt.gather %x[%i] {axis = 0 : i32} : (tensor<4x8xf32>, tensor<2x4xi32>) -> tensor<2x4xf32>
  tt.return
}

// -----

// expected-error @+1 {{pointers may only point to scalar types}}
tt.func @ptr_to_tensor(%p: !tt.ptr<tensor<4xf32>>) {
  tt.return
}

// -----

// expected-error @+1 {{unknown pointer address space}}
tt.func @ptr_addrspace(%p: !tt.ptr<f32, 7>) {
  tt.return
}

// -----

// expected-error @+1 {{tensor descriptor block dimensions must be positive}}
tt.func @desc_zero(%d: !tt.tensordesc<0x4xf32>) {
  tt.return
}

// -----

tt.func @encoding_mismatch(%p: tensor<4x!tt.ptr<f32>, "a">, %o: tensor<4xi32, "b">) {
  // expected-error @+1 {{requires the same encoding for all operands}}
  %0 = tt.addptr %p, %o : tensor<4x!tt.ptr<f32>, "a">, tensor<4xi32, "b">
  tt.return
}

// -----

tt.func @inline_asm_pack(%x: tensor<6xf32>) {
  // expected-error @+1 {{the number of elements must be a power of two}}
  %0 = tt.elementwise_inline_asm "" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %x : tensor<6xf32> -> tensor<6xf32>
  tt.return
}

// -----

tt.func @inline_asm_pack2(%x: tensor<2xf32>) {
  // expected-error @+1 {{does not split into groups of 4 elements}}
  %0 = tt.elementwise_inline_asm "" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %x : tensor<2xf32> -> tensor<2xf32>
  tt.return
}

// -----

tt.func @map_elementwise_args(%x: tensor<4xf32>) {
  // expected-error @+1 {{body arguments must be the operand element types}}
  %0 = "tt.map_elementwise"(%x) <{pack = 2 : i32}> ({
  ^bb0(%a: f32):
    tt.map_elementwise.return %a : f32
  }) : (tensor<4xf32>) -> tensor<4xf32>
  tt.return
}

// -----

tt.func @dot_scaled_scale(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x16xf8E4M3FN>, %c: tensor<16x16xf32>, %s: tensor<16x4xi8>) {
  // expected-error @+1 {{scale block size must be 16 or 32, got 8}}
  %0 = tt.dot_scaled %a scale %s, %b, %c lhs = e4m3 rhs = e4m3 {fastMath = false} : tensor<16x32xf8E4M3FN>, tensor<16x4xi8> * tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
  tt.return
}

// -----

tt.func @barrier_unknown_space() {
  // expected-error @+1 {{unknown address space 'everything' of ttg.barrier}}
  ttg.barrier local|everything
  tt.return
}

// -----

tt.func @barrier_unknown_space_generic() {
  // expected-error @+1 {{'ttg.barrier' op unknown address space 'sideways'}}
  "ttg.barrier"() <{addrSpace = "local|sideways"}> : () -> ()
  tt.return
}
