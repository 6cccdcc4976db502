//===- DebugOpsToLLVM.cpp - tt.print and tt.assert ------------------------===//
//
// tt.print becomes libc printf calls, one line per element in the format of
// Triton's GPU backends, flushed after each op so the output is visible
// (and capturable) as soon as the op ran.
//
// tt.assert checks each element; a false one calls the module's
// __spine_triton_assert_fail, which records the first failure of the launch
// in the kernel's exported __spine_triton_assert state for the launcher to
// report. The failing program returns right after that call
// (spine-assert-early-return). See docs/kernel-abi.md, "Debug ops".
//
// Elements are recomputed where they are printed or checked (ElementAt), so
// neither op materializes its operand tensors.
//
//===----------------------------------------------------------------------===//

#include "passes/AssertState.h"
#include "passes/ElementAt.h"
#include "passes/ProgramIdArguments.h"
#include "passes/TritonToLinalgPatterns.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {
namespace {

/// Name prefix of the string constants the debug ops reference.
constexpr StringLiteral kStringPrefix = "__spine_str_";

LLVM::LLVMPointerType getPtrType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx);
}

LLVM::LLVMFuncOp getOrCreateFunction(ConversionPatternRewriter &rewriter,
                                     ModuleOp module, StringRef name,
                                     LLVM::LLVMFunctionType type) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return func;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(rewriter, module.getLoc(), name, type);
}

/// A private constant holding `text` NUL-terminated; equal texts share one.
LLVM::GlobalOp getOrCreateString(ConversionPatternRewriter &rewriter,
                                 ModuleOp module, StringRef text) {
  std::string bytes = text.str();
  bytes.push_back('\0');
  StringAttr value = rewriter.getStringAttr(bytes);
  for (auto global : module.getOps<LLVM::GlobalOp>())
    if (global.getSymName().starts_with(kStringPrefix) &&
        global.getValueAttr() == value)
      return global;
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = (kStringPrefix + Twine(i)).str();
    if (!module.lookupSymbol(name))
      break;
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto type = LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes.size());
  return LLVM::GlobalOp::create(rewriter, module.getLoc(), type,
                                /*isConstant=*/true, LLVM::Linkage::Internal,
                                name, value);
}

Value getAddress(OpBuilder &b, Location loc, LLVM::GlobalOp global) {
  return LLVM::AddressOfOp::create(b, loc, global);
}

/// pid x, y, z of the program running `op`: the trailing arguments of its
/// function (MaterializeProgramIds).
FailureOr<SmallVector<Value>> getProgramIds(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!func || func.getFunctionBody().empty())
    return failure();
  Block &entry = func.getFunctionBody().front();
  if (entry.getNumArguments() < kNumProgramIdArgs)
    return failure();
  unsigned first = entry.getNumArguments() - kNumProgramIdArgs;
  return SmallVector<Value>{entry.getArgument(first),
                            entry.getArgument(first + 1),
                            entry.getArgument(first + 2)};
}

//===----------------------------------------------------------------------===//
// tt.print
//===----------------------------------------------------------------------===//

/// The printf conversion for an element of Triton type `type`, as the GPU
/// backends print it (hex: zero-padded to the type's width), or failure for a
/// type printf cannot show.
FailureOr<std::string> getConversion(Type type, bool hex, bool isSigned) {
  if (isa<triton::PointerType>(type))
    return std::string("%p");
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() > 64)
    return failure();
  unsigned bits = type.getIntOrFloatBitWidth();
  if (hex)
    return ("0x%0" + Twine((bits + 3) / 4) + (bits > 32 ? "ll" : "") + "x")
        .str();
  if (isa<FloatType>(type)) {
    if (!type.isF16() && !type.isBF16() && !type.isF32() && !type.isF64())
      return failure();
    return std::string("%f");
  }
  bool signedFormat = isSigned && bits > 1;
  if (bits == 64)
    return std::string(signedFormat ? "%lli" : "%llu");
  if (bits <= 32)
    return std::string(signedFormat ? "%i" : "%u");
  return failure();
}

