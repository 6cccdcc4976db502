//===- RemainderVersions.cpp - offsets `% n` that never wrap --------------===//

#include "passes/RemainderVersions.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace mlir::spine {
namespace {

/// Bounds of every element of an integer tensor, as exact (not wrapped) i64
/// values, and how many bits their magnitude may need: beyond 62 the i64
/// arithmetic computing them could itself overflow.
struct Bounds {
  Value lo, hi;
  unsigned bits;
};

class BoundsBuilder {
public:
  BoundsBuilder(ConversionPatternRewriter &rewriter, Location loc)
      : rewriter(rewriter), loc(loc) {}

  /// Bounds of the elements of `tensor` (an original value), or nullopt when
  /// they cannot be derived. Wrapping integer arithmetic agrees with exact
  /// arithmetic modulo 2^width, so exact bounds inside the range of the
  /// element type are the bounds of the wrapped values too.
  std::optional<Bounds> of(Value tensor) {
    auto type = dyn_cast<RankedTensorType>(tensor.getType());
    if (!type || !type.getElementType().isSignlessInteger() ||
        type.getElementType().getIntOrFloatBitWidth() > 32)
      return std::nullopt;
    Operation *def = tensor.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto range = dyn_cast<triton::MakeRangeOp>(def))
      return Bounds{constant(range.getStart()), constant(range.getEnd() - 1),
                    32};
    if (auto splat = dyn_cast<triton::SplatOp>(def)) {
      Value scalar = rewriter.getRemappedValue(splat.getSrc());
      if (!scalar || !scalar.getType().isSignlessInteger())
        return std::nullopt;
      Value wide =
          arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), scalar);
      return Bounds{wide, wide, 32};
    }
    if (std::optional<int64_t> c = splatConstant(tensor))
      return Bounds{constant(*c), constant(*c), 32};
    if (isa<triton::BroadcastOp, triton::ExpandDimsOp>(def))
      return of(def->getOperand(0));
    if (auto add = dyn_cast<arith::AddIOp>(def)) {
      std::optional<Bounds> l = of(add.getLhs()), r = of(add.getRhs());
      if (!l || !r || std::max(l->bits, r->bits) + 1 > 62)
        return std::nullopt;
      return Bounds{arith::AddIOp::create(rewriter, loc, l->lo, r->lo),
                    arith::AddIOp::create(rewriter, loc, l->hi, r->hi),
                    std::max(l->bits, r->bits) + 1};
    }
    if (auto mul = dyn_cast<arith::MulIOp>(def)) {
      Value factor = mul.getRhs(), other = mul.getLhs();
      std::optional<int64_t> c = splatConstant(factor);
      if (!c) {
        std::swap(factor, other);
        c = splatConstant(factor);
      }
      std::optional<Bounds> o = c ? of(other) : std::nullopt;
      unsigned factorBits =
          c ? 64 - llvm::countl_zero(llvm::AbsoluteValue(*c)) : 0;
      if (!o || o->bits + factorBits > 62)
        return std::nullopt;
      Value lo = arith::MulIOp::create(rewriter, loc, o->lo, constant(*c));
      Value hi = arith::MulIOp::create(rewriter, loc, o->hi, constant(*c));
      if (*c < 0)
        std::swap(lo, hi);
      return Bounds{lo, hi, o->bits + factorBits};
    }
    return std::nullopt;
  }

  /// The condition under which `rem` (remsi or remui of a tensor by a splat
  /// scalar) equals its dividend: every dividend element lies in [0, n).
  Value identityCondition(Operation *rem) {
    Value divisor = rem->getOperand(1);
    while (Operation *def = divisor.getDefiningOp()) {
      if (!isa<triton::BroadcastOp, triton::ExpandDimsOp>(def))
        break;
      divisor = def->getOperand(0);
    }
    Value n;
    if (auto splat = divisor.getDefiningOp<triton::SplatOp>())
      n = rewriter.getRemappedValue(splat.getSrc());
    else if (std::optional<int64_t> c = splatConstant(divisor))
      n = constant(*c);
    std::optional<Bounds> bounds = of(rem->getOperand(0));
    if (!n || !bounds || !n.getType().isSignlessInteger())
      return {};
    Type i64 = rewriter.getI64Type();
    if (n.getType() != i64) {
      // remui divides unsigned values: n's bit pattern read as unsigned.
      if (isa<arith::RemUIOp>(rem))
        n = arith::ExtUIOp::create(rewriter, loc, i64, n);
      else
        n = arith::ExtSIOp::create(rewriter, loc, i64, n);
    }
    Value nonNegative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sge, bounds->lo, constant(0));
    Value belowN = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, bounds->hi, n);
    return arith::AndIOp::create(rewriter, loc, nonNegative, belowN);
  }

