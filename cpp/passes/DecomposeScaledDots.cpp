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
    Value values =
        createFloat8ToF32(b, loc, nibbles, b.getType<Float4E2M1FNType>());
    SmallVector<int64_t> shape(type.getShape());
    shape[packedDim] *= 2;
    return triton::ReshapeOp::create(
        b, loc, RankedTensorType::get(shape, b.getF32Type()), values,
        /*allow_reorder=*/nullptr);
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

  /// `values` ([..., rows, K] for the lhs, [..., K, cols] for the rhs)
  /// multiplied by `scale` ([..., rows or cols, K / blockSize]), each scale
  /// element repeated over its block of K.
  Value applyScale(Value values, Value scale, int64_t blockSize, bool isLhs) {
    RankedTensorType scaleType = tensorType(scale);
    int64_t rank = scaleType.getRank();
    Type f32 = b.getF32Type();
    SmallVector<int64_t> shape(scaleType.getShape());
    shape.push_back(1);
    Value expanded =
        triton::ExpandDimsOp::create(b, loc, RankedTensorType::get(shape, f32),
                                     scale, b.getI32IntegerAttr(rank));
    shape.back() = blockSize;
    Value repeated = triton::BroadcastOp::create(
        b, loc, RankedTensorType::get(shape, f32), expanded);
    shape.pop_back();
    shape.back() *= blockSize;
    Value factors = triton::ReshapeOp::create(
        b, loc, RankedTensorType::get(shape, f32), repeated, nullptr);
    if (!isLhs) {
      SmallVector<int32_t> order;
      for (int64_t d = 0; d < rank; ++d)
        order.push_back(d);
      std::swap(order[rank - 2], order[rank - 1]);
      std::swap(shape[rank - 2], shape[rank - 1]);
      factors =
          triton::TransOp::create(b, loc, RankedTensorType::get(shape, f32),
                                  factors, b.getDenseI32ArrayAttr(order));
    }
    return arith::MulFOp::create(b, loc, values, factors);
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
  Value a = decoder.decodeOperand(dot.getA(), dot.getAElemType(),
                                  dot.getLhsKPack() ? rank - 1 : rank - 2);
  Value bOperand = decoder.decodeOperand(
      dot.getB(), dot.getBElemType(), dot.getRhsKPack() ? rank - 2 : rank - 1);
  if (Value scale = dot.getAScale())
    a = decoder.applyScale(a, decoder.decodeScale(scale), blockSize,
                           /*isLhs=*/true);
  if (Value scale = dot.getBScale())
    bOperand = decoder.applyScale(bOperand, decoder.decodeScale(scale),
                                  blockSize, /*isLhs=*/false);

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
