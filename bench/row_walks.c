/* Hand-written AVX-512 versions of the tutorials' softmax and layer norm
 * forward, three walks over each row as the Triton kernels make them, with and
 * without prefetching the thread's next row: what the algorithm itself reaches
 * on this machine beyond the caches, to compare the compiled kernels with
 * (docs/benchmarks.md, "Session 13"). Not part of the suite.
 *
 * usage: gcc -O2 -march=native -fopenmp bench/row_walks.c -o /tmp/row_walks -lm
 *        /tmp/row_walks THREADS
 * prints: one line per kernel and prefetch placement, GB/s (a 4096 x 4096 fp32
 * input read once and the output written once, as the suite counts them), the
 * median of 31 calls, each after 64 MiB of cache-clearing writes as the suite
 * does.
 *
 * softmax: walk 1 the row's maximum; walk 2 its exponentials (an exp of the
 * shape of spine-triton's on AVX-512: clamp, round, two-part reduction,
 * degree-6 polynomial, vscalefps) into a stack buffer and their sum; walk 3 the
 * scaled row, stored non-temporally. The tutorial's persistent grid: 8 programs
 * over the rows, rows 8 apart. layer norm: walk 1 the mean; walk 2 the
 * variance; walk 3 the normalized, scaled and shifted row, stored
 * non-temporally. One program per row, each thread taking a contiguous range.
 * "the row after in walk 3": walk 3 also prefetches the row after next, as
 * spine-triton does for layer norm (its store walk prefetches pid_x + 2).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4096, ROWS = 4096, PROGRAMS = 8, CALLS = 31 };
enum Prefetch {
  NONE,
  NEXT_IN_WALK2,
  NEXT_IN_WALK2_AFTER_NEXT_IN_WALK3,
  NEXT_IN_WALK2_STORES_DEFERRED
};

static float *x, *y, *weight, *bias, *flush;

static void prefetch_line(const float *p) {
  if (p)
    _mm_prefetch((const char *)p, _MM_HINT_T1);
}

static __m512 exp_ps(__m512 v) {
  v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(-104.0f)),
                    _mm512_set1_ps(89.0f));
  __m512 n =
      _mm512_roundscale_ps(_mm512_mul_ps(v, _mm512_set1_ps(1.44269504f)), 0);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), v);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(0.0013814610f), r,
                             _mm512_set1_ps(0.0083687110f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.041668389f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.16666521f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.49999994f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

/* Walk 1 of softmax: the row's maximum, in every lane. */
static __m512 row_max(const float *in) {
  __m512 m[4];
  for (int k = 0; k < 4; k++)
    m[k] = _mm512_set1_ps(-INFINITY);
  for (int i = 0; i < N; i += 64)
    for (int k = 0; k < 4; k++)
      m[k] = _mm512_max_ps(_mm512_loadu_ps(in + i + 16 * k), m[k]);
  return _mm512_set1_ps(_mm512_reduce_max_ps(
      _mm512_max_ps(_mm512_max_ps(m[0], m[1]), _mm512_max_ps(m[2], m[3]))));
}

static void softmax_row(const float *in, float *out, const float *next,
                        const float *after_next, enum Prefetch prefetch) {
  static __thread float numerator[N] __attribute__((aligned(64)));
  __m512 max = row_max(in);
  __m512 sum = _mm512_setzero_ps();
  for (int i = 0; i < N; i += 16) {
    if (prefetch != NONE && next)
      prefetch_line(next + i);
    __m512 e = exp_ps(_mm512_sub_ps(_mm512_loadu_ps(in + i), max));
    sum = _mm512_add_ps(sum, e);
    _mm512_store_ps(numerator + i, e);
  }
  __m512 scale = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
  for (int i = 0; i < N; i += 16) {
    if (prefetch == NEXT_IN_WALK2_AFTER_NEXT_IN_WALK3 && after_next)
      prefetch_line(after_next + i);
    _mm512_stream_ps(out + i,
                     _mm512_mul_ps(_mm512_load_ps(numerator + i), scale));
  }
}

