//===- ApproximateMath.cpp - math functions as vectorizable arithmetic ----===//
//
// A libm call per element keeps LLVM from vectorizing a loop (and on RISC-V
// there is no vector math library to fall back on). MLIR's polynomial
// approximations turn the f32 functions into plain arithmetic; functions
// without one are first expanded into ones that have (exp2 -> exp,
// sinh/cosh -> exp, ...).
//
//===----------------------------------------------------------------------===//

#include "passes/ElementwiseBuilder.h"
#include "passes/KnownBound.h"
#include "passes/MathApproximations.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

namespace mlir::spine {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "passes/Passes.h.inc"

namespace {

/// x clamped to [lo, hi] with NaN kept (unordered compares): on x86 each
/// select is one vmaxps/vminps.
Value clampKeepingNaN(ElementwiseBuilder &e, Value x, Value lo, Value hi) {
  using arith::CmpFPredicate;
  x = e.select(e.cmpf(CmpFPredicate::UGE, x, lo), x, lo);
  return e.select(e.cmpf(CmpFPredicate::ULE, x, hi), x, hi);
}

/// e^r for f32 exp, coefficients of r^0, r^1, ...: degree 6 fitted to
/// relative error on [-ln2/2, ln2/2], and degree 7 on [-ln2/2, 0.78] (where
/// the exponent is capped at 127, ExpF32).
constexpr double kExpOnHalfLn2[] = {1.0,
                                    1.0,
                                    0.4999999403953552,
                                    0.1666652113199234,
                                    0.04166838899254799,
                                    0.008368710987269878,
                                    0.0013814610429108143};
constexpr double kExpOnCappedRange[] = {1.0,
                                        1.0,
                                        0.49999988079071045,
                                        0.16666698455810547,
                                        0.041669879108667374,
                                        0.008325913920998573,
                                        0.0013747852062806487,
                                        0.00024263559316750616};

/// The scalar a vector.broadcast repeats, or `v` itself.
Value splatSource(Value v) {
  if (auto broadcast = v.getDefiningOp<vector::BroadcastOp>())
    return broadcast.getSource();
  return v;
}

/// The constant C where `x` is `select(cmpf(ule, v, C), v, C)` (or an
/// ordered or strict compare): x <= C or NaN. The upper half of
/// clampKeepingNaN, and what spine-bound-shifted-exponents puts in front of
/// softmax's exponentials.
std::optional<double> upperBound(Value x) {
  auto select = x.getDefiningOp<arith::SelectOp>();
  if (!select)
    return std::nullopt;
  auto compare = select.getCondition().getDefiningOp<arith::CmpFOp>();
  APFloat bound(0.0);
  using arith::CmpFPredicate;
  if (!compare ||
      !llvm::is_contained({CmpFPredicate::ULE, CmpFPredicate::ULT,
                           CmpFPredicate::OLE, CmpFPredicate::OLT},
                          compare.getPredicate()) ||
      compare.getLhs() != select.getTrueValue() ||
      compare.getRhs() != select.getFalseValue() ||
      !matchPattern(splatSource(select.getFalseValue()),
                    m_ConstantFloat(&bound)))
    return std::nullopt;
  return bound.convertToDouble();
}

/// The widest vscalefps form (16, 8 or 4 lanes) that divides `type`'s lanes
/// (a scalar goes through a 4-lane vector), or 0 where none does.
int64_t scalefLanes(Type type) {
  auto vectorType = dyn_cast<VectorType>(type);
  if (!vectorType)
    return 4;
  if (vectorType.getRank() != 1 || vectorType.isScalable())
    return 0;
  for (int64_t lanes : {16, 8, 4})
    if (vectorType.getNumElements() % lanes == 0)
      return lanes;
  return 0;
}

/// p * 2^n for f32 `p` and integral `n` by AVX-512's vscalefps: exact
/// scaling, overflow to infinity and gradual underflow, no exponent-field
/// arithmetic. Wider vectors (the vectorizer's strips of several registers)
/// are scaled in pieces of scalefLanes, which LLVM's type splitting makes
/// free. `p`'s type must have scalefLanes.
Value scaleByPowerOfTwo(OpBuilder &b, Location loc, Value p, Value n) {
  Type type = p.getType();
  int64_t lanes = scalefLanes(type);
  auto pieceType = VectorType::get({lanes}, b.getF32Type());
  // Operands after a and b: the pass-through for masked-off lanes, the lane
  // mask (all on) and, for 512 bits, the rounding (4: MXCSR's mode).
  auto scalef = [&](Value a, Value exponent) -> Value {
    SmallVector<Value> args = {a, exponent, a};
    StringRef name = "llvm.x86.avx512.mask.scalef.ps.128";
    if (lanes == 16) {
      name = "llvm.x86.avx512.mask.scalef.ps.512";
      args.push_back(arith::ConstantIntOp::create(b, loc, -1, 16));
      args.push_back(arith::ConstantIntOp::create(b, loc, 4, 32));
    } else {
      if (lanes == 8)
        name = "llvm.x86.avx512.mask.scalef.ps.256";
      args.push_back(arith::ConstantIntOp::create(b, loc, -1, 8));
    }
    return LLVM::CallIntrinsicOp::create(b, loc, pieceType,
                                         b.getStringAttr(name), args)
        .getResult(0);
  };
  auto vectorType = dyn_cast<VectorType>(type);
  if (!vectorType) {
    Value scaled = scalef(vector::BroadcastOp::create(b, loc, pieceType, p),
                          vector::BroadcastOp::create(b, loc, pieceType, n));
    return vector::ExtractOp::create(b, loc, scaled, ArrayRef<int64_t>{0});
  }
  if (vectorType.getNumElements() == lanes)
    return scalef(p, n);
  Value result = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  for (int64_t at = 0; at < vectorType.getNumElements(); at += lanes) {
    auto piece = [&](Value v) {
      return vector::ExtractStridedSliceOp::create(b, loc, v, {at}, {lanes},
                                                   {1});
    };
    result = vector::InsertStridedSliceOp::create(
        b, loc, scalef(piece(p), piece(n)), result, {at}, {1});
  }
  return result;
}

/// f32 exp2(x) as 2^n * 2^f, n = roundeven(x) and f = x - n (exact, |f| <=
/// 1/2). Adding 1.5 * 2^23 rounds x to n (no rounding op) and leaves n in the
/// sum's low bits (no float-to-int conversion); 2^f is a degree-6 polynomial
/// fitted to relative error on [-1/2, 1/2], exactly 1 at f = 0 (exp2 of an
/// integer is exact). 2^n is built from exponent bits in two halves, so
/// results that overflow or are subnormal round at the end. Within 1 ulp
/// (sampled over [1, 2], [64, 128], [-126, -64] and the subnormal results
/// of [-149.9, -126] in an f32 emulation). Upstream's expansion exp(x * ln2)
/// rounds x * ln2 and loses about |x| ulps (34 at x = 120). 20 ops, where the
/// same through our exp took 33 (the flash-attention softmax's function).
///
/// With `scalef` (x86 AVX-512) 2^n is applied by vscalefps instead: 12 ops,
/// and subnormal results are rounded once, where the halves' first multiply
/// may round them already.
struct Exp2F32 : OpRewritePattern<math::Exp2Op> {
  Exp2F32(MLIRContext *context, bool scalef)
      : OpRewritePattern(context), scalef(scalef) {}
  bool scalef;

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), type);
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    auto c = [&](double v) { return e.f(f32, v); };
    // Below -151 every result is 0, from 129 on infinity; NaN stays (and p
    // is NaN, whatever its exponent).
    Value x = clampKeepingNaN(e, op.getOperand(), c(-151), c(129));
    const double shifter = 0x1.8p23;
    Value t = e.add(x, c(shifter));
    Value n = e.sub(t, c(shifter));
    Value f = e.sub(x, n);
    Value p = e.polynomial(f, {1.0, 0.6931471824645996, 0.24022647738456726,
                               0.055503323674201965, 0.00961843691766262,
                               0.0013398875016719103, 0.00015353360504377633});
    if (scalef && scalefLanes(type)) {
      rewriter.replaceOp(op, scaleByPowerOfTwo(rewriter, op.getLoc(), p, n));
      return success();
    }
    Value k = e.subi(e.bitcast(t, i32), e.bitcast(c(shifter), i32));
    Value k1 = e.shrs(k, e.i(i32, 1));
    auto powerOfTwo = [&](Value exponent) {
      return e.bitcast(e.shl(e.addi(exponent, e.i(i32, 127)), e.i(i32, 23)),
                       f32);
    };
    rewriter.replaceOp(
        op, e.mul(e.mul(p, powerOfTwo(k1)), powerOfTwo(e.subi(k, k1))));
    return success();
  }
};

