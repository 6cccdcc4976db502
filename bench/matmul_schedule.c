/* The tutorial matmul's schedule as spine-triton compiles it, written by hand
 * with AVX-512 intrinsics on one thread: what that schedule reaches on this
 * machine, and which of its parts cost, without a rebuild of the compiler per
 * question (docs/benchmarks.md, "Session 30"). Not part of the suite. As
 * measured in session 32 it runs well below the compiled kernel (70-72 against
 * 84-88 GFLOP/s at 2048 on the Skylake-SP host): what it says about the copies
 * is an upper bound, not a measurement of the kernel.
 *
 * usage: gcc -O3 -march=native [-DCOPY_A=0] [-DPREFETCH=0] [-DBK=64] \
 *            [-DCOLUMNS_OUTER] bench/matmul_schedule.c -o /tmp/matmul_schedule
 *        /tmp/matmul_schedule N        (N a multiple of 128)
 * prints: GFLOP/s, the best of 5 runs over the whole grid, and one element of C
 * against a double-precision dot product.
 *
 * Each program computes a 128 x 128 tile of C = A @ B (grouped order, groups
 * of 8 row tiles, as the tutorial's grid runs) in steps of BK along K: it
 * copies A's 128 x BK tile into a packed buffer (unless COPY_A=0: then the
 * micro-kernel broadcasts A from its rows in place), copies B's BK x 128 tile
 * into a buffer with a cache line of padding per row, and runs the
 * micro-kernel: 6 x 4 registers of accumulators per (row block, column
 * block) step, loaded from and stored back to the 128 x 128 accumulator tile
 * around a K loop of BK steps. Each step also prefetches an even share of the
 * next K step's A and B tiles into L2 before its K loop (PREFETCH=0: none),
 * as spine-schedule-tile-prefetches places them. The last 128 % 6 rows get a
 * block of their own.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef BK
#define BK 32
#endif
#ifndef COPY_A
#define COPY_A 1
#endif
#ifndef PREFETCH
#define PREFETCH 1
#endif

enum { BM = 128, BN = 128, PADDED = BN + 16, MR = 6, NR = 64, TAIL = BM % MR };
enum { STEPS = (BM / MR) * (BN / NR), GROUP = 8 };

static float a_tile[BM * BK] __attribute__((aligned(64), unused));
static float b_tile[BK * PADDED] __attribute__((aligned(64)));
static float acc[BM * BN] __attribute__((aligned(64)));

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Rows [i, i + rows) by columns [j, j + NR) of the accumulator tile += the
 * A rows (packed, or in place `a` with row stride `lda`) times B's tile. */
static inline void block(const float *a, long lda, int i, int j, int rows) {
  __m512 c[MR][4];
  for (int r = 0; r < rows; r++)
    for (int q = 0; q < 4; q++)
      c[r][q] = _mm512_load_ps(&acc[(i + r) * BN + j + 16 * q]);
  for (int k = 0; k < BK; k++) {
    const float *b = &b_tile[k * PADDED + j];
    __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
    __m512 b2 = _mm512_load_ps(b + 32), b3 = _mm512_load_ps(b + 48);
#pragma GCC unroll 8
    for (int r = 0; r < rows; r++) {
#if COPY_A
      __m512 x = _mm512_set1_ps(a_tile[(i + r) * BK + k]);
#else
      __m512 x = _mm512_set1_ps(a[(long)(i + r) * lda + k]);
#endif
      c[r][0] = _mm512_fmadd_ps(x, b0, c[r][0]);
      c[r][1] = _mm512_fmadd_ps(x, b1, c[r][1]);
      c[r][2] = _mm512_fmadd_ps(x, b2, c[r][2]);
      c[r][3] = _mm512_fmadd_ps(x, b3, c[r][3]);
    }
  }
  for (int r = 0; r < rows; r++)
    for (int q = 0; q < 4; q++)
      _mm512_store_ps(&acc[(i + r) * BN + j + 16 * q], c[r][q]);
}

