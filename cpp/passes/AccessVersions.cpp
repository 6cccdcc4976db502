//===- AccessVersions.cpp - accesses specialized by run-time facts --------===//

#include "passes/AccessVersions.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir::spine {
namespace {

/// Bounds of every element of an integer tensor, as exact (not wrapped) i64
/// values, and how many bits their magnitude may need: beyond 62 the i64
/// arithmetic computing them could itself overflow.
struct Bounds {
  Value lo, hi;
  unsigned bits;
  /// The bounds are those of values of the element type (a range, a splat):
  /// no check that they fit is needed.
  bool fitsType = false;
};

/// Builds, at the rewriter's insertion point, scalar i64 bounds of tensors
/// and i1 conditions on them. Wrapping integer arithmetic agrees with exact
/// arithmetic modulo 2^width, so exact bounds that fit the element type are
/// bounds of the computed (wrapped) values too; conditions that rely on
/// bounds check that they fit.
class BoundsBuilder {
public:
  BoundsBuilder(ConversionPatternRewriter &rewriter, Location loc,
                const llvm::DenseMap<Value, Value> &substitutes)
      : rewriter(rewriter), loc(loc), substitutes(substitutes) {}

  /// Bounds of the elements of `tensor` (an original value), or nullopt when
  /// they cannot be derived.
  std::optional<Bounds> of(Value tensor) {
    if (Value substitute = substitutes.lookup(tensor))
      return of(substitute);
    auto type = dyn_cast<RankedTensorType>(tensor.getType());
    if (!type || !type.getElementType().isSignlessInteger() ||
        type.getElementType().getIntOrFloatBitWidth() > 32)
      return std::nullopt;
    Operation *def = tensor.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto range = dyn_cast<triton::MakeRangeOp>(def))
      return Bounds{constant(range.getStart()), constant(range.getEnd() - 1),
                    32, /*fitsType=*/true};
    if (auto splat = dyn_cast<triton::SplatOp>(def)) {
      Value scalar = rewriter.getRemappedValue(splat.getSrc());
      if (!scalar || !scalar.getType().isSignlessInteger())
        return std::nullopt;
      Value wide =
          arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), scalar);
      return Bounds{wide, wide, 32,
                    /*fitsType=*/scalar.getType() == type.getElementType()};
    }
    if (std::optional<int64_t> c = splatConstant(tensor))
      return Bounds{constant(*c), constant(*c), 32};
    if (isa<triton::BroadcastOp, triton::ExpandDimsOp>(def))
      return of(def->getOperand(0));
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      std::optional<Bounds> l = of(def->getOperand(0)),
                            r = of(def->getOperand(1));
      if (!l || !r || std::max(l->bits, r->bits) + 1 > 62)
        return std::nullopt;
      unsigned bits = std::max(l->bits, r->bits) + 1;
      if (isa<arith::AddIOp>(def))
        return Bounds{arith::AddIOp::create(rewriter, loc, l->lo, r->lo),
                      arith::AddIOp::create(rewriter, loc, l->hi, r->hi), bits};
      return Bounds{arith::SubIOp::create(rewriter, loc, l->lo, r->hi),
                    arith::SubIOp::create(rewriter, loc, l->hi, r->lo), bits};
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
    Value nonNegative =
        compare(arith::CmpIPredicate::sge, bounds->lo, constant(0));
    return both(nonNegative, compare(arith::CmpIPredicate::slt, bounds->hi, n));
  }

  /// The condition under which every lane of `mask` (an i1 tensor) is on:
  /// comparisons of bounded tensors, conjunctions of such, splats of a
  /// boolean and constants.
  Value allOnCondition(Value mask) {
    Operation *def = mask.getDefiningOp();
    if (!def)
      return {};
    if (auto splat = dyn_cast<triton::SplatOp>(def))
      return rewriter.getRemappedValue(splat.getSrc());
    if (isa<triton::BroadcastOp, triton::ExpandDimsOp>(def))
      return allOnCondition(def->getOperand(0));
    if (auto andOp = dyn_cast<arith::AndIOp>(def)) {
      Value l = allOnCondition(andOp.getLhs());
      Value r = l ? allOnCondition(andOp.getRhs()) : Value();
      return r ? both(l, r) : Value();
    }
    APInt value;
    if (matchPattern(mask, m_ConstantInt(&value)))
      return value.isAllOnes() ? arith::ConstantOp::create(
                                     rewriter, loc, rewriter.getBoolAttr(true))
                                     .getResult()
                               : Value();
    auto cmp = dyn_cast<arith::CmpIOp>(def);
    if (!cmp)
      return {};
    std::optional<Bounds> l = of(cmp.getLhs()), r = of(cmp.getRhs());
    if (!l || !r)
      return {};
    unsigned width =
        getElementTypeOrSelf(cmp.getLhs().getType()).getIntOrFloatBitWidth();
    // Unsigned comparisons agree with signed ones on non-negative values.
    using P = arith::CmpIPredicate;
    P predicate = cmp.getPredicate();
    bool isUnsigned = true;
    switch (predicate) {
    case P::ult:
      predicate = P::slt;
      break;
    case P::ule:
      predicate = P::sle;
      break;
    case P::ugt:
      predicate = P::sgt;
      break;
    case P::uge:
      predicate = P::sge;
      break;
    default:
      isUnsigned = false;
    }
    // `l < r` holds for every pair of elements when l's largest is below r's
    // smallest; `l > r` the other way round.
    Value holds;
    if (predicate == P::slt || predicate == P::sle)
      holds = compare(predicate, l->hi, r->lo);
    else if (predicate == P::sgt || predicate == P::sge)
      holds = compare(predicate, l->lo, r->hi);
    else
      return {};
    // The compared values are the exact ones only if these fit the type; an
    // unsigned comparison also needs them non-negative (a range or splat of
    // the type fits it, but -1 reads as 2^32 - 1).
    int64_t min = isUnsigned ? 0 : -(int64_t(1) << (width - 1));
    int64_t max = (int64_t(1) << (width - 1)) - 1;
    for (const Bounds &b : {*l, *r}) {
      if (b.fitsType && !isUnsigned)
        continue;
      Value aboveMin = compare(arith::CmpIPredicate::sge, b.lo, constant(min));
      Value belowMax = compare(arith::CmpIPredicate::sle, b.hi, constant(max));
      holds = both(holds, both(aboveMin, belowMax));
    }
    return holds;
  }

  Value both(Value a, Value b) {
    return arith::AndIOp::create(rewriter, loc, a, b);
  }