/// f32 exp(x) as 2^n * e^r, n = roundeven(x * log2(e)) and r = x - n * ln2
/// (ln2 in two parts: r is exact to far below an ulp). Adding 1.5 * 2^23 +
/// 127 rounds x * log2(e) to an integer and leaves n + 127 in the sum's low
/// mantissa bits, which shifted into the exponent field are 2^n: no
/// rounding op, no float-to-int conversion, four ops fewer than upstream's
/// expansion (none of them a multiply or fma, which bound softmax's
/// exponential loop: it gained 2%). n stops at 127, so
/// the largest finite results (x up to 88.72) have r up to 0.69: e^r is a
/// degree-7 polynomial fitted to relative error on [-ln2/2, 0.78].
/// Within 1 ulp of the rounded result wherever it is normal (every float of
/// [32, 88.72] and [-87.33, -32] in an f32 emulation, sampled in between;
/// upstream: 6 ulp near overflow). x is clamped to
/// [-87.8, 88.8] first (NaN passes: unordered compares), where n = -127
/// builds 0: results below 2^-126.5 (x < -87.68) flush to zero, as
/// upstream's do, exp(-inf) = 0, and x = 88.8 overflows to infinity.
///
/// With `scalef` (x86 AVX-512) vscalefps applies 2^n for any n, so n is not
/// capped, r stays within [-ln2/2, ln2/2] and a degree-6 polynomial is
/// enough: within 1 ulp, subnormal results included (a grid of step 6.4e-6
/// over [-104, 89] in an f32 emulation). 12 ops, 10 of them fmas or the
/// scaling, against 16 and 11: the multiplier pipes bound softmax's
/// exponential loop (tutorial softmax 64 x 4096 in cache, 1 thread: 1.67 ->
/// 1.44 cycles per element).
///
/// Where x is already clamped to at most 88 (upperBound: softmax's x -
/// max(x), spine-bound-shifted-exponents), n stays at most 127 without the cap,
/// r within [-ln2/2, ln2/2], and the same degree-6 polynomial serves: no upper
/// clamp, no cap, 13 ops (10 fmas or multiplies) against 16 (11); with
/// `scalef`, 11. Where that clamp is marked as only carrying its bound
/// (kKnownBound), x is read through it: 12 ops, 10 with `scalef`.
struct ExpF32 : OpRewritePattern<math::ExpOp> {
  ExpF32(MLIRContext *context, bool scalef)
      : OpRewritePattern(context), scalef(scalef) {}
  bool scalef;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    ElementwiseBuilder e(rewriter, op.getLoc(), type);
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    auto c = [&](double v) { return e.f(f32, v); };
    // x clamped to [lo, hi], from below only where it is at most hi already.
    Value argument = op.getOperand();
    std::optional<double> bound = upperBound(argument);
    // A clamp that only carries its bound is read through (KnownBound.h):
    // one op per element less.
    if (bound && argument.getDefiningOp()->hasAttr(kKnownBound))
      argument = argument.getDefiningOp<arith::SelectOp>().getTrueValue();
    auto clamp = [&](double lo, double hi) {
      if (bound && *bound <= hi)
        return e.select(e.cmpf(arith::CmpFPredicate::UGE, argument, c(lo)),
                        argument, c(lo));
      return clampKeepingNaN(e, argument, c(lo), c(hi));
    };
    if (scalef && scalefLanes(type)) {
      // From -104 on every result rounds to 0 (2^-150 at most), from 89 it
      // is infinity; the bounds keep n finite (exp(-inf) = 0).
      Value x = clamp(-104, 89);
      const double shifter = 0x1.8p23;
      Value n = e.sub(e.fma(x, c(M_LOG2E), c(shifter)), c(shifter));
      Value r = e.fma(n, c(-0.693359375), x);
      r = e.fma(n, c(2.12194440e-4), r);
      Value p = e.polynomial(r, kExpOnHalfLn2);
      rewriter.replaceOp(op, scaleByPowerOfTwo(rewriter, op.getLoc(), p, n));
      return success();
    }
    Value x = clamp(-87.8, 88.8);
    const double shifter = 0x1.8p23 + 127;
    Value t = e.fma(x, c(M_LOG2E), c(shifter));
    // Below 88.37, x * log2(e) rounds to at most 127: no cap needed.
    bool capped = !bound || *bound > 88;
    if (capped) // a NaN t takes the bound; r is NaN all the same
      t = e.select(e.cmpf(arith::CmpFPredicate::OLT, t, c(shifter + 127)), t,
                   c(shifter + 127));
    Value n = e.sub(t, c(shifter));
    Value r = e.fma(n, c(-0.693359375), x); // exact: n * 0.693359375 is
    r = e.fma(n, c(2.12194440e-4), r);      // 17 bits, ln2 = the difference
    Value p =
        e.polynomial(r, capped ? ArrayRef(kExpOnCappedRange) : kExpOnHalfLn2);
    Value scale = e.bitcast(e.shl(e.bitcast(t, i32), e.i(i32, 23)), f32);
    rewriter.replaceOp(op, e.mul(p, scale));
    return success();
  }
};

