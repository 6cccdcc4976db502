//===- CombiningKinds.cpp - reductions whose lanes may combine in any order
//===//

#include "passes/CombiningKinds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::spine {

std::optional<vector::CombiningKind> getCombiningKind(Operation *op) {
  using Kind = vector::CombiningKind;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case([](arith::AddFOp) { return Kind::ADD; })
      .Case([](arith::AddIOp) { return Kind::ADD; })
      .Case([](arith::MulFOp) { return Kind::MUL; })
      .Case([](arith::MulIOp) { return Kind::MUL; })
      .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
      .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
      .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
      .Case([](arith::MinSIOp) { return Kind::MINSI; })
      .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
      .Case([](arith::MinUIOp) { return Kind::MINUI; })
      .Case([](arith::AndIOp) { return Kind::AND; })
      .Case([](arith::OrIOp) { return Kind::OR; })
      .Case([](arith::XOrIOp) { return Kind::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

TypedAttr getNeutralElement(vector::CombiningKind kind, Type type) {
  using Kind = vector::CombiningKind;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case Kind::ADD: // -0.0 + -0.0 is -0.0; +0.0 would turn it into +0.0
      return FloatAttr::get(type, APFloat::getZero(sem, /*Negative=*/true));
    case Kind::MUL:
      return FloatAttr::get(type, APFloat::getOne(sem));
    case Kind::MAXNUMF: // maxnum(NaN, y) is y, NaN only if y is
    case Kind::MINNUMF:
      return FloatAttr::get(type, APFloat::getQNaN(sem));
    case Kind::MAXIMUMF:
      return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/true));
    case Kind::MINIMUMF:
      return FloatAttr::get(type, APFloat::getInf(sem));
    default:
      return {};
    }
  }
  if (!type.isSignlessInteger())
    return {};
  unsigned bits = type.getIntOrFloatBitWidth();
  APInt value;
  switch (kind) {
  case Kind::ADD:
  case Kind::OR:
  case Kind::XOR:
  case Kind::MAXUI:
    value = APInt::getZero(bits);
    break;
  case Kind::MUL:
    value = APInt(bits, 1);
    break;
  case Kind::AND:
  case Kind::MINUI:
    value = APInt::getAllOnes(bits);
    break;
  case Kind::MAXSI:
    value = APInt::getSignedMinValue(bits);
    break;
  case Kind::MINSI:
    value = APInt::getSignedMaxValue(bits);
    break;
  default:
    return {};
  }
  return IntegerAttr::get(type, value);
}

} // namespace mlir::spine
