//===- Compiler.cpp - In-process MLIR/LLVM stages of the module -----------===//

#include "python/Compiler.h"

#include "parser/InherentAttributes.h"
#include "parser/ParserGuards.h"
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <vector>

using namespace spine;

namespace {

StageResult failure(std::string error) {
  StageResult result;
  result.error = std::move(error);
  return result;
}

StageResult success(std::string value) {
  StageResult result;
  result.ok = true;
  result.value = std::move(value);
  return result;
}

/// Records the first pass that failed: pass managers report failure without
/// saying where, and the innermost failing pass is what a user needs.
class FailedPassRecorder : public mlir::PassInstrumentation {
public:
  explicit FailedPassRecorder(std::string &failedPass)
      : failedPass(failedPass) {}

  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    if (!failedPass.empty())
      return;
    llvm::StringRef name = pass->getArgument();
    if (name.empty())
      name = pass->getName();
    failedPass = (name + "' on '" + op->getName().getStringRef()).str();
  }

private:
  std::string &failedPass;
};

/// An MLIR context with our dialects. Compiling one kernel gains nothing from
/// MLIR's thread pool, so threading is off.
std::unique_ptr<mlir::MLIRContext> makeContext(bool withTranslation) {
  mlir::DialectRegistry registry;
  mlir::spine::registerSpineTritonDialects(registry);
  if (withTranslation) {
    registry.insert<mlir::LLVM::LLVMDialect>();
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
  }
  return std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
}

constexpr llvm::StringLiteral kInputBuffer = "<input>";

/// Parses `text` with diagnostics captured by the caller's handler. Inputs
/// the parser mishandles (see ParserGuards.h) are an error before parsing,
/// inherent attributes of the wrong kind (InherentAttributes.h) one before
/// verifying.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(llvm::SourceMgr &sourceMgr,
                                              const std::string &text,
                                              mlir::MLIRContext &ctx) {
  unsigned buffer = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, kInputBuffer), llvm::SMLoc());
  if (std::optional<ParserHazard> hazard = findParserHazard(text)) {
    const char *start = sourceMgr.getMemoryBuffer(buffer)->getBufferStart();
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(start + hazard->offset), buffer);
    mlir::emitError(mlir::FileLineColLoc::get(&ctx, kInputBuffer, line, column))
        << hazard->message;
    return nullptr;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(
          sourceMgr, mlir::ParserConfig(&ctx, /*verifyAfterParse=*/false));
  if (!module || mlir::failed(checkInherentAttributeKinds(*module)) ||
      mlir::failed(mlir::verify(*module)))
    return nullptr;
  // Custom assembly formats (scf.for's induction variable, ...) print no
  // location for their block arguments, so the parser gives them a position
  // in this text. Carried on to the phis they become, DWARF would report it
  // as a line of the kernel's file; they stand for the op that owns them.
  module->walk([](mlir::Block *block) {
    mlir::Operation *owner = block->getParentOp();
    for (mlir::BlockArgument arg : block->getArguments()) {
      auto file = llvm::dyn_cast<mlir::FileLineColLoc>(arg.getLoc());
      if (owner && file && file.getFilename() == kInputBuffer)
        arg.setLoc(owner->getLoc());
    }
  });
  return module;
}

std::string printModule(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Locations must survive every stage so errors and DWARF name source lines.
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(
                        /*enable=*/true, /*prettyForm=*/false));
  return text;
}

/// Whether upstream's DIScopeForLLVMFuncOp finds a file location in `loc`
/// (its extractFileLoc).
bool hasFileLoc(mlir::Location loc) {
  if (mlir::isa<mlir::FileLineColLoc>(loc))
    return true;
  if (auto name = mlir::dyn_cast<mlir::NameLoc>(loc))
    return hasFileLoc(name.getChildLoc());
  if (auto opaque = mlir::dyn_cast<mlir::OpaqueLoc>(loc))
    return hasFileLoc(opaque.getFallbackLocation());
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    return llvm::any_of(fused.getLocations(), hasFileLoc);
  if (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc))
    return hasFileLoc(callSite.getCaller());
  return false;
}

/// Whether every callee of a call-site chain has a file location.
bool calleesHaveFiles(mlir::CallSiteLoc callSite) {
  mlir::Location callee = callSite.getCallee();
  if (!hasFileLoc(callee))
    return false;
  auto nested = mlir::dyn_cast<mlir::CallSiteLoc>(callee);
  return !nested || calleesHaveFiles(nested);
}

