//===- FunctionOpsToFunc.cpp - tt.func/return/call to func ----------------===//

#include "passes/TritonToLinalgPatterns.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {
namespace {

struct FuncOpLowering : OpConversionPattern<triton::FuncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    FunctionType type = op.getFunctionType();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      Type converted = converter.convertType(input);
      if (!converted)
        return rewriter.notifyMatchFailure(op, "unconvertible argument type");
      signature.addInputs(i, converted);
    }
    SmallVector<Type> results;
    if (failed(converter.convertTypes(type.getResults(), results)))
      return rewriter.notifyMatchFailure(op, "unconvertible result type");

    auto func = func::FuncOp::create(
        rewriter, op.getLoc(), op.getName(),
        rewriter.getFunctionType(signature.getConvertedTypes(), results));
    // Keep argument attributes (tt.divisibility etc. are facts the later
    // stages may use) and non-default visibility.
    for (NamedAttribute attr : op->getAttrs()) {
      if (attr.getName() == op.getFunctionTypeAttrName() ||
          attr.getName() == SymbolTable::getSymbolAttrName() ||
          attr.getName() == SymbolTable::getVisibilityAttrName())
        continue;
      func->setAttr(attr.getName(), attr.getValue());
    }
    if (!op.isPublic())
      func.setVisibility(op.getVisibility());
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    if (!func.isExternal() &&
        failed(rewriter.convertRegionTypes(&func.getBody(), converter,
                                           &signature)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnOpLowering : OpConversionPattern<triton::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<func::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

struct CallOpLowering : OpConversionPattern<triton::CallOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), results)))
      return failure();
    rewriter.replaceOpWithNewOp<func::CallOp>(op, op.getCallee(), results,
                                              adaptor.getOperands());
    return success();
  }
};

} // namespace

void populateFunctionOpsToFuncPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<FuncOpLowering, ReturnOpLowering, CallOpLowering>(
      converter, patterns.getContext());
}

} // namespace mlir::spine
