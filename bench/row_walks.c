/* Hand-written AVX-512 (or, without it, AVX2) versions of the tutorials'
 * softmax and layer norm forward, three walks over each row as the Triton
 * kernels make them, with and without prefetching the thread's next row: what
 * the algorithm itself reaches on this machine beyond the caches, to compare
 * the compiled kernels with (docs/benchmarks.md, "Session 13" and "Session
 * 28"). The arrays ask for transparent huge pages, as the suite's tensors do.
 * Not part of the suite.
 *
 * usage: gcc -O2 -march=native -fopenmp bench/row_walks.c -o /tmp/row_walks -lm
 *        /tmp/row_walks THREADS
 * prints: one line per kernel and prefetch placement, GB/s (a 4096 x 4096 fp32
 * input read once and the output written once, as the suite counts them), the
 * median of 31 calls, each after 64 MiB of cache-clearing writes as the suite
 * does.
 *
 * softmax: walk 1 the row's maximum; walk 2 its exponentials (an exp of the
 * shape of spine-triton's: clamp, round, two-part reduction, degree-6
 * polynomial, then vscalefps on AVX-512 or the exponent's bits shifted into
 * place on AVX2) into a stack buffer and their sum; walk 3 the
 * scaled row, stored non-temporally. The tutorial's persistent grid: 8 programs
 * over the rows, rows 8 apart (in the deferred variant, a block of consecutive
 * rows per program, as spine-triton runs that loop). layer norm: walk 1 the
 * mean; walk 2 the variance; walk 3 the normalized, scaled and shifted row,
 * stored non-temporally. One program per row, each thread taking a contiguous
 * range. "the row after in walk 3": walk 3 also prefetches the row after next,
 * as spine-triton does for layer norm (its store walk prefetches pid_x + 2).
 * "walk 3 in the next row's walk 2": each row's stores wait for the next
 * row's exponentials, whose walk stores the previous row's elements from the
 * buffer before writing its own there, four registers per step, as
 * spine-triton does since spine-defer-store-walks (one register per step
 * measured 0-9% over the three walks where four measured 13-17%); the
 * program's last row is stored after its loop.
 */
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { N = 4096, ROWS = 4096, PROGRAMS = 8, CALLS = 31 };
enum Prefetch {
  NONE,
  NEXT_IN_WALK2,
  NEXT_IN_WALK2_AFTER_NEXT_IN_WALK3,
  NEXT_IN_WALK2_STORES_DEFERRED
};

static float *x, *y, *weight, *bias, *flush;

/* Walks step by registers; a line is prefetched once, at its first float
 * (rows start on a line). */
static void prefetch_line(const float *p) {
  if (p && (uintptr_t)p % 64 == 0)
    _mm_prefetch((const char *)p, _MM_HINT_T1);
}

/* One vector register of floats: AVX-512's where the compiler targets it,
 * else AVX2 with FMA (-march=native on Zen 3, say). */
#ifdef __AVX512F__
enum { LANES = 16 };
typedef __m512 vf;
#define vset1 _mm512_set1_ps
#define vzero _mm512_setzero_ps
#define vload _mm512_load_ps
#define vloadu _mm512_loadu_ps
#define vstore _mm512_store_ps
#define vstream _mm512_stream_ps
#define vadd _mm512_add_ps
#define vsub _mm512_sub_ps
#define vmul _mm512_mul_ps
#define vmax _mm512_max_ps
#define vmin _mm512_min_ps
#define vfmadd _mm512_fmadd_ps
#define vfnmadd _mm512_fnmadd_ps
#define hmax _mm512_reduce_max_ps
#define hsum _mm512_reduce_add_ps
#else
enum { LANES = 8 };
typedef __m256 vf;
#define vset1 _mm256_set1_ps
#define vzero _mm256_setzero_ps
#define vload _mm256_load_ps
#define vloadu _mm256_loadu_ps
#define vstore _mm256_store_ps
#define vstream _mm256_stream_ps
#define vadd _mm256_add_ps
#define vsub _mm256_sub_ps
#define vmul _mm256_mul_ps
#define vmax _mm256_max_ps
#define vmin _mm256_min_ps
#define vfmadd _mm256_fmadd_ps
#define vfnmadd _mm256_fnmadd_ps
static float hmax(vf v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}
static float hsum(vf v) {
  __m128 m = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_add_ps(m, _mm_movehl_ps(m, m));
  return _mm_cvtss_f32(_mm_add_ss(m, _mm_movehdup_ps(m)));
}
#endif

