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

namespace {

/// The kind `select(cmp(x, y), x, y)` computes for a comparison `predicate`
/// of x with y.
std::optional<vector::CombiningKind>
selectedBy(arith::CmpIPredicate predicate) {
  using Kind = vector::CombiningKind;
  using P = arith::CmpIPredicate;
  switch (predicate) {
  case P::sgt:
  case P::sge:
    return Kind::MAXSI;
  case P::slt:
  case P::sle:
    return Kind::MINSI;
  case P::ugt:
  case P::uge:
    return Kind::MAXUI;
  case P::ult:
  case P::ule:
    return Kind::MINUI;
  default:
    return std::nullopt;
  }
}

std::optional<vector::CombiningKind>
selectedBy(arith::CmpFPredicate predicate) {
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::OGT:
  case P::OGE:
    return vector::CombiningKind::MAXIMUMF;
  case P::OLT:
  case P::OLE:
    return vector::CombiningKind::MINIMUMF;
  default:
    return std::nullopt;
  }
}

/// True for `cmpf une, x, x` (x is NaN).
bool isNaNTest(Value v, Value x) {
  auto cmp = v.getDefiningOp<arith::CmpFOp>();
  return cmp && cmp.getPredicate() == arith::CmpFPredicate::UNE &&
         cmp.getLhs() == x && cmp.getRhs() == x;
}

} // namespace

std::optional<vector::CombiningKind> getSelectingKind(Block &combine) {
  if (combine.getNumArguments() != 2 ||
      combine.getArgument(0).getType() != combine.getArgument(1).getType())
    return std::nullopt;
  Operation *terminator = combine.getTerminator();
  if (terminator->getNumOperands() != 1)
    return std::nullopt;
  auto select = terminator->getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!select || select->getBlock() != &combine)
    return std::nullopt;
  Value x = select.getTrueValue(), y = select.getFalseValue();
  if (x == y || !llvm::is_contained(combine.getArguments(), x) ||
      !llvm::is_contained(combine.getArguments(), y))
    return std::nullopt;
  // Only the comparison (and the NaN test) may precede the select: nothing
  // else the region computes would be kept.
  size_t ops = std::distance(combine.begin(), combine.end());
  Value condition = select.getCondition();
  if (isa<IntegerType>(x.getType())) {
    auto cmp = condition.getDefiningOp<arith::CmpIOp>();
    if (ops != 3 || !cmp || cmp.getLhs() != x || cmp.getRhs() != y)
      return std::nullopt;
    return selectedBy(cmp.getPredicate());
  }
  auto either = condition.getDefiningOp<arith::OrIOp>();
  if (!isa<FloatType>(x.getType()) || ops != 5 || !either)
    return std::nullopt;
  Value compared = either.getLhs(), nan = either.getRhs();
  if (!isNaNTest(nan, x))
    std::swap(compared, nan);
  auto cmp = compared.getDefiningOp<arith::CmpFOp>();
  if (!isNaNTest(nan, x) || !cmp || cmp.getLhs() != x || cmp.getRhs() != y)
    return std::nullopt;
  return selectedBy(cmp.getPredicate());
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
