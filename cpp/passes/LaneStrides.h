//===- LaneStrides.h - how addresses move from lane to lane -----*- C++ -*-===//
//
// For the element loops spine-vectorize-element-loops widens: which integers
// and addresses of a loop body move by a constant stride per iteration, and
// whether they can wrap, so that an access can be proven to touch
// consecutive addresses (or be checked once, before the loop).
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_LANESTRIDES_H
#define SPINE_TRITON_PASSES_LANESTRIDES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>

namespace mlir::spine {

/// The plain `p + offset` byte GEP the memory lowerings emit.
inline bool isByteGep(LLVM::GEPOp gep) {
  return gep.getElemType() == IntegerType::get(gep.getContext(), 8) &&
         gep.getDynamicIndices().size() == 1 &&
         gep.getRawConstantIndices().size() == 1;
}

/// How a varying integer or address moves from iteration to iteration (and
/// so from lane to lane): iteration i + j holds iteration i's value +
/// stride * j, computed modulo 2^bits. When `range` is known it bounds the
/// exact values over the whole loop and they fit in `bits` signed, so nothing
/// wrapped. `wrap` is the one extension of a narrower integer whose value may
/// wrap somewhere in the loop, at most once; the iterations from there on
/// are off by wrapScale * 2^n (n the narrow width), which is never zero
/// modulo 2^64, so comparing the first and the last iteration's address
/// detects it.
struct LaneStride {
  int64_t stride = 0;
  unsigned bits = 64;
  std::optional<std::pair<int64_t, int64_t>> range;
  Operation *wrap = nullptr;
  int64_t wrapScale = 0;
};

/// Strides of the integers and pointers a loop body computes, for proving
/// that the lanes of an access are consecutive.
class LaneStrides {
public:
  LaneStrides(Value iv, int64_t lb, int64_t ub, const DenseSet<Value> &varying)
      : iv(iv), lb(lb), ub(ub), varying(varying) {}

  std::optional<LaneStride> of(Value v) {
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    std::optional<LaneStride> result = compute(v);
    memo[v] = result;
    return result;
  }

private:
  static unsigned widthOf(Type type) {
    if (isa<IndexType, LLVM::LLVMPointerType>(type))
      return 64;
    if (auto integer = dyn_cast<IntegerType>(type))
      return integer.getWidth();
    return 0;
  }

