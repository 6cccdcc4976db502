//===- Module.cpp - The spine_triton._C nanobind module -------------------===//
//
// Every stage runs in-process. Long stages and kernel launches release the
// GIL. Stage failures come back as values and become CompileError here.
//
//===----------------------------------------------------------------------===//

#include "python/Compiler.h"
#include "runtime/Launcher.h"
#include "runtime/TileCache.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// Raised as spine_triton._C.CompileError (a RuntimeError).
struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string unwrap(spine::StageResult result) {
  if (!result.ok)
    throw CompileError(result.error);
  return std::move(result.value);
}

spine::TargetSpec makeTarget(std::string triple, std::string cpu,
                             std::string features) {
  return {std::move(triple), std::move(cpu), std::move(features)};
}

nb::bytes compileLLVMIR(const std::string &llir, std::string triple,
                        std::string cpu, std::string features, int optLevel,
                        const std::string &emit, bool debug, bool optimize,
                        bool fpFusion) {
  if (emit != "obj" && emit != "asm")
    throw nb::value_error("emit must be 'obj' or 'asm'");
  spine::CodegenOptions options;
  options.optLevel = optLevel;
  options.emitAssembly = emit == "asm";
  options.optimize = optimize;
  options.fpFusion = fpFusion;
  options.debug = debug;
  spine::StageResult result;
  {
    nb::gil_scoped_release release;
    result = spine::compileLLVMIR(
        llir,
        makeTarget(std::move(triple), std::move(cpu), std::move(features)),
        options);
  }
  std::string binary = unwrap(std::move(result));
  return nb::bytes(binary.data(), binary.size());
}

void launch(uintptr_t entry, const nb::bytes &args, int64_t gx, int64_t gy,
            int64_t gz, int numThreads, bool independentPrograms,
            bool tileCache) {
  if (entry == 0)
    throw nb::value_error("launch: null kernel entry address");
  if (args.size() % sizeof(uint64_t) != 0)
    throw nb::value_error("launch: the argument block must be 8-byte slots");
  const auto *slots =
      static_cast<const uint64_t *>(static_cast<const void *>(args.c_str()));
  // Bytes objects are 8-byte aligned in CPython; copy if one ever is not, as
  // RISC-V traps or crawls on misaligned loads.
  std::vector<uint64_t> aligned;
  if (tileCache ||
      reinterpret_cast<uintptr_t>(slots) % alignof(uint64_t) != 0) {
    aligned.resize(args.size() / sizeof(uint64_t));
    std::memcpy(aligned.data(), args.c_str(), args.size());
    slots = aligned.data();
  }
  int status;
  {
    nb::gil_scoped_release release;
    // The kernel's last argument is the tile cache (docs/kernel-abi.md); 0
    // while another launch holds it.
    SpineTileCache *cache = nullptr;
    if (tileCache) {
      cache = spine_tile_cache_acquire();
      aligned.push_back(reinterpret_cast<uint64_t>(cache));
      slots = aligned.data();
    }
    status = spine_launch(
        reinterpret_cast<SpineKernelEntry>(entry), slots, gx, gy, gz,
        numThreads,
        independentPrograms ? SPINE_LAUNCH_INDEPENDENT_PROGRAMS : 0);
    spine_tile_cache_release(cache);
  }
  if (status == SPINE_LAUNCH_BAD_GRID)
    throw nb::value_error(("launch: invalid grid (" + std::to_string(gx) +
                           ", " + std::to_string(gy) + ", " +
                           std::to_string(gz) +
                           "): each axis must be in [0, 2**31 - 1]")
                              .c_str());
}

} // namespace

NB_MODULE(_C, m) {
  m.doc() = "spine-triton's in-process compiler stages and grid launcher";
  nb::exception<CompileError>(m, "CompileError", PyExc_RuntimeError);

  m.def(
      "run_pipeline",
      [](const std::string &text, const std::string &pipeline) {
        spine::StageResult result;
        {
          nb::gil_scoped_release release;
          result = spine::runPipeline(text, pipeline);
        }
        return unwrap(std::move(result));
      },
      "text"_a, "pipeline"_a,
      "Parse MLIR text, run a textual pass pipeline such as "
      "'builtin.module(triton-to-linalg-experimental)' and return the result "
      "with its locations. Raises CompileError with every diagnostic.");

  m.def(
      "translate_to_llvmir",
      [](const std::string &text, bool lineInfo) {
        spine::StageResult result;
        {
          nb::gil_scoped_release release;
          result = spine::translateToLLVMIR(text, lineInfo);
        }
        return unwrap(std::move(result));
      },
      "text"_a, "line_info"_a = true,
      "Translate LLVM-dialect MLIR to LLVM IR text; with line_info, source "
      "locations become a line table.");

  m.def(
      "optimize_llvmir",
      [](const std::string &llir, std::string triple, std::string cpu,
         std::string features, int optLevel, bool debug,
         bool dynamicRoundingConversions) {
        spine::StageResult result;
        {
          nb::gil_scoped_release release;
          result = spine::optimizeLLVMIR(
              llir,
              makeTarget(std::move(triple), std::move(cpu),
                         std::move(features)),
              optLevel, debug, dynamicRoundingConversions);
        }
        return unwrap(std::move(result));
      },
      "llir"_a, "triple"_a, "cpu"_a, "features"_a, "opt_level"_a = 3,
      "debug"_a = false, "dynamic_rounding_conversions"_a = false,
      "Run LLVM's default module pipeline for the target; return the IR. "
      "debug keeps frame pointers; dynamic_rounding_conversions converts "
      "float vectors to integers without RVV's static-rounding vfcvt.rtz, "
      "which qemu 7.2 cannot run.");

  m.def("compile_llvmir", &compileLLVMIR, "llir"_a, "triple"_a, "cpu"_a,
        "features"_a, "opt_level"_a = 3, "emit"_a = "obj", "debug"_a = false,
        "optimize"_a = true, "fp_fusion"_a = true,
        "Compile LLVM IR to an ELF object (emit='obj') or assembly text "
        "(emit='asm'). optimize=False skips the IR pipeline for IR that "
        "optimize_llvmir already produced; debug keeps frame pointers.");

  m.def(
      "target_has_features",
      [](std::string triple, std::string cpu, std::string features,
         const std::string &query) {
        std::string error;
        bool has = spine::targetHasFeatures(
            makeTarget(std::move(triple), std::move(cpu), std::move(features)),
            query, error);
        if (!error.empty())
          throw CompileError(error);
        return has;
      },
      "triple"_a, "cpu"_a, "features"_a, "query"_a,
      "Whether the target (its CPU's features with `features` applied) has "
      "every feature of `query`, such as '+zvfh'.");

  m.def("host_triple", &spine::hostTriple);
  m.def("host_cpu", &spine::hostCPU);
  m.def("host_features", &spine::hostFeatures);
  m.def("llvm_version", &spine::llvmVersion);

  m.def("launch", &launch, "entry_address"_a, "args"_a, "gx"_a, "gy"_a, "gz"_a,
        "num_threads"_a = 0, "independent_programs"_a = false,
        "tile_cache"_a = false,
        "Run the grid of a kernel entry point over OpenMP threads "
        "(num_threads <= 0: the OpenMP default) with the GIL released. "
        "independent_programs: no program waits for another, so a thread "
        "may claim several at once. tile_cache: the kernel takes the "
        "process's tile cache as a last argument, after those in args.");
}
