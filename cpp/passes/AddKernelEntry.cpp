//===- AddKernelEntry.cpp - fixed-signature launch entry points -----------===//
//
// One launcher serves every kernel because each public kernel gets an entry
// point with the same signature: a pointer to 8-byte argument slots plus the
// program ids (docs/kernel-abi.md).
//
//===----------------------------------------------------------------------===//

#include "passes/AssertState.h"
#include "passes/Passes.h"
#include "passes/ProgramIdArguments.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::spine {
#define GEN_PASS_DEF_ADDKERNELENTRY
#include "passes/Passes.h.inc"

namespace {

constexpr int64_t kSlotBytes = 8;

/// Makes `entry` return at once when a program of the launch has failed a
/// tt.assert, so the rest of the grid is skipped quickly; returns the block
/// that runs the program.
Block *returnIfAssertFailed(OpBuilder &b, Location loc, func::FuncOp entry,
                            LLVM::GlobalOp state) {
  Block *check = &entry.front();
  Block *run = b.createBlock(&entry.getBody(), entry.getBody().end());
  b.createBlock(&entry.getBody(), entry.getBody().end());
  func::ReturnOp::create(b, loc);
  Block *skip = b.getInsertionBlock();

  b.setInsertionPointToStart(check);
  Type i32 = b.getI32Type();
  Value flag = LLVM::LoadOp::create(
      b, loc, i32, LLVM::AddressOfOp::create(b, loc, state), /*alignment=*/4,
      /*isVolatile=*/false, /*isNonTemporal=*/false, /*isInvariant=*/false,
      /*isInvariantGroup=*/false, LLVM::AtomicOrdering::monotonic);
  Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
  Value failed =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, flag, zero);
  cf::CondBranchOp::create(b, loc, failed, skip, run);
  return run;
}

struct AddKernelEntryPass : impl::AddKernelEntryBase<AddKernelEntryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    OpBuilder builder(ctx);
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i32 = builder.getI32Type();

    auto assertState = module.lookupSymbol<LLVM::GlobalOp>(kAssertStateName);
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        kernels.push_back(func);

    for (func::FuncOp kernel : kernels) {
      FunctionType type = kernel.getFunctionType();
      unsigned numArgs = type.getNumInputs();
      if (numArgs < kNumProgramIdArgs || type.getNumResults() != 0) {
        kernel.emitError("kernel does not have the lowered kernel signature");
        return signalPassFailure();
      }
      unsigned numUserArgs = numArgs - kNumProgramIdArgs;

      SmallVector<Type> entryInputs = {ptrType};
      entryInputs.append(kNumProgramIdArgs, i32);
      builder.setInsertionPointAfter(kernel);
      Location loc = kernel.getLoc();
      auto entry = func::FuncOp::create(
          builder, loc, (kernel.getName() + "__spine_entry").str(),
          builder.getFunctionType(entryInputs, {}));
      Block *body = entry.addEntryBlock();
      builder.setInsertionPointToStart(body);
      if (assertState)
        builder.setInsertionPointToStart(
            returnIfAssertFailed(builder, loc, entry, assertState));

      Value slots = body->getArgument(0);
      SmallVector<Value> args;
      for (unsigned i = 0; i < numUserArgs; ++i) {
        Type argType = type.getInput(i);
        if (!argType.isIntOrFloat()) {
          kernel.emitError() << "kernel argument " << i << " of type "
                             << argType << " cannot be passed in a slot";
          return signalPassFailure();
        }
        Value slot = LLVM::GEPOp::create(
            builder, loc, ptrType, builder.getI8Type(), slots,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i * kSlotBytes)});
        args.push_back(LLVM::LoadOp::create(builder, loc, argType, slot));
      }
      for (unsigned i = 0; i < kNumProgramIdArgs; ++i)
        args.push_back(body->getArgument(1 + i));
      func::CallOp::create(builder, loc, kernel, args);
      func::ReturnOp::create(builder, loc);
    }
  }
};

} // namespace
} // namespace mlir::spine
