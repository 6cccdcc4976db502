//===- AccumulateNarrowFloats.cpp - f16, bf16, fp8 sums and dots in f32 ---===//
//
// Runs on TTIR. A reduction, scan or dot whose accumulator is a float
// narrower than f32 rounds it at every step when lowered as written, and our
// loops step sequentially: a cumsum of bf16 ones stopped at 256, a sum of
// 65536 of them at 16384, a cumsum of fp16 ones at 2048. A GPU's tree order
// gets all three exactly, and torch accumulates these types in f32. Triton
// leaves the order and the internal precision of these ops open, so here
// they accumulate in f32 and round once per result:
//  - tt.reduce and tt.scan whose combine region rounds a narrow float
//    (addf, subf, mulf, divf or truncf into one) get their narrow operands
//    extended to f32, the region computed in f32, and their narrow results
//    rounded back. Combines of only maxima, minima, compares and selects are
//    exact in either type and stay as they are.
//  - tt.dot with a narrow accumulator multiplies into an f32 one, rounded
//    back after the dot: once per dot (per K step of a loop) instead of per
//    product.
// fp8 operands are extended by arith.extf, which spine-legalize-float-types
// (run after this pass) decodes.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::spine {
#define GEN_PASS_DEF_ACCUMULATENARROWFLOATS
#include "passes/Passes.h.inc"

namespace {

bool isNarrowFloat(Type type) {
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  return floatType && floatType.getWidth() < 32;
}

/// `type` with a narrow float element type replaced by f32.
Type widened(Type type) {
  if (!isNarrowFloat(type))
    return type;
  Type f32 = Float32Type::get(type.getContext());
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(f32);
  return f32;
}

/// Whether `op` computes in f32 what it computes in a narrow float once its
/// narrow values are f32 (conversions between the two become no-ops).
bool isRetypable(Operation &op) {
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
          arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp, arith::CmpFOp, arith::SelectOp, arith::ExtFOp,
          arith::TruncFOp, triton::ReduceReturnOp, triton::ScanReturnOp>(op))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return !isNarrowFloat(constant.getType()) ||
           isa<FloatAttr>(constant.getValue());
  // Anything else (integer arithmetic of an argmin's indices, say) is kept
  // as long as no narrow float goes in or out.
  return llvm::none_of(op.getOperandTypes(), isNarrowFloat) &&
         llvm::none_of(op.getResultTypes(), isNarrowFloat) &&
         op.getNumRegions() == 0;
}

/// Whether `op` rounds its result to a narrow float.
bool roundsToNarrowFloat(Operation &op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::TruncFOp>(op) &&
         isNarrowFloat(op.getResult(0).getType());
}

/// Whether combine `block` can be computed in f32 and rounds when it is not.
bool accumulatesNarrowFloats(Block &block) {
  return llvm::all_of(block, isRetypable) &&
         llvm::any_of(block, roundsToNarrowFloat);
}

Value extendToF32(OpBuilder &b, Location loc, Value value) {
  return arith::ExtFOp::create(b, loc, widened(value.getType()), value);
}

/// Fills `block` (not yet in an op) with `combine`'s ops computing in f32;
/// `map` holds the block arguments.
void buildWidenedCombine(Block &combine, Block *block, IRMapping &map) {
  OpBuilder b(combine.getParentOp()->getContext());
  b.setInsertionPointToEnd(block);
  for (Operation &op : combine) {
    // The region may use values from above it: narrow ones are extended.
    for (Value operand : op.getOperands())
      if (!map.contains(operand) && isNarrowFloat(operand.getType()))
        map.map(operand, extendToF32(b, op.getLoc(), operand));

    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      // A conversion to or from a narrow float is f32 to f32 now, or f32 to
      // and from f64.
      Value in = map.lookupOrDefault(op.getOperand(0));
      Type type = widened(op.getResult(0).getType());
      Value out = in;
      if (in.getType() != type) {
        if (getElementTypeOrSelf(type).getIntOrFloatBitWidth() >
            getElementTypeOrSelf(in.getType()).getIntOrFloatBitWidth())
          out = arith::ExtFOp::create(b, op.getLoc(), type, in);
        else
          out = arith::TruncFOp::create(b, op.getLoc(), type, in);
      }
      map.map(op.getResult(0), out);
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op);
        constant && isNarrowFloat(constant.getType())) {
      double value = cast<FloatAttr>(constant.getValue()).getValueAsDouble();
      map.map(
          constant.getResult(),
          arith::ConstantOp::create(b, op.getLoc(), b.getF32FloatAttr(value))
              .getResult());
      continue;
    }
    Operation *clone = b.clone(op, map);
    for (Value result : clone->getResults())
      result.setType(widened(result.getType()));
  }
}

/// Replaces tt.reduce or tt.scan `op` by one computing in f32.
void widenCombine(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  OperationState state(loc, op->getName());
  for (Value operand : op->getOperands())
    state.addOperands(isNarrowFloat(operand.getType())
                          ? extendToF32(b, loc, operand)
                          : operand);
  state.propertiesAttr = op->getPropertiesAsAttribute();
  state.addAttributes(op->getDiscardableAttrDictionary().getValue());
  for (Type type : op->getResultTypes())
    state.addTypes(widened(type));

  Block &combine = op->getRegion(0).front();
  auto *block = new Block;
  state.addRegion()->push_back(block);
  IRMapping map;
  for (BlockArgument arg : combine.getArguments())
    map.map(arg, block->addArgument(widened(arg.getType()), arg.getLoc()));
  buildWidenedCombine(combine, block, map);

  Operation *wide = b.create(state);
  for (auto [result, wideResult] :
       llvm::zip(op->getResults(), wide->getResults())) {
    Value replacement = wideResult;
    if (result.getType() != wideResult.getType())
      replacement =
          arith::TruncFOp::create(b, loc, result.getType(), wideResult);
    result.replaceAllUsesWith(replacement);
  }
  op->erase();
}

/// Replaces `dot` by a dot into an f32 accumulator, rounded back.
void widenDot(triton::DotOp dot) {
  OpBuilder b(dot);
  Location loc = dot.getLoc();
  Value accumulator = extendToF32(b, loc, dot.getC());
  Operation *wide = b.clone(*dot.getOperation());
  wide->setOperand(2, accumulator);
  wide->getResult(0).setType(widened(dot.getType()));
  dot.replaceAllUsesWith(
      arith::TruncFOp::create(b, loc, dot.getType(), wide->getResult(0))
          .getResult());
  dot.erase();
}

struct AccumulateNarrowFloatsPass
    : impl::AccumulateNarrowFloatsBase<AccumulateNarrowFloatsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> combines;
    SmallVector<triton::DotOp> dots;
    getOperation().walk([&](Operation *op) {
      if (isa<triton::ReduceOp, triton::ScanOp>(op) &&
          llvm::any_of(op->getOperandTypes(), isNarrowFloat) &&
          accumulatesNarrowFloats(op->getRegion(0).front()))
        combines.push_back(op);
      if (auto dot = dyn_cast<triton::DotOp>(op);
          dot && isNarrowFloat(dot.getType()))
        dots.push_back(dot);
    });
    for (Operation *op : combines)
      widenCombine(op);
    for (triton::DotOp dot : dots)
      widenDot(dot);
  }
};

} // namespace
} // namespace mlir::spine
