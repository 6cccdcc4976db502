//===- ParserGuards.h - Inputs MLIR 22's parser mishandles ------*- C++ -*-===//
//
// The pipeline fuzzer (tools/fuzz_pipeline.py) found invalid inputs on which
// the MLIR 22 parser, part of the pinned LLVM, crashes or corrupts memory
// instead of reporting an error. spine_triton._C and spine-triton-opt check
// their input text for them before parsing and report them as errors:
//
// - Forward references resolved outside the use's regions. A use of a value
//   before its definition gets a placeholder; the next definition of that
//   name replaces it, wherever it is. When that definition is inside the
//   region of an op whose parsing then fails (a block defined twice, a bad
//   token), the region is freed with the definition while the earlier use
//   still points at it, and cleaning up the use writes to freed memory. Valid
//   IR never resolves a forward reference to a definition in a region that
//   does not enclose the use (it could not dominate the use), nor to a region
//   argument (its region comes after the use).
// - A malformed integer list after `dimensions =` (linalg.reduce,
//   linalg.broadcast) or `permutation =` (linalg.transpose): their parsers
//   store the null attribute of the failed parse and crash on it.
// - A dense array of `index` elements (`array<index: 1, 0>`), whose element
//   bit width the parser asks for.
// - A position of 2^32 or more in llvm.insertvalue / llvm.extractvalue
//   (`%d[4294967296, 0]`), which the parser truncates before checking it.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PARSER_PARSERGUARDS_H
#define SPINE_TRITON_PARSER_PARSERGUARDS_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace spine {

/// Where the text has one of the hazards above, and the error to report.
struct ParserHazard {
  size_t offset = 0;
  std::string message;
};

/// The first hazard in MLIR text. Text the parser would reject anyway may be
/// reported or not; text the parser accepts as valid IR never is.
std::optional<ParserHazard> findParserHazard(std::string_view text);

} // namespace spine

#endif // SPINE_TRITON_PARSER_PARSERGUARDS_H
