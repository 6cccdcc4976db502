//===- Registration.cpp - dialects and passes every tool sees -------------===//

#include "passes/Passes.h"
#include "passes/TritonToLinalgPatterns.h"
#include "triton/Dialect.h"
#include "triton/GpuBarrier.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace mlir::spine {

void registerSpineTritonDialects(DialectRegistry &registry) {
  registry.insert<triton::TritonDialect, ttg::TTGDialect>();
  // Upstream dialects with their external models (bufferization, inliner,
  // convert-to-llvm interfaces): our pipelines rely on those interfaces.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registerAtomicMemoryEffects(registry);
}

void registerSpineTritonPasses() {
  registerAllPasses();
  registerSpinePasses();
  registerSpineTritonPipelines();
}

} // namespace mlir::spine
