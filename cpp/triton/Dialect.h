//===- Dialect.h - The Triton dialect (tt) ----------------------*- C++ -*-===//
//
// The one header users include for the Triton dialect: the dialect, its types,
// attributes and enums, op and type interfaces, traits and ops. The classes
// are generated at build time from the ODS files of the installed triton
// package; the hand-written parts are in this directory.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_DIALECT_H
#define SPINE_TRITON_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "triton/Attributes.h"
#include "triton/OpInterfaces.h"
#include "triton/Traits.h"
#include "triton/Types.h"

#include "triton/Dialect.h.inc"

namespace mlir::triton {

/// The memory that tt.load/tt.store and the atomics read and write.
struct GlobalMemory : public SideEffects::Resource::Base<GlobalMemory> {
  StringRef getName() final { return "<GlobalMemory>"; }
};

/// Implemented by a dialect that defines tensor layout encodings, to check an
/// encoding where a Triton op uses it (VerifyTensorLayoutsTrait). Encodings
/// of dialects without it are accepted as they are.
class TensorLayoutVerifierInterface
    : public DialectInterface::Base<TensorLayoutVerifierInterface> {
public:
  TensorLayoutVerifierInterface(Dialect *dialect) : Base(dialect) {}

  virtual LogicalResult
  verifyTensorLayout(Attribute layout, RankedTensorType type, Operation *op,
                     function_ref<InFlightDiagnostic()> emitError) const = 0;
};

} // namespace mlir::triton

MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::triton::GlobalMemory)

#define GET_OP_CLASSES
#include "triton/Ops.h.inc"

#endif // SPINE_TRITON_DIALECT_H
