//===- LoadViews.cpp - loads read in place through memref views -----------===//

#include "passes/LoadViews.h"
#include "passes/ElementAt.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::spine {

bool canReadInPlace(Operation *op, SmallVectorImpl<Operation *> *stores) {
  auto load = dyn_cast<triton::LoadOp>(op);
  if (!load || load.getIsVolatile() || !isa<RankedTensorType>(load.getType()))
    return false;
  Type element = getElementTypeOrSelf(load.getType());
  if (!element.isIntOrFloat() || element.isInteger(1))
    return false;
  Block *block = load->getBlock();
  Operation *last = load;
  bool reduced = false;
  SmallVector<Value> worklist{load.getResult()};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return false;
      // Elementwise arithmetic computes fresh tensors; any other value may be
      // the view itself (or share its memory) and must not leave the block
      // or be carried by a loop.
      auto isFresh = [&] {
        Operation *def = value.getDefiningOp();
        return def && def != load &&
               isa<arith::ArithDialect, math::MathDialect>(def->getDialect());
      };
      // Starting a loop's carried value (a peeled first iteration's result,
      // see PeelConstantAccumulators): the value is materialized before the
      // loop, so the view is read no later, whatever the loop writes.
      auto loop = dyn_cast<LoopLikeOpInterface>(user);
      if (loop && loop.getTiedLoopRegionIterArg(&use)) {
        if (!isFresh())
          return false;
        continue;
      }
      // tl.dot's A stays packed into a contiguous tile: read in place, its
      // rows a page apart made the tutorial matmul 10% slower (Zen 3), and
      // 1-9% slower on Skylake-SP (docs/benchmarks.md, session 30). B only
      // as a block of whole rows (isWholeRowsDotOperand).
      if (isa<triton::DotOp>(user) && value == load.getResult() &&
          use.getOperandNumber() == 1 && isWholeRowsDotOperand(load)) {
        if (last->isBeforeInBlock(inBlock))
          last = inBlock;
        continue;
      }
      if (isa<triton::DotOp>(user))
        return false;
      if (mayWrite(inBlock) && !(stores && isa<triton::StoreOp>(inBlock)))
        return false;
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        if (!isFresh())
          return false;
        continue;
      }
      if (last->isBeforeInBlock(inBlock))
        last = inBlock;
      // Reductions and scans read their operands where they stand into fresh
      // tensors; what other ops compute may still read the load
      // later (an elementwise op fused into its consumer, a reshaped view of
      // it).
      if (isa<triton::ReduceOp, triton::ScanOp>(user)) {
        reduced = true;
        continue;
      }
      for (Value result : user->getResults())
        if (isa<RankedTensorType>(result.getType()))
          worklist.push_back(result);
    }
  }
  if (!stores)
    return noWritesBetween(load, last);
  // A load whose value only flows, elementwise, into stores is read by the
  // stores' own loops (ElementAt fuses it where they may); a view pays off
  // where something reads the whole block first (softmax's maximum).
  if (!reduced)
    return !mayWrite(last) && noWritesBetween(load, last);
  // The stores up to the last use (which may be one, writing while it reads
  // the value) must be the only writes.
  stores->clear();
  for (Operation *between = load->getNextNode(); between;
       between = between->getNextNode()) {
    if (isa<triton::StoreOp>(between))
      stores->push_back(between);
    else if (between != last && mayWrite(between))
      return false;
    if (between == last)
      break;
  }
  return true;
}

bool isWholeRowsDotOperand(Operation *op) {
  auto load = dyn_cast<triton::LoadOp>(op);
  if (!load)
    return false;
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2)
    return false;
  return llvm::any_of(load->getUses(), [&](OpOperand &use) {
    auto dot = dyn_cast<triton::DotOp>(use.getOwner());
    return dot && use.getOperandNumber() == 1 &&
           dot->getBlock() == load->getBlock() &&
           getElementTypeOrSelf(dot.getType()) == type.getElementType();
  });
}

MemRefType getViewType(RankedTensorType type,
                       ArrayRef<std::optional<int64_t>> strides) {
  int64_t rowMajor = 1;
  bool isRowMajor = true;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    if (type.getDimSize(d) != 1 && strides[d] != rowMajor)
      isRowMajor = false;
    rowMajor *= type.getDimSize(d);
  }
  if (isRowMajor)
    return MemRefType::get(type.getShape(), type.getElementType());
  SmallVector<int64_t> layout(type.getRank(), ShapedType::kDynamic);
  layout.back() = 1;
  return MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), /*offset=*/0, layout));
}

Value createLoadView(OpBuilder &b, Location loc, Value addr,
                     RankedTensorType type, ValueRange strides,
                     MemRefType viewType) {
  MLIRContext *ctx = b.getContext();
  // The descriptor memref lowering uses: allocated and aligned pointers,
  // offset, sizes, strides.
  int64_t rank = type.getRank();
  Type i64 = b.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto arrayType = LLVM::LLVMArrayType::get(i64, rank);
  SmallVector<Type> fields{ptrType, ptrType, i64};
  if (rank > 0)
    fields.append({arrayType, arrayType});
  auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, addr);
  Value desc = LLVM::PoisonOp::create(b, loc, descType);
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  auto i64Constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, i64Constant(0),
                                     ArrayRef<int64_t>{2});
  for (int64_t d = 0; d < rank; ++d) {
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, i64Constant(type.getDimSize(d)), ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, strides[d],
                                       ArrayRef<int64_t>{4, d});
  }
  Value memref =
      UnrealizedConversionCastOp::create(b, loc, viewType, desc).getResult(0);
  // Each view is its own memref value: no other tensor aliases it.
  return bufferization::ToTensorOp::create(b, loc, type, memref,
                                           /*restrict=*/true,
                                           /*writable=*/false);
}

bool isLoadView(Value buffer) {
  return buffer.getDefiningOp<UnrealizedConversionCastOp>() != nullptr;
}

} // namespace mlir::spine
