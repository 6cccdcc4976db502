// RUN: spine-triton-opt --spine-tile-cache-argument %s | FileCheck %s
// RUN: spine-triton-opt --triton-to-linalg-experimental %s | FileCheck %s --check-prefix=LOWERED

// tl.dot tiles that no write of the kernel can come before are marked for
// the launch's tile cache, and their kernel takes the cache as its last
// argument before the program ids.

// CHECK-LABEL: tt.func public @matmul
// CHECK-SAME: %{{.*}}: i32, %{{.*}}: i64 {spine.tile_cache})
// CHECK: scf.for
// CHECK: tt.load %{{.*}} {spine.cached_tile}
// CHECK: tt.load %{{.*}} {spine.cached_tile}
// CHECK: tt.dot

// Lowered, each tile asks the cache (through the function pointer at its
// address, when it is not 0) and reads the cache's copy where it has one.
// LOWERED-LABEL: func.func @matmul
// LOWERED-SAME: %[[CACHE:[a-z0-9]+]]: i64 {spine.tile_cache}, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// LOWERED: scf.for
// LOWERED: %[[HAS:.*]] = arith.cmpi ne, %[[CACHE]], %{{.*}} : i64
// LOWERED: scf.if %[[HAS]] -> (i64)
// LOWERED: %[[HEADER:.*]] = llvm.inttoptr %[[CACHE]] : i64 to !llvm.ptr
// LOWERED: %[[LOOKUP:.*]] = llvm.load %[[HEADER]]
// LOWERED: llvm.call %[[LOOKUP]](%[[HEADER]],
// LOWERED: scf.if %{{.*}} -> (tensor<16x16xf32>)
// LOWERED: llvm.call
// LOWERED: linalg.matmul
tt.func public @matmul(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: !tt.ptr<f32>, %n: i32) {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rows = tt.expand_dims %range {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tt.expand_dims %range {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %nsplat = tt.splat %n : i32 -> tensor<16x1xi32>
  %rowoff = arith.muli %rows, %nsplat : tensor<16x1xi32>
  %rowb = tt.broadcast %rowoff : tensor<16x1xi32> -> tensor<16x16xi32>
  %colb = tt.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rowb, %colb : tensor<16x16xi32>
  %abase = tt.splat %a : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %bbase = tt.splat %b : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %cbase = tt.splat %c : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %aptrs = tt.addptr %abase, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %bptrs = tt.addptr %bbase, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %cptrs = tt.addptr %cbase, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %bstep = arith.muli %n, %c4 : i32
  %bstep16 = arith.muli %bstep, %c4 : i32
  %astepv = arith.constant dense<16> : tensor<16x16xi32>
  %bstepv = tt.splat %bstep16 : i32 -> tensor<16x16xi32>
  %acc:3 = scf.for %k = %c0 to %c4 step %c1 iter_args(%sum = %zero, %ap = %aptrs, %bp = %bptrs) -> (tensor<16x16xf32>, tensor<16x16x!tt.ptr<f32>>, tensor<16x16x!tt.ptr<f32>>) : i32 {
    %at = tt.load %ap : tensor<16x16x!tt.ptr<f32>>
    %bt = tt.load %bp : tensor<16x16x!tt.ptr<f32>>
    %d = tt.dot %at, %bt, %sum : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    %an = tt.addptr %ap, %astepv : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
    %bn = tt.addptr %bp, %bstepv : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
    scf.yield %d, %an, %bn : tensor<16x16xf32>, tensor<16x16x!tt.ptr<f32>>, tensor<16x16x!tt.ptr<f32>>
  }
  tt.store %cptrs, %acc#0 : tensor<16x16x!tt.ptr<f32>>
  tt.return
}

// A store in the loop comes before the next iteration's loads: a program may
// read what it wrote, so no tile is cached and the kernel takes no cache.
// CHECK-LABEL: tt.func public @stores_in_the_loop
// CHECK-SAME: (%{{.*}}: !tt.ptr<f32>, %{{.*}}: !tt.ptr<f32>)
// CHECK-NOT: spine.cached_tile
// CHECK: tt.return
tt.func public @stores_in_the_loop(%a: !tt.ptr<f32>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rows = tt.expand_dims %range {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tt.expand_dims %range {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x1xi32>
  %rowoff = arith.muli %rows, %sixteen : tensor<16x1xi32>
  %rowb = tt.broadcast %rowoff : tensor<16x1xi32> -> tensor<16x16xi32>
  %colb = tt.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rowb, %colb : tensor<16x16xi32>
  %abase = tt.splat %a : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %aptrs = tt.addptr %abase, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%sum = %zero) -> (tensor<16x16xf32>) : i32 {
    %at = tt.load %aptrs : tensor<16x16x!tt.ptr<f32>>
    %d = tt.dot %at, %at, %sum : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    tt.store %aptrs, %d : tensor<16x16x!tt.ptr<f32>>
    scf.yield %d : tensor<16x16xf32>
  }
  tt.return
}

// A tile the kernel widens before the dot is not the dot's operand: not cached.
// CHECK-LABEL: tt.func public @widened
// CHECK-SAME: (%{{.*}}: !tt.ptr<f16>, %{{.*}}: !tt.ptr<f32>)
// CHECK-NOT: spine.cached_tile
// CHECK: tt.return
tt.func public @widened(%a: !tt.ptr<f16>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rows = tt.expand_dims %range {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tt.expand_dims %range {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x1xi32>
  %rowoff = arith.muli %rows, %sixteen : tensor<16x1xi32>
  %rowb = tt.broadcast %rowoff : tensor<16x1xi32> -> tensor<16x16xi32>
  %colb = tt.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rowb, %colb : tensor<16x16xi32>
  %abase = tt.splat %a : !tt.ptr<f16> -> tensor<16x16x!tt.ptr<f16>>
  %aptrs = tt.addptr %abase, %offs : tensor<16x16x!tt.ptr<f16>>, tensor<16x16xi32>
  %cbase = tt.splat %c : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %cptrs = tt.addptr %cbase, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %at = tt.load %aptrs : tensor<16x16x!tt.ptr<f16>>
  %wide = arith.extf %at : tensor<16x16xf16> to tensor<16x16xf32>
  %d = tt.dot %wide, %wide, %zero : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  tt.store %cptrs, %d : tensor<16x16x!tt.ptr<f32>>
  tt.return
}

// fp16 tiles a dot multiplies into fp32 are cached as loaded (the
// micro-kernel widens the cache's copy as it widens its own).
// CHECK-LABEL: tt.func public @half_tiles
// CHECK-SAME: %{{.*}}: i64 {spine.tile_cache})
// CHECK: tt.load %{{.*}} {spine.cached_tile} : tensor<16x16x!tt.ptr<f16>>
tt.func public @half_tiles(%a: !tt.ptr<f16>, %c: !tt.ptr<f32>) {
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %rows = tt.expand_dims %range {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tt.expand_dims %range {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x1xi32>
  %rowoff = arith.muli %rows, %sixteen : tensor<16x1xi32>
  %rowb = tt.broadcast %rowoff : tensor<16x1xi32> -> tensor<16x16xi32>
  %colb = tt.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rowb, %colb : tensor<16x16xi32>
  %abase = tt.splat %a : !tt.ptr<f16> -> tensor<16x16x!tt.ptr<f16>>
  %aptrs = tt.addptr %abase, %offs : tensor<16x16x!tt.ptr<f16>>, tensor<16x16xi32>
  %cbase = tt.splat %c : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>
  %cptrs = tt.addptr %cbase, %offs : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>
  %at = tt.load %aptrs : tensor<16x16x!tt.ptr<f16>>
  %d = tt.dot %at, %at, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  tt.store %cptrs, %d : tensor<16x16x!tt.ptr<f32>>
  tt.return
}
