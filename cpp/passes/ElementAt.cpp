//===- ElementAt.cpp - one element of a Triton tensor, recomputed ---------===//

#include "passes/ElementAt.h"
#include "passes/TritonTypeConverter.h"
#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/SaveAndRestore.h"

#include <functional>

namespace mlir::spine {
namespace {

/// Scalar type of one element after conversion: pointers are i64 addresses.
Type convertedElementType(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isa<triton::PointerType>(element))
    return IntegerType::get(type.getContext(), 64);
  return element;
}

/// Arithmetic or a math function applied element by element, one result.
bool isElementwiseArithmetic(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         OpTrait::hasElementwiseMappableTraits(op) && op->getNumResults() == 1;
}

/// Integer and index arithmetic is recomputed wherever it is needed; floating
/// point work only when the tensor has a single user or is needed by
/// `anchor` alone (feedsOnly), so it is never done twice. Integer division is
/// read from its materialized tensor instead: it costs tens of cycles, and
/// offsets like `(pid * BLOCK + arange) % M` are computed once before a loop
/// that accesses memory through them many times. (Where the remainder changes
/// nothing, AccessVersions.h adds a version of the access without it.)
bool worthRecomputing(Operation *op, Value result, Operation *anchor) {
  if (!isElementwiseArithmetic(op) ||
      isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op))
    return false;
  bool isFloat = llvm::any_of(op->getOperandTypes(),
                              [](Type t) {
                                return isa<FloatType>(getElementTypeOrSelf(t));
                              }) ||
                 isa<FloatType>(getElementTypeOrSelf(result.getType()));
  return !isFloat || result.hasOneUse() ||
         (anchor && feedsOnly(result, anchor));
}

} // namespace

bool feedsOnly(Value value, Operation *access) {
  llvm::DenseMap<Value, bool> known;
  std::function<bool(Value)> feeds = [&](Value v) {
    auto [it, inserted] = known.try_emplace(v, false);
    if (!inserted)
      return it->second;
    bool only = llvm::all_of(v.getUsers(), [&](Operation *user) {
      // The ops ElementAt computes per element.
      bool elementwise = isElementwiseArithmetic(user) ||
                         isa<triton::BroadcastOp, triton::ExpandDimsOp>(user);
      return user == access || (elementwise && feeds(user->getResult(0)));
    });
    return known[v] = only;
  };
  return feeds(value);
}

bool mayWrite(Operation *op) {
  if (isMemoryEffectFree(op))
    return false;
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  return !effects || llvm::any_of(*effects, [](const auto &effect) {
    return isa<MemoryEffects::Write>(effect.getEffect());
  });
}

bool noWritesBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (mayWrite(op))
      return false;
  return true;
}

Value buildTensorByLoops(
    OpBuilder &b, Location loc, RankedTensorType type,
    function_ref<Value(OpBuilder &, Location, ValueRange)> element) {
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return buildTensorByLoops(b, loc, init, element);
}

namespace {

/// Bounds of a loop nest over every index of `shape`.
struct ShapeLoops {
  SmallVector<Value> lbs, ubs, steps;

  ShapeLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t dim : shape) {
      lbs.push_back(zero);
      ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
      steps.push_back(one);
    }
  }
};

} // namespace

void buildLoopsOver(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  ShapeLoops loops(b, loc, shape);
  scf::buildLoopNest(b, loc, loops.lbs, loops.ubs, loops.steps, body);
}

Value buildTensorByLoops(
    OpBuilder &b, Location loc, Value init,
    function_ref<Value(OpBuilder &, Location, ValueRange)> element) {
  auto type = cast<RankedTensorType>(init.getType());
  ShapeLoops loops(b, loc, type.getShape());
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, loops.lbs, loops.ubs, loops.steps, init,
      [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange iterArgs) {
        Value v = element(b, loc, ivs);
        return scf::ValueVector{
            tensor::InsertOp::create(b, loc, v, iterArgs[0], ivs)};
      });
  return nest.results.front();
}

Value loadElementAt(OpBuilder &b, Location loc, Value addr, Type type,
                    bool isVolatile, Value mask, Value other, Region *scope) {
  auto load = [&](OpBuilder &b, Location loc) -> Value {
    Value ptr = createAddressPointer(b, loc, addr, scope);
    bool isBool = type.isInteger(1);
    Type memType = isBool ? b.getI8Type() : type;
    Value v = LLVM::LoadOp::create(b, loc, memType, ptr,
                                   getStorageSizeInBytes(memType), isVolatile);
    if (isBool)
      v = arith::TruncIOp::create(b, loc, type, v);
    return v;
  };
  if (!mask)
    return load(b, loc);
  if (!other)
    other = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  auto ifOp = scf::IfOp::create(
      b, loc, mask,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, load(b, loc));
      },
      [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, other); });
  return ifOp.getResult(0);
}