/// An f32 argument brought into the normal range (scaleSubnormalArguments).
struct ScaledArgument {
  Value x;      // the argument
  Value tiny;   // where x was subnormal (or zero)
  Value scaled; // x, times 2^24 where tiny
};

/// MLIR's f32 log, log2 and cbrt approximations take the exponent from the
/// float's exponent field, which is 0 for a subnormal x: log(1e-40) came out
/// as log(2^-126) = -87.3 instead of -92.1, cbrt(1e-44) 37 times too large.
/// A subnormal x is scaled by 2^24 into the normal range and `unscale` takes
/// the scale's effect off the result where it was scaled: a compare and two
/// selects or so per element.
template <typename Op>
void scaleSubnormalArguments(
    Operation *root, function_ref<Value(ElementwiseBuilder &,
                                        const ScaledArgument &, Value result)>
                         unscale) {
  root->walk([&](Op op) {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return;
    OpBuilder b(op);
    ElementwiseBuilder e(b, op.getLoc(), type);
    Value x = op.getOperand();
    // Zeros pass too: log(0 * 2^24) is still -inf, cbrt(-0 * 2^24) -0.
    Value tiny =
        e.cmpf(arith::CmpFPredicate::OLT, e.abs(x), e.fLike(x, 0x1p-126));
    Value scaled = e.select(tiny, e.mul(x, e.fLike(x, 0x1p24)), x);
    Value result = Op::create(b, op.getLoc(), scaled, op.getFastmathAttr());
    op.getResult().replaceAllUsesWith(unscale(e, {x, tiny, scaled}, result));
    op.erase();
  });
}

