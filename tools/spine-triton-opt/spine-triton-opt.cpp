//===- spine-triton-opt.cpp - The spine-triton opt driver -----------------===//
//
// mlir-opt for TTIR: parses, verifies, transforms and prints IR made of the
// Triton dialect and the upstream dialects our lowering goes through.
//
// Invalid input that MLIR 22's parser or verifier mishandles is reported as a
// located error, as spine_triton._C reports it: the text hazards of
// parser/ParserGuards.h before parsing, and inherent attributes of the wrong
// kind (parser/InherentAttributes.h) between parsing and verifying.
//
//===----------------------------------------------------------------------===//

#include "parser/InherentAttributes.h"
#include "parser/ParserGuards.h"
#include "passes/Passes.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>

using namespace mlir;

namespace {

/// What the parser's verification does, after the check of inherent
/// attributes without which the verifier may crash. The driver parses without
/// verifying and runs this pass before any other.
class VerifyParsedIRPass
    : public PassWrapper<VerifyParsedIRPass, OperationPass<>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyParsedIRPass)

  VerifyParsedIRPass() = default;
  VerifyParsedIRPass(const VerifyParsedIRPass &other) : PassWrapper(other) {}
  explicit VerifyParsedIRPass(bool verify) { this->verify = verify; }

  StringRef getArgument() const final { return "spine-verify-parsed-ir"; }
  StringRef getDescription() const final {
    return "Report inherent attributes of the wrong kind, then verify "
           "(spine-triton-opt runs it first, in place of the parser's "
           "verification)";
  }

  void runOnOperation() final {
    Operation *op = getOperation();
    if (failed(::spine::checkInherentAttributeKinds(op)) ||
        (verify && failed(mlir::verify(op))))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

private:
  Option<bool> verify{*this, "verify",
                      llvm::cl::desc("Run the verifier after the check"),
                      llvm::cl::init(true)};
};

} // namespace

/// An empty file parses as an empty module, which for TTIR always means an
/// upstream failure (nothing was written); report it instead of printing
/// `module {}`.
static bool isBlank(const llvm::MemoryBuffer &buffer) {
  return buffer.getBuffer().trim().empty();
}

/// The chunk of a split input in a copy of the whole input with everything
/// else blanked out: parsed on its own, as upstream's driver parses it, but at
/// the lines and columns of the input, under its name.
static std::unique_ptr<llvm::MemoryBuffer>
isolateChunk(const llvm::MemoryBuffer &chunk, llvm::MemoryBufferRef input) {
  llvm::StringRef whole = input.getBuffer();
  if (chunk.getBufferStart() < whole.begin() ||
      chunk.getBufferEnd() > whole.end())
    return llvm::MemoryBuffer::getMemBufferCopy(chunk.getBuffer(),
                                                chunk.getBufferIdentifier());
  size_t begin = chunk.getBufferStart() - whole.begin();
  size_t end = chunk.getBufferEnd() - whole.begin();
  std::string text(whole);
  for (size_t i = 0; i < text.size(); ++i)
    if ((i < begin || i >= end) && text[i] != '\n')
      text[i] = ' ';
  return llvm::MemoryBuffer::getMemBufferCopy(text,
                                              input.getBufferIdentifier());
}

/// Reports the first text hazard of `buffer` (parser/ParserGuards.h) as an
/// error at its location, through MLIR's diagnostics so that
/// -verify-diagnostics can expect it. The result for the buffer if there is
/// one.
static std::optional<LogicalResult>
reportParserHazard(const llvm::MemoryBuffer &buffer,
                   const MlirOptMainConfig &config) {
  if (isBytecode(buffer.getMemBufferRef()))
    return std::nullopt;
  std::optional<::spine::ParserHazard> hazard =
      ::spine::findParserHazard(buffer.getBuffer());
  if (!hazard)
    return std::nullopt;

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  auto [line, column] = sourceMgr.getLineAndColumn(
      llvm::SMLoc::getFromPointer(buffer.getBufferStart() + hazard->offset));
  MLIRContext context(MLIRContext::Threading::DISABLED);
  Location loc =
      FileLineColLoc::get(&context, buffer.getBufferIdentifier(), line, column);
  if (!config.shouldVerifyDiagnostics()) {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    emitError(loc) << hazard->message;
    return failure();
  }
  SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context,
                                             config.verifyDiagnosticsLevel());
  emitError(loc) << hazard->message;
  return handler.verify();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);

  // The same dialects, interface models, passes and pipelines as the
  // nanobind module, so every stage it runs can be replayed here.
  DialectRegistry registry;
  mlir::spine::registerSpineTritonDialects(registry);
  // spine-triton's passes and pipelines, plus all upstream passes.
  mlir::spine::registerSpineTritonPasses();
  // Named in the pipelines of crash reproducers, which replay them.
  PassRegistration<VerifyParsedIRPass>();

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "spine-triton optimizer driver", registry);
  const MlirOptMainConfig cliConfig = MlirOptMainConfig::createFromCLOptions();

  if (cliConfig.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (cliConfig.shouldListPasses()) {
    printRegisteredPasses();
    return 0;
  }

  // The parser's verification moves into the first pass, after the check of
  // inherent attributes.
  MlirOptMainConfig config = cliConfig;
  config.verifyOnParsing(false).setPassPipelineSetupFn(
      [&cliConfig](PassManager &pm) {
        pm.addPass(std::make_unique<VerifyParsedIRPass>(
            cliConfig.shouldVerifyOnParsing()));
        return cliConfig.setupPassPipeline(pm);
      });

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

  // Split here rather than in MlirOptMain, so that each chunk of a split
  // input is checked on its own, as it is parsed on its own.
  MlirOptMainConfig chunkConfig = config;
  chunkConfig.splitInputFile("").outputSplitMarker("");
  auto processChunk = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                          const llvm::MemoryBufferRef &input,
                          raw_ostream &os) -> LogicalResult {
    std::unique_ptr<llvm::MemoryBuffer> isolated = isolateChunk(*chunk, input);
    if (std::optional<LogicalResult> result =
            reportParserHazard(*isolated, config))
      return *result;
    return MlirOptMain(os, std::move(isolated), registry, chunkConfig);
  };
  if (failed(splitAndProcessBuffer(std::move(input), processChunk, output->os(),
                                   cliConfig.inputSplitMarker(),
                                   cliConfig.outputSplitMarker())))
    return 1;
  output->keep();
  return 0;
}