/// `v` (an element of Triton type `type`, converted) as the printf argument
/// for getConversion's conversion: C's default argument promotions (integers
/// narrower than int widen by their signedness, floats become double);
/// pointers are passed as pointers, hex floats as their bits.
Value promote(OpBuilder &b, Location loc, Type type, Value v, bool hex,
              bool isSigned) {
  if (isa<triton::PointerType>(type))
    return LLVM::IntToPtrOp::create(b, loc, getPtrType(b.getContext()), v);
  unsigned bits = type.getIntOrFloatBitWidth();
  if (isa<FloatType>(type)) {
    if (!hex)
      return bits == 64 ? v : arith::ExtFOp::create(b, loc, b.getF64Type(), v);
    v = arith::BitcastOp::create(b, loc, b.getIntegerType(bits), v);
  }
  if (bits >= 32)
    return v;
  if (isSigned && !hex && bits > 1)
    return arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), v);
}

/// Decimal digits of the largest index along a dimension of size `dim`, so
/// the indices of one tensor line up.
unsigned getIndexWidth(int64_t dim) {
  unsigned width = 1;
  for (int64_t largest = dim - 1; largest >= 10; largest /= 10)
    ++width;
  return width;
}

struct PrintOpLowering : OpConversionPattern<triton::PrintOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    FailureOr<SmallVector<Value>> pids = getProgramIds(op);
    if (failed(pids))
      return rewriter.notifyMatchFailure(op, "no program-id arguments");
    bool hex = op.getHex();
    ArrayRef<int32_t> isSigned = op.getIsSigned();
    SmallVector<std::string> conversions;
    for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
      Type type = getElementTypeOrSelf(arg.getType());
      FailureOr<std::string> conversion =
          getConversion(type, hex, i < isSigned.size() && isSigned[i]);
      if (failed(conversion))
        return op.emitOpError() << "cannot print values of type " << type;
      conversions.push_back(*conversion);
    }

    auto module = op->getParentOfType<ModuleOp>();
    Type i32 = rewriter.getI32Type();
    auto ptrType = getPtrType(ctx);
    LLVM::LLVMFuncOp printf = getOrCreateFunction(
        rewriter, module, "printf",
        LLVM::LLVMFunctionType::get(i32, {ptrType}, /*isVarArg=*/true));
    LLVM::LLVMFuncOp fflush = getOrCreateFunction(
        rewriter, module, "fflush", LLVM::LLVMFunctionType::get(i32, ptrType));
    auto callPrintf = [&](OpBuilder &b, Location loc, LLVM::GlobalOp format,
                          ValueRange args) {
      SmallVector<Value> operands = {getAddress(b, loc, format)};
      llvm::append_range(operands, args);
      LLVM::CallOp::create(b, loc, printf, operands);
    };

    // The prefix is part of the format string: a '%' in it is literal.
    std::string prefix;
    for (char c : op.getPrefix()) {
      prefix.push_back(c);
      if (c == '%')
        prefix.push_back('%');
    }
    const std::string pidFormat = "pid (%u, %u, %u)";
    if (op.getArgs().empty())
      callPrintf(rewriter, loc,
                 getOrCreateString(rewriter, module, pidFormat + prefix + "\n"),
                 *pids);

    // Operand by operand, each element on a line of its own.
    for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
      Type type = getElementTypeOrSelf(arg.getType());
      bool argSigned = i < isSigned.size() && isSigned[i];
      auto tensorType = dyn_cast<RankedTensorType>(arg.getType());
      ArrayRef<int64_t> shape =
          tensorType ? tensorType.getShape() : ArrayRef<int64_t>();
      std::string format = pidFormat + " idx (";
      for (auto [d, dim] : llvm::enumerate(shape))
        format += (d ? ", %" : "%") + std::to_string(getIndexWidth(dim)) + "u";
      format += ")" + prefix;
      if (op.getArgs().size() > 1)
        format += "(operand " + std::to_string(i) + ") ";
      format += conversions[i] + "\n";
      LLVM::GlobalOp formatString = getOrCreateString(rewriter, module, format);

      if (!tensorType) {
        SmallVector<Value> args(*pids);
        args.push_back(
            promote(rewriter, loc, type, adaptor.getArgs()[i], hex, argSigned));
        callPrintf(rewriter, loc, formatString, args);
        continue;
      }
      buildLoopsOver(
          rewriter, loc, shape,
          [&](OpBuilder &b, Location loc, ValueRange ivs) {
            ElementAt at(rewriter, b, loc, op);
            SmallVector<Value> args(*pids);
            for (Value iv : ivs)
              args.push_back(arith::IndexCastOp::create(b, loc, i32, iv));
            args.push_back(
                promote(b, loc, type, at.get(arg, ivs), hex, argSigned));
            callPrintf(b, loc, formatString, args);
          });
    }
    // fflush(NULL) flushes every stream: the lines are written before the
    // kernel goes on (or crashes).
    LLVM::CallOp::create(
        rewriter, loc, fflush,
        ValueRange{LLVM::ZeroOp::create(rewriter, loc, ptrType)});
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tt.assert
//===----------------------------------------------------------------------===//