/// A function of a subnormal-scaled x less `offset` there (log(2^24 x) =
/// log(x) + offset).
auto lessWhereTiny(double offset) {
  return [offset](ElementwiseBuilder &e, const ScaledArgument &argument,
                  Value result) {
    return e.sub(result, e.select(argument.tiny, e.fLike(result, offset),
                                  e.fLike(result, 0.0)));
  };
}

/// MLIR's f32 cbrt of the scaled x, `result`, made good: one Newton step
/// (MLIR's is up to 11 ulp off, 1.4e-6, more than torch.testing's default
/// fp32 tolerance; after the step within 1 ulp), cbrt(2^24 x) = 2^8 cbrt(x)
/// where x was scaled, and cbrt(+-inf), which MLIR's made NaN, x itself.
Value refineCbrt(ElementwiseBuilder &e, const ScaledArgument &argument,
                 Value result) {
  using arith::CmpFPredicate;
  auto [x, tiny, scaled] = argument;
  // r - (r^3 - s) / (3 r^2), the residual with one rounding less by an fma;
  // cbrt(+-0) is +-0 and has no step.
  Value square = e.mul(result, result);
  Value residual = e.fma(square, result, e.sub(e.fLike(x, 0.0), scaled));
  Value step = e.div(residual, e.mul(e.fLike(x, 3.0), square));
  Value zero = e.cmpf(CmpFPredicate::OEQ, scaled, e.fLike(x, 0.0));
  result = e.select(zero, scaled, e.sub(result, step));
  result = e.mul(result,
                 e.select(tiny, e.fLike(result, 0x1p-8), e.fLike(result, 1.0)));
  Value infinite = e.cmpf(CmpFPredicate::OEQ, e.abs(x),
                          e.fLike(x, std::numeric_limits<float>::infinity()));
  return e.select(infinite, x, result);
}

