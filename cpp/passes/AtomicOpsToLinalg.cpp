//===- AtomicOpsToLinalg.cpp - atomic read-modify-write, CAS, load, store -===//
//
// Every atomic becomes one LLVM atomic instruction per element on the i64 byte
// address (llvm.atomicrmw, llvm.cmpxchg, atomic llvm.load/llvm.store). A
// tensor atomic is an scf.for nest over the block that threads the old values
// through its iter_args: unlike a tensor.generate or linalg body, which later
// passes may fuse into consumers (duplicating it) or fold away, a loop nest
// touches each element exactly once, in program order. Masked-off elements
// are not touched and read as zero.
//
//===----------------------------------------------------------------------===//

#include "passes/TritonToLinalgPatterns.h"
#include "passes/TritonTypeConverter.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {
namespace {

LLVM::AtomicOrdering getOrdering(triton::MemSemantic sem) {
  switch (sem) {
  case triton::MemSemantic::RELAXED:
    return LLVM::AtomicOrdering::monotonic;
  case triton::MemSemantic::ACQUIRE:
    return LLVM::AtomicOrdering::acquire;
  case triton::MemSemantic::RELEASE:
    return LLVM::AtomicOrdering::release;
  case triton::MemSemantic::ACQUIRE_RELEASE:
    return LLVM::AtomicOrdering::acq_rel;
  }
  llvm_unreachable("unknown memory semantic");
}

/// Triton's scopes name groups of GPU threads. On a CPU each program is one
/// thread and all programs share memory, so every scope becomes LLVM's system
/// scope (the empty name): even a CTA-scoped atomic stays atomic against
/// other programs, as it is on GPU hardware and as existing kernels expect.
StringRef getSyncScope(triton::MemSyncScope) { return StringRef(); }

Value createZero(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

Value toPointer(OpBuilder &b, Location loc, Value addr) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), addr);
}

/// `body` under `mask` when there is one; masked off, the result is zero.
Value guarded(OpBuilder &b, Location loc, Value mask, Type type,
              function_ref<Value(OpBuilder &, Location)> body) {
  if (!mask)
    return body(b, loc);
  auto ifOp = scf::IfOp::create(
      b, loc, mask,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, body(b, loc));
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, createZero(b, loc, type));
      });
  return ifOp.getResult(0);
}

/// Applies `element` to every index of `shape` in row-major order, one element
/// after the other. When `resultType` is given the values `element` returns
/// are collected into a tensor of that type, else they are dropped.
Value forEachElement(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> element) {
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t dim : shape) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
    steps.push_back(one);
  }
  SmallVector<Value> inits;
  if (resultType)
    inits.push_back(tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                            resultType.getElementType()));
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, inits,
      [&](OpBuilder &b, Location loc, ValueRange ivs,
          ValueRange iterArgs) -> scf::ValueVector {
        Value v = element(b, loc, ivs);
        if (!resultType)
          return {};
        return {tensor::InsertOp::create(b, loc, v, iterArgs.front(), ivs)};
      });
  return resultType ? nest.results.front() : Value();
}

/// Lowers a (tensor) atomic op: scalars directly, tensors element by element.
/// `element` emits the atomic for one element; its `extract` callback returns
/// that element of a converted operand (null for an absent operand).
template <typename OpTy>
LogicalResult
lowerElementwise(OpTy op, Value ptrs, ConversionPatternRewriter &rewriter,
                 const TypeConverter &converter,
                 function_ref<Value(OpBuilder &, Location,
                                    function_ref<Value(Value)> extract)>
                     element) {
  Location loc = op.getLoc();
  auto ptrType = dyn_cast<RankedTensorType>(ptrs.getType());
  if (!ptrType) {
    Value v = element(rewriter, loc, [](Value operand) { return operand; });
    if (op->getNumResults() == 0)
      rewriter.eraseOp(op);
    else
      rewriter.replaceOp(op, v);
    return success();
  }
  RankedTensorType resultType;
  if (op->getNumResults() != 0 && !op->getResult(0).use_empty())
    resultType = dyn_cast_or_null<RankedTensorType>(
        converter.convertType(op->getResult(0).getType()));
  Value result =
      forEachElement(rewriter, loc, ptrType.getShape(), resultType,
                     [&](OpBuilder &b, Location loc, ValueRange ivs) {
                       return element(b, loc, [&](Value operand) -> Value {
                         if (!operand)
                           return Value();
                         return tensor::ExtractOp::create(b, loc, operand, ivs);
                       });
                     });
  // Without a tensor of old values (no result, or one never read) nothing
  // replaces the op.
  if (result)
    rewriter.replaceOp(op, result);
  else
    rewriter.eraseOp(op);
  return success();
}

