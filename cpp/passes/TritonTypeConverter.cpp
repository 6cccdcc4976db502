//===- TritonTypeConverter.cpp - Triton types to builtin types ------------===//

#include "passes/TritonTypeConverter.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::spine {

TritonTypeConverter::TritonTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  addConversion(
      [ctx](triton::PointerType) -> Type { return IntegerType::get(ctx, 64); });
  addConversion([this](RankedTensorType type) -> Type {
    Type element = convertType(type.getElementType());
    if (!element)
      return nullptr;
    return RankedTensorType::get(type.getShape(), element);
  });
  // Values crossing a not-yet-converted boundary are bridged with casts that
  // must all be folded away by the end of the conversion.
  auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

int64_t getStorageSizeInBytes(Type type) {
  if (isa<triton::PointerType>(type))
    return 8;
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits < 8 ? 1 : bits / 8;
}

} // namespace mlir::spine
