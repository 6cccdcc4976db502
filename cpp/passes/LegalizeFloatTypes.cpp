//===- LegalizeFloatTypes.cpp - fp8 as bytes, conversions targets lack ----===//
//
// Runs on TTIR, before the conversion to Linalg. No target has fp8 arithmetic
// or conversions, and LLVM has no fp8 types at all, so:
//  - conversions to and from fp8 (tt.fp_to_fp, arith.extf/truncf) become
//    integer arithmetic on the bit patterns (FloatConversions.h);
//  - every other float op on fp8 values (arithmetic, comparisons, tt.clampf,
//    math) runs in f32 on the decoded values, and fp8 results are rounded
//    back to nearest even: `a + b` is `(float(a) + float(b)).to(fp8)`, which
//    f32 computes without double rounding for add, sub, mul, div and sqrt;
//  - tt.dot decodes fp8 operands to f32 and multiplies those;
//  - tt.print prints fp8 values as f32;
//  - then every fp8 type (of values, pointees, descriptors, signatures)
//    becomes i8: loads, stores and data movement just move bytes.
// Besides, arith.truncf from f64 to bf16 (which no target or C runtime has)
// is rounded through f32 with round-to-odd, and so are arith.sitofp/uitofp of
// integers wider than 24 bits to bf16 (LLVM goes through f32 and rounds
// twice).
//
//===----------------------------------------------------------------------===//

#include "passes/FloatConversions.h"
#include "passes/Passes.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/SmallVectorExtras.h"

namespace mlir::spine {
#define GEN_PASS_DEF_LEGALIZEFLOATTYPES
#include "passes/Passes.h.inc"

namespace {

/// `type` with every fp8 type in it replaced by i8.
Type convertFloat8Types(Type type) {
  if (isa<FloatType>(type) && isFloat8(type))
    return IntegerType::get(type.getContext(), 8);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(convertFloat8Types(tensor.getElementType()));
  if (auto ptr = dyn_cast<triton::PointerType>(type))
    return triton::PointerType::get(convertFloat8Types(ptr.getPointeeType()),
                                    ptr.getAddressSpace());
  if (auto desc = dyn_cast<triton::TensorDescType>(type))
    return triton::TensorDescType::get(
        desc.getShape(), convertFloat8Types(desc.getElementType()),
        desc.getSharedLayout());
  if (auto fn = dyn_cast<FunctionType>(type)) {
    auto convert = [](TypeRange types) {
      return llvm::map_to_vector(types, convertFloat8Types);
    };
    return FunctionType::get(type.getContext(), convert(fn.getInputs()),
                             convert(fn.getResults()));
  }
  return type;
}

bool mentionsFloat8(Type type) { return convertFloat8Types(type) != type; }

bool mentionsFloat8(Operation *op) {
  return llvm::any_of(op->getOperandTypes(),
                      [](Type t) { return mentionsFloat8(t); }) ||
         llvm::any_of(op->getResultTypes(),
                      [](Type t) { return mentionsFloat8(t); });
}

FloatType elementFloatType(Type type) {
  return dyn_cast<FloatType>(getElementTypeOrSelf(type));
}

/// Builds the replacement of one op.
class Rewriter {
public:
  explicit Rewriter(Operation *op) : b(op), loc(op->getLoc()), op(op) {}

  /// The bit patterns (i8 elements) of fp8 value `v`.
  Value bits(Value v) {
    return triton::BitcastOp::create(b, loc, convertFloat8Types(v.getType()),
                                     v);
  }
  /// Bit patterns as a value of fp8 type `type`. The retyping at the end of
  /// the pass turns these casts into no-ops.
  Value fromBits(Value bits, Type type) {
    return triton::BitcastOp::create(b, loc, type, bits);
  }
  /// `v` with fp8 elements decoded to f32, other values as they are.
  Value decoded(Value v) {
    FloatType type = elementFloatType(v.getType());
    if (!type || !isFloat8(type))
      return v;
    return createFloat8ToF32(b, loc, bits(v), type);
  }
  /// `v` converted to the float type of `resultType`.
  Value convert(Value v, Type resultType, bool towardZero) {
    FloatType from = elementFloatType(v.getType());
    FloatType to = elementFloatType(resultType);
    Value x = createFloatConversion(b, loc, isFloat8(from) ? bits(v) : v, from,
                                    to, towardZero);
    return isFloat8(to) ? fromBits(x, resultType) : x;
  }
  void replace(ValueRange values) {
    op->replaceAllUsesWith(values);
    op->erase();
  }

  /// Runs `op` on f32 (f64 for conversions from integers, which may have more
  /// than 24 bits) in place of fp8 and rounds fp8 results back.
  void emulate() {
    FloatType compute = isa<arith::SIToFPOp, arith::UIToFPOp>(op)
                            ? FloatType(b.getF64Type())
                            : FloatType(b.getF32Type());
    SmallVector<Value> operands = llvm::map_to_vector(
        op->getOperands(), [&](Value v) { return decoded(v); });
    SmallVector<Type> types =
        llvm::map_to_vector(op->getResultTypes(), [&](Type t) -> Type {
          if (!isFloat8(t))
            return t;
          if (auto tensor = dyn_cast<RankedTensorType>(t))
            return tensor.clone(compute);
          return compute;
        });
    OperationState state(loc, op->getName(), operands, types, op->getAttrs());
    Operation *computed = b.create(state);
    SmallVector<Value> results;
    for (auto [original, computedResult] :
         llvm::zip(op->getResults(), computed->getResults())) {
      Value value = computedResult;
      FloatType type = elementFloatType(original.getType());
      if (type && isFloat8(type))
        value = fromBits(createFloatToFloat8(b, loc, value, type,
                                             /*towardZero=*/false),
                         original.getType());
      results.push_back(value);
    }
    replace(results);
  }

