//===- UnrollDotLoops.cpp - deeper K per run of AMX tile products ---------===//
//
// `for k: acc = tl.dot(a_k, b_k, acc)` with the GPU tutorials' BLOCK_K of 32
// hands spine-vectorize-matmul one 16 x 16 x 32 tile product per C tile and
// K step: on AMX each C tile is then loaded and stored around a single
// tdpbf16ps, and those round trips of the accumulator (64 KiB for 128 x 128,
// in L2) take longer than the products. Unrolled so that a run of dots covers
// `max-k` K steps, the dots of one iteration update the same accumulator one
// after the other with distinct A and B tiles, and spine-vectorize-matmul
// multiplies them all into each C tile while it sits in a tile register.
// Tutorial matmul bf16, 128 x 128 x 32 tiles, 2 threads, as it is against
// unrolled to 64 K steps (in turns in one process): 2048 588 -> 769 GFLOP/s,
// 4096 442 -> 553. Deeper runs gained no more (778, 545; session 35: 2048
// 823 at 64 against 752 at 128, 1024 666 against 624): their A and B tiles
// no longer stay in L1 beside the packed B.
//
// int8 dots into i32 (tdpbssd, 64 K steps per tile product) unroll to
// `max-k-int8` K steps: test_dot's dot_kernel, 128 x 128 x 64 tiles, 2
// threads, 1024: as it is / unrolled to 128 / 256 K steps 896 / 1146 / 1269
// GOP/s; 2048: 868 / 1093 / 1159, and 1098 at 512.
//
// Only loops whose one dot fits AMX tiles (bf16 x bf16 into f32, int8 x
// int8 into i32) with an accumulator of 64 KiB or more (in L2) are
// unrolled: the vector micro-kernel measured no gain from deeper K steps
// (docs/benchmarks.md, sessions 32 and 35).
//
//===----------------------------------------------------------------------===//

#include "passes/AmxTileShapes.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace mlir::spine {
#define GEN_PASS_DEF_UNROLLDOTLOOPS
#include "passes/Passes.h.inc"

namespace {

/// Smaller accumulators stay in L1, where their round trips cost little and
/// the unrolled loop's extra tiles cost more: 32 x 64 x 32 at 1024, 2
/// threads, 433 GFLOP/s as it is against 374 unrolled to 64 K steps.
constexpr int64_t kMinAccumulatorBytes = 64 * 1024;

/// The dot of `loop` that AMX multiplies (amxKGroup), when the body has
/// one: its K extent and the K steps per 32-bit element of a tile row,
/// accumulating into the iter_arg it yields back.
struct TileDot {
  int64_t k, group;
};

std::optional<TileDot> accumulatingTileDot(scf::ForOp loop) {
  linalg::MatmulOp dot;
  for (Operation &op : *loop.getBody())
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
      if (dot)
        return std::nullopt;
      dot = matmul;
    }
  if (!dot || !dot.hasPureTensorSemantics() || dot.getNumResults() != 1)
    return std::nullopt;
  auto acc = dyn_cast<BlockArgument>(dot.getDpsInits()[0]);
  if (!acc || acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0)
    return std::nullopt;
  unsigned position = acc.getArgNumber() - 1;
  if (loop.getBody()->getTerminator()->getOperand(position) != dot.getResult(0))
    return std::nullopt;
  auto a = dyn_cast<RankedTensorType>(dot.getDpsInputs()[0].getType());
  auto b = dyn_cast<RankedTensorType>(dot.getDpsInputs()[1].getType());
  auto c = dyn_cast<RankedTensorType>(acc.getType());
  if (!a || !b || !c || !a.hasStaticShape() || !b.hasStaticShape() ||
      !c.hasStaticShape())
    return std::nullopt;
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  int64_t group = amxKGroup(a.getElementType(), b.getElementType(),
                            c.getElementType(), m, n, k);
  if (!group || m * n * 4 < kMinAccumulatorBytes)
    return std::nullopt;
  return TileDot{k, group};
}

struct UnrollDotLoopsPass : impl::UnrollDotLoopsBase<UnrollDotLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, int64_t>> loops;
    getOperation().walk([&](scf::ForOp loop) {
      std::optional<TileDot> dot = accumulatingTileDot(loop);
      if (!dot)
        return;
      int64_t steps = dot->group == 2 ? maxK : maxKInt8;
      if (dot->k * 2 <= steps)
        loops.push_back({loop, steps / dot->k});
    });
    // A loop that cannot be unrolled (its bounds' type, say) stays as it is.
    for (auto [loop, factor] : loops)
      (void)loopUnrollByFactor(loop, factor);
  }
};

} // namespace
} // namespace mlir::spine
