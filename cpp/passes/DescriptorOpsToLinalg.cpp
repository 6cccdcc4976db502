//===- DescriptorOpsToLinalg.cpp - tensor descriptors ---------------------===//
//
// A GPU keeps a tensor descriptor in memory for its TMA unit; a CPU needs no
// such object. `!tt.tensordesc<B x T>` converts 1:N to the scalars it is made
// of (docs/kernel-abi.md): the base byte address, the shape and the strides
// (i64 each) and a pad-with-NaN flag (i1). Descriptors then flow through
// loops, ifs and kernel arguments with the dialect conversion's 1:N support,
// and no scratch memory is ever needed.
//
// A block access is a loop nest over the block: the element at block index
// (i0, ..) of the block at offsets (o0, ..) lives at
// base + sum((o_d + i_d) * stride_d) * sizeof(T), and is in bounds when
// 0 <= o_d + i_d < shape_d in every dimension. Out-of-bounds elements read as
// zero (NaN with padding = nan) and are never written.
//
//===----------------------------------------------------------------------===//

#include "passes/ElementAt.h"
#include "passes/TritonToLinalgPatterns.h"
#include "passes/TritonTypeConverter.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace mlir::spine {
namespace {

/// The scalars of a converted descriptor, in the order of the 1:N type
/// conversion: base, shape..., strides..., padNaN.
struct Descriptor {
  explicit Descriptor(ValueRange values) {
    size_t rank = (values.size() - 2) / 2;
    base = values.front();
    shape.assign(values.begin() + 1, values.begin() + 1 + rank);
    strides.assign(values.begin() + 1 + rank, values.begin() + 1 + 2 * rank);
    padNaN = values.back();
  }

  Value base;
  SmallVector<Value> shape, strides;
  Value padNaN;
};

std::optional<LogicalResult>
convertDescriptorType(triton::TensorDescType type,
                      SmallVectorImpl<Type> &results) {
  MLIRContext *ctx = type.getContext();
  Type i64 = IntegerType::get(ctx, 64);
  results.push_back(i64);
  results.append(2 * type.getShape().size(), i64);
  results.push_back(IntegerType::get(ctx, 1));
  return success();
}

Value toI64(OpBuilder &b, Location loc, Value v) {
  Type i64 = b.getI64Type();
  if (v.getType() == i64)
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v);
  return arith::ExtSIOp::create(b, loc, i64, v);
}

Value createI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
}

/// Sum of two i64 terms where a null term is zero.
Value addTerms(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (!lhs)
    return rhs;
  if (!rhs)
    return lhs;
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

/// Where the elements of one access live. The coordinate of an element along
/// dimension d is origin[d] + index[d] (a null value is zero): the origin is
/// fixed for the access and turned into one address before the element loops,
/// so every element address is that loop-invariant base plus terms of the
/// loop indices, which createAddressPointer makes a GEP from the base.
class ElementLocator {
public:
  ElementLocator(OpBuilder &b, Location loc, ValueRange descValues,
                 ArrayRef<Value> origin, Type elementType)
      : desc(descValues), origin(origin),
        elementSize(getStorageSizeInBytes(elementType)) {
    originAddress = desc.base;
    if (Value offset = linearOffset(b, loc, origin))
      originAddress = arith::AddIOp::create(b, loc, desc.base, offset);
  }

  /// Byte address of the element at `index` (i64 or null per dimension).
  Value address(OpBuilder &b, Location loc, ArrayRef<Value> index) const {
    Value offset = linearOffset(b, loc, index);
    if (!offset)
      return originAddress;
    return arith::AddIOp::create(b, loc, originAddress, offset);
  }

  /// Whether the element at `index` lies inside the tensor.
  Value inBounds(OpBuilder &b, Location loc, ArrayRef<Value> index) const {
    Value all;
    for (auto [d, extent] : llvm::enumerate(desc.shape)) {
      Value coord = addTerms(b, loc, origin[d], index[d]);
      if (!coord)
        coord = createI64(b, loc, 0);
      // Unsigned: a negative coordinate compares above any extent.
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           coord, extent);
      all = all ? arith::AndIOp::create(b, loc, all, inside) : inside;
    }
    return all;
  }

private:
  /// Byte offset of the coordinates `coords` (i64 or null each). The
  /// innermost stride is 1 by triton's contract (a TMA descriptor has no
  /// innermost stride), which keeps rows contiguous for LLVM.
  Value linearOffset(OpBuilder &b, Location loc, ArrayRef<Value> coords) const {
    Value elements;
    size_t last = coords.size() - 1;
    for (auto [d, coord] : llvm::enumerate(coords)) {
      if (!coord)
        continue;
      Value term = d == last
                       ? coord
                       : arith::MulIOp::create(b, loc, coord, desc.strides[d])
                             .getResult();
      elements = addTerms(b, loc, elements, term);
    }
    if (!elements || elementSize == 1)
      return elements;
    return arith::MulIOp::create(b, loc, elements,
                                 createI64(b, loc, elementSize));
  }

  Descriptor desc;
  SmallVector<Value> origin;
  Value originAddress;
  int64_t elementSize;
};

