//===- GpuBarrier.cpp - tl.debug_barrier's ttg.barrier --------------------===//

#include "triton/GpuBarrier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::spine::ttg;

#include "triton/GpuBarrierDialect.cpp.inc"

void TTGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "triton/GpuBarrierOps.cpp.inc"
      >();
}

/// The address spaces TritonGPU's barrier names (`all` for every one).
static bool isAddressSpace(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"none", "local", "global_read", "global_write", "tensor_read",
              "tensor_write", "all"},
             true)
      .Default(false);
}

// The generic form `"ttg.barrier"() <{addrSpace = "..."}>` skips the parser.
LogicalResult BarrierOp::verify() {
  SmallVector<StringRef> spaces;
  getAddrSpace().split(spaces, '|');
  for (StringRef space : spaces)
    if (!isAddressSpace(space))
      return emitOpError() << "unknown address space '" << space << "'";
  return success();
}

ParseResult BarrierOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<StringRef> spaces;
  do {
    SMLoc loc = parser.getCurrentLocation();
    StringRef space;
    if (parser.parseKeyword(&space))
      return failure();
    if (!isAddressSpace(space))
      return parser.emitError(loc)
             << "unknown address space '" << space << "' of ttg.barrier";
    spaces.push_back(space);
  } while (succeeded(parser.parseOptionalVerticalBar()));
  result.addAttribute(
      getAddrSpaceAttrName(result.name),
      parser.getBuilder().getStringAttr(llvm::join(spaces, "|")));
  return parser.parseOptionalAttrDict(result.attributes);
}

void BarrierOp::print(OpAsmPrinter &printer) {
  printer << ' ' << getAddrSpace();
  printer.printOptionalAttrDict((*this)->getAttrs(), {getAddrSpaceAttrName()});
}

#define GET_OP_CLASSES
#include "triton/GpuBarrierOps.cpp.inc"