  OpBuilder b;
  Location loc;
  Operation *op;
};

std::optional<bool> isTowardZero(arith::TruncFOp op) {
  std::optional<arith::RoundingMode> mode = op.getRoundingmode();
  if (!mode || *mode == arith::RoundingMode::to_nearest_even)
    return false;
  if (*mode == arith::RoundingMode::toward_zero)
    return true;
  return std::nullopt;
}

LogicalResult legalizeOp(Operation *op) {
  Rewriter r(op);
  if (auto cvt = dyn_cast<triton::FpToFpOp>(op)) {
    // Conversions between standard formats are left to the Linalg lowering.
    if (mentionsFloat8(op))
      r.replace(r.convert(cvt.getSrc(), cvt.getType(),
                          cvt.getRounding() == triton::RoundingMode::RTZ));
    return success();
  }
  if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
    if (mentionsFloat8(op))
      r.replace(r.convert(ext.getIn(), ext.getType(), /*towardZero=*/false));
    return success();
  }
  if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
    std::optional<bool> towardZero = isTowardZero(trunc);
    auto from = elementFloatType(trunc.getIn().getType());
    auto to = elementFloatType(trunc.getType());
    bool unsupported = from.isF64() && to.isBF16();
    if (!mentionsFloat8(op) && !unsupported && !towardZero.value_or(true))
      return success();
    if (!towardZero)
      return op->emitOpError(
          "rounding modes other than to nearest even or toward zero are not "
          "supported");
    if (mentionsFloat8(op))
      r.replace(r.convert(trunc.getIn(), trunc.getType(), *towardZero));
    else
      r.replace(createTruncF(r.b, r.loc, trunc.getIn(), to, *towardZero));
    return success();
  }
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(op) && !mentionsFloat8(op)) {
    Type from = getElementTypeOrSelf(op->getOperand(0).getType());
    if (getElementTypeOrSelf(op->getResult(0).getType()).isBF16() &&
        from.getIntOrFloatBitWidth() > 24)
      r.replace(createIntToBF16(r.b, r.loc, op->getOperand(0),
                                isa<arith::UIToFPOp>(op)));
    return success();
  }
  if (!mentionsFloat8(op))
    return success();

  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Type i8 = r.b.getI8Type();
    TypedAttr value;
    if (auto f = dyn_cast<FloatAttr>(constant.getValue()))
      value = r.b.getIntegerAttr(i8, f.getValue().bitcastToAPInt());
    else if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      value = dense.bitcast(i8);
    else
      return op->emitOpError("fp8 constant of an unexpected kind");
    r.replace(r.fromBits(arith::ConstantOp::create(r.b, r.loc, value),
                         constant.getType()));
    return success();
  }
  // These move bits: the retyping below is all they need.
  if (isa<arith::SelectOp, arith::BitcastOp>(op))
    return success();
  if (auto dot = dyn_cast<triton::DotOp>(op)) {
    auto toF32 = [&](Value v) {
      v = r.decoded(v);
      auto type = cast<RankedTensorType>(v.getType());
      if (type.getElementType().isF32())
        return v;
      return arith::ExtFOp::create(r.b, r.loc, type.clone(r.b.getF32Type()), v)
          .getResult();
    };
    SmallVector<Value> operands(op->getOperands());
    operands[0] = toF32(dot.getA());
    operands[1] = toF32(dot.getB());
    OperationState state(r.loc, op->getName(), operands, op->getResultTypes(),
                         op->getAttrs());
    r.replace(r.b.create(state)->getResults());
    return success();
  }
  if (isa<triton::PrintOp>(op)) {
    for (OpOperand &operand : op->getOpOperands())
      operand.set(r.decoded(operand.get()));
    return success();
  }
  if (isa<triton::AtomicRMWOp>(op) &&
      isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
    return op->emitOpError("atomic read-modify-write on fp8 values is not "
                           "supported");
  if (op->getNumRegions() == 0 &&
      (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
       isa<triton::ClampFOp, triton::PreciseSqrtOp, triton::PreciseDivFOp>(
           op))) {
    r.emulate();
    return success();
  }
  // Everything else moves, stores or loads fp8 values without interpreting
  // them (loads, stores, splats, control flow, calls, ...).
  return success();
}

struct LegalizeFloatTypesPass
    : impl::LegalizeFloatTypesBase<LegalizeFloatTypesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (op->getNumRegions() == 0)
        ops.push_back(op);
    });
    bool failed = false;
    for (Operation *op : ops)
      failed |= mlir::failed(legalizeOp(op));
    if (failed)
      return signalPassFailure();

    // fp8 values become their bytes, everywhere.
    module.walk([](Operation *op) {
      for (OpResult result : op->getResults())
        result.setType(convertFloat8Types(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(convertFloat8Types(arg.getType()));
      if (auto func = dyn_cast<triton::FuncOp>(op))
        func.setFunctionType(
            cast<FunctionType>(convertFloat8Types(func.getFunctionType())));
    });
    module.walk([](triton::BitcastOp cast) {
      if (cast.getSrc().getType() == cast.getType()) {
        cast.replaceAllUsesWith(cast.getSrc());
        cast.erase();
      }
    });
  }
};

} // namespace
} // namespace mlir::spine
