//===- ElementwiseExtrasToLinalg.cpp - extern, mapped and asm elementwise -===//
//
// tt.extern_elementwise calls a CUDA libdevice function by symbol (the
// backend maps tl.extra.libdevice to triton's CUDA module); each function with
// a CPU equivalent becomes the math/arith op of the same meaning, on scalars
// or tensors alike, and the others are built from several ops
// (LibdeviceFunctions.h). tt.map_elementwise runs its scalar region per element
// (or per group of `pack` elements). tt.elementwise_inline_asm holds GPU
// assembly, which cannot run on a CPU: it is rejected with a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "passes/FloatConversions.h"
#include "passes/LibdeviceFunctions.h"
#include "passes/TensorBuilders.h"
#include "passes/TritonToLinalgPatterns.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::spine {
namespace {

//===----------------------------------------------------------------------===//
// tt.extern_elementwise
//===----------------------------------------------------------------------===//

/// Zero-extends or truncates an integer (tensor) to `type`.
Value castIntTo(OpBuilder &b, Location loc, Value v, Type type) {
  unsigned from = getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth();
  unsigned to = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  if (from < to)
    return arith::ExtUIOp::create(b, loc, type, v);
  if (from > to)
    return arith::TruncIOp::create(b, loc, type, v);
  return v;
}

/// Builds one libdevice function from `args`; `type` is the call's result
/// type.
using LibdeviceBuilder = Value (*)(OpBuilder &, Location, ValueRange, Type);

struct LibdeviceFn {
  LibdeviceBuilder build;
  unsigned arity;
};

template <typename OpTy>
Value buildSame(OpBuilder &b, Location loc, ValueRange args, Type) {
  return OpTy::create(b, loc, args).getResult();
}

/// An integer result of another width than the op's: clzll and popcll count
/// into an int.
template <typename OpTy>
Value buildCounted(OpBuilder &b, Location loc, ValueRange args, Type type) {
  return castIntTo(b, loc, OpTy::create(b, loc, args[0]), type);
}

// Float predicates return an int, 1 or 0. They are plain compares, which
// every target lowers (math.isinf has no LLVM lowering).
Value buildIsNaN(OpBuilder &b, Location loc, ValueRange args, Type type) {
  Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, args[0],
                                    args[0]);
  return castIntTo(b, loc, nan, type);
}

/// |x| compared with +inf: OEQ is isinf, ONE (false for NaN) is isfinite.
template <arith::CmpFPredicate predicate>
Value buildCompareToInf(OpBuilder &b, Location loc, ValueRange args,
                        Type type) {
  Type argType = args[0].getType();
  auto floatType = cast<FloatType>(getElementTypeOrSelf(argType));
  Value inf = createConstantLike(
      b, loc, argType,
      b.getFloatAttr(floatType,
                     APFloat::getInf(floatType.getFloatSemantics())));
  Value abs = math::AbsFOp::create(b, loc, args[0]);
  return castIntTo(b, loc, arith::CmpFOp::create(b, loc, predicate, abs, inf),
                   type);
}

Value buildSignbit(OpBuilder &b, Location loc, ValueRange args, Type type) {
  Type argType = args[0].getType();
  unsigned bits = getElementTypeOrSelf(argType).getIntOrFloatBitWidth();
  Type intType = withElementType(argType, b.getIntegerType(bits));
  Value asInt = arith::BitcastOp::create(b, loc, intType, args[0]);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, asInt,
                            createIntLike(b, loc, intType, 0));
  return castIntTo(b, loc, negative, type);
}

Value buildBitcast(OpBuilder &b, Location loc, ValueRange args, Type type) {
  return arith::BitcastOp::create(b, loc, type, args[0]);
}

Value buildExp10(OpBuilder &b, Location loc, ValueRange args, Type type) {
  return math::PowFOp::create(b, loc, createFloatLike(b, loc, type, 10.0),
                              args[0]);
}

Value buildReciprocal(OpBuilder &b, Location loc, ValueRange args, Type type) {
  return arith::DivFOp::create(b, loc, createFloatLike(b, loc, type, 1.0),
                               args[0]);
}