  static bool fitsSigned(int64_t v, unsigned bits) {
    return bits >= 64 ||
           (v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1)));
  }

  /// `range` if it fits in `bits` signed, else unknown (the values wrap).
  static std::optional<std::pair<int64_t, int64_t>>
  fitting(std::optional<std::pair<int64_t, int64_t>> range, unsigned bits) {
    if (range && fitsSigned(range->first, bits) &&
        fitsSigned(range->second, bits))
      return range;
    return std::nullopt;
  }

  /// Small enough that strides and ranges never overflow int64_t.
  static bool isSmall(int64_t v) { return v > -(1 << 30) && v < (1 << 30); }

  std::optional<LaneStride> compute(Value v) {
    unsigned bits = widthOf(v.getType());
    if (!bits || bits > 64)
      return std::nullopt;
    if (v == iv)
      return LaneStride{1, 64, std::make_pair(lb, ub - 1)};
    if (!varying.contains(v)) {
      LaneStride uniform{0, bits};
      if (std::optional<int64_t> c = getConstantIntValue(v); c && isSmall(*c))
        uniform.range = std::make_pair(*c, *c);
      return uniform;
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    return llvm::TypeSwitch<Operation *, std::optional<LaneStride>>(def)
        .Case<arith::AddIOp>([&](auto op) {
          return add(of(op.getLhs()), of(op.getRhs()), 1, bits);
        })
        .Case<arith::SubIOp>([&](auto op) {
          return add(of(op.getLhs()), of(op.getRhs()), -1, bits);
        })
        .Case<arith::MulIOp>([&](auto op) -> std::optional<LaneStride> {
          if (std::optional<int64_t> c = getConstantIntValue(op.getRhs()))
            return scale(of(op.getLhs()), *c, bits);
          if (std::optional<int64_t> c = getConstantIntValue(op.getLhs()))
            return scale(of(op.getRhs()), *c, bits);
          return std::nullopt;
        })
        .Case<arith::ShLIOp>([&](auto op) -> std::optional<LaneStride> {
          std::optional<int64_t> c = getConstantIntValue(op.getRhs());
          if (!c || *c < 0 || *c > 20)
            return std::nullopt;
          return scale(of(op.getLhs()), int64_t(1) << *c, bits);
        })
        .Case<arith::ExtSIOp, arith::IndexCastOp>(
            [&](Operation *op) { return cast(op, bits, /*isSigned=*/true); })
        .Case<arith::ExtUIOp, arith::IndexCastUIOp>(
            [&](Operation *op) { return cast(op, bits, /*isSigned=*/false); })
        .Case<arith::TruncIOp>(
            [&](auto op) { return truncate(of(op.getIn()), bits); })
        .Case<LLVM::IntToPtrOp, LLVM::PtrToIntOp>(
            [&](Operation *op) -> std::optional<LaneStride> {
              if (widthOf(op->getOperand(0).getType()) != 64)
                return std::nullopt;
              return of(op->getOperand(0));
            })
        .Case<LLVM::GEPOp>([&](auto op) -> std::optional<LaneStride> {
          if (!isByteGep(op))
            return std::nullopt;
          Value offset = op.getDynamicIndices()[0];
          std::optional<LaneStride> o = of(offset);
          unsigned from = widthOf(offset.getType());
          if (from < 64)
            o = extend(o, from, 64, op, true);
          return add(of(op.getBase()), o, 1, 64);
        })
        .Default([](Operation *) { return std::nullopt; });
  }

  /// An integer cast to `bits`: an extension (index casts from narrower
  /// types sign- or zero-extend) or a truncation.
  std::optional<LaneStride> cast(Operation *op, unsigned bits, bool isSigned) {
    Value in = op->getOperand(0);
    unsigned from = widthOf(in.getType());
    return from <= bits ? extend(of(in), from, bits, op, isSigned)
                        : truncate(of(in), bits);
  }

  std::optional<LaneStride> add(std::optional<LaneStride> x,
                                std::optional<LaneStride> y, int64_t sign,
                                unsigned bits) {
    if (!x || !y || !isSmall(x->stride) || !isSmall(y->stride))
      return std::nullopt;
    if (x->wrap && y->wrap && x->wrap != y->wrap)
      return std::nullopt;
    LaneStride r{x->stride + sign * y->stride, bits};
    if (x->range && y->range) {
      auto [ylo, yhi] = *y->range;
      if (sign < 0)
        std::tie(ylo, yhi) = std::make_pair(-yhi, -ylo);
      if (isSmall(x->range->first) && isSmall(x->range->second) &&
          isSmall(ylo) && isSmall(yhi))
        r.range = fitting(
            std::make_pair(x->range->first + ylo, x->range->second + yhi),
            bits);
    }
    r.wrap = x->wrap ? x->wrap : y->wrap;
    r.wrapScale = x->wrapScale + sign * y->wrapScale;
    if (r.wrapScale == 0)
      r.wrap = nullptr;
    return r;
  }

  std::optional<LaneStride> scale(std::optional<LaneStride> x, int64_t c,
                                  unsigned bits) {
    if (!x || !isSmall(x->stride) || c <= -(1 << 16) || c >= (1 << 16))
      return std::nullopt;
    LaneStride r{x->stride * c, bits};
    if (x->range && isSmall(x->range->first) && isSmall(x->range->second)) {
      int64_t a = x->range->first * c, b = x->range->second * c;
      r.range = fitting(std::make_pair(std::min(a, b), std::max(a, b)), bits);
    }
    r.wrap = c ? x->wrap : nullptr;
    r.wrapScale = x->wrapScale * c;
    if (r.wrapScale <= -(1 << 24) || r.wrapScale >= (1 << 24))
      return std::nullopt;
    return r;
  }

  /// Sign- or zero-extension of a `from`-bit value to `bits`.
  std::optional<LaneStride> extend(std::optional<LaneStride> x, unsigned from,
                                   unsigned bits, Operation *op,
                                   bool isSigned) {
    if (!x || from == bits)
      return x;
    LaneStride r = *x;
    r.bits = bits;
    if (x->range && (isSigned || x->range->first >= 0))
      return r; // The exact values, unchanged.
    // The narrow values may wrap in the loop, at most once when they span
    // less than 2^(from-1): the extension is where that shows.
    if (x->wrap || !isSmall(x->stride) || from > 32 || ub - lb > (1 << 30) ||
        std::abs(x->stride) * (ub - lb - 1) >= (int64_t(1) << (from - 1)))
      return std::nullopt;
    r.range.reset();
    r.wrap = op;
    r.wrapScale = 1;
    return r;
  }

  std::optional<LaneStride> truncate(std::optional<LaneStride> x,
                                     unsigned bits) {
    if (!x || x->wrap)
      return std::nullopt;
    LaneStride r = *x;
    r.bits = bits;
    r.range = fitting(x->range, bits);
    return r;
  }

  Value iv;
  int64_t lb, ub;
  const DenseSet<Value> &varying;
  DenseMap<Value, std::optional<LaneStride>> memo;
};

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_LANESTRIDES_H
