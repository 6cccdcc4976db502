//===- AtomicOpsToLinalg.cpp - atomic RMW, CAS, load, store, poll ---------===//
//
// Every atomic becomes one LLVM atomic instruction per element on the i64 byte
// address (llvm.atomicrmw, llvm.cmpxchg, atomic llvm.load/llvm.store). A
// tensor atomic is an scf.for nest over the block that threads the old values
// through its iter_args: unlike a tensor.generate or linalg body, which later
// passes may fuse into consumers (duplicating it) or fold away, a loop nest
// touches each element exactly once, in program order. Masked-off elements
// are not touched and read as zero.
//
// tt.atomic_poll spins on each element in turn (an scf.while around an atomic
// load) until it holds the expected value or the op's timeout, one budget for
// the whole block measured from the op's start, has run out.
//
//===----------------------------------------------------------------------===//

#include "passes/ElementAt.h"
#include "passes/TritonToLinalgPatterns.h"
#include "passes/TritonTypeConverter.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
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
  if (resultType)
    return buildTensorByLoops(b, loc, resultType, element);
  buildLoopsOver(b, loc, shape,
                 [&](OpBuilder &b, Location loc, ValueRange ivs) {
                   element(b, loc, ivs);
                 });
  return Value();
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

/// Name of the module's helper returning CLOCK_MONOTONIC in nanoseconds.
constexpr StringLiteral kMonotonicNsName = "__spine_triton_monotonic_ns";

/// CLOCK_MONOTONIC in Linux's <time.h> (on every architecture).
constexpr int32_t kClockMonotonic = 1;

/// An internal function of the module returning clock_gettime(CLOCK_MONOTONIC)
/// in nanoseconds, created on first use. It reads the clock through libc (the
/// vDSO where there is one): a steady clock that needs no calibration, unlike
/// the x86 TSC, and is the same on x86-64 and riscv64. Both are LP64 targets,
/// where struct timespec is {i64 tv_sec, i64 tv_nsec}.
LLVM::LLVMFuncOp getOrCreateMonotonicClock(ConversionPatternRewriter &rewriter,
                                           ModuleOp module) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(kMonotonicNsName))
    return func;
  MLIRContext *ctx = rewriter.getContext();
  Location loc = UnknownLoc::get(ctx);
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto clockGettime = module.lookupSymbol<LLVM::LLVMFuncOp>("clock_gettime");
  if (!clockGettime)
    clockGettime = LLVM::LLVMFuncOp::create(
        rewriter, loc, "clock_gettime",
        LLVM::LLVMFunctionType::get(i32, {i32, ptrType}));
  auto func = LLVM::LLVMFuncOp::create(rewriter, loc, kMonotonicNsName,
                                       LLVM::LLVMFunctionType::get(i64, {}),
                                       LLVM::Linkage::Internal);
  rewriter.setInsertionPointToStart(func.addEntryBlock(rewriter));
  auto timespecType = LLVM::LLVMStructType::getLiteral(ctx, {i64, i64});
  Value one = LLVM::ConstantOp::create(rewriter, loc, i32, 1);
  Value timespec = LLVM::AllocaOp::create(rewriter, loc, ptrType, timespecType,
                                          one, /*alignment=*/8);
  Value clock = LLVM::ConstantOp::create(rewriter, loc, i32, kClockMonotonic);
  LLVM::CallOp::create(rewriter, loc, clockGettime,
                       ValueRange{clock, timespec});
  Value seconds = LLVM::LoadOp::create(rewriter, loc, i64, timespec);
  Value nanosecondsPtr =
      LLVM::GEPOp::create(rewriter, loc, ptrType, timespecType, timespec,
                          ArrayRef<LLVM::GEPArg>{0, 1});
  Value nanoseconds = LLVM::LoadOp::create(rewriter, loc, i64, nanosecondsPtr);
  Value perSecond = LLVM::ConstantOp::create(rewriter, loc, i64, 1000000000);
  Value total = LLVM::AddOp::create(
      rewriter, loc, LLVM::MulOp::create(rewriter, loc, seconds, perSecond),
      nanoseconds);
  LLVM::ReturnOp::create(rewriter, loc, total);
  return func;
}

/// Spins on each element until it equals the expected value; with a timeout,
/// until the time since the op started reaches it. Each element is loaded at
/// least once and its result is whether it held the value: once the budget is
/// spent, the remaining elements are each checked once. Relaxed polls are
/// monotonic loads, acquire polls acquire loads (which order the accesses
/// after the op after the value seen). Triton's scopes become the system
/// scope, as for the other atomics. Without a timeout the spin never ends
/// until the value comes. It has no pause hint: the target is first known in
/// LLVM IR, and x86's `pause` only spares power and a hyperthread sibling,
/// it changes no result.
struct AtomicPollLowering : OpConversionPattern<triton::AtomicPollOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::AtomicPollOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type eltType = getElementTypeOrSelf(adaptor.getExpected().getType());
    if (!isa<IntegerType>(eltType) || !isAtomicElementType(eltType))
      return rewriter.notifyMatchFailure(op, "unsupported atomic element type");
    LLVM::AtomicOrdering ordering = getOrdering(op.getSem());
    StringRef scope = getSyncScope(op.getScope());
    unsigned alignment = getStorageSizeInBytes(eltType);
    Location loc = op.getLoc();
    Value timeout = adaptor.getTimeout();
    LLVM::LLVMFuncOp clock;
    Value start;
    if (timeout) {
      clock =
          getOrCreateMonotonicClock(rewriter, op->getParentOfType<ModuleOp>());
      start =
          LLVM::CallOp::create(rewriter, loc, clock, ValueRange()).getResult();
    }
    Type i1 = rewriter.getI1Type();
    return lowerElementwise(
        op, adaptor.getPtr(), rewriter, *getTypeConverter(),
        [&](OpBuilder &b, Location loc, function_ref<Value(Value)> extract) {
          Value ptr = toPointer(b, loc, extract(adaptor.getPtr()));
          Value expected = extract(adaptor.getExpected());
          auto before = [&](OpBuilder &b, Location loc, ValueRange) {
            Value value = LLVM::LoadOp::create(
                b, loc, eltType, ptr, alignment, /*isVolatile=*/false,
                /*isNonTemporal=*/false, /*isInvariant=*/false,
                /*isInvariantGroup=*/false, ordering, scope);
            Value seen = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                               value, expected);
            Value yes = arith::ConstantIntOp::create(b, loc, i1, 1);
            Value again = arith::XOrIOp::create(b, loc, seen, yes);
            if (timeout) {
              // The clock is read only while the value is absent.
              auto ifOp = scf::IfOp::create(
                  b, loc, again,
                  [&](OpBuilder &b, Location loc) {
                    Value now =
                        LLVM::CallOp::create(b, loc, clock, ValueRange())
                            .getResult();
                    Value elapsed = arith::SubIOp::create(b, loc, now, start);
                    Value left = arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::ult, elapsed, timeout);
                    scf::YieldOp::create(b, loc, left);
                  },
                  [&](OpBuilder &b, Location loc) {
                    scf::YieldOp::create(b, loc, again);
                  });
              again = ifOp.getResult(0);
            }
            scf::ConditionOp::create(b, loc, again, seen);
          };
          auto after = [&](OpBuilder &b, Location loc, ValueRange) {
            scf::YieldOp::create(b, loc);
          };
          return scf::WhileOp::create(b, loc, TypeRange{i1}, ValueRange(),
                                      before, after)
              .getResult(0);
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
               AtomicStoreLowering, AtomicPollLowering>(converter,
                                                        patterns.getContext());
}

} // namespace mlir::spine
