//===- AccessVersions.cpp - accesses specialized by run-time facts --------===//

#include "passes/AccessVersions.h"
#include "passes/ElementAt.h"
#include "passes/TritonTypeConverter.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir::spine {
namespace {

/// Per-dimension coefficients of a linear form: known at compile time, or
/// nullopt for one known only at run time (a scalar stride, say).
using Coefficients = SmallVector<std::optional<int64_t>>;

/// Coefficients c of an integer or pointer tensor whose elements are
/// u + sum over d of c[d] * i[d] in exact arithmetic, for a value u the same
/// in every element (pointers: in bytes), or nullopt. The offset tensors
/// added to pointers are appended to `terms`.
std::optional<Coefficients>
linearForm(Value v, const llvm::DenseMap<Value, Value> &substitutes,
           SmallVectorImpl<Value> &terms) {
  if (Value substitute = substitutes.lookup(v))
    return linearForm(substitute, substitutes, terms);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  Operation *def = v.getDefiningOp();
  if (!type || !def)
    return std::nullopt;
  Coefficients zeros(type.getRank(), int64_t(0));
  auto isUniform = [](const Coefficients &c) {
    return llvm::all_of(c, [](std::optional<int64_t> x) { return x == 0; });
  };
  // a + scale * b.
  auto combine = [](Coefficients a, const Coefficients &b,
                    int64_t scale) -> std::optional<Coefficients> {
    for (auto [x, y] : llvm::zip_equal(a, b)) {
      int64_t scaled;
      if (y == 0)
        continue;
      if (!x || !y)
        x = std::nullopt;
      else if (llvm::MulOverflow(*y, scale, scaled) ||
               llvm::AddOverflow(*x, scaled, *x))
        return std::nullopt;
    }
    return a;
  };
  // b times a value known only at run time.
  auto scaleByUnknown = [](Coefficients b) {
    for (std::optional<int64_t> &x : b)
      if (x != 0)
        x = std::nullopt;
    return b;
  };
  if (isa<triton::MakeRangeOp>(def))
    return Coefficients{int64_t(1)};
  DenseElementsAttr constant;
  if (isa<triton::SplatOp>(def) ||
      (matchPattern(v, m_Constant(&constant)) && constant.isSplat()))
    return zeros;
  if (auto broadcast = dyn_cast<triton::BroadcastOp>(def)) {
    auto src = linearForm(broadcast.getSrc(), substitutes, terms);
    if (!src)
      return std::nullopt;
    for (auto [c, size] :
         llvm::zip_equal(*src, broadcast.getSrc().getType().getShape()))
      if (size == 1)
        c = 0;
    return src;
  }
  if (auto expand = dyn_cast<triton::ExpandDimsOp>(def)) {
    auto src = linearForm(expand.getSrc(), substitutes, terms);
    if (src)
      src->insert(src->begin() + expand.getAxis(), int64_t(0));
    return src;
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    auto l = linearForm(def->getOperand(0), substitutes, terms);
    auto r = linearForm(def->getOperand(1), substitutes, terms);
    if (!l || !r)
      return std::nullopt;
    if (!isa<arith::MulIOp>(def))
      return combine(*l, *r, isa<arith::AddIOp>(def) ? 1 : -1);
    // A product is linear when one factor is the same in every element.
    APInt c;
    if (matchPattern(def->getOperand(1), m_ConstantInt(&c)))
      return combine(zeros, *l, c.getSExtValue());
    if (matchPattern(def->getOperand(0), m_ConstantInt(&c)))
      return combine(zeros, *r, c.getSExtValue());
    if (isUniform(*r))
      return scaleByUnknown(*l);
    if (isUniform(*l))
      return scaleByUnknown(*r);
    return std::nullopt;
  }
  if (auto addptr = dyn_cast<triton::AddPtrOp>(def)) {
    auto p = linearForm(addptr.getPtr(), substitutes, terms);
    auto o = linearForm(addptr.getOffset(), substitutes, terms);
    if (!p || !o)
      return std::nullopt;
    terms.push_back(addptr.getOffset());
    return combine(
        *p, *o,
        getStorageSizeInBytes(
            cast<triton::PointerType>(type.getElementType()).getPointeeType()));
  }
  if (isa<triton::BitcastOp>(def) &&
      isa<triton::PointerType>(type.getElementType()))
    return linearForm(def->getOperand(0), substitutes, terms);
  return std::nullopt;
}

/// The coefficients of `v`'s linear form when all are known at compile time.
std::optional<SmallVector<int64_t>>
coefficients(Value v, const llvm::DenseMap<Value, Value> &substitutes,
             SmallVectorImpl<Value> &terms) {
  std::optional<Coefficients> form = linearForm(v, substitutes, terms);
  if (!form || llvm::any_of(*form, [](auto c) { return !c; }))
    return std::nullopt;
  return llvm::map_to_vector(*form, [](auto c) { return *c; });
}

/// Whether u + sum c[d] * i[d] over the index space `shape` takes distinct
/// values for distinct indices (sorted by magnitude, each coefficient
/// exceeds the span of the smaller ones); `span` is set to the largest
/// minus the smallest value.
bool isInjective(ArrayRef<int64_t> coefs, ArrayRef<int64_t> shape,
                 int64_t &span) {
  SmallVector<std::pair<int64_t, int64_t>> dims;
  for (auto [c, size] : llvm::zip_equal(coefs, shape))
    if (size > 1)
      dims.push_back({llvm::AbsoluteValue(c), size});
  llvm::sort(dims);
  span = 0;
  for (auto [c, size] : dims) {
    int64_t extent;
    if (c <= span || llvm::MulOverflow(c, size - 1, extent) ||
        llvm::AddOverflow(span, extent, span))
      return false;
  }
  return true;
}

/// Whether `ptr`'s addresses are distinct in exact arithmetic: linear in
/// the indices with injective coefficients.
bool hasLinearDistinctAddresses(Value ptr,
                                const llvm::DenseMap<Value, Value> &substitutes,
                                SmallVectorImpl<Value> &terms) {
  auto coefs = coefficients(ptr, substitutes, terms);
  int64_t span;
  return coefs &&
         isInjective(*coefs, cast<RankedTensorType>(ptr.getType()).getShape(),
                     span);
}

/// When `ptr` gives each element its own address in any case (even where
/// offsets wrap): linear and injective, its offsets vary through a single
/// tensor term spanning less than half its type's range, so the wrapped
/// values of that term stay distinct.
bool hasDistinctAddresses(Value ptr,
                          const llvm::DenseMap<Value, Value> &substitutes) {
  SmallVector<Value> terms;
  if (!hasLinearDistinctAddresses(ptr, substitutes, terms))
    return false;
  Value varying;
  SmallVector<int64_t> varyingCoefs;
  for (Value term : terms) {
    SmallVector<Value> inner;
    auto c = coefficients(term, substitutes, inner);
    if (!c)
      return false;
    if (llvm::any_of(*c, [](int64_t x) { return x != 0; })) {
      if (varying)
        return false;
      varying = term;
      varyingCoefs = *c;
    }
  }
  if (!varying)
    return false;
  int64_t span;
  auto type = cast<RankedTensorType>(varying.getType());
  return isInjective(varyingCoefs, type.getShape(), span) &&
         span < (int64_t(1) << (type.getElementTypeBitWidth() - 1));
}

/// When `a` and `b` are pointer tensors adding the same offsets to splat
/// bases, sets `baseA` and `baseB` to those scalar bases (original values).
bool haveSameOffsets(Value a, Value b, Value &baseA, Value &baseB) {
  if (a == b) {
    baseA = baseB = a;
    return true;
  }
  Operation *defA = a.getDefiningOp(), *defB = b.getDefiningOp();
  if (!defA || !defB || defA->getName() != defB->getName() ||
      a.getType() != b.getType() ||
      defA->getAttrDictionary() != defB->getAttrDictionary())
    return false;
  if (isa<triton::SplatOp>(defA)) {
    baseA = defA->getOperand(0);
    baseB = defB->getOperand(0);
    return true;
  }
  if (isa<triton::AddPtrOp>(defA) && defA->getOperand(1) == defB->getOperand(1))
    return haveSameOffsets(defA->getOperand(0), defB->getOperand(0), baseA,
                           baseB);
  if (isa<triton::BroadcastOp, triton::ExpandDimsOp>(defA))
    return haveSameOffsets(defA->getOperand(0), defB->getOperand(0), baseA,
                           baseB);
  return false;
}

/// Bounds of every element of an integer tensor, as exact (not wrapped) i64
/// values, and how many bits their magnitude may need: beyond 62 the i64
/// arithmetic computing them could itself overflow.
struct Bounds {
  Value lo, hi;
  unsigned bits;
  /// The bounds are those of values of the element type (a range, a splat):
  /// no check that they fit is needed.
  bool fitsType = false;
  /// A run-time condition the bounds rely on, or null when they always hold.
  Value valid = {};
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
      Value valid = both(l->valid, r->valid);
      if (isa<arith::AddIOp>(def))
        return Bounds{arith::AddIOp::create(rewriter, loc, l->lo, r->lo),
                      arith::AddIOp::create(rewriter, loc, l->hi, r->hi), bits,
                      false, valid};
      return Bounds{arith::SubIOp::create(rewriter, loc, l->lo, r->hi),
                    arith::SubIOp::create(rewriter, loc, l->hi, r->lo), bits,
                    false, valid};
    }
    if (auto mul = dyn_cast<arith::MulIOp>(def))
      return product(mul);
    return std::nullopt;
  }

  /// Bounds of the byte addresses of a pointer tensor's elements: a splat
  /// base plus offsets (addptr, each scaled by its pointee's size), or
  /// nullopt. The bounds rely on offsets of at most 32 bits whose exact
  /// values fit their type (so they are the offsets computed) and on a base
  /// below 2^62 (so the i64 sums cannot overflow).
  std::optional<Bounds> addressBounds(Value ptr) {
    Value base;
    std::optional<Bounds> bytes = byteOffsets(ptr, base);
    if (!bytes || !base)
      return std::nullopt;
    Value valid = both(bytes->valid, compare(arith::CmpIPredicate::ult, base,
                                             constant(int64_t(1) << 62)));
    return Bounds{arith::AddIOp::create(rewriter, loc, base, bytes->lo),
                  arith::AddIOp::create(rewriter, loc, base, bytes->hi), 63,
                  false, valid};
  }

  /// The condition under which the address ranges of `loadPtr` and
  /// `storePtr` do not overlap; null when their bounds are unknown, or when
  /// a scalar the store's address is computed from is defined after the
  /// insertion point (spine-hoist-store-addresses moves them up where it
  /// can).
  Value disjointCondition(Value loadPtr, Value storePtr) {
    if (!isAvailable(storePtr))
      return {};
    std::optional<Bounds> l = addressBounds(loadPtr),
                          s = addressBounds(storePtr);
    if (!l || !s)
      return {};
    return disjoint(*l, pointeeSize(loadPtr), *s, pointeeSize(storePtr));
  }

  /// Whether the ranges [a.lo, a.hi + aSize) and [b.lo, b.hi + bSize) of
  /// valid bounds do not overlap.
  Value disjoint(const Bounds &a, int64_t aSize, const Bounds &b,
                 int64_t bSize) {
    Value aEnd = arith::AddIOp::create(rewriter, loc, a.hi, constant(aSize));
    Value bEnd = arith::AddIOp::create(rewriter, loc, b.hi, constant(bSize));
    using P = arith::CmpIPredicate;
    return both(both(a.valid, b.valid),
                arith::OrIOp::create(rewriter, loc, compare(P::sle, bEnd, a.lo),
                                     compare(P::sle, aEnd, b.lo)));
  }

  /// Whether every scalar `value` is computed from (through the tensor ops
  /// that build an address) is defined before the insertion point.
  bool isAvailable(Value value) {
    Block *block = rewriter.getInsertionBlock();
    Block::iterator point = rewriter.getInsertionPoint();
    SmallVector<Value> worklist{value};
    DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      Operation *def = v.getDefiningOp();
      if (!def)
        continue;
      if (isa<ShapedType>(v.getType())) {
        llvm::append_range(worklist, def->getOperands());
        continue;
      }
      Operation *inBlock = block->findAncestorOpInBlock(*def);
      if (inBlock &&
          (point == block->end() || !inBlock->isBeforeInBlock(&*point)))
        return false;
    }
    return true;
  }

  /// The condition under which a store through `storePtr` may read the
  /// elements of a load through `loadPtr` as it writes: each element reads
  /// the address it writes and no other element touches it (the same offsets
  /// from equal bases, distinct addresses that no offset wraps), or the
  /// ranges of addresses are disjoint. Null when it cannot be decided.
  Value fusionCondition(Value loadPtr, Value storePtr) {
    Value same, disjoint, baseL, baseS;
    SmallVector<Value> terms;
    if (haveSameOffsets(loadPtr, storePtr, baseL, baseS)) {
      if (hasDistinctAddresses(storePtr, substitutes))
        same = constantTrue();
      else if (hasLinearDistinctAddresses(storePtr, substitutes, terms))
        if (std::optional<Bounds> b = addressBounds(storePtr))
          same = b->valid ? b->valid : constantTrue();
      if (same && baseL != baseS)
        same = both(same, compare(arith::CmpIPredicate::eq,
                                  rewriter.getRemappedValue(baseL),
                                  rewriter.getRemappedValue(baseS)));
    }
    if (loadPtr != storePtr) {
      std::optional<Bounds> l = addressBounds(loadPtr),
                            s = addressBounds(storePtr);
      if (l && s)
        disjoint =
            this->disjoint(*l, pointeeSize(loadPtr), *s, pointeeSize(storePtr));
    }
    if (!same || !disjoint)
      return same ? same : disjoint;
    return arith::OrIOp::create(rewriter, loc, same, disjoint);
  }

  /// The condition under which the addresses of pointer tensor `ptr` are
  /// exactly those of a strided block with consecutive elements along
  /// dimension `unitDim`: linear, every offset scaled by the element size (a
  /// static fact), and no offset wrapping. Sets `strides` (in elements).
  /// Null when the addresses are not linear so.
  Value
  stridedBlockCondition(Value ptr, unsigned unitDim,
                        SmallVectorImpl<std::optional<int64_t>> &strides) {
    SmallVector<Value> terms;
    std::optional<Coefficients> form = linearForm(ptr, substitutes, terms);
    int64_t size = pointeeSize(ptr);
    if (!form || unitDim >= form->size() || (*form)[unitDim] != size ||
        !scalesBy(ptr, size))
      return {};
    Value noWrap = noWrapCondition(ptr);
    if (!noWrap)
      return {};
    strides.clear();
    for (std::optional<int64_t> c : *form)
      strides.push_back(c ? std::optional<int64_t>(*c / size) : std::nullopt);
    return noWrap;
  }

  /// A strided block consecutive along its last dimension (a view's).
  Value viewCondition(Value ptr,
                      SmallVectorImpl<std::optional<int64_t>> &strides) {
    auto type = cast<RankedTensorType>(ptr.getType());
    return stridedBlockCondition(ptr, type.getRank() - 1, strides);
  }

  /// A rank-2 strided block consecutive along its first dimension and not
  /// its second: a transposed one.
  Value
  transposedViewCondition(Value ptr,
                          SmallVectorImpl<std::optional<int64_t>> &strides) {
    if (cast<RankedTensorType>(ptr.getType()).getRank() != 2)
      return {};
    Value condition = stridedBlockCondition(ptr, 0, strides);
    if (condition && strides[1] == 1) {
      strides.clear();
      return {};
    }
    return condition;
  }

  /// The condition under which no offset added to build `ptr` wraps, so its
  /// addresses are the linear form's: offsets of at most 32 bits whose exact
  /// bounds fit their type (64-bit ones wrap as the addresses do). Null when
  /// a narrow offset has no bounds.
  Value noWrapCondition(Value ptr) {
    Operation *def = ptr.getDefiningOp();
    if (!def)
      return {};
    if (isa<triton::SplatOp>(def))
      return constantTrue();
    if (isa<triton::BroadcastOp, triton::ExpandDimsOp, triton::BitcastOp>(def))
      return noWrapCondition(def->getOperand(0));
    auto addptr = dyn_cast<triton::AddPtrOp>(def);
    Value before = addptr ? noWrapCondition(addptr.getPtr()) : Value();
    if (!before)
      return {};
    Value offset = addptr.getOffset();
    if (getElementTypeOrSelf(offset.getType()).getIntOrFloatBitWidth() > 32)
      return before;
    std::optional<Bounds> b = of(offset);
    if (!b)
      return {};
    return both(before, isExact(*b, offset));
  }

  /// True when the values of `tensor`, as computed (wrapping), are the exact
  /// ones its bounds `b` bound: bounds of a range or splat always are.
  Value isExact(const Bounds &b, Value tensor) {
    return b.fitsType ? b.valid : fitsType(b, tensor, /*isUnsigned=*/false);
  }

  /// True when the exact bounds `b` of `tensor` fit its element type (read
  /// unsigned if `isUnsigned`), and the bounds are valid.
  Value fitsType(const Bounds &b, Value tensor, bool isUnsigned) {
    unsigned width =
        getElementTypeOrSelf(tensor.getType()).getIntOrFloatBitWidth();
    int64_t min = isUnsigned ? 0 : -(int64_t(1) << (width - 1));
    int64_t max = (int64_t(1) << (width - 1)) - 1;
    Value aboveMin = compare(arith::CmpIPredicate::sge, b.lo, constant(min));
    Value belowMax = compare(arith::CmpIPredicate::sle, b.hi, constant(max));
    return both(b.valid, both(aboveMin, belowMax));
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
    return both(
        bounds->valid,
        both(nonNegative, compare(arith::CmpIPredicate::slt, bounds->hi, n)));
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
      return value.isAllOnes() ? constantTrue() : Value();
    auto cmp = dyn_cast<arith::CmpIOp>(def);
    if (!cmp)
      return {};
    std::optional<Bounds> l = of(cmp.getLhs()), r = of(cmp.getRhs());
    if (!l || !r)
      return {};
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
    for (const Bounds &b : {*l, *r})
      holds = both(holds, !b.fitsType || isUnsigned
                              ? fitsType(b, cmp.getLhs(), isUnsigned)
                              : b.valid);
    return holds;
  }

  /// `a and b`, where a null condition always holds.
  Value both(Value a, Value b) {
    if (!a || !b)
      return a ? a : b;
    return arith::AndIOp::create(rewriter, loc, a, b);
  }

  Value compare(arith::CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(rewriter, loc, predicate, a, b);
  }

  Value constant(int64_t v) {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getI64IntegerAttr(v));
  }

  Value constantTrue() {
    return arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
  }