private:
  Value constant(int64_t v) {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getI64IntegerAttr(v));
  }

  static std::optional<int64_t> splatConstant(Value tensor) {
    APInt value;
    if (!matchPattern(tensor, m_ConstantInt(&value)))
      return std::nullopt;
    return value.getSExtValue();
  }

  ConversionPatternRewriter &rewriter;
  Location loc;
};

/// Tensor remainders in the ops that compute `roots`, found through the ops
/// the element recomputation (ElementAt) walks.
SmallVector<Operation *> findRemainders(ValueRange roots) {
  SmallVector<Operation *> remainders;
  llvm::SetVector<Operation *> seen;
  SmallVector<Value> worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v ? v.getDefiningOp() : nullptr;
    if (!def || !isa<RankedTensorType>(v.getType()) || !seen.insert(def))
      continue;
    if (isa<arith::RemSIOp, arith::RemUIOp>(def)) {
      remainders.push_back(def);
      continue;
    }
    if (!isa<arith::ArithDialect>(def->getDialect()) &&
        !isa<triton::BroadcastOp, triton::ExpandDimsOp, triton::AddPtrOp,
             triton::IntToPtrOp, triton::PtrToIntOp, triton::BitcastOp,
             triton::LoadOp>(def))
      continue;
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        worklist.push_back(operand);
  }
  return remainders;
}

} // namespace

Value emitRemainderVersions(
    ConversionPatternRewriter &rewriter, Location loc, ValueRange roots,
    Type resultType,
    function_ref<Value(OpBuilder &, Location, const RemainderSubstitutes *)>
        build) {
  BoundsBuilder bounds(rewriter, loc);
  RemainderSubstitutes substitutes;
  Value condition;
  for (Operation *rem : findRemainders(roots)) {
    Value identity = bounds.identityCondition(rem);
    if (!identity)
      continue;
    substitutes[rem->getResult(0)] = rem->getOperand(0);
    condition = condition
                    ? arith::AndIOp::create(rewriter, loc, condition, identity)
                    : identity;
  }
  if (!condition)
    return build(rewriter, loc, nullptr);

  SmallVector<Type> resultTypes;
  if (resultType)
    resultTypes.push_back(resultType);
  auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(resultTypes),
                                condition, /*withElseRegion=*/true);
  for (auto [region, subst] :
       {std::make_pair(&ifOp.getThenRegion(), &substitutes),
        std::make_pair(&ifOp.getElseRegion(),
                       static_cast<RemainderSubstitutes *>(nullptr))}) {
    OpBuilder::InsertionGuard guard(rewriter);
    Block &block = region->front();
    if (!block.empty())
      rewriter.eraseOp(block.getTerminator());
    rewriter.setInsertionPointToEnd(&block);
    Value result = build(rewriter, loc, subst);
    scf::YieldOp::create(rewriter, loc,
                         result ? ValueRange{result} : ValueRange{});
  }
  return resultType ? ifOp.getResult(0) : Value();
}

} // namespace mlir::spine
