//===- OpsShard1.cpp - Generated op definitions, shard 1 ------------------===//
//
// The ODS op definitions are split in two shards so the two largest
// translation units of the dialect compile in parallel.
//
//===----------------------------------------------------------------------===//

#include "triton/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::triton;

#define GET_OP_DEFS_1
#include "triton/Ops.cpp.inc"