/// Upstream's DIScopeForLLVMFuncOp (LLVM 22) dereferences a null location for
/// an op whose location is a call site outside any llvm.func (constants of
/// inlined triton helpers in globals, e.g. tl.zeros), or whose chain of
/// callees has one without a file (`callsite(unknown at ...)`, as tl.rand's
/// inlined helpers leave). Such ops keep their innermost caller that the pass
/// can scope; globals need no line info at all.
void makeCallSitesScopable(mlir::ModuleOp module) {
  mlir::MLIRContext *ctx = module.getContext();
  module->walk([&](mlir::Operation *op) {
    if (mlir::isa<mlir::LLVM::GlobalOp>(op)) {
      op->setLoc(mlir::UnknownLoc::get(ctx));
      return;
    }
    bool inFunction = op->getParentOfType<mlir::LLVM::LLVMFuncOp>() != nullptr;
    mlir::Location loc = op->getLoc();
    while (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc)) {
      if (inFunction && calleesHaveFiles(callSite))
        break;
      loc = callSite.getCaller();
    }
    op->setLoc(loc);
  });
}

/// The LLVM dialect's verifier accepts any type in an op's type attributes
/// (a getelementptr's or alloca's element type, a global's type), but
/// translation has no LLVM type for e.g. f8E5M2 and crashes on the null it
/// gets (LLVM 22). Such an attribute is reported on its op instead.
mlir::LogicalResult checkTypeAttributesTranslate(mlir::ModuleOp module) {
  mlir::WalkResult result = module->walk([](mlir::Operation *op) {
    if (!mlir::isa<mlir::LLVM::LLVMDialect>(op->getDialect()))
      return mlir::WalkResult::advance();
    for (mlir::NamedAttribute attr : op->getAttrs()) {
      auto typeAttr = mlir::dyn_cast<mlir::TypeAttr>(attr.getValue());
      if (typeAttr && !mlir::LLVM::isCompatibleType(typeAttr.getValue())) {
        op->emitError() << "'" << attr.getName().getValue()
                        << "' has no LLVM IR type: " << typeAttr.getValue();
        return mlir::WalkResult::interrupt();
      }
    }
    return mlir::WalkResult::advance();
  });
  return mlir::failure(result.wasInterrupted());
}

/// RISC-V folds vector extensions into widening instructions (fpext + fma
/// into vfwmacc) only where the web of extensions and their users has at most
/// `riscv-lower-ext-max-web-size` nodes, 18 by default. A micro-kernel block
/// of spine-vectorize-matmul links every A element's extension to every B
/// vector's through the accumulators' FMAs: up to 8 + 4 + 32 nodes, so at 18
/// the 6 x 4 blocks kept a vfwcvt per B vector and plain vfmacc.
void widenRISCVExtensionWebs() {
  auto &&options = llvm::cl::getRegisteredOptions();
  auto option = options.find("riscv-lower-ext-max-web-size");
  if (option != options.end())
    option->second->addOccurrence(1, option->first, "64");
}

void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
    LLVMInitializeRISCVTargetInfo();
    LLVMInitializeRISCVTarget();
    LLVMInitializeRISCVTargetMC();
    LLVMInitializeRISCVAsmPrinter();
    LLVMInitializeRISCVAsmParser();
    widenRISCVExtensionWebs();
  });
}

std::optional<llvm::OptimizationLevel> irOptLevel(int optLevel) {
  switch (optLevel) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  case 3:
    return llvm::OptimizationLevel::O3;
  default:
    return std::nullopt;
  }
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetSpec &spec,
                                                         int optLevel,
                                                         bool fpFusion,
                                                         std::string &error) {
  initializeTargets();
  llvm::Triple triple(spec.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::TargetOptions options;
  options.AllowFPOpFusion =
      fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  // Linux on RISC-V is lp64d; the cross linker rejects objects of another ABI.
  if (triple.isRISCV64())
    options.MCOptions.ABIName = "lp64d";
  auto codegenLevel = *llvm::CodeGenOpt::getLevel(optLevel);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, spec.cpu, spec.features, options, llvm::Reloc::PIC_, std::nullopt,
      codegenLevel));
  if (!machine)
    error = "cannot create a target machine for '" + spec.triple + "'";
  return machine;
}

