//===- Launcher.cpp - OpenMP grid launcher for spine-triton kernels -------===//
//
// Each thread starts on a contiguous share of the flattened grid and runs it
// in increasing program order (what the next-program prefetches and
// spine-block-grid-stride-loops count on). A thread that runs out takes the
// back half of what another thread has left, so a thread slowed by another
// process on its core, or given the costlier programs, does not leave the
// others idle until it finishes. Where no program waits for another, a
// thread claims as many of its programs at once as run for about
// kClaimInterval (see there).
//
//===----------------------------------------------------------------------===//

#include "runtime/Launcher.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <omp.h>
#include <thread>
#include <utility>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

/// Flattened program index -> (pid_x, pid_y, pid_z), pid_x fastest. Stepping
/// to the next index avoids the divisions of a fresh position.
struct ProgramIds {
  int64_t gx, gy, gz;
  int64_t index = -1, x = 0, y = 0, z = 0;

  void moveTo(int64_t i) {
    if (i == index + 1 && index >= 0) {
      if (++x == gx) {
        x = 0;
        if (++y == gy) {
          y = 0;
          ++z;
        }
      }
    } else {
      x = i % gx;
      y = (i / gx) % gy;
      z = i / (gx * gy);
    }
    index = i;
  }

  void run(SpineKernelEntry entry, const uint64_t *args) const {
    entry(args, static_cast<int32_t>(x), static_cast<int32_t>(y),
          static_cast<int32_t>(z), static_cast<int32_t>(gx),
          static_cast<int32_t>(gy), static_cast<int32_t>(gz));
  }
};

