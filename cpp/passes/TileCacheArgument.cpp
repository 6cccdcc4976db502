//===- TileCacheArgument.cpp - kernels that take the launch's tile cache --===//
//
// The tiles a tl.dot multiplies are the same for every program of a row (A)
// or column (B) of C; each program copying its own is most of what a Triton
// matmul loses against a BLAS on a CPU (docs/benchmarks.md, sessions 31-36).
// The launcher can hand a kernel a cache of tiles copied once per launch
// (cpp/runtime/TileCache.h). This pass decides which loads may read from it
// and gives their kernel the argument the cache comes in.
//
// A load may when it is a 2-D block multiplied by a tl.dot in its block and
// no write of the kernel can come before it in a program: no store, atomic
// or call before it or in a loop around it. Then what any program copies is
// what every program would read, whatever the order of the programs. Such a
// load gets `spine.cached_tile`; the kernel (a public tt.func) gets a
// last i64 argument `spine.tile_cache` (0 when the launch has no cache), before
// the program ids spine-materialize-program-ids appends.
//
//===----------------------------------------------------------------------===//

#include "passes/ElementAt.h"
#include "passes/Passes.h"
#include "passes/TileCache.h"
#include "triton/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::spine {
#define GEN_PASS_DEF_TILECACHEARGUMENT
#include "passes/Passes.h.inc"

namespace {

/// Whether `load` is a tile a tl.dot multiplies as it is loaded (narrow
/// floats and int8 too: the micro-kernel widens or pairs what it reads,
/// from the cache's copy as from its own).
bool isDotTile(triton::LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2)
    return false;
  return llvm::any_of(load->getUses(), [&](OpOperand &use) {
    auto dot = dyn_cast<triton::DotOp>(use.getOwner());
    return dot && use.getOperandNumber() < 2 &&
           dot->getBlock() == load->getBlock();
  });
}

/// Whether `write` may run before `load` in a program: it comes first in
/// their common block, the two share an op there, or a loop around that
/// block runs the write of one iteration before the load of the next.
bool mayComeFirst(Operation *write, Operation *load) {
  for (Operation *outer = load; outer; outer = outer->getParentOp()) {
    Operation *inBlock = outer->getBlock()
                             ? outer->getBlock()->findAncestorOpInBlock(*write)
                             : nullptr;
    if (!inBlock)
      continue;
    if (inBlock == outer || inBlock->isBeforeInBlock(outer))
      return true;
    for (Operation *around = outer->getParentOp();
         around && !isa<triton::FuncOp>(around); around = around->getParentOp())
      if (isa<LoopLikeOpInterface>(around))
        return true;
    return false;
  }
  return true;
}

struct TileCacheArgumentPass
    : impl::TileCacheArgumentBase<TileCacheArgumentPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    for (auto func : getOperation().getOps<triton::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      SmallVector<Operation *> writes;
      SmallVector<triton::LoadOp> tiles;
      func.walk([&](Operation *op) {
        // Ops that hold others are looked at through what they hold.
        if (op->getNumRegions() == 0 &&
            !op->hasTrait<OpTrait::IsTerminator>() && mayWrite(op))
          writes.push_back(op);
        if (auto load = dyn_cast<triton::LoadOp>(op); load && isDotTile(load))
          tiles.push_back(load);
      });
      bool any = false;
      for (triton::LoadOp load : tiles) {
        if (load.getIsVolatile() || llvm::any_of(writes, [&](Operation *write) {
              return mayComeFirst(write, load);
            }))
          continue;
        load->setAttr(kCachedTileAttr, UnitAttr::get(ctx));
        any = true;
      }
      if (!any)
        continue;
      OpBuilder b(ctx);
      unsigned last = func.getNumArguments();
      NamedAttribute marker(b.getStringAttr(kTileCacheArgAttr),
                            UnitAttr::get(ctx));
      if (failed(func.insertArguments({last}, {b.getI64Type()},
                                      {b.getDictionaryAttr(marker)},
                                      {func.getLoc()}))) {
        func.emitError("cannot append the tile cache argument");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
} // namespace mlir::spine