static vf exp_ps(vf v) {
#ifdef __AVX512F__
  v = vmin(vmax(v, vset1(-104.0f)), vset1(89.0f));
  vf n = _mm512_roundscale_ps(vmul(v, vset1(1.44269504f)), 0);
#else
  /* 2^n is built from n's bits below: n stays in the normal exponents. */
  v = vmin(vmax(v, vset1(-87.3f)), vset1(88.7f));
  vf n = _mm256_round_ps(vmul(v, vset1(1.44269504f)),
                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#endif
  vf r = vfnmadd(n, vset1(0.693359375f), v);
  r = vfnmadd(n, vset1(-2.12194440e-4f), r);
  vf p = vfmadd(vset1(0.0013814610f), r, vset1(0.0083687110f));
  p = vfmadd(p, r, vset1(0.041668389f));
  p = vfmadd(p, r, vset1(0.16666521f));
  p = vfmadd(p, r, vset1(0.49999994f));
  p = vfmadd(p, r, vset1(1.0f));
  p = vfmadd(p, r, vset1(1.0f));
#ifdef __AVX512F__
  return _mm512_scalef_ps(p, n);
#else
  __m256i bits = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return vmul(p, _mm256_castsi256_ps(bits));
#endif
}

/* The sum of all lanes of four accumulators. */
static float hsum4(const vf s[4]) {
  return hsum(vadd(vadd(s[0], s[1]), vadd(s[2], s[3])));
}

/* Walk 1 of softmax: the row's maximum, in every lane. */
static vf row_max(const float *in) {
  vf m[4];
  for (int k = 0; k < 4; k++)
    m[k] = vset1(-INFINITY);
  for (int i = 0; i < N; i += 4 * LANES)
    for (int k = 0; k < 4; k++)
      m[k] = vmax(vloadu(in + i + LANES * k), m[k]);
  return vset1(hmax(vmax(vmax(m[0], m[1]), vmax(m[2], m[3]))));
}

static void softmax_row(const float *in, float *out, const float *next,
                        const float *after_next, enum Prefetch prefetch) {
  static __thread float numerator[N] __attribute__((aligned(64)));
  vf max = row_max(in);
  vf sum = vzero();
  for (int i = 0; i < N; i += LANES) {
    if (prefetch != NONE && next)
      prefetch_line(next + i);
    vf e = exp_ps(vsub(vloadu(in + i), max));
    sum = vadd(sum, e);
    vstore(numerator + i, e);
  }
  vf scale = vset1(1.0f / hsum(sum));
  for (int i = 0; i < N; i += LANES) {
    if (prefetch == NEXT_IN_WALK2_AFTER_NEXT_IN_WALK3 && after_next)
      prefetch_line(after_next + i);
    vstream(out + i, vmul(vload(numerator + i), scale));
  }
}

/* The rows of one program, each row's walk 3 deferred into the next row's
 * walk 2, which prefetches the row after (in the last, the next program's
 * first, `next_program`). */
static void softmax_rows_deferred(long program, long next_program) {
  static __thread float numerator[N] __attribute__((aligned(64)));
  float *pending = NULL;
  vf pending_scale = vzero();
  /* A block of consecutive rows, as spine-block-grid-stride-loops gives
   * the tutorial's grid-stride loop. */
  long first = ROWS / PROGRAMS * program, end = first + ROWS / PROGRAMS;
  for (long r = first; r < end; r++) {
    const float *in = x + r * N;
    const float *next = r + 1 < end ? x + (r + 1) * N
                        : next_program < PROGRAMS
                            ? x + ROWS / PROGRAMS * next_program * N
                            : NULL;
    vf max = row_max(in);
    /* Four registers per step, as the compiled walk's strips. */
    vf sum[4];
    for (int k = 0; k < 4; k++)
      sum[k] = vzero();
    for (int i = 0; i < N; i += 4 * LANES) {
      for (int k = 0; k < 4 && next; k++)
        prefetch_line(next + i + LANES * k);
      for (int k = 0; k < 4 && pending; k++)
        vstream(pending + i + LANES * k,
                vmul(vload(numerator + i + LANES * k), pending_scale));
      for (int k = 0; k < 4; k++) {
        vf e = exp_ps(vsub(vloadu(in + i + LANES * k), max));
        sum[k] = vadd(sum[k], e);
        vstore(numerator + i + LANES * k, e);
      }
    }
    float total = hsum4(sum);
    pending = y + r * N;
    pending_scale = vset1(1.0f / total);
  }
  if (pending)
    for (int i = 0; i < N; i += LANES)
      vstream(pending + i, vmul(vload(numerator + i), pending_scale));
}

static void layer_norm_row(const float *in, float *out, const float *next,
                           const float *after_next, enum Prefetch prefetch) {
  vf s[4];
  for (int k = 0; k < 4; k++)
    s[k] = vzero();
  for (int i = 0; i < N; i += 4 * LANES)
    for (int k = 0; k < 4; k++)
      s[k] = vadd(s[k], vloadu(in + i + LANES * k));
  vf mean = vset1(hsum4(s) / N);
  for (int k = 0; k < 4; k++)
    s[k] = vzero();
  for (int i = 0; i < N; i += 4 * LANES)
    for (int k = 0; k < 4; k++) {
      if (prefetch != NONE && next)
        prefetch_line(next + i + LANES * k);
      vf d = vsub(vloadu(in + i + LANES * k), mean);
      s[k] = vfmadd(d, d, s[k]);
    }
  float var = hsum4(s) / N;
  vf rstd = vset1(1.0f / sqrtf(var + 1e-5f));
  for (int i = 0; i < N; i += LANES) {
    if (prefetch == NEXT_IN_WALK2_AFTER_NEXT_IN_WALK3 && after_next)
      prefetch_line(after_next + i);
    vf v = vmul(vsub(vloadu(in + i), mean), rstd);
    vstream(out + i, vfmadd(v, vloadu(weight + i), vloadu(bias + i)));
  }
}

static void run(int threads, int softmax, enum Prefetch prefetch) {
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), team = omp_get_num_threads();
    if (softmax && prefetch == NEXT_IN_WALK2_STORES_DEFERRED) {
      for (long p = PROGRAMS * t / team; p < PROGRAMS * (t + 1) / team; p++)
        softmax_rows_deferred(p, p + 1 < PROGRAMS * (t + 1) / team ? p + 1
                                                                   : PROGRAMS);
    } else if (softmax) {
      for (long p = PROGRAMS * t / team; p < PROGRAMS * (t + 1) / team; p++)
        for (long r = p; r < ROWS; r += PROGRAMS) {
          const float *next =
              r + PROGRAMS < ROWS ? x + (r + PROGRAMS) * N : NULL;
          const float *after =
              r + 2 * PROGRAMS < ROWS ? x + (r + 2 * PROGRAMS) * N : NULL;
          softmax_row(x + r * N, y + r * N, next, after, prefetch);
        }
    } else {
      long begin = (long)ROWS * t / team, end = (long)ROWS * (t + 1) / team;
      for (long r = begin; r < end; r++)
        layer_norm_row(x + r * N, y + r * N,
                       r + 1 < end ? x + (r + 1) * N : NULL,
                       r + 2 < end ? x + (r + 2) * N : NULL, prefetch);
    }
    _mm_sfence();
  }
}