/// Parses LLVM IR text and configures it for `machine`: triple, data layout
/// and per-function CPU/features, so the stored IR reproduces the same code
/// with a plain `llc`.
/// LLVM's code generators round f32 to bf16 (on targets without native
/// bf16, even for a bf16 select or phi) by calling __truncsfbf2, which the
/// C runtimes here (libgcc 12) do not have. Each kernel carries its own
/// round-to-nearest-even definition, hidden so kernels never share it.
void defineTruncSFBF2(llvm::Module &module) {
  constexpr llvm::StringLiteral name = "__truncsfbf2";
  if (llvm::Function *existing = module.getFunction(name);
      existing && !existing->isDeclaration())
    return;
  llvm::LLVMContext &ctx = module.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getBFloatTy(ctx),
                                       {llvm::Type::getFloatTy(ctx)}, false);
  auto *fn = llvm::cast<llvm::Function>(
      module.getOrInsertFunction(name, type).getCallee());
  fn->setLinkage(llvm::GlobalValue::WeakAnyLinkage);
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value *x = fn->getArg(0);
  llvm::Value *bits = b.CreateBitCast(x, b.getInt32Ty());
  llvm::Value *high = b.CreateLShr(bits, 16);
  llvm::Value *lsb = b.CreateAnd(high, 1);
  llvm::Value *rounded =
      b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7fff))), 16);
  // NaNs stay (quiet) NaNs instead of rounding into infinity.
  llvm::Value *quietNaN = b.CreateOr(high, 0x40);
  llvm::Value *result =
      b.CreateSelect(b.CreateFCmpUNO(x, x), quietNaN, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(result, b.getInt16Ty()),
                              llvm::Type::getBFloatTy(ctx)));
}

std::unique_ptr<llvm::Module> parseAndConfigure(const std::string &llir,
                                                llvm::LLVMContext &ctx,
                                                llvm::TargetMachine &machine,
                                                bool framePointers,
                                                std::string &error) {
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(llir, diag, ctx);
  llvm::raw_string_ostream os(error);
  if (!module) {
    diag.print("llir", os);
    return nullptr;
  }
  if (llvm::verifyModule(*module, &os))
    return nullptr;
  module->setTargetTriple(machine.getTargetTriple());
  module->setDataLayout(machine.createDataLayout());
  // Only kernels that handle bf16 values need the rounding helper.
  if (llvm::StringRef(llir).contains("bfloat"))
    defineTruncSFBF2(*module);
  for (llvm::Function &fn : *module) {
    if (fn.isDeclaration())
      continue;
    if (!fn.hasFnAttribute("target-cpu"))
      fn.addFnAttr("target-cpu", machine.getTargetCPU());
    if (!fn.hasFnAttribute("target-features") &&
        !machine.getTargetFeatureString().empty())
      fn.addFnAttr("target-features", machine.getTargetFeatureString());
    if (framePointers)
      fn.addFnAttr("frame-pointer", "all");
    // Loops over tiles stay loops: a copy or fill loop made a memcpy or
    // memset call (of a softmax row, say) spills every live vector register
    // around it, and the loops are vector code already.
    fn.addFnAttr("no-builtin-memcpy");
    fn.addFnAttr("no-builtin-memmove");
    fn.addFnAttr("no-builtin-memset");
  }
  return module;
}

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    llvm::OptimizationLevel level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Vectorizers on from O2, as clang does.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = level.getSpeedupLevel() >= 2;
  tuning.SLPVectorization = level.getSpeedupLevel() >= 2;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager pipeline =
      level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(level)
          : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, mam);
}

