//===- Types.cpp - Triton dialect types -----------------------------------===//

#include "triton/Dialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::triton;

#include "triton/TypeEnums.cpp.inc"
#include "triton/TypeInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "triton/Types.cpp.inc"

void TritonDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "triton/Types.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// PointerType: !tt.ptr<pointee[, addrspace]>
//===----------------------------------------------------------------------===//

// The address space is printed as triton 3.9 does, a quoted enum keyword
// ("descriptor", "constant"), and omitted when Global. Older TTIR spells it as
// the integer value (`!tt.ptr<f32, 1>`); both forms are accepted.
Type PointerType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  Type pointee;
  if (parser.parseLess() || parser.parseType(pointee))
    return {};

  PtrAddrSpace space = PtrAddrSpace::Global;
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc spaceLoc = parser.getCurrentLocation();
    std::optional<PtrAddrSpace> parsed;
    std::string keyword;
    uint32_t number;
    if (succeeded(parser.parseOptionalString(&keyword))) {
      parsed = symbolizePtrAddrSpace(keyword);
    } else {
      if (parser.parseInteger(number))
        return {};
      parsed = symbolizePtrAddrSpace(number);
    }
    if (!parsed) {
      parser.emitError(spaceLoc, "unknown pointer address space");
      return {};
    }
    space = *parsed;
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, pointee, space);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  if (getAddressSpace() != PtrAddrSpace::Global)
    printer << ", \"" << stringifyPtrAddrSpace(getAddressSpace()) << "\"";
  printer << ">";
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType, PtrAddrSpace) {
  if (!pointeeType)
    return emitError() << "pointer needs a pointee type";
  // Tensors of pointers are the vector form; a pointer to a tensor is not.
  if (isa<ShapedType>(pointeeType))
    return emitError() << "pointers may only point to scalar types, not "
                       << pointeeType;
  return success();
}

//===----------------------------------------------------------------------===//
// TensorDescType: !tt.tensordesc<d0 x d1 x ... x elem[, layout]>
//===----------------------------------------------------------------------===//

Type TensorDescType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType))
    return {};
  Attribute layout;
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(layout))
    return {};
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, shape, elementType,
                    layout);
}

void TensorDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape())
    printer << dim << "x";
  printer << getElementType();
  if (Attribute layout = getSharedLayout())
    printer << ", " << layout;
  printer << ">";
}

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayRef<int64_t> shape, Type elementType, Attribute) {
  if (shape.empty())
    return emitError() << "tensor descriptor block must have rank >= 1";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "tensor descriptor block dimensions must be "
                            "positive, got "
                         << dim;
  if (!elementType || isa<ShapedType>(elementType))
    return emitError() << "tensor descriptor element type must be a scalar, "
                          "not "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// Type helpers used by the ODS constraints and the op verifiers.
//===----------------------------------------------------------------------===//

namespace mlir::triton {

Type getPointeeType(Type type) {
  if (auto tensorTy = dyn_cast<RankedTensorType>(type)) {
    if (auto ptrTy = dyn_cast<PointerType>(tensorTy.getElementType()))
      return tensorTy.clone(ptrTy.getPointeeType());
    return type;
  }
  if (auto ptrTy = dyn_cast<PointerType>(type))
    return ptrTy.getPointeeType();
  return type;
}

Type getPointerTypeSameShape(Type type) {
  if (auto tensorTy = dyn_cast<RankedTensorType>(type))
    return tensorTy.clone(PointerType::get(tensorTy.getElementType()));
  return PointerType::get(type);
}

Type getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensorTy = dyn_cast<RankedTensorType>(type))
    return tensorTy.clone(i1);
  return i1;
}

PtrAddrSpace getAddressSpace(Type type) {
  if (auto ptrTy = dyn_cast<PointerType>(getElementTypeOrSelf(type)))
    return ptrTy.getAddressSpace();
  return PtrAddrSpace::Global;
}

} // namespace mlir::triton
