//===- spine-triton-opt.cpp - The spine-triton opt driver -----------------===//
//
// mlir-opt for TTIR: parses, verifies, transforms and prints IR made of the
// Triton dialect and the upstream dialects our lowering goes through.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// An empty file parses as an empty module, which for TTIR always means an
/// upstream failure (nothing was written); report it instead of printing
/// `module {}`.
static bool isBlank(const llvm::MemoryBuffer &buffer) {
  return buffer.getBuffer().trim().empty();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);

  // The same dialects, interface models, passes and pipelines as the
  // nanobind module, so every stage it runs can be replayed here.
  DialectRegistry registry;
  spine::registerSpineTritonDialects(registry);
  // spine-triton's passes and pipelines, plus all upstream passes.
  spine::registerSpineTritonPasses();

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "spine-triton optimizer driver", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();

  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (config.shouldListPasses()) {
    printRegisteredPasses();
    return 0;
  }

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (isBlank(*input)) {
    llvm::SourceMgr sourceMgr;
    llvm::SMLoc start = llvm::SMLoc::getFromPointer(input->getBufferStart());
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sourceMgr.PrintMessage(start, llvm::SourceMgr::DK_Error,
                           "empty input: expected a module");
    return 1;
  }

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
