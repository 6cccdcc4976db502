//===- DecomposeScaledDots.cpp - tt.dot_scaled as decode, scale, tt.dot ---===//
//
// Runs on TTIR, before spine-accumulate-narrow-floats and
// spine-legalize-float-types. A CPU has no microscaling dot instruction, so
// each tt.dot_scaled becomes ops the pipeline already lowers:
//  - each operand decoded to f32: fp4 (e2m1) nibbles, two per byte with the
//    first element in the low bits, by the fp8 decoder's integer arithmetic
//    (FloatConversions.h); fp8 (e4m3, e5m2), bf16 and fp16 by arith.extf
//    (fp8 is decoded later by spine-legalize-float-types);
//  - multiplied by its scale, one per block of 16 or 32 elements along K:
//    an e8m0 byte s is 2^(s - 127) (0 is 2^-127, 0xFF is NaN), a float scale
//    (fp8 e4m3 for NVFP4) its value;
//  - a tt.dot of the results into the accumulator.
// The dot multiplies f32 operands, exact for every product of decoded and
// scaled values. With fastMath it multiplies bf16 ones, as Triton's own
// emulation of scaled dots on GPUs without them does, when both formats are
// exact in bf16 once scaled (e2m1, e4m3, e5m2 and bf16 carry at most 8
// significant bits): AMX and AVX512-BF16 then multiply faster, but
// read bf16 subnormals as zero, so values scaled below 2^-126 drop out.
//
//===----------------------------------------------------------------------===//

#include "passes/FloatConversions.h"
#include "passes/Passes.h"
#include "passes/TensorBuilders.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::spine {
#define GEN_PASS_DEF_DECOMPOSESCALEDDOTS
#include "passes/Passes.h.inc"

namespace {

using triton::ScaleDotElemType;

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Builds the decoding of one tt.dot_scaled at its position.
struct ScaledDotDecoder {
  OpBuilder &b;
  Location loc;

  Value intLike(Value like, int64_t value) {
    return createIntLike(b, loc, like.getType(), value);
  }

  /// The f32 values of an i8 tensor packing two fp4 codes per byte along
  /// `packedDim`, the first in the low nibble: that dimension doubles. Built
  /// as a tensor with a pair axis right behind `packedDim` whose element j
  /// takes nibble j of its byte (a shift by 4 j), decoded once: elementwise
  /// ops and broadcasts, which fuse into one loop writing the tile in order
  /// (a tt.join of both decoded nibbles, transposed when the pairs lie along
  /// rows, was a strided write and a transposing copy: fp4 B tiles).
  Value unpackE2M1(Value packed, int64_t packedDim) {
    SmallVector<int64_t> shape(tensorType(packed).getShape());
    shape[packedDim] *= 2;
    return triton::ReshapeOp::create(
        b, loc, RankedTensorType::get(shape, b.getF32Type()),
        unpackE2M1Pairs(packed, packedDim), /*allow_reorder=*/nullptr);
  }