std::optional<LLVM::AtomicBinOp> getBinOp(triton::RMWOp op) {
  switch (op) {
  case triton::RMWOp::AND:
    return LLVM::AtomicBinOp::_and;
  case triton::RMWOp::OR:
    return LLVM::AtomicBinOp::_or;
  case triton::RMWOp::XOR:
    return LLVM::AtomicBinOp::_xor;
  case triton::RMWOp::ADD:
    return LLVM::AtomicBinOp::add;
  case triton::RMWOp::FADD:
    return LLVM::AtomicBinOp::fadd;
  case triton::RMWOp::MAX:
    return LLVM::AtomicBinOp::max;
  case triton::RMWOp::MIN:
    return LLVM::AtomicBinOp::min;
  case triton::RMWOp::UMAX:
    return LLVM::AtomicBinOp::umax;
  case triton::RMWOp::UMIN:
    return LLVM::AtomicBinOp::umin;
  case triton::RMWOp::XCHG:
    return LLVM::AtomicBinOp::xchg;
  }
  return std::nullopt;
}

/// LLVM's atomics act on whole bytes: i1 (stored as a byte) is not accepted.
bool isAtomicElementType(Type type) {
  return type.isIntOrFloat() && type.getIntOrFloatBitWidth() >= 8;
}

struct AtomicRMWLowering : OpConversionPattern<triton::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type eltType = getElementTypeOrSelf(adaptor.getVal().getType());
    std::optional<LLVM::AtomicBinOp> binOp = getBinOp(op.getAtomicRmwOp());
    bool isFloat = isa<FloatType>(eltType);
    bool floatOp = binOp == LLVM::AtomicBinOp::fadd;
    if (!binOp || !isAtomicElementType(eltType) ||
        (binOp != LLVM::AtomicBinOp::xchg && floatOp != isFloat))
      return rewriter.notifyMatchFailure(op, "unsupported atomic element type");
    LLVM::AtomicOrdering ordering = getOrdering(op.getSem());
    StringRef scope = getSyncScope(op.getScope());
    unsigned alignment = getStorageSizeInBytes(eltType);
    Value vals = adaptor.getVal(), mask = adaptor.getMask();
    return lowerElementwise(
        op, adaptor.getPtr(), rewriter, *getTypeConverter(),
        [&](OpBuilder &b, Location loc, function_ref<Value(Value)> extract) {
          Value addr = extract(adaptor.getPtr()), val = extract(vals);
          return guarded(b, loc, extract(mask), eltType,
                         [&](OpBuilder &b, Location loc) -> Value {
                           return LLVM::AtomicRMWOp::create(
                               b, loc, *binOp, toPointer(b, loc, addr), val,
                               ordering, scope, alignment);
                         });
        });
  }
};

/// The ordering of a failed compare-exchange: it stores nothing, so it keeps
/// only the acquire half.
LLVM::AtomicOrdering getFailureOrdering(LLVM::AtomicOrdering success) {
  if (success == LLVM::AtomicOrdering::acquire ||
      success == LLVM::AtomicOrdering::acq_rel)
    return LLVM::AtomicOrdering::acquire;
  return LLVM::AtomicOrdering::monotonic;
}

/// cmpxchg compares integers: floats are compared by their bits, as a GPU's
/// atom.cas does.
struct AtomicCASLowering : OpConversionPattern<triton::AtomicCASOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type eltType = getElementTypeOrSelf(adaptor.getVal().getType());
    if (!isAtomicElementType(eltType))
      return rewriter.notifyMatchFailure(op, "unsupported atomic element type");
    Type intType = rewriter.getIntegerType(eltType.getIntOrFloatBitWidth());
    LLVM::AtomicOrdering ordering = getOrdering(op.getSem());
    StringRef scope = getSyncScope(op.getScope());
    unsigned alignment = getStorageSizeInBytes(eltType);
    return lowerElementwise(
        op, adaptor.getPtr(), rewriter, *getTypeConverter(),
        [&](OpBuilder &b, Location loc, function_ref<Value(Value)> extract) {
          auto asInt = [&](Value v) -> Value {
            if (v.getType() == intType)
              return v;
            return arith::BitcastOp::create(b, loc, intType, v);
          };
          // One statement each: the IR order must not depend on the order
          // the compiler evaluates call arguments in.
          Value ptr = toPointer(b, loc, extract(adaptor.getPtr()));
          Value cmp = asInt(extract(adaptor.getCmp()));
          Value val = asInt(extract(adaptor.getVal()));
          auto cmpxchg = LLVM::AtomicCmpXchgOp::create(
              b, loc, ptr, cmp, val, ordering, getFailureOrdering(ordering),
              scope, alignment);
          Value old = LLVM::ExtractValueOp::create(b, loc, cmpxchg.getRes(),
                                                   ArrayRef<int64_t>{0});
          if (intType != eltType)
            old = arith::BitcastOp::create(b, loc, eltType, old);
          return old;
        });
  }
};