struct ApproximateMathPass : impl::ApproximateMathBase<ApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    scaleSubnormalArguments<math::LogOp>(getOperation(),
                                         lessWhereTiny(24 * M_LN2));
    scaleSubnormalArguments<math::Log2Op>(getOperation(), lessWhereTiny(24));
    scaleSubnormalArguments<math::CbrtOp>(getOperation(), refineCbrt);
    RewritePatternSet patterns(&getContext());
    // Expansions into functions that have an approximation. Rounding and
    // sqrt are left alone: LLVM has native vector instructions for them.
    // pow is not expanded: exp(y * log(x)) is wrong for negative bases with
    // integral exponents, which pow defines.
    populateHyperbolicFunctionPatterns(patterns);
    // f32 exp2 and exp are ours (above; f64 exp2 is ExpLogF64.cpp's).
    patterns.add<Exp2F32, ExpF32>(&getContext(), avx512Scalef);
    // f32 sin, cos, tan, pow, atan and atan2 are ours (MathApproximations.h):
    // upstream's sin and cos reduce the argument in f32, so their error grows
    // with |x| (3e-4 at 1e4), too much for e.g. rotary embeddings; its atan2
    // was 40 ulp off and NaN at (0, 0).
    populateSinCosApproximationPatterns(patterns);
    populatePowApproximationPatterns(patterns);
    populateAtanApproximationPatterns(patterns);
    populateExpLogF64Patterns(patterns);
    populateErfF64Patterns(patterns);
    // rsqrt's only approximation is x86vector's AVX2 one (for vector<8xf32>):
    // neither portable nor lowered by this pipeline, and its pattern crashes
    // where the x86vector dialect is not loaded. LLVM lowers 1/sqrt itself.
    auto approximated = [](StringRef name) {
      return name != math::ExpOp::getOperationName() &&
             name != math::SinOp::getOperationName() &&
             name != math::CosOp::getOperationName() &&
             name != math::TanOp::getOperationName() &&
             name != math::PowFOp::getOperationName() &&
             name != math::AtanOp::getOperationName() &&
             name != math::Atan2Op::getOperationName() &&
             name != math::RsqrtOp::getOperationName();
    };
    populateMathF32ExpansionPatterns(patterns, approximated);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::spine