  /// The f32 values of `packed` as unpackE2M1 builds them, before its
  /// reshape: the pair axis right behind `packedDim`.
  Value unpackE2M1Pairs(Value packed, int64_t packedDim) {
    RankedTensorType type = tensorType(packed);
    int64_t rank = type.getRank();
    SmallVector<int64_t> pairShape(type.getShape());
    pairShape.insert(pairShape.begin() + packedDim + 1, 2);
    auto pairType = RankedTensorType::get(pairShape, type.getElementType());
    SmallVector<int64_t> byteShape(pairShape);
    byteShape[packedDim + 1] = 1;
    Value bytes = triton::ExpandDimsOp::create(
        b, loc, RankedTensorType::get(byteShape, type.getElementType()), packed,
        b.getI32IntegerAttr(packedDim + 1));
    bytes = triton::BroadcastOp::create(b, loc, pairType, bytes);
    // The shift of each element of the pair axis: 0 and 4.
    Value index = triton::MakeRangeOp::create(
        b, loc, RankedTensorType::get({2}, b.getI32Type()),
        b.getI32IntegerAttr(0), b.getI32IntegerAttr(2));
    SmallVector<int64_t> indexShape(rank + 1, 1);
    indexShape[packedDim + 1] = 2;
    index = triton::ReshapeOp::create(
        b, loc, RankedTensorType::get(indexShape, b.getI32Type()), index,
        /*allow_reorder=*/nullptr);
    index = triton::BroadcastOp::create(b, loc, pairType.clone(b.getI32Type()),
                                        index);
    Value shift = arith::TruncIOp::create(
        b, loc, pairType,
        arith::MulIOp::create(b, loc, index, intLike(index, 4)));
    Value nibbles = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, bytes, shift),
        intLike(bytes, 0xF));
    return createFloat8ToF32(b, loc, nibbles, b.getType<Float4E2M1FNType>());
  }

  /// An operand of `format` as f32 values. `packedDim` is the dimension fp4
  /// pairs lie along.
  Value decodeOperand(Value operand, ScaleDotElemType format,
                      int64_t packedDim) {
    if (format == ScaleDotElemType::E2M1)
      return unpackE2M1(operand, packedDim);
    return arith::ExtFOp::create(
        b, loc, tensorType(operand).clone(b.getF32Type()), operand);
  }

  /// The f32 factor of each scale element: e8m0 bytes are a biased power of
  /// two, float scales their value.
  Value decodeScale(Value scale) {
    RankedTensorType type = tensorType(scale);
    RankedTensorType f32Type = type.clone(b.getF32Type());
    if (isa<FloatType>(type.getElementType()))
      return arith::ExtFOp::create(b, loc, f32Type, scale);
    Value biased =
        arith::ExtUIOp::create(b, loc, type.clone(b.getI32Type()), scale);
    Value bits = arith::ShLIOp::create(b, loc, biased, intLike(biased, 23));
    // 2^-127 is an f32 subnormal; 0xFF is e8m0's NaN.
    bits = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, biased,
                              intLike(biased, 0)),
        intLike(biased, 0x00400000), bits);
    bits = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, biased,
                              intLike(biased, 0xFF)),
        intLike(biased, 0x7FC00000), bits);
    return arith::BitcastOp::create(b, loc, f32Type, bits);
  }

  /// `operand` decoded to f32 and multiplied by `scale` ([..., rows, K /
  /// blockSize] for the lhs, [..., cols, K / blockSize] for the rhs), each
  /// scale element applying to a block of K. The decoding and the product
  /// run on the operand with K split into [K / blockSize, blockSize] (the
  /// bytes of a block for fp4 pairs along K) and fp4's pair axis not yet
  /// merged, where the scales only broadcast: one elementwise loop, and the
  /// rhs's scales transposed as [K / blockSize, cols], not as factors
  /// repeated over the whole tile.
  Value decodeScaled(Value operand, ScaleDotElemType format, int64_t packedDim,
                     Value scale, int64_t blockSize, bool isLhs) {
    RankedTensorType type = tensorType(operand);
    int64_t rank = type.getRank();
    int64_t kDim = isLhs ? rank - 1 : rank - 2;
    bool fp4 = format == ScaleDotElemType::E2M1;
    int64_t unit = fp4 && packedDim == kDim ? blockSize / 2 : blockSize;
    SmallVector<int64_t> blocked(type.getShape());
    blocked[kDim] /= unit;
    blocked.insert(blocked.begin() + kDim + 1, unit);
    Value values = triton::ReshapeOp::create(
        b, loc, type.clone(blocked), operand, /*allow_reorder=*/nullptr);
    // The axes the scales do not vary along: the block's, and fp4's pairs
    // when they lie along K (along rows or columns, the pair axis splits
    // them, and the scales' rows or columns split alike).
    int64_t unitAxis = kDim + 1;
    int64_t pairAxis = -1;
    if (fp4) {
      int64_t blockedPacked = packedDim < kDim ? packedDim : packedDim + 1;
      values = unpackE2M1Pairs(values, blockedPacked);
      if (blockedPacked < unitAxis)
        ++unitAxis;
      if (packedDim == kDim)
        pairAxis = blockedPacked + 1;
    } else {
      values = decodeOperand(values, format, packedDim);
    }

    Value factors = decodeScale(scale);
    if (!isLhs) {
      SmallVector<int32_t> order;
      for (int64_t d = 0; d < rank; ++d)
        order.push_back(d);
      std::swap(order[rank - 2], order[rank - 1]);
      SmallVector<int64_t> shape(tensorType(factors).getShape());
      std::swap(shape[rank - 2], shape[rank - 1]);
      factors =
          triton::TransOp::create(b, loc, tensorType(factors).clone(shape),
                                  factors, b.getDenseI32ArrayAttr(order));
    }
    RankedTensorType valuesType = tensorType(values);
    SmallVector<int64_t> shape(valuesType.getShape());
    shape[unitAxis] = 1;
    if (pairAxis >= 0)
      shape[pairAxis] = 1;
    factors = triton::ReshapeOp::create(b, loc, valuesType.clone(shape),
                                        factors, /*allow_reorder=*/nullptr);
    factors = triton::BroadcastOp::create(b, loc, valuesType, factors);
    values = arith::MulFOp::create(b, loc, values, factors);

    SmallVector<int64_t> result(type.getShape());
    if (fp4)
      result[packedDim] *= 2;
    return triton::ReshapeOp::create(b, loc, valuesType.clone(result), values,
                                     /*allow_reorder=*/nullptr);
  }
};

