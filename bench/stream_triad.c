/* STREAM triad, a[i] = b[i] + s * c[i] on doubles, with OpenMP.
 *
 * As a program: stream_triad N REPEATS [huge] (threads: OMP_NUM_THREADS) prints
 *   gbps <best> plain <best, plain stores> streaming <best, streaming stores>
 *   threads <n> mib <MiB per array> pages <huge|small>
 * With `huge` the arrays ask for transparent huge pages, as the benchmark's
 * torch tensors do unless it runs with --small-pages; without, they ask for
 * none, so `pages` is true whatever the system's default.
 *
 * Built with -DSTREAM_TRIAD_LIBRARY -shared, the two loops are a library the
 * benchmark worker calls in turns with the kernels (bench/worker.py), so the
 * triad shares their busy and quiet moments.
 *
 * Bytes moved per repeat are counted as STREAM does: 3 arrays x N x 8. With
 * plain stores the write-allocate read of `a` moves 8 bytes more per element,
 * uncounted; streaming (non-temporal) stores, which STREAM's rules allow and
 * which x86 compilers emit for it on request, skip that read. spine-triton's
 * kernels use them, as wide as the vector registers, for loops over more than
 * the last-level cache, so the machine's limit is the better of the two
 * (`gbps`). Without AVX both are the plain loop. Pick N so each array is
 * several times the last-level cache.
 */
#include <omp.h>
#if defined(__AVX__)
#include <immintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(STREAM_TRIAD_LIBRARY)
#include <sys/mman.h>
#endif

void stream_triad_plain(double *a, const double *b, const double *c, double s,
                        long n, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
}

/* The same static split into contiguous ranges, by hand, each range stored with
 * the widest streaming stores the target has. */
void stream_triad_streaming(double *a, const double *b, const double *c,
                            double s, long n, int threads) {
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), team = omp_get_num_threads();
    long begin = n * t / team, end = n * (t + 1) / team, i = begin;
#if defined(__AVX512F__)
    for (; i < end && ((unsigned long)(a + i) & 63) != 0; i++)
      a[i] = b[i] + s * c[i];
    __m512d sv = _mm512_set1_pd(s);
    for (; i + 8 <= end; i += 8)
      _mm512_stream_pd(
          a + i, _mm512_add_pd(_mm512_loadu_pd(b + i),
                               _mm512_mul_pd(sv, _mm512_loadu_pd(c + i))));
    _mm_sfence();
#elif defined(__AVX__)
    for (; i < end && ((unsigned long)(a + i) & 31) != 0; i++)
      a[i] = b[i] + s * c[i];
    __m256d sv = _mm256_set1_pd(s);
    for (; i + 4 <= end; i += 4)
      _mm256_stream_pd(
          a + i, _mm256_add_pd(_mm256_loadu_pd(b + i),
                               _mm256_mul_pd(sv, _mm256_loadu_pd(c + i))));
    _mm_sfence();
#endif
    for (; i < end; i++)
      a[i] = b[i] + s * c[i];
  }
}

#if !defined(STREAM_TRIAD_LIBRARY)
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 25;
  int repeats = argc > 2 ? atoi(argv[2]) : 10;
  int huge = argc > 3 && strcmp(argv[3], "huge") == 0;
  int threads = omp_get_max_threads();
  /* Aligned to a huge page (so the three arrays have the same alignment at
   * every index), and advised before the first touch, which is when the
   * kernel picks the page size. */
  size_t align = 2u << 20;
  size_t bytes = ((n * sizeof(double) + align - 1) / align) * align;
  double *a = aligned_alloc(align, bytes), *b = aligned_alloc(align, bytes),
         *c = aligned_alloc(align, bytes);
  if (!a || !b || !c) {
    fprintf(stderr, "stream_triad: cannot allocate 3 x %ld doubles\n", n);
    return 1;
  }
  int advice = huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
  if (madvise(a, bytes, advice) != 0 || madvise(b, bytes, advice) != 0 ||
      madvise(c, bytes, advice) != 0) {
    perror("stream_triad: madvise");
    return 1;
  }
  /* First touch with the same static schedule as the triad: each thread's pages
   * are local. */
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < n; i++) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  const double s = 3.0;
  double plain = 0, streaming = 0;
  for (int r = 0; r < repeats; r++) {
    double t0 = omp_get_wtime();
    stream_triad_plain(a, b, c, s, n, threads);
    double t1 = omp_get_wtime();
    stream_triad_streaming(a, b, c, s, n, threads);
    double t2 = omp_get_wtime();
    double moved = 3.0 * sizeof(double) * (double)n / 1e9;
    if (moved / (t1 - t0) > plain)
      plain = moved / (t1 - t0);
    if (moved / (t2 - t1) > streaming)
      streaming = moved / (t2 - t1);
  }
  double best = plain > streaming ? plain : streaming;
  /* Checking one element keeps the stores observable. */
  if (a[n / 2] != 7.0) {
    fprintf(stderr, "stream_triad: wrong result %g\n", a[n / 2]);
    return 1;
  }
  printf("gbps %.3f plain %.3f streaming %.3f threads %d mib %.1f pages %s\n",
         best, plain, streaming, threads, n * 8.0 / (1 << 20),
         huge ? "huge" : "small");
  free(a);
  free(b);
  free(c);
  return 0;
}
#endif
