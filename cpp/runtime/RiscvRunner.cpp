//===- RiscvRunner.cpp - runs a riscv64 kernel library under qemu-user ----===//
//
//   spine-triton-riscv-runner ARENA KERNEL.so
//
// The riscv64 half of emulated execution (docs/kernel-abi.md, "Emulated
// RISC-V execution"). The Python driver copies the kernel's tensors into the
// shared ARENA file, writes the launch header in front of them and runs this
// program under qemu-riscv64. qemu-user maps the guest into the host process,
// so a MAP_SHARED mapping of the file is the same memory the driver reads back
// once the grid has run. The grid runs through spine_launch, the launcher
// native launches use.
//
//===----------------------------------------------------------------------===//

#include "runtime/Launcher.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr char kMagic[8] = {'S', 'P', 'I', 'N', 'E', 'E', 'M', 'U'};
constexpr uint32_t kVersion = 1;

/// The start of the arena; the slots and their relocation flags follow it.
struct ArenaHeader {
  char magic[8];
  uint32_t version;
  uint32_t numSlots;
  int64_t grid[3];
  int32_t numThreads;
  uint32_t flags; // SpineLaunchFlags
  char entry[256];
};
static_assert(sizeof(ArenaHeader) == 304,
              "the layout docs/kernel-abi.md gives");

/// A kernel library's tl.device_assert state (docs/kernel-abi.md, "Debug
/// ops"); only kernels with asserts define it.
struct AssertState {
  int32_t failed, line, pidX, pidY, pidZ;
  const char *message, *file, *function;
};
/// The exit status of a launch whose device assert failed; stderr then carries
/// the failure after kAssertMarker (docs/kernel-abi.md).
constexpr int kAssertFailed = 3;
constexpr char kAssertMarker[] = "spine-triton-riscv-runner: device assert";

const char *orUnknown(const char *text) { return text ? text : "unknown"; }

int fail(const char *what, const char *detail) {
  std::fprintf(stderr, "spine-triton-riscv-runner: %s%s%s\n", what,
               detail ? ": " : "", detail ? detail : "");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3)
    return fail("usage: spine-triton-riscv-runner ARENA KERNEL.so", nullptr);

  int fd = open(argv[1], O_RDWR);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0)
    return fail("cannot open the arena", std::strerror(errno));
  size_t size = static_cast<size_t>(st.st_size);
  if (size < sizeof(ArenaHeader))
    return fail("the arena is smaller than its header", argv[1]);
  void *map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    return fail("cannot map the arena", std::strerror(errno));
  close(fd);

  auto *base = static_cast<uint8_t *>(map);
  ArenaHeader header;
  std::memcpy(&header, base, sizeof(header));
  if (std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0 ||
      header.version != kVersion)
    return fail("not a version 1 spine-triton arena", argv[1]);
  uint64_t n = header.numSlots;
  if (n > (size - sizeof(ArenaHeader)) / 9 ||
      header.entry[sizeof(header.entry) - 1] != '\0')
    return fail("corrupt arena header", argv[1]);

  // Pointer slots hold offsets into the arena: make them guest addresses.
  auto *slots = reinterpret_cast<uint64_t *>(base + sizeof(ArenaHeader));
  const uint8_t *isPointer = base + sizeof(ArenaHeader) + 8 * n;
  for (uint64_t i = 0; i < n; ++i) {
    if (!isPointer[i])
      continue;
    if (slots[i] > size)
      return fail("a pointer slot lies outside the arena", argv[1]);
    slots[i] += reinterpret_cast<uintptr_t>(base);
  }

  void *library = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return fail("cannot load the kernel", dlerror());
  auto entry = reinterpret_cast<SpineKernelEntry>(dlsym(library, header.entry));
  if (!entry)
    return fail("the kernel library has no entry point", header.entry);

  if (spine_launch(entry, slots, header.grid[0], header.grid[1], header.grid[2],
                   header.numThreads, header.flags) != SPINE_LAUNCH_OK)
    return fail("invalid grid", nullptr);
  // The mapping is MAP_SHARED: the results are in the file already.
  auto *state =
      static_cast<const AssertState *>(dlsym(library, "__spine_triton_assert"));
  if (state && state->failed) {
    std::fprintf(stderr, "%s\n%d\n%d %d %d\n%s\n%s\n%s", kAssertMarker,
                 state->line, state->pidX, state->pidY, state->pidZ,
                 orUnknown(state->file), orUnknown(state->function),
                 orUnknown(state->message));
    return kAssertFailed;
  }
  return 0;
}
