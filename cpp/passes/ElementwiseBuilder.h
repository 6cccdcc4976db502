//===- ElementwiseBuilder.h - arith/math on one shape ----------*- C++ -*-===//
//
// Expressions written out of arith and math ops (float conversions, special
// functions, math approximations) work on a scalar, a ranked tensor or a
// vector alike: every operand has one shape, and constants are splats of it.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_ELEMENTWISEBUILDER_H
#define SPINE_TRITON_PASSES_ELEMENTWISEBUILDER_H

#include "passes/TensorBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mlir::spine {

/// Builds elementwise arith/math ops on values shaped like `shape` (a scalar
/// type, a ranked tensor or a vector type); element types may differ.
class ElementwiseBuilder {
public:
  ElementwiseBuilder(OpBuilder &b, Location loc, Type shape)
      : b(b), loc(loc), shape(shape) {}

  /// `shape` with element type `element`.
  Type like(Type element) const { return withElementType(shape, element); }
  Value i(Type element, int64_t v) {
    return createIntLike(b, loc, like(element), v);
  }
  Value f(Type element, double v) {
    return createFloatLike(b, loc, like(element), v);
  }
  /// A float constant of the element type of `v`.
  Value fLike(Value v, double c) {
    return createFloatLike(b, loc, v.getType(), c);
  }

  // Integers.
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value subi(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value muli(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value shrs(Value x, Value y) { return arith::ShRSIOp::create(b, loc, x, y); }
  Value minu(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }

  // Floats.
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value floor(Value x) { return math::FloorOp::create(b, loc, x); }
  Value roundeven(Value x) { return math::RoundEvenOp::create(b, loc, x); }
  /// NaN-propagating minimum and maximum.
  Value minimum(Value x, Value y) {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value maximum(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value log(Value x) { return math::LogOp::create(b, loc, x); }
  Value copysign(Value x, Value y) {
    return math::CopySignOp::create(b, loc, x, y);
  }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  /// Horner: c[0] + x * (c[1] + x * (... + x * c[n-1])).
  Value polynomial(Value x, ArrayRef<double> c) {
    Value p = fLike(x, c.back());
    for (double coefficient : llvm::reverse(c.drop_back()))
      p = fma(p, x, fLike(x, coefficient));
    return p;
  }

  // Both.
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value andb(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orb(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }

  // Casts; `element` is the result's element type.
  Value bitcast(Value v, Type element) {
    return arith::BitcastOp::create(b, loc, like(element), v);
  }
  Value zext(Value v, Type element) {
    return arith::ExtUIOp::create(b, loc, like(element), v);
  }
  Value sext(Value v, Type element) {
    return arith::ExtSIOp::create(b, loc, like(element), v);
  }
  Value trunci(Value v, Type element) {
    return arith::TruncIOp::create(b, loc, like(element), v);
  }
  Value extf(Value v, Type element) {
    return arith::ExtFOp::create(b, loc, like(element), v);
  }
  Value truncf(Value v, Type element) {
    return arith::TruncFOp::create(b, loc, like(element), v);
  }
  Value sitofp(Value v, Type element) {
    return arith::SIToFPOp::create(b, loc, like(element), v);
  }
  Value uitofp(Value v, Type element) {
    return arith::UIToFPOp::create(b, loc, like(element), v);
  }
  Value fptosi(Value v, Type element) {
    return arith::FPToSIOp::create(b, loc, like(element), v);
  }
  Value fptoui(Value v, Type element) {
    return arith::FPToUIOp::create(b, loc, like(element), v);
  }

  OpBuilder &b;
  Location loc;
  Type shape;
};

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_ELEMENTWISEBUILDER_H
