//===- AssertEarlyReturn.cpp - return after a failed tt.assert ------------===//
//
// On a GPU a failed device assert stops the thread. Here the program that
// records a failure (calls __spine_triton_assert_fail) returns right after,
// and a caller of a function that may fail returns when the launch has
// failed, so nothing after a failed check runs (such as the out-of-bounds
// access an overflow check guards). This runs on the LLVM dialect, where
// every loop is plain control flow that a return can leave. Buffers the
// program allocated are not freed on that path (docs/kernel-abi.md).
//
//===----------------------------------------------------------------------===//

#include "passes/AssertState.h"
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::spine {
#define GEN_PASS_DEF_ASSERTEARLYRETURN
#include "passes/Passes.h.inc"

namespace {

/// The callee of a direct call to a function of the module, else null.
LLVM::LLVMFuncOp getCallee(LLVM::CallOp call, SymbolTable &symbols) {
  std::optional<StringRef> callee = call.getCallee();
  return callee ? symbols.lookup<LLVM::LLVMFuncOp>(*callee) : nullptr;
}

/// A new block of `func` that returns at once (poison for a result: the
/// caller checks the state before using it).
Block *createReturnBlock(OpBuilder &b, LLVM::LLVMFuncOp func) {
  Block *block = b.createBlock(&func.getBody(), func.getBody().end());
  Location loc = func.getLoc();
  Type result = func.getFunctionType().getReturnType();
  if (isa<LLVM::LLVMVoidType>(result))
    LLVM::ReturnOp::create(b, loc, ValueRange());
  else
    LLVM::ReturnOp::create(b, loc,
                           LLVM::PoisonOp::create(b, loc, result).getResult());
  return block;
}

struct AssertEarlyReturnPass
    : impl::AssertEarlyReturnBase<AssertEarlyReturnPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    auto fail = symbols.lookup<LLVM::LLVMFuncOp>(kAssertFailName);
    auto state = symbols.lookup<LLVM::GlobalOp>(kAssertStateName);
    if (!fail || !state)
      return;

    // The functions that may record a failure: `fail`, its callers, theirs...
    llvm::DenseSet<Operation *> mayFail = {fail};
    auto callsMayFail = [&](LLVM::CallOp call) {
      LLVM::LLVMFuncOp callee = getCallee(call, symbols);
      return callee && mayFail.contains(callee);
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
        if (mayFail.contains(func))
          continue;
        WalkResult walk = func.walk([&](LLVM::CallOp call) {
          return callsMayFail(call) ? WalkResult::interrupt()
                                    : WalkResult::advance();
        });
        if (walk.wasInterrupted()) {
          mayFail.insert(func);
          changed = true;
        }
      }
    }

    OpBuilder b(module.getContext());
    IRRewriter rewriter(module.getContext());
    Type i32 = b.getI32Type();
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (func == fail || !mayFail.contains(func))
        continue;
      // A call right before a return needs nothing more.
      SmallVector<LLVM::CallOp> calls;
      func.walk([&](LLVM::CallOp call) {
        if (callsMayFail(call) && !isa<LLVM::ReturnOp>(call->getNextNode()))
          calls.push_back(call);
      });
      if (calls.empty())
        continue;
      Block *exit = createReturnBlock(b, func);
      for (LLVM::CallOp call : calls) {
        Location loc = call.getLoc();
        Block *rest = call->getBlock()->splitBlock(call->getNextNode());
        b.setInsertionPointAfter(call);
        if (getCallee(call, symbols) == fail) {
          LLVM::BrOp::create(b, loc, exit);
          continue;
        }
        // Any program's failure stops this one: the launch is over anyway.
        Value flag = LLVM::LoadOp::create(
            b, loc, i32, LLVM::AddressOfOp::create(b, loc, state),
            /*alignment=*/4, /*isVolatile=*/false, /*isNonTemporal=*/false,
            /*isInvariant=*/false, /*isInvariantGroup=*/false,
            LLVM::AtomicOrdering::monotonic);
        Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
        Value failed =
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, flag, zero);
        LLVM::CondBrOp::create(b, loc, failed, exit, rest);
      }
      // What followed each failure report is unreachable now.
      (void)eraseUnreachableBlocks(rewriter, func.getBody());
    }
  }
};

} // namespace
} // namespace mlir::spine
