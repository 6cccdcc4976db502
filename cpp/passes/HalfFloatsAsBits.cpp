//===- HalfFloatsAsBits.cpp - 16-bit floats move as i16 -------------------===//
//
// Loads, stores, masked loads and stores, gathers, scatters, selects and
// shuffles of f16 and bf16 values only move bits, so they are rewritten to
// i16, with bitcasts where the values meet arithmetic. x86's backend has no
// 16-bit float vector type without AVX512-FP16/BF16: it promotes such an op
// to f32, widening each lane and rounding it back, for bf16 through a
// __truncsfbf2 call per lane, or splits it into one scalar move per lane. A
// masked load of a bf16 tile row (the tutorial matmul's masked K block) made
// 32 calls, and so did the NaN select of upstream's f32 -> bf16 rounding for
// every 32 outputs: a fifth of a bf16 matmul's time. The shuffles of bf16
// attention's transposed K tiles (spine-vectorize-transposes) were 4000
// scalar moves. As i16, the same ops are vector moves, blends, shuffles and
// masked moves.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::spine {
#define GEN_PASS_DEF_HALFFLOATSASBITS
#include "passes/Passes.h.inc"

namespace {

/// i16 (or a vector of i16) for an f16 or bf16 type (or vector of them);
/// null for any other type.
Type bitsOf(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  Type element = vector ? vector.getElementType() : type;
  if (!isa<Float16Type, BFloat16Type>(element))
    return nullptr;
  Type bits = IntegerType::get(type.getContext(), 16);
  return vector ? Type(vector.clone(bits)) : bits;
}

struct HalfFloatsAsBitsPass : impl::HalfFloatsAsBitsBase<HalfFloatsAsBitsPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (!isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::MaskedLoadOp,
               LLVM::MaskedStoreOp, LLVM::masked_gather, LLVM::masked_scatter,
               LLVM::SelectOp, LLVM::ShuffleVectorOp>(op))
        return;
      Location loc = op->getLoc();
      OpBuilder b(op);
      for (OpOperand &operand : op->getOpOperands()) {
        Type bits = bitsOf(operand.get().getType());
        if (!bits)
          continue;
        // The bits of a value an op before made (walk order) are at hand.
        auto cast = operand.get().getDefiningOp<LLVM::BitcastOp>();
        if (cast && cast.getArg().getType() == bits)
          operand.set(cast.getArg());
        else
          operand.set(LLVM::BitcastOp::create(b, loc, bits, operand.get()));
      }
      b.setInsertionPointAfter(op);
      for (OpResult result : op->getResults()) {
        Type type = result.getType();
        Type bits = bitsOf(type);
        if (!bits)
          continue;
        result.setType(bits);
        auto value = LLVM::BitcastOp::create(b, loc, type, result);
        result.replaceAllUsesExcept(value, value);
      }
    });
  }
};

} // namespace
} // namespace mlir::spine
