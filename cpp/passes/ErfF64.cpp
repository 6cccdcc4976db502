//===- ErfF64.cpp - f64 erf as vector arithmetic --------------------------===//
//
// Upstream approximates erf in f32 only; f64 erf was a libm call per lane.
// Here it is polynomials with FMAs, within 2 ulp (tools/f64_math_constants.py
// fits the coefficients and measures them in an f64 emulation: at most 1.12
// ulp):
//
//   |x| < 0.84375:       erf(x) = x + x P(x^2)          (x^21: 11 terms)
//   0.84375 <= |x| < 6:  erf(x) = 1 - exp(-x^2) R(|x|),  R(a) = erfc(a) e^(a^2)
//   6 <= |x|:            erf(x) = 1                     (erfc(6) < 2^-55)
//
// R is smooth and slowly varying (about 1 / (a sqrt(pi))), a polynomial in
// a - center on each of three pieces (16, 15 and 13 terms). Adding x last
// keeps small arguments accurate; above 0.84375 erfc is below 0.24, so the
// error of exp(-x^2) (x^2 rounded, exp within an ulp) shrinks by that factor
// in 1 - erfc. The sign is x's; NaN takes the small piece and stays NaN.
//
//===----------------------------------------------------------------------===//

#include "passes/MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace mlir::spine {
namespace {

// tools/f64_math_constants.py's output: P's coefficients of t^0, t^1, ..., and
// R's of u^0, u^1, ... (u = |x| - center) on each piece.
constexpr double kErfSmall[] = {
    0.12837916709551256,    -0.376126389031834,      0.11283791670935311,
    -0.02686617064077985,   0.005223977576377844,    -0.000854832379116413,
    0.00012055199941321885, -1.4922121574443055e-05, 1.640162967934702e-06,
    -1.571446067260244e-07, 1.0726571432176348e-08};
constexpr double kErfcScaled0[] = {
    0.3582639811839049,      -0.19913196589975918,    0.1000147129076567,
    -0.046283590065096844,   0.019995341020789686,    -0.008140852871344582,
    0.0031458908256520204,   -0.0011602930641445698,  0.00041028378826854934,
    -0.00013960131042839224, 4.584924063783159e-05,   -1.4571808084778891e-05,
    4.482844705917925e-06,   -1.3431565416227699e-06, 4.1873294081383785e-07,
    -1.1869529205953442e-07};
constexpr double kErfcScaled1[] = {
    0.2108063640611436,     -0.07434734678981073,    0.02493799708666054,
    -0.008001569381036673,  0.00246703681546022,     -0.0007335909575477673,
    0.00021101982890761405, -5.8868792497429984e-05, 1.5961814125749622e-05,
    -4.21504006296136e-06,  1.0853912541971192e-06,  -2.712382288513277e-07,
    6.675158208390808e-08,  -1.8159353990613797e-08, 4.267961571737687e-09};
constexpr double kErfcScaled2[] = {
    0.11931528862713332,     -0.02471274728726696,   0.005018832388706282,
    -0.0010004317680677335,  0.0001959179977238022,  -3.7723950043367236e-05,
    7.147463412935197e-06,   -1.334249634290813e-06, 2.4523586876093955e-07,
    -4.3708232932531465e-08, 7.81853710049408e-09,   -1.6879108642956266e-09,
    2.9257890097693416e-10};

/// The pieces of R above: where |x| starts to take each, and the center
/// its polynomial is in.
struct TailPiece {
  double from, center;
  ArrayRef<double> coefficients;
};

Value erfF64(ElementwiseBuilder &e, Value x) {
  using arith::CmpFPredicate;
  auto c = [&](double v) { return e.fLike(x, v); };
  Value a = e.abs(x);
  Value small = e.fma(x, e.polynomial(e.mul(x, x), kErfSmall), x);
  // exp(-a^2) once for the three pieces; beyond 6 (and at infinity) it is
  // selected away.
  Value exponential = expF64(e, e.neg(e.mul(a, a)));
  const TailPiece pieces[] = {{0.84375, 1.296875, kErfcScaled0},
                              {1.75, 2.5, kErfcScaled1},
                              {3.25, 4.625, kErfcScaled2}};
  Value magnitude = small;
  for (const TailPiece &piece : pieces) {
    Value r = e.polynomial(e.sub(a, c(piece.center)), piece.coefficients);
    Value erf = e.fma(e.neg(exponential), r, c(1.0));
    // Ordered compares: a NaN keeps the small piece's NaN.
    magnitude =
        e.select(e.cmpf(CmpFPredicate::OGE, a, c(piece.from)), erf, magnitude);
  }
  magnitude =
      e.select(e.cmpf(CmpFPredicate::OGE, a, c(6.0)), c(1.0), magnitude);
  return e.copysign(magnitude, x);
}

} // namespace

void populateErfF64Patterns(RewritePatternSet &patterns) {
  patterns.add<F64Function<math::ErfOp>>(patterns.getContext(), erfF64);
}

} // namespace mlir::spine
