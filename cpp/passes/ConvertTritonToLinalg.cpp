//===- ConvertTritonToLinalg.cpp - the TTIR -> Linalg conversion ----------===//

#include "passes/Passes.h"
#include "passes/TritonToLinalgPatterns.h"
#include "passes/TritonTypeConverter.h"
#include "triton/Dialect.h"
#include "triton/GpuBarrier.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {
#define GEN_PASS_DEF_CONVERTTRITONTOLINALG
#include "passes/Passes.h.inc"

namespace {

/// Any op outside the Triton dialect whose operand or result types mention
/// pointers (arith.select of pointer tensors, say) is rebuilt as is with the
/// converted types.
struct RetypeOpLowering : ConversionPattern {
  RetypeOpLowering(TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0 ||
        isa<triton::TritonDialect>(op->getDialect()))
      return failure();
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), results)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, results,
                         op->getAttrs(), op->getSuccessors());
    Operation *rebuilt = rewriter.create(state);
    rewriter.replaceOp(op, rebuilt->getResults());
    return success();
  }
};

/// Reports every Triton op that no pattern in `patterns` can start from, with
/// its location, so a kernel using an unsupported feature gets one clear
/// error per op instead of a generic legalization failure.
LogicalResult checkSupportedOps(ModuleOp module, RewritePatternSet &patterns) {
  llvm::DenseSet<OperationName> supported;
  for (const auto &pattern : patterns.getNativePatterns())
    if (std::optional<OperationName> root = pattern->getRootKind())
      supported.insert(*root);
  bool ok = true;
  module.walk([&](Operation *op) {
    if (!isa<triton::TritonDialect>(op->getDialect()) ||
        supported.contains(op->getName()))
      return;
    // Region terminators are consumed by (or reported with) their parent.
    if (op->hasTrait<OpTrait::IsTerminator>() && op->getParentOp() &&
        isa<triton::TritonDialect>(op->getParentOp()->getDialect()))
      return;
    op->emitError() << "spine-triton cannot lower '" << op->getName()
                    << "' yet";
    ok = false;
  });
  // The dialect's ODS lets tt.splat take any type, but it only has a meaning
  // for a scalar (triton's frontend makes nothing else); the lowerings assume
  // it. Found by the fuzzer: a tensor operand crashed the load lowering.
  module.walk([&](triton::SplatOp op) {
    if (isa<ShapedType>(op.getSrc().getType())) {
      op.emitOpError() << "takes a scalar, not " << op.getSrc().getType();
      ok = false;
    }
  });
  return success(ok);
}

struct ConvertTritonToLinalgPass
    : impl::ConvertTritonToLinalgBase<ConvertTritonToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    TritonTypeConverter converter(ctx);

    RewritePatternSet patterns(ctx);
    populateFunctionOpsToFuncPatterns(converter, patterns);
    populateTensorOpsToLinalgPatterns(converter, patterns);
    populateDataMovementOpsToLinalgPatterns(converter, patterns);
    populateElementwiseExtrasToLinalgPatterns(converter, patterns);
    populateMemoryOpsToLinalgPatterns(converter, patterns);
    populateDescriptorOpsPatterns(converter, patterns);
    populateAtomicOpsToLinalgPatterns(converter, patterns);
    populateScanOpsToLinalgPatterns(converter, patterns);
    populateDebugOpsPatterns(converter, patterns);
    if (failed(checkSupportedOps(module, patterns)))
      return signalPassFailure();

    // tl.assume facts are optimisation hints only; bufferization rejects an
    // op with unknown memory effects, so they are dropped here.
    module.walk([](LLVM::AssumeOp op) { op.erase(); });
    // tl.debug_barrier synchronizes a program's threads; on a CPU a program
    // is one thread, whose accesses are already in program order.
    module.walk([](ttg::BarrierOp op) { op.erase(); });

    ConversionTarget target(*ctx);
    target.addIllegalDialect<triton::TritonDialect>();
    target.addLegalOp<ModuleOp>();
    // Ops inside a tt.reduce region are cloned by the reduce lowering.
    target.addLegalOp<triton::ReduceReturnOp>();
    target.addLegalDialect<
        linalg::LinalgDialect, tensor::TensorDialect, LLVM::LLVMDialect,
        bufferization::BufferizationDialect, memref::MemRefDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType());
    });
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    patterns.add<RetypeOpLowering>(converter, ctx);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);

    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::spine
