//===- MemoryOpsToLinalg.cpp - pointers, loads and stores -----------------===//
//
// A pointer is an i64 byte address, addptr is address arithmetic, and a
// tensor load/store touches each element under its mask, recomputing the
// element's address, mask and value from the ops that build them
// (ElementAt). It handles any pointer tensor (several bases, pointers loaded
// from memory, selects of pointers); masked-off elements are never accessed.
//
//===----------------------------------------------------------------------===//

#include "passes/ElementAt.h"
#include "passes/LoadViews.h"
#include "passes/TileBuffer.h"
#include "passes/TileCache.h"
#include "passes/TritonToLinalgPatterns.h"
#include "passes/TritonTypeConverter.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::spine {
namespace {

/// A constant of `type` (scalar, or a splat tensor) with integer value `v`.
Value createIntConstant(OpBuilder &b, Location loc, Type type, int64_t v) {
  Type elt = getElementTypeOrSelf(type);
  TypedAttr attr = b.getIntegerAttr(elt, v);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    attr = SplatElementsAttr::get(tensor, attr);
  return arith::ConstantOp::create(b, loc, attr);
}

/// Pointee type of a (tensor of) !tt.ptr as it is stored in memory.
Type getPointeeType(Type ptrLike) {
  return cast<triton::PointerType>(getElementTypeOrSelf(ptrLike))
      .getPointeeType();
}

void storeElement(OpBuilder &b, Location loc, Value addr, Value value,
                  Region *scope) {
  Value ptr = createAddressPointer(b, loc, addr, scope);
  if (value.getType().isInteger(1))
    value = arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, ptr,
                        getStorageSizeInBytes(value.getType()));
}

struct AddPtrLowering : OpConversionPattern<triton::AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = adaptor.getPtr();
    Value offset = adaptor.getOffset();
    Type addrType = base.getType();
    // Offsets are signed; widen to 64 bits before scaling so large tensors
    // index correctly.
    if (getElementTypeOrSelf(offset.getType()).getIntOrFloatBitWidth() < 64)
      offset = arith::ExtSIOp::create(rewriter, loc, addrType, offset);
    int64_t size = getStorageSizeInBytes(getPointeeType(op.getPtr().getType()));
    if (size != 1)
      offset = arith::MulIOp::create(
          rewriter, loc, offset,
          createIntConstant(rewriter, loc, addrType, size));
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, base, offset);
    return success();
  }
};

/// The kernel argument holding the launch's tile cache when `load` may read
/// its in-bounds tile from it (spine-tile-cache-argument), else null.
Value tileCacheArgument(triton::LoadOp load) {
  if (!load->hasAttr(kCachedTileAttr))
    return {};
  auto func = load->getParentOfType<FunctionOpInterface>();
  if (!func || func.isExternal())
    return {};
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, kTileCacheArgAttr))
      return func.getArgument(i);
  return {};
}

/// The address of the tile cache's copy of the `rows` x `columns` tile at
/// `base`, its rows `rowStride` elements apart, laid out with rows
/// `slotRowLength` elements apart; 0 when `cache` is 0 or cannot hold it.
Value lookupCachedTile(OpBuilder &b, Location loc, Value cache, Value base,
                       Value rowStride, int64_t rows, int64_t columns,
                       int64_t slotRowLength, int64_t elementBytes) {
  Type i64 = b.getI64Type();
  auto constant = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, cache,
                                    constant(b, 0));
  auto branch = scf::IfOp::create(b, loc, TypeRange{i64}, has,
                                  /*withElseRegion=*/true);
  OpBuilder call = branch.getThenBodyBuilder();
  // SpineTileCacheHeader: the cache's first word is its lookup function.
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value header = LLVM::IntToPtrOp::create(call, loc, ptrType, cache);
  Value lookup = LLVM::LoadOp::create(call, loc, ptrType, header, 8);
  Value strideBytes =
      arith::MulIOp::create(call, loc, rowStride, constant(call, elementBytes));
  auto lookupType =
      LLVM::LLVMFunctionType::get(i64, {ptrType, i64, i64, i64, i64, i64});
  Value address =
      LLVM::CallOp::create(
          call, loc, lookupType,
          ValueRange{lookup, header, base, strideBytes, constant(call, rows),
                     constant(call, columns * elementBytes),
                     constant(call, slotRowLength * elementBytes)})
          .getResult();
  scf::YieldOp::create(call, loc, address);
  OpBuilder none = branch.getElseBodyBuilder();
  scf::YieldOp::create(none, loc, constant(none, 0));
  return branch.getResult(0);
}