bool isExactInBF16(ScaleDotElemType format) {
  return format == ScaleDotElemType::E2M1 || format == ScaleDotElemType::E4M3 ||
         format == ScaleDotElemType::E5M2 || format == ScaleDotElemType::BF16;
}

LogicalResult decompose(triton::DotScaledOp dot) {
  for (ScaleDotElemType format : {dot.getAElemType(), dot.getBElemType()})
    if (format == ScaleDotElemType::E2M3 || format == ScaleDotElemType::E3M2)
      return dot.emitOpError("with fp6 operands (")
             << triton::stringifyScaleDotElemType(format)
             << ") is not supported by spine-triton";
  int64_t rank = dot.getType().getRank();
  for (Value scale : {dot.getAScale(), dot.getBScale()})
    if (scale && tensorType(scale).getRank() != rank)
      return dot.emitOpError("with a scale of rank ")
             << tensorType(scale).getRank() << " for operands of rank " << rank
             << " is not supported by spine-triton";

  OpBuilder b(dot);
  ScaledDotDecoder decoder{b, dot.getLoc()};
  int64_t blockSize = dot.deduceScaleFactor();
  // fp4 pairs lie along K, or along M (lhs) / N (rhs) without k_pack.
  int64_t aPacked = dot.getLhsKPack() ? rank - 1 : rank - 2;
  int64_t bPacked = dot.getRhsKPack() ? rank - 2 : rank - 1;
  Value a =
      dot.getAScale()
          ? decoder.decodeScaled(dot.getA(), dot.getAElemType(), aPacked,
                                 dot.getAScale(), blockSize,
                                 /*isLhs=*/true)
          : decoder.decodeOperand(dot.getA(), dot.getAElemType(), aPacked);
  Value bOperand =
      dot.getBScale()
          ? decoder.decodeScaled(dot.getB(), dot.getBElemType(), bPacked,
                                 dot.getBScale(), blockSize, /*isLhs=*/false)
          : decoder.decodeOperand(dot.getB(), dot.getBElemType(), bPacked);

  if (dot.getFastMath() && isExactInBF16(dot.getAElemType()) &&
      isExactInBF16(dot.getBElemType())) {
    Type bf16 = b.getBF16Type();
    a = arith::TruncFOp::create(b, dot.getLoc(), tensorType(a).clone(bf16), a);
    bOperand = arith::TruncFOp::create(
        b, dot.getLoc(), tensorType(bOperand).clone(bf16), bOperand);
  }
  auto ieee = triton::InputPrecisionAttr::get(b.getContext(),
                                              triton::InputPrecision::IEEE);
  Value result = triton::DotOp::create(b, dot.getLoc(), dot.getType(), a,
                                       bOperand, dot.getC(), ieee);
  dot.replaceAllUsesWith(result);
  dot.erase();
  return success();
}

struct DecomposeScaledDotsPass
    : impl::DecomposeScaledDotsBase<DecomposeScaledDotsPass> {
  void runOnOperation() override {
    SmallVector<triton::DotScaledOp> dots;
    getOperation().walk([&](triton::DotScaledOp dot) { dots.push_back(dot); });
    for (triton::DotScaledOp dot : dots)
      if (failed(decompose(dot)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::spine