/// The exported failure state and the function recording into it (see
/// AssertState.h), created on first use.
LLVM::LLVMFuncOp getOrCreateAssertFail(ConversionPatternRewriter &rewriter,
                                       ModuleOp module) {
  if (auto fail = module.lookupSymbol<LLVM::LLVMFuncOp>(kAssertFailName))
    return fail;
  MLIRContext *ctx = rewriter.getContext();
  Location loc = UnknownLoc::get(ctx);
  Type i32 = rewriter.getI32Type();
  auto ptrType = getPtrType(ctx);
  auto stateType = LLVM::LLVMStructType::getLiteral(
      ctx, {i32, i32, i32, i32, i32, ptrType, ptrType, ptrType});

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto state = LLVM::GlobalOp::create(rewriter, loc, stateType,
                                      /*isConstant=*/false,
                                      LLVM::Linkage::External, kAssertStateName,
                                      /*value=*/Attribute());
  rewriter.createBlock(&state.getInitializerRegion());
  LLVM::ReturnOp::create(rewriter, loc,
                         LLVM::ZeroOp::create(rewriter, loc, stateType));

  rewriter.setInsertionPointAfter(state);
  auto type = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(ctx),
      {ptrType, ptrType, i32, ptrType, i32, i32, i32});
  auto fail = LLVM::LLVMFuncOp::create(rewriter, loc, kAssertFailName, type,
                                       LLVM::Linkage::Internal);
  // Out of line and cold: the checks in the kernel stay a compare and a
  // branch.
  fail.setNoInline(true);
  fail.setPassthroughAttr(
      rewriter.getArrayAttr(rewriter.getStringAttr("cold")));
  Region &body = fail.getBody();
  Block *entry = rewriter.createBlock(&body, body.end(), type.getParams(),
                                      SmallVector<Location>(7, loc));
  Block *record = rewriter.createBlock(&body, body.end());
  Block *done = rewriter.createBlock(&body, body.end());

  // The first failure of a launch wins the flag; concurrent programs that
  // fail later leave its record alone.
  rewriter.setInsertionPointToStart(entry);
  Value statePtr = LLVM::AddressOfOp::create(rewriter, loc, state);
  Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
  Value one = LLVM::ConstantOp::create(rewriter, loc, i32, 1);
  Value exchange = LLVM::AtomicCmpXchgOp::create(
      rewriter, loc, statePtr, zero, one, LLVM::AtomicOrdering::acq_rel,
      LLVM::AtomicOrdering::monotonic);
  Value won = LLVM::ExtractValueOp::create(rewriter, loc, exchange, 1);
  LLVM::CondBrOp::create(rewriter, loc, won, record, done);

  // Field order of the state: line, pids, then the three strings.
  rewriter.setInsertionPointToStart(record);
  auto args = entry->getArguments();
  std::pair<int32_t, Value> fields[] = {
      {1, args[2]}, {2, args[4]}, {3, args[5]}, {4, args[6]},
      {5, args[0]}, {6, args[1]}, {7, args[3]}};
  for (auto [index, value] : fields) {
    Value field =
        LLVM::GEPOp::create(rewriter, loc, ptrType, stateType, statePtr,
                            ArrayRef<LLVM::GEPArg>{0, index});
    LLVM::StoreOp::create(rewriter, loc, value, field);
  }
  LLVM::BrOp::create(rewriter, loc, done);
  rewriter.setInsertionPointToStart(done);
  LLVM::ReturnOp::create(rewriter, loc, ValueRange());
  return fail;
}