/// Clamps to [0, 1]; NaN becomes 0 (maxnum prefers the number).
Value buildSaturate(OpBuilder &b, Location loc, ValueRange args, Type type) {
  Value low = arith::MaxNumFOp::create(b, loc, args[0],
                                       createFloatLike(b, loc, type, 0.0));
  return arith::MinNumFOp::create(b, loc, low,
                                  createFloatLike(b, loc, type, 1.0));
}

/// x - y when x > y, +0 otherwise, NaN when either is NaN (the unordered
/// compare is true then, and x - y is NaN).
Value buildFdim(OpBuilder &b, Location loc, ValueRange args, Type type) {
  Value greater = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT,
                                        args[0], args[1]);
  Value diff = arith::SubFOp::create(b, loc, args[0], args[1]);
  return arith::SelectOp::create(b, loc, greater, diff,
                                 createFloatLike(b, loc, type, 0.0));
}

/// The high half of the double-width product.
template <bool isSigned>
Value buildMulhi(OpBuilder &b, Location loc, ValueRange args, Type type) {
  unsigned bits = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  Type wide = withElementType(type, b.getIntegerType(2 * bits));
  auto extend = [&](Value v) -> Value {
    if (isSigned)
      return arith::ExtSIOp::create(b, loc, wide, v);
    return arith::ExtUIOp::create(b, loc, wide, v);
  };
  Value product =
      arith::MulIOp::create(b, loc, extend(args[0]), extend(args[1]));
  Value high = arith::ShRUIOp::create(b, loc, product,
                                      createIntLike(b, loc, wide, bits));
  return arith::TruncIOp::create(b, loc, type, high);
}

/// Conversions named `<from>2<to>_<rounding>` (float2int_rn, ll2double_rn,
/// double2float_rz, ...).
Value buildConversion(OpBuilder &b, Location loc, StringRef name, Value arg,
                      Type type) {
  auto [from, rest] = name.split('2');
  auto [to, mode] = rest.split('_');
  auto isFloatName = [](StringRef s) { return s == "float" || s == "double"; };
  auto isIntName = [](StringRef s) {
    return s == "int" || s == "uint" || s == "ll" || s == "ull";
  };
  auto rounding = StringSwitch<std::optional<arith::RoundingMode>>(mode)
                      .Case("rn", arith::RoundingMode::to_nearest_even)
                      .Case("rz", arith::RoundingMode::toward_zero)
                      .Case("rd", arith::RoundingMode::downward)
                      .Case("ru", arith::RoundingMode::upward)
                      .Default(std::nullopt);
  if (!rounding)
    return {};
  bool toUnsigned = to.starts_with("u");

  // Round to an integral value first; the conversion itself truncates.
  if (isFloatName(from) && isIntName(to)) {
    Value integral = arg;
    if (*rounding == arith::RoundingMode::to_nearest_even)
      integral = math::RoundEvenOp::create(b, loc, arg);
    else if (*rounding == arith::RoundingMode::downward)
      integral = math::FloorOp::create(b, loc, arg);
    else if (*rounding == arith::RoundingMode::upward)
      integral = math::CeilOp::create(b, loc, arg);
    return createSaturatingFloatToInt(b, loc, integral, type, !toUnsigned);
  }
  // Integer to float and double to float: the arith ops round to nearest
  // (arith.truncf's rounding mode attribute only promises LLVM that the mode
  // is in effect, it does not set it); other modes are built.
  bool intToFloat = isIntName(from) && isFloatName(to);
  if (!intToFloat && !(from == "double" && to == "float"))
    return {};
  if (*rounding == arith::RoundingMode::to_nearest_even) {
    if (!intToFloat)
      return arith::TruncFOp::create(b, loc, type, arg);
    if (from.starts_with("u"))
      return arith::UIToFPOp::create(b, loc, type, arg);
    return arith::SIToFPOp::create(b, loc, type, arg);
  }
  Rounding directed =
      *rounding == arith::RoundingMode::downward ? Rounding::Down
      : *rounding == arith::RoundingMode::upward ? Rounding::Up
                                                 : Rounding::TowardZero;
  return createDirectedConversion(b, loc, arg, type, from.starts_with("u"),
                                  directed);
}