/// For each block dimension, the dimension of a tensor of `tensorShape` that
/// indexes it, or -1 for a unit block dimension (index 0). The tensor must
/// hold the block with unit dimensions dropped or added only, as triton's
/// verifier allows; nullopt otherwise.
std::optional<SmallVector<int64_t>>
mapBlockDims(ArrayRef<int64_t> blockShape, ArrayRef<int64_t> tensorShape) {
  SmallVector<int64_t> tensorDims;
  for (auto [d, size] : llvm::enumerate(tensorShape))
    if (size != 1)
      tensorDims.push_back(d);
  SmallVector<int64_t> map;
  size_t next = 0;
  for (int64_t size : blockShape) {
    if (size == 1) {
      map.push_back(-1);
      continue;
    }
    if (next == tensorDims.size() || tensorShape[tensorDims[next]] != size)
      return std::nullopt;
    map.push_back(tensorDims[next++]);
  }
  if (next != tensorDims.size())
    return std::nullopt;
  return map;
}

/// The block index (i64 or null per block dimension) of the tensor element
/// at `ivs`.
SmallVector<Value> blockIndex(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> dimMap, ValueRange ivs) {
  SmallVector<Value> index;
  for (int64_t dim : dimMap)
    index.push_back(dim < 0 ? Value() : toI64(b, loc, ivs[dim]));
  return index;
}

/// What an out-of-bounds element reads as: NaN for floats when the
/// descriptor asks for it, else zero.
Value createPadding(OpBuilder &b, Location loc, Type type, Value padNaN) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType || !APFloat::semanticsHasNaN(floatType.getFloatSemantics()))
    return zero;
  Value nan = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(floatType,
                     APFloat::getNaN(floatType.getFloatSemantics())));
  return arith::SelectOp::create(b, loc, padNaN, nan, zero);
}

/// The descriptor's offsets (one per dimension) as i64 origins.
SmallVector<Value> getOrigin(OpBuilder &b, Location loc,
                             ArrayRef<ValueRange> offsets) {
  SmallVector<Value> origin;
  for (ValueRange offset : offsets)
    origin.push_back(toI64(b, loc, offset.front()));
  return origin;
}

/// Maps the block to `tensorType`, reporting an access that reshapes it.
std::optional<SmallVector<int64_t>> mapAccess(Operation *op,
                                              triton::TensorDescType descType,
                                              RankedTensorType tensorType) {
  std::optional<SmallVector<int64_t>> map =
      mapBlockDims(descType.getShape(), tensorType.getShape());
  if (!map)
    op->emitError() << "spine-triton cannot lower '" << op->getName()
                    << "': " << tensorType << " is not the descriptor block "
                    << descType.getSignlessBlockType()
                    << " with unit dimensions added or dropped";
  return map;
}

/// Reads a tensor of `type` whose element at `ivs` is the element at block
/// index `index(ivs)` of `locator`, or `padding` when out of bounds.
Value readElements(
    OpBuilder &b, Location loc, RankedTensorType type,
    const ElementLocator &locator, Value padding,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> index) {
  return buildTensorByLoops(
      b, loc, type, [&](OpBuilder &b, Location loc, ValueRange ivs) {
        SmallVector<Value> at = index(b, loc, ivs);
        return loadElementAt(b, loc, locator.address(b, loc, at),
                             type.getElementType(), /*isVolatile=*/false,
                             locator.inBounds(b, loc, at), padding,
                             ivs.front().getParentRegion());
      });
}