/* The rows of one program, each row's walk 3 deferred into the next row's
 * walk 2, which prefetches the row after (in the last, the next program's
 * first, `next_program`). */
static void softmax_rows_deferred(long program, long next_program) {
  static __thread float numerator[N] __attribute__((aligned(64)));
  float *pending = NULL;
  __m512 pending_scale = _mm512_setzero_ps();
  for (long r = program; r < ROWS; r += PROGRAMS) {
    const float *in = x + r * N;
    const float *next = r + PROGRAMS < ROWS       ? x + (r + PROGRAMS) * N
                        : next_program < PROGRAMS ? x + next_program * N
                                                  : NULL;
    __m512 max = row_max(in);
    /* Four registers per step, as the compiled walk's strips. */
    __m512 sum[4];
    for (int k = 0; k < 4; k++)
      sum[k] = _mm512_setzero_ps();
    for (int i = 0; i < N; i += 64) {
      for (int k = 0; k < 4 && next; k++)
        prefetch_line(next + i + 16 * k);
      for (int k = 0; k < 4 && pending; k++)
        _mm512_stream_ps(pending + i + 16 * k,
                         _mm512_mul_ps(_mm512_load_ps(numerator + i + 16 * k),
                                       pending_scale));
      for (int k = 0; k < 4; k++) {
        __m512 e = exp_ps(_mm512_sub_ps(_mm512_loadu_ps(in + i + 16 * k), max));
        sum[k] = _mm512_add_ps(sum[k], e);
        _mm512_store_ps(numerator + i + 16 * k, e);
      }
    }
    float total = _mm512_reduce_add_ps(_mm512_add_ps(
        _mm512_add_ps(sum[0], sum[1]), _mm512_add_ps(sum[2], sum[3])));
    pending = y + r * N;
    pending_scale = _mm512_set1_ps(1.0f / total);
  }
  if (pending)
    for (int i = 0; i < N; i += 16)
      _mm512_stream_ps(pending + i, _mm512_mul_ps(_mm512_load_ps(numerator + i),
                                                  pending_scale));
}

static void layer_norm_row(const float *in, float *out, const float *next,
                           const float *after_next, enum Prefetch prefetch) {
  __m512 s[4];
  for (int k = 0; k < 4; k++)
    s[k] = _mm512_setzero_ps();
  for (int i = 0; i < N; i += 64)
    for (int k = 0; k < 4; k++)
      s[k] = _mm512_add_ps(s[k], _mm512_loadu_ps(in + i + 16 * k));
  __m512 mean = _mm512_set1_ps(
      _mm512_reduce_add_ps(
          _mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3]))) /
      N);
  for (int k = 0; k < 4; k++)
    s[k] = _mm512_setzero_ps();
  for (int i = 0; i < N; i += 64)
    for (int k = 0; k < 4; k++) {
      if (prefetch != NONE && next)
        prefetch_line(next + i + 16 * k);
      __m512 d = _mm512_sub_ps(_mm512_loadu_ps(in + i + 16 * k), mean);
      s[k] = _mm512_fmadd_ps(d, d, s[k]);
    }
  float var = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s[0], s[1]),
                                                 _mm512_add_ps(s[2], s[3]))) /
              N;
  __m512 rstd = _mm512_set1_ps(1.0f / sqrtf(var + 1e-5f));
  for (int i = 0; i < N; i += 16) {
    if (prefetch == NEXT_IN_WALK2_AFTER_NEXT_IN_WALK3 && after_next)
      prefetch_line(after_next + i);
    __m512 v =
        _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(in + i), mean), rstd);
    _mm512_stream_ps(out + i, _mm512_fmadd_ps(v, _mm512_loadu_ps(weight + i),
                                              _mm512_loadu_ps(bias + i)));
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
  x = aligned_alloc(64, bytes);
  y = aligned_alloc(64, bytes);
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