private:
  Value constant(int64_t v) {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getI64IntegerAttr(v));
  }

  Value compare(arith::CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(rewriter, loc, predicate, a, b);
  }

  static std::optional<int64_t> splatConstant(Value tensor) {
    APInt value;
    if (!matchPattern(tensor, m_ConstantInt(&value)))
      return std::nullopt;
    return value.getSExtValue();
  }

  ConversionPatternRewriter &rewriter;
  Location loc;
  const llvm::DenseMap<Value, Value> &substitutes;
};

/// What the operands of an access are computed from that a version may
/// specialize: tensor remainders, and masks (the access's own, those of the
/// loads fused into it). Found through the ops the element recomputation
/// (ElementAt) walks.
struct Specializable {
  SmallVector<Operation *> remainders;
  SmallVector<Value> masks;
};

Specializable findSpecializable(Operation *access) {
  Specializable found;
  llvm::SetVector<Operation *> seen;
  SmallVector<Value> worklist(access->getOperands());
  auto addMask = [&](Operation *op) {
    Value mask;
    if (auto load = dyn_cast<triton::LoadOp>(op))
      mask = load.getMask();
    else if (auto store = dyn_cast<triton::StoreOp>(op))
      mask = store.getMask();
    if (mask && isa<RankedTensorType>(mask.getType()) &&
        !llvm::is_contained(found.masks, mask))
      found.masks.push_back(mask);
  };
  addMask(access);
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v ? v.getDefiningOp() : nullptr;
    if (!def || !isa<RankedTensorType>(v.getType()) || !seen.insert(def))
      continue;
    if (isa<arith::RemSIOp, arith::RemUIOp>(def)) {
      found.remainders.push_back(def);
      continue;
    }
    if (!isa<arith::ArithDialect>(def->getDialect()) &&
        !isa<triton::BroadcastOp, triton::ExpandDimsOp, triton::AddPtrOp,
             triton::IntToPtrOp, triton::PtrToIntOp, triton::BitcastOp,
             triton::LoadOp>(def))
      continue;
    // Only a load with one use is fused into the access (ElementAt::reload);
    // the others are read from their own tensors.
    if (isa<triton::LoadOp>(def) && !def->hasOneUse())
      continue;
    addMask(def);
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        worklist.push_back(operand);
  }
  return found;
}

} // namespace

Value emitAccessVersions(
    ConversionPatternRewriter &rewriter, Location loc, Operation *access,
    Type resultType,
    function_ref<Value(OpBuilder &, Location, const AccessVersion *)> build) {
  AccessVersion version;
  BoundsBuilder bounds(rewriter, loc, version.substitutes);
  Specializable found = findSpecializable(access);
  Value condition;
  auto require = [&](Value c) {
    condition = condition ? bounds.both(condition, c) : c;
  };
  for (Operation *rem : found.remainders) {
    if (Value identity = bounds.identityCondition(rem)) {
      version.substitutes[rem->getResult(0)] = rem->getOperand(0);
      require(identity);
    }
  }
  // Bounds in masks may rely on the remainders above being their dividends.
  for (Value mask : found.masks) {
    if (Value allOn = bounds.allOnCondition(mask)) {
      version.allOnMasks.insert(mask);
      require(allOn);
    }
  }
  if (!condition)
    return build(rewriter, loc, nullptr);

  SmallVector<Type> resultTypes;
  if (resultType)
    resultTypes.push_back(resultType);
  auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(resultTypes),
                                condition, /*withElseRegion=*/true);
  for (auto [region, specialized] :
       {std::make_pair(&ifOp.getThenRegion(), &version),
        std::make_pair(&ifOp.getElseRegion(),
                       static_cast<AccessVersion *>(nullptr))}) {
    OpBuilder::InsertionGuard guard(rewriter);
    Block &block = region->front();
    if (!block.empty())
      rewriter.eraseOp(block.getTerminator());
    rewriter.setInsertionPointToEnd(&block);
    Value result = build(rewriter, loc, specialized);
    scf::YieldOp::create(rewriter, loc,
                         result ? ValueRange{result} : ValueRange{});
  }
  return resultType ? ifOp.getResult(0) : Value();
}

} // namespace mlir::spine