/// How long the programs a thread claims at once should run, where programs do
/// not wait for each other. A claim takes a locked instruction, which on x86
/// also waits until the thread's streaming stores have reached memory: 2 KiB of
/// streaming stores between exchanges ran at half the bandwidth of the stores
/// alone (a wait of about 0.15 us), and layer norm of 4096 x 512 ran 1.27x
/// slower claimed one program at a time than with these claims
/// (docs/kernel-abi.md, "The launcher"). Claims this far apart wait under 1%
/// of the time, and a thread that runs out of programs waits for the others
/// at most about this much longer than with claims of one (the programs
/// another thread has claimed are its own).
constexpr std::chrono::nanoseconds kClaimInterval{20'000};

/// The programs [next, end) a thread has left, behind a spin lock: the owner
/// takes them from the front, others take halves from the back. One cache
/// line each, so owners do not contend with each other.
struct alignas(64) ProgramRange {
  std::atomic<bool> locked{false};
  int64_t next = 0, end = 0;

  /// Held for a few instructions, but its holder may lose its core (more
  /// threads than cores, another process): after a short spin a waiter
  /// yields, so that the holder can run and let go.
  void lock() {
    for (int spins = 0; locked.exchange(true, std::memory_order_acquire);)
      while (locked.load(std::memory_order_relaxed)) {
        if (++spins < 64) {
#if defined(__x86_64__)
          _mm_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
  }
  void unlock() { locked.store(false, std::memory_order_release); }

  /// Up to `count` programs from the front, as [begin, end); empty when none
  /// is left.
  std::pair<int64_t, int64_t> takeFront(int64_t count) {
    lock();
    int64_t begin = next;
    next += std::min(count, end - next);
    int64_t stop = next;
    unlock();
    return {begin, stop};
  }

  /// The back half (rounded up) of what is left, as [begin, end); empty
  /// (begin == end) when nothing is.
  std::pair<int64_t, int64_t> takeBackHalf() {
    lock();
    int64_t stop = end;
    end -= (end - next + 1) / 2;
    unlock();
    return {end, stop};
  }

  void reset(int64_t begin, int64_t stop) {
    lock();
    next = begin;
    end = stop;
    unlock();
  }
};

/// Kernels may store with x86's weakly ordered streaming stores
/// (spine-vectorize-element-loops, only in kernels without atomics): each
/// thread fences its stores so they are visible before the launch returns.
void fenceStreamingStores() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

/// How many programs to claim next, after `count` ran in `elapsed`: as many
/// as take about kClaimInterval at that pace.
int64_t programsPerClaim(std::chrono::nanoseconds elapsed, int64_t count) {
  constexpr int64_t kMaxPerClaim = int64_t(1) << 30;
  int64_t perProgram = std::max<int64_t>(elapsed.count() / count, 1);
  return std::clamp<int64_t>(kClaimInterval.count() / perProgram, 1,
                             kMaxPerClaim);
}

/// Thread `t` of `team`: its own range first, then halves taken from the
/// others' until every range is empty. A range only grows when its owner
/// refills it with what it took, so a pass that finds all of them empty means
/// every remaining program is held by a thread that will run it. With
/// `batched`, it claims programs by kClaimInterval's worth, else one at a
/// time (a program may wait for a later one, which another thread can then
/// take).
void runThread(ProgramRange *ranges, int64_t t, int64_t team,
               SpineKernelEntry entry, const uint64_t *args, int64_t gx,
               int64_t gy, int64_t gz, bool batched) {
  using Clock = std::chrono::steady_clock;
  ProgramIds ids{gx, gy, gz};
  int64_t perClaim = 1;
  for (;;) {
    auto [begin, stop] = ranges[t].takeFront(perClaim);
    if (begin < stop) {
      Clock::time_point start = batched ? Clock::now() : Clock::time_point();
      for (int64_t i = begin; i < stop; ++i) {
        ids.moveTo(i);
        ids.run(entry, args);
      }
      if (batched)
        perClaim = programsPerClaim(Clock::now() - start, stop - begin);
      continue;
    }
    std::pair<int64_t, int64_t> taken = {0, 0};
    for (int64_t step = 1; step < team && taken.first == taken.second; ++step)
      taken = ranges[(t + step) % team].takeBackHalf();
    if (taken.first == taken.second)
      break;
    ranges[t].reset(taken.first, taken.second);
  }
  fenceStreamingStores();
}

/// All programs in order on the calling thread.
void runAll(SpineKernelEntry entry, const uint64_t *args, int64_t total,
            int64_t gx, int64_t gy, int64_t gz) {
  ProgramIds ids{gx, gy, gz};
  for (int64_t i = 0; i < total; ++i) {
    ids.moveTo(i);
    ids.run(entry, args);
  }
  fenceStreamingStores();
}

} // namespace

extern "C" int spine_launch(SpineKernelEntry entry, const uint64_t *args,
                            int64_t gx, int64_t gy, int64_t gz, int numThreads,
                            unsigned flags) {
  for (int64_t axis : {gx, gy, gz})
    if (axis < 0 || axis > INT32_MAX)
      return SPINE_LAUNCH_BAD_GRID;
  if (gx == 0 || gy == 0 || gz == 0)
    return SPINE_LAUNCH_OK;
  // Each axis is below 2^31, so the product of the first two fits in int64;
  // the third may not.
  int64_t total;
  if (__builtin_mul_overflow(gx * gy, gz, &total))
    return SPINE_LAUNCH_BAD_GRID;

  int64_t threads = numThreads > 0 ? numThreads : omp_get_max_threads();
  threads = std::min<int64_t>(threads, total);
  // Single-threaded launches skip the parallel region: a cheap launch for
  // tiny grids and for nested calls.
  if (threads <= 1) {
    runAll(entry, args, total, gx, gy, gz);
    return SPINE_LAUNCH_OK;
  }

  // Contiguous shares of the grid, set before the threads start. If OpenMP
  // gives fewer threads than asked, the shares of the missing ones are taken
  // like any other thread's leftovers.
  std::unique_ptr<ProgramRange[]> ranges(new ProgramRange[threads]);
  int64_t chunk = total / threads, extra = total % threads;
  for (int64_t t = 0; t < threads; ++t) {
    ranges[t].next = t * chunk + std::min(t, extra);
    ranges[t].end = ranges[t].next + chunk + (t < extra ? 1 : 0);
  }
#pragma omp parallel num_threads(static_cast<int>(threads))
  runThread(ranges.get(), omp_get_thread_num(), threads, entry, args, gx, gy,
            gz, flags & SPINE_LAUNCH_INDEPENDENT_PROGRAMS);
  return SPINE_LAUNCH_OK;
}