private:
  /// Whether every offset added to build `ptr` is scaled by `size` bytes (so
  /// differences of addresses are whole elements).
  static bool scalesBy(Value ptr, int64_t size) {
    Operation *def = ptr.getDefiningOp();
    if (!def)
      return false;
    if (isa<triton::SplatOp>(def))
      return true;
    if (isa<triton::BroadcastOp, triton::ExpandDimsOp>(def))
      return scalesBy(def->getOperand(0), size);
    if (auto addptr = dyn_cast<triton::AddPtrOp>(def))
      return pointeeSize(addptr.getPtr()) == size &&
             scalesBy(addptr.getPtr(), size);
    return false;
  }

  static int64_t pointeeSize(Value ptr) {
    return getStorageSizeInBytes(
        cast<triton::PointerType>(getElementTypeOrSelf(ptr.getType()))
            .getPointeeType());
  }

  /// Bounds of a product. By a constant, the other factor's scaled; by
  /// another tensor, the extremes of the four products of the bounds, which
  /// fit in i64 when each factor lies in [-2^30, 2^30] (checked at run time
  /// when needed; offsets beyond that make no 32-bit address anyway).
  std::optional<Bounds> product(arith::MulIOp mul) {
    for (auto [factor, other] : {std::pair(mul.getRhs(), mul.getLhs()),
                                 std::pair(mul.getLhs(), mul.getRhs())}) {
      std::optional<int64_t> c = splatConstant(factor);
      if (!c)
        continue;
      std::optional<Bounds> o = of(other);
      unsigned factorBits = 64 - llvm::countl_zero(llvm::AbsoluteValue(*c));
      if (!o || o->bits + factorBits > 62)
        return std::nullopt;
      Value lo = arith::MulIOp::create(rewriter, loc, o->lo, constant(*c));
      Value hi = arith::MulIOp::create(rewriter, loc, o->hi, constant(*c));
      if (*c < 0)
        std::swap(lo, hi);
      return Bounds{lo, hi, o->bits + factorBits, false, o->valid};
    }
    std::optional<Bounds> l = of(mul.getLhs()), r = of(mul.getRhs());
    if (!l || !r)
      return std::nullopt;
    Value valid = both(l->valid, r->valid);
    for (Bounds *f : {&*l, &*r}) {
      if (f->bits <= 30)
        continue;
      valid = both(valid, both(compare(arith::CmpIPredicate::sge, f->lo,
                                       constant(-(int64_t(1) << 30))),
                               compare(arith::CmpIPredicate::sle, f->hi,
                                       constant(int64_t(1) << 30))));
      f->bits = 30;
    }
    Value products[] = {arith::MulIOp::create(rewriter, loc, l->lo, r->lo),
                        arith::MulIOp::create(rewriter, loc, l->lo, r->hi),
                        arith::MulIOp::create(rewriter, loc, l->hi, r->lo),
                        arith::MulIOp::create(rewriter, loc, l->hi, r->hi)};
    Value lo = products[0], hi = products[0];
    for (Value p : llvm::drop_begin(products)) {
      lo = arith::MinSIOp::create(rewriter, loc, lo, p);
      hi = arith::MaxSIOp::create(rewriter, loc, hi, p);
    }
    return Bounds{lo, hi, l->bits + r->bits, false, valid};
  }

  /// Bounds of the bytes a pointer tensor's addresses lie past `base` (set
  /// to the converted scalar its splat starts from).
  std::optional<Bounds> byteOffsets(Value ptr, Value &base) {
    Operation *def = ptr.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto splat = dyn_cast<triton::SplatOp>(def)) {
      base = rewriter.getRemappedValue(splat.getSrc());
      if (!base || !base.getType().isInteger(64))
        return std::nullopt;
      return Bounds{constant(0), constant(0), 0};
    }
    if (isa<triton::BroadcastOp, triton::ExpandDimsOp>(def) ||
        (isa<triton::BitcastOp>(def) &&
         isa<triton::PointerType>(
             getElementTypeOrSelf(def->getOperand(0).getType()))))
      return byteOffsets(def->getOperand(0), base);
    auto addptr = dyn_cast<triton::AddPtrOp>(def);
    if (!addptr)
      return std::nullopt;
    std::optional<Bounds> before = byteOffsets(addptr.getPtr(), base);
    std::optional<Bounds> offset = of(addptr.getOffset());
    if (!before || !offset)
      return std::nullopt;
    // The offset is sign-extended as computed: its exact bounds must fit
    // (then they need at most 32 bits; times the size, at most 36).
    Value valid = both(before->valid, isExact(*offset, addptr.getOffset()));
    unsigned bits = std::max(before->bits, 36u) + 1;
    if (bits > 61)
      return std::nullopt;
    Value size = constant(pointeeSize(addptr.getPtr()));
    Value lo = arith::MulIOp::create(rewriter, loc, offset->lo, size);
    Value hi = arith::MulIOp::create(rewriter, loc, offset->hi, size);
    return Bounds{arith::AddIOp::create(rewriter, loc, before->lo, lo),
                  arith::AddIOp::create(rewriter, loc, before->hi, hi), bits,
                  false, valid};
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
  /// Loads with one use or needed by the access alone (feedsOnly): the
  /// access may read them where it needs them.
  SmallVector<Operation *> loads;
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
    if (!isa<arith::ArithDialect, math::MathDialect>(def->getDialect()) &&
        !isa<triton::BroadcastOp, triton::ExpandDimsOp, triton::AddPtrOp,
             triton::IntToPtrOp, triton::PtrToIntOp, triton::BitcastOp,
             triton::LoadOp>(def))
      continue;
    // Only a load with one use, or needed by the access alone, is fused into
    // it (ElementAt::reload); the others are read from their own tensors.
    if (isa<triton::LoadOp>(def)) {
      if (!def->hasOneUse() && !feedsOnly(def->getResult(0), access))
        continue;
      found.loads.push_back(def);
    }
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
    function_ref<Value(OpBuilder &, Location, const AccessVersion *)> build,
    bool askView, bool askTransposed, ArrayRef<Operation *> storesInReach) {
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
  // A store may read the loads fused into it as it writes when no element's
  // write changes what another reads: decided from the IR alone for both
  // versions, or by a run-time condition for the specialized one.
  AccessVersion general;
  if (auto store = dyn_cast<triton::StoreOp>(access)) {
    for (Operation *op : found.loads) {
      Value ptr = cast<triton::LoadOp>(op).getPtr();
      if (ptr == store.getPtr() &&
          hasDistinctAddresses(ptr, general.substitutes)) {
        general.fusableLoads.insert(op);
        version.fusableLoads.insert(op);
      } else if (Value safe = bounds.fusionCondition(ptr, store.getPtr())) {
        version.fusableLoads.insert(op);
        require(safe);
      }
    }
  }
  if (auto load = dyn_cast<triton::LoadOp>(access);
      load && askView && (!load.getMask() || version.isAllOn(load.getMask()))) {
    Value exact = bounds.viewCondition(load.getPtr(), version.viewStrides);
    // A store in the view's reach must write none of the memory it reads.
    for (Operation *store : storesInReach) {
      if (!exact)
        break;
      Value disjoint = bounds.disjointCondition(
          load.getPtr(), cast<triton::StoreOp>(store).getPtr());
      exact = disjoint ? bounds.both(exact, disjoint) : Value();
    }
    if (exact)
      require(exact);
    else
      version.viewStrides.clear();
  }
  if (auto load = dyn_cast<triton::LoadOp>(access);
      load && askTransposed && version.viewStrides.empty() &&
      (!load.getMask() || version.isAllOn(load.getMask()))) {
    if (Value exact = bounds.transposedViewCondition(load.getPtr(),
                                                     version.transposedStrides))
      require(exact);
  }
  if (!condition)
    return build(rewriter, loc, &general);

  SmallVector<Type> resultTypes;
  if (resultType)
    resultTypes.push_back(resultType);
  auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(resultTypes),
                                condition, /*withElseRegion=*/true);
  for (auto [region, specialized] :
       {std::make_pair(&ifOp.getThenRegion(), &version),
        std::make_pair(&ifOp.getElseRegion(), &general)}) {
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