/// The tile of `type` at `base` (rows `rowStride` elements apart) read from
/// the copy the launch's tile `cache` returns (rows `slotRowLength` elements
/// apart, in `slotType`), or what `otherwise` builds where it returns none.
Value cachedTileOr(OpBuilder &b, Location loc, Value cache, Value base,
                   Value rowStride, RankedTensorType type,
                   int64_t slotRowLength, MemRefType slotType,
                   function_ref<Value(OpBuilder &)> otherwise) {
  Value address = lookupCachedTile(
      b, loc, cache, base, rowStride, type.getDimSize(0), type.getDimSize(1),
      slotRowLength, getStorageSizeInBytes(type.getElementType()));
  Value hit =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, address,
                            arith::ConstantIntOp::create(b, loc, 0, 64));
  auto branch = scf::IfOp::create(b, loc, TypeRange{type}, hit,
                                  /*withElseRegion=*/true);
  OpBuilder cached = branch.getThenBodyBuilder();
  Value strides[] = {
      arith::ConstantIntOp::create(cached, loc, slotRowLength, 64),
      arith::ConstantIntOp::create(cached, loc, 1, 64)};
  scf::YieldOp::create(
      cached, loc,
      createLoadView(cached, loc, address, type, strides, slotType));
  OpBuilder copy = branch.getElseBodyBuilder();
  scf::YieldOp::create(copy, loc, otherwise(copy));
  return branch.getResult(0);
}