Value ElementAt::get(Value tensor, ValueRange indices) {
  if (!isa<RankedTensorType>(tensor.getType()))
    return rewriter.getRemappedValue(tensor);
  if (version)
    if (Value substitute = version->substitutes.lookup(tensor))
      return get(substitute, indices);
  SmallVector<void *> key;
  for (Value index : indices)
    key.push_back(index.getAsOpaquePointer());
  auto cacheKey = std::make_pair(tensor.getAsOpaquePointer(), key);
  if (auto it = cache.find(cacheKey); it != cache.end())
    return it->second;
  Value element;
  if (Operation *def = tensor.getDefiningOp()) {
    // The ops that recompute an element stand for `def`: they carry its
    // location, so line info and errors name the statement that computed the
    // element rather than the access it was fused into.
    llvm::SaveAndRestore<Location> atDef(
        loc, isa<UnknownLoc>(def->getLoc()) ? loc : def->getLoc());
    element = recompute(def, tensor, indices);
  }
  if (!element)
    element = extract(tensor, indices);
  cache[cacheKey] = element;
  return element;
}

Value ElementAt::getMask(Value mask, ValueRange indices) {
  if (!mask || (version && version->isAllOn(mask)))
    return {};
  return get(mask, indices);
}

Value ElementAt::extract(Value tensor, ValueRange indices) {
  Value converted = rewriter.getRemappedValue(tensor);
  return tensor::ExtractOp::create(b, loc, converted, indices);
}

Value ElementAt::recompute(Operation *def, Value tensor, ValueRange indices) {
  if (auto range = dyn_cast<triton::MakeRangeOp>(def)) {
    Type type = getElementTypeOrSelf(range.getType());
    Value index = arith::IndexCastOp::create(b, loc, type, indices[0]);
    if (range.getStart() == 0)
      return index;
    Value start = arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(type, range.getStart()));
    return arith::AddIOp::create(b, loc, index, start);
  }
  if (auto splat = dyn_cast<triton::SplatOp>(def))
    return get(splat.getSrc(), {});
  if (auto load = dyn_cast<triton::LoadOp>(def))
    return reload(load, indices);
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
    if (!splat)
      return {};
    return arith::ConstantOp::create(b, loc, splat.getSplatValue<TypedAttr>());
  }
  if (auto broadcast = dyn_cast<triton::BroadcastOp>(def)) {
    auto srcType = cast<RankedTensorType>(broadcast.getSrc().getType());
    SmallVector<Value> srcIndices(indices);
    Value zero;
    for (auto [d, size] : llvm::enumerate(srcType.getShape())) {
      if (size != 1)
        continue;
      if (!zero)
        zero = arith::ConstantIndexOp::create(b, loc, 0);
      srcIndices[d] = zero;
    }
    return get(broadcast.getSrc(), srcIndices);
  }
  if (auto expand = dyn_cast<triton::ExpandDimsOp>(def)) {
    SmallVector<Value> srcIndices(indices);
    srcIndices.erase(srcIndices.begin() + expand.getAxis());
    return get(expand.getSrc(), srcIndices);
  }
  if (auto addptr = dyn_cast<triton::AddPtrOp>(def)) {
    Value base = get(addptr.getPtr(), indices);
    Value offset = get(addptr.getOffset(), indices);
    Type i64 = b.getI64Type();
    if (offset.getType() != i64)
      offset = arith::ExtSIOp::create(b, loc, i64, offset);
    Type pointee = cast<triton::PointerType>(
                       getElementTypeOrSelf(addptr.getPtr().getType()))
                       .getPointeeType();
    int64_t size = getStorageSizeInBytes(pointee);
    if (size != 1)
      offset = arith::MulIOp::create(
          b, loc, offset,
          arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, size)));
    return arith::AddIOp::create(b, loc, base, offset);
  }
  if (isa<triton::IntToPtrOp, triton::PtrToIntOp>(def))
    return get(def->getOperand(0), indices);
  if (auto bitcast = dyn_cast<triton::BitcastOp>(def)) {
    Value src = get(bitcast.getSrc(), indices);
    Type type = convertedElementType(bitcast.getType());
    return src.getType() == type
               ? src
               : arith::BitcastOp::create(b, loc, type, src).getResult();
  }
  if (worthRecomputing(def, tensor, anchor)) {
    SmallVector<Value> operands;
    for (Value operand : def->getOperands())
      operands.push_back(get(operand, indices));
    OperationState state(loc, def->getName(), operands,
                         convertedElementType(tensor.getType()),
                         def->getAttrs());
    return b.create(state)->getResult(0);
  }
  return {};
}

