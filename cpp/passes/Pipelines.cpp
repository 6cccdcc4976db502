//===- Pipelines.cpp - the two named pipelines ----------------------------===//

#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::spine {

namespace {

/// A rank-0 linalg op that only yields its one input (a linalg.copy of a 0-D
/// tensor, say) is that input. Upstream's constant folding of such
/// transpose-like ops, run by linalg-fuse-elementwise-ops, crashes on rank-0
/// ones: the reduction lowering copies a 0-D slice of the reduced tensor as
/// the init, and when that tensor is a constant (tl.sum(tl.full(...))), the
/// canonicalizer makes the slice a 0-D constant. Found by the fuzzer.
struct FoldRankZeroCopies : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumLoops() != 0 ||
        op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
        op->getNumRegions() != 1 || op->getRegion(0).empty())
      return failure();
    Block &body = op->getRegion(0).front();
    auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
    if (!llvm::hasSingleElement(body) || !yield ||
        yield->getNumOperands() != 1 ||
        yield->getOperand(0) != body.getArgument(0))
      return failure();
    Value input = op.getDpsInputOperand(0)->get();
    if (input.getType() != op->getResult(0).getType() ||
        !matchPattern(input, m_Constant()))
      return failure();
    rewriter.replaceOp(op, input);
    return success();
  }
};

struct FoldRankZeroCopiesPass
    : PassWrapper<FoldRankZeroCopiesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FoldRankZeroCopiesPass)

  StringRef getArgument() const override {
    return "spine-fold-rank-zero-copies";
  }
  StringRef getDescription() const override {
    return "Replace rank-0 linalg copies of constants by the constants";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldRankZeroCopies>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// What arith-to-llvm cannot lower: integer ceil/floor division and bf16
/// conversions (integer arithmetic: the C runtime of the target, libgcc 12
/// on Debian 12, has no __truncsfbf2 to call). Unlike upstream's
/// arith-expand, float min/max stay ops: arith-to-llvm makes them LLVM's
/// minimum/maximum/minnum/maxnum, which order -0.0 below +0.0 as Triton's
/// IR does; upstream's expansion into compare and select does not.
struct ExpandArithForLLVMPass
    : PassWrapper<ExpandArithForLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandArithForLLVMPass)

  StringRef getArgument() const override { return "spine-expand-arith"; }
  StringRef getDescription() const override {
    return "Expand integer ceil/floor division and bf16 conversions";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void buildTritonToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createTileCacheArgument());
  pm.addPass(createMaterializeProgramIds());
  pm.addPass(createBlockGridStrideLoops());
  pm.addPass(createScalarizePointerIterArgs());
  pm.addPass(createPeelConstantAccumulators());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSaturateFloatToInt());
  pm.addPass(createDecomposeScaledDots());
  pm.addPass(createAccumulateNarrowFloats());
  pm.addPass(createLegalizeFloatTypes());
  pm.addPass(createBoundShiftedExponents());
  pm.addPass(createReciprocalDivision());
  pm.addPass(createHoistStoreAddresses());
  pm.addPass(createConvertTritonToLinalg());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildSpineTritonPipeline(OpPassManager &pm,
                              const SpineTritonPipelineOptions &options) {
  pm.addPass(createAddKernelEntry());
  pm.addPass(std::make_unique<FoldRankZeroCopiesPass>());
  pm.addPass(createFuseElementwiseOps());
  pm.addPass(createCollapseContiguousDims());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createReuseDyingInputs());
  if (options.amxTiles)
    pm.addNestedPass<func::FuncOp>(createUnrollDotLoops());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Loop-carried tensors (accumulators, running maxima) may get a fresh
  // buffer per iteration when they cannot be updated in place.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addNestedPass<func::FuncOp>(createStackBuffers());
  // Every buffer the kernel allocates is freed before it returns.
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addPass(createCanonicalizerPass());

  VectorizeMatmulOptions matmul;
  matmul.vectorBits = options.vectorBits;
  matmul.vectorRegisters = options.vectorRegisters;
  matmul.bf16DotProduct = options.bf16DotProduct;
  matmul.int16PairProduct = options.int16PairProduct;
  matmul.fp16WideningFma = options.fp16WideningFma;
  matmul.amxTiles = options.amxTiles;
  pm.addNestedPass<func::FuncOp>(createVectorizeMatmul(matmul));
  if (options.shuffleTransposes && options.vectorBits > 0) {
    VectorizeTransposesOptions transposes;
    transposes.vectorBits = options.vectorBits;
    pm.addNestedPass<func::FuncOp>(createVectorizeTransposes(transposes));
  }
  pm.addPass(createLowerStridedCopies());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createFuseElementLoops());
  if (options.vectorBits > 0) {
    VectorizeElementLoopsOptions elementLoops;
    elementLoops.vectorBits = options.vectorBits;
    elementLoops.vectorRegisters = options.vectorRegisters;
    elementLoops.streamingStoreBytes = options.streamingStoreBytes;
    elementLoops.shuffleReductions = options.shuffleReductions;
    elementLoops.selectMinMax = options.selectMinMax;
    elementLoops.lineStrips = options.lineStrips;
    pm.addNestedPass<func::FuncOp>(createDeferStoreWalks());
    pm.addNestedPass<func::FuncOp>(createVersionLaneBounds());
    pm.addNestedPass<func::FuncOp>(createVectorizeElementLoops(elementLoops));
    ScheduleTilePrefetchesOptions prefetches;
    prefetches.frontLoadDeferred = options.frontLoadDeferred;
    pm.addNestedPass<func::FuncOp>(createScheduleTilePrefetches(prefetches));
  }
  pm.addNestedPass<func::FuncOp>(createEraseWriteOnlyBuffers());
  // Before SCF is lowered: sin and cos branch to libm for huge arguments.
  ApproximateMathOptions math;
  math.avx512Scalef = options.avx512Scalef;
  pm.addPass(createApproximateMath(math));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(std::make_unique<ExpandArithForLLVMPass>());
  // After ceil/floor division are expanded into plain divisions.
  pm.addPass(createDefineIntegerArithmetic());
  // Math with an LLVM intrinsic first; the rest (tanh, erf, ...) calls libm,
  // one call per lane of a vector: before vector-to-llvm, which lowers the
  // lane extracts and inserts that unrolling makes.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.amx = options.amxTiles; // tl.dot's tile products
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  if (options.amxTiles) {
    // Branches carry AMX tiles (a micro-kernel's C tiles across its K loop),
    // whose LLVM type only the AMX dialect's conversion interface knows.
    ConvertToLLVMPassOptions controlFlow;
    controlFlow.filterDialects = {"cf", "amx"};
    pm.addPass(createConvertToLLVMPass(controlFlow));
  } else {
    pm.addPass(createConvertControlFlowToLLVMPass());
  }
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createHalfFloatsAsBits());
  pm.addPass(createAssertEarlyReturn());
  pm.addPass(createCanonicalizerPass());
}

void registerSpineTritonPipelines() {
  PassPipelineRegistration<>(
      "triton-to-linalg-experimental",
      "Lower Triton IR to Linalg, tensor, memref, arith and func",
      buildTritonToLinalgPipeline);
  PassPipelineRegistration<SpineTritonPipelineOptions>(
      "spine-triton-pipeline", "Lower the Linalg stage to the LLVM dialect",
      buildSpineTritonPipeline);
}

} // namespace mlir::spine
