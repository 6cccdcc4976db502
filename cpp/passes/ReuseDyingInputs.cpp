//===- ReuseDyingInputs.cpp - elementwise results over their inputs -------===//
//
// An elementwise linalg.generic whose payload never reads its init writes
// into a tensor.empty, which bufferization makes a new buffer. When one of
// its inputs has the result's type and indexing map and is used nowhere
// else (or only in the other branch of an `if`), that input can be the init
// instead: bufferization then writes the result over the input's buffer in
// place. A loop-carried accumulator (`acc += x` in a loop) so stays one
// buffer instead of a new allocation and copy-free swap per iteration.
// Bufferization still decides: where the input's buffer cannot be
// overwritten it copies, so results never change.
//
// A load's view of the kernel's arguments is never such an input:
// bufferization would first copy it to write over it. An init that may be
// one (elementwise-to-linalg picks the first operand) becomes a tensor.empty
// again, so the result gets a buffer of its own.
//
// Likewise a splat constant an scf.if yields (a peeled loop that never ran,
// see PeelConstantAccumulators) becomes a filled tensor.empty: a result that
// may be a read-only constant would make bufferization copy the other
// branch's loop-carried block instead of updating it in place.
//
//===----------------------------------------------------------------------===//

#include "passes/LoadViews.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::spine {
#define GEN_PASS_DEF_REUSEDYINGINPUTS
#include "passes/Passes.h.inc"

namespace {

/// Whether `a` and `b` sit in different branches of one scf.if in `block`,
/// so that at most one of them runs each time the block does.
bool inExclusiveBranches(Operation *a, Operation *b, Block *block) {
  Operation *ifOp = block->findAncestorOpInBlock(*a);
  if (!isa_and_nonnull<scf::IfOp>(ifOp) || ifOp == a ||
      block->findAncestorOpInBlock(*b) != ifOp)
    return false;
  Region &then = cast<scf::IfOp>(ifOp).getThenRegion();
  return then.isAncestor(a->getParentRegion()) !=
         then.isAncestor(b->getParentRegion());
}

/// An input whose only uses are operands of `op`, or of ops in the other
/// branch of an `if` in the input's block (an accumulator updated
/// differently in each branch). Across a loop between the input and the
/// `if`, both branches run, one per iteration: not counted.
bool diesAt(Value input, Operation *op) {
  return llvm::all_of(input.getUsers(), [&](Operation *user) {
    return user == op || inExclusiveBranches(op, user, input.getParentBlock());
  });
}

/// A tile that may be a load's view of memory the kernel was given (see
/// LoadViews.h): a memref descriptor built from a pointer, read as a tensor,
/// possibly chosen by an scf.if between a load's versions. A load's copy
/// (a buffer it allocated) is not one.
bool mayBeView(Value value) {
  if (auto toTensor = value.getDefiningOp<bufferization::ToTensorOp>())
    return isLoadView(toTensor.getBuffer());
  auto ifOp = value.getDefiningOp<scf::IfOp>();
  if (!ifOp)
    return false;
  unsigned index = cast<OpResult>(value).getResultNumber();
  return mayBeView(ifOp.thenYield().getOperand(index)) ||
         mayBeView(ifOp.elseYield().getOperand(index));
}

/// Gives an init that may be a view, unread by the payload, back its own
/// tensor.empty.
void unshareViewInits(OpBuilder &b, linalg::GenericOp op) {
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (!mayBeView(init.get()) || op.payloadUsesValueFromOperand(&init))
      continue;
    b.setInsertionPoint(op);
    init.set(tensor::EmptyOp::create(
        b, op.getLoc(), tensor::getMixedSizes(b, op.getLoc(), init.get()),
        getElementTypeOrSelf(init.get().getType())));
  }
}

void reuseInputs(linalg::GenericOp op) {
  if (op.getNumParallelLoops() != op.getNumLoops() ||
      !op.hasPureTensorSemantics())
    return;
  OpBuilder b(op);
  unshareViewInits(b, op);
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
          !diesAt(value, op) || value.getDefiningOp<arith::ConstantOp>() ||
          mayBeView(value))
        continue;
      init.set(value);
      taken.insert(value);
      break;
    }
  }
}

/// Yields a filled tensor.empty for every splat constant `yield` (of an
/// scf.if) yields.
void fillYieldedConstants(scf::YieldOp yield) {
  if (!isa<scf::IfOp>(yield->getParentOp()))
    return;
  OpBuilder b(yield);
  for (OpOperand &operand : yield->getOpOperands()) {
    SplatElementsAttr splat;
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type || !type.hasStaticShape() ||
        !matchPattern(operand.get(), m_Constant(&splat)))
      continue;
    Location loc = yield.getLoc();
    Value value = arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    Value empty =
        tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
    operand.set(linalg::FillOp::create(b, loc, value, empty).getResult(0));
  }
}

struct ReuseDyingInputsPass : impl::ReuseDyingInputsBase<ReuseDyingInputsPass> {
  void runOnOperation() override {
    getOperation()->walk(fillYieldedConstants);
    getOperation()->walk(reuseInputs);
  }
};

} // namespace
} // namespace mlir::spine