/// Writes each element of `src` (an original tensor value, recomputed per
/// element with ElementAt) with `write` at its address, if in bounds. The
/// loop nest keeps program order.
void writeElements(
    ConversionPatternRewriter &rewriter, Location loc, Operation *op, Value src,
    const ElementLocator &locator,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ElementAt &,
                                    ValueRange)>
        index,
    function_ref<void(OpBuilder &, Location, Value, Value)> write) {
  auto type = cast<RankedTensorType>(src.getType());
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (int64_t dim : type.getShape()) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, dim));
    steps.push_back(one);
  }
  scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps,
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        ElementAt at(rewriter, b, loc, op);
        SmallVector<Value> blockIdx = index(b, loc, at, ivs);
        Value value = at.get(src, ivs);
        Region *scope = ivs.front().getParentRegion();
        // Built before the scf.if: createAddressPointer walks up from the
        // address to `scope`, and the region being built is not attached yet.
        Value addr = locator.address(b, loc, blockIdx);
        scf::IfOp::create(
            b, loc, locator.inBounds(b, loc, blockIdx),
            [&](OpBuilder &b, Location loc) {
              write(b, loc, createAddressPointer(b, loc, addr, scope), value);
              scf::YieldOp::create(b, loc);
            });
      });
}

void storeElement(OpBuilder &b, Location loc, Value ptr, Value value) {
  if (value.getType().isInteger(1))
    value = arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, ptr,
                        getStorageSizeInBytes(value.getType()));
}

struct MakeTensorDescLowering : OpConversionPattern<triton::MakeTensorDescOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::MakeTensorDescOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> values = {adaptor.getBase()};
    for (Value extent : adaptor.getShape())
      values.push_back(toI64(rewriter, loc, extent));
    llvm::append_range(values, adaptor.getStrides());
    values.push_back(arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getBoolAttr(op.getPadding() ==
                             triton::PaddingOption::PAD_NAN)));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct DescriptorLoadLowering : OpConversionPattern<triton::DescriptorLoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::DescriptorLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    std::optional<SmallVector<int64_t>> dimMap =
        mapAccess(op, op.getDesc().getType(), type);
    if (!dimMap)
      return failure();
    Descriptor desc(adaptor.getDesc());
    ElementLocator locator(rewriter, loc, adaptor.getDesc(),
                           getOrigin(rewriter, loc, adaptor.getIndices()),
                           type.getElementType());
    Value padding =
        createPadding(rewriter, loc, type.getElementType(), desc.padNaN);
    rewriter.replaceOp(
        op, readElements(rewriter, loc, type, locator, padding,
                         [&](OpBuilder &b, Location loc, ValueRange ivs) {
                           return blockIndex(b, loc, *dimMap, ivs);
                         }));
    return success();
  }
};

std::optional<LLVM::AtomicBinOp>
getReduceBinOp(triton::DescriptorReduceKind kind, Type descElementType) {
  bool isFloat = isa<FloatType>(descElementType);
  bool isUnsigned = descElementType.isUnsignedInteger();
  switch (kind) {
  case triton::DescriptorReduceKind::ADD:
    return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case triton::DescriptorReduceKind::MIN:
    return isFloat      ? LLVM::AtomicBinOp::fmin
           : isUnsigned ? LLVM::AtomicBinOp::umin
                        : LLVM::AtomicBinOp::min;
  case triton::DescriptorReduceKind::MAX:
    return isFloat      ? LLVM::AtomicBinOp::fmax
           : isUnsigned ? LLVM::AtomicBinOp::umax
                        : LLVM::AtomicBinOp::max;
  // CUDA's wrapping increment and decrement, as in PTX red.inc/red.dec.
  case triton::DescriptorReduceKind::INC:
    return LLVM::AtomicBinOp::uinc_wrap;
  case triton::DescriptorReduceKind::DEC:
    return LLVM::AtomicBinOp::udec_wrap;
  case triton::DescriptorReduceKind::AND:
    return LLVM::AtomicBinOp::_and;
  case triton::DescriptorReduceKind::OR:
    return LLVM::AtomicBinOp::_or;
  case triton::DescriptorReduceKind::XOR:
    return LLVM::AtomicBinOp::_xor;
  }
  return std::nullopt;
}