/// The CPU form of libdevice function `symbol`, or null when there is none.
Value lowerLibdeviceCall(OpBuilder &b, Location loc, StringRef symbol,
                         ValueRange args, Type type) {
  StringRef name = symbol;
  if (!name.consume_front("__nv_"))
    return {};
  // The fast_ functions are less accurate GPU approximations; the accurate
  // function is a valid implementation of each.
  name.consume_front("fast_");
  if (args.size() == 1)
    if (Value v = buildConversion(b, loc, name, args[0], type))
      return v;

  // A double function `f` has a float twin `ff`; `_rn` (round to nearest)
  // is what arith and math ops do anyway.
  LibdeviceFn fn =
      StringSwitch<LibdeviceFn>(name)
          .Cases({"acos", "acosf"}, {buildSame<math::AcosOp>, 1})
          .Cases({"acosh", "acoshf"}, {buildSame<math::AcoshOp>, 1})
          .Cases({"asin", "asinf"}, {buildSame<math::AsinOp>, 1})
          .Cases({"asinh", "asinhf"}, {buildSame<math::AsinhOp>, 1})
          .Cases({"atan", "atanf"}, {buildSame<math::AtanOp>, 1})
          .Cases({"atanh", "atanhf"}, {buildSame<math::AtanhOp>, 1})
          .Cases({"cbrt", "cbrtf"}, {buildSame<math::CbrtOp>, 1})
          .Cases({"ceil", "ceilf"}, {buildSame<math::CeilOp>, 1})
          .Cases({"cos", "cosf"}, {buildSame<math::CosOp>, 1})
          .Cases({"cosh", "coshf"}, {buildSame<math::CoshOp>, 1})
          .Cases({"erf", "erff"}, {buildSame<math::ErfOp>, 1})
          .Cases({"erfc", "erfcf"}, {buildSame<math::ErfcOp>, 1})
          .Cases({"exp", "expf"}, {buildSame<math::ExpOp>, 1})
          .Cases({"exp2", "exp2f"}, {buildSame<math::Exp2Op>, 1})
          .Cases({"expm1", "expm1f"}, {buildSame<math::ExpM1Op>, 1})
          .Cases({"fabs", "fabsf"}, {buildSame<math::AbsFOp>, 1})
          .Cases({"floor", "floorf"}, {buildSame<math::FloorOp>, 1})
          .Cases({"log", "logf"}, {buildSame<math::LogOp>, 1})
          .Cases({"log10", "log10f"}, {buildSame<math::Log10Op>, 1})
          .Cases({"log1p", "log1pf"}, {buildSame<math::Log1pOp>, 1})
          .Cases({"log2", "log2f"}, {buildSame<math::Log2Op>, 1})
          .Cases({"rint", "rintf", "nearbyint", "nearbyintf"},
                 {buildSame<math::RoundEvenOp>, 1})
          .Cases({"round", "roundf"}, {buildSame<math::RoundOp>, 1})
          .Cases({"rsqrt", "rsqrtf", "frsqrt_rn"},
                 {buildSame<math::RsqrtOp>, 1})
          .Cases({"sin", "sinf"}, {buildSame<math::SinOp>, 1})
          .Cases({"sinh", "sinhf"}, {buildSame<math::SinhOp>, 1})
          .Cases({"sqrt", "sqrtf", "fsqrt_rn", "dsqrt_rn"},
                 {buildSame<math::SqrtOp>, 1})
          .Cases({"tan", "tanf"}, {buildSame<math::TanOp>, 1})
          .Cases({"tanh", "tanhf"}, {buildSame<math::TanhOp>, 1})
          .Cases({"trunc", "truncf"}, {buildSame<math::TruncOp>, 1})
          .Cases({"exp10", "exp10f"}, {buildExp10, 1})
          .Cases({"frcp_rn", "drcp_rn"}, {buildReciprocal, 1})
          .Case("saturatef", {buildSaturate, 1})
          .Cases({"atan2", "atan2f"}, {buildSame<math::Atan2Op>, 2})
          .Cases({"copysign", "copysignf"}, {buildSame<math::CopySignOp>, 2})
          .Cases({"pow", "powf"}, {buildSame<math::PowFOp>, 2})
          .Cases({"powi", "powif"}, {buildSame<math::FPowIOp>, 2})
          .Cases({"fmod", "fmodf"}, {buildSame<arith::RemFOp>, 2})
          .Cases({"fdim", "fdimf"}, {buildFdim, 2})
          .Cases({"fadd_rn", "dadd_rn"}, {buildSame<arith::AddFOp>, 2})
          .Cases({"fsub_rn", "dsub_rn"}, {buildSame<arith::SubFOp>, 2})
          .Cases({"fmul_rn", "dmul_rn"}, {buildSame<arith::MulFOp>, 2})
          .Cases({"fdiv_rn", "ddiv_rn", "fdividef"},
                 {buildSame<arith::DivFOp>, 2})
          .Cases({"fma", "fmaf", "fma_rn", "fmaf_rn"},
                 {buildSame<math::FmaOp>, 3})
          .Cases({"abs", "llabs"}, {buildSame<math::AbsIOp>, 1})
          .Cases({"clz", "clzll"}, {buildCounted<math::CountLeadingZerosOp>, 1})
          .Cases({"popc", "popcll"}, {buildCounted<math::CtPopOp>, 1})
          .Cases({"mulhi", "mul64hi"}, {buildMulhi</*isSigned=*/true>, 2})
          .Cases({"umulhi", "umul64hi"}, {buildMulhi</*isSigned=*/false>, 2})
          .Cases({"isnanf", "isnand"}, {buildIsNaN, 1})
          .Cases({"isinff", "isinfd"},
                 {buildCompareToInf<arith::CmpFPredicate::OEQ>, 1})
          .Cases({"finitef", "isfinited"},
                 {buildCompareToInf<arith::CmpFPredicate::ONE>, 1})
          .Cases({"signbitf", "signbitd"}, {buildSignbit, 1})
          .Cases({"float_as_int", "float_as_uint", "int_as_float",
                  "uint_as_float", "double_as_longlong", "longlong_as_double"},
                 {buildBitcast, 1})
          .Default({nullptr, 0});
  if (!fn.build || fn.arity != args.size())
    return buildLibdeviceFunction(b, loc, name, args, type);
  return fn.build(b, loc, args, type);
}

