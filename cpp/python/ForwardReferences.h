//===- ForwardReferences.h - Guard for MLIR's forward references -*- C++
//-*-===//
//
// MLIR 22's parser corrupts the heap on one kind of invalid input. A use of a
// value before its definition (a forward reference) gets a placeholder; the
// next definition of that name replaces the placeholder, wherever it is. When
// that definition is inside the region of an op whose parsing then fails (a
// block defined twice, a bad token), the region is freed with the definition
// while the earlier use still points at it, and cleaning up the use writes to
// freed memory (found by tools/fuzz_pipeline.py). Valid IR never resolves a
// forward reference to a definition in a region that does not enclose the
// use (the definition could not dominate it), nor to a region argument (its
// region comes after the use), so such inputs are rejected before parsing.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PYTHON_FORWARDREFERENCES_H
#define SPINE_TRITON_PYTHON_FORWARDREFERENCES_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace spine {

/// A use that MLIR's parser would resolve to a definition that cannot
/// dominate it: the name and the offset of the use in the text.
struct UnsafeForwardReference {
  std::string name;
  size_t useOffset = 0;
};

/// Scans MLIR text (regions by braces, definitions by their syntax: results
/// at the start of a statement, block arguments, region and function
/// arguments) for the first forward reference resolved outside the regions
/// that enclose its use. Text the parser would reject anyway may be reported
/// or not; text the parser accepts as valid IR never is.
std::optional<UnsafeForwardReference>
findUnsafeForwardReference(std::string_view text);

} // namespace spine

#endif // SPINE_TRITON_PYTHON_FORWARDREFERENCES_H