/// descriptor_store and descriptor_reduce: a block write, plain or atomic.
template <typename OpTy>
struct DescriptorWriteLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OneToNOpAdaptor = typename OpConversionPattern<OpTy>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    triton::TensorDescType descType = op.getDesc().getType();
    RankedTensorType type = op.getSrc().getType();
    std::optional<SmallVector<int64_t>> dimMap = mapAccess(op, descType, type);
    if (!dimMap)
      return failure();
    std::function<void(OpBuilder &, Location, Value, Value)> write =
        storeElement;
    if constexpr (std::is_same_v<OpTy, triton::DescriptorReduceOp>) {
      std::optional<LLVM::AtomicBinOp> binOp =
          getReduceBinOp(op.getKind(), descType.getElementType());
      if (!binOp)
        return rewriter.notifyMatchFailure(op, "unknown reduction");
      // Relaxed, like the GPU's bulk reductions; atomic against the other
      // programs running on other cores.
      write = [binOp = *binOp](OpBuilder &b, Location loc, Value ptr,
                               Value value) {
        LLVM::AtomicRMWOp::create(b, loc, binOp, ptr, value,
                                  LLVM::AtomicOrdering::monotonic, StringRef(),
                                  getStorageSizeInBytes(value.getType()));
      };
    }
    ElementLocator locator(rewriter, loc, adaptor.getDesc(),
                           getOrigin(rewriter, loc, adaptor.getIndices()),
                           type.getElementType());
    writeElements(
        rewriter, loc, op, op.getSrc(), locator,
        [&](OpBuilder &b, Location loc, ElementAt &, ValueRange ivs) {
          return blockIndex(b, loc, *dimMap, ivs);
        },
        write);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Row gather and scatter: data row r is descriptor row x_offsets[r], columns
/// y_offset onwards. Row indices are the coordinates themselves (origin 0).
SmallVector<Value> rowIndex(OpBuilder &b, Location loc, ElementAt &at,
                            Value xOffsets, ValueRange ivs) {
  return {toI64(b, loc, at.get(xOffsets, ivs.take_front())),
          toI64(b, loc, ivs[1])};
}

struct DescriptorGatherLowering
    : OpConversionPattern<triton::DescriptorGatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::DescriptorGatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Descriptor desc(adaptor.getDesc());
    ElementLocator locator(
        rewriter, loc, adaptor.getDesc(),
        {Value(), toI64(rewriter, loc, adaptor.getYOffset().front())},
        type.getElementType());
    Value padding =
        createPadding(rewriter, loc, type.getElementType(), desc.padNaN);
    rewriter.replaceOp(
        op, readElements(rewriter, loc, type, locator, padding,
                         [&](OpBuilder &b, Location loc, ValueRange ivs) {
                           ElementAt at(rewriter, b, loc, op);
                           return rowIndex(b, loc, at, op.getXOffsets(), ivs);
                         }));
    return success();
  }
};

struct DescriptorScatterLowering
    : OpConversionPattern<triton::DescriptorScatterOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(triton::DescriptorScatterOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ElementLocator locator(
        rewriter, loc, adaptor.getDesc(),
        {Value(), toI64(rewriter, loc, adaptor.getYOffset().front())},
        op.getSrc().getType().getElementType());
    writeElements(
        rewriter, loc, op, op.getSrc(), locator,
        [&](OpBuilder &b, Location loc, ElementAt &at, ValueRange ivs) {
          return rowIndex(b, loc, at, op.getXOffsets(), ivs);
        },
        storeElement);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A select between descriptors (what canonicalization makes of an scf.if
/// choosing one) selects each of their scalars.
struct DescriptorSelectLowering : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::SelectOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<triton::TensorDescType>(op.getType()))
      return failure();
    Value condition = adaptor.getCondition().front();
    SmallVector<Value> values;
    for (auto [t, f] :
         llvm::zip_equal(adaptor.getTrueValue(), adaptor.getFalseValue()))
      values.push_back(
          arith::SelectOp::create(rewriter, op.getLoc(), condition, t, f));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

void populateDescriptorOpsPatterns(TypeConverter &converter,
                                   RewritePatternSet &patterns) {
  converter.addConversion(convertDescriptorType);
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MakeTensorDescLowering, DescriptorLoadLowering,
               DescriptorWriteLowering<triton::DescriptorStoreOp>,
               DescriptorWriteLowering<triton::DescriptorReduceOp>,
               DescriptorGatherLowering, DescriptorScatterLowering>(converter,
                                                                    ctx);
  // Ahead of the generic retyping of non-Triton ops, which is 1:1 only.
  patterns.add<DescriptorSelectLowering>(converter, ctx, /*benefit=*/2);
}

} // namespace mlir::spine
