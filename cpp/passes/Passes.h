//===- Passes.h - spine-triton passes and pipelines -------------*- C++ -*-===//
//
// The entry points every tool (spine-triton-opt, the nanobind module) uses to
// see the same dialects, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef SPINE_TRITON_PASSES_PASSES_H
#define SPINE_TRITON_PASSES_PASSES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::spine {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// Registers the Triton dialect and every upstream dialect (and interface
/// extension) that our pipelines create or consume.
void registerSpineTritonDialects(DialectRegistry &registry);

/// Registers our passes and the two named pipelines:
///   --triton-to-linalg-experimental   TTIR -> Linalg/tensor/memref/arith
///   --spine-triton-pipeline           Linalg -> LLVM dialect
void registerSpineTritonPasses();

/// Registers the two named pipelines above (part of registerSpineTritonPasses).
void registerSpineTritonPipelines();

/// Appends the TTIR -> Linalg pipeline to `pm`.
void buildTritonToLinalgPipeline(OpPassManager &pm);

/// Target facts the code generation needs.
struct SpineTritonPipelineOptions
    : public PassPipelineOptions<SpineTritonPipelineOptions> {
  Option<unsigned> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Width of one vector register in bits (VLEN on RVV)"),
      llvm::cl::init(256)};
  Option<unsigned> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Number of architectural vector registers"),
      llvm::cl::init(16)};
  Option<bool> bf16DotProduct{
      *this, "bf16-dot-product",
      llvm::cl::desc("The target multiplies and adds pairs of bf16 into f32 "
                     "lanes (x86 AVX512-BF16 vdpbf16ps)"),
      llvm::cl::init(false)};
  Option<bool> int16PairProduct{
      *this, "int16-pair-product",
      llvm::cl::desc("The target multiplies pairs of int16 and adds each "
                     "pair's products into an i32 lane (x86 vpmaddwd)"),
      llvm::cl::init(false)};
  Option<bool> fp16WideningFma{
      *this, "fp16-widening-fma",
      llvm::cl::desc("The target's FMA multiplies fp16 operands into f32 "
                     "lanes, widening them itself (RVV Zvfh vfwmacc.vf)"),
      llvm::cl::init(false)};
  Option<bool> amxTiles{
      *this, "amx-tiles",
      llvm::cl::desc("The target multiplies bf16 and int8 tiles into f32 and "
                     "i32 tiles (x86 AMX-BF16 tdpbf16ps, AMX-INT8 tdpbssd) "
                     "and the process may use them"),
      llvm::cl::init(false)};
  Option<bool> shuffleTransposes{
      *this, "shuffle-transposes",
      llvm::cl::desc("Transpose 2-D tiles in vector registers by shuffles "
                     "(x86; RVV gathers them with strided loads)"),
      llvm::cl::init(false)};
  Option<bool> shuffleReductions{
      *this, "shuffle-reductions",
      llvm::cl::desc("Fold the lanes of float min/max reductions by halving "
                     "the vector with shuffles (x86; RVV has vfredmax)"),
      llvm::cl::init(false)};
  Option<bool> selectMinMax{
      *this, "select-min-max",
      llvm::cl::desc("Vector min/max is a compare and select, not IEEE "
                     "maxNum (x86 vmaxps): float maxnum/minnum reductions "
                     "accumulate with it and a guard for all-NaN lanes"),
      llvm::cl::init(false)};
  Option<bool> lineStrips{
      *this, "line-strips",
      llvm::cl::desc("Element loops' strips span at least a 64-byte cache "
                     "line of their narrowest access (x86)"),
      llvm::cl::init(false)};
  Option<bool> avx512Scalef{
      *this, "avx512-scalef",
      llvm::cl::desc("f32 exp and exp2 scale by 2^n with vscalefps (x86 "
                     "AVX512F and AVX512VL)"),
      llvm::cl::init(false)};
  Option<bool> frontLoadDeferred{
      *this, "front-load-deferred",
      llvm::cl::desc("A computing loop that also stores a deferred row "
                     "issues the next row's prefetches in its first half "
                     "(x86 AVX-512: measured there)"),
      llvm::cl::init(false)};
  Option<uint64_t> streamingStoreBytes{
      *this, "streaming-store-bytes",
      llvm::cl::desc("Loops whose accesses over a launch reach this many "
                     "bytes store past the caches (x86 only; 0: never)"),
      llvm::cl::init(0)};
};

/// Appends the Linalg -> LLVM dialect pipeline to `pm`.
void buildSpineTritonPipeline(OpPassManager &pm,
                              const SpineTritonPipelineOptions &options);

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::spine

#endif // SPINE_TRITON_PASSES_PASSES_H