/// A single-use load is performed where its element is needed instead of
/// into a buffer, when no write can come between the two.
Value ElementAt::reload(Operation *op, ValueRange indices) {
  auto load = cast<triton::LoadOp>(op);
  if (load.getIsVolatile() || !anchor ||
      !(load->hasOneUse() || feedsOnly(load.getResult(), anchor)) ||
      load->getBlock() != anchor->getBlock() || !load->isBeforeInBlock(anchor))
    return {};
  // The lowering of `anchor` is being built just before it; what it has built
  // so far (another version of the same access, say) is not between the two.
  Operation *end = anchor;
  if (Operation *building = anchor->getBlock()->findAncestorOpInBlock(
          *b.getInsertionBlock()->getParentOp()))
    if (load->isBeforeInBlock(building))
      end = building;
  if (!noWritesBetween(load, end))
    return {};
  // An access that writes reads the load's elements as it goes: one
  // element's write must not change what a later element reads. Which loads
  // are safe is decided with the version (AccessVersions.h); the others are
  // read whole just before the access's loops.
  if (mayWrite(anchor) && !(version && version->fusableLoads.contains(op)))
    return indices.empty()
               ? Value()
               : tensor::ExtractOp::create(
                     b, loc, readBefore(load, indices.front()), indices)
                     .getResult();
  Region *scope = indices.empty() ? b.getInsertionBlock()->getParent()
                                  : indices.front().getParentRegion();
  Value addr = get(load.getPtr(), indices);
  Value mask = getMask(load.getMask(), indices);
  Value other = load.getOther() ? get(load.getOther(), indices) : Value();
  return loadElementAt(b, loc, addr, convertedElementType(load.getType()),
                       /*isVolatile=*/false, mask, other, scope);
}

Value ElementAt::readBefore(Operation *load, Value outermostIndex) {
  OpBuilder before(outermostIndex.getParentRegion()->getParentOp());
  auto type = cast<RankedTensorType>(load->getResult(0).getType());
  return buildTensorByLoops(
      before, loc,
      RankedTensorType::get(type.getShape(), convertedElementType(type)),
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        return loadElementOf(rewriter, b, loc, load, ivs);
      });
}

Value loadElementOf(ConversionPatternRewriter &rewriter, OpBuilder &b,
                    Location loc, Operation *op, ValueRange indices,
                    const AccessVersion *version) {
  auto load = cast<triton::LoadOp>(op);
  ElementAt at(rewriter, b, loc, load, version);
  Value mask = at.getMask(load.getMask(), indices);
  Value other = load.getOther() ? at.get(load.getOther(), indices) : Value();
  Region *scope = indices.empty() ? b.getInsertionBlock()->getParent()
                                  : indices.front().getParentRegion();
  return loadElementAt(b, loc, at.get(load.getPtr(), indices),
                       convertedElementType(load.getType()),
                       load.getIsVolatile(), mask, other, scope);
}

Value createAddressPointer(OpBuilder &b, Location loc, Value addr,
                           Region *scope) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  auto inside = [&](Value v) { return scope->isAncestor(v.getParentRegion()); };
  Value base = addr;
  SmallVector<Value> terms;
  while (auto add = base.getDefiningOp<arith::AddIOp>()) {
    if (!inside(add.getResult()))
      break;
    terms.push_back(add.getRhs());
    base = add.getLhs();
  }
  if (terms.empty() || inside(base))
    return LLVM::IntToPtrOp::create(b, loc, ptrType, addr);
  Value offset = terms.back();
  for (Value term : llvm::drop_begin(llvm::reverse(terms)))
    offset = arith::AddIOp::create(b, loc, offset, term);
  Value basePtr = LLVM::IntToPtrOp::create(b, loc, ptrType, base);
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), basePtr,
                             ArrayRef<LLVM::GEPArg>{offset});
}

} // namespace mlir::spine
