//===- FuncOps.cpp - tt.func, tt.call and tt.return -----------------------===//
//
// Triton keeps its own function ops (rather than func.func) so that the
// inliner honours `noinline`; they parse and print like func.func.
//
//===----------------------------------------------------------------------===//

#include "triton/Dialect.h"

#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace mlir::triton;

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type, ArrayRef<NamedAttribute> attrs,
                   ArrayRef<DictionaryAttr> argAttrs) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.attributes.append(attrs.begin(), attrs.end());
  state.addRegion();
  if (argAttrs.empty())
    return;
  assert(type.getNumInputs() == argAttrs.size() &&
         "one attribute dictionary per argument");
  call_interface_impl::addArgAndResultAttrs(
      builder, state, argAttrs, /*resultAttrs=*/{},
      getArgAttrsAttrName(state.name), getResAttrsAttrName(state.name));
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FlatSymbolRefAttr callee = getCalleeAttr();
  auto fn = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, callee);
  if (!fn)
    return emitOpError("'") << callee.getValue() << "' does not name a tt.func";

  FunctionType fnType = fn.getFunctionType();
  if (fnType.getNumInputs() != getNumOperands())
    return emitOpError("passes ")
           << getNumOperands() << " operands to @" << callee.getValue()
           << ", which takes " << fnType.getNumInputs();
  for (auto [i, operand, expected] :
       llvm::enumerate(getOperands(), fnType.getInputs()))
    if (operand.getType() != expected)
      return emitOpError("operand #")
             << i << " has type " << operand.getType() << " but @"
             << callee.getValue() << " expects " << expected;

  if (fnType.getNumResults() != getNumResults())
    return emitOpError("expects ")
           << getNumResults() << " results from @" << callee.getValue()
           << ", which returns " << fnType.getNumResults();
  for (auto [i, result, expected] :
       llvm::enumerate(getResults(), fnType.getResults()))
    if (result.getType() != expected)
      return emitOpError("result #")
             << i << " has type " << result.getType() << " but @"
             << callee.getValue() << " returns " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// ReturnOp
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  auto fn = cast<FuncOp>((*this)->getParentOp());
  ArrayRef<Type> expected = fn.getFunctionType().getResults();
  if (getNumOperands() != expected.size())
    return emitOpError("returns ")
           << getNumOperands() << " values but @" << fn.getName() << " returns "
           << expected.size();
  for (auto [i, value, type] : llvm::enumerate(getSrcs(), expected))
    if (value.getType() != type)
      return emitOpError("value #")
             << i << " has type " << value.getType() << " but @" << fn.getName()
             << " returns " << type;
  return success();
}