/// qemu 7.2 (Debian 12's qemu-user) aborts translating an RVV conversion with
/// a static rounding mode (vfcvt.rtz.x.f.v and its widening and narrowing
/// forms, what vector fptosi/fptoui become): it records the instruction for
/// unwinding twice. For code that runs under it, these conversions round with
/// the dynamic rounding mode instead (llvm.lrint: vfcvt.x.f.v; kernels run in
/// the default round-to-nearest mode) and step one towards zero where that
/// rounded away from zero. fptoui to 64 bits goes through a signed 64-bit
/// integer, so it is exact only below 2^63.
void useDynamicRoundingConversions(llvm::Module &module) {
  llvm::SmallVector<llvm::CastInst *> conversions;
  for (llvm::Function &fn : module)
    for (llvm::Instruction &inst : llvm::instructions(fn))
      if (llvm::isa<llvm::FPToSIInst, llvm::FPToUIInst>(inst) &&
          inst.getType()->isVectorTy())
        conversions.push_back(llvm::cast<llvm::CastInst>(&inst));

  for (llvm::CastInst *conversion : conversions) {
    llvm::IRBuilder<> b(conversion);
    llvm::Value *x = conversion->getOperand(0);
    auto *type = llvm::cast<llvm::VectorType>(x->getType());
    // Half and bfloat widen to float exactly.
    if (type->getScalarSizeInBits() < 32) {
      type = llvm::VectorType::get(b.getFloatTy(), type->getElementCount());
      x = b.CreateFPExt(x, type);
    }
    unsigned floatBits = type->getScalarSizeInBits();
    unsigned resultBits = conversion->getType()->getScalarSizeInBits();
    // Rounded in a signed integer at least as wide as both sides; an unsigned
    // result of that width needs one bit more.
    unsigned bits = std::max(floatBits, resultBits);
    if (llvm::isa<llvm::FPToUIInst>(conversion) && bits == resultBits &&
        bits < 64)
      bits *= 2;
    auto *intType =
        llvm::VectorType::get(b.getIntNTy(bits), type->getElementCount());

    llvm::Value *rounded =
        b.CreateIntrinsic(llvm::Intrinsic::lrint, {intType, type}, {x});
    llvm::Value *back = b.CreateSIToFP(rounded, type);
    llvm::Value *away =
        b.CreateFCmpOGT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                        b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x));
    llvm::Value *step =
        b.CreateSelect(b.CreateFCmpOLT(x, llvm::Constant::getNullValue(type)),
                       llvm::ConstantInt::get(intType, 1),
                       llvm::ConstantInt::getSigned(intType, -1));
    llvm::Value *truncated =
        b.CreateSelect(away, b.CreateAdd(rounded, step), rounded);
    // In range, the value fits the result type either way it is extended.
    llvm::Value *result = b.CreateSExtOrTrunc(truncated, conversion->getType());
    result->takeName(conversion);
    conversion->replaceAllUsesWith(result);
    conversion->eraseFromParent();
  }
}

/// x86 without AVX-512 stores a vector under a mask only with vmaskmovps or
/// vpmaskmovd/q, which AMD's Zen 1 to 3 run as microcode: about 13 cycles each
/// on this Zen 3 host, where a load, blend and store take one or two. LLVM 22's
/// DAG combiner still turns store(select(c, x, load p), p), an in-place
/// tl.where on a tile such as attention's masked scores, into such a masked
/// store (LLVM later asks the target first: llvm-project #214187). A freeze
/// between the load and the select hides the pattern; it changes no defined
/// value and costs nothing in the code. Intel's AVX2 cores run either form
/// at about the same speed, so every x86 target without AVX-512 gets it.
bool hasSlowMaskedStores(const llvm::TargetMachine &machine) {
  return machine.getTargetTriple().isX86() &&
         !machine.getMCSubtargetInfo()->checkFeatures("+avx512f");
}

void keepStoredSelectsUnmasked(llvm::Module &module) {
  llvm::SmallVector<llvm::StoreInst *> stores;
  for (llvm::Function &fn : module)
    for (llvm::Instruction &inst : llvm::instructions(fn))
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst))
        stores.push_back(store);
  // A select stored twice is frozen once: its operand is no longer a load.
  for (llvm::StoreInst *store : stores) {
    auto *select = llvm::dyn_cast<llvm::SelectInst>(store->getValueOperand());
    if (!select || !select->getCondition()->getType()->isVectorTy())
      continue;
    for (unsigned operand : {1u, 2u}) {
      auto *load = llvm::dyn_cast<llvm::LoadInst>(select->getOperand(operand));
      if (load && load->getPointerOperand()->stripPointerCasts() ==
                      store->getPointerOperand()->stripPointerCasts())
        select->setOperand(
            operand,
            new llvm::FreezeInst(load, load->getName(), select->getIterator()));
    }
  }
}

std::string printModule(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

} // namespace

StageResult spine::runPipeline(const std::string &text,
                               const std::string &pipeline) {
  static std::once_flag registered;
  std::call_once(registered, [] { mlir::spine::registerSpineTritonPasses(); });

  std::unique_ptr<mlir::MLIRContext> ctx = makeContext(false);
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, ctx.get(), diagOS);

  mlir::OwningOpRef<mlir::ModuleOp> module = parseModule(sourceMgr, text, *ctx);
  if (!module)
    return failure("cannot parse the input module:\n" + diagnostics);

  // The anchored form: parsing `builtin.module(...)` into a module-level pass
  // manager would nest it, running it on modules inside the module.
  std::string pipelineError;
  llvm::raw_string_ostream pipelineOS(pipelineError);
  mlir::FailureOr<mlir::OpPassManager> parsed =
      mlir::parsePassPipeline(pipeline, pipelineOS);
  if (mlir::failed(parsed))
    return failure("invalid pass pipeline '" + pipeline +
                   "': " + pipelineError);
  if (parsed->getOpAnchorName() != mlir::ModuleOp::getOperationName())
    return failure("pass pipeline '" + pipeline +
                   "' must be anchored on builtin.module");
  mlir::PassManager pm(ctx.get());
  static_cast<mlir::OpPassManager &>(pm) = std::move(*parsed);
  std::string failedPass;
  pm.addInstrumentation(std::make_unique<FailedPassRecorder>(failedPass));
  if (mlir::failed(pm.run(*module))) {
    std::string error = "pass '" + failedPass + "' failed";
    return failure(diagnostics.empty() ? error : error + ":\n" + diagnostics);
  }
  return success(printModule(*module));
}