/* Step `s`'s share of the prefetches of the K step at `k0`'s tiles. */
static void prefetch_share(const float *a, const float *b, long n, long k0,
                           int s) {
  for (int r = s * BM / STEPS; r < (s + 1) * BM / STEPS; r++)
    for (int q = 0; q < BK; q += 16)
      _mm_prefetch((const char *)(a + r * n + k0 + q), _MM_HINT_T1);
  for (int r = s * BK / STEPS; r < (s + 1) * BK / STEPS; r++)
    for (int q = 0; q < BN; q += 16)
      _mm_prefetch((const char *)(b + (k0 + r) * n + q), _MM_HINT_T1);
}

static void program(const float *A, const float *B, float *C, long n, int pm,
                    int pn) {
  const float *a = A + (long)pm * BM * n, *b = B + pn * BN;
  memset(acc, 0, sizeof acc);
  for (long k0 = 0; k0 < n; k0 += BK) {
#if COPY_A
    for (int r = 0; r < BM; r++)
      for (int q = 0; q < BK; q += 16)
        _mm512_store_ps(&a_tile[r * BK + q],
                        _mm512_loadu_ps(a + r * n + k0 + q));
#endif
    for (int k = 0; k < BK; k++)
      for (int q = 0; q < BN; q += 16)
        _mm512_store_ps(&b_tile[k * PADDED + q],
                        _mm512_loadu_ps(b + (k0 + k) * n + q));
    int s = 0;
#ifdef COLUMNS_OUTER
    for (int j = 0; j < BN; j += NR)
      for (int i = 0; i + MR <= BM; i += MR, s++) {
#else
    for (int i = 0; i + MR <= BM; i += MR)
      for (int j = 0; j < BN; j += NR, s++) {
#endif
        if (PREFETCH && k0 + BK < n)
          prefetch_share(a, b, n, k0 + BK, s);
        block(a + k0, n, i, j, MR);
      }
    for (int j = 0; j < BN; j += NR)
      block(a + k0, n, BM - TAIL, j, TAIL);
  }
  for (int r = 0; r < BM; r++)
    memcpy(C + ((long)pm * BM + r) * n + pn * BN, &acc[r * BN], BN * 4);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2048;
  if (n <= 0 || n % BM != 0) {
    fprintf(stderr, "usage: %s N (a multiple of %d)\n", argv[0], BM);
    return 2;
  }
  size_t bytes = n * n * sizeof(float);
  float *A = aligned_alloc(1 << 21, bytes), *B = aligned_alloc(1 << 21, bytes);
  float *C = aligned_alloc(1 << 21, bytes);
  madvise(A, bytes, MADV_HUGEPAGE);
  madvise(B, bytes, MADV_HUGEPAGE);
  madvise(C, bytes, MADV_HUGEPAGE);
  for (long i = 0; i < n * n; i++) {
    A[i] = (float)(i % 7) - 3;
    B[i] = (float)(i % 5) - 2;
  }
  int tiles = n / BM;
  double best = 1e30;
  for (int run = 0; run < 5; run++) {
    double start = now();
    for (int pid = 0; pid < tiles * tiles; pid++) {
      int per_group = GROUP * tiles, first = pid / per_group * GROUP;
      int rows = tiles - first < GROUP ? tiles - first : GROUP;
      program(A, B, C, n, first + pid % per_group % rows,
              pid % per_group / rows);
    }
    double t = now() - start;
    best = t < best ? t : best;
  }
  long i = n - 1, j = 7;
  double ref = 0;
  for (long k = 0; k < n; k++)
    ref += (double)A[i * n + k] * B[k * n + j];
  printf("n %ld BK %d copy A %d prefetch %d: %.1f GFLOP/s (C[%ld][%ld] %g, "
         "expected %g)\n",
         n, BK, COPY_A, PREFETCH, 2.0 * n * n * n / best / 1e9, i, j,
         C[i * n + j], ref);
  return C[i * n + j] == ref ? 0 : 1;
}
