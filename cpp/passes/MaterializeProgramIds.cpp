//===- MaterializeProgramIds.cpp - program ids become arguments -----------===//
//
// On a CPU the launcher, not the hardware, knows which program runs. Every
// tt.func gets six trailing i32 arguments (pid x/y/z, num_programs x/y/z) and
// tt.get_program_id / tt.get_num_programs read them; tt.call forwards them so
// non-inlined callees see the caller's program.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/ProgramIdArguments.h"
#include "triton/Dialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::spine {
#define GEN_PASS_DEF_MATERIALIZEPROGRAMIDS
#include "passes/Passes.h.inc"

namespace {

struct MaterializeProgramIdsPass
    : impl::MaterializeProgramIdsBase<MaterializeProgramIdsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Type i32 = IntegerType::get(ctx, 32);

    for (auto func : module.getOps<triton::FuncOp>()) {
      if (func.isExternal())
        continue;
      unsigned first = func.getNumArguments();
      SmallVector<unsigned> indices(kNumProgramIdArgs, first);
      SmallVector<Type> types(kNumProgramIdArgs, i32);
      SmallVector<DictionaryAttr> attrs(kNumProgramIdArgs,
                                        DictionaryAttr::get(ctx));
      SmallVector<Location> locs(kNumProgramIdArgs, func.getLoc());
      if (failed(func.insertArguments(indices, types, attrs, locs))) {
        func.emitError("cannot append program-id arguments");
        return signalPassFailure();
      }
      Block &entry = func.getBody().front();
      auto arg = [&](unsigned i) { return entry.getArgument(first + i); };

      func.walk([&](Operation *op) {
        if (auto pid = dyn_cast<triton::GetProgramIdOp>(op)) {
          pid.replaceAllUsesWith(arg(pid.getAxisAsInt()));
          pid.erase();
        } else if (auto num = dyn_cast<triton::GetNumProgramsOp>(op)) {
          num.replaceAllUsesWith(arg(3 + num.getAxisAsInt()));
          num.erase();
        } else if (auto call = dyn_cast<triton::CallOp>(op)) {
          SmallVector<Value> operands(call.getOperands());
          for (unsigned i = 0; i < kNumProgramIdArgs; ++i)
            operands.push_back(arg(i));
          call->setOperands(operands);
        }
      });
    }
  }
};

} // namespace
} // namespace mlir::spine