struct ExternElementwiseLowering
    : OpConversionPattern<triton::ExternElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::ExternElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    Value result = lowerLibdeviceCall(rewriter, op.getLoc(), op.getSymbol(),
                                      adaptor.getSrcs(), type);
    if (!result) {
      // Reported here, where the symbol is known; the failed match then
      // fails the conversion.
      op.emitOpError() << "calls '" << op.getSymbol()
                       << "', which has no CPU implementation in spine-triton";
      return failure();
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tt.map_elementwise
//===----------------------------------------------------------------------===//

/// Emits the scalar body of `op` at `b`'s insertion point on `args` (the
/// block arguments, in order) and returns the values it yields. A body with
/// several blocks (early returns become branches) runs inside an
/// scf.execute_region, since a linalg or loop body has exactly one block.
SmallVector<Value> emitScalarBody(OpBuilder &b, Location loc,
                                  triton::MapElementwiseOp op,
                                  ValueRange args) {
  Region &body = op.getScalarOp();
  IRMapping mapping;
  mapping.map(body.front().getArguments(), args);
  if (body.hasOneBlock()) {
    for (Operation &inner : body.front().without_terminator())
      b.clone(inner, mapping);
    return llvm::map_to_vector(
        body.front().getTerminator()->getOperands(),
        [&](Value v) { return mapping.lookupOrDefault(v); });
  }

  SmallVector<Type> resultTypes;
  body.walk([&](triton::MapElementwiseReturnOp ret) {
    resultTypes.assign(ret->getOperandTypes().begin(),
                       ret->getOperandTypes().end());
  });
  auto exec = scf::ExecuteRegionOp::create(b, loc, resultTypes);
  // Mapped entry arguments are replaced, not cloned: the entry block of an
  // execute_region has none.
  body.cloneInto(&exec.getRegion(), mapping);
  exec.getRegion().walk([&](triton::MapElementwiseReturnOp ret) {
    OpBuilder at(ret);
    scf::YieldOp::create(at, ret.getLoc(), ret->getOperands());
    ret.erase();
  });
  return SmallVector<Value>(exec.getResults());
}

struct MapElementwiseLowering : OpConversionPattern<triton::MapElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::MapElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> resultTypes;
    if (failed(
            getTypeConverter()->convertTypes(op.getResultTypes(), resultTypes)))
      return failure();
    SmallVector<Value> results =
        op.getPack() == 1
            ? lowerPerElement(op, adaptor.getSrcs(), resultTypes, rewriter)
            : lowerPerGroup(op, adaptor.getSrcs(), resultTypes, rewriter);
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  /// One linalg.generic whose body is the scalar body.
  static SmallVector<Value>
  lowerPerElement(triton::MapElementwiseOp op, ValueRange srcs, TypeRange types,
                  ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    unsigned rank = cast<RankedTensorType>(types.front()).getRank();
    SmallVector<Value> inits = llvm::map_to_vector(types, [&](Type t) -> Value {
      auto type = cast<RankedTensorType>(t);
      return tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                     type.getElementType());
    });
    SmallVector<AffineMap> maps(srcs.size() + inits.size(),
                                rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, types, srcs, inits, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(
              b, loc, emitScalarBody(b, loc, op, args.take_front(srcs.size())));
        });
    return SmallVector<Value>(generic.getResults());
  }

  /// A loop over groups of `pack` consecutive elements (in row-major order)
  /// of the flattened tensors. Element k of group g is element g * pack + k;
  /// the body takes operand i's elements at arguments i * pack + k and
  /// returns result r's at r * pack + k.
  static SmallVector<Value> lowerPerGroup(triton::MapElementwiseOp op,
                                          ValueRange srcs, TypeRange types,
                                          ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    int64_t pack = op.getPack();
    auto shape = cast<RankedTensorType>(types.front());
    int64_t numElements = shape.getNumElements();
    ReassociationIndices all;
    for (int64_t d = 0; d < shape.getRank(); ++d)
      all.push_back(d);
    auto flatten = [&](Value v) -> Value {
      if (shape.getRank() == 1)
        return v;
      return tensor::CollapseShapeOp::create(
          rewriter, loc, v, SmallVector<ReassociationIndices>{all});
    };
    SmallVector<Value> flatSrcs = llvm::map_to_vector(srcs, flatten);
    SmallVector<Value> inits = llvm::map_to_vector(types, [&](Type t) -> Value {
      return tensor::EmptyOp::create(rewriter, loc, {numElements},
                                     getElementTypeOrSelf(t));
    });

    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, numElements);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, pack);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, inits,
        [&](OpBuilder &b, Location loc, Value base, ValueRange accs) {
          SmallVector<Value> positions;
          for (int64_t k = 0; k < pack; ++k)
            positions.push_back(arith::AddIOp::create(
                b, loc, base, arith::ConstantIndexOp::create(b, loc, k)));
          SmallVector<Value> args;
          for (Value src : flatSrcs)
            for (Value position : positions)
              args.push_back(tensor::ExtractOp::create(b, loc, src, position));
          SmallVector<Value> values = emitScalarBody(b, loc, op, args);
          SmallVector<Value> updated;
          for (auto [r, acc] : llvm::enumerate(accs)) {
            Value result = acc;
            for (auto [k, position] : llvm::enumerate(positions))
              result = tensor::InsertOp::create(b, loc, values[r * pack + k],
                                                result, position);
            updated.push_back(result);
          }
          scf::YieldOp::create(b, loc, updated);
        });

    SmallVector<Value> results(loop.getResults());
    if (shape.getRank() != 1)
      for (auto [type, result] : llvm::zip(types, results))
        result = tensor::ExpandShapeOp::create(
            rewriter, loc, cast<RankedTensorType>(type), result,
            SmallVector<ReassociationIndices>{all});
    return results;
  }
};

//===----------------------------------------------------------------------===//
// tt.elementwise_inline_asm
//===----------------------------------------------------------------------===//

/// Reports GPU inline assembly at the op; the failed match fails the pass.
struct ElementwiseInlineAsmLowering
    : OpConversionPattern<triton::ElementwiseInlineAsmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(triton::ElementwiseInlineAsmOp op, OpAdaptor,
                                ConversionPatternRewriter &) const override {
    op.emitOpError("inline assembly is not supported on CPU");
    return failure();
  }
};

} // namespace

void populateElementwiseExtrasToLinalgPatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<ExternElementwiseLowering, MapElementwiseLowering,
               ElementwiseInlineAsmLowering>(converter, patterns.getContext());
}

} // namespace mlir::spine
