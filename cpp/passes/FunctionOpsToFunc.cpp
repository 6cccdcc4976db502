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
    // An argument may become several (a tensor descriptor, 1:N).
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      SmallVector<Type> converted;
      if (failed(converter.convertType(input, converted)))
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
          attr.getName() == op.getArgAttrsAttrName() ||
          attr.getName() == SymbolTable::getSymbolAttrName() ||
          attr.getName() == SymbolTable::getVisibilityAttrName())
        continue;
      func->setAttr(attr.getName(), attr.getValue());
    }
    // Argument attributes follow their argument to all its converted places.
    for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
      DictionaryAttr attrs = op.getArgAttrDict(i);
      auto mapping = signature.getInputMapping(i);
      if (!attrs || !mapping)
        continue;
      for (unsigned k = 0; k < mapping->size; ++k)
        func.setArgAttrs(mapping->inputNo + k, attrs);
    }
    if (!op.isPublic())
      func.setVisibility(op.getVisibility());
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    if (!func.isExternal() && failed(rewriter.convertRegionTypes(
                                  &func.getBody(), converter, &signature)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// The converted operands in order, a value converted 1:N (a tensor
/// descriptor) by its several values.
SmallVector<Value> flatten(ArrayRef<ValueRange> operands) {
  SmallVector<Value> values;
  for (ValueRange range : operands)
    llvm::append_range(values, range);
  return values;
}

struct ReturnOpLowering : OpConversionPattern<triton::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::ReturnOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<func::ReturnOp>(op,
                                                flatten(adaptor.getOperands()));
    return success();
  }
};

struct CallOpLowering : OpConversionPattern<triton::CallOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::CallOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> results;
    SmallVector<size_t> counts;
    for (Type type : op.getResultTypes()) {
      size_t before = results.size();
      if (failed(getTypeConverter()->convertType(type, results)))
        return failure();
      counts.push_back(results.size() - before);
    }
    auto call = func::CallOp::create(rewriter, op.getLoc(), op.getCallee(),
                                     results, flatten(adaptor.getOperands()));
    SmallVector<ValueRange> replacements;
    size_t next = 0;
    for (size_t count : counts) {
      replacements.push_back(call.getResults().slice(next, count));
      next += count;
    }
    rewriter.replaceOpWithMultiple(op, replacements);
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
