//===- LoadViews.h - loads read in place through memref views ---*- C++ -*-===//
//
// A tl.load of a strided block (consecutive along its last dimension) need
// not be copied into a tile buffer: its tensor can be a view of the memory it
// reads (a memref over the address of its first element, behind
// bufferization.to_tensor), read where the tensor is used. That moves the reads
// later, to the uses, so it is done only when nothing in between can write
// the memory read (no write at all, or stores whose addresses a run-time
// check finds disjoint from the load's), and when the value cannot escape to
// where something might.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_LOADVIEWS_H
#define SPINE_TRITON_PASSES_LOADVIEWS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::spine {

/// Whether the tensor `load` (an original tt.load) may be read from memory
/// where it is used instead of where it stands: it is not volatile, reads
/// plain numbers (not booleans, stored as bytes), none of the ops that use its
/// value (or values computed from it, short of reductions and scans, which
/// read where they stand) writes memory or is a tl.dot (whose operands are
/// packed into contiguous tiles on purpose, but for a B read in place as
/// whole rows: isWholeRowsDotOperand), nothing between the load and the
/// last of them writes, all of them lie in the load's block (or in ops of
/// it), and the value itself is never handed out of the block. With
/// `stores`, tt.store ops of the load's own block (not atomics, not stores
/// nested in other ops) may be among those writes when a reduction or scan
/// reads the value (else the stores' loops read the load element by
/// element): they are collected there, and the load may be read in place
/// only where none of them writes the memory it reads, which the caller
/// checks at run time.
bool canReadInPlace(Operation *load,
                    SmallVectorImpl<Operation *> *stores = nullptr);

/// Whether `load` (an original tt.load) is the B operand of a tl.dot of its
/// own block that multiplies B's elements as they are (B's element type is
/// the result's: no widening or pairing copy). Such a tile is packed into a
/// buffer, except where it is a block of whole rows, consecutive in memory,
/// which the caller checks at run time: then it is read in place. Copied, a
/// tile of a few rows of a wider matrix stays in L1 for every row block of
/// the micro-kernel and the next one is prefetched while it runs, where read
/// in place its rows a page apart are streams the hardware prefetchers
/// follow late (the tutorial matmul 10-17% slower, Skylake-SP); a block of
/// whole rows (the fused matmul + softmax's B tile of 32 x N) is one stream,
/// and its copy, larger than L1, bought nothing: read in place it ran 7-14%
/// faster at N = 256 to 2048 (docs/benchmarks.md, session 32).
bool isWholeRowsDotOperand(Operation *load);

/// The memref type of a view of `type` whose dimensions have `strides`
/// elements (nullopt: known at run time; the last is 1): the identity layout
/// when the strides are row-major, else strides known at run time but the
/// last.
MemRefType getViewType(RankedTensorType type,
                       ArrayRef<std::optional<int64_t>> strides);

/// A tensor of `type` that reads the block of memory starting at byte
/// address `addr` (i64), with `strides` (i64 values, in elements), where it
/// is used: bufferization.to_tensor of a memref of `viewType` over that
/// address.
Value createLoadView(OpBuilder &b, Location loc, Value addr,
                     RankedTensorType type, ValueRange strides,
                     MemRefType viewType);

/// Whether `buffer` is a view createLoadView made (memory the kernel was
/// given, not a buffer it allocated).
bool isLoadView(Value buffer);

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_LOADVIEWS_H
