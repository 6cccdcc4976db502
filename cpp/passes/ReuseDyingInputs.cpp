//===- ReuseDyingInputs.cpp - elementwise results over their inputs -------===//
//
// An elementwise linalg.generic whose payload never reads its init writes
// into a tensor.empty, which bufferization makes a new buffer. When one of
// its inputs has the result's type and indexing map and is used nowhere
// else, that input can be the init instead: bufferization then writes the
// result over the input's buffer in place. A loop-carried accumulator
// (`acc += x` in a loop) so stays one buffer instead of a new allocation
// and copy-free swap per iteration. Bufferization still decides: where the
// input's buffer cannot be overwritten it copies, so results never change.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::spine {
#define GEN_PASS_DEF_REUSEDYINGINPUTS
#include "passes/Passes.h.inc"

namespace {

/// An input whose only uses are operands of `op`.
bool diesAt(Value input, Operation *op) {
  return llvm::all_of(input.getUsers(),
                      [&](Operation *user) { return user == op; });
}

void reuseInputs(linalg::GenericOp op) {
  if (op.getNumParallelLoops() != op.getNumLoops() ||
      !op.hasPureTensorSemantics())
    return;
  DenseSet<Value> taken;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (!init.get().getDefiningOp<tensor::EmptyOp>() ||
        op.payloadUsesValueFromOperand(&init))
      continue;
    AffineMap outMap = op.getMatchingIndexingMap(&init);
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      if (value.getType() != init.get().getType() ||
          op.getMatchingIndexingMap(input) != outMap || taken.contains(value) ||
          !diesAt(value, op) || value.getDefiningOp<arith::ConstantOp>())
        continue;
      init.set(value);
      taken.insert(value);
      break;
    }
  }
}

struct ReuseDyingInputsPass : impl::ReuseDyingInputsBase<ReuseDyingInputsPass> {
  void runOnOperation() override { getOperation()->walk(reuseInputs); }
};

} // namespace
} // namespace mlir::spine
