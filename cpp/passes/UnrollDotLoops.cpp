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
// 4096 442 -> 553. Deeper runs gained no more (778, 545): their A and B tiles
// no longer stay in L1 beside the packed B.
//
// Only loops whose one dot (bf16 x bf16 into the f32 block the loop carries)
// fits AMX tiles, with an accumulator of 64 KiB or more (in L2), are
// unrolled: the vector micro-kernel measured no gain from deeper K steps
// (docs/benchmarks.md, session 32).
//
//===----------------------------------------------------------------------===//

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

/// The K extent of `loop`'s accumulating dot when it is one AMX multiplies:
/// the body's only matmul, bf16 x bf16 into f32 with sides of multiples of
/// 16 (K of 32), accumulating into the iter_arg it yields back.
std::optional<int64_t> accumulatingTileDotK(scf::ForOp loop) {
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
      !c.hasStaticShape() || !a.getElementType().isBF16() ||
      !b.getElementType().isBF16() || !c.getElementType().isF32())
    return std::nullopt;
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  if (m % 16 != 0 || n % 16 != 0 || k % 32 != 0 ||
      m * n * 4 < kMinAccumulatorBytes)
    return std::nullopt;
  return k;
}

struct UnrollDotLoopsPass : impl::UnrollDotLoopsBase<UnrollDotLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, int64_t>> loops;
    getOperation().walk([&](scf::ForOp loop) {
      std::optional<int64_t> k = accumulatingTileDotK(loop);
      if (k && *k * 2 <= static_cast<int64_t>(maxK))
        loops.push_back({loop, static_cast<int64_t>(maxK) / *k});
    });
    // A loop that cannot be unrolled (its bounds' type, say) stays as it is.
    for (auto [loop, factor] : loops)
      (void)loopUnrollByFactor(loop, factor);
  }
};

} // namespace
} // namespace mlir::spine