struct LoadLowering : OpConversionPattern<triton::LoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType || !isa<IntegerType>(adaptor.getPtr().getType()) &&
                           !isa<RankedTensorType>(adaptor.getPtr().getType()))
      return rewriter.notifyMatchFailure(op, "not a pointer or pointer tensor");
    Type eltType = getElementTypeOrSelf(resultType);
    bool isVolatile = op.getIsVolatile();
    Value ptrs = adaptor.getPtr(), mask = adaptor.getMask(),
          other = adaptor.getOther();

    auto tensorType = dyn_cast<RankedTensorType>(resultType);
    if (!tensorType) {
      Region *scope = rewriter.getInsertionBlock()->getParent();
      rewriter.replaceOp(op, loadElementAt(rewriter, loc, ptrs, eltType,
                                           isVolatile, mask, other, scope));
      return success();
    }

    // Both versions (AccessVersions.h) fill the same tensor, so the load
    // bufferizes to one buffer; a version whose addresses form a strided
    // block reads memory in place instead, where that is safe.
    Value init =
        tensor::EmptyOp::create(rewriter, loc, tensorType.getShape(), eltType);
    int64_t rank = tensorType.getRank();
    SmallVector<Operation *> storesInReach;
    bool inPlace = canReadInPlace(op, &storesInReach);
    bool wholeRowsOnly = inPlace && isWholeRowsDotOperand(op);
    // A tl.dot tile from the launch's tile cache: B where it is read as
    // whole rows, A (copied into a tile, never read in place) always.
    Value tileCache = tileCacheArgument(op);
    if (inPlace && !wholeRowsOnly)
      tileCache = {};
    MemRefType viewType;
    Value result = emitAccessVersions(
        rewriter, loc, op, tensorType,
        [&](OpBuilder &b, Location loc, const AccessVersion *version) -> Value {
          if (tileCache && !inPlace && !version->viewStrides.empty() &&
              rank == 2) {
            // A: the cache's copy has its rows consecutive, as the tile the
            // kernel copies itself has.
            SmallVector<Value> strides;
            Value base = viewOrigin(rewriter, b, loc, op, version, strides);
            return cachedTileOr(
                b, loc, tileCache, base, strides[0], tensorType,
                tensorType.getDimSize(1),
                MemRefType::get(tensorType.getShape(), eltType),
                [&](OpBuilder &b) {
                  return buildTensorByLoops(
                      b, loc, init,
                      [&](OpBuilder &b, Location loc, ValueRange ivs) {
                        return loadElementOf(rewriter, b, loc, op, ivs,
                                             version);
                      });
                });
          }
          if (inPlace && !version->viewStrides.empty()) {
            SmallVector<Value> strides;
            Value base = viewOrigin(rewriter, b, loc, op, version, strides);
            viewType = getViewType(tensorType, version->viewStrides);
            if (wholeRowsOnly)
              return wholeRowsOrPacked(rewriter, b, loc, op, version, base,
                                       strides, viewType, tileCache);
            return createLoadView(b, loc, base, tensorType, strides, viewType);
          }
          if (!version->transposedStrides.empty())
            return transposeOfView(rewriter, b, loc, op, version, init);
          if (!viewType)
            return buildTensorByLoops(
                b, loc, init, [&](OpBuilder &b, Location loc, ValueRange ivs) {
                  return loadElementOf(rewriter, b, loc, op, ivs, version);
                });
          // The other version is a view: this one is copied in its type.
          return copiedInViewType(rewriter, b, loc, op, version, viewType,
                                  tensorType.getDimSize(rank - 1),
                                  b.getInsertionBlock()->getParentOp());
        },
        /*askView=*/inPlace || tileCache, /*askTransposed=*/rank == 2,
        storesInReach);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The address of the first element of the strided block `version` of
  /// `op` reads (AccessVersion::viewStrides), and its strides in elements
  /// into `strides`: those known only at run time are differences of
  /// addresses one step apart.
  static Value viewOrigin(ConversionPatternRewriter &rewriter, OpBuilder &b,
                          Location loc, triton::LoadOp op,
                          const AccessVersion *version,
                          SmallVectorImpl<Value> &strides) {
    ElementAt at(rewriter, b, loc, op, version);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<Value> origin(version->viewStrides.size(), zero);
    Value base = at.get(op.getPtr(), origin);
    Value size = arith::ConstantIntOp::create(
        b, loc, getStorageSizeInBytes(getElementTypeOrSelf(op.getType())), 64);
    for (auto [d, stride] : llvm::enumerate(version->viewStrides)) {
      if (stride) {
        strides.push_back(arith::ConstantIntOp::create(b, loc, *stride, 64));
        continue;
      }
      SmallVector<Value> step(origin);
      step[d] = one;
      Value bytes =
          arith::SubIOp::create(b, loc, at.get(op.getPtr(), step), base);
      strides.push_back(arith::DivSIOp::create(b, loc, bytes, size));
    }
    return base;
  }

  /// A tl.dot's B tile (isWholeRowsDotOperand) of the in-bounds `version`,
  /// whose view would start at `base` with `strides`: read in place when its
  /// rows are consecutive in memory (the row stride is the row length),
  /// else copied into a buffer made before the branches, its rows padded as
  /// spine-vectorize-matmul pads B's (paddedRowLength), in `viewType` too:
  /// by the launch's `tileCache` where it is not null and holds the tile.
  static Value wholeRowsOrPacked(ConversionPatternRewriter &rewriter,
                                 OpBuilder &b, Location loc, triton::LoadOp op,
                                 const AccessVersion *version, Value base,
                                 ArrayRef<Value> strides, MemRefType viewType,
                                 Value tileCache) {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
    if (version->viewStrides[0] == columns)
      return createLoadView(b, loc, base, type, strides, viewType);
    Operation *versions = b.getInsertionBlock()->getParentOp();
    int64_t padded = paddedRowLength(
        rows, columns, getStorageSizeInBytes(type.getElementType()));
    Value whole = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, strides[0],
        arith::ConstantIntOp::create(b, loc, columns, 64));
    auto branch = scf::IfOp::create(b, loc, TypeRange{type}, whole,
                                    /*withElseRegion=*/true);
    OpBuilder inPlace = branch.getThenBodyBuilder();
    scf::YieldOp::create(
        inPlace, loc,
        createLoadView(inPlace, loc, base, type, strides, viewType));
    OpBuilder copy = branch.getElseBodyBuilder();
    auto copied = [&](OpBuilder &b) {
      return copiedInViewType(rewriter, b, loc, op, version, viewType, padded,
                              versions);
    };
    scf::YieldOp::create(copy, loc,
                         tileCache ? cachedTileOr(copy, loc, tileCache, base,
                                                  strides[0], type, padded,
                                                  viewType, copied)
                                   : copied(copy));
    return branch.getResult(0);
  }

  /// The load's tensor under `version`, copied element by element into a
  /// 64-byte aligned buffer made before `versions` (the branches of the
  /// load's versions: so it stays one stack buffer, not one allocated per
  /// execution of a branch) whose rows are `rowLength` elements apart, in
  /// `viewType`, so that it bufferizes to the same memref type as a view.
  static Value copiedInViewType(ConversionPatternRewriter &rewriter,
                                OpBuilder &b, Location loc, triton::LoadOp op,
                                const AccessVersion *version,
                                MemRefType viewType, int64_t rowLength,
                                Operation *versions) {
    auto type = cast<RankedTensorType>(op.getType());
    OpBuilder before(versions);
    SmallVector<int64_t> shape(type.getShape());
    int64_t columns = shape.back();
    shape.back() = rowLength;
    Value buffer = memref::AllocOp::create(
        before, loc, MemRefType::get(shape, type.getElementType()),
        before.getI64IntegerAttr(kTileAlignment));
    if (rowLength != columns) {
      SmallVector<int64_t> zeros(shape.size(), 0), ones(shape.size(), 1);
      buffer = memref::SubViewOp::create(before, loc, buffer, zeros,
                                         type.getShape(), ones);
    }
    buildLoopsOver(b, loc, type.getShape(),
                   [&](OpBuilder &b, Location loc, ValueRange ivs) {
                     memref::StoreOp::create(
                         b, loc,
                         loadElementOf(rewriter, b, loc, op, ivs, version),
                         buffer, ivs);
                   });
    Value cast = buffer.getType() == viewType
                     ? buffer
                     : memref::CastOp::create(b, loc, viewType, buffer);
    return bufferization::ToTensorOp::create(b, loc, type, cast,
                                             /*restrict=*/true,
                                             /*writable=*/false);
  }

  /// A transposed strided block (AccessVersion::transposedStrides) read as
  /// the transpose of a view of its transpose, whose rows are consecutive:
  /// into `init`, at the load, so what the view reads is what memory holds
  /// there. spine-vectorize-transposes reads the view's rows as vectors.
  static Value transposeOfView(ConversionPatternRewriter &rewriter,
                               OpBuilder &b, Location loc, triton::LoadOp op,
                               const AccessVersion *version, Value init) {
    auto type = cast<RankedTensorType>(init.getType());
    Type eltType = type.getElementType();
    ElementAt at(rewriter, b, loc, op, version);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<Value> origin{zero, zero}, right{zero, one};
    Value base = at.get(op.getPtr(), origin);
    std::optional<int64_t> known = version->transposedStrides[1];
    Value stride;
    if (known) {
      stride = arith::ConstantIntOp::create(b, loc, *known, 64);
    } else {
      // A stride known only at run time is the difference of addresses one
      // step apart.
      Value bytes =
          arith::SubIOp::create(b, loc, at.get(op.getPtr(), right), base);
      Value size = arith::ConstantIntOp::create(
          b, loc, getStorageSizeInBytes(eltType), 64);
      stride = arith::DivSIOp::create(b, loc, bytes, size);
    }
    auto transposedType = RankedTensorType::get(
        {type.getDimSize(1), type.getDimSize(0)}, eltType);
    Value view =
        createLoadView(b, loc, base, transposedType,
                       {stride, arith::ConstantIntOp::create(b, loc, 1, 64)},
                       getViewType(transposedType, {known, int64_t(1)}));
    return linalg::TransposeOp::create(b, loc, view, init,
                                       ArrayRef<int64_t>{1, 0})
        ->getResult(0);
  }
};

