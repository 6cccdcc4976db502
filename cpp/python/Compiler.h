//===- Compiler.h - In-process MLIR/LLVM stages of the module ---*- C++ -*-===//
//
// The MLIR and LLVM work behind `spine_triton._C`. The interface uses only
// standard types: the binding layer never sees an LLVM header, and no C++
// exception crosses LLVM frames (Debian's LLVM is built without them).
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PYTHON_COMPILER_H
#define SPINE_TRITON_PYTHON_COMPILER_H

#include <string>

namespace spine {

/// The outcome of a stage: `value` on success, else every diagnostic (with
/// its location) in `error`.
struct StageResult {
  bool ok = false;
  std::string value;
  std::string error;
};

/// A code generation target as LLVM's TargetMachine expects it.
struct TargetSpec {
  std::string triple;
  std::string cpu;
  std::string features;
};

/// Parses `text`, runs the textual pass `pipeline` (anchored on
/// builtin.module) and prints the result with its locations.
StageResult runPipeline(const std::string &text, const std::string &pipeline);

/// Translates LLVM-dialect MLIR to LLVM IR text. With `lineInfo`, functions
/// get a debug-info scope first so source locations become line tables.
StageResult translateToLLVMIR(const std::string &text, bool lineInfo);

/// Runs the default per-module pipeline at `optLevel` (0-3) on LLVM IR text
/// configured for `target`; returns the optimized IR text. With `debug`, every
/// function keeps its frame pointer. With `dynamicRoundingConversions`, vector
/// float-to-integer conversions use the dynamic rounding mode (see
/// useDynamicRoundingConversions in Compiler.cpp): code that runs under qemu
/// 7.2 needs it.
StageResult optimizeLLVMIR(const std::string &llir, const TargetSpec &target,
                           int optLevel, bool debug,
                           bool dynamicRoundingConversions = false);

struct CodegenOptions {
  int optLevel = 3;
  /// Assembly text instead of an ELF object.
  bool emitAssembly = false;
  /// Run the IR pipeline before code generation (off when the IR already
  /// went through optimizeLLVMIR).
  bool optimize = true;
  /// Allow fused multiply-add contraction in code generation.
  bool fpFusion = true;
  /// Keep frame pointers, for debuggers and profilers.
  bool debug = false;
};

/// Compiles LLVM IR text for `target` to an object file or assembly text.
StageResult compileLLVMIR(const std::string &llir, const TargetSpec &target,
                          const CodegenOptions &options);

/// Whether `target`'s subtarget (its CPU's features with `target.features`
/// applied) has every feature of `query` ("+a,+b"). Sets `error` (and
/// returns false) if LLVM has no such target.
bool targetHasFeatures(const TargetSpec &target, const std::string &query,
                       std::string &error);

std::string hostTriple();
std::string hostCPU();
/// The host's features as a "+a,-b" string, sorted for a stable cache key.
std::string hostFeatures();
std::string llvmVersion();

} // namespace spine

#endif // SPINE_TRITON_PYTHON_COMPILER_H