/// File and line of the source an op comes from: through variable names and
/// into the innermost callee of inlined calls, which is where the statement
/// itself is.
std::pair<std::string, unsigned> getFileAndLine(Location loc) {
  while (true) {
    if (auto callSite = dyn_cast<CallSiteLoc>(loc))
      loc = callSite.getCallee();
    else if (auto name = dyn_cast<NameLoc>(loc))
      loc = name.getChildLoc();
    else if (auto fused = dyn_cast<FusedLoc>(loc);
             fused && !fused.getLocations().empty())
      loc = fused.getLocations().front();
    else
      break;
  }
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return {fileLoc.getFilename().str(), fileLoc.getLine()};
  return {"unknown", 0};
}

struct AssertOpLowering : OpConversionPattern<triton::AssertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<SmallVector<Value>> pids = getProgramIds(op);
    if (failed(pids))
      return rewriter.notifyMatchFailure(op, "no program-id arguments");
    auto module = op->getParentOfType<ModuleOp>();
    LLVM::LLVMFuncOp fail = getOrCreateAssertFail(rewriter, module);
    auto [file, line] = getFileAndLine(loc);
    // Inlined callees have no name left in the IR: the function is the one
    // the assert ended up in (the kernel, or a noinline callee).
    StringRef function = op->getParentOfType<FunctionOpInterface>().getName();
    LLVM::GlobalOp messageString =
        getOrCreateString(rewriter, module, op.getMessage());
    LLVM::GlobalOp fileString = getOrCreateString(rewriter, module, file);
    LLVM::GlobalOp functionString =
        getOrCreateString(rewriter, module, function);

    auto check = [&](OpBuilder &b, Location loc, Value condition) {
      Value isTrue = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      Value failed = arith::XOrIOp::create(b, loc, condition, isTrue);
      scf::IfOp::create(b, loc, failed, [&](OpBuilder &b, Location loc) {
        SmallVector<Value> args = {
            getAddress(b, loc, messageString), getAddress(b, loc, fileString),
            LLVM::ConstantOp::create(b, loc, b.getI32Type(), line),
            getAddress(b, loc, functionString)};
        llvm::append_range(args, *pids);
        LLVM::CallOp::create(b, loc, fail, args);
        scf::YieldOp::create(b, loc);
      });
    };
    auto tensorType = dyn_cast<RankedTensorType>(op.getCondition().getType());
    if (!tensorType) {
      check(rewriter, loc, adaptor.getCondition());
    } else {
      buildLoopsOver(rewriter, loc, tensorType.getShape(),
                     [&](OpBuilder &b, Location loc, ValueRange ivs) {
                       ElementAt at(rewriter, b, loc, op);
                       check(b, loc, at.get(op.getCondition(), ivs));
                     });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateDebugOpsPatterns(TypeConverter &converter,
                              RewritePatternSet &patterns) {
  patterns.add<PrintOpLowering, AssertOpLowering>(converter,
                                                  patterns.getContext());
}

} // namespace mlir::spine