static int by_value(const void *a, const void *b) {
  double d = *(const double *)a - *(const double *)b;
  return (d > 0) - (d < 0);
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : omp_get_max_threads();
  size_t bytes = (size_t)ROWS * N * sizeof(float);
  x = aligned_alloc(2 << 20, bytes);
  y = aligned_alloc(2 << 20, bytes);
  if (x && y)
    madvise(x, bytes, MADV_HUGEPAGE), madvise(y, bytes, MADV_HUGEPAGE);
  weight = aligned_alloc(64, N * sizeof(float));
  bias = aligned_alloc(64, N * sizeof(float));
  flush = aligned_alloc(64, 64 << 20);
  if (!x || !y || !weight || !bias || !flush)
    return 1;
  for (size_t i = 0; i < (size_t)ROWS * N; i++)
    x[i] = (float)(i % 1000) * 1e-3f;
  memset(y, 0, bytes);
  for (int i = 0; i < N; i++)
    weight[i] = 1.0f, bias[i] = 0.5f;
  struct {
    const char *name;
    int softmax;
    enum Prefetch prefetch;
  } cases[] = {
      {"softmax   next row in walk 2", 1, NEXT_IN_WALK2},
      {"softmax   + the row after in walk 3", 1,
       NEXT_IN_WALK2_AFTER_NEXT_IN_WALK3},
      {"softmax   walk 3 in the next row's walk 2 (spine-triton's)", 1,
       NEXT_IN_WALK2_STORES_DEFERRED},
      {"softmax   no prefetch", 1, NONE},
      {"layernorm no prefetch", 0, NONE},
      {"layernorm next row in walk 2", 0, NEXT_IN_WALK2},
      {"layernorm + the row after in walk 3", 0,
       NEXT_IN_WALK2_AFTER_NEXT_IN_WALK3},
  };
  enum { CASES = sizeof cases / sizeof cases[0] };
  double seconds[CASES][CALLS];
  /* In turns, so every placement sees the same quiet and busy moments. */
  for (int call = 0; call < CALLS; call++)
    for (int c = 0; c < CASES; c++) {
      memset(flush, call, 64 << 20);
      double start = omp_get_wtime();
      run(threads, cases[c].softmax, cases[c].prefetch);
      seconds[c][call] = omp_get_wtime() - start;
    }
  for (int c = 0; c < CASES; c++) {
    qsort(seconds[c], CALLS, sizeof(double), by_value);
    printf("threads %d  %-48s %5.1f GB/s\n", threads, cases[c].name,
           2.0 * bytes / seconds[c][CALLS / 2] / 1e9);
  }
  return 0;
}