struct AtomicLoadLowering : OpConversionPattern<triton::AtomicLoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::AtomicLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type eltType = getElementTypeOrSelf(op.getType());
    if (!isAtomicElementType(eltType))
      return rewriter.notifyMatchFailure(op, "unsupported atomic element type");
    LLVM::AtomicOrdering ordering = getOrdering(op.getSem());
    StringRef scope = getSyncScope(op.getScope());
    unsigned alignment = getStorageSizeInBytes(eltType);
    return lowerElementwise(
        op, adaptor.getPtr(), rewriter, *getTypeConverter(),
        [&](OpBuilder &b, Location loc, function_ref<Value(Value)> extract) {
          Value addr = extract(adaptor.getPtr());
          return guarded(b, loc, extract(adaptor.getMask()), eltType,
                         [&](OpBuilder &b, Location loc) -> Value {
                           return LLVM::LoadOp::create(
                               b, loc, eltType, toPointer(b, loc, addr),
                               alignment, /*isVolatile=*/false,
                               /*isNonTemporal=*/false, /*isInvariant=*/false,
                               /*isInvariantGroup=*/false, ordering, scope);
                         });
        });
  }
};

struct AtomicStoreLowering : OpConversionPattern<triton::AtomicStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::AtomicStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type eltType = getElementTypeOrSelf(adaptor.getValue().getType());
    if (!isAtomicElementType(eltType))
      return rewriter.notifyMatchFailure(op, "unsupported atomic element type");
    LLVM::AtomicOrdering ordering = getOrdering(op.getSem());
    StringRef scope = getSyncScope(op.getScope());
    unsigned alignment = getStorageSizeInBytes(eltType);
    return lowerElementwise(
        op, adaptor.getPtr(), rewriter, *getTypeConverter(),
        [&](OpBuilder &b, Location loc,
            function_ref<Value(Value)> extract) -> Value {
          Value addr = extract(adaptor.getPtr());
          Value value = extract(adaptor.getValue());
          auto store = [&](OpBuilder &b, Location loc) {
            LLVM::StoreOp::create(b, loc, value, toPointer(b, loc, addr),
                                  alignment, /*isVolatile=*/false,
                                  /*isNonTemporal=*/false,
                                  /*isInvariantGroup=*/false, ordering, scope);
          };
          if (Value m = extract(adaptor.getMask()))
            scf::IfOp::create(b, loc, m, [&](OpBuilder &b, Location loc) {
              store(b, loc);
              scf::YieldOp::create(b, loc);
            });
          else
            store(b, loc);
          return Value();
        });
  }
};

/// LLVM 22 gives llvm.atomicrmw and llvm.cmpxchg no memory effects interface,
/// and buffer deallocation rejects ops with unknown effects. They read and
/// write their address and, like an ordered llvm.load, may synchronize with
/// any other memory access.
template <typename OpTy>
struct AtomicMemoryEffects
    : MemoryEffectOpInterface::ExternalModel<AtomicMemoryEffects<OpTy>, OpTy> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    OpOperand *ptr = &cast<OpTy>(op).getPtrMutable();
    effects.emplace_back(MemoryEffects::Read::get(), ptr);
    effects.emplace_back(MemoryEffects::Write::get(), ptr);
    effects.emplace_back(MemoryEffects::Read::get());
    effects.emplace_back(MemoryEffects::Write::get());
  }
};

} // namespace

void registerAtomicMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, LLVM::LLVMDialect *) {
    LLVM::AtomicRMWOp::attachInterface<AtomicMemoryEffects<LLVM::AtomicRMWOp>>(
        *ctx);
    LLVM::AtomicCmpXchgOp::attachInterface<
        AtomicMemoryEffects<LLVM::AtomicCmpXchgOp>>(*ctx);
  });
}

void populateAtomicOpsToLinalgPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<AtomicRMWLowering, AtomicCASLowering, AtomicLoadLowering,
               AtomicStoreLowering>(converter, patterns.getContext());
}

} // namespace mlir::spine