struct StoreLowering : OpConversionPattern<triton::StoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ptrs = adaptor.getPtr(), values = adaptor.getValue(),
          mask = adaptor.getMask();

    auto storeOne = [&](OpBuilder &b, Location loc, Value addr, Value value,
                        Value m, Region *scope) {
      if (!m) {
        storeElement(b, loc, addr, value, scope);
        return;
      }
      scf::IfOp::create(b, loc, m, [&](OpBuilder &b, Location loc) {
        storeElement(b, loc, addr, value, scope);
        scf::YieldOp::create(b, loc);
      });
    };

    auto tensorType = dyn_cast<RankedTensorType>(values.getType());
    if (!tensorType) {
      storeOne(rewriter, loc, ptrs, values, mask,
               rewriter.getInsertionBlock()->getParent());
      rewriter.eraseOp(op);
      return success();
    }

    // A loop nest over the block; the stores keep program order.
    emitAccessVersions(
        rewriter, loc, op, Type(),
        [&](OpBuilder &b, Location loc, const AccessVersion *version) {
          buildLoopsOver(b, loc, tensorType.getShape(),
                         [&](OpBuilder &b, Location loc, ValueRange ivs) {
                           // The outermost loop of the nest bounds what is
                           // loop-invariant.
                           Region *scope = ivs.front().getParentRegion();
                           ElementAt at(rewriter, b, loc, op, version);
                           Value addr = at.get(op.getPtr(), ivs);
                           Value value = at.get(op.getValue(), ivs);
                           Value m = at.getMask(op.getMask(), ivs);
                           storeOne(b, loc, addr, value, m, scope);
                         });
          return Value();
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Casts between pointers and integers are identities on byte addresses.
template <typename OpTy>
struct AddressIdentityLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

struct BitcastLowering : OpConversionPattern<triton::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return failure();
    if (resultType == adaptor.getSrc().getType())
      rewriter.replaceOp(op, adaptor.getSrc());
    else
      rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, resultType,
                                                    adaptor.getSrc());
    return success();
  }
};

} // namespace

void populateMemoryOpsToLinalgPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<AddPtrLowering, LoadLowering, StoreLowering, BitcastLowering,
               AddressIdentityLowering<triton::IntToPtrOp>,
               AddressIdentityLowering<triton::PtrToIntOp>>(
      converter, patterns.getContext());
}

} // namespace mlir::spine
