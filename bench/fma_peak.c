/* fp32 FMA peak: independent multiply-add chains on the widest vector registers the compiler
 * targets (-march=native), one set of chains per OpenMP thread.
 *
 * usage: fma_peak SECONDS          (threads: OMP_NUM_THREADS)
 * prints: gflops <best over trials> threads <n> lanes <fp32 lanes per register>
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__AVX512F__)
#define VEC_BYTES 64
#elif defined(__AVX__)
#define VEC_BYTES 32
#elif defined(__riscv_v_min_vlen)
#define VEC_BYTES (__riscv_v_min_vlen / 8)
#else
#define VEC_BYTES 16
#endif

/* FMA latency x FMA units per core is 8 on current x86 cores; more chains than that keep every
 * unit busy on wider machines too while still fitting in 16 vector registers. */
#define CHAINS 12
#define LANES (VEC_BYTES / 4)

typedef float vec __attribute__((vector_size(VEC_BYTES)));

/* Runs `iters` rounds of CHAINS independent FMAs; returns a value that depends on every chain so
 * the compiler cannot drop any. acc = acc * m + a converges (|m| < 1) instead of overflowing. */
static float chains(long iters, float seed) {
  vec acc[CHAINS], m, a;
  for (int l = 0; l < LANES; l++) {
    m[l] = 0.999999f;
    a[l] = seed * 1e-6f;
  }
  for (int c = 0; c < CHAINS; c++)
    for (int l = 0; l < LANES; l++)
      acc[c][l] = seed + c + l;
  for (long i = 0; i < iters; i++)
    for (int c = 0; c < CHAINS; c++)
      acc[c] = acc[c] * m + a;
  float sum = 0;
  for (int c = 0; c < CHAINS; c++)
    for (int l = 0; l < LANES; l++)
      sum += acc[c][l];
  return sum;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  int threads = omp_get_max_threads();
  long iters = 1 << 20;
  double best = 0, spent = 0;
  float sink = 0;
  while (spent < seconds) {
    double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
    sink += chains(iters, 1.0f + omp_get_thread_num());
    double dt = omp_get_wtime() - t0;
    spent += dt;
    double gflops = 2.0 * CHAINS * LANES * (double)iters * threads / dt / 1e9;
    if (gflops > best)
      best = gflops;
    if (dt < 0.05) /* too short to time well: lengthen the trial */
      iters *= 2;
  }
  printf("gflops %.3f threads %d lanes %d checksum %g\n", best, threads, LANES, (double)sink);
  return 0;
}
