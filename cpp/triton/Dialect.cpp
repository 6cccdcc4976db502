//===- Dialect.cpp - Triton dialect registration --------------------------===//

#include "triton/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::triton;

#include "triton/Dialect.cpp.inc"

// The attributes are defined here because registering them needs their
// storage classes, which only the generated definitions provide.
#include "triton/OpsEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "triton/AttrDefs.cpp.inc"

MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::triton::GlobalMemory)

namespace {

/// Lets the inliner replace tt.call with the callee's body. Functions that
/// triton marked `noinline = true` stay calls.
struct TritonInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *call, Operation *callable,
                       bool wouldBeCloned) const final {
    auto noinline = callable->getAttrOfType<BoolAttr>("noinline");
    return !noinline || !noinline.getValue();
  }

  // Triton ops have no region-specific constraints: any op may be moved into
  // any region of a function being inlined.
  bool isLegalToInline(Region *dest, Region *src, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
  bool isLegalToInline(Operation *op, Region *dest, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }

  /// A multi-block callee: each tt.return becomes a branch to the block that
  /// continues after the call.
  void handleTerminator(Operation *op, Block *newDest) const final {
    auto returnOp = dyn_cast<ReturnOp>(op);
    if (!returnOp)
      return;
    OpBuilder builder(op);
    cf::BranchOp::create(builder, op->getLoc(), newDest,
                         returnOp.getOperands());
    op->erase();
  }

  /// A single-block callee: the call's results become the returned values.
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    auto returnOp = cast<ReturnOp>(op);
    for (auto [result, returned] :
         llvm::zip_equal(valuesToRepl, returnOp.getOperands()))
      result.replaceAllUsesWith(returned);
  }
};

} // namespace

void TritonDialect::initialize() {
  registerTypes();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "triton/AttrDefs.cpp.inc"
      >();
  registerTritonDialectOperations(this);
  addInterfaces<TritonInlinerInterface>();
}

Operation *TritonDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  // Folders produce builtin integer, float and dense attributes; arith owns
  // the constants for those.
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || !arith::ConstantOp::isBuildableWith(typed, type))
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}