StageResult spine::translateToLLVMIR(const std::string &text, bool lineInfo) {
  std::unique_ptr<mlir::MLIRContext> ctx = makeContext(true);
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, ctx.get(), diagOS);

  mlir::OwningOpRef<mlir::ModuleOp> module = parseModule(sourceMgr, text, *ctx);
  if (!module)
    return failure("cannot parse the LLVM-dialect module:\n" + diagnostics);
  if (lineInfo) {
    // The pass creates debug-info attributes without declaring their dialect.
    ctx->getOrLoadDialect<mlir::LLVM::LLVMDialect>();
    makeCallSitesScopable(*module);
    mlir::PassManager pm(ctx.get());
    pm.addPass(mlir::LLVM::createDIScopeForLLVMFuncOpPass());
    if (mlir::failed(pm.run(*module)))
      return failure("cannot attach debug scopes:\n" + diagnostics);
  }
  if (mlir::failed(checkTypeAttributesTranslate(*module)))
    return failure("cannot translate to LLVM IR:\n" + diagnostics);
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, llvmCtx);
  if (!llvmModule)
    return failure("cannot translate to LLVM IR:\n" + diagnostics);
  return success(printModule(*llvmModule));
}

StageResult spine::optimizeLLVMIR(const std::string &llir,
                                  const TargetSpec &target, int optLevel,
                                  bool debug, bool dynamicRoundingConversions) {
  std::optional<llvm::OptimizationLevel> level = irOptLevel(optLevel);
  if (!level)
    return failure("opt_level must be 0..3, got " + std::to_string(optLevel));
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, optLevel, /*fpFusion=*/true, error);
  if (!machine)
    return failure(error);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module =
      parseAndConfigure(llir, ctx, *machine, /*framePointers=*/debug, error);
  if (!module)
    return failure(error);
  optimizeModule(*module, *machine, *level);
  if (hasSlowMaskedStores(*machine))
    keepStoredSelectsUnmasked(*module);
  if (dynamicRoundingConversions)
    useDynamicRoundingConversions(*module);
  return success(printModule(*module));
}

StageResult spine::compileLLVMIR(const std::string &llir,
                                 const TargetSpec &target,
                                 const CodegenOptions &options) {
  std::optional<llvm::OptimizationLevel> level = irOptLevel(options.optLevel);
  if (!level)
    return failure("opt_level must be 0..3, got " +
                   std::to_string(options.optLevel));
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, options.optLevel, options.fpFusion, error);
  if (!machine)
    return failure(error);
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> module =
      parseAndConfigure(llir, ctx, *machine, options.debug, error);
  if (!module)
    return failure(error);
  if (options.optimize)
    optimizeModule(*module, *machine, *level);

  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   options.emitAssembly
                                       ? llvm::CodeGenFileType::AssemblyFile
                                       : llvm::CodeGenFileType::ObjectFile))
    return failure("target '" + target.triple +
                   "' cannot emit this kind of file");
  codegen.run(*module);
  return success(std::string(buffer.str()));
}

bool spine::targetHasFeatures(const TargetSpec &target,
                              const std::string &query, std::string &error) {
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, /*optLevel=*/0, /*fpFusion=*/true, error);
  return machine && machine->getMCSubtargetInfo()->checkFeatures(query);
}

std::string spine::hostTriple() { return llvm::sys::getDefaultTargetTriple(); }

std::string spine::hostCPU() { return llvm::sys::getHostCPUName().str(); }

std::string spine::hostFeatures() {
  std::vector<std::pair<std::string, bool>> features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.emplace_back(feature.first().str(), feature.second);
  std::sort(features.begin(), features.end());
  std::string joined;
  for (const auto &[name, enabled] : features) {
    if (!joined.empty())
      joined += ',';
    joined += (enabled ? "+" : "-") + name;
  }
  return joined;
}

std::string spine::llvmVersion() { return LLVM_VERSION_STRING; }
